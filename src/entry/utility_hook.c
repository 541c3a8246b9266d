/*-------------------------------------------------------------------------
 *
 * utility_hook.c
 *	  ProcessUtility hook: keeps barrier managers and views in step with DDL.
 *
 *	- CREATE EXTENSION hummock_stream: take the database's shared slot and
 *	  count in it until the transaction ends (so it is not given to another
 *	  database meanwhile); warn if max_worker_processes is too low; when the
 *	  transaction commits, ask the launcher to start the database's barrier
 *	  manager (starting it earlier would let it look for an extension that
 *	  is not committed yet).
 *	- DROP EXTENSION hummock_stream: first stop the database's manager (with
 *	  its workers and compactor), which would otherwise keep committing into
 *	  the catalog being dropped (a deadlock); when the transaction commits,
 *	  remove the store's directory (pg_hummock/<db>/<extension oid>), which
 *	  no catalog refers to any more, and mark the database's shared slot
 *	  as free to give away.  If the drop fails or is rolled back, the
 *	  manager is started again.
 *	- CREATE MATERIALIZED VIEW for the hummock access method (USING hummock
 *	  or as default_table_access_method) creates a streaming view (WITH NO
 *	  DATA: checks its query and lets Postgres create it unpopulated);
 *	  REFRESH MATERIALIZED VIEW of one rebuilds a streaming view, or makes
 *	  an unpopulated one streaming (how a dump is restored); DROP
 *	  MATERIALIZED VIEW of a view being created cancels its creator first,
 *	  as DROP TABLE does (view_create.c, stream_ddl.c).
 *	- CREATE OR REPLACE VIEW of a Postgres view a streaming view reads is
 *	  refused: the streaming view keeps the expansion of its creation.
 *	- A table views read with its inheritance children or partitions
 *	  (not FROM ONLY) may get no member that is not an ordinary permanent
 *	  table, whose rows would not be captured or vanish in a crash: after
 *	  every CREATE TABLE, CREATE FOREIGN TABLE and ALTER TABLE the trees
 *	  above the table are checked as at a view's creation (source_alter.c,
 *	  HsSourceCheckTree); nor any child if a view keys its rows by its
 *	  primary key (HsSourceCheckNewChild).
 *	- ALTER TABLE of a relation USING hummock may not change its columns or
 *	  its access method (the engine writes rows in the view's shape); ALTER
 *	  TABLE of a source may not change what its views depend on, and
 *	  reshapes its capture log when it changes a column type
 *	  (source_alter.c).
 *	- Rows that enter or leave a captured partitioned table by ATTACH,
 *	  DETACH, DROP or TRUNCATE of a partition are captured as inserts or
 *	  deletes (capture.c, HsCapturePartitionMove) before the command runs,
 *	  when the user may run it (else Postgres refuses it, and nothing was
 *	  locked); DETACH ... CONCURRENTLY of a partition that holds rows, which
 *	  spans two transactions, is refused (once the first has committed the
 *	  partition is pending detach and out of the tree: capture.c).
 *	- COPY FROM STDIN into a relation USING hummock that nothing has ever
 *	  written (no committed epoch: no view's relation, nothing the test
 *	  module's test_load filled), such as a view's relation that a dump
 *	  restores, reads the rows and discards them with a WARNING, so that a
 *	  restore runs without errors (the dump has the view's rows, which
 *	  only the streaming engine may write); any other COPY FROM into such a
 *	  relation is refused.
 *	- DROP DATABASE: stop the database's manager first (a background worker
 *	  connected to the database would make the drop fail); if the drop
 *	  fails, the manager is started again; if it succeeds, the database's
 *	  object directory (pg_hummock/<db>) is removed, and when it commits the
 *	  database's shared slot is given back.
 *
 * src/entry/utility_hook.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "commands/copy.h"
#include "executor/executor.h"
#include "parser/parse_node.h"
#include "utils/acl.h"
#include "catalog/indexing.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "commands/extension.h"
#include "commands/tablecmds.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_type.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"

#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/entry/database_commands.h"
#include "hummock_stream/entry/utility_hook.h"
#include "hummock_stream/entry/vacuum_full.h"
#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/wal_files.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/function_replace.h"
#include "hummock_stream/stream/source_alter.h"
#include "hummock_stream/stream/stream_ddl.h"
#include "hummock_stream/stream/type_alter.h"
#include "hummock_stream/stream/view_create.h"
#include "hummock_stream/stream/view_options.h"

static ProcessUtility_hook_type prev_utility_hook = NULL;

/* What to do for this database when the current transaction commits. */
static bool start_on_commit = false;
static bool wake_on_commit = false;
static Oid	remove_store_on_commit = InvalidOid;	/* extension oid */
static bool restart_on_abort = false;	/* we stopped the manager */
static bool create_pending = false; /* we count in the slot's pending_creates */
static HsCreateClaim create_claim;
static Oid	dropped_db_on_commit = InvalidOid;
static bool wake_launcher_on_commit = false;	/* a database with a store created */
static Oid	restart_db_at_end = InvalidOid;	/* its manager stopped for a command */
static bool xact_callback_registered = false;

/*
 * The subtransaction whose statement set the flags above (and what it set
 * is undone if it aborts: a DROP EXTENSION that failed under a savepoint
 * must neither remove the store nor leave the manager stopped when the
 * transaction commits).
 */
static SubTransactionId flags_subid = InvalidSubTransactionId;

