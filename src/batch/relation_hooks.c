/*-------------------------------------------------------------------------
 *
 * relation_hooks.c
 *	  Hooks on relations USING hummock: writes are rejected before they
 *	  run, and a dropped relation's data leaves the version with it.
 *
 * Only the streaming engine writes: INSERT, UPDATE, DELETE and MERGE into
 * a relation USING hummock are rejected in ExecutorStart (COPY FROM and
 * TRUNCATE in the utility hook), before they do anything.  The same hook
 * prepares the versions and epochs of a parallel plan's scans, which its
 * workers cannot decide once it runs (parallel_scan.c).
 *
 * Dropping a relation USING hummock removes its table from the version in
 * the dropping transaction, with the tables the drop callback names (a
 * view's state tables); their objects are then garbage for GC.
 *
 * src/batch/relation_hooks.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/tsmapi.h"

#include "access/heapam.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "catalog/storage.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "optimizer/plancat.h"
#include "pgstat.h"
#include "parser/parsetree.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/smgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "hummock_stream/batch/parallel_scan.h"
#include "hummock_stream/batch/read_epoch.h"
#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/compactor.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/user_iter.h"
#include "hummock_stream/storage/version_read.h"

static ExecutorStart_hook_type prev_executor_start = NULL;
static HsHummockDropCallback drop_callback = NULL;
static object_access_hook_type prev_object_access = NULL;

static void
hs_executor_start(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	ListCell   *lc;

	foreach(lc, stmt->resultRelations)
	{
		RangeTblEntry *rte = rt_fetch(lfirst_int(lc), stmt->rtable);

		if (rte->rtekind == RTE_RELATION && HsRelidIsHummock(rte->relid))
		{
			Relation	rel = RelationIdGetRelation(rte->relid);
			const char *what = stmt->commandType == CMD_INSERT ? "insert into" :
				stmt->commandType == CMD_UPDATE ? "update" :
				stmt->commandType == CMD_DELETE ? "delete from" : "modify";

			HsRejectWrite(rel, what);
		}
	}
	/*
	 * A streaming view is an unpopulated materialized view until its
	 * creation finishes: say so before the executor's generic error.
	 */
	if (!(eflags & (EXEC_FLAG_EXPLAIN_ONLY | EXEC_FLAG_WITH_NO_DATA)))
	{
		foreach(lc, stmt->rtable)
		{
			RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

			if (rte->rtekind == RTE_RELATION && rte->relkind == RELKIND_MATVIEW &&
				HsRelidIsHummock(rte->relid))
			{
				Relation	rel = RelationIdGetRelation(rte->relid);

				if (!RelationIsScannable(rel))
					HsRejectReadOfCreatingView(rel);
				RelationClose(rel);
			}
		}
	}
	/* a parallel plan's scans cannot decide their epochs once it runs */
	if (stmt->parallelModeNeeded && !(eflags & EXEC_FLAG_EXPLAIN_ONLY))
		HsParallelPrepare(stmt);
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

/*
 * Remove a dropped hummock relation's table (and a view's state tables)
 * from the version, at the transaction's pre-commit
 * (HsHummockCommitDeltaAtCommit): the version head's lock, which every
 * commit of every view takes, is taken only then, so a DROP inside an open
 * transaction block stops no other view.  Until then the dropped view's
 * job goes on in the barrier manager, which holds back its commits while
 * this transaction holds the job's catalog row (save_positions), and
 * forgets it once the drop commits; if the drop rolls back, nothing
 * happened.  Every table is listed, committed or not yet (a removal of a
 * table the version does not hold changes nothing): one whose first epoch
 * commits before the pre-commit goes too.
 */
static void
hs_object_access(ObjectAccessType access, Oid classId, Oid objectId,
				 int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);

	if (access == OAT_DROP && classId == RelationRelationId && subId == 0 &&
		HsRelidIsHummock(objectId))
	{
		HsVersionDelta *d;
		List	   *tables;
		ListCell   *lc;

		d = HsVersionDeltaCreate(HsHummockEnv(), HS_DELTA_REMOVE_TABLES, 0);
		tables = lappend_oid(drop_callback ? drop_callback(objectId) : NIL, objectId);
		/* a view's state tables go with it */
		foreach(lc, tables)
			HsVersionDeltaAddRemovedTable(d, (HsTableId) lfirst_oid(lc));
		HsHummockCommitDeltaAtCommit(d);
		HsVersionDeltaFree(d);
	}
}

void
HsTableAmInstallHooks(HsHummockDropCallback on_drop)
{
	drop_callback = on_drop;
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = hs_executor_start;
	prev_object_access = object_access_hook;
	object_access_hook = hs_object_access;
}
