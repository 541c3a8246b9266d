/*-------------------------------------------------------------------------
 *
 * stream_ddl.c
 *	  create_materialized_view, drop_materialized_view, and what happens
 *	  when a view's relation is dropped.
 *
 * Creating a view happens in the caller's transaction:
 *
 *	1. parse and analyze the definition (Postgres's parser) and check it
 *	   (stream_plan.c);
 *	2. lock the sources (every table the query reads) in SHARE ROW
 *	   EXCLUSIVE mode, in OID order (it conflicts with every writer) and
 *	   make sure they are captured (capture.c);
 *	3. create the view's relation USING hummock, owned by the caller, and
 *	   record that it depends on the sources;
 *	4. take a fresh snapshot S0.  Every writer of a source has finished
 *	   (the lock waited for it), so each transaction either committed
 *	   before S0 (it is in S0, and in the backfill) or will write the
 *	   source after we commit (its rows reach the capture log, with a txid
 *	   S0 does not see);
 *	5. backfill: run every row of the sources in S0 through the executors,
 *	   input after input,
 *	   in chunks of epochs E0, E0+1, ... (the shared buffer may spill);
 *	   sync and commit the view's and the state tables' data at the last
 *	   epoch in this transaction;
 *	6. record the job with position S0; the barrier manager picks it up
 *	   when we commit.
 *
 * So when the call's transaction commits, the view is readable at its
 * first epoch, which is its query at S0.
 *
 * src/stream/stream_ddl.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/analyze.h"
#include "parser/scansup.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/timestamp.h"
#include "nodes/readfuncs.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/regproc.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "rewrite/rewriteHandler.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"

#include "hummock_stream/meta/barrier_msg.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/stream/backfill.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/compute_worker.h"
#include "hummock_stream/stream/job_stats.h"
#include "hummock_stream/stream/stream_ddl.h"
#include "hummock_stream/stream/stream_job.h"
#include "hummock_stream/stream/view_settings.h"
#include "hummock_stream/stream/view_source.h"
#include "hummock_stream/stream/view_create.h"
#include "hummock_stream/stream/view_options.h"

PG_FUNCTION_INFO_V1(hummock_stream_drop_materialized_view);
PG_FUNCTION_INFO_V1(hummock_stream_rebuild);
PG_FUNCTION_INFO_V1(hummock_stream_set_change_log);

/* CREATE TABLE name (columns of plan's view) USING hummock; its OID. */
/* Spill the job's sealed data if the shared buffer is over its limit. */

/* The name of relation view; 42P01 if there is none (a regclass made from a number). */
static char *
relation_name_or_error(Oid view)
{
	char	   *name = get_rel_name(view);

	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", view)));
	return name;
}

Datum
hummock_stream_drop_materialized_view(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	char	   *name = relation_name_or_error(view);
	List	   *sources;
	ObjectAddress addr;
	ListCell   *lc;
	HsJobRow	row;

	sources = HsCatalogJobSources(view);
	/* (a view that reads no table, a constant, has no sources) */
	if (sources == NIL && !HsCatalogReadJob(view, &row))
	{
		/* (dropped by another session meanwhile) */
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("relation \"%s\" does not exist", name)));
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a streaming materialized view", name)));
	}
	if (!pg_class_ownercheck(view, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_MATVIEW, name);

	/* a creator dropping the view as it stops is waited for */
	if (HsViewCreationCancel(view))
	{
		LockRelationOid(view, AccessExclusiveLock);
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)))
			HsViewCreationAwaitExit(view);
	}
	else
	{
		/*
		 * Another session's drop may have committed since the checks: once
		 * the lock is ours, the relation is there or it is not (as DROP
		 * checks again after locking).
		 */
		LockRelationOid(view, AccessExclusiveLock);
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("relation \"%s\" does not exist", name)));
	}
	if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)))
	{
		ObjectAddressSet(addr, RelationRelationId, view);
		performDeletion(&addr, DROP_RESTRICT, 0);
		CommandCounterIncrement();
	}
	foreach(lc, sources)
		(void) HsCaptureRemoveIfUnused(lfirst_oid(lc), HS_CAPTURE_REMOVAL_TRIES);
	PG_RETURN_VOID();
}

