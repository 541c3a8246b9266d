/*-------------------------------------------------------------------------
 *
 * key_scan.c
 *	  Seeks on the key of a streaming view: a custom scan path.
 *
 * A streaming view's table is ordered by the memcmp encoding of its key
 * (stream_plan.h, key_columns), which for most views is made of view
 * columns: the group key of an aggregation, the source's primary key of a
 * filter/projection, the whole row of a DISTINCT.  When a query restricts
 * a prefix of those columns by equality with values known before the scan
 * (constants, parameters, stable expressions), and optionally the next
 * column by a range, this path reads only that key range:
 *
 *	 Custom Scan (HummockKeyScan) on sales
 *	   Key Cond: (customer_id = 42)
 *
 * The encoded bounds are a superset of the matching keys (NULLs and
 * collation details are left to the recheck): every restriction clause of
 * the relation stays a qual of the scan.
 *
 * Equality works for any type with a key encoding (memcmp_key.c); a range
 * needs an order-preserving one, and for text a bytewise collation.  A
 * cross-type operator (bigint column = integer constant) is used when the
 * value's type casts implicitly to the column's.
 *
 * src/batch/key_scan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parse_coerce.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "hummock_stream/batch/read_epoch.h"
#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/row/memcmp_key.h"

#define KEY_SCAN_NAME "HummockKeyScan"

static set_rel_pathlist_hook_type prev_set_rel_pathlist = NULL;

/* One usable restriction on a key column. */
typedef struct KeyCond
{
	int			keypos;			/* position in the key, 0-based */
	int			strategy;		/* BT*StrategyNumber */
	Expr	   *value;			/* in the column's type */
	Expr	   *clause;			/* the original clause, for EXPLAIN */
} KeyCond;

/* ---------------------------------------------------------------------
 * Planning
 * ---------------------------------------------------------------------
 */


/*
 * If clause restricts column attno of relation relid as "col op value" with
 * an operator of the column type's btree family, the strategy and the
 * value (coerced to the column's type); else 0.
 */
static int
match_clause(Expr *clause, Index relid, AttrNumber attno, Oid coltype,
			 Oid colcoll, Expr **value)
{
	OpExpr	   *op;
	Node	   *left;
	Node	   *right;
	Oid			opno;
	Oid			opfamily;
	Oid			opclass;
	int			strategy;
	Oid			lefttype;
	Oid			righttype;
	Node	   *other;
	Var		   *var;

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return 0;
	op = (OpExpr *) clause;
	left = strip_implicit_coercions(linitial(op->args));
	right = strip_implicit_coercions(lsecond(op->args));
	opno = op->opno;
	if (IsA(left, Var))
	{
		var = (Var *) left;
		other = lsecond(op->args);
	}
	else if (IsA(right, Var))
	{
		var = (Var *) right;
		other = linitial(op->args);
		opno = get_commutator(opno);
		if (!OidIsValid(opno))
			return 0;
	}
	else
		return 0;
	if (var->varno != (int) relid || var->varattno != attno || var->varlevelsup != 0 ||
		var->vartype != coltype)
		return 0;
	if (contain_var_clause(other) || contain_volatile_functions(other))
		return 0;

	opclass = GetDefaultOpClass(coltype, BTREE_AM_OID);
	if (!OidIsValid(opclass))
		return 0;
	opfamily = get_opclass_family(opclass);
	if (!op_in_opfamily(opno, opfamily))
		return 0;
	get_op_opfamily_properties(opno, opfamily, false, &strategy, &lefttype, &righttype);
	if (lefttype != coltype)
		return 0;
	if (strategy != BTEqualStrategyNumber &&
		(HsMemcmpTypeSupport(coltype) != HS_MEMCMP_ORDERED ||
		 !HsCollationIsBytewise(op->inputcollid)))
		return 0;
	/*
	 * The key holds each value's encoding, which gives equal values equal
	 * bytes only for a type whose support is not NONE and under a
	 * deterministic collation: a citext or numrange key (encoded by the
	 * bytes it sends, to tell rows apart) or text compared under a
	 * case-insensitive collation would miss the rows that are equal but
	 * spelled otherwise.
	 */
	if (HsMemcmpTypeSupport(coltype) == HS_MEMCMP_NONE)
		return 0;
	if (OidIsValid(op->inputcollid) && !get_collation_isdeterministic(op->inputcollid))
		return 0;
	if (exprType(other) != coltype)
	{
		if (!IsBinaryCoercible(exprType(other), coltype) &&
			find_coercion_pathway(coltype, exprType(other), COERCION_IMPLICIT,
								  &(Oid) {InvalidOid}) == COERCION_PATH_NONE)
			return 0;
		other = coerce_to_target_type(NULL, other, exprType(other), coltype, -1,
									  COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
		if (other == NULL)
			return 0;
	}
	*value = (Expr *) other;
	return strategy;
}

static Plan *key_scan_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
						   List *tlist, List *clauses, List *custom_plans);
