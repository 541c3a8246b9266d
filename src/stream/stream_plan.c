/*-------------------------------------------------------------------------
 *
 * stream_plan.c
 *	  From a view's analyzed query to its streaming executors.
 *
 * The definition is parsed and analyzed by Postgres (parse_analyze); this
 * file checks the Query tree and turns it into a tree of executors whose
 * leaves are the source tables:
 *
 *	a table (each occurrence in FROM is a leaf the job feeds):
 *		Project(WHERE conditions on that table alone; the columns used)
 *	FROM a, b WHERE ... / a [INNER|LEFT|RIGHT|FULL] JOIN b ON ...:
 *		HashJoin(equalities between the two sides as the key; other
 *		conditions as the join filter), left-deep in FROM order, each next
 *		item preferably one related by an equality
 *	WHERE x IN (SELECT ...), EXISTS (...), NOT EXISTS (...):
 *		semi and anti HashJoins, converted by Postgres's own functions
 *	subqueries in FROM and WITH queries: planned as query levels (inline)
 *	UNION ALL: Union; UNION: Union then DISTINCT
 *	a query level, over its FROM:
 *		aggregation: Project(group keys, aggregate arguments)
 *			-> HashAgg(group keys; aggregates)
 *			-> Project(HAVING; output columns, hidden group key columns)
 *		otherwise: Project(output columns, hidden unique key columns)
 *		DISTINCT: then HashAgg(all output columns)
 *	the view: Materialize(keyed by the unique key the levels carry up: a
 *		group key, the sources' primary keys, all columns of a DISTINCT);
 *		without one (a multiset): HashAgg(all columns; count(*))
 *			-> Materialize(count copies of each row)
 *
 * Every executor's rows are described by a RelOut: for each column, the
 * Var of the query level it carries, so an expression of the query is
 * evaluated over any executor's rows by rewriting its Vars (map_expr).
 * Join aliases (USING, NATURAL) are flattened to their base columns first.
 *
 * Expressions stay Postgres expressions: WHERE, the projections and HAVING
 * are run through expression_planner and evaluated with ExecInitExpr.
 * After the aggregation, the view's target list and HAVING are rewritten
 * to read the aggregation's output row: each aggregate call and each
 * occurrence of a group key expression becomes a Var of that row (what
 * the Postgres planner's setrefs does for an Agg node).
 *
 * Planning is deterministic: the compute worker rebuilds the same tree
 * from the stored Query, and the state tables are handed out in the same
 * order (HsStreamPlanCreate counts them with placeholder tables).
 *
 * src/stream/stream_plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/dependency.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_collation.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/prep.h"
#include "optimizer/subselect.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/stream/stream_plan.h"

/* what: the construct, as the subject of "... not supported" */
static void
unsupported(const char *what, bool plural)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s %s not supported in a streaming materialized view", what,
					plural ? "are" : "is")));
}

/* A subquery that is not an IN / EXISTS / NOT EXISTS condition of WHERE. */
static void
unsupported_subquery(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("this subquery is not supported in a streaming materialized view"),
			 errdetail("Subqueries are supported in FROM, in WITH, and as IN (SELECT ...), EXISTS (...) and NOT EXISTS (...) conditions of WHERE whose inner query uses the outer one only in its WHERE.")));
}

/* ---------------------------------------------------------------------
 * Aggregates
 * ---------------------------------------------------------------------
 */

typedef struct AggAnalysis
{
	List	   *group_exprs;	/* Expr over the source */
	List	   *aggrefs;		/* distinct Aggref nodes, in first-use order */
} AggAnalysis;

static HsAggKind
agg_kind(Aggref *a)
{
	char	   *name = get_func_name(a->aggfnoid);
	Oid			argtype = a->args ? exprType((Node *) linitial_node(TargetEntry, a->args)->expr) : InvalidOid;
	HsAggKind	kind;

	if (get_func_namespace(a->aggfnoid) != PG_CATALOG_NAMESPACE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("aggregate %s is not supported in a streaming materialized view",
						format_procedure(a->aggfnoid)),
				 errhint("Supported: count, sum, avg, min, max, bool_and, bool_or, every.")));
	if (strcmp(name, "count") == 0)
		kind = a->aggstar || a->args == NIL ? HS_AGG_COUNT_STAR : HS_AGG_COUNT;
	else if (strcmp(name, "sum") == 0)
		kind = HS_AGG_SUM;
	else if (strcmp(name, "avg") == 0)
		kind = HS_AGG_AVG;
	else if (strcmp(name, "min") == 0)
		kind = HS_AGG_MIN;
	else if (strcmp(name, "max") == 0)
		kind = HS_AGG_MAX;
	else if (strcmp(name, "bool_and") == 0 || strcmp(name, "every") == 0)
		kind = HS_AGG_BOOL_AND;
	else if (strcmp(name, "bool_or") == 0)
		kind = HS_AGG_BOOL_OR;
	else
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("aggregate %s is not supported in a streaming materialized view",
						format_procedure(a->aggfnoid)),
				 errhint("Supported: count, sum, avg, min, max, bool_and, bool_or, every.")));
	if (a->aggdistinct &&
		(HsMemcmpTypeSupport(argtype) == HS_MEMCMP_NONE ||
		 (OidIsValid(a->inputcollid) && !get_collation_isdeterministic(a->inputcollid))))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s(DISTINCT %s) is not supported in a streaming materialized view",
						name, format_type_be(argtype)),
				 errdetail("DISTINCT compares values by their bytes; the type or its collation does not.")));
	if (a->aggorder)
		unsupported("ORDER BY in an aggregate call", false);
	if (a->aggfilter)
		unsupported("FILTER in an aggregate call", false);
	if (a->aggkind != AGGKIND_NORMAL)
		unsupported("ordered-set aggregates", true);
	if (list_length(a->args) > 1)
		unsupported("aggregates with several arguments", true);
	if (kind != HS_AGG_COUNT_STAR && kind != HS_AGG_COUNT &&
		!HsAggSupported(kind, argtype))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("aggregate %s(%s) is not supported in a streaming materialized view",
						name, format_type_be(argtype))));
	if ((kind == HS_AGG_MIN || kind == HS_AGG_MAX) && a->inputcollid != InvalidOid &&
		!HsCollationIsBytewise(a->inputcollid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s() over text with collation \"%s\" is not supported in a streaming materialized view",
						name, get_collation_name(a->inputcollid)),
				 errdetail("Streaming min and max order text by its bytes."),
				 errhint("Write %s(x COLLATE \"C\").", name)));
	return kind;
}

static bool
collect_aggrefs_walker(Node *node, AggAnalysis *an)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		ListCell   *lc;

		(void) agg_kind((Aggref *) node);
		foreach(lc, an->aggrefs)
			if (equal(lfirst(lc), node))
				return false;
		an->aggrefs = lappend(an->aggrefs, node);
		return false;			/* arguments cannot contain aggregates */
	}
	return expression_tree_walker(node, collect_aggrefs_walker, an);
}

typedef struct RewriteContext
{
	AggAnalysis *an;
} RewriteContext;

/* Rewrite an expression over the source into one over the agg's output. */
static Node *
post_agg_mutator(Node *node, RewriteContext *ctx)
{
	ListCell   *lc;
	int			i;

	if (node == NULL)
		return NULL;
	if (!IsA(node, Const))
	{
		i = 0;
		foreach(lc, ctx->an->group_exprs)
		{
			Node	   *ge = lfirst(lc);

			i++;
			if (equal(node, ge))
				return (Node *) makeVar(1, i, exprType(ge), exprTypmod(ge),
										exprCollation(ge), 0);
		}
	}
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;

		i = list_length(ctx->an->group_exprs);
		foreach(lc, ctx->an->aggrefs)
		{
			i++;
			if (equal(lfirst(lc), node))
				return (Node *) makeVar(1, i, a->aggtype, -1, a->aggcollid, 0);
		}
		elog(ERROR, "aggregate call not found while planning a streaming view");
	}
	if (IsA(node, Var))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a column that is neither grouped nor aggregated is not supported in a streaming materialized view"),
				 errhint("Add the column to GROUP BY.")));
	return expression_tree_mutator(node, post_agg_mutator, ctx);
}

