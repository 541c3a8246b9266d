/*-------------------------------------------------------------------------
 *
 * plan_checks.c
 *	  What a streaming materialized view's query may use.
 *
 * docs/SQL.md lists what is supported.  Everything else is refused before
 * any state exists, with ERRCODE_FEATURE_NOT_SUPPORTED (0A000) and a
 * message naming the construct ("... is not supported in a streaming
 * materialized view"), with a hint where a supported form is close.  The
 * checks here are the ones about the query as a whole, a query level, and
 * a source table; the planning files refuse what they cannot plan where
 * they meet it (an aggregate, a sort key, a join tree node, a set
 * operation).
 *
 *	the query	a SELECT; IMMUTABLE functions, and STABLE built-in ones
 *				but those of the current time (the settings they depend on
 *				are recorded with the view: view_settings.c); no system
 *				columns; distinct output column names and at least one
 *	a level		no set-returning functions at an aggregating level
 *				(elsewhere plan_srf.c; window functions: plan_window.c,
 *				plan_top_n.c), LIMIT without ORDER BY, FOR UPDATE,
 *				data-modifying WITH (ORDER
 *				BY without LIMIT orders nothing: a view has no order)
 *	a source	another streaming view that is created (it is read from
 *				its change log, view_source.c), or an ordinary permanent
 *				table, partitioned table or partition (an inheritance
 *				parent with its children, all ordinary permanent tables:
 *				their rows are captured into its log, capture.c), not a
 *				system catalog, not one of the extension's own tables;
 *				no other relation USING hummock
 *
 * src/stream/plan/plan_checks.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/catalog.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "access/transam.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/catalog.h"

#include "plan_internal.h"

/* what: the construct, as the subject of "... not supported" */
void
unsupported(const char *what, bool plural)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s %s not supported in a streaming materialized view", what,
					plural ? "are" : "is")));
}

/* A subquery that is not an IN / EXISTS / NOT EXISTS condition of WHERE. */
void
unsupported_subquery(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("this subquery is not supported in a streaming materialized view"),
			 errdetail("Subqueries are supported in FROM, in WITH, and as IN (SELECT ...), EXISTS (...) and NOT EXISTS (...) conditions of WHERE whose inner query uses the outer one only in its WHERE.")));
}

/* ---------------------------------------------------------------------
 * The query
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

/*
 * Why built-in STABLE function funcid cannot be in a view, or NULL: its
 * result depends on the session or transaction that calls it (a worker's,
 * not the creator's), on the search_path (pinned in workers), or on the
 * current date or transaction counter as age() of one argument does.
 */
static const char *
session_state_function(Oid funcid)
{
	switch (funcid)
	{
		case F_PG_BACKEND_PID:
		case F_TXID_CURRENT:
		case F_TXID_CURRENT_IF_ASSIGNED:
		case F_TXID_CURRENT_SNAPSHOT:
		case F_PG_CURRENT_XACT_ID:
		case F_PG_CURRENT_XACT_ID_IF_ASSIGNED:
		case F_PG_CURRENT_SNAPSHOT:
		case F_INET_CLIENT_ADDR:
		case F_INET_CLIENT_PORT:
		case F_INET_SERVER_ADDR:
		case F_INET_SERVER_PORT:
		case F_PG_MY_TEMP_SCHEMA:
		case F_PG_TRIGGER_DEPTH:
		case F_SESSION_USER:
			return "Its result depends on the session or transaction that calls it: a view is evaluated by workers.";
		case F_CURRENT_SCHEMA:
		case F_CURRENT_SCHEMAS:
		case F_TO_REGCLASS:
		case F_TO_REGTYPE:
		case F_TO_REGPROC:
		case F_TO_REGPROCEDURE:
		case F_TO_REGOPER:
		case F_TO_REGOPERATOR:
		case F_TO_REGNAMESPACE:
		case F_TO_REGCOLLATION:
		case F_REGCLASS:		/* text::regclass */
		case F_REGCLASSIN:
		case F_REGCLASSOUT:
		case F_REGTYPEIN:
		case F_REGTYPEOUT:
		case F_REGPROCIN:
		case F_REGPROCOUT:
		case F_REGPROCEDUREIN:
		case F_REGPROCEDUREOUT:
		case F_REGOPERIN:
		case F_REGOPEROUT:
		case F_REGOPERATORIN:
		case F_REGOPERATOROUT:
		case F_REGCONFIGIN:
		case F_REGCONFIGOUT:
		case F_REGDICTIONARYIN:
		case F_REGDICTIONARYOUT:
		case F_REGCOLLATIONIN:
		case F_REGCOLLATIONOUT:
		case F_FORMAT_TYPE:
			return "Its result depends on the search_path, which workers pin (names in the view's definition were resolved when it was created).";
		case F_AGE_TIMESTAMP:
		case F_AGE_TIMESTAMPTZ:
		case F_AGE_XID:
		case F_MXID_AGE:
			return "With one argument, age() is measured from the current date (or transaction), which changes without a write; write the difference from a column instead.";
		default:
			return NULL;
	}
}

