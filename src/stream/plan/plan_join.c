/*-------------------------------------------------------------------------
 *
 * plan_join.c
 *	  Planning join trees in a streaming view: FROM lists, JOIN ... ON,
 *	  join keys, and semi/anti joins from WHERE sublinks.
 *
 *	FROM a, b WHERE ... / a [INNER|LEFT|RIGHT|FULL] JOIN b ON ...:
 *		HashJoin(equalities between the two sides as the key; other
 *		conditions as the join filter); a FROM list is joined left-deep in
 *		FROM order, each next item preferably one related to what is
 *		joined so far by an equality; RIGHT JOIN is a LEFT JOIN with the
 *		sides swapped
 *	WHERE x IN (SELECT ...), EXISTS (...), NOT EXISTS (...):
 *		semi and anti HashJoins, joined after the FROM list
 *	functions and VALUES lists in FROM:
 *		inner-joined: run over the rows of the other items (ProjectSet),
 *		the condition filtering after; one that reads no table with 64
 *		rows or more and an equality with a table, and one on either
 *		side of an outer join with tables: a constant input
 *		(plan_constant_with.c) of a HashJoin, in views planned so
 *		(PlanCtx.constant_joins)
 *
 * Join keys are equalities whose operator is the type's own btree or hash
 * equality (so equal values have equal memcmp encodings), between
 * expressions of the two sides, after casting integers of different
 * widths to int8 and float4 to float8; the type needs an encoding and the
 * collation must be deterministic.  Anything else in ON (or in WHERE
 * across the items of a FROM list) is the join filter.  Conjuncts over
 * one side alone filter that side first where that keeps the join's
 * meaning: either side of an inner join, the non-preserved side of a left
 * join, neither side of a full join.
 *
 * Sublinks become joins exactly when Postgres's planner would pull them
 * up: its own convert_ANY_sublink_to_join and
 * convert_EXISTS_sublink_to_join do the conversion (plan_sublinks.c has
 * already rewritten scalar subqueries, and NOT IN into NOT EXISTS), and the
 * JoinExprs they return are planned like any other join.  Their quals are remembered (semi_quals):
 * they left WHERE, but the leaves must still keep the columns they use.
 *
 * src/stream/plan/plan_join.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>

#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "optimizer/prep.h"
#include "optimizer/subselect.h"
#include "rewrite/rewriteManip.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "hummock_stream/row/memcmp_key.h"

#include "plan_internal.h"

static RelOut *plan_jtnode_filtered(PlanCtx *ctx, Query *q, List *outer, Node *jt,
									 List *quals);

/* ---------------------------------------------------------------------
 * Join keys and joins
 * ---------------------------------------------------------------------
 */

/*
 * Is clause an equality (or an IS NOT DISTINCT FROM: *null_safe) usable as
 * a hash join key between the rows of lrel and rrel?  If so, set *lexpr
 * and *rexpr to its two sides (cast to one type) over lrel and rrel.  With
 * allow_hash, an equality of a type whose equal values can differ in
 * their bytes is one too, by the hashes of its sides (*recheck: the join
 * must check the equality itself on the rows that match).
 */