static void
analyze_aggs(Query *q, AggAnalysis *an)
{
	ListCell   *lc;

	memset(an, 0, sizeof(*an));
	foreach(lc, q->groupClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		Node	   *e = get_sortgroupclause_expr(sgc, q->targetList);
		Oid			t = exprType(e);
		Oid			coll = exprCollation(e);

		if (HsMemcmpTypeSupport(t) == HS_MEMCMP_NONE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("grouping by type %s is not supported in a streaming materialized view",
							format_type_be(t))));
		if (OidIsValid(coll) && !get_collation_isdeterministic(coll))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("grouping by a nondeterministic collation is not supported in a streaming materialized view")));
		an->group_exprs = lappend(an->group_exprs, e);
	}
	foreach(lc, q->targetList)
		(void) collect_aggrefs_walker((Node *) ((TargetEntry *) lfirst(lc))->expr, an);
	(void) collect_aggrefs_walker(q->havingQual, an);
}

/* ---------------------------------------------------------------------
 * Checks
 * ---------------------------------------------------------------------
 */

static bool
system_column_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varattno < 0)
		unsupported("system columns", true);
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, system_column_walker, arg, 0);
	return expression_tree_walker(node, system_column_walker, arg);
}

static bool
sublink_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
		return true;
	return expression_tree_walker(node, sublink_walker, arg);
}

/* What a query level may not use (its FROM items are checked as planned). */
static void
check_query_level(Query *q, bool top)
{
	if (q->commandType != CMD_SELECT || q->utilityStmt)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a streaming materialized view is defined by a SELECT query")));
	if (q->hasWindowFuncs)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("window functions are not supported in a streaming materialized view"),
				 errdetail("The supported form is a Top-N per group: a subquery in FROM computing row_number() OVER (PARTITION BY ... ORDER BY ...) and an outer WHERE bounding it (rn <= n).")));
	if (q->hasTargetSRFs)
		unsupported("set-returning functions", true);
	if ((q->limitCount || q->limitOffset) && q->sortClause == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("LIMIT and OFFSET without ORDER BY are not supported in a streaming materialized view"),
				 errdetail("Which rows such a query returns is not defined.")));
	if (q->sortClause && !q->limitCount && !q->limitOffset && top)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ORDER BY is not supported in a streaming materialized view"),
				 errdetail("ORDER BY is supported with LIMIT (a Top-N view)."),
				 errhint("A view has no order: use ORDER BY when you read it.")));
	if (q->hasDistinctOn)
		unsupported("DISTINCT ON", false);
	if (q->groupingSets)
		unsupported("GROUPING SETS, ROLLUP and CUBE", true);
	if (q->rowMarks)
		unsupported("FOR UPDATE and FOR SHARE", true);
	if (q->hasRecursive)
		unsupported("recursive WITH queries", true);
	if (q->hasModifyingCTE)
		unsupported("data-modifying WITH queries", true);
}

/* A source table of the view: checked, returns its OID. */
static Oid
check_relation(RangeTblEntry *rte)
{
	Relation	rel;
	Oid			relid;

	if (rte->tablesample)
		unsupported("TABLESAMPLE", false);
	relid = rte->relid;
	rel = relation_open(relid, AccessShareLock);
	if (HsAmIsHummock(rel->rd_rel->relam))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("streaming materialized views over \"%s\", a relation USING hummock, are not supported yet",
						RelationGetRelationName(rel))));
	/* capture works by triggers of the table: rows routed by a parent miss them */
	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("streaming materialized views over partitioned table \"%s\" are not supported",
						RelationGetRelationName(rel)),
				 errhint("Partitioned tables and their partitions cannot be sources of streaming materialized views yet.")));
	if (rel->rd_rel->relkind == RELKIND_RELATION && rel->rd_rel->relispartition)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("streaming materialized views over \"%s\", a partition of \"%s\", are not supported",
						RelationGetRelationName(rel), get_rel_name(get_partition_parent(relid, true))),
				 errdetail("Rows written through the partitioned table would not be captured."),
				 errhint("Partitioned tables and their partitions cannot be sources of streaming materialized views yet.")));
	if (rel->rd_rel->relkind != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" is not a table; streaming materialized views read ordinary tables",
						RelationGetRelationName(rel))));
	/* its catalogs and capture logs change as views are maintained */
	if (RelationGetNamespace(rel) == get_namespace_oid(HS_SCHEMA_NAME, true) ||
		(OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) &&
		 getExtensionOfObject(RelationRelationId, relid) == get_extension_oid(HS_EXTENSION_NAME, true)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("streaming materialized views over \"%s.%s\", a table of the %s extension, are not supported",
						get_namespace_name(RelationGetNamespace(rel)), RelationGetRelationName(rel),
						HS_EXTENSION_NAME),
				 errdetail("The extension's own tables are internal state that changes as views are maintained.")));
	if (rel->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("streaming materialized views over %s table \"%s\" are not supported",
						rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP ? "temporary" : "unlogged",
						RelationGetRelationName(rel)),
				 errdetail("Background workers maintain the view after a crash; the table must be permanent.")));
	if (IsCatalogRelation(rel))
		unsupported("system catalogs as sources", true);
	if (rte->inh && has_subclass(relid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" has inheritance children", RelationGetRelationName(rel)),
				 errhint("Read only the parent with FROM ONLY.")));
	relation_close(rel, AccessShareLock);
	return relid;
}

/* Primary key columns of relid whose types have a key encoding, or NIL. */
static List *
primary_key(Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	Oid			pk = RelationGetPrimaryKeyIndex(rel);
	List	   *cols = NIL;

	if (OidIsValid(pk))
	{
		Relation	idx = index_open(pk, AccessShareLock);

		for (int i = 0; i < idx->rd_index->indnkeyatts; i++)
		{
			AttrNumber	att = idx->rd_index->indkey.values[i];

			if (HsMemcmpTypeSupport(TupleDescAttr(RelationGetDescr(rel), att - 1)->atttypid) ==
				HS_MEMCMP_NONE)
			{
				list_free(cols);
				cols = NIL;
				break;
			}
			cols = lappend_int(cols, att);
		}
		index_close(idx, AccessShareLock);
	}
	table_close(rel, AccessShareLock);
	return cols;
}

/* ---------------------------------------------------------------------
 * Relational planning
 *
 * Each FROM item, join and query level becomes a RelOut: the executor
 * that emits its rows, and for each column the Var of the query level
 * it stands for.  Expressions of the query are rewritten onto such a row
 * by map_expr (each Var becomes Var(1, column)).
 * ---------------------------------------------------------------------
 */

typedef struct RelOut
{
	HsExec	   *tail;			/* emits the rows; its downstream is free */
	TupleDesc	desc;
	List	   *vars;			/* per column: Var (varno, varattno) or NULL */
	bool		has_ukey;		/* ukey is a unique key of the rows */
	List	   *ukey;			/* column indexes (int, 0-based) */
	int			nvisible;		/* query levels: the tlist columns come
								 * first, hidden key columns after */
} RelOut;

typedef struct PlanCtx
{
	bool		dry;			/* planning only: placeholder state tables */
	HsStateTable *states;
	int			nstates;
	int			used;			/* state tables handed out */
	List	   *leaves;			/* HsStreamLeaf */
	List	   *sources;		/* Oid, distinct */
	List	   *semi_quals;		/* quals of pulled-up sublinks (they use
								 * columns too) */
	List	   *operators;		/* text: the stateful executors, in order */
	List	   *state_roles;	/* text: what each state table holds */
} PlanCtx;

static RelOut *plan_query(PlanCtx *ctx, Query *q, List *outer);
static RelOut *plan_jtnode(PlanCtx *ctx, Query *q, List *outer, Node *jt, List *quals);