static Node *key_scan_create_state(CustomScan *cscan);
static const CustomPathMethods hs_key_scan_path_methods;

static void
key_scan_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
				  RangeTblEntry *rte)
{
	Relation	r;
	const HsViewInfo *kc;
	List	   *conds = NIL;
	CustomPath *cp;
	bool		all_equal = true;

	if (prev_set_rel_pathlist)
		prev_set_rel_pathlist(root, rel, rti, rte);
	if (rte->rtekind != RTE_RELATION || !HsRelidIsHummock(rte->relid))
		return;

	/*
	 * Parallel workers read a hummock relation only through a parallel
	 * sequential scan (a partial path), which carries the leader's version
	 * and epoch (parallel_scan.c).  A whole scan of it in a worker (a
	 * non-partial path below a Gather) would have to decide them on its
	 * own, so the complete paths are not parallel safe: they run in the
	 * leader, above any Gather.
	 */
	{
		ListCell   *lc;

		foreach(lc, rel->pathlist)
			((Path *) lfirst(lc))->parallel_safe = false;
	}

	if (rel->reloptkind != RELOPT_BASEREL || rel->baserestrictinfo == NIL)
		return;
	r = table_open(rte->relid, NoLock);
	kc = HsViewInfoOf(r);
	/* equality on a prefix of the key, then maybe a range on the next column */
	for (int k = 0; k < kc->n_key_columns && all_equal; k++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(r), kc->key_columns[k] - 1);
		bool		got_equal = false;
		ListCell   *lc;

		foreach(lc, rel->baserestrictinfo)
		{
			RestrictInfo *ri = lfirst(lc);
			Expr	   *value;
			int			strategy = match_clause(ri->clause, rti, att->attnum,
												att->atttypid, att->attcollation, &value);
			KeyCond    *c;

			if (strategy == 0 || (got_equal && strategy != BTEqualStrategyNumber))
				continue;
			if (strategy == BTEqualStrategyNumber && got_equal)
				continue;		/* one equality per column is enough */
			c = palloc(sizeof(KeyCond));
			c->keypos = k;
			c->strategy = strategy;
			c->value = value;
			c->clause = ri->clause;
			conds = lappend(conds, c);
			if (strategy == BTEqualStrategyNumber)
				got_equal = true;
		}
		if (got_equal)
		{
			/* drop ranges on a column that has an equality */
			ListCell   *l2;

			foreach(l2, conds)
			{
				KeyCond    *c = lfirst(l2);

				if (c->keypos == k && c->strategy != BTEqualStrategyNumber)
					conds = foreach_delete_current(conds, l2);
			}
		}
		else
			all_equal = false;
	}
	table_close(r, NoLock);
	if (conds == NIL)
		return;

	cp = makeNode(CustomPath);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = rel->reltarget;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = false;
	cp->path.parallel_safe = false;
	cp->path.pathkeys = NIL;
	cp->path.rows = rel->rows;
	/* a seek and the rows it finds: no pages of the rest of the relation */
	cp->path.startup_cost = 0;
	cp->path.total_cost = (cpu_tuple_cost + cpu_operator_cost * list_length(rel->baserestrictinfo)) *
		Max(rel->rows, 1.0);
	cp->flags = 0;
	cp->custom_paths = NIL;
	{
		List	   *priv = NIL;
		ListCell   *lc;

		foreach(lc, conds)
		{
			KeyCond    *c = lfirst(lc);

			priv = lappend(priv, list_make4(makeInteger(c->keypos),
											makeInteger(c->strategy),
											c->value, c->clause));
		}
		cp->custom_private = priv;
	}
	cp->methods = &hs_key_scan_path_methods;
	add_path(rel, &cp->path);
}

static const CustomPathMethods hs_key_scan_path_methods = {
	.CustomName = KEY_SCAN_NAME,
	.PlanCustomPath = key_scan_plan,
};

static const CustomScanMethods key_scan_methods = {
	.CustomName = KEY_SCAN_NAME,
	.CreateCustomScanState = key_scan_create_state,
};

/*
 * The plan: custom_exprs = the key values then the original clauses (both
 * fixed up by setrefs); custom_private = one (keypos, strategy) pair per
 * condition; every restriction clause is rechecked as the scan's qual.
 */