static bool
equi_key(Expr *clause, Relids lrel, Relids rrel, Expr **lexpr, Expr **rexpr,
		 bool *null_safe, bool allow_hash, bool *recheck)
{
	OpExpr	   *op;
	Expr	   *a;
	Expr	   *b;
	Relids		ra;
	Relids		rb;
	Oid			ta;
	Oid			tb;
	Oid			t;
	TypeCacheEntry *tc;

	*null_safe = false;
	*recheck = false;
	/* a IS NOT DISTINCT FROM b: NOT over a DistinctExpr of the equality */
	if (is_notclause(clause) && IsA(get_notclausearg(clause), DistinctExpr))
	{
		clause = get_notclausearg(clause);
		*null_safe = true;
	}
	else if (!IsA(clause, OpExpr))
		return false;
	if (list_length(((OpExpr *) clause)->args) != 2)
		return false;
	op = (OpExpr *) clause;
	a = linitial(op->args);
	b = lsecond(op->args);
	ra = varnos_of((Node *) a);
	rb = varnos_of((Node *) b);
	if (bms_is_empty(ra) || bms_is_empty(rb))
		return false;
	if (!(bms_is_subset(ra, lrel) && bms_is_subset(rb, rrel)))
	{
		Expr	   *x = a;

		if (!(bms_is_subset(ra, rrel) && bms_is_subset(rb, lrel)))
			return false;
		a = b;
		b = x;
	}
	ta = getBaseType(exprType((Node *) a));
	tb = getBaseType(exprType((Node *) b));
	if (ta == tb)
		t = ta;
	else if ((ta == INT2OID || ta == INT4OID || ta == INT8OID) &&
			 (tb == INT2OID || tb == INT4OID || tb == INT8OID))
		t = INT8OID;
	else if ((ta == FLOAT4OID || ta == FLOAT8OID) && (tb == FLOAT4OID || tb == FLOAT8OID))
		t = FLOAT8OID;
	else
		return false;
	/*
	 * A type whose equal values can differ in their bytes (or text under a
	 * nondeterministic collation) joins by its hash, and the equality is
	 * checked again on the rows that match (plan_hashed_keys.c).
	 */
	if (group_key_needs_hash(t, op->inputcollid))
	{
		if (!allow_hash || !group_key_hashable(t))
			return false;
		*recheck = true;
	}
	/* the operator must be the type's own equality (equal = same hash or encoding) */
	tc = lookup_type_cache(t, TYPECACHE_BTREE_OPFAMILY | TYPECACHE_HASH_OPFAMILY);
	/* (a hashed key stands for the equality of the family its hash is of) */
	if (*recheck && !(OidIsValid(tc->hash_opf) &&
					  get_op_opfamily_strategy(op->opno, tc->hash_opf) == HTEqualStrategyNumber))
		return false;
	if (!((OidIsValid(tc->btree_opf) &&
		   get_op_opfamily_strategy(op->opno, tc->btree_opf) == BTEqualStrategyNumber) ||
		  (OidIsValid(tc->hash_opf) &&
		   get_op_opfamily_strategy(op->opno, tc->hash_opf) == HTEqualStrategyNumber)))
		return false;
	*lexpr = (Expr *) coerce_to_target_type(NULL, (Node *) a, exprType((Node *) a), t, -1,
											COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
	*rexpr = (Expr *) coerce_to_target_type(NULL, (Node *) b, exprType((Node *) b), t, -1,
											COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
	if (*lexpr == NULL || *rexpr == NULL)
		return false;
	if (*recheck)
	{
		*lexpr = hashed_key(*lexpr, op->inputcollid);
		*rexpr = hashed_key(*rexpr, op->inputcollid);
	}
	return true;
}

/*
 * Make port (a join's input) the downstream of in's rows, through a
 * consolidation if in may churn: in a chain of outer joins each level
 * would otherwise double the rows one change makes.
 */
static void
attach_join_input(RelOut *in, HsExec *port)
{
	if (in->churns)
	{
		HsExec	   *c = HsExecConsolidateCreate(in->desc);

		attach(in, c);
		c->downstream = port;
	}
	else
		attach(in, port);
}

/*
 * Join left (the rows of lrel) and right (of rrel) on conds (clauses of
 * the query level, implicitly ANDed): equalities become the hash key, the
 * rest the join filter.  left_note (or NULL) ends the role of the left
 * rows' state table.
 */
static RelOut *
make_join(PlanCtx *ctx, HsJoinKind kind, RelOut *left, Relids lrel,
		  RelOut *right, Relids rrel, List *conds, const char *left_note)
{
	List	   *lkeys = NIL;
	List	   *rkeys = NIL;
	List	   *filter = NIL;
	bool	   *null_safe = palloc0(sizeof(bool) * (list_length(conds) + 1));
	bool		any_null_safe = false;
	bool		hashed = false;
	RelOut		combined;
	HsExec	   *j;
	HsExec	   *lport;
	HsExec	   *rport;
	HsStateTable *lstate;
	HsStateTable *rstate;
	RelOut	   *out;
	ListCell   *lc;
	bool		semi = kind == HS_JOIN_SEMI || kind == HS_JOIN_ANTI;

	memset(&combined, 0, sizeof(combined));
	combined.vars = list_concat_copy(left->vars, right->vars);
	foreach(lc, conds)
	{
		Expr	   *l;
		Expr	   *r;
		bool		ns;
		bool		recheck;

		if (equi_key(lfirst(lc), lrel, rrel, &l, &r, &ns, ctx->hashed_join_keys, &recheck))
		{
			null_safe[list_length(lkeys)] = ns;
			any_null_safe |= ns;
			lkeys = lappend(lkeys, map_expr(l, left));
			rkeys = lappend(rkeys, map_expr(r, right));
			if (recheck)
			{
				filter = lappend(filter, map_expr(lfirst(lc), &combined));
				hashed = true;
			}
		}
		else
			filter = lappend(filter, map_expr(lfirst(lc), &combined));
	}
	check_kept_rows(left->desc, "HashJoin");
	check_kept_rows(right->desc, "HashJoin");
	lstate = next_state(ctx, psprintf("HashJoin left rows%s%s%s",
									  left->constant ? CONSTANT_INPUT_ROLE_SUFFIX : "",
									  hashed ? HASHED_KEYS_ROLE_MARK : "",
									  left_note ? left_note : ""));
	rstate = next_state(ctx, right->constant ? "HashJoin right rows" CONSTANT_INPUT_ROLE_SUFFIX :
						"HashJoin right rows");
	note_operator(ctx, "HashJoin %s (%d key column%s%s)",
				  kind == HS_JOIN_INNER ? "inner" : kind == HS_JOIN_LEFT ? "left" :
				  kind == HS_JOIN_FULL ? "full" : kind == HS_JOIN_SEMI ? "semi" : "anti",
				  list_length(lkeys), list_length(lkeys) == 1 ? "" : "s",
				  filter ? ", join filter" : "");
	j = HsExecHashJoinCreate(kind,
							 left->desc, lkeys,
							 left->has_ukey ? int_array(left->ukey) : NULL,
							 list_length(left->ukey),
							 right->desc, rkeys,
							 right->has_ukey ? int_array(right->ukey) : NULL,
							 list_length(right->ukey),
							 filter, any_null_safe ? null_safe : NULL,
							 lstate, rstate, &lport, &rport);
	attach_join_input(left, lport);
	attach_join_input(right, rport);
	/* FULL: the last column says whether a row has a left row */
	out = relout_of(j, semi ? left->vars :
					kind == HS_JOIN_FULL ? lappend(combined.vars, NULL) : combined.vars);
	out->churns = kind != HS_JOIN_INNER;
	if (semi)
	{
		out->has_ukey = left->has_ukey;
		out->ukey = left->ukey;
	}
	else if (left->has_ukey && right->has_ukey)
	{
		out->has_ukey = true;
		out->ukey = list_copy(left->ukey);
		foreach(lc, right->ukey)
			out->ukey = lappend_int(out->ukey, lfirst_int(lc) + left->desc->natts);
		/*
		 * Both keys can be NULL in a FULL join's NULL-extended rows of either
		 * side (a group key that is NULL): the flag tells them apart.
		 */
		if (kind == HS_JOIN_FULL)
			out->ukey = lappend_int(out->ukey, left->desc->natts + right->desc->natts);
	}
	return out;
}

/* Split conjuncts: those over rels only go to *pushed, the rest stay. */
static List *
split_pushable(List *conds, Relids rels, List **pushed)
{
	List	   *rest = NIL;
	ListCell   *lc;

	foreach(lc, conds)
	{
		Relids		r = varnos_of(lfirst(lc));

		if (!bms_is_empty(r) && bms_is_subset(r, rels))
			*pushed = lappend(*pushed, lfirst(lc));
		else
			rest = lappend(rest, lfirst(lc));
	}
	return rest;
}

/* ---------------------------------------------------------------------
 * Functions in FROM
 * ---------------------------------------------------------------------
 */

/*
 * The VALUES list that query sub is, as the parser makes `(VALUES ...) AS
 * v` in FROM: a subquery selecting every column of one VALUES entry and
 * nothing else.  NULL if it is something else.
 */
RangeTblEntry *
values_of_subquery(Query *sub)
{
	RangeTblEntry *v;
	ListCell   *lc;
	int			i = 0;

	if (sub->commandType != CMD_SELECT || sub->hasAggs || sub->hasWindowFuncs ||
		sub->hasTargetSRFs || sub->hasSubLinks || sub->groupClause || sub->groupingSets ||
		sub->havingQual || sub->sortClause || sub->distinctClause || sub->limitCount ||
		sub->limitOffset || sub->setOperations || sub->cteList || sub->rowMarks ||
		list_length(sub->rtable) != 1 || sub->jointree == NULL ||
		list_length(sub->jointree->fromlist) != 1 || sub->jointree->quals != NULL)
		return NULL;
	v = linitial_node(RangeTblEntry, sub->rtable);
	if (v->rtekind != RTE_VALUES)
		return NULL;
	foreach(lc, sub->targetList)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);

		if (te->resjunk || !IsA(te->expr, Var) || ((Var *) te->expr)->varattno != ++i ||
			((Var *) te->expr)->varlevelsup != 0)
			return NULL;
	}
	return i == list_length(v->coltypes) ? v : NULL;
}