static void note_operator(PlanCtx *ctx, const char *fmt,...) pg_attribute_printf(2, 3);

/* Note an executor for the catalog (fragments). */
static void
note_operator(PlanCtx *ctx, const char *fmt,...)
{
	va_list		ap;
	StringInfoData buf;

	initStringInfo(&buf);
	for (;;)
	{
		int			needed;

		va_start(ap, fmt);
		needed = appendStringInfoVA(&buf, fmt, ap);
		va_end(ap);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	ctx->operators = lappend(ctx->operators, buf.data);
}

static HsStateTable *
next_state(PlanCtx *ctx, const char *role)
{
	ctx->state_roles = lappend(ctx->state_roles, pstrdup(role));
	if (ctx->dry)
	{
		ctx->used++;
		return palloc0(sizeof(HsStateTable));
	}
	if (ctx->used >= ctx->nstates)
		elog(ERROR, "streaming plan needs more state tables than its job has (%d)",
			 ctx->nstates);
	return &ctx->states[ctx->used++];
}

static void
attach(RelOut *in, HsExec *e)
{
	in->tail->downstream = e;
}

static RelOut *
relout_of(HsExec *e, List *vars)
{
	RelOut	   *r = palloc0(sizeof(RelOut));

	r->tail = e;
	r->desc = e->out_desc;
	r->vars = vars;
	r->nvisible = e->out_desc->natts;
	return r;
}

static Node *
map_vars_mutator(Node *node, List *vars)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *v = (Var *) node;
		ListCell   *lc;
		int			i = 0;

		if (v->varattno == 0)
			unsupported("whole-row references", true);
		foreach(lc, vars)
		{
			Var		   *w = lfirst(lc);

			i++;
			if (w && w->varno == v->varno && w->varattno == v->varattno)
			{
				Var		   *nv = copyObject(v);

				nv->varno = 1;
				nv->varattno = i;
				nv->varnosyn = 0;
				nv->varattnosyn = 0;
				return (Node *) nv;
			}
		}
		elog(ERROR, "streaming plan: column %d of range table entry %d is not available",
			 v->varattno, v->varno);
	}
	if (IsA(node, SubLink))
		unsupported_subquery();
	return expression_tree_mutator(node, map_vars_mutator, vars);
}

/* e (an expression of the query level) over the rows of in. */
static Expr *
map_expr(Expr *e, RelOut *in)
{
	return expression_planner((Expr *) map_vars_mutator(copyObject((Node *) e), in->vars));
}

static List *
map_quals(List *quals, RelOut *in)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, quals)
		out = lappend(out, map_expr(lfirst(lc), in));
	return out;
}

static bool
varnos_walker(Node *node, Bitmapset **out)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
		*out = bms_add_member(*out, ((Var *) node)->varno);
	return expression_tree_walker(node, varnos_walker, out);
}

static Relids
varnos_of(Node *node)
{
	Relids		r = NULL;

	(void) varnos_walker(node, &r);
	return r;
}

static TargetEntry *
var_tle(TupleDesc desc, int col, int resno)
{
	Form_pg_attribute att = TupleDescAttr(desc, col);

	return makeTargetEntry((Expr *) makeVar(1, col + 1, att->atttypid, att->atttypmod,
											att->attcollation, 0), resno, NULL, false);
}

/* Keep the rows of in for which quals hold. */
static RelOut *
apply_filter(RelOut *in, List *quals)
{
	List	   *tl = NIL;
	HsExec	   *e;
	RelOut	   *out;

	if (quals == NIL)
		return in;
	for (int i = 0; i < in->desc->natts; i++)
		tl = lappend(tl, var_tle(in->desc, i, i + 1));
	e = HsExecProjectCreate(in->desc, map_quals(quals, in), tl);
	attach(in, e);
	out = relout_of(e, in->vars);
	out->has_ukey = in->has_ukey;
	out->ukey = in->ukey;
	out->nvisible = in->nvisible;
	return out;
}

typedef struct AttnoCtx
{
	int			varno;
	int			sublevels_up;
	Bitmapset  *attnos;
} AttnoCtx;

static bool
attnos_walker(Node *node, AttnoCtx *c)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varno == c->varno && (int) v->varlevelsup == c->sublevels_up && v->varattno > 0)
			c->attnos = bms_add_member(c->attnos, v->varattno);
		return false;
	}
	if (IsA(node, Query))
	{
		bool		r;

		c->sublevels_up++;
		r = query_tree_walker((Query *) node, attnos_walker, c, 0);
		c->sublevels_up--;
		return r;
	}
	return expression_tree_walker(node, attnos_walker, c);
}

/*
 * A source table (range table entry rtindex of q): a leaf the job feeds,
 * filtered by quals and narrowed to the columns q uses and the primary
 * key.
 */
static RelOut *
plan_leaf(PlanCtx *ctx, Query *q, int rtindex, List *quals)
{
	RangeTblEntry *rte = rt_fetch(rtindex, q->rtable);
	Oid			relid = check_relation(rte);
	Relation	rel = table_open(relid, AccessShareLock);
	TupleDesc	rdesc = CreateTupleDescCopy(RelationGetDescr(rel));
	List	   *pk = primary_key(relid);
	AttnoCtx	ac = {rtindex, 0, NULL};
	List	   *full_vars = NIL;
	List	   *vars = NIL;
	List	   *tl = NIL;
	RelOut	   *out;
	HsStreamLeaf *leaf;
	HsExec	   *e;
	ListCell   *lc;
	int			a;

	table_close(rel, AccessShareLock);
	(void) query_tree_walker(q, attnos_walker, &ac, 0);
	(void) attnos_walker((Node *) ctx->semi_quals, &ac);
	foreach(lc, pk)
		ac.attnos = bms_add_member(ac.attnos, lfirst_int(lc));
	for (int i = 0; i < rdesc->natts; i++)
		full_vars = lappend(full_vars, makeVar(rtindex, i + 1, TupleDescAttr(rdesc, i)->atttypid,
											   TupleDescAttr(rdesc, i)->atttypmod,
											   TupleDescAttr(rdesc, i)->attcollation, 0));
	a = -1;
	while ((a = bms_next_member(ac.attnos, a)) >= 0)
	{
		/* (semi_quals of other levels may name columns this table lacks) */
		if (a > rdesc->natts || TupleDescAttr(rdesc, a - 1)->attisdropped)
			continue;
		tl = lappend(tl, var_tle(rdesc, a - 1, list_length(tl) + 1));
		vars = lappend(vars, list_nth(full_vars, a - 1));
	}
	if (tl == NIL)
	{
		/* no column is used (count(*)): keep one so rows have a shape */
		for (int i = 0; i < rdesc->natts && tl == NIL; i++)
			if (!TupleDescAttr(rdesc, i)->attisdropped)
			{
				tl = lappend(tl, var_tle(rdesc, i, 1));
				vars = lappend(vars, list_nth(full_vars, i));
			}
		if (tl == NIL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("table \"%s\" has no columns", get_rel_name(relid))));
	}
	{
		RelOut		whole;

		memset(&whole, 0, sizeof(whole));
		whole.vars = full_vars;
		e = HsExecProjectCreate(rdesc, map_quals(quals, &whole), tl);
	}
	out = relout_of(e, vars);
	if (pk != NIL)
	{
		out->has_ukey = true;
		foreach(lc, pk)
		{
			int			i = 0;
			ListCell   *lc2;

			foreach(lc2, vars)
			{
				if (((Var *) lfirst(lc2))->varattno == lfirst_int(lc))
					break;
				i++;
			}
			out->ukey = lappend_int(out->ukey, i);
		}
	}
	note_operator(ctx, "Source %s%s", get_rel_name(relid), quals ? " (filtered)" : "");
	leaf = palloc(sizeof(HsStreamLeaf));
	leaf->relid = relid;
	leaf->entry = e;
	ctx->leaves = lappend(ctx->leaves, leaf);
	ctx->sources = list_append_unique_oid(ctx->sources, relid);
	return out;
}