static void
utility_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT)
	{
		if (start_on_commit || OidIsValid(remove_store_on_commit))
		{
			HsDbState  *db = HsDbStateGet(MyDatabaseId, false);

			if (db)
				HsDbStateNewIncarnation(db);
		}
		if (create_pending)
			HsDbStateCreateEnded(MyDatabaseId, true, create_claim);
		if (OidIsValid(remove_store_on_commit))
			HsDbStateExtensionDropped(MyDatabaseId);
		if (start_on_commit)
			HsDbStateRequestStart(MyDatabaseId);
		if (wake_on_commit)
			HsDbStateWakeManager(MyDatabaseId);
		if (OidIsValid(remove_store_on_commit))
		{
			char		dir[MAXPGPATH];
			struct stat sb;

			HsHummockObjectDir(MyDatabaseId, remove_store_on_commit, dir, sizeof(dir));
			if (stat(dir, &sb) == 0)
				HsWalLogRemoveTree(dir);
			if (stat(dir, &sb) == 0 && !rmtree(dir, true))
				ereport(WARNING,
						(errmsg("could not remove hummock_stream objects in \"%s\"", dir)));
		}
		if (OidIsValid(dropped_db_on_commit))
			HsDbStateDatabaseDropped(dropped_db_on_commit);
		if (wake_launcher_on_commit)
			HsLauncherWake();
	}
	if (event == XACT_EVENT_ABORT)
	{
		if (create_pending)
			HsDbStateCreateEnded(MyDatabaseId, false, create_claim);
		if (restart_on_abort)
			HsDbStateRequestStart(MyDatabaseId);
	}
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT)
	{
		if (OidIsValid(restart_db_at_end))
			HsDbStateRequestStart(restart_db_at_end);
		restart_db_at_end = InvalidOid;
		start_on_commit = false;
		wake_on_commit = false;
		remove_store_on_commit = InvalidOid;
		restart_on_abort = false;
		create_pending = false;
		dropped_db_on_commit = InvalidOid;
		wake_launcher_on_commit = false;
		flags_subid = InvalidSubTransactionId;
	}
}

static void
utility_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	if (flags_subid == InvalidSubTransactionId || flags_subid < mySubid)
		return;
	if (event == SUBXACT_EVENT_COMMIT_SUB && flags_subid == mySubid)
		flags_subid = parentSubid;	/* the parent's now */
	else if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		if (restart_on_abort)
			HsDbStateRequestStart(MyDatabaseId);
		if (OidIsValid(restart_db_at_end))
			HsDbStateRequestStart(restart_db_at_end);
		restart_db_at_end = InvalidOid;
		if (create_pending)
			HsDbStateCreateEnded(MyDatabaseId, false, create_claim);
		start_on_commit = false;
		remove_store_on_commit = InvalidOid;
		restart_on_abort = false;
		create_pending = false;
		flags_subid = InvalidSubTransactionId;
	}
}

static void
remember_for_commit(bool start, bool wake)
{
	if (!xact_callback_registered)
	{
		RegisterXactCallback(utility_xact_callback, NULL);
		RegisterSubXactCallback(utility_subxact_callback, NULL);
		xact_callback_registered = true;
	}
	start_on_commit |= start;
	wake_on_commit |= wake;
	if (start || OidIsValid(remove_store_on_commit) || restart_on_abort || create_pending)
		flags_subid = GetCurrentSubTransactionId();
}

/* Ask for dboid's manager again when the transaction (or subtransaction) ends. */
static void
restart_at_end(Oid dboid)
{
	remember_for_commit(false, false);
	restart_db_at_end = dboid;
	flags_subid = GetCurrentSubTransactionId();
}

static bool
drops_our_extension(DropStmt *stmt)
{
	ListCell   *lc;

	if (stmt->removeType != OBJECT_EXTENSION)
		return false;
	foreach(lc, stmt->objects)
	{
		if (strcmp(strVal(lfirst(lc)), HS_EXTENSION_NAME) == 0)
			return true;
	}
	return false;
}

/* Is name one of the capture triggers (capture.c)? */
static bool
is_capture_trigger(const char *name)
{
	return name != NULL && strncmp(name, "hummock_stream_capture", 22) == 0;
}

/*
 * May the user move the rows of partition part out of (or into) its tree:
 * for ATTACH and DETACH own both the partitioned table (parent) and the
 * partition, as ALTER TABLE requires; for a DROP own the partition; for a
 * TRUNCATE hold its privilege?  If not, the command fails its own check,
 * and nothing is locked or captured first.
 */
static bool
may_move_rows(Oid parent, Oid part, bool truncate)
{
	if (truncate)
		return pg_class_aclcheck(part, GetUserId(), ACL_TRUNCATE) == ACLCHECK_OK;
	if (OidIsValid(parent) && !pg_class_ownercheck(parent, GetUserId()))
		return false;
	return pg_class_ownercheck(part, GetUserId());
}

/*
 * Does a statement that names the tables named (OIDs) remove the rows of
 * partition relid with a table above it, so that only that one's rows are
 * captured?
 */
static bool
removed_with_ancestor(Oid relid, List *named)
{
	ListCell   *la;

	foreach(la, get_partition_ancestors(relid))
		if (list_member_oid(named, lfirst_oid(la)))
			return true;
	return false;
}

/* The OIDs of the relations a DROP or TRUNCATE names (InvalidOid: none). */
static List *
named_relations(List *objects, bool rangevars)
{
	List	   *named = NIL;
	ListCell   *lc;

	foreach(lc, objects)
		named = lappend_oid(named,
							RangeVarGetRelid(rangevars ? lfirst(lc) :
											 makeRangeVarFromNameList(lfirst(lc)),
											 NoLock, true));
	return named;
}

/*
 * The tables and partitioned tables of this database in schema nsp, or
 * (nsp invalid) owned by role, appended to out.
 */