/* The function (or VALUES) FROM item jt stands for, or NULL. */
static RangeTblEntry *
function_item(Query *q, Node *jt)
{
	RangeTblEntry *rte;

	if (!IsA(jt, RangeTblRef))
		return NULL;
	rte = rt_fetch(((RangeTblRef *) jt)->rtindex, q->rtable);
	if (rte->rtekind == RTE_SUBQUERY)
		return values_of_subquery(rte->subquery);
	/* (a VALUES list itself: inside a subquery a join's condition moved into) */
	return rte->rtekind == RTE_FUNCTION || rte->rtekind == RTE_VALUES ? rte : NULL;
}

typedef struct IntoItemContext
{
	int			rt;				/* the item the condition moves into */
	int			depth;			/* levels below the condition's own */
} IntoItemContext;

/* A condition of q's level as one of a subquery of item rt's own columns. */
static Node *
into_item_mutator(Node *node, IntoItemContext *ctx)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) copyObject(node);

		if (v->varlevelsup == (Index) ctx->depth && v->varno == ctx->rt)
			v->varno = v->varnosyn = 1;
		else if (v->varlevelsup >= (Index) ctx->depth)
			v->varlevelsup++;
		return (Node *) v;
	}
	if (IsA(node, Query))
	{
		Node	   *r;

		ctx->depth++;
		r = (Node *) query_tree_mutator((Query *) node, into_item_mutator, ctx, 0);
		ctx->depth--;
		return r;
	}
	if (IsA(node, Aggref) || IsA(node, GroupingFunc))
	{
		/* (an aggregate of a level above: one level further up too) */
		Node	   *r = expression_tree_mutator(node, into_item_mutator, ctx);

		if (IsA(r, Aggref) && ((Aggref *) r)->agglevelsup >= (Index) ctx->depth)
			((Aggref *) r)->agglevelsup++;
		else if (IsA(r, GroupingFunc) &&
				 ((GroupingFunc *) r)->agglevelsup >= (Index) ctx->depth)
			((GroupingFunc *) r)->agglevelsup++;
		return r;
	}
	return expression_tree_mutator(node, into_item_mutator, ctx);
}

/*
 * `LEFT JOIN f(...) ON cond` (a function or VALUES list on the nullable
 * side, a condition other than true) is `LEFT JOIN LATERAL (SELECT f.*
 * FROM f(...) WHERE cond) ON true`: each preserved row with the function
 * rows the condition passes, or with NULLs.  So rewritten (in place, in
 * q's join tree jt), the subquery is decorrelated as any LATERAL one is
 * (over the values it reads of the preserved side, through their domain
 * when it reads no table).
 */
void
filter_outer_functions(Query *q, Node *jt, bool keep_constants)
{
	JoinExpr   *j;
	RangeTblEntry *rte;
	int			rt;
	Query	   *sub;
	IntoItemContext ctx;
	Node	   *cond;

	if (IsA(jt, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) jt)->fromlist)
			filter_outer_functions(q, lfirst(lc), keep_constants);
		return;
	}
	if (!IsA(jt, JoinExpr))
		return;
	j = (JoinExpr *) jt;
	filter_outer_functions(q, j->larg, keep_constants);
	filter_outer_functions(q, j->rarg, keep_constants);
	if (j->jointype != JOIN_LEFT || function_item(q, j->rarg) == NULL ||
		function_item(q, j->larg) != NULL || make_ands_implicit((Expr *) j->quals) == NIL ||
		contain_aggs_of_level(j->quals, 0))
		return;
	rt = ((RangeTblRef *) j->rarg)->rtindex;
	rte = rt_fetch(rt, q->rtable);
	/* (reading nothing of the preserved side, it would read no table) */
	if (!rte->lateral &&
		bms_is_empty(bms_del_member(pull_varnos(NULL, j->quals), rt)))
		return;
	/* (a constant input, hash-joined: plan_joinexpr) */
	if (keep_constants && constant_from_item(q, j->rarg) != NULL &&
		function_item(q, j->larg) == NULL && constant_from_item(q, j->larg) == NULL)
		return;
	if (rte->rtekind != RTE_SUBQUERY)
		wrap_in_subquery(rte);
	sub = rte->subquery;
	ctx.rt = rt;
	ctx.depth = 0;
	cond = into_item_mutator(j->quals, &ctx);
	sub->jointree->quals = cond;
	sub->hasSubLinks |= checkExprHasSubLink(cond);
	rte->lateral = true;
	j->quals = (Node *) makeBoolConst(true, false);
}

/*
 * VALUES (a1, b1), (a2, b2), ... as the set-returning calls
 * unnest(ARRAY[a1, a2, ...]), unnest(ARRAY[b1, b2, ...]), which ProjectSet
 * runs in lockstep: one row per VALUES row, in order.
 */
static List *
values_as_calls(RangeTblEntry *rte)
{
	List	   *calls = NIL;
	int			ncols = list_length(rte->coltypes);

	for (int k = 0; k < ncols; k++)
	{
		Oid			type = list_nth_oid(rte->coltypes, k);
		Oid			coll = list_nth_oid(rte->colcollations, k);
		ArrayExpr  *arr = makeNode(ArrayExpr);
		FuncExpr   *call;
		ListCell   *lc;

		arr->array_typeid = get_array_type(type);
		if (!OidIsValid(arr->array_typeid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a VALUES list with a column of type %s is not supported in a streaming materialized view",
							format_type_be(type)),
					 errdetail("The type has no array type.")));
		arr->array_collid = coll;
		arr->element_typeid = type;
		/* (the list is one level down, in its subquery: LATERAL references up) */
		foreach(lc, rte->values_lists)
		{
			Node	   *elem = copyObject(list_nth(lfirst(lc), k));

			IncrementVarSublevelsUp(elem, -1, 1);
			arr->elements = lappend(arr->elements, elem);
		}
		arr->multidims = false;
		arr->location = -1;
		call = makeFuncExpr(F_UNNEST_ANYARRAY, type, list_make1(arr), coll, coll,
							COERCE_EXPLICIT_CALL);
		call->funcretset = true;
		calls = lappend(calls, call);
	}
	return calls;
}

/*
 * The set-returning calls of a function FROM item (one per function of
 * ROWS FROM), each with the descriptor of its columns when it returns a
 * composite (NULL: one column), and in *row_types the blessed descriptor
 * of a column definition list (NULL for a function without one).
 */