static RelOut *plan_group_top_n(PlanCtx *ctx, Query *sub, int rtindex, List *outer,
								List **quals);

/* A subquery (or CTE) of q at rtindex: its visible columns are its Vars. */
static RelOut *
plan_subquery(PlanCtx *ctx, Query *sub, int rtindex, List *outer, List *quals)
{
	RelOut	   *out;
	ListCell   *lc;
	int			i = 0;

	if (sub->hasWindowFuncs)
		out = plan_group_top_n(ctx, sub, rtindex, outer, &quals);
	else
		out = plan_query(ctx, sub, outer);

	out->vars = NIL;
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle->resjunk)
			continue;
		out->vars = lappend(out->vars,
							makeVar(rtindex, tle->resno, exprType((Node *) tle->expr),
									exprTypmod((Node *) tle->expr),
									exprCollation((Node *) tle->expr), 0));
		i++;
	}
	for (; i < out->desc->natts; i++)
		out->vars = lappend(out->vars, NULL);
	return apply_filter(out, quals);
}

/*
 * Is clause an equality usable as a hash join key between the rows of
 * lrel and rrel?  If so, set *lexpr and *rexpr to its two sides (cast to
 * one type) over lrel and rrel.
 */
static bool
equi_key(Expr *clause, Relids lrel, Relids rrel, Expr **lexpr, Expr **rexpr)
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

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
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
	if (HsMemcmpTypeSupport(t) == HS_MEMCMP_NONE)
		return false;
	if (OidIsValid(op->inputcollid) && !get_collation_isdeterministic(op->inputcollid))
		return false;
	/* the operator must be the type's own equality (equal = same encoding) */
	tc = lookup_type_cache(t, TYPECACHE_BTREE_OPFAMILY | TYPECACHE_HASH_OPFAMILY);
	if (!((OidIsValid(tc->btree_opf) &&
		   get_op_opfamily_strategy(op->opno, tc->btree_opf) == BTEqualStrategyNumber) ||
		  (OidIsValid(tc->hash_opf) &&
		   get_op_opfamily_strategy(op->opno, tc->hash_opf) == HTEqualStrategyNumber)))
		return false;
	*lexpr = (Expr *) coerce_to_target_type(NULL, (Node *) a, exprType((Node *) a), t, -1,
											COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
	*rexpr = (Expr *) coerce_to_target_type(NULL, (Node *) b, exprType((Node *) b), t, -1,
											COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
	return *lexpr != NULL && *rexpr != NULL;
}

static int *
int_array(List *l)
{
	int		   *a = palloc(sizeof(int) * Max(list_length(l), 1));
	int			n = 0;
	ListCell   *lc;

	foreach(lc, l)
		a[n++] = lfirst_int(lc);
	return a;
}

/*
 * Join left (the rows of lrel) and right (of rrel) on conds (clauses of
 * the query level, implicitly ANDed): equalities become the hash key, the
 * rest the join filter.
 */
static RelOut *
make_join(PlanCtx *ctx, HsJoinKind kind, RelOut *left, Relids lrel,
		  RelOut *right, Relids rrel, List *conds)
{
	List	   *lkeys = NIL;
	List	   *rkeys = NIL;
	List	   *filter = NIL;
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

		if (equi_key(lfirst(lc), lrel, rrel, &l, &r))
		{
			lkeys = lappend(lkeys, map_expr(l, left));
			rkeys = lappend(rkeys, map_expr(r, right));
		}
		else
			filter = lappend(filter, map_expr(lfirst(lc), &combined));
	}
	lstate = next_state(ctx, "HashJoin left rows");
	rstate = next_state(ctx, "HashJoin right rows");
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
							 filter, lstate, rstate, &lport, &rport);
	attach(left, lport);
	attach(right, rport);
	out = relout_of(j, semi ? left->vars : combined.vars);
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
	lrel = get_relids_in_jointree(larg, false);
	rrel = get_relids_in_jointree(rarg, false);
	/* ON conditions over one input filter it, if that keeps the join's meaning */
	if (kind == HS_JOIN_INNER)
		conds = split_pushable(conds, lrel, &lq);
	if (kind != HS_JOIN_FULL)
		conds = split_pushable(conds, rrel, &rq);
	left = plan_jtnode(ctx, q, outer, larg, lq);
	right = plan_jtnode(ctx, q, outer, rarg, rq);
	return apply_filter(make_join(ctx, kind, left, lrel, right, rrel, conds), quals);
}

/*
 * The items of a FROM list joined (inner) on the conditions of conds that
 * relate them; conds over one item filter it; semis (semi and anti
 * JoinExprs from WHERE sublinks, larg unset) apply last.
 */
static RelOut *
plan_fromlist(PlanCtx *ctx, Query *q, List *outer, List *items, List *conds,
			  List *semis)
{
	int			n = list_length(items);
	Relids	   *rels = palloc(sizeof(Relids) * Max(n, 1));
	List	  **pushed = palloc0(sizeof(List *) * Max(n, 1));
	RelOut	  **outs = palloc(sizeof(RelOut *) * Max(n, 1));
	bool	   *done = palloc0(sizeof(bool) * Max(n, 1));
	RelOut	   *cur;
	Relids		cur_rel;
	ListCell   *lc;
	int			i;

	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a streaming materialized view must read a table"),
				 errdetail("The query has no FROM clause.")));
	i = 0;
	foreach(lc, items)
	{
		rels[i] = get_relids_in_jointree(lfirst(lc), false);
		conds = split_pushable(conds, rels[i], &pushed[i]);
		i++;
	}
	i = 0;
	foreach(lc, items)
	{
		outs[i] = plan_jtnode(ctx, q, outer, lfirst(lc), pushed[i]);
		i++;
	}
	cur = outs[0];
	cur_rel = rels[0];
	done[0] = true;
	for (int step = 1; step < n; step++)
	{
		int			next = -1;
		List	   *jconds = NIL;
		List	   *rest = NIL;
		Relids		both;

		/* prefer an item related to what is joined so far by an equality */
		for (i = 1; i < n && next < 0; i++)
		{
			if (done[i])
				continue;
			foreach(lc, conds)
			{
				Expr	   *l;
				Expr	   *r;

				if (equi_key(lfirst(lc), cur_rel, rels[i], &l, &r))
				{
					next = i;
					break;
				}
			}
		}
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
		cur = make_join(ctx, HS_JOIN_INNER, cur, cur_rel, outs[next], rels[next], jconds);
		cur_rel = both;
		done[next] = true;
	}
	cur = apply_filter(cur, conds);

	foreach(lc, semis)
	{
		JoinExpr   *sj = lfirst(lc);
		List	   *sconds = make_ands_implicit((Expr *) sj->quals);
		List	   *rq = NIL;
		Relids		rrel = get_relids_in_jointree(sj->rarg, false);
		RelOut	   *right;

		sconds = split_pushable(sconds, rrel, &rq);
		right = plan_jtnode(ctx, q, outer, sj->rarg, rq);
		cur = make_join(ctx, sj->jointype == JOIN_SEMI ? HS_JOIN_SEMI : HS_JOIN_ANTI,
						cur, cur_rel, right, rrel, sconds);
	}
	return cur;
}

static RelOut *
plan_jtnode(PlanCtx *ctx, Query *q, List *outer, Node *jt, List *quals)
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
							unsupported("recursive WITH queries", true);
						return plan_subquery(ctx, (Query *) cte->ctequery, rtindex,
											 lcons(owner, owner_outer), quals);
					}
					elog(ERROR, "WITH query \"%s\" not found", rte->ctename);
				}
				break;
			case RTE_FUNCTION:
			case RTE_TABLEFUNC:
				unsupported("functions in FROM", true);
				break;
			case RTE_VALUES:
				unsupported("VALUES lists", true);
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