static List *
tables_of(List *out, Oid nsp, Oid role)
{
	Relation	pg_class_rel = table_open(RelationRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	if (OidIsValid(nsp))
		ScanKeyInit(&key, Anum_pg_class_relnamespace, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(nsp));
	else
		ScanKeyInit(&key, Anum_pg_class_relowner, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(role));
	scan = systable_beginscan(pg_class_rel, InvalidOid, false, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_class c = (Form_pg_class) GETSTRUCT(tup);

		if (c->relkind == RELKIND_RELATION || c->relkind == RELKIND_PARTITIONED_TABLE)
			out = list_append_unique_oid(out, c->oid);
	}
	systable_endscan(scan);
	table_close(pg_class_rel, AccessShareLock);
	return out;
}

/*
 * The tables a DROP SCHEMA (of the schemas named) or a DROP OWNED (of the
 * roles named) drops, where the user may run it (else the command fails
 * its own check, and nothing is captured first): partitions and
 * inheritance children of captured tables elsewhere among them lose their
 * rows, which are captured as DROP TABLE of each would.
 */
static void
capture_tables_dropped(Node *stmt)
{
	List	   *tables = NIL;
	ListCell   *lc;

	if (IsA(stmt, DropStmt))
		foreach(lc, ((DropStmt *) stmt)->objects)
		{
			Oid			nsp = get_namespace_oid(strVal(lfirst(lc)), true);

			if (OidIsValid(nsp) && pg_namespace_ownercheck(nsp, GetUserId()))
				tables = tables_of(tables, nsp, InvalidOid);
		}
	else
		foreach(lc, ((DropOwnedStmt *) stmt)->roles)
		{
			Oid			role = get_rolespec_oid(lfirst(lc), true);

			if (OidIsValid(role) && has_privs_of_role(GetUserId(), role))
				tables = tables_of(tables, InvalidOid, role);
		}
	foreach(lc, tables)
		if (get_rel_relispartition(lfirst_oid(lc)) &&
			!removed_with_ancestor(lfirst_oid(lc), tables))
			HsCapturePartitionMove(get_partition_parent(lfirst_oid(lc), true),
								   AccessExclusiveLock, lfirst_oid(lc), false);
	HsCaptureInheritanceDrop(tables);
}

/*
 * The captured source whose capture trigger (named trigger, or any: NULL)
 * on relid a statement would change, or InvalidOid if it may.
 */
static Oid
capture_trigger_source(Oid relid, const char *trigger)
{
	if (HsCaptureSettingUp())
		return InvalidOid;		/* capture.c's own statements */
	if (trigger != NULL && HsCaptureTriggerIsStale(relid, trigger))
		return InvalidOid;		/* a restored dump's, which does nothing */
	return HsCaptureSourceAbove(relid);
}

/*
 * Refuse to disable, re-enable in another mode, drop or rename a capture
 * trigger of relid while it (or a table above it in its partition tree)
 * is captured: capture would stop, or fire twice, without any error.
 */
static void
refuse_capture_trigger_change(Oid relid, const char *trigger, const char *what)
{
	Oid			source = capture_trigger_source(relid, trigger);

	if (!OidIsValid(source))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 trigger ?
			 errmsg("cannot %s trigger \"%s\" on table \"%s\"", what, trigger, get_rel_name(relid)) :
			 errmsg("cannot %s all triggers of table \"%s\"", what, get_rel_name(relid)),
			 errdetail("Streaming materialized views read \"%s\": its capture triggers follow every change of it.",
					   get_rel_name(source)),
			 trigger ?
			 errhint("Drop the views first (see hummock_stream.jobs).") :
			 errhint("Name the other triggers one by one, or drop the views first (see hummock_stream.jobs).")));
}

/* Does stmt change the row type of its table (its columns' names aside)? */
static bool
alters_row_type(AlterTableStmt *stmt)
{
	ListCell   *lc;

	if (stmt->objtype != OBJECT_TABLE && stmt->objtype != OBJECT_FOREIGN_TABLE)
		return false;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst(lc);

		if (cmd->subtype == AT_AddColumn || cmd->subtype == AT_DropColumn ||
			cmd->subtype == AT_AlterColumnType)
			return true;
	}
	return false;
}

/*
 * ALTER TABLE may not switch a capture trigger off, nor change the columns
 * of a relation USING hummock (nor its access method): the streaming
 * engine writes rows shaped by the view's query, and the rows already
 * stored keep their old shape.  Nor may it attach a source as a partition
 * (its capture triggers do not see rows routed by the parent), nor change
 * what the views of a source depend on (source_alter.c).  Returns what
 * must be done after the statement (HsSourceAlterDone), or NULL.
 */