static Plan *
key_scan_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cs = makeNode(CustomScan);
	List	   *values = NIL;
	List	   *conds = NIL;
	List	   *info = NIL;
	ListCell   *lc;

	foreach(lc, best_path->custom_private)
	{
		List	   *c = lfirst(lc);

		info = lappend_int(info, intVal(linitial(c)));
		info = lappend_int(info, intVal(lsecond(c)));
		values = lappend(values, lthird(c));
		conds = lappend(conds, lfourth(c));
	}
	cs->scan.plan.targetlist = tlist;
	cs->scan.plan.qual = extract_actual_clauses(clauses, false);
	cs->scan.scanrelid = rel->relid;
	cs->flags = best_path->flags;
	cs->custom_plans = NIL;
	cs->custom_exprs = list_concat(values, conds);
	cs->custom_private = info;
	cs->custom_scan_tlist = NIL;
	cs->methods = &key_scan_methods;
	return &cs->scan.plan;
}

/* ---------------------------------------------------------------------
 * Execution
 * ---------------------------------------------------------------------
 */

typedef struct KeyScanState
{
	CustomScanState css;
	int			nconds;
	int		   *keypos;
	int		   *strategy;
	List	   *value_states;	/* ExprState per condition */
	TableScanDesc scan;
	TupleTableSlot *fetch_slot; /* the table's own slot type */
	bool		empty;			/* the bounds exclude everything */
} KeyScanState;