/* How long rebuild() waits for the view's graph to stop. */
#define REBUILD_STOP_TIMEOUT_MS 60000

/*
 * Wait until the partial graph of view runs no actor and has no barrier in
 * flight: its tables then hold what it committed, and nothing else will
 * write them.
 */
static void
wait_graph_stopped(Oid view)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   REBUILD_STOP_TIMEOUT_MS);

	for (;;)
	{
		HsGraphStatus gs;

		if (db == NULL || !HsDbStateGraphStatus(db, view, &gs) ||
			(gs.n_actors == 0 && gs.inflight == 0))
			return;
		if (GetCurrentTimestamp() >= deadline)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("streaming materialized view \"%s\" did not stop within %d s",
							get_rel_name(view), REBUILD_STOP_TIMEOUT_MS / 1000),
					 errdetail("The barrier manager puts it back to what it was before the rebuild."),
					 errhint("Call hummock_stream.rebuild() again once its barrier manager runs.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * CALL hummock_stream.rebuild(view): compute the view again from what its
 * inputs hold now, in place (same relation, same downstreams), and go on
 * maintaining it from there.  This heals a view whose input once raised
 * an error (a division by zero, a failed cast) that its change replay
 * keeps raising although the offending rows are gone (the replay pushes
 * the net change, log_consolidation.c, which leaves such rows out unless
 * their images differ or the replay is too large to consolidate whole).
 *
 * It commits twice, as CREATE INDEX CONCURRENTLY does: first the job goes
 * to 'rebuilding', which stops its graph (the barrier manager no longer
 * runs it); once the graph has stopped, the new state is backfilled (a
 * snapshot S0 of its tables under ACCESS SHARE locks, so their writers go
 * on: their changes after S0 are in the capture logs, where the view goes
 * on from; its upstream views at one epoch, as at creation) and committed
 * over the old one,
 * every old row deleted, with the new positions and the job 'created'
 * again.  Downstream views see the difference in the view's change log.
 * So it cannot run inside a transaction block.
 */
Datum
hummock_stream_rebuild(PG_FUNCTION_ARGS)
{
	bool		nonatomic = fcinfo->context && IsA(fcinfo->context, CallContext) &&
		!castNode(CallContext, fcinfo->context)->atomic;

	if (!nonatomic)
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("hummock_stream.rebuild() cannot run inside a transaction block"),
				 errhint("CALL it on its own.")));
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the view to rebuild cannot be null")));
	HsRebuildView(PG_GETARG_OID(0), true);
	PG_RETURN_VOID();
}

static void rebuild_steps(Oid view, const char *name, bool notice);

void
HsRebuildView(Oid view, bool notice)
{
	HsJobRow	row;
	char	   *name = relation_name_or_error(view);

	if (!HsCatalogReadJob(view, &row))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a streaming materialized view", name)));
	if (!pg_class_ownercheck(view, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_MATVIEW, name);
	if (strcmp(row.state, "creating") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("streaming materialized view \"%s\" is being created", name)));

	/*
	 * 1. stop the view's graph, holding the lock that tells the barrier
	 * manager the rebuild is alive (a rebuild that ends any other way than
	 * below leaves the view 'rebuilding': the manager resumes it)
	 */
	HsCatalogRebuildBegin(view);
	PG_TRY();
	{
		rebuild_steps(view, name, notice);
	}
	PG_CATCH();
	{
		HsCatalogRebuildEnd(view);
		PG_RE_THROW();
	}
	PG_END_TRY();
	HsCatalogRebuildEnd(view);
}