/*
 * WHERE conjuncts of q that are IN (SELECT ...), EXISTS (...) or NOT
 * EXISTS (...) become semi and anti joins, as Postgres's planner pulls
 * them up (its own conversion functions do it); returns those JoinExprs
 * and removes the conjuncts from q's WHERE.
 */
static List *
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
						 errmsg("NOT IN (SELECT ...) is not supported in a streaming materialized view"),
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

/* The target list entries of q that are output columns. */
static List *
visible_tlist(Query *q)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, q->targetList)
		if (!((TargetEntry *) lfirst(lc))->resjunk)
			out = lappend(out, lfirst(lc));
	return out;
}

/*
 * Project in to exprs (over in; the first nvisible are output columns,
 * the rest hidden), then hidden columns for in's unique key unless add_key
 * is false; returns the result with its unique key.
 */
static RelOut *
project_cols(RelOut *in, List *exprs, int nvisible, List *qual, bool add_key)
{
	List	   *tl = NIL;
	List	   *ukey = NIL;
	ListCell   *lc;
	HsExec	   *e;
	RelOut	   *out;

	foreach(lc, exprs)
		tl = lappend(tl, makeTargetEntry(lfirst(lc), list_length(tl) + 1, NULL, false));
	if (add_key && in->has_ukey)
	{
		foreach(lc, in->ukey)
		{
			int			k = lfirst_int(lc);
			int			found = -1;
			int			i = 0;
			ListCell   *lc2;

			foreach(lc2, exprs)
			{
				Var		   *v = lfirst(lc2);

				if (IsA(v, Var) && v->varattno == k + 1)
				{
					found = i;
					break;
				}
				i++;
			}
			if (found < 0)
			{
				found = list_length(tl);
				tl = lappend(tl, var_tle(in->desc, k, found + 1));
			}
			ukey = lappend_int(ukey, found);
		}
	}
	e = HsExecProjectCreate(in->desc, qual, tl);
	attach(in, e);
	out = relout_of(e, NIL);
	out->nvisible = nvisible;
	out->has_ukey = add_key && in->has_ukey;
	out->ukey = ukey;
	return out;
}

static RelOut *
project_level(RelOut *in, List *exprs, List *qual, bool add_key)
{
	return project_cols(in, exprs, list_length(exprs), qual, add_key);
}

/* DISTINCT over the visible columns of in. */
static RelOut *
distinct_level(PlanCtx *ctx, RelOut *in)
{
	HsExec	   *e;
	RelOut	   *out;
	int			n = in->nvisible;

	for (int i = 0; i < n; i++)
	{
		Form_pg_attribute att = TupleDescAttr(in->desc, i);

		if (HsMemcmpTypeSupport(att->atttypid) == HS_MEMCMP_NONE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("DISTINCT over a column of type %s is not supported in a streaming materialized view",
							format_type_be(att->atttypid)),
					 errdetail("DISTINCT compares whole rows.")));
	}
	if (in->desc->natts != n)
	{
		List	   *exprs = NIL;

		for (int i = 0; i < n; i++)
			exprs = lappend(exprs, var_tle(in->desc, i, i + 1)->expr);
		in = project_level(in, exprs, NIL, false);
	}
	note_operator(ctx, "HashAgg (DISTINCT over %d column%s)", n, n == 1 ? "" : "s");
	e = HsExecHashAggCreate(in->desc, n, NULL, 0, next_state(ctx, "DISTINCT rows"), NULL, false);
	attach(in, e);
	out = relout_of(e, NIL);
	out->has_ukey = true;
	for (int i = 0; i < n; i++)
		out->ukey = lappend_int(out->ukey, i);
	return out;
}

/* Aggregation of q over from (WHERE already applied). */
static RelOut *
agg_level(PlanCtx *ctx, Query *q, RelOut *from, List *extra)
{
	AggAnalysis an;
	RewriteContext rctx;
	HsAggCall  *calls;
	int			ncalls = 0;
	int			nkeys;
	List	   *exprs = NIL;
	List	   *having = NIL;
	List	   *tl = NIL;
	List	   *ukey = NIL;
	bool		need_minmax = false;
	bool		distinct = q->distinctClause != NIL;
	ListCell   *lc;
	HsExec	   *e;
	RelOut	   *in;
	RelOut	   *out;
	HsStateTable *groups;
	int			nvisible;
	int			i;

	analyze_aggs(q, &an);
	nkeys = list_length(an.group_exprs);
	calls = palloc0(sizeof(HsAggCall) * Max(list_length(an.aggrefs), 1));
	foreach(lc, an.group_exprs)
		exprs = lappend(exprs, map_expr(lfirst(lc), from));
	foreach(lc, an.aggrefs)
	{
		Aggref	   *a = lfirst(lc);
		HsAggCall  *c = &calls[ncalls++];

		c->kind = agg_kind(a);
		c->restype = a->aggtype;
		c->arg = -1;
		/* min, max, bool_and and bool_or are the same over distinct values */
		c->distinct = a->aggdistinct != NIL &&
			(c->kind == HS_AGG_COUNT || c->kind == HS_AGG_SUM || c->kind == HS_AGG_AVG);
		if (c->kind == HS_AGG_MIN || c->kind == HS_AGG_MAX || c->distinct)
			need_minmax = true;
		if (c->kind != HS_AGG_COUNT_STAR)
		{
			Expr	   *arg = linitial_node(TargetEntry, a->args)->expr;

			c->argtype = exprType((Node *) arg);
			exprs = lappend(exprs, map_expr(arg, from));
			c->arg = list_length(exprs) - 1;
		}
	}
	in = project_level(from, exprs, NIL, false);
	groups = next_state(ctx, "HashAgg groups");
	note_operator(ctx, "HashAgg (%d group key%s, %d aggregate%s%s)", nkeys, nkeys == 1 ? "" : "s",
				  ncalls, ncalls == 1 ? "" : "s", q->havingQual ? ", HAVING" : "");
	e = HsExecHashAggCreate(in->desc, nkeys, calls, ncalls, groups,
							need_minmax ? next_state(ctx, "HashAgg min/max and DISTINCT values") : NULL,
							nkeys == 0);
	attach(in, e);

	/* view columns (and hidden group key columns) over the aggregation */
	rctx.an = &an;
	foreach(lc, visible_tlist(q))
	{
		TargetEntry *tle = lfirst(lc);
		Expr	   *x = (Expr *) post_agg_mutator((Node *) tle->expr, &rctx);

		tl = lappend(tl, makeTargetEntry(expression_planner(x), list_length(tl) + 1,
										 NULL, false));
	}
	nvisible = list_length(tl);
	/* hidden: ORDER BY expressions of a Top-N that are not output columns */
	foreach(lc, extra)
	{
		TargetEntry *tle = lfirst(lc);
		Expr	   *x = (Expr *) post_agg_mutator((Node *) tle->expr, &rctx);

		tl = lappend(tl, makeTargetEntry(expression_planner(x), list_length(tl) + 1,
										 NULL, false));
	}
	if (!distinct)
	{
		for (i = 0; i < nkeys; i++)
		{
			int			found = -1;
			int			k = 0;

			foreach(lc, tl)
			{
				Var		   *v = (Var *) ((TargetEntry *) lfirst(lc))->expr;

				if (k >= nvisible)
					break;
				if (IsA(v, Var) && v->varattno == i + 1)
				{
					found = k;
					break;
				}
				k++;
			}
			if (found < 0)
			{
				found = list_length(tl);
				tl = lappend(tl, var_tle(e->out_desc, i, found + 1));
			}
			ukey = lappend_int(ukey, found);
		}
	}
	if (q->havingQual)
		having = make_ands_implicit(expression_planner((Expr *) post_agg_mutator(q->havingQual, &rctx)));
	{
		HsExec	   *p = HsExecProjectCreate(e->out_desc, having, tl);

		e->downstream = p;
		out = relout_of(p, NIL);
	}
	out->nvisible = nvisible;
	out->has_ukey = !distinct;
	out->ukey = ukey;
	return out;
}