static List *
function_calls(RangeTblEntry *rte, List **fields, List **row_types)
{
	List	   *calls = NIL;
	ListCell   *lc;

	*fields = NIL;
	*row_types = NIL;
	if (rte->rtekind == RTE_VALUES)
	{
		calls = values_as_calls(rte);
		foreach(lc, calls)
		{
			*fields = lappend(*fields, NULL);
			*row_types = lappend(*row_types, NULL);
		}
		return calls;
	}
	foreach(lc, rte->functions)
	{
		RangeTblFunction *rtf = lfirst_node(RangeTblFunction, lc);
		Node	   *call = rtf->funcexpr;

		calls = lappend(calls, call);
		if (rtf->funccolnames != NIL)
		{
			/* a function returning record: its rows as the list defines them */
			TupleDesc	rt = BuildDescFromLists(rtf->funccolnames, rtf->funccoltypes,
												rtf->funccoltypmods,
												rtf->funccolcollations);

			BlessTupleDesc(rt);
			*fields = lappend(*fields, rt);
			*row_types = lappend(*row_types, rt);
			continue;
		}
		*fields = lappend(*fields, type_is_rowtype(exprType(call)) ?
						  get_expr_result_tupdesc(call, false) : NULL);
		*row_types = lappend(*row_types, NULL);
	}
	return calls;
}

/*
 * A function in FROM (set-returning or not; or ROWS FROM with several, or a
 * VALUES list), inner-joined (laterally or not) with what in has: for each
 * row of in, the function's rows, as ProjectSet gives select-list calls'
 * (several functions in lockstep, NULL-padded, as ROWS FROM zips them;
 * WITH ORDINALITY's ordinal is ProjectSet's position).  A function
 * returning a composite is spread over its columns by a Project.  Its
 * arguments may use in's columns (LATERAL).  The rows' unique key is in's
 * plus the position.  For a LEFT JOIN an input row without function rows
 * keeps one row, NULL in the function's columns.
 */
static RelOut *
apply_function(PlanCtx *ctx, RelOut *in, Query *q, int rtindex, bool left_join)
{
	RangeTblRef ref = {T_RangeTblRef, rtindex};
	RangeTblEntry *rte = function_item(q, (Node *) &ref);
	List	   *fields;
	List	   *row_types;
	List	   *calls = function_calls(rte, &fields, &row_types);
	List	   *mapped = NIL;
	List	   *vars;
	List	   *tl = NIL;
	HsExec	   *e;
	RelOut	   *out;
	ListCell   *lc;
	ListCell   *lc2;
	int			ninput = in->desc->natts;
	int			col = 1;		/* the FROM item's column */
	int			k = 0;

	foreach(lc, calls)
		mapped = lappend(mapped, map_expr(lfirst(lc), in));
	note_operator(ctx, "ProjectSet (%s%s%s)",
				  rte->rtekind == RTE_VALUES ? "VALUES in FROM" :
				  list_length(calls) > 1 ? "ROWS FROM" : "function in FROM",
				  rte->funcordinality ? ", with ordinality" : "",
				  left_join ? ", left join" : "");
	e = HsExecProjectSetCreate(in->desc, mapped, row_types, left_join);
	attach(in, e);

	/* the input's columns, then each call's, spread; then the position */
	vars = list_copy(in->vars);
	for (int i = 0; i < ninput; i++)
		tl = lappend(tl, var_tle(e->out_desc, i, i + 1));
	forboth(lc, calls, lc2, fields)
	{
		Node	   *call = lfirst(lc);
		TupleDesc	f = lfirst(lc2);
		int			c = ninput + k++;

		if (f == NULL)
		{
			tl = lappend(tl, var_tle(e->out_desc, c, list_length(tl) + 1));
			vars = lappend(vars, makeVar(rtindex, col++, exprType(call), exprTypmod(call),
										 exprCollation(call), 0));
			continue;
		}
		for (int a = 0; a < f->natts; a++, col++)
		{
			Form_pg_attribute att = TupleDescAttr(f, a);
			FieldSelect *fs;

			if (att->attisdropped)
				continue;
			fs = makeNode(FieldSelect);
			fs->arg = (Expr *) makeVar(1, c + 1, exprType(call), TupleDescAttr(e->out_desc, c)->atttypmod,
									   InvalidOid, 0);
			fs->fieldnum = a + 1;
			fs->resulttype = att->atttypid;
			fs->resulttypmod = att->atttypmod;
			fs->resultcollid = att->attcollation;
			tl = lappend(tl, makeTargetEntry((Expr *) fs, list_length(tl) + 1, NULL, false));
			vars = lappend(vars, makeVar(rtindex, col, att->atttypid, att->atttypmod,
										 att->attcollation, 0));
		}
	}
	tl = lappend(tl, var_tle(e->out_desc, e->out_desc->natts - 1, list_length(tl) + 1));
	vars = lappend(vars, rte->funcordinality ? makeVar(rtindex, col, INT8OID, -1, InvalidOid, 0) : NULL);
	foreach(lc, fields)
	{
		/* a composite to spread over its columns */
		if (lfirst(lc) != NULL)
		{
			RelOut	   *set = relout_of(e, NIL);

			e = HsExecProjectCreate(e->out_desc, NIL, tl);
			attach(set, e);
			break;
		}
	}
	out = relout_of(e, vars);
	out->nvisible = in->nvisible;
	out->has_ukey = in->has_ukey;
	if (in->has_ukey)
		out->ukey = lappend_int(list_copy(in->ukey), e->out_desc->natts - 1);
	return out;
}

/*
 * cur (the rows of cur_rel) semi or anti joined with each of semis (semi
 * and anti JoinExprs from WHERE sublinks, larg unset).
 */
static RelOut *
apply_semis(PlanCtx *ctx, Query *q, List *outer, RelOut *cur, Relids cur_rel, List *semis)
{
	ListCell   *lc;

	foreach(lc, semis)
	{
		JoinExpr   *sj = lfirst(lc);
		List	   *sconds = make_ands_implicit((Expr *) sj->quals);
		List	   *rq = NIL;
		List	   *stemporal = NIL;
		List	   *rtemporal = NIL;
		Relids		rrel = get_relids_in_jointree(sj->rarg, false);
		RelOut	   *right;

		sconds = split_pushable(sconds, rrel, &rq);
		/* a temporal filter of the subquery's own rows filters them */
		rq = take_temporal(rq, &rtemporal);
		sconds = take_temporal(sconds, &stemporal);
		if (stemporal != NIL)
			refuse_time_function();
		right = apply_temporal(ctx, plan_jtnode(ctx, q, outer, sj->rarg, rq), rtemporal);
		cur = make_join(ctx, sj->jointype == JOIN_SEMI ? HS_JOIN_SEMI : HS_JOIN_ANTI,
						cur, cur_rel, right, rrel, sconds, NULL);
	}
	return cur;
}