static void key_scan_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *key_scan_exec(CustomScanState *node);
static void key_scan_end(CustomScanState *node);
static void key_scan_rescan(CustomScanState *node);
static void key_scan_explain(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomExecMethods key_scan_exec_methods = {
	.CustomName = KEY_SCAN_NAME,
	.BeginCustomScan = key_scan_begin,
	.ExecCustomScan = key_scan_exec,
	.EndCustomScan = key_scan_end,
	.ReScanCustomScan = key_scan_rescan,
	.ExplainCustomScan = key_scan_explain,
};

static Node *
key_scan_create_state(CustomScan *cscan)
{
	KeyScanState *s = (KeyScanState *) newNode(sizeof(KeyScanState), T_CustomScanState);

	s->css.methods = &key_scan_exec_methods;
	return (Node *) s;
}

static void
key_scan_begin(CustomScanState *node, EState *estate, int eflags)
{
	KeyScanState *s = (KeyScanState *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	ListCell   *lc;
	int			i = 0;

	s->nconds = list_length(cs->custom_private) / 2;
	s->keypos = palloc(sizeof(int) * s->nconds);
	s->strategy = palloc(sizeof(int) * s->nconds);
	foreach(lc, cs->custom_private)
	{
		if (i % 2 == 0)
			s->keypos[i / 2] = lfirst_int(lc);
		else
			s->strategy[i / 2] = lfirst_int(lc);
		i++;
	}
	s->value_states = NIL;
	i = 0;
	foreach(lc, cs->custom_exprs)
	{
		if (i++ >= s->nconds)
			break;
		s->value_states = lappend(s->value_states,
								  ExecInitExpr((Expr *) lfirst(lc), &node->ss.ps));
	}
	s->scan = NULL;
	s->fetch_slot = table_slot_create(node->ss.ss_currentRelation,
									  &estate->es_tupleTable);
}

/* The smallest byte string greater than every string starting with b. */
static bool
prefix_successor(StringInfo b)
{
	while (b->len > 0)
	{
		unsigned char *last = (unsigned char *) &b->data[b->len - 1];

		if (*last != 0xFF)
		{
			(*last)++;
			return true;
		}
		b->len--;
	}
	return false;				/* unbounded */
}

static int
bytes_cmp(StringInfo a, StringInfo b)
{
	int			c = memcmp(a->data, b->data, Min(a->len, b->len));

	return c != 0 ? c : (a->len > b->len) - (a->len < b->len);
}

/* Evaluate the conditions and open the table scan on their key range. */
static void
open_scan(KeyScanState *s)
{
	Relation	rel = s->css.ss.ss_currentRelation;
	TupleDesc	desc = RelationGetDescr(rel);
	const HsViewInfo *kc = HsViewInfoOf(rel);
	ExprContext *econtext = s->css.ss.ps.ps_ExprContext;
	StringInfoData prefix,
				lower,
				upper;
	bool		has_lower = false,
				has_upper = false;
	ListCell   *lc;
	int			i = 0;
	int			next_equal = 0;

	initStringInfo(&prefix);
	initStringInfo(&lower);
	initStringInfo(&upper);
	s->empty = false;
	/* equality conditions come first, in key order */
	foreach(lc, s->value_states)
	{
		ExprState  *es = lfirst(lc);
		bool		isnull;
		Datum		v = ExecEvalExprSwitchContext(es, econtext, &isnull);
		Oid			t = TupleDescAttr(desc, kc->key_columns[s->keypos[i]] - 1)->atttypid;

		if (isnull)
		{
			s->empty = true;	/* col op NULL is never true */
			break;
		}
		if (s->strategy[i] == BTEqualStrategyNumber && s->keypos[i] == next_equal)
		{
			HsMemcmpEncode(&prefix, v, false, t, false);
			next_equal++;
		}
		i++;
	}
	/* then the ranges on the column after the equality prefix */
	appendBinaryStringInfo(&lower, prefix.data, prefix.len);
	appendBinaryStringInfo(&upper, prefix.data, prefix.len);
	i = 0;
	foreach(lc, s->value_states)
	{
		ExprState  *es = lfirst(lc);
		bool		isnull;
		Datum		v;
		Oid			t;
		StringInfoData b;

		if (s->strategy[i] == BTEqualStrategyNumber || s->keypos[i] != next_equal || s->empty)
		{
			i++;
			continue;
		}
		v = ExecEvalExprSwitchContext(es, econtext, &isnull);
		if (isnull)
		{
			s->empty = true;
			break;
		}
		t = TupleDescAttr(desc, kc->key_columns[s->keypos[i]] - 1)->atttypid;
		initStringInfo(&b);
		appendBinaryStringInfo(&b, prefix.data, prefix.len);
		HsMemcmpEncode(&b, v, false, t, false);
		switch (s->strategy[i])
		{
			case BTGreaterEqualStrategyNumber:
			case BTGreaterStrategyNumber:
				/* a superset: keys >= prefix|enc(v) (the recheck drops = v) */
				if (!has_lower || bytes_cmp(&b, &lower) > 0)
				{
					resetStringInfo(&lower);
					appendBinaryStringInfo(&lower, b.data, b.len);
				}
				has_lower = true;
				break;
			case BTLessStrategyNumber:
			case BTLessEqualStrategyNumber:
				/* keys < successor(prefix|enc(v)) */
				if (prefix_successor(&b) && (!has_upper || bytes_cmp(&b, &upper) < 0))
				{
					resetStringInfo(&upper);
					appendBinaryStringInfo(&upper, b.data, b.len);
					has_upper = true;
				}
				break;
		}
		pfree(b.data);
		i++;
	}
	if (!has_upper)
	{
		resetStringInfo(&upper);
		appendBinaryStringInfo(&upper, prefix.data, prefix.len);
		has_upper = prefix.len > 0 && prefix_successor(&upper);
	}
	if (!has_lower && prefix.len > 0)
		has_lower = true;		/* lower = prefix */

	s->scan = table_beginscan(rel, s->css.ss.ps.state->es_snapshot, 0, NULL);
	HsScanSetKeyRange(s->scan, has_lower ? lower.data : NULL, lower.len,
					  has_upper ? upper.data : NULL, upper.len);
	pfree(prefix.data);
	pfree(lower.data);
	pfree(upper.data);
}

static TupleTableSlot *
key_scan_next(ScanState *ss)
{
	KeyScanState *s = (KeyScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;

	if (s->scan == NULL)
		open_scan(s);
	if (s->empty || !table_scan_getnextslot(s->scan, ForwardScanDirection, s->fetch_slot))
		return ExecClearTuple(slot);
	/* the scan slot is virtual (PG15): point it at the fetched row's values */
	slot_getallattrs(s->fetch_slot);
	ExecClearTuple(slot);
	memcpy(slot->tts_values, s->fetch_slot->tts_values,
		   sizeof(Datum) * slot->tts_tupleDescriptor->natts);
	memcpy(slot->tts_isnull, s->fetch_slot->tts_isnull,
		   sizeof(bool) * slot->tts_tupleDescriptor->natts);
	return ExecStoreVirtualTuple(slot);
}

static bool
key_scan_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;				/* the quals of the plan are checked by ExecScan */
}

static TupleTableSlot *
key_scan_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, key_scan_next, key_scan_recheck);
}

static void
key_scan_end(CustomScanState *node)
{
	KeyScanState *s = (KeyScanState *) node;

	if (s->scan)
		table_endscan(s->scan);
	s->scan = NULL;
}

static void
key_scan_rescan(CustomScanState *node)
{
	key_scan_end(node);			/* parameters may have changed: seek again */
}

static void
key_scan_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	KeyScanState *s = (KeyScanState *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	List	   *conds = list_copy_tail(cs->custom_exprs, s->nconds);
	List	   *context;
	char	   *text;

	context = set_deparse_context_plan(es->deparse_cxt, &cs->scan.plan, ancestors);
	text = deparse_expression((Node *) make_ands_explicit(conds), context,
							  es->verbose, false);
	ExplainPropertyText("Key Cond", text, es);
}

void
HsKeyScanInstall(void)
{
	RegisterCustomScanMethods(&key_scan_methods);
	prev_set_rel_pathlist = set_rel_pathlist_hook;
	set_rel_pathlist_hook = key_scan_pathlist;
}