static void *
check_alter_table(AlterTableStmt *stmt, List **relatives)
{
	Oid			relid;
	ListCell   *lc;

	if (stmt->relation == NULL)
		return NULL;
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	if (!OidIsValid(relid))
		return NULL;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst(lc);

		switch (cmd->subtype)
		{
			case AT_EnableTrig:
			case AT_EnableAlwaysTrig:
			case AT_EnableReplicaTrig:
			case AT_DisableTrig:
				if (is_capture_trigger(cmd->name))
					refuse_capture_trigger_change(relid, cmd->name,
												  cmd->subtype == AT_DisableTrig ? "disable" : "change");
				break;
			case AT_EnableTrigAll:
			case AT_DisableTrigAll:
			case AT_EnableTrigUser:
			case AT_DisableTrigUser:
				refuse_capture_trigger_change(relid, NULL,
											  (cmd->subtype == AT_DisableTrigAll ||
											   cmd->subtype == AT_DisableTrigUser) ?
											  "disable" : "enable");
				break;
			case AT_ChangeOwner:
				HsSourceCheckAlterView(relid, "change the owner of");
				break;
			case AT_SetRelOptions:
			case AT_ResetRelOptions:
			case AT_ReplaceRelOptions:
				{
					ListCell   *ld;

					foreach(ld, (List *) cmd->def)
						if (strcmp(((DefElem *) lfirst(ld))->defname, "security_invoker") == 0)
							HsSourceCheckAlterView(relid, "change security_invoker of");
				}
				break;
			case AT_SetAccessMethod:
				/* (its rows would be rewritten into a relation that refuses writes) */
				if (cmd->name != NULL && strcmp(cmd->name, HS_TABLEAM_NAME) == 0 &&
					!HsRelidIsHummock(relid))
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("cannot change the access method of \"%s\" to %s",
									get_rel_name(relid), HS_TABLEAM_NAME),
							 errdetail("Relations USING %s are written only by the streaming engine.",
									   HS_TABLEAM_NAME),
							 errhint("Create a streaming materialized view over the table instead.")));
				break;
			default:
				break;
		}
	}
	if (!HsRelidIsHummock(relid))
	{
		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = lfirst(lc);

			if (cmd->subtype == AT_AttachPartition)
			{
				/* rows routed through the parent would miss its triggers */
				Oid			part = RangeVarGetRelid(((PartitionCmd *) cmd->def)->name, NoLock, true);

				if (OidIsValid(part) && OidIsValid(HsCatalogCaptureLogOf(part)) &&
					!get_rel_relispartition(part) &&
					get_rel_relkind(part) == RELKIND_RELATION)
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("cannot attach table \"%s\" as a partition because streaming materialized views read it",
									get_rel_name(part)),
							 errdetail("Rows written through the partitioned table would not be captured."),
							 errhint("Drop the views first (see hummock_stream.jobs).")));
				/* its rows enter the captured tables above: inserts */
				if (OidIsValid(part) && may_move_rows(relid, part, false))
					HsCapturePartitionMove(relid, ShareUpdateExclusiveLock, part, true);
				continue;
			}
			if (cmd->subtype == AT_AddInherit || cmd->subtype == AT_DropInherit)
			{
				Oid			parent = RangeVarGetRelid((RangeVar *) cmd->def, NoLock, true);

				if (cmd->subtype == AT_AddInherit)
					HsSourceCheckNewChild(parent);
				/* their trees change: capture follows (HsCaptureFollowInheritance) */
				*relatives = lappend_oid(lappend_oid(*relatives, parent), relid);
				continue;
			}
			if (cmd->subtype == AT_DetachPartition)
			{
				PartitionCmd *pc = (PartitionCmd *) cmd->def;
				Oid			part = RangeVarGetRelid(pc->name, NoLock, true);

				/* its rows leave the captured tables above: deletes */
				if (OidIsValid(part) && pc->concurrent)
					HsCaptureCheckPartitionMove(relid, part, "detach concurrently");
				else if (OidIsValid(part) && may_move_rows(relid, part, false))
					HsCapturePartitionMove(relid, AccessExclusiveLock, part, false);
				continue;
			}
		}
		/* columns and keys the views of relid depend on (source_alter.c) */
		return HsSourceAlterBegin(relid, stmt);
	}
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst(lc);
		const char *what;

		switch (cmd->subtype)
		{
			case AT_AddColumn:
			case AT_AddColumnRecurse:
				what = "add a column to";
				break;
			case AT_DropColumn:
			case AT_DropColumnRecurse:
				what = "drop a column of";
				break;
			case AT_AlterColumnType:
				what = "change a column type of";
				break;
			case AT_SetAccessMethod:
				what = "change the access method of";
				break;
			case AT_SetRelOptions:
			case AT_ResetRelOptions:
			case AT_ReplaceRelOptions:
				/* (as at creation: a dump carries them into its CREATE) */
				HsViewCheckStorageParameters((List *) cmd->def, get_rel_name(relid),
											 cmd->subtype == AT_ResetRelOptions);
				/* (alone, they were set by alter_storage_parameters) */
				if (HsViewChangeLogParameter((List *) cmd->def, NULL) ||
					HsViewStoredChangeLog(relid))
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("cannot set the storage parameters of streaming materialized view \"%s\" together with other changes",
									get_rel_name(relid)),
							 errhint("Set them in an ALTER statement of their own.")));
				continue;
			default:
				continue;
		}
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot %s relation \"%s\"", what, get_rel_name(relid)),
				 errdetail("The streaming engine writes the rows of a relation USING hummock in the shape its view's query gives them."),
				 errhint("Drop the view and create it again with the new query.")));
	}
	return NULL;
}

/* Has a relation USING hummock committed anything (a view always has)? */
static bool
hummock_relation_written(Oid relid)
{
	HsVersion  *v = HsHummockCurrentVersion();
	HsEpoch		e;
	bool		written = HsVersionCommittedEpoch(v, (HsTableId) relid, &e);

	HsVersionUnref(v);
	return written;
}

/*
 * COPY relid FROM STDIN for a relation USING hummock that nothing wrote:
 * read every row (so the client's data is consumed and checked as COPY
 * would) and discard it, with a WARNING.
 */
static void
copy_discarding(CopyStmt *stmt, Oid relid, const char *queryString, QueryCompletion *qc)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	ParseState *pstate = make_parsestate(NULL);
	EState	   *estate = CreateExecutorState();
	ExprContext *econtext = GetPerTupleExprContext(estate);
	int			natts = RelationGetDescr(rel)->natts;
	Datum	   *values = palloc(sizeof(Datum) * Max(natts, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(natts, 1));
	AclResult	acl = pg_class_aclcheck(relid, GetUserId(), ACL_INSERT);
	CopyFromState cstate;
	ErrorContextCallback errcallback;
	uint64		n = 0;

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, get_relkind_objtype(rel->rd_rel->relkind), RelationGetRelationName(rel));
	pstate->p_sourcetext = queryString;
	cstate = BeginCopyFrom(pstate, rel, NULL, NULL, false, NULL, stmt->attlist, stmt->options);
	/* errors name the line and column, as COPY's do */
	errcallback.callback = CopyFromErrorCallback;
	errcallback.arg = (void *) cstate;
	errcallback.previous = error_context_stack;
	error_context_stack = &errcallback;
	while (NextCopyFrom(cstate, econtext, values, nulls))
	{
		CHECK_FOR_INTERRUPTS();
		ResetPerTupleExprContext(estate);
		n++;
	}
	error_context_stack = errcallback.previous;
	EndCopyFrom(cstate);
	FreeExecutorState(estate);
	free_parsestate(pstate);
	ereport(WARNING,
			(errcode(ERRCODE_WARNING),
			 errmsg_plural("%llu row copied into relation \"%s\" was discarded",
						   "%llu rows copied into relation \"%s\" were discarded",
						   (unsigned long) n, (unsigned long long) n,
						   RelationGetRelationName(rel)),
			 errdetail("\"%s\" is a relation USING hummock that no streaming materialized view maintains (such as a view's relation restored from a dump); only the streaming engine writes such relations.",
					   RelationGetRelationName(rel)),
			 errhint("Drop it and create the view again with hummock_stream.create_materialized_view().")));
	table_close(rel, NoLock);
	if (qc)
		SetQueryCompletion(qc, CMDTAG_COPY, 0);
}

/*
 * CREATE MATERIALIZED VIEW ... USING hummock WITH (...) that Postgres
 * creates (WITH NO DATA, as a dump restores a view): the statement to run
 * instead, without our storage parameters, which Postgres would refuse
 * (NULL if it names none); *ours: them, to store once the view is made
 * (NIL if it is not made: IF NOT EXISTS of a relation that exists).
 */