/*
 * The fewest rows a FROM item that reads no table must have to be
 * hash-joined as a constant input in an inner join: below, running it over
 * each row of the other items and filtering (ProjectSet) costs less than
 * keeping their rows in a join's state.
 */
#define CONSTANT_HASH_JOIN_MIN_ROWS 64

/*
 * Is function (or VALUES) item jt of FROM list items, related to an item
 * that reads a table by an equality of conds, a constant input of a hash
 * join?  In a new view, when it reads no table and has many rows.  (A view
 * planned before constant inputs existed runs every such item over the
 * other items' rows: ctx->constant_joins.)
 */
static bool
hash_joins_constant(PlanCtx *ctx, Query *q, Node *jt, List *items, List *conds)
{
	Query	   *item;
	Relids		mine;
	Relids		tables = NULL;
	ListCell   *lc;
	bool		related = false;

	if (!ctx->constant_joins || (item = constant_from_item(q, jt)) == NULL)
		return false;
	mine = get_relids_in_jointree(jt, false);
	foreach(lc, items)
		if (lfirst(lc) != jt && !function_item(q, lfirst(lc)))
			tables = bms_union(tables, get_relids_in_jointree(lfirst(lc), false));
	foreach(lc, conds)
	{
		Expr	   *l;
		Expr	   *r;
		bool		ns;
		bool		recheck;

		if (!bms_is_empty(tables) && equi_key(lfirst(lc), mine, tables, &l, &r, &ns, ctx->hashed_join_keys, &recheck))
			related = true;
	}
	return related && constant_has_rows(item, CONSTANT_HASH_JOIN_MIN_ROWS);
}

/*
 * A FROM list with functions: the other items joined first (with the
 * conditions that do not use a function's columns, and the semi and anti
 * joins that do not either), then each function over their rows, then the
 * rest of the conditions and of the semi and anti joins.  (Items of
 * ctx->constant_refs are among the others: constant inputs.)
 */
static RelOut *
plan_fromlist_with_functions(PlanCtx *ctx, Query *q, List *outer, List *items,
							 List *conds, List *semis)
{
	List	   *plain = NIL;
	List	   *funcs = NIL;
	Relids		func_rels = NULL;
	List	   *before = NIL;
	List	   *after = NIL;
	List	   *semis_before = NIL;
	List	   *semis_after = NIL;
	Relids		all_rels = NULL;
	RelOut	   *cur;
	ListCell   *lc;

	foreach(lc, items)
	{
		all_rels = bms_union(all_rels, get_relids_in_jointree(lfirst(lc), false));
		if (function_item(q, lfirst(lc)) && !list_member_ptr(ctx->constant_refs, lfirst(lc)))
		{
			funcs = lappend(funcs, lfirst(lc));
			func_rels = bms_add_member(func_rels, ((RangeTblRef *) lfirst(lc))->rtindex);
		}
		else
			plain = lappend(plain, lfirst(lc));
	}
	if (plain == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a streaming materialized view must read a table"),
				 errdetail("Its FROM clause has only functions or VALUES lists; a table read only in a subquery of WHERE or of the select list does not count."),
				 errhint("Read the table in FROM, joined with the VALUES list or the function.")));
	foreach(lc, conds)
	{
		if (bms_overlap(varnos_of(lfirst(lc)), func_rels))
			after = lappend(after, lfirst(lc));
		else
			before = lappend(before, lfirst(lc));
	}
	foreach(lc, semis)
	{
		if (bms_overlap(varnos_of(((JoinExpr *) lfirst(lc))->quals), func_rels))
			semis_after = lappend(semis_after, lfirst(lc));
		else
			semis_before = lappend(semis_before, lfirst(lc));
	}
	cur = plan_fromlist(ctx, q, outer, plain, before, semis_before);
	foreach(lc, funcs)
		cur = apply_function(ctx, cur, q, ((RangeTblRef *) lfirst(lc))->rtindex, false);
	return apply_semis(ctx, q, outer, apply_filter(cur, after), all_rels, semis_after);
}

/* ---------------------------------------------------------------------
 * Join trees
 *
 * Join order.  Every join keeps both of its inputs' rows, so joining a
 * large table to the join of the small ones keeps its rows once, where
 * joining it first keeps them (joined) at every join after: a view of
 * facts JOIN dim JOIN region written in that order keeps two million rows
 * for a million facts.  So the items of a FROM list and of a tree of
 * inner JOINs (flattened into one list, their ON conditions with the
 * WHERE) are joined, when there are three or more, smallest first
 * (pg_class estimates, estimate_rel_size; a streaming view upstream
 * counts the keys of its tables; an item that is not a table counts as
 * larger than any table), each next one the smallest related
 * to the items joined so far by an equality.  The order chosen is
 * recorded in the role of the first join's left rows (JOIN_ORDER_ROLE_MARK)
 * and read back from it whenever the view is planned again, as the
 * estimates change.  A view planned before joins its items in FROM order
 * (PlanCtx.join_order).
 * ---------------------------------------------------------------------
 */

/*
 * The items of the inner joins of tree jt (JoinExprs of JOIN_INNER at any
 * depth; anything else is an item), in FROM order, and their ON
 * conditions (appended to *conds).
 */
static void
inner_join_items(Node *jt, List **items, List **conds)
{
	if (IsA(jt, JoinExpr) && ((JoinExpr *) jt)->jointype == JOIN_INNER)
	{
		JoinExpr   *j = (JoinExpr *) jt;

		inner_join_items(j->larg, items, conds);
		inner_join_items(j->rarg, items, conds);
		*conds = list_concat(*conds, make_ands_implicit((Expr *) j->quals));
	}
	else
		*items = lappend(*items, jt);
}

/* Is a condition of conds an equality (a join key) between a and b? */
static bool
related_by_equality(PlanCtx *ctx, List *conds, Relids a, Relids b)
{
	ListCell   *lc;

	foreach(lc, conds)
	{
		Expr	   *l;
		Expr	   *r;
		bool		ns;
		bool		recheck;

		if (equi_key(lfirst(lc), a, b, &l, &r, &ns, ctx->hashed_join_keys, &recheck))
			return true;
	}
	return false;
}

