/*-------------------------------------------------------------------------
 *
 * stream_plan.c
 *	  From a view's analyzed query to its streaming executors.
 *
 * The definition is parsed and analyzed by Postgres (parse_analyze); this
 * file checks the Query tree and turns it into a chain of executors:
 *
 *	no aggregation, source with a primary key:
 *		Project(WHERE; view columns, source pk) -> Materialize(keyed by pk)
 *	no aggregation, source without one (a multiset):
 *		Project(WHERE; view columns) -> HashAgg(all columns; count(*))
 *			-> Materialize(count copies of each row)
 *	aggregation:
 *		Project(WHERE; group keys, aggregate arguments)
 *			-> HashAgg(group keys; aggregates)
 *			-> Project(HAVING; view columns over the aggregation, group keys)
 *			-> Materialize(keyed by the group key)
 *	DISTINCT (after either of the first stages):
 *		... -> HashAgg(all view columns) -> Project(columns, columns as key)
 *			-> Materialize(keyed by the whole row)
 *
 * Expressions stay Postgres expressions: WHERE, the projections and HAVING
 * are run through expression_planner and evaluated with ExecInitExpr.
 * After the aggregation, the view's target list and HAVING are rewritten
 * to read the aggregation's output row: each aggregate call and each
 * occurrence of a group key expression becomes a Var of that row (what
 * the Postgres planner's setrefs does for an Agg node).
 *
 * Planning is deterministic: the compute worker rebuilds the same chain
 * from the stored Query, and the state tables keep their roles.
 *
 * src/stream/stream_plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/stream/memcmp_key.h"
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

/* ---------------------------------------------------------------------
 * Aggregates
 * ---------------------------------------------------------------------
 */

typedef struct AggAnalysis
{
	List	   *group_exprs;	/* Expr over the source */
	List	   *aggrefs;		/* distinct Aggref nodes, in first-use order */
} AggAnalysis;

bool
HsCollationIsBytewise(Oid coll)
{
	HeapTuple	tup;
	bool		result = false;

	if (!OidIsValid(coll) || lc_collate_is_c(coll))
		return true;
	if (coll == DEFAULT_COLLATION_OID)
	{
		const char *lc = GetConfigOption("lc_collate", true, false);

		return lc && (pg_strcasecmp(lc, "C.UTF-8") == 0 || pg_strcasecmp(lc, "C.utf8") == 0);
	}
	tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(coll));
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		d = SysCacheGetAttr(COLLOID, tup, Anum_pg_collation_collcollate, &isnull);

		if (!isnull)
		{
			char	   *lc = TextDatumGetCString(d);

			result = pg_strcasecmp(lc, "C.UTF-8") == 0 || pg_strcasecmp(lc, "C.utf8") == 0;
		}
		ReleaseSysCache(tup);
	}
	return result;
}

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
	if (a->aggdistinct)
		unsupported("DISTINCT in an aggregate call", false);
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
	return expression_tree_walker(node, system_column_walker, arg);
}

static Oid
check_source(Query *q)
{
	RangeTblEntry *rte;
	Relation	rel;
	Oid			relid;

	if (q->rtable == NIL || q->jointree == NULL || q->jointree->fromlist == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a streaming materialized view must read a table"),
				 errdetail("The query has no FROM clause.")));
	if (list_length(q->jointree->fromlist) > 1 ||
		!IsA(linitial(q->jointree->fromlist), RangeTblRef))
		unsupported("joins", true);
	rte = rt_fetch(((RangeTblRef *) linitial(q->jointree->fromlist))->rtindex, q->rtable);
	if (list_length(q->rtable) != 1)
		unsupported("joins", true);
	switch (rte->rtekind)
	{
		case RTE_RELATION:
			break;
		case RTE_SUBQUERY:
			unsupported("subqueries in FROM", true);
			break;
		case RTE_FUNCTION:
			unsupported("functions in FROM", true);
			break;
		case RTE_VALUES:
			unsupported("VALUES lists", true);
			break;
		default:
			unsupported("this kind of FROM item", false);
	}
	if (rte->tablesample)
		unsupported("TABLESAMPLE", false);
	relid = rte->relid;
	rel = relation_open(relid, AccessShareLock);
	if (HsRelationIsHummock(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("streaming materialized views over \"%s\", a relation USING hummock, are not supported yet",
						RelationGetRelationName(rel))));
	if (rel->rd_rel->relkind != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" is not a table; streaming materialized views read ordinary tables",
						RelationGetRelationName(rel))));
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

/* The resno of the view column that is exactly e, or 0. */
static int
view_column_of(HsStreamPlan *plan, Node *e)
{
	ListCell   *lc;

	foreach(lc, plan->view_tlist)
	{
		TargetEntry *tle = lfirst(lc);

		if (equal(tle->expr, e))
			return tle->resno;
	}
	return 0;
}