/* Is this a Top-N level (ORDER BY with LIMIT or OFFSET)? */
static bool
is_top_n(Query *q)
{
	return q->sortClause != NIL && (q->limitCount != NULL || q->limitOffset != NULL);
}

/* The ORDER BY entries of a Top-N level that are not output columns. */
static List *
top_n_extra(Query *q)
{
	List	   *extra = NIL;
	ListCell   *lc;

	if (!is_top_n(q))
		return NIL;
	foreach(lc, q->sortClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle(lfirst(lc), q->targetList);

		if (tle->resjunk)
			extra = list_append_unique_ptr(extra, tle);
	}
	return extra;
}

/* The value of a LIMIT or OFFSET clause; -1 for NULL (no limit). */
static int64
const_count(Node *n, const char *what)
{
	Const	   *c;
	int64		v;

	n = eval_const_expressions(NULL, copyObject(n));
	if (!IsA(n, Const))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s must be a constant in a streaming materialized view", what)));
	c = (Const *) n;
	if (c->constisnull)
		return -1;
	v = DatumGetInt64(c->constvalue);
	if (v < 0)
		ereport(ERROR,
				(errcode(strcmp(what, "LIMIT") == 0 ? ERRCODE_INVALID_ROW_COUNT_IN_LIMIT_CLAUSE :
						 ERRCODE_INVALID_ROW_COUNT_IN_RESULT_OFFSET_CLAUSE),
				 errmsg("%s must not be negative", what)));
	return v;
}

/*
 * Check that rows can be ordered by expression e as sgc says, in the byte
 * order of its memcmp encoding; returns whether it is descending.
 */
static bool
sort_key_desc(Expr *e, SortGroupClause *sgc)
{
	Oid			type = exprType((Node *) e);
	Oid			coll = exprCollation((Node *) e);
	Oid			opfamily;
	Oid			opcintype;
	int16		strategy;
	TypeCacheEntry *tc = lookup_type_cache(getBaseType(type), TYPECACHE_BTREE_OPFAMILY);
	bool		desc;

	if (!get_ordering_op_properties(sgc->sortop, &opfamily, &opcintype, &strategy) ||
		opfamily != tc->btree_opf || HsMemcmpTypeSupport(type) != HS_MEMCMP_ORDERED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ordering by type %s with operator %s is not supported in a streaming materialized view",
						format_type_be(type), get_opname(sgc->sortop))));
	if (OidIsValid(coll) && !HsCollationIsBytewise(coll))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ORDER BY text with collation \"%s\" is not supported in a streaming materialized view",
						get_collation_name(coll)),
				 errdetail("Streaming Top-N orders text by its bytes."),
				 errhint("Write ORDER BY x COLLATE \"C\".")));
	desc = strategy == BTGreaterStrategyNumber;
	if (sgc->nulls_first != desc)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("NULLS %s with %s is not supported in a streaming materialized view",
						sgc->nulls_first ? "FIRST" : "LAST", desc ? "DESC" : "ASC"),
				 errdetail("NULLs sort last in ascending and first in descending order.")));
	return desc;
}

/* Position of tle among the output columns of q, then extra; -1 if none. */
static int
level_column(Query *q, List *extra, TargetEntry *tle)
{
	int			i = 0;
	ListCell   *lc;

	foreach(lc, visible_tlist(q))
	{
		if (lfirst(lc) == tle)
			return i;
		i++;
	}
	foreach(lc, extra)
	{
		if (lfirst(lc) == tle)
			return i;
		i++;
	}
	return -1;
}

/* ORDER BY ... LIMIT n [OFFSET m] over in (q's level output). */
static RelOut *
top_n_level(PlanCtx *ctx, Query *q, RelOut *in, List *extra)
{
	int			n = list_length(q->sortClause);
	int		   *cols = palloc(sizeof(int) * Max(n, 1));
	bool	   *desc = palloc(sizeof(bool) * Max(n, 1));
	int64		limit = -1;
	int64		offset = 0;
	int			i = 0;
	ListCell   *lc;
	HsExec	   *e;
	HsStateTable *rows;
	HsStateTable *shown;
	RelOut	   *out;

	if (!is_top_n(q))
		return in;
	foreach(lc, q->sortClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, q->targetList);

		cols[i] = level_column(q, extra, tle);
		if (cols[i] < 0)
			elog(ERROR, "ORDER BY column not found while planning a streaming view");
		desc[i] = sort_key_desc(tle->expr, sgc);
		i++;
	}
	if (q->limitCount)
		limit = const_count(q->limitCount, "LIMIT");
	if (q->limitOffset)
		offset = Max(const_count(q->limitOffset, "OFFSET"), 0);
	if (limit < 0)
		limit = PG_INT64_MAX / 2;
	rows = next_state(ctx, "TopN rows");
	shown = next_state(ctx, "TopN shown rows");
	note_operator(ctx, "TopN (limit %lld%s%s)", (long long) Min(limit, PG_INT64_MAX / 2),
				  offset > 0 ? ", offset" : "",
				  q->limitOption == LIMIT_OPTION_WITH_TIES ? ", with ties" : "");
	e = HsExecTopNCreate(in->desc, NULL, 0, cols, desc, n,
						 in->has_ukey ? int_array(in->ukey) : NULL, list_length(in->ukey),
						 limit, Min(offset, PG_INT64_MAX / 2),
						 q->limitOption == LIMIT_OPTION_WITH_TIES, false, rows, shown);
	attach(in, e);
	out = relout_of(e, NIL);
	out->nvisible = in->nvisible;
	out->has_ukey = in->has_ukey;
	out->ukey = in->ukey;
	return out;
}

/*
 * The bound n of a WHERE conjunct "rn <= n" (also rn < n, rn = 1 and the
 * mirrored forms) on column resno of the subquery at rtindex; -1 if c is
 * not one.
 */
static int64
row_number_bound(Node *c, int rtindex, AttrNumber resno)
{
	OpExpr	   *op;
	Node	   *l;
	Node	   *r;
	char	   *name;
	bool		var_left;
	Const	   *k;
	int64		v;

	if (!IsA(c, OpExpr) || list_length(((OpExpr *) c)->args) != 2)
		return -1;
	op = (OpExpr *) c;
	l = linitial(op->args);
	r = lsecond(op->args);
	if (IsA(l, Var) && ((Var *) l)->varno == rtindex && ((Var *) l)->varattno == resno &&
		((Var *) l)->varlevelsup == 0)
		var_left = true;
	else if (IsA(r, Var) && ((Var *) r)->varno == rtindex && ((Var *) r)->varattno == resno &&
			 ((Var *) r)->varlevelsup == 0)
		var_left = false;
	else
		return -1;
	k = (Const *) eval_const_expressions(NULL, copyObject(var_left ? r : l));
	if (!IsA(k, Const) || k->constisnull)
		return -1;
	switch (k->consttype)
	{
		case INT2OID:
			v = DatumGetInt16(k->constvalue);
			break;
		case INT4OID:
			v = DatumGetInt32(k->constvalue);
			break;
		case INT8OID:
			v = DatumGetInt64(k->constvalue);
			break;
		default:
			return -1;
	}
	name = get_opname(op->opno);
	if (strcmp(name, "=") == 0)
		return v == 1 ? 1 : -1;
	if (strcmp(name, var_left ? "<=" : ">=") == 0)
		return Max(v, 0);
	if (strcmp(name, var_left ? "<" : ">") == 0)
		return Max(v - 1, 0);
	return -1;
}

/*
 * A per-group Top-N: sub computes row_number() OVER (PARTITION BY p ORDER
 * BY o) AS rn, and the outer query's WHERE bounds rn (its conjuncts over
 * the subquery are *quals; the bound is taken out of them).  Planned as
 * sub without the window function, then TopN(group p, order o, limit n)
 * numbering the rows, then sub's columns with rn as the number.
 */