/* How many rows a table (or view) holds, estimated; -1 if not known. */
static double
table_rows(Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	double		rows = -1;

	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
	{
		ListCell   *lc;

		rows = 0;
		foreach(lc, find_all_inheritors(relid, AccessShareLock, NULL))
			if (lfirst_oid(lc) != relid && get_rel_relkind(lfirst_oid(lc)) == RELKIND_RELATION)
				rows += Max(table_rows(lfirst_oid(lc)), 0);
	}
	else if (rel->rd_rel->relkind == RELKIND_RELATION ||
			 rel->rd_rel->relkind == RELKIND_MATVIEW)
	{
		/* (a streaming view upstream: the keys its hummock tables hold) */
		BlockNumber pages;
		double		allvisfrac;

		estimate_rel_size(rel, NULL, &pages, &rows, &allvisfrac);
	}
	table_close(rel, AccessShareLock);
	return rows;
}

/* The estimated rows of FROM item jt: a table's, else more than any. */
static double
item_rows(Query *q, Node *jt)
{
	if (IsA(jt, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) jt)->rtindex, q->rtable);

		if (rte->rtekind == RTE_RELATION)
		{
			double		rows = table_rows(rte->relid);

			if (rows >= 0)
				return rows;
		}
	}
	return DBL_MAX;
}

/*
 * The order in which plan_fromlist joins items (three or more): the one
 * recorded in the role of the state table the first join's left rows take
 * next, or else smallest first, each next the smallest related to those
 * before by an equality (the first one related to some other, if one is).
 * *note: the role's mark of that order.
 */
static int *
join_order(PlanCtx *ctx, Query *q, List *items, Relids *rels, List *conds, char **note)
{
	int			n = list_length(items);
	int		   *order = palloc(sizeof(int) * n);
	bool	   *done = palloc0(sizeof(bool) * n);
	const char *recorded = ctx->used < list_length(ctx->recorded_roles) ?
		list_nth(ctx->recorded_roles, ctx->used) : NULL;
	const char *mark = recorded ? strstr(recorded, JOIN_ORDER_ROLE_MARK) : NULL;
	StringInfoData buf;

	if (mark != NULL)
	{
		const char *p = mark + strlen(JOIN_ORDER_ROLE_MARK);

		for (int k = 0; k < n; k++)
		{
			char	   *end;
			long		v = strtol(p, &end, 10);

			if (end == p || v < 1 || v > n || done[v - 1])
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("the recorded join order of a streaming materialized view is malformed: \"%s\"",
								recorded)));
			done[v - 1] = true;
			order[k] = (int) v - 1;
			p = end;
			while (*p == ',' || *p == ' ')
				p++;
		}
	}
	else
	{
		double	   *rows = palloc(sizeof(double) * n);
		bool	   *related = palloc0(sizeof(bool) * n);
		Relids		cur = NULL;
		int			i = 0;
		ListCell   *lc;

		foreach(lc, items)
		{
			rows[i] = item_rows(q, lfirst(lc));
			for (int k = 0; k < n; k++)
				related[i] |= k != i && related_by_equality(ctx, conds, rels[i], rels[k]);
			i++;
		}
		for (int k = 0; k < n; k++)
		{
			int			best = -1;
			bool		best_related = false;

			for (i = 0; i < n; i++)
			{
				bool		r;

				if (done[i])
					continue;
				r = k == 0 ? related[i] : related_by_equality(ctx, conds, cur, rels[i]);
				if (best < 0 || (r && !best_related) ||
					(r == best_related && rows[i] < rows[best]))
				{
					best = i;
					best_related = r;
				}
			}
			order[k] = best;
			done[best] = true;
			cur = bms_union(cur, rels[best]);
		}
	}
	initStringInfo(&buf);
	appendStringInfoString(&buf, JOIN_ORDER_ROLE_MARK);
	for (int k = 0; k < n; k++)
		appendStringInfo(&buf, "%s%d", k > 0 ? ", " : "", order[k] + 1);
	appendStringInfoChar(&buf, ')');
	*note = buf.data;
	return order;
}

static RelOut *
plan_joinexpr(PlanCtx *ctx, Query *q, List *outer, JoinExpr *j, List *quals)
{
	Node	   *larg = j->larg;
	Node	   *rarg = j->rarg;
	HsJoinKind kind;
	List	   *conds = make_ands_implicit((Expr *) j->quals);
	List	   *lq = NIL;
	List	   *rq = NIL;
	Relids		lrel;
	Relids		rrel;
	RelOut	   *left;
	RelOut	   *right;
	Query	   *lconst = NULL;
	Query	   *rconst = NULL;
	List	   *temporal = NIL;

	/* a tree of three or more inner-joined items: joined as a FROM list */
	if (ctx->join_order && j->jointype == JOIN_INNER)
	{
		List	   *items = NIL;
		List	   *on = NIL;

		inner_join_items((Node *) j, &items, &on);
		if (list_length(items) >= 3)
			return plan_fromlist(ctx, q, outer, items, list_concat(on, quals), NIL);
	}
	switch (j->jointype)
	{
		case JOIN_INNER:
			kind = HS_JOIN_INNER;
			break;
		case JOIN_LEFT:
			kind = HS_JOIN_LEFT;
			break;
		case JOIN_RIGHT:
			kind = HS_JOIN_LEFT;
			larg = j->rarg;
			rarg = j->larg;
			break;
		case JOIN_FULL:
			kind = HS_JOIN_FULL;
			break;
		case JOIN_SEMI:
			kind = HS_JOIN_SEMI;
			break;
		case JOIN_ANTI:
			kind = HS_JOIN_ANTI;
			break;
		default:
			unsupported("this kind of join", false);
			kind = HS_JOIN_INNER;	/* keep the compiler quiet */
	}
	/* an inner join with a function in FROM: the function over the other side */
	if (kind == HS_JOIN_INNER && (function_item(q, larg) || function_item(q, rarg)))
		return plan_fromlist(ctx, q, outer, list_make2(larg, rarg),
							 list_concat(conds, quals), NIL);
	/* LEFT JOIN LATERAL f(...) ON true: rows without function rows stay */
	if (kind == HS_JOIN_LEFT && j->jointype == JOIN_LEFT && function_item(q, rarg) &&
		!function_item(q, larg) && conds == NIL)
		return apply_filter(apply_function(ctx, plan_jtnode(ctx, q, outer, larg, NIL), q,
										   ((RangeTblRef *) rarg)->rtindex, true),
							quals);

	/*
	 * A FROM item that reads no table on either side of an outer join (a
	 * calendar LEFT JOIN the facts, the facts LEFT JOIN a VALUES list of
	 * labels): a constant input, hash-joined as a table is, so the rows of
	 * its preserved side without a match stay.  (Not when the other side
	 * reads no table either.)
	 */
	if (kind == HS_JOIN_LEFT || kind == HS_JOIN_FULL)
	{
		Query	   *l = constant_from_item(q, larg);
		Query	   *r = constant_from_item(q, rarg);

		if (l != NULL && r == NULL && !function_item(q, rarg))
			lconst = l;
		else if (r != NULL && l == NULL && !function_item(q, larg))
			rconst = r;
	}
	if ((lconst == NULL && function_item(q, larg)) ||
		(rconst == NULL && function_item(q, rarg)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("this join with a function in FROM is not supported in a streaming materialized view"),
				 errdetail("Inner joins are, LEFT JOINs with the function on the right whose condition or arguments read the left side, and outer joins of a function or VALUES list that reads no table with tables.")));
	lrel = get_relids_in_jointree(larg, false);
	rrel = get_relids_in_jointree(rarg, false);
	/* ON conditions over one input filter it, if that keeps the join's meaning */
	if (kind == HS_JOIN_INNER)
		conds = split_pushable(conds, lrel, &lq);

	/*
	 * WHERE conditions over a FROM list a subquery's rewrite made one item
	 * (from_item_holding) are what join its items: they filter it, which a
	 * WHERE over the preserved side of a join may do.
	 */
	if (IsA(larg, FromExpr) && kind != HS_JOIN_FULL)
		quals = split_pushable(quals, lrel, &lq);
	if (kind != HS_JOIN_FULL)
		conds = split_pushable(conds, rrel, &rq);
	/* an inner join's temporal ON conditions over both sides filter its rows */
	if (kind == HS_JOIN_INNER)
		conds = take_temporal(conds, &temporal);
	else if (contains_time((Node *) conds))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("now() and the other functions of the current time are supported in the ON condition of an outer join only in temporal filters of its nullable side"),
				 errdetail("Such a filter decides which rows of that side join; a comparison with the time that reads the preserved side would decide which of its rows find a match as time passes."),
				 errhint("Filter the preserved side in WHERE, or in a subquery.")));
	left = lconst ? apply_filter(plan_constant_input(ctx, q, ((RangeTblRef *) larg)->rtindex,
													 lconst), lq) :
		plan_jtnode(ctx, q, outer, larg, lq);
	right = rconst ? apply_filter(plan_constant_input(ctx, q, ((RangeTblRef *) rarg)->rtindex,
													  rconst), rq) :
		plan_jtnode(ctx, q, outer, rarg, rq);
	return apply_temporal(ctx, apply_filter(make_join(ctx, kind, left, lrel, right, rrel,
													  conds, NULL), quals),
						  temporal);
}