/*
 * May the view call funcid?  IMMUTABLE functions, and STABLE built-in ones
 * (their results depend on settings, which the view records:
 * view_settings.c), except those of the current time and those of the
 * session (session_state_function); not a user's STABLE
 * function (it may read tables the view does not follow), nor a VOLATILE
 * one.
 */
static bool
function_refused(Oid funcid, void *context)
{
	switch (func_volatile(funcid))
	{
		case PROVOLATILE_IMMUTABLE:
			return false;
		case PROVOLATILE_STABLE:
			if (is_time_function(funcid))
			{
				if (context == NULL || !*(bool *) context)
					refuse_time_function();
				return false;
			}
			if (funcid == F_CURRENT_SETTING_TEXT || funcid == F_CURRENT_SETTING_TEXT_BOOL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("current_setting() is not supported in a streaming materialized view"),
						 errdetail("A view records only the settings its functions depend on (TimeZone, DateStyle, lc_numeric, ...); workers would read another value.")));
			if (session_state_function(funcid) != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("function %s is not supported in a streaming materialized view",
								format_procedure(funcid)),
						 errdetail("%s", session_state_function(funcid))));
			if (funcid < FirstNormalObjectId)
				return false;
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("function %s is not IMMUTABLE, which a streaming materialized view needs",
							format_procedure(funcid)),
					 errdetail("A STABLE function may read tables the view does not follow."),
					 errhint("Mark it IMMUTABLE if its result depends only on its arguments.")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("volatile functions are not supported in a streaming materialized view"),
					 errdetail("A view's rows must be a function of its source rows; %s is volatile.",
							   format_procedure(funcid))));
	}
	return true;
}

static bool function_check_walker(Node *node, void *context);

/*
 * The conjuncts of a WHERE or HAVING: the current time only in temporal
 * filters (plan_temporal.c).
 */
static void
check_conjuncts(Node *quals, void *context)
{
	ListCell   *lc;

	foreach(lc, make_ands_implicit((Expr *) quals))
	{
		TemporalCondition tc;
		bool		allow_time = true;
		ListCell   *lp;

		if (!temporal_condition(lfirst(lc), &tc))
		{
			(void) function_check_walker(lfirst(lc), context);
			continue;
		}
		(void) function_check_walker((Node *) tc.plain, context);
		(void) function_check_walker((Node *) tc.bypass, context);
		foreach(lp, tc.filters)
		{
			TemporalFilter tf;

			(void) temporal_filter(lfirst(lp), &tf);
			(void) function_check_walker((Node *) tf.row, context);
			(void) function_check_walker((Node *) tf.time, &allow_time);
		}
	}
}