static PlannedStmt *
without_our_parameters(PlannedStmt *pstmt, List **ours)
{
	CreateTableAsStmt *ctas = (CreateTableAsStmt *) pstmt->utilityStmt;
	const char *am = ctas->into->accessMethod ? ctas->into->accessMethod :
		default_table_access_method;
	PlannedStmt *run;

	if (ctas->objtype != OBJECT_MATVIEW || am == NULL || strcmp(am, HS_TABLEAM_NAME) != 0 ||
		HsViewOurParameters(ctas->into->options) == NIL)
		return NULL;
	HsViewCheckStorageParameters(ctas->into->options, ctas->into->rel->relname, false);
	run = copyObject(pstmt);
	ctas = (CreateTableAsStmt *) run->utilityStmt;
	if (!OidIsValid(get_relname_relid(ctas->into->rel->relname,
									  RangeVarGetCreationNamespace(ctas->into->rel))))
		*ours = HsViewOurParameters(ctas->into->options);
	ctas->into->options = HsViewHeapParameters(ctas->into->options);
	return run;
}

/* Store ours (without_our_parameters) for the view rv names. */
static void
store_our_parameters(const RangeVar *rv, List *ours)
{
	Oid			view = get_relname_relid(rv->relname, RangeVarGetCreationNamespace(rv));

	if (OidIsValid(view))
		HsViewSetStorageParameters(view, ours, false);
}

/*
 * pg_upgrade's server (binary upgrade mode) runs none of the extension
 * but this: the dump it restores creates each view WITH NO DATA, with its
 * storage parameters.
 */
static void
hs_upgrade_process_utility(PlannedStmt *pstmt, const char *queryString,
						   bool readOnlyTree, ProcessUtilityContext context,
						   ParamListInfo params, QueryEnvironment *queryEnv,
						   DestReceiver *dest, QueryCompletion *qc)
{
	PlannedStmt *run = NULL;
	List	   *ours = NIL;

	if (IsA(pstmt->utilityStmt, CreateTableAsStmt))
		run = without_our_parameters(pstmt, &ours);
	if (prev_utility_hook)
		prev_utility_hook(run ? run : pstmt, queryString, readOnlyTree, context, params,
						  queryEnv, dest, qc);
	else
		standard_ProcessUtility(run ? run : pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
	if (ours != NIL)
		store_our_parameters(((CreateTableAsStmt *) run->utilityStmt)->into->rel, ours);
}

/*
 * ALTER MATERIALIZED VIEW (or TABLE) v SET/RESET (...) of a streaming
 * view, with nothing else in the statement: set here (view_options.c),
 * since Postgres's own ALTER would refuse change_log.  False if the
 * statement is not that.
 */
static bool
alter_storage_parameters(AlterTableStmt *stmt, QueryCompletion *qc)
{
	Oid			relid;
	ListCell   *lc;

	if (stmt->relation == NULL ||
		(stmt->objtype != OBJECT_MATVIEW && stmt->objtype != OBJECT_TABLE))
		return false;
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	if (!OidIsValid(relid) || !HsRelidIsHummock(relid) ||
		get_rel_relkind(relid) != RELKIND_MATVIEW)
		return false;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst(lc);

		if (cmd->subtype != AT_SetRelOptions && cmd->subtype != AT_ResetRelOptions)
			return false;
	}
	/* (Postgres's lock for these parameters, and its ownership check) */
	relid = RangeVarGetRelidExtended(stmt->relation, ShareUpdateExclusiveLock,
									 stmt->missing_ok ? RVR_MISSING_OK : 0,
									 RangeVarCallbackOwnsRelation, NULL);
	if (!OidIsValid(relid))
		return false;			/* (gone meanwhile: Postgres says so) */
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst(lc);

		HsViewSetStorageParameters(relid, (List *) cmd->def,
								   cmd->subtype == AT_ResetRelOptions);
	}
	if (qc)
		SetQueryCompletion(qc, stmt->objtype == OBJECT_MATVIEW ?
						   CMDTAG_ALTER_MATERIALIZED_VIEW : CMDTAG_ALTER_TABLE, 0);
	return true;
}