/*
 * The items of a FROM list joined (inner) on the conditions of conds that
 * relate them; conds over one item filter it; semis (semi and anti
 * JoinExprs from WHERE sublinks, larg unset) apply last.
 */
RelOut *
plan_fromlist(PlanCtx *ctx, Query *q, List *outer, List *items, List *conds,
			  List *semis)
{
	int			n = list_length(items);
	Relids	   *rels = palloc(sizeof(Relids) * Max(n, 1));
	List	  **pushed = palloc0(sizeof(List *) * Max(n, 1));
	RelOut	  **outs = palloc(sizeof(RelOut *) * Max(n, 1));
	List	  **item_temporal = palloc0(sizeof(List *) * Max(n, 1));
	List	   *temporal = NIL;
	bool	   *done;
	RelOut	   *cur;
	Relids		cur_rel;
	ListCell   *lc;
	int			i;
	int		   *order = NULL;
	char	   *order_note = NULL;

	if (ctx->join_order)
	{
		/* inner JOINs among the items: their items are the list's (three or more) */
		List	   *flat = NIL;
		List	   *on = NIL;

		foreach(lc, items)
			inner_join_items(lfirst(lc), &flat, &on);
		if (list_length(flat) < 3)
			flat = items;
		else
			conds = list_concat_copy(conds, on);
		items = flat;
		n = list_length(items);
		rels = palloc(sizeof(Relids) * Max(n, 1));
		pushed = palloc0(sizeof(List *) * Max(n, 1));
		outs = palloc(sizeof(RelOut *) * Max(n, 1));
		item_temporal = palloc0(sizeof(List *) * Max(n, 1));
	}
	done = palloc0(sizeof(bool) * Max(n, 1));
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a streaming materialized view must read a table"),
				 errdetail("The query has no FROM clause.")));
	foreach(lc, items)
	{
		if (!function_item(q, lfirst(lc)) || list_member_ptr(ctx->constant_refs, lfirst(lc)))
			continue;
		if (hash_joins_constant(ctx, q, lfirst(lc), items, conds))
			ctx->constant_refs = lappend(ctx->constant_refs, lfirst(lc));
		else
			return plan_fromlist_with_functions(ctx, q, outer, items, conds, semis);
	}
	/* temporal filters: DynamicFilters over the item they read, or the join */
	conds = take_temporal(conds, &temporal);
	i = 0;
	foreach(lc, items)
	{
		rels[i] = get_relids_in_jointree(lfirst(lc), false);
		conds = split_pushable(conds, rels[i], &pushed[i]);
		temporal = split_pushable(temporal, rels[i], &item_temporal[i]);
		i++;
	}
	i = 0;
	foreach(lc, items)
	{
		Node	   *jt = lfirst(lc);

		if (list_member_ptr(ctx->constant_refs, jt))
			outs[i] = apply_filter(plan_constant_input(ctx, q, ((RangeTblRef *) jt)->rtindex,
													   constant_from_item(q, jt)),
								   pushed[i]);
		else
			outs[i] = plan_jtnode(ctx, q, outer, jt, pushed[i]);
		outs[i] = apply_temporal(ctx, outs[i], item_temporal[i]);
		i++;
	}
	if (ctx->join_order && n >= 3)
		order = join_order(ctx, q, items, rels, conds, &order_note);
	i = order ? order[0] : 0;
	cur = outs[i];
	cur_rel = rels[i];
	done[i] = true;
	for (int step = 1; step < n; step++)
	{
		int			next = order ? order[step] : -1;
		List	   *jconds = NIL;
		List	   *rest = NIL;
		Relids		both;

		/* prefer an item related to what is joined so far by an equality */
		for (i = 1; i < n && next < 0; i++)
			if (!done[i] && related_by_equality(ctx, conds, cur_rel, rels[i]))
				next = i;
		for (i = 1; i < n && next < 0; i++)
			if (!done[i])
				next = i;
		both = bms_union(cur_rel, rels[next]);
		foreach(lc, conds)
		{
			Relids		r = varnos_of(lfirst(lc));

			if (!bms_is_empty(r) && bms_is_subset(r, both))
				jconds = lappend(jconds, lfirst(lc));
			else
				rest = lappend(rest, lfirst(lc));
		}
		conds = rest;
		cur = make_join(ctx, HS_JOIN_INNER, cur, cur_rel, outs[next], rels[next], jconds,
						step == 1 ? order_note : NULL);
		cur_rel = both;
		done[next] = true;
	}
	cur = apply_temporal(ctx, apply_filter(cur, conds), temporal);
	return apply_semis(ctx, q, outer, cur, cur_rel, semis);
}