/* See key_columns in stream_plan.h. */
static List *
view_key_columns(HsStreamPlan *plan)
{
	List	   *cols = NIL;
	ListCell   *lc;

	if (plan->distinct)
	{
		/* DISTINCT and multisets are keyed by the whole row */
		foreach(lc, plan->view_tlist)
			cols = lappend_int(cols, ((TargetEntry *) lfirst(lc))->resno);
		return cols;
	}
	if (plan->has_agg)
	{
		foreach(lc, plan->query->groupClause)
		{
			Node	   *e = get_sortgroupclause_expr(lfirst(lc), plan->query->targetList);
			int			c = view_column_of(plan, e);

			if (c == 0)
				return NIL;
			cols = lappend_int(cols, c);
		}
		return cols;
	}
	foreach(lc, plan->pk_attnums)
	{
		Relation	rel = table_open(plan->source_relid, AccessShareLock);
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), lfirst_int(lc) - 1);
		Var		   *v = makeVar(1, att->attnum, att->atttypid, att->atttypmod,
								att->attcollation, 0);
		int			c;

		table_close(rel, AccessShareLock);
		c = view_column_of(plan, (Node *) v);
		if (c == 0)
			return NIL;
		cols = lappend_int(cols, c);
	}
	return cols;
}

HsStreamPlan *
HsStreamPlanCreate(Query *q)
{
	HsStreamPlan *plan = palloc0(sizeof(HsStreamPlan));
	ListCell   *lc;
	int			resno = 0;

	if (q->commandType != CMD_SELECT || q->utilityStmt)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a streaming materialized view is defined by a SELECT query")));
	if (q->setOperations)
		unsupported("UNION, INTERSECT and EXCEPT", true);
	if (q->cteList)
		unsupported("WITH queries", true);
	if (q->hasWindowFuncs)
		unsupported("window functions", true);
	if (q->hasTargetSRFs)
		unsupported("set-returning functions", true);
	if (q->hasSubLinks)
		unsupported("subqueries", true);
	if (q->limitCount || q->limitOffset)
		unsupported("LIMIT and OFFSET", true);
	if (q->sortClause)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ORDER BY is not supported in a streaming materialized view"),
				 errhint("A view has no order: use ORDER BY when you read it.")));
	if (q->hasDistinctOn)
		unsupported("DISTINCT ON", false);
	if (q->groupingSets)
		unsupported("GROUPING SETS, ROLLUP and CUBE", true);
	if (q->rowMarks)
		unsupported("FOR UPDATE and FOR SHARE", true);
	if (q->hasModifyingCTE || q->hasRecursive)
		unsupported("WITH queries", true);
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

	plan->source_relid = check_source(q);
	plan->query = q;
	plan->has_agg = q->hasAggs || q->groupClause != NIL || q->havingQual != NULL;
	plan->distinct = q->distinctClause != NIL;

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

	if (plan->has_agg)
	{
		AggAnalysis an;
		RewriteContext ctx;

		analyze_aggs(q, &an);
		ctx.an = &an;
		/* fail now on ungrouped columns */
		(void) post_agg_mutator((Node *) plan->view_tlist, &ctx);
		(void) post_agg_mutator(q->havingQual, &ctx);
	}
	else if (!plan->distinct)
	{
		plan->pk_attnums = primary_key(plan->source_relid);
		if (plan->pk_attnums == NIL)
		{
			plan->distinct = true;
			plan->keep_count = true;
		}
	}
	plan->key_columns = view_key_columns(plan);
	if (plan->distinct)
	{
		foreach(lc, plan->view_tlist)
		{
			TargetEntry *tle = lfirst(lc);
			Oid			t = exprType((Node *) tle->expr);

			if (HsMemcmpTypeSupport(t) == HS_MEMCMP_NONE)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("column \"%s\" of type %s cannot be compared",
								tle->resname ? tle->resname : "?column?", format_type_be(t)),
						 errdetail(plan->keep_count ?
								   "The source table has no primary key, so the view's rows are identified by all their columns." :
								   "DISTINCT compares whole rows.")));
		}
	}
	return plan;
}

/* ---------------------------------------------------------------------
 * Building the executors
 * ---------------------------------------------------------------------
 */

static TargetEntry *
planned_tle(Expr *e, int resno, const char *name)
{
	return makeTargetEntry(expression_planner((Expr *) copyObject(e)), resno,
						   name ? pstrdup(name) : NULL, false);
}

/* Vars 1..n of desc as a target list starting at resno first. */
static List *
identity_tlist(TupleDesc desc, int n, int first, List *tl)
{
	for (int i = 0; i < n; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		tl = lappend(tl, makeTargetEntry((Expr *) makeVar(1, i + 1, att->atttypid,
														  att->atttypmod,
														  att->attcollation, 0),
										 first + i, NULL, false));
	}
	return tl;
}

static List *
where_qual(Query *q)
{
	Node	   *quals = q->jointree->quals;

	if (quals == NULL)
		return NIL;
	return make_ands_implicit(expression_planner((Expr *) copyObject(quals)));
}