static bool
function_check_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, FromExpr))
	{
		check_conjuncts(((FromExpr *) node)->quals, context);
		return function_check_walker((Node *) ((FromExpr *) node)->fromlist, context);
	}
	if (IsA(node, Query) && ((Query *) node)->havingQual != NULL)
	{
		Query	   *q = (Query *) node;
		Node	   *having = q->havingQual;
		bool		r;

		check_conjuncts(having, context);
		q->havingQual = NULL;
		r = query_tree_walker(q, function_check_walker, context, 0);
		q->havingQual = having;
		return r;
	}
	/* a comparison of the row with the time, as a value: plan_temporal.c */
	if (IsA(node, OpExpr) && contains_time(node))
	{
		List	   *filters = temporal_conjuncts(node);
		bool		allow_time = true;
		bool		all = true;
		ListCell   *lc;

		foreach(lc, filters)
		{
			TemporalFilter tf;

			all &= temporal_filter(lfirst(lc), &tf);
		}
		if (all)
		{
			foreach(lc, filters)
			{
				TemporalFilter tf;

				(void) temporal_filter(lfirst(lc), &tf);
				(void) check_functions_in_node(lfirst(lc), function_refused, &allow_time);
				(void) function_check_walker((Node *) tf.row, context);
				(void) function_check_walker((Node *) tf.time, &allow_time);
			}
			return false;
		}
	}
	(void) check_functions_in_node(node, function_refused, context);
	if (is_time_value_function(node) && (context == NULL || !*(bool *) context))
		refuse_time_function();
	if (IsA(node, SQLValueFunction) &&
		(((SQLValueFunction *) node)->op == SVFOP_SESSION_USER ||
		 ((SQLValueFunction *) node)->op == SVFOP_CURRENT_SCHEMA))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s is not supported in a streaming materialized view",
						((SQLValueFunction *) node)->op == SVFOP_SESSION_USER ?
						"session_user" : "current_schema"),
				 errdetail("%s",
						   ((SQLValueFunction *) node)->op == SVFOP_SESSION_USER ?
						   "Its result depends on the session that calls it: a view is evaluated by workers (current_user is the view's owner everywhere)." :
						   "Its result depends on the search_path, which workers pin (names in the view's definition were resolved when it was created).")));
	if (IsA(node, NextValueExpr))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("volatile functions are not supported in a streaming materialized view"),
				 errdetail("A view's rows must be a function of its source rows; nextval() is volatile.")));
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, function_check_walker, context, 0);
	return expression_tree_walker(node, function_check_walker, context);
}

/*
 * The view's query as a whole: a SELECT, no functions it may not call
 * (function_refused), no system columns.
 */
void
check_view_query(Query *q)
{
	if (q->commandType != CMD_SELECT || q->utilityStmt)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a streaming materialized view is defined by a SELECT query")));
	(void) function_check_walker((Node *) q, NULL);
	(void) query_tree_walker(q, system_column_walker, NULL, 0);
}

/* The view's columns: distinct names, at least one. */
void
check_view_columns(List *view_tlist)
{
	ListCell   *lc;

	foreach(lc, view_tlist)
	{
		TargetEntry *tle = lfirst(lc);
		ListCell   *lc2;

		foreach(lc2, view_tlist)
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
	if (view_tlist == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a streaming materialized view must have at least one column")));
}

/* ---------------------------------------------------------------------
 * Query levels
 * ---------------------------------------------------------------------
 */

static bool
sublink_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
		return true;
	return expression_tree_walker(node, sublink_walker, arg);
}

/* Does node (expressions or a join tree of one level) contain a SubLink? */
bool
contains_sublink(Node *node)
{
	return sublink_walker(node, NULL);
}

/* What a query level may not use (its FROM items are checked as planned). */
void
check_query_level(Query *q, bool top)
{
	if (q->commandType != CMD_SELECT || q->utilityStmt)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a streaming materialized view is defined by a SELECT query")));

	if (q->hasTargetSRFs &&
		aggregating(q))
		unsupported("set-returning functions in the select list of an aggregating query", true);
	if ((q->limitCount || q->limitOffset) && q->sortClause == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("LIMIT and OFFSET without ORDER BY are not supported in a streaming materialized view"),
				 errdetail("Which rows such a query returns is not defined.")));
	if (q->rowMarks)
		unsupported("FOR UPDATE and FOR SHARE", true);
	if (q->hasModifyingCTE)
		unsupported("data-modifying WITH queries", true);
}