/*
 * A node of q's join tree: a FROM item, a JoinExpr or a FromExpr, filtered
 * by quals.  Temporal filters among quals (an ON condition of an inner
 * join, or one over the nullable side of an outer join, pushed to the item
 * it reads) become DynamicFilters over the node's rows.
 */
RelOut *
plan_jtnode(PlanCtx *ctx, Query *q, List *outer, Node *jt, List *quals)
{
	List	   *temporal = NIL;

	quals = take_temporal(quals, &temporal);
	return apply_temporal(ctx, plan_jtnode_filtered(ctx, q, outer, jt, quals), temporal);
}

static RelOut *
plan_jtnode_filtered(PlanCtx *ctx, Query *q, List *outer, Node *jt, List *quals)
{
	if (IsA(jt, RangeTblRef))
	{
		int			rtindex = ((RangeTblRef *) jt)->rtindex;
		RangeTblEntry *rte = rt_fetch(rtindex, q->rtable);

		if (rte->lateral)
			unsupported("LATERAL", false);
		switch (rte->rtekind)
		{
			case RTE_RELATION:
				return plan_leaf(ctx, q, rtindex, quals);
			case RTE_SUBQUERY:
				{
					/*
					 * One that reads no table (CROSS JOIN (SELECT 0.2 AS
					 * rate) p, a subquery of VALUES or generate_series) is
					 * a constant input, its rows computed at planning.
					 */
					Query	   *item = ctx->constant_joins ? constant_from_item(q, jt) : NULL;

					if (item != NULL)
						return apply_filter(plan_constant_input(ctx, q, rtindex, item), quals);
				}
				return plan_subquery(ctx, rte->subquery, rtindex, lcons(q, outer), quals);
			case RTE_CTE:
				{
					Index		up = rte->ctelevelsup;
					Query	   *owner = up == 0 ? q : list_nth(outer, up - 1);
					List	   *owner_outer = up == 0 ? outer : list_copy_tail(outer, up);
					ListCell   *lc;

					foreach(lc, owner->cteList)
					{
						CommonTableExpr *cte = lfirst(lc);

						if (strcmp(cte->ctename, rte->ctename) != 0)
							continue;
						if (cte->cterecursive)
							return plan_recursive_with(ctx, q, cte, rtindex, quals);
						return plan_subquery(ctx, (Query *) cte->ctequery, rtindex,
											 lcons(owner, owner_outer), quals);
					}
					elog(ERROR, "WITH query \"%s\" not found", rte->ctename);
				}
				break;
			case RTE_TABLEFUNC:
				unsupported("XMLTABLE and JSON_TABLE in FROM", true);
				break;
			case RTE_FUNCTION:
			case RTE_VALUES:
				/* (a query level whose FROM has nothing else to read rows from) */
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("a streaming materialized view must read a table"),
						 errdetail("A query level's FROM clause has only functions or VALUES lists.")));
				break;
			default:
				unsupported("this kind of FROM item", false);
		}
	}
	else if (IsA(jt, JoinExpr))
		return plan_joinexpr(ctx, q, outer, (JoinExpr *) jt, quals);
	else if (IsA(jt, FromExpr))
	{
		FromExpr   *f = (FromExpr *) jt;

		return plan_fromlist(ctx, q, outer, f->fromlist,
							 list_concat(make_ands_implicit((Expr *) f->quals), quals), NIL);
	}
	elog(ERROR, "unrecognized join tree node %d", (int) nodeTag(jt));
	return NULL;
}

/* ---------------------------------------------------------------------
 * Semi and anti joins from sublinks
 * ---------------------------------------------------------------------
 */

/*
 * WHERE conjuncts of q that are IN (SELECT ...), EXISTS (...) or NOT
 * EXISTS (...) become semi and anti joins, as Postgres's planner pulls
 * them up (its own conversion functions do it); returns those JoinExprs
 * and removes the conjuncts from q's WHERE.
 */
List *
convert_where_sublinks(PlanCtx *ctx, Query *q)
{
	List	   *conds = make_ands_implicit((Expr *) q->jointree->quals);
	List	   *kept = NIL;
	List	   *semis = NIL;
	PlannerInfo *root = makeNode(PlannerInfo);
	Relids		avail = get_relids_in_jointree((Node *) q->jointree, false);
	ListCell   *lc;

	root->parse = q;
	root->glob = makeNode(PlannerGlobal);
	root->query_level = 1;
	foreach(lc, conds)
	{
		Node	   *c = lfirst(lc);
		JoinExpr   *j = NULL;
		bool		is_sublink = false;

		if (IsA(c, SubLink))
		{
			SubLink    *sl = (SubLink *) c;

			is_sublink = true;
			if (sl->subLinkType == ANY_SUBLINK)
				j = convert_ANY_sublink_to_join(root, sl, avail);
			else if (sl->subLinkType == EXISTS_SUBLINK)
				j = convert_EXISTS_sublink_to_join(root, sl, false, avail);
		}
		else if (is_notclause(c) && IsA(get_notclausearg((Expr *) c), SubLink))
		{
			SubLink    *sl = (SubLink *) get_notclausearg((Expr *) c);

			is_sublink = true;
			if (sl->subLinkType == EXISTS_SUBLINK)
				j = convert_EXISTS_sublink_to_join(root, sl, true, avail);
			else if (sl->subLinkType == ANY_SUBLINK)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("this NOT IN (SELECT ...) is not supported in a streaming materialized view"),
						 errdetail("NOT IN is supported over one column, with a subquery that is uncorrelated, or correlated in its WHERE (by equalities, or through columns of one outer table or self-contained subquery that no outer join nulls) and only filtering rows."),
						 errhint("Write NOT EXISTS (SELECT ... WHERE ...), which does not depend on NULLs in the subquery.")));
		}
		if (j != NULL)
		{
			j->quals = flatten_join_alias_vars(q, j->quals);
			semis = lappend(semis, j);
			ctx->semi_quals = lappend(ctx->semi_quals, j->quals);
		}
		else if (is_sublink)
			unsupported_subquery();
		else
			kept = lappend(kept, c);
	}
	q->jointree->quals = kept ? (Node *) make_ands_explicit(kept) : NULL;
	return semis;
}