static RelOut *
plan_group_top_n(PlanCtx *ctx, Query *sub, int rtindex, List *outer, List **quals)
{
	WindowClause *wc;
	TargetEntry *rn = NULL;
	Query	   *sub2;
	List	   *kept = NIL;
	int64		limit = -1;
	ListCell   *lc;
	RelOut	   *in;
	RelOut	   *out;
	List	   *exprs = NIL;
	int		   *gcols;
	int		   *scols;
	bool	   *sdesc;
	int			ng;
	int			ns;
	int			i;
	HsExec	   *e;
	HsStateTable *rows;
	HsStateTable *shown;

	if (list_length(sub->windowClause) != 1)
		check_query_level(sub, false);	/* the error about window functions */
	wc = linitial_node(WindowClause, sub->windowClause);
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (IsA(tle->expr, WindowFunc) &&
			((WindowFunc *) tle->expr)->winfnoid == F_ROW_NUMBER &&
			((WindowFunc *) tle->expr)->winref == wc->winref && rn == NULL && !tle->resjunk)
			rn = tle;
		else if (contain_window_function((Node *) tle->expr))
			rn = NULL, wc = NULL;
		if (wc == NULL)
			break;
	}
	if (wc == NULL || rn == NULL || wc->orderClause == NIL)
		check_query_level(sub, false);
	foreach(lc, *quals)
	{
		int64		b = row_number_bound(lfirst(lc), rtindex, rn->resno);

		if (b >= 0)
			limit = limit < 0 ? b : Min(limit, b);
		else
			kept = lappend(kept, lfirst(lc));
	}
	if (limit < 0)
		check_query_level(sub, false);
	*quals = kept;

	/* sub without the window: partition and order columns become outputs */
	sub2 = copyObject(sub);
	sub2->windowClause = NIL;
	sub2->hasWindowFuncs = false;
	sub2->targetList = NIL;
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle == rn)
			continue;
		tle = flatCopyTargetEntry(tle);
		if (tle->resjunk && tle->ressortgroupref &&
			(get_sortgroupref_clause_noerr(tle->ressortgroupref, wc->partitionClause) ||
			 get_sortgroupref_clause_noerr(tle->ressortgroupref, wc->orderClause)))
			tle->resjunk = false;
		sub2->targetList = lappend(sub2->targetList, tle);
	}
	in = plan_query(ctx, sub2, outer);

	ng = list_length(wc->partitionClause);
	ns = list_length(wc->orderClause);
	gcols = palloc(sizeof(int) * Max(ng, 1));
	scols = palloc(sizeof(int) * Max(ns, 1));
	sdesc = palloc(sizeof(bool) * Max(ns, 1));
	i = 0;
	foreach(lc, wc->partitionClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, sub2->targetList);
		Oid			t = exprType((Node *) tle->expr);
		Oid			coll = exprCollation((Node *) tle->expr);

		if (HsMemcmpTypeSupport(t) == HS_MEMCMP_NONE ||
			(OidIsValid(coll) && !get_collation_isdeterministic(coll)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("PARTITION BY type %s is not supported in a streaming materialized view",
							format_type_be(t))));
		gcols[i++] = level_column(sub2, NIL, tle);
	}
	i = 0;
	foreach(lc, wc->orderClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, sub2->targetList);

		scols[i] = level_column(sub2, NIL, tle);
		sdesc[i] = sort_key_desc(tle->expr, sgc);
		i++;
	}
	rows = next_state(ctx, "TopN rows");
	shown = next_state(ctx, "TopN shown rows");
	note_operator(ctx, "TopN per group (%d partition column%s, limit %lld, row_number)",
				  ng, ng == 1 ? "" : "s", (long long) limit);
	e = HsExecTopNCreate(in->desc, gcols, ng, scols, sdesc, ns,
						 in->has_ukey ? int_array(in->ukey) : NULL, list_length(in->ukey),
						 limit, 0, false, true, rows, shown);
	attach(in, e);
	out = relout_of(e, NIL);
	out->has_ukey = in->has_ukey;
	out->ukey = in->ukey;

	/* sub's output columns: rn is the row number, the rest sub2's columns */
	foreach(lc, sub->targetList)
	{
		TargetEntry *tle = lfirst(lc);
		int			col = -1;
		ListCell   *lc2;

		if (tle->resjunk)
			continue;
		if (tle == rn)
			col = e->out_desc->natts - 1;
		else
			foreach(lc2, sub2->targetList)
				if (((TargetEntry *) lfirst(lc2))->resno == tle->resno)
					col = level_column(sub2, NIL, lfirst(lc2));
		exprs = lappend(exprs, var_tle(e->out_desc, col, 1)->expr);
	}
	return project_level(out, exprs, NIL, true);
}

/* UNION [ALL] tree node of a set-operation query, columns coerced to types. */
static RelOut *
plan_setop_node(PlanCtx *ctx, Query *q, List *outer, Node *node, List *types,
				List *typmods)
{
	RelOut	   *out;

	if (IsA(node, RangeTblRef))
	{
		int			rtindex = ((RangeTblRef *) node)->rtindex;
		RangeTblEntry *rte = rt_fetch(rtindex, q->rtable);
		RelOut	   *in = plan_query(ctx, rte->subquery, lcons(q, outer));
		List	   *exprs = NIL;
		ListCell   *lt,
				   *lm;
		int			i = 0;

		forboth(lt, types, lm, typmods)
		{
			Expr	   *v = var_tle(in->desc, i, i + 1)->expr;
			Oid			from = exprType((Node *) v);
			Node	   *c = coerce_to_target_type(NULL, (Node *) v, from, lfirst_oid(lt),
												  lfirst_int(lm), COERCION_IMPLICIT,
												  COERCE_IMPLICIT_CAST, -1);

			if (c == NULL)
				elog(ERROR, "could not convert a UNION column from %s to %s",
					 format_type_be(from), format_type_be(lfirst_oid(lt)));
			exprs = lappend(exprs, expression_planner((Expr *) c));
			i++;
		}
		return project_level(in, exprs, NIL, false);
	}
	else
	{
		SetOperationStmt *op = castNode(SetOperationStmt, node);
		HsExec	   *ports[2];
		RelOut	   *l;
		RelOut	   *r;
		HsExec	   *u;

		if (op->op != SETOP_UNION)
			unsupported("INTERSECT and EXCEPT", true);
		l = plan_setop_node(ctx, q, outer, op->larg, types, typmods);
		r = plan_setop_node(ctx, q, outer, op->rarg, types, typmods);
		note_operator(ctx, "Union");
		u = HsExecUnionCreate(l->desc, 2, ports);
		attach(l, ports[0]);
		attach(r, ports[1]);
		out = relout_of(u, NIL);
		if (!op->all)
			out = distinct_level(ctx, out);
		return out;
	}
}

/*
 * A query level: its FROM items joined, WHERE, aggregation or projection,
 * DISTINCT.  The result's first nvisible columns are q's output columns;
 * hidden columns after them carry its unique key when it has one.  outer:
 * the enclosing query levels, innermost first.
 */