/* ---------------------------------------------------------------------
 * Sources
 * ---------------------------------------------------------------------
 */

/*
 * Every table below relid (partitions, inheritance children, theirs) must
 * be an ordinary permanent table or a partitioned table: the rows of the
 * others are not captured (a foreign table's rows are written elsewhere)
 * or vanish in a crash without a change the view can follow (unlogged,
 * and temporary ones are emptied at the end of their session).  At a
 * view's creation (reader invalid) and after every statement that may
 * make a table a member of a source's tree or change its persistence
 * (reader: a view that reads relid with its children; source_alter.c,
 * HsSourceCheckTree), with the same error.
 */
void
HsStreamPlanCheckChildren(Oid relid, Oid reader)
{
	ListCell   *lc;
	bool		partitioned = get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE;

	/* (after DDL the statement holds what it needs: lock nothing more) */
	foreach(lc, find_all_inheritors(relid, OidIsValid(reader) ? NoLock : AccessShareLock, NULL))
	{
		Oid			child = lfirst_oid(lc);
		char		kind = get_rel_relkind(child);
		char		persistence = get_rel_persistence(child);

		if (child == relid || kind == '\0')
			continue;			/* (dropped meanwhile) */
		if ((kind == RELKIND_RELATION || kind == RELKIND_PARTITIONED_TABLE) &&
			persistence == RELPERSISTENCE_PERMANENT)
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s \"%s\" of table \"%s\" is %s",
						get_rel_relispartition(child) ? "partition" : "inheritance child",
						get_rel_name(child), get_rel_name(relid),
						kind == RELKIND_FOREIGN_TABLE ? "a foreign table" :
						persistence == RELPERSISTENCE_TEMP ? "a temporary table" :
						persistence == RELPERSISTENCE_UNLOGGED ? "an unlogged table" :
						"not an ordinary table"),
				 OidIsValid(reader) ?
				 errdetail("Streaming materialized view \"%s\" reads \"%s\" with its %s, whose rows it reads only from ordinary permanent tables.",
						   get_rel_name(reader), get_rel_name(relid),
						   partitioned ? "partitions" : "inheritance children") :
				 errdetail("A streaming materialized view reads the rows of a table's %s only from ordinary permanent tables.",
						   partitioned ? "partitions" : "inheritance children"),
				 OidIsValid(reader) ?
				 errhint("Drop the view first (see hummock_stream.jobs).") :
				 partitioned ?
				 errhint("Detach the partition, or make it an ordinary permanent table.") :
				 errhint("Read only the parent with FROM ONLY.")));
	}
}

Oid
check_relation(RangeTblEntry *rte)
{
	Relation	rel;
	Oid			relid;

	if (rte->tablesample)
		unsupported("TABLESAMPLE", false);
	relid = rte->relid;
	rel = relation_open(relid, AccessShareLock);
	if (HsAmIsHummock(rel->rd_rel->relam))
	{
		HsJobRow	job;

		/* another streaming view: read from its change log (view_source.c) */
		if (!HsCatalogReadJob(relid, &job))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("\"%s\" is a relation USING hummock but not a streaming materialized view",
							RelationGetRelationName(rel)),
					 errdetail("Streaming materialized views read ordinary tables and other streaming materialized views.")));
		if (strcmp(job.state, "created") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("streaming materialized view \"%s\" is not created yet",
							RelationGetRelationName(rel))));
		relation_close(rel, AccessShareLock);
		return relid;
	}
	/* partitioned tables and partitions: captured by row triggers (capture.c) */
	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE && !rte->inh)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("FROM ONLY partitioned table \"%s\" is not supported in a streaming materialized view",
						RelationGetRelationName(rel)),
				 errdetail("A partitioned table holds no rows of its own.")));
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
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
	/* a partitioned table is always read with its partitions */
	if (rte->inh && has_subclass(relid))
		HsStreamPlanCheckChildren(relid, InvalidOid);
	relation_close(rel, AccessShareLock);
	return relid;
}