static void
hs_process_utility(PlannedStmt *pstmt, const char *queryString,
				   bool readOnlyTree, ProcessUtilityContext context,
				   ParamListInfo params, QueryEnvironment *queryEnv,
				   DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	PlannedStmt *volatile run = pstmt;	/* what runs: pstmt, or an edited copy */
	volatile Oid dropped_db = InvalidOid;
	volatile bool creates_ours = false;
	void	   *volatile source_alter = NULL;
	void	   *volatile function_change = NULL;
	volatile Oid renamed = InvalidOid;
	volatile bool renamed_any = false;	/* a schema, view or function */
	List	   *volatile relatives = NIL;	/* tables joining an inheritance tree */
	RangeVar   *volatile tree_member = NULL;	/* a table whose tree is checked */
	volatile Oid dropping_ext = InvalidOid; /* DROP EXTENSION of ours */
	List	   *volatile created_with_ours = NIL;	/* a view WITH (change_log ...) */
	volatile Oid enum_added = InvalidOid;	/* ALTER TYPE ... ADD VALUE */
	List	   *volatile enum_positions = NIL;	/* its labels' positions before */
	volatile Oid paused_db = InvalidOid;	/* a database command's, stopped */
	ListCell   *lc_rel;

	/*
	 * (Each of the next two acts only where Postgres will let the statement
	 * do what it says, checked first as Postgres will: an ordinary role's
	 * refused DROP EXTENSION, caught under a savepoint, stopped every view
	 * and removed the store when its transaction committed.)
	 */
	if (IsA(parsetree, CreateExtensionStmt) &&
		strcmp(((CreateExtensionStmt *) parsetree)->extname, HS_EXTENSION_NAME) == 0 &&
		superuser() && !OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)))
	{
		/*
		 * Take this database's shared slot now: if none is left, this is an
		 * ordinary error, not one raised while committing.  Until the
		 * transaction ends the slot counts us, so it is not given away.
		 */
		if (!create_pending)
		{
			remember_for_commit(false, false);
			create_claim = HsDbStateCreateBegin(MyDatabaseId);
			create_pending = true;
		}
		HsHummockForgetIncarnation();
		remember_for_commit(true, false);
		creates_ours = true;
	}
	else if (IsA(parsetree, DropStmt) && drops_our_extension((DropStmt *) parsetree) &&
			 OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) &&
			 pg_extension_ownercheck(get_extension_oid(HS_EXTENSION_NAME, true), GetUserId()))
	{
		/* the store goes only once the drop itself succeeded (below) */
		dropping_ext = get_extension_oid(HS_EXTENSION_NAME, true);
		HsHummockForgetIncarnation();
		HsDbStateStopManager(MyDatabaseId, 10000);
		restart_on_abort = true;
		remember_for_commit(false, false);
	}
	else if (IsA(parsetree, DropStmt) && ((DropStmt *) parsetree)->removeType == OBJECT_TRIGGER)
	{
		ListCell   *lc;

		/* objects: (schema, table, trigger) name lists */
		foreach(lc, ((DropStmt *) parsetree)->objects)
		{
			List	   *names = lfirst(lc);
			char	   *trigger = strVal(llast(names));
			Oid			relid;

			if (!is_capture_trigger(trigger))
				continue;
			relid = RangeVarGetRelid(makeRangeVarFromNameList(list_truncate(list_copy(names),
																		   list_length(names) - 1)),
									 NoLock, true);
			if (!OidIsValid(relid))
				continue;

			/*
			 * DROP TRIGGER IF EXISTS (a clean-up script's, pg_restore
			 * --clean --if-exists dropping what it will create again) of a
			 * live one: kept, with a notice; it goes with the views (or the
			 * table, which such a script drops next).
			 */
			if (((DropStmt *) parsetree)->missing_ok &&
				list_length(((DropStmt *) parsetree)->objects) == 1 &&
				OidIsValid(capture_trigger_source(relid, trigger)))
			{
				ereport(NOTICE,
						(errmsg("trigger \"%s\" on table \"%s\" is kept, skipping",
								trigger, get_rel_name(relid)),
						 errdetail("Streaming materialized views read \"%s\": its capture triggers follow every change of it until they are dropped.",
								   get_rel_name(capture_trigger_source(relid, trigger)))));
				if (qc)
					SetQueryCompletion(qc, CMDTAG_DROP_TRIGGER, 0);
				return;
			}
			refuse_capture_trigger_change(relid, trigger, "drop");
		}
	}
	else if (IsA(parsetree, CreateTrigStmt) && ((CreateTrigStmt *) parsetree)->replace &&
			 is_capture_trigger(((CreateTrigStmt *) parsetree)->trigname))
	{
		/* CREATE OR REPLACE TRIGGER would swap a capture trigger's function */
		Oid			relid = RangeVarGetRelid(((CreateTrigStmt *) parsetree)->relation, NoLock, true);

		if (OidIsValid(relid))
			refuse_capture_trigger_change(relid, ((CreateTrigStmt *) parsetree)->trigname, "replace");
	}
	else if (IsA(parsetree, RenameStmt) && ((RenameStmt *) parsetree)->renameType == OBJECT_TRIGGER &&
			 is_capture_trigger(((RenameStmt *) parsetree)->subname))
	{
		Oid			relid = RangeVarGetRelid(((RenameStmt *) parsetree)->relation, NoLock, true);

		if (OidIsValid(relid))
			refuse_capture_trigger_change(relid, ((RenameStmt *) parsetree)->subname, "rename");
	}
	else if (IsA(parsetree, VacuumStmt))
	{
		VacuumStmt *vacuum = HsVacuumFullWithoutHummock((VacuumStmt *) parsetree);

		if (vacuum == NULL)
		{
			if (qc)
				SetQueryCompletion(qc, CMDTAG_VACUUM, 0);
			return;
		}
		if (vacuum != (VacuumStmt *) parsetree)
		{
			PlannedStmt *edited = copyObject(pstmt);

			edited->utilityStmt = (Node *) vacuum;
			run = edited;
		}
	}
	else if (IsA(parsetree, CreateTableAsStmt))
	{
		PlannedStmt *edited;

		if (HsCreateMaterializedViewStmt((CreateTableAsStmt *) parsetree))
		{
			if (qc)
				SetQueryCompletion(qc, CMDTAG_CREATE_MATERIALIZED_VIEW, 0);
			return;
		}
		edited = without_our_parameters(pstmt, (List **) &created_with_ours);
		if (edited)
			run = edited;
	}
	else if (IsA(parsetree, RefreshMatViewStmt))
	{
		if (HsRefreshMaterializedView((RefreshMatViewStmt *) parsetree,
									  context == PROCESS_UTILITY_TOPLEVEL))
		{
			if (qc)
				SetQueryCompletion(qc, CMDTAG_REFRESH_MATERIALIZED_VIEW, 0);
			return;
		}
	}
	else if (IsA(parsetree, DropStmt) &&
			 (((DropStmt *) parsetree)->removeType == OBJECT_TABLE ||
			  ((DropStmt *) parsetree)->removeType == OBJECT_MATVIEW))
	{
		ListCell   *lc;
		List	   *kept = NIL;
		bool		vanished = false;
		List	   *named = named_relations(((DropStmt *) parsetree)->objects, false);
		List	   *done = NIL;
		List	   *owned = NIL;

		/*
		 * Tables below a captured table in an inheritance tree: their rows
		 * go, as a child's (only if the user may drop them).
		 */
		foreach(lc, named)
			if (OidIsValid(lfirst_oid(lc)) && may_move_rows(InvalidOid, lfirst_oid(lc), false))
				owned = lappend_oid(owned, lfirst_oid(lc));
		HsCaptureInheritanceDrop(owned);

		/*
		 * A view being created: its creator holds a lock DROP would wait
		 * for, so it is canceled first.  As it stops it drops the view
		 * itself unless this DROP locks the view first; a view it dropped
		 * is left out of the statement (it is dropped, as asked).
		 */
		foreach(lc, ((DropStmt *) parsetree)->objects)
		{
			RangeVar   *rv = makeRangeVarFromNameList(lfirst(lc));
			Oid			relid = RangeVarGetRelid(rv, NoLock, true);

			/*
			 * A partition of a captured partitioned table: its rows go,
			 * once, unless a table above it is dropped too (its own rows
			 * are captured then, or a view depends on it).
			 */
			if (OidIsValid(relid) && get_rel_relispartition(relid) &&
				!list_member_oid(done, relid) && !removed_with_ancestor(relid, named) &&
				may_move_rows(InvalidOid, relid, false))
				HsCapturePartitionMove(get_partition_parent(relid, true), AccessExclusiveLock,
									   relid, false);
			done = lappend_oid(done, relid);

			if (OidIsValid(relid) && HsRelidIsHummock(relid) &&
				HsViewCreationCancel(relid) &&
				!OidIsValid(RangeVarGetRelid(rv, AccessExclusiveLock, true)))
			{
				HsViewCreationAwaitExit(relid);
				vanished = true;
				continue;
			}
			kept = lappend(kept, lfirst(lc));
		}
		if (vanished && kept == NIL)
		{
			if (qc)
				SetQueryCompletion(qc, ((DropStmt *) parsetree)->removeType == OBJECT_TABLE ?
								   CMDTAG_DROP_TABLE : CMDTAG_DROP_MATERIALIZED_VIEW, 0);
			return;
		}
		if (vanished)
		{
			run = copyObject(pstmt);
			((DropStmt *) run->utilityStmt)->objects = kept;
		}
	}
	else if ((IsA(parsetree, DropStmt) &&
			  ((DropStmt *) parsetree)->removeType == OBJECT_SCHEMA) ||
			 IsA(parsetree, DropOwnedStmt))
		capture_tables_dropped(parsetree);
	else if (IsA(parsetree, TruncateStmt))
	{
		ListCell   *lc;
		List	   *named = named_relations(((TruncateStmt *) parsetree)->relations, true);
		List	   *done = NIL;

		foreach(lc, ((TruncateStmt *) parsetree)->relations)
		{
			Oid			relid = RangeVarGetRelid(lfirst(lc), NoLock, true);

			/*
			 * A partition of a captured partitioned table: its rows go (a
			 * captured table's own trigger captures its own rows), once,
			 * unless a table above it is truncated too (that covers them).
			 */
			if (OidIsValid(relid) && get_rel_relispartition(relid) &&
				!list_member_oid(done, relid) && !removed_with_ancestor(relid, named) &&
				may_move_rows(InvalidOid, relid, true))
				HsCapturePartitionMove(get_partition_parent(relid, true), AccessShareLock,
									   relid, false);
			done = lappend_oid(done, relid);	/* (named twice: once) */

			if (OidIsValid(relid) && HsRelidIsHummock(relid))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot truncate relation \"%s\"", get_rel_name(relid)),
						 errdetail("Relations USING hummock are written only by the streaming engine.")));
		}
	}
	else if (IsA(parsetree, CopyStmt) && ((CopyStmt *) parsetree)->is_from &&
			 ((CopyStmt *) parsetree)->relation != NULL)
	{
		Oid			relid = RangeVarGetRelid(((CopyStmt *) parsetree)->relation, NoLock, true);

		if (OidIsValid(relid) && HsRelidIsHummock(relid) &&
			((CopyStmt *) parsetree)->filename == NULL && !hummock_relation_written(relid))
		{
			copy_discarding((CopyStmt *) parsetree, relid, queryString, qc);
			return;
		}
		if (OidIsValid(relid) && HsRelidIsHummock(relid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot copy into relation \"%s\"", get_rel_name(relid)),
					 errdetail("Relations USING hummock are written only by the streaming engine.")));
	}
	else if (IsA(parsetree, AlterTableStmt) &&
			 ((AlterTableStmt *) parsetree)->objtype == OBJECT_TYPE)
		HsTypeAlterCheck(RangeVarGetRelid(((AlterTableStmt *) parsetree)->relation, NoLock, true));
	else if (IsA(parsetree, RenameStmt) &&
			 ((RenameStmt *) parsetree)->renameType == OBJECT_ATTRIBUTE)
		HsTypeAlterCheck(RangeVarGetRelid(((RenameStmt *) parsetree)->relation, NoLock, true));
	else if (IsA(parsetree, AlterEnumStmt) && ((AlterEnumStmt *) parsetree)->oldVal != NULL)
		HsEnumRenameCheck(typenameTypeId(NULL,
										 makeTypeNameFromNameList(((AlterEnumStmt *) parsetree)->typeName)));
	else if (IsA(parsetree, AlterEnumStmt))
	{
		enum_added = typenameTypeId(NULL,
									makeTypeNameFromNameList(((AlterEnumStmt *) parsetree)->typeName));
		enum_positions = HsEnumAddValueBegin(enum_added);
	}
	else if (IsA(parsetree, AlterTableStmt) &&
			 alter_storage_parameters((AlterTableStmt *) parsetree, qc))
		return;
	else if (IsA(parsetree, AlterTableStmt))
	{
		if (alters_row_type((AlterTableStmt *) parsetree))
			HsTypeAlterCheck(RangeVarGetRelid(((AlterTableStmt *) parsetree)->relation, NoLock, true));
		source_alter = check_alter_table((AlterTableStmt *) parsetree, (List **) &relatives);
		tree_member = ((AlterTableStmt *) parsetree)->relation;
	}
	else if (IsA(parsetree, CreateFunctionStmt) || IsA(parsetree, AlterFunctionStmt) ||
			 (IsA(parsetree, DefineStmt) && ((DefineStmt *) parsetree)->kind == OBJECT_AGGREGATE))
		function_change = HsFunctionChangeBegin(parsetree);
	else if (IsA(parsetree, ViewStmt) && ((ViewStmt *) parsetree)->replace)
		HsSourceCheckReplaceView(RangeVarGetRelid(((ViewStmt *) parsetree)->view, NoLock, true));
	else if (IsA(parsetree, ReassignOwnedStmt))
	{
		List	   *roles = NIL;
		ListCell   *lc;

		/* (an unknown role is the command's own error) */
		foreach(lc, ((ReassignOwnedStmt *) parsetree)->roles)
			roles = lappend_oid(roles, get_rolespec_oid(lfirst(lc), true));
		HsSourceCheckReassignOwned(roles);
	}
	else if ((IsA(parsetree, CreateStmt) || IsA(parsetree, CreateForeignTableStmt)) &&
			 ((CreateStmt *) parsetree)->partbound != NULL)
		tree_member = ((CreateStmt *) parsetree)->relation;
	else if (IsA(parsetree, CreateStmt) || IsA(parsetree, CreateForeignTableStmt))
	{
		ListCell   *lc;

		tree_member = ((CreateStmt *) parsetree)->relation;

		/* a new inheritance child of a table views read with its children */
		foreach(lc, ((CreateStmt *) parsetree)->inhRelations)
		{
			Oid			parent = RangeVarGetRelid(lfirst(lc), NoLock, true);

			HsSourceCheckNewChild(parent);
			relatives = lappend_oid(relatives, parent);
		}
	}
	else if (IsA(parsetree, RenameStmt) && ((RenameStmt *) parsetree)->relation &&
			 (((RenameStmt *) parsetree)->renameType == OBJECT_COLUMN ||
			  ((RenameStmt *) parsetree)->renameType == OBJECT_TABLE ||
			  ((RenameStmt *) parsetree)->renameType == OBJECT_MATVIEW))
	{
		renamed = RangeVarGetRelid(((RenameStmt *) parsetree)->relation, NoLock, true);
		if (((RenameStmt *) parsetree)->renameType == OBJECT_COLUMN)
		{
			HsTypeAlterCheck(renamed);
			HsSourceCheckColumnRename(renamed);
		}
	}
	else if (IsA(parsetree, AlterObjectSchemaStmt) && ((AlterObjectSchemaStmt *) parsetree)->relation &&
			 (((AlterObjectSchemaStmt *) parsetree)->objectType == OBJECT_TABLE ||
			  ((AlterObjectSchemaStmt *) parsetree)->objectType == OBJECT_MATVIEW))
		renamed = RangeVarGetRelid(((AlterObjectSchemaStmt *) parsetree)->relation, NoLock, true);
	else if ((IsA(parsetree, RenameStmt) &&
			  (((RenameStmt *) parsetree)->renameType == OBJECT_SCHEMA ||
			   ((RenameStmt *) parsetree)->renameType == OBJECT_VIEW ||
			   ((RenameStmt *) parsetree)->renameType == OBJECT_FUNCTION ||
			   ((RenameStmt *) parsetree)->renameType == OBJECT_AGGREGATE)) ||
			 (IsA(parsetree, AlterObjectSchemaStmt) &&
			  (((AlterObjectSchemaStmt *) parsetree)->objectType == OBJECT_VIEW ||
			   ((AlterObjectSchemaStmt *) parsetree)->objectType == OBJECT_FUNCTION ||
			   ((AlterObjectSchemaStmt *) parsetree)->objectType == OBJECT_AGGREGATE)))
		renamed_any = true;
	else if (IsA(parsetree, DropdbStmt))
	{
		dropped_db = get_database_oid(((DropdbStmt *) parsetree)->dbname, true);
		/* (only its owner's drop: Postgres refuses anyone else's) */
		if (OidIsValid(dropped_db) && !pg_database_ownercheck(dropped_db, GetUserId()))
			dropped_db = InvalidOid;
		if (OidIsValid(dropped_db))
		{
			HsDbStateCancelCreations(dropped_db);
			HsDbStateStopManager(dropped_db, 10000);
		}
	}

	/* a database that must be without connections: its manager stopped */
	paused_db = HsDatabaseCommandBegin(parsetree);

	PG_TRY();
	{
		if (prev_utility_hook)
			prev_utility_hook(run, queryString, readOnlyTree, context, params,
							  queryEnv, dest, qc);
		else
			standard_ProcessUtility(run, queryString, readOnlyTree, context,
									params, queryEnv, dest, qc);
	}
	PG_CATCH();
	{
		if (OidIsValid(dropped_db))
			HsDbStateRequestStart(dropped_db);
		if (OidIsValid(paused_db))
			restart_at_end(paused_db);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (OidIsValid(paused_db))
	{
		restart_at_end(paused_db);
		wake_launcher_on_commit = HsDatabaseCommandDone(parsetree, paused_db);
	}

	/* our extension is dropped: its store goes when the transaction commits */
	if (OidIsValid(dropping_ext))
	{
		remove_store_on_commit = dropping_ext;
		remember_for_commit(false, false);
	}

	/*
	 * The tree of every source above the table the statement created or
	 * altered holds only tables whose rows are captured, whichever way the
	 * statement changed it (source_alter.c); checked before capture
	 * follows the tree.
	 */
	if (tree_member != NULL)
		HsSourceCheckTree(RangeVarGetRelid(tree_member, NoLock, true));
	/* the labels of an enum views order by keep their positions */
	if (enum_positions != NIL)
		HsEnumAddValueDone(enum_added, enum_positions);
	/* a function views call still computes what it did */
	if (function_change)
		HsFunctionChangeDone(function_change);
	/* captured rows in the shape the ALTER TABLE gave its tables */
	if (source_alter)
		HsSourceAlterDone(source_alter);
	if (created_with_ours != NIL)
		store_our_parameters(((CreateTableAsStmt *) run->utilityStmt)->into->rel,
							 created_with_ours);
	/* sources that joined an inheritance tree: captured row by row */
	foreach(lc_rel, relatives)
		HsCaptureFollowInheritance(lfirst_oid(lc_rel));
	/* definitions that name it, deparsed again */
	if (OidIsValid(renamed))
		HsSourceRenamed(renamed);
	else if (renamed_any)
		HsSourceRenamed(InvalidOid);

	/* tell at once if the new extension's processes will lack worker slots */
	if (creates_ours)
		HsWarnIfNoWorkerSlots(InvalidOid);

	if (OidIsValid(dropped_db))
	{
		char		dir[MAXPGPATH];
		struct stat sb;

		/* its slot is given back when the drop commits */
		remember_for_commit(false, false);
		dropped_db_on_commit = dropped_db;
		snprintf(dir, sizeof(dir), "%s/%u", HS_DATA_DIR, dropped_db);
		if (stat(dir, &sb) == 0)
			HsWalLogRemoveTree(dir);
		if (stat(dir, &sb) == 0 && !rmtree(dir, true))
			ereport(WARNING,
					(errmsg("could not remove hummock_stream objects in \"%s\"", dir)));
	}
}

void
HsUtilityHookInstall(void)
{
	prev_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = hs_process_utility;
}

void
HsUtilityHookInstallForUpgrade(void)
{
	prev_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = hs_upgrade_process_utility;
}