static RelOut *
plan_query(PlanCtx *ctx, Query *q, List *outer)
{
	RelOut	   *from;
	List	   *semis;
	List	   *extra;
	bool		has_agg;

	q = copyObject(q);
	check_query_level(q, outer == NIL);
	if (q->setOperations)
	{
		SetOperationStmt *op = castNode(SetOperationStmt, q->setOperations);
		Node	   *leftmost = (Node *) op;
		List	   *exprs = NIL;
		ListCell   *lc;
		int			rtindex;
		List	   *extra;

		/* the query's Vars are the leftmost input's columns */
		while (IsA(leftmost, SetOperationStmt))
			leftmost = ((SetOperationStmt *) leftmost)->larg;
		rtindex = castNode(RangeTblRef, leftmost)->rtindex;
		from = plan_setop_node(ctx, q, outer, (Node *) op, op->colTypes, op->colTypmods);
		from->vars = NIL;
		for (int i = 0; i < from->desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(from->desc, i);

			from->vars = lappend(from->vars, makeVar(rtindex, i + 1, att->atttypid,
													 att->atttypmod, att->attcollation, 0));
		}
		foreach(lc, visible_tlist(q))
			exprs = lappend(exprs, map_expr(((TargetEntry *) lfirst(lc))->expr, from));
		extra = top_n_extra(q);
		foreach(lc, extra)
			exprs = lappend(exprs, map_expr(((TargetEntry *) lfirst(lc))->expr, from));
		from = project_cols(from, exprs, list_length(exprs) - list_length(extra), NIL, true);
		return top_n_level(ctx, q, from, extra);
	}
	q->targetList = (List *) flatten_join_alias_vars(q, (Node *) q->targetList);
	q->jointree = (FromExpr *) flatten_join_alias_vars(q, (Node *) q->jointree);
	q->havingQual = flatten_join_alias_vars(q, q->havingQual);
	semis = convert_where_sublinks(ctx, q);
	if (sublink_walker((Node *) q->targetList, NULL) ||
		sublink_walker((Node *) q->jointree, NULL) ||
		sublink_walker(q->havingQual, NULL))
		unsupported_subquery();

	from = plan_fromlist(ctx, q, outer, q->jointree->fromlist,
						 make_ands_implicit((Expr *) q->jointree->quals), semis);
	has_agg = q->hasAggs || q->groupClause != NIL || q->havingQual != NULL;
	extra = top_n_extra(q);
	if (has_agg)
		from = agg_level(ctx, q, from, extra);
	else
	{
		List	   *exprs = NIL;
		ListCell   *lc;

		foreach(lc, visible_tlist(q))
			exprs = lappend(exprs, map_expr(((TargetEntry *) lfirst(lc))->expr, from));
		foreach(lc, extra)
			exprs = lappend(exprs, map_expr(((TargetEntry *) lfirst(lc))->expr, from));
		from = project_cols(from, exprs, list_length(exprs) - list_length(extra), NIL,
							q->distinctClause == NIL);
	}
	if (q->distinctClause)
		from = distinct_level(ctx, from);
	return top_n_level(ctx, q, from, extra);
}

/* ---------------------------------------------------------------------
 * The view
 * ---------------------------------------------------------------------
 */

/* Plan the view's query and its materialization into view. */
static void
plan_view(PlanCtx *ctx, HsStreamPlan *plan, TupleDesc view_desc, HsStateTable *view)
{
	RelOut	   *out = plan_query(ctx, plan->query, NIL);
	int			nview = list_length(plan->view_tlist);
	ListCell   *lc;

	plan->key_columns = NIL;
	if (out->has_ukey)
	{
		/* the key's leading columns that the view shows (all of them, often) */
		foreach(lc, out->ukey)
		{
			if (lfirst_int(lc) >= nview)
				break;
			plan->key_columns = lappend_int(plan->key_columns, lfirst_int(lc) + 1);
		}
		note_operator(ctx, "Materialize (key of %d column%s)", list_length(out->ukey),
					  list_length(out->ukey) == 1 ? "" : "s");
		attach(out, HsExecMaterializeCreate(out->desc, view_desc, int_array(out->ukey),
											list_length(out->ukey), false, view));
	}
	else
	{
		/* a multiset: a count per distinct row, stored as that many copies */
		HsAggCall  *count = palloc0(sizeof(HsAggCall));
		HsExec	   *agg;

		foreach(lc, plan->view_tlist)
		{
			TargetEntry *tle = lfirst(lc);
			Oid			t = exprType((Node *) tle->expr);

			if (HsMemcmpTypeSupport(t) == HS_MEMCMP_NONE)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("column \"%s\" of type %s cannot be compared",
								tle->resname ? tle->resname : "?column?", format_type_be(t)),
						 errdetail("The view's rows have no unique key (a source table without a primary key, or a UNION ALL), so they are identified by all their columns.")));
		}
		if (out->desc->natts != nview)
		{
			List	   *exprs = NIL;

			for (int i = 0; i < nview; i++)
				exprs = lappend(exprs, var_tle(out->desc, i, i + 1)->expr);
			out = project_level(out, exprs, NIL, false);
		}
		count->kind = HS_AGG_COUNT_STAR;
		count->arg = -1;
		count->restype = INT8OID;
		note_operator(ctx, "HashAgg (row counts of a multiset)");
		note_operator(ctx, "Materialize (multiset: copies of each row)");
		agg = HsExecHashAggCreate(out->desc, nview, count, 1, next_state(ctx, "row counts"),
								  NULL, false);
		attach(out, agg);
		agg->downstream = HsExecMaterializeCreate(agg->out_desc, view_desc, NULL, 0, true, view);
		for (int i = 1; i <= nview; i++)
			plan->key_columns = lappend_int(plan->key_columns, i);
	}
}

HsStreamPlan *
HsStreamPlanCreate(Query *q)
{
	HsStreamPlan *plan = palloc0(sizeof(HsStreamPlan));
	ListCell   *lc;
	int			resno = 0;
	PlanCtx		ctx;
	MemoryContext tmp;
	MemoryContext old;

	if (q->commandType != CMD_SELECT || q->utilityStmt)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a streaming materialized view is defined by a SELECT query")));
	if (contain_volatile_functions((Node *) q))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("volatile functions are not supported in a streaming materialized view"),
				 errdetail("A view's rows must be a function of its source rows; random() or clock_timestamp() are not.")));
	if (contain_mutable_functions((Node *) q))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("functions that are not IMMUTABLE are not supported in a streaming materialized view"),
				 errdetail("Workers evaluate the view at other times and in other sessions, so now(), current_setting() or a conversion that depends on settings would give other results than at creation."),
				 errhint("Use immutable functions, or compare with constants.")));
	(void) query_tree_walker(q, system_column_walker, NULL, 0);

	plan->query = q;
	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle->resjunk)
			continue;
		tle = flatCopyTargetEntry(tle);
		tle->resno = ++resno;
		plan->view_tlist = lappend(plan->view_tlist, tle);
	}
	foreach(lc, plan->view_tlist)
	{
		TargetEntry *tle = lfirst(lc);
		ListCell   *lc2;

		foreach(lc2, plan->view_tlist)
		{
			TargetEntry *other = lfirst(lc2);

			if (other == tle)
				break;
			if (tle->resname && other->resname && strcmp(tle->resname, other->resname) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("column name \"%s\" appears more than once in the view's query", tle->resname),
						 errhint("Give the columns distinct names with AS.")));
		}
	}
	if (plan->view_tlist == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a streaming materialized view must have at least one column")));

	/* plan once with placeholder state tables: checks, sources, counts */
	memset(&ctx, 0, sizeof(ctx));
	ctx.dry = true;
	tmp = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream planning",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);
	plan_view(&ctx, plan, ExecTypeFromTL(plan->view_tlist), palloc0(sizeof(HsStateTable)));
	MemoryContextSwitchTo(old);
	plan->key_columns = list_copy(plan->key_columns);
	plan->sources = list_copy(ctx.sources);
	list_sort(plan->sources, list_oid_cmp);
	plan->n_state_tables = ctx.used;
	plan->operators = NIL;
	plan->state_roles = NIL;
	{
		ListCell   *lc2;

		foreach(lc2, ctx.operators)
			plan->operators = lappend(plan->operators, pstrdup(lfirst(lc2)));
		foreach(lc2, ctx.state_roles)
			plan->state_roles = lappend(plan->state_roles, pstrdup(lfirst(lc2)));
	}
	MemoryContextDelete(tmp);
	return plan;
}

List *
HsStreamPlanBuild(HsStreamPlan *plan, TupleDesc view_desc, HsStateTable *view,
				  HsStateTable *states)
{
	PlanCtx		ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.states = states;
	ctx.nstates = plan->n_state_tables;
	plan_view(&ctx, plan, view_desc, view);
	if (ctx.used != plan->n_state_tables)
		elog(ERROR, "streaming plan uses %d state tables, its job has %d",
			 ctx.used, plan->n_state_tables);
	return ctx.leaves;
}