HsExec *
HsStreamPlanBuild(HsStreamPlan *plan, TupleDesc src_desc, TupleDesc view_desc,
				  HsStateTable *view, HsStateTable *states)
{
	Query	   *q = plan->query;
	HsExec	   *head = NULL;
	HsExec	   *tail = NULL;
	HsExec	   *e;
	int			nview = list_length(plan->view_tlist);
	List	   *tl = NIL;
	ListCell   *lc;

#define APPEND(x) do { e = (x); if (head == NULL) head = e; else tail->downstream = e; tail = e; } while (0)

	if (plan->has_agg)
	{
		AggAnalysis an;
		RewriteContext ctx;
		HsAggCall  *calls;
		int			ncalls;
		int			nkeys;
		int			i;
		List	   *having = NIL;

		analyze_aggs(q, &an);
		nkeys = list_length(an.group_exprs);
		ncalls = list_length(an.aggrefs);
		calls = palloc0(sizeof(HsAggCall) * Max(ncalls, 1));
		i = 0;
		foreach(lc, an.group_exprs)
		{
			i++;
			tl = lappend(tl, planned_tle(lfirst(lc), i, NULL));
		}
		ncalls = 0;
		foreach(lc, an.aggrefs)
		{
			Aggref	   *a = lfirst(lc);
			HsAggCall  *c = &calls[ncalls++];

			c->kind = agg_kind(a);
			c->restype = a->aggtype;
			c->arg = -1;
			if (c->kind != HS_AGG_COUNT_STAR)
			{
				Expr	   *arg = linitial_node(TargetEntry, a->args)->expr;

				c->argtype = exprType((Node *) arg);
				tl = lappend(tl, planned_tle(arg, ++i, NULL));
				c->arg = i - 1;
			}
		}
		APPEND(HsExecProjectCreate(src_desc, where_qual(q), tl));
		APPEND(HsExecHashAggCreate(tail->out_desc, nkeys, calls, ncalls,
								   &states[HS_STATE_AGG], &states[HS_STATE_MINMAX],
								   nkeys == 0));

		/* view columns (and the group key) over the aggregation's output */
		ctx.an = &an;
		tl = NIL;
		foreach(lc, plan->view_tlist)
		{
			TargetEntry *tle = lfirst(lc);
			Expr	   *x = (Expr *) post_agg_mutator((Node *) tle->expr, &ctx);

			tl = lappend(tl, makeTargetEntry(expression_planner(x), tle->resno, NULL, false));
		}
		if (!plan->distinct)
			tl = identity_tlist(tail->out_desc, nkeys, nview + 1, tl);
		if (q->havingQual)
			having = make_ands_implicit(expression_planner((Expr *) post_agg_mutator(q->havingQual, &ctx)));
		APPEND(HsExecProjectCreate(tail->out_desc, having, tl));
		if (!plan->distinct)
			APPEND(HsExecMaterializeCreate(tail->out_desc, view_desc, nkeys, false, view));
	}
	else
	{
		foreach(lc, plan->view_tlist)
		{
			TargetEntry *tle = lfirst(lc);

			tl = lappend(tl, planned_tle(tle->expr, tle->resno, NULL));
		}
		if (!plan->distinct)
		{
			int			i = nview;

			foreach(lc, plan->pk_attnums)
			{
				Form_pg_attribute att = TupleDescAttr(src_desc, lfirst_int(lc) - 1);

				tl = lappend(tl, makeTargetEntry((Expr *) makeVar(1, att->attnum, att->atttypid,
																  att->atttypmod,
																  att->attcollation, 0),
												 ++i, NULL, false));
			}
		}
		APPEND(HsExecProjectCreate(src_desc, where_qual(q), tl));
		if (!plan->distinct)
			APPEND(HsExecMaterializeCreate(tail->out_desc, view_desc,
										   list_length(plan->pk_attnums), false, view));
	}

	if (plan->distinct)
	{
		HsAggCall  *count = NULL;

		if (plan->keep_count)
		{
			count = palloc0(sizeof(HsAggCall));
			count->kind = HS_AGG_COUNT_STAR;
			count->arg = -1;
			count->restype = INT8OID;
		}
		APPEND(HsExecHashAggCreate(tail->out_desc, nview, count, count ? 1 : 0,
								   &states[HS_STATE_DISTINCT], NULL, false));
		if (plan->keep_count)
			APPEND(HsExecMaterializeCreate(tail->out_desc, view_desc, 0, true, view));
		else
		{
			tl = identity_tlist(tail->out_desc, nview, 1, NIL);
			tl = identity_tlist(tail->out_desc, nview, nview + 1, tl);
			APPEND(HsExecProjectCreate(tail->out_desc, NIL, tl));
			APPEND(HsExecMaterializeCreate(tail->out_desc, view_desc, nview, false, view));
		}
	}
#undef APPEND
	return head;
}