/* The two transactions of a rebuild (HsRebuildView). */
static void
rebuild_steps(Oid view, const char *name, bool notice)
{
	HsJobRow	row;
	List	   *sources;
	Snapshot	s0;
	HsStreamStore store;
	HsStreamJob *job;
	HsEpoch		view_epoch;
	HsEpoch		epoch;
	HsUserContext as_owner;
	char	   *position;

	SPI_connect_ext(SPI_OPT_NONATOMIC);
	HsCatalogSetState(view, "rebuilding");
	HsWakeManagerOnCommit();
	SPI_commit();
	wait_graph_stopped(view);

	/* 2. the new state, over the old one */
	if (!HsCatalogReadJob(view, &row))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("streaming materialized view \"%s\" was dropped", name)));
	sources = HsCatalogJobSources(view);

	/*
	 * Capture has been on the sources since the view was created, so every
	 * change S0 does not show is in their logs, whoever wrote it: readers'
	 * locks are enough (a TRUNCATE or ALTER TABLE waits), writers go on.
	 */
	HsViewLockSourcesShared(sources);
	s0 = RegisterSnapshot(GetLatestSnapshot());
	position = HsBackfillSnapshotText(s0);

	memset(&store, 0, sizeof(store));
	memset(&store, 0, sizeof(store));
	store.env = HsEnvPgForContext(CurrentMemoryContext);
	store.shared_buffer = HsSharedBufferCreate(store.env,
											   (size_t) hs_shared_buffer_size_kb * 1024);
	store.version = HsHummockPinnedVersion(HS_EPOCH_MAX);
	view_epoch = HsBackfillUpstreamEpoch(sources, &store.version);
	store.cache = HsHummockSstCache();
	store.epoch = HsEpochNow();
	{
		HsEpoch		committed;

		/* above everything the view committed */
		if (HsVersionCommittedEpoch(store.version, (HsTableId) view, &committed) &&
			store.epoch <= committed)
			store.epoch = committed + 1;
	}
	HsSwitchToUser(HsStreamJobOwner(view), &as_owner);
	HsViewSettingsApply(row.settings);
	HsViewCheckPrivileges(HsViewReadsOf((Query *) stringToNode(row.query_tree)), name, false);
	/* a log the view keeps (or must start) gets the rebuild as an entry */
	job = HsStreamJobCreate(view, (Query *) stringToNode(row.query_tree), row.state_tables,
							row.n_state_tables, row.state_roles, &store,
							row.keeps_log ||
							HsVersionChangeLog(store.version, (HsTableId) view) != NULL,
							CurrentMemoryContext);
	epoch = HsBackfillAndCommit(job, s0, view_epoch, true);
	HsRestoreUser(&as_owner);
	/* the state is now this version's plan's (stream_job.c checks it) */
	HsCatalogSetPlanOutline(view, job->plan->operators, job->plan->state_roles);
	UnregisterSnapshot(s0);
	HsVersionUnref(store.version);
	HsStreamJobFree(job);
	HsSharedBufferDestroy(store.shared_buffer);

	HsCatalogSetPosition(view, position, view_epoch);
	HsCatalogSetState(view, "created");
	HsWakeManagerOnCommit();
	if (notice)
		ereport(NOTICE,
				(errmsg("streaming materialized view \"%s\" was rebuilt at epoch " UINT64_FORMAT,
						name, (uint64) epoch)));
	SPI_commit();
	SPI_finish();
}

/*
 * REFRESH MATERIALIZED VIEW of a materialized view USING hummock: a
 * streaming view is rebuilt (as hummock_stream.rebuild(), outside a
 * transaction block); one that is not streaming yet (created WITH NO
 * DATA, as pg_dump's script creates it) becomes a streaming view of its
 * query, backfilled in this transaction.  False if relid is not USING
 * hummock (Postgres refreshes it).
 */
