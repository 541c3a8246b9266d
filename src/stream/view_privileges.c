/*-------------------------------------------------------------------------
 *
 * view_privileges.c
 *	  Privilege checks of streaming views (see view_privileges.h).
 *
 * src/stream/view_privileges.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/objectaddress.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"

#include "hummock_stream/stream/view_privileges.h"

static void
add_function(HsViewReads *reads, Oid funcid)
{
	if (OidIsValid(funcid) && !list_member_oid(reads->functions, funcid))
		reads->functions = lappend_oid(reads->functions, funcid);
}

/* The functions whose EXECUTE privilege Postgres checks when it runs node. */
static void
note_functions(Node *node, HsViewReads *reads)
{
	switch (nodeTag(node))
	{
		case T_FuncExpr:
			add_function(reads, ((FuncExpr *) node)->funcid);
			break;
		case T_OpExpr:
		case T_DistinctExpr:	/* same layout as OpExpr */
		case T_NullIfExpr:		/* same layout as OpExpr */
			set_opfuncid((OpExpr *) node);
			add_function(reads, ((OpExpr *) node)->opfuncid);
			break;
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			add_function(reads, ((ScalarArrayOpExpr *) node)->opfuncid);
			break;
		case T_Aggref:
			add_function(reads, ((Aggref *) node)->aggfnoid);
			break;
		case T_WindowFunc:
			add_function(reads, ((WindowFunc *) node)->winfnoid);
			break;
		default:
			break;
	}
}

static bool
collect_reads(Node *node, HsViewReads *reads)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION)
			reads->relations = lappend(reads->relations, rte);
		return false;			/* range_table_walker visits its subquery */
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, collect_reads, reads,
								 QTW_EXAMINE_RTES_BEFORE);
	note_functions(node, reads);
	return expression_tree_walker(node, collect_reads, reads);
}

HsViewReads *
HsViewReadsOf(Query *query)
{
	HsViewReads *reads = palloc0(sizeof(HsViewReads));

	(void) collect_reads((Node *) query, reads);
	return reads;
}

void
HsViewCheckPrivileges(const HsViewReads *reads, const char *view_name, bool maintaining)
{
	ListCell   *lc;
	char	   *role;
	bool		through_view;

	foreach(lc, reads->relations)
	{
		RangeTblEntry *rte = lfirst(lc);
		char	   *relname;

		/* (a table read through a Postgres view: as that view's owner) */
		if (ExecCheckRTEPerms(rte) &&
			check_enable_rls(rte->relid, rte->checkAsUser, true) != RLS_ENABLED)
			continue;
		relname = get_rel_name(rte->relid);
		if (relname == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("a relation that streaming materialized view \"%s\" reads no longer exists",
							view_name)));
		/* (whose rights read it: the view's owner, or a Postgres view's) */
		through_view = OidIsValid(rte->checkAsUser) && rte->checkAsUser != GetUserId();
		role = GetUserNameFromId(through_view ? rte->checkAsUser : GetUserId(), false);
		if (!ExecCheckRTEPerms(rte))
		{
			char		relkind = get_rel_relkind(rte->relid);

			if (!maintaining)
				aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(relkind), relname);
			/* (in Postgres's words for each kind of relation) */
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for %s %s",
							relkind == RELKIND_MATVIEW ? "materialized view" :
							relkind == RELKIND_VIEW ? "view" :
							relkind == RELKIND_FOREIGN_TABLE ? "foreign table" : "table",
							relname),
					 through_view ?
					 errdetail("Streaming materialized view \"%s\" reads \"%s\" through a view owned by role \"%s\", which may no longer read every column of it that the view uses.",
							   view_name, relname, role) :
					 errdetail("Role \"%s\" owns streaming materialized view \"%s\" and may no longer read every column of \"%s\" that the view uses.",
							   role, view_name, relname),
					 errhint("The view does not advance until its owner may read them again.")));
		}
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("row-level security applies to role \"%s\" on table \"%s\"",
						role, relname),
				 errdetail("Streaming materialized view \"%s\" reads \"%s\", and a streaming view cannot enforce row-level security policies.",
						   view_name, relname),
				 maintaining ?
				 errhint("The view does not advance while a policy applies to its owner.") :
				 errhint("Create the view as the table's owner or as a role with BYPASSRLS.")));
	}

	foreach(lc, reads->functions)
	{
		Oid			funcid = lfirst_oid(lc);
		char	   *fname;

		if (pg_proc_aclcheck(funcid, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK)
			continue;
		fname = get_func_name(funcid);
		if (fname == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("a function that streaming materialized view \"%s\" calls no longer exists",
							view_name)));
		if (!maintaining)
			aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_FUNCTION, fname);
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function %s", fname),
				 errdetail("Role \"%s\" owns streaming materialized view \"%s\", which calls it.",
						   GetUserNameFromId(GetUserId(), false), view_name),
				 errhint("The view does not advance until its owner may execute it again.")));
	}
}