bool
HsRefreshMaterializedView(RefreshMatViewStmt *stmt, bool is_top_level)
{
	Oid			relid = RangeVarGetRelidExtended(stmt->relation, ShareUpdateExclusiveLock, 0,
												 NULL, NULL);
	char	   *name = get_rel_name(relid);
	HsJobRow	row;

	if (!HsRelidIsHummock(relid) || get_rel_relkind(relid) != RELKIND_MATVIEW)
		return false;
	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_MATVIEW, name);
	if (stmt->skipData)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("REFRESH MATERIALIZED VIEW ... WITH NO DATA is not supported for streaming materialized view \"%s\"",
						name),
				 errdetail("A streaming materialized view is maintained from its sources; it is never left unpopulated."),
				 errhint("Drop it with DROP MATERIALIZED VIEW.")));
	if (HsCatalogReadJob(relid, &row))
	{
		PreventInTransactionBlock(is_top_level,
								  "REFRESH MATERIALIZED VIEW of a streaming materialized view");
		HsRebuildView(relid, false);
	}
	else
	{
		/* its query as this session reads it (the search_path deparses it) */
		Relation	rel = table_open(relid, ExclusiveLock);
		char	   *definition = pg_get_querydef(copyObject(get_view_query(rel)), false);
		Query	   *as_written;
		Query	   *query;

		table_close(rel, NoLock);
		query = HsAnalyzeViewDefinition(definition, &as_written);
		(void) HsCreateStreamingView(makeRangeVar(get_namespace_name(get_rel_namespace(relid)),
												  name, -1),
									 definition, query, as_written, relid, true,
									 HsViewStoredChangeLog(relid), HsViewStoredSettings(relid));
	}
	return true;
}

/*
 * hummock_stream.set_change_log(view, keep): whether the view keeps its
 * change log for hummock_stream.change_log() even when no view reads it.
 * Its owner only.  The log starts within two checkpoints after the commit
 * (the epochs before it are not in it); turned off, it ends at the next
 * checkpoint unless views read the view.
 */
Datum
hummock_stream_set_change_log(PG_FUNCTION_ARGS)
{
	Oid			view;
	HsJobRow	row;
	char	   *name;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the arguments of set_change_log cannot be null")));
	view = PG_GETARG_OID(0);
	name = relation_name_or_error(view);
	if (!HsCatalogReadJob(view, &row))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a streaming materialized view", name)));
	if (!pg_class_ownercheck(view, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_MATVIEW, name);
	/* one change of the view at a time (as ALTER, DROP) */
	LockRelationOid(view, ShareUpdateExclusiveLock);
	/* (the storage parameter too: shown by \d+, dumped with the view) */
	HsViewSetStorageParameters(view,
							   list_make1(makeDefElem("change_log",
													  (Node *) makeString(PG_GETARG_BOOL(1) ? "true" : "false"),
													  -1)),
							   false);
	PG_RETURN_VOID();
}

/*
 * A relation USING hummock is being dropped: if it is a view, forget its
 * job, and stop capturing the sources no other view reads at pre-commit
 * (as drop_materialized_view does at once; here the deletion that drops
 * the relation is still under way).  Returns the job's state tables (to
 * remove from the version).
 */
List *
HsStreamJobDropped(Oid relid)
{
	List	   *sources;
	List	   *tables;
	ListCell   *lc;
	bool		was_job;

	if (!HsCatalogExists())
		return NIL;				/* DROP EXTENSION: the catalog went first */
	tables = HsCatalogDeleteJob(relid, &sources, &was_job);
	/* not now: we are inside the deletion of the view's relation */
	foreach(lc, sources)
		HsCaptureRemoveAtCommit(lfirst_oid(lc));
	/* (a view with no state tables, such as a projection, has a job too) */
	if (was_job)
	{
		HsJobStatsForget(relid);
		HsWakeManagerOnCommit();
	}
	return tables;
}
