/*-------------------------------------------------------------------------
 *
 * view_source.c
 *	  An upstream streaming view as an input (see view_source.h).
 *
 * Rows of a view are stored as MinimalTuples of the view's row type; both
 * the table iterator and the change-log iterator hand out their bytes,
 * which are copied into aligned memory and stored in the input's slot of
 * the upstream's descriptor before they are pushed.  The copies live in a
 * scratch context reset every few hundred rows.
 *
 * src/stream/view_source.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/change_log.h"
#include "hummock_stream/storage/user_iter.h"
#include "hummock_stream/storage/version_read.h"
#include "hummock_stream/stream/stream_job.h"
#include "hummock_stream/stream/view_source.h"

/* Rows pushed between two resets of the scratch context. */
#define ROWS_PER_RESET 256

bool
HsViewSourceReady(Oid upstream, const HsVersion *v, HsEpoch epoch, HsEpoch *committed)
{
	HsEpoch		c = 0;

	(void) HsVersionCommittedEpoch(v, (HsTableId) upstream, &c);
	*committed = c;
	return c >= epoch;
}

/* ---------------------------------------------------------------------
 * Change-log requests
 * ---------------------------------------------------------------------
 */

static bool log_callback_registered = false;

/*
 * At the end of a transaction that asked for change logs: give the
 * requests back.  At commit this runs once the commit is visible, so the
 * barrier manager, which reads requests before the catalog, sees either
 * the request or the committed view that needs the log.
 */
static void
release_log_requests(XactEvent event, void *arg)
{
	HsDbState  *db;

	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT &&
		event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT)
		return;
	db = HsDbStateGet(MyDatabaseId, false);
	if (db != NULL)
	{
		HsDbStateLogRequestsRelease(db);
		/* an abort may leave a log nobody needs */
		if (event == XACT_EVENT_ABORT)
			HsDbStateWakeManager(MyDatabaseId);
	}
}

void
HsViewSourcesRequestLogs(List *sources)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, true);
	ListCell   *lc;
	bool		any = false;

	if (!log_callback_registered)
	{
		RegisterXactCallback(release_log_requests, NULL);
		log_callback_registered = true;
	}
	foreach(lc, sources)
	{
		Oid			relid = lfirst_oid(lc);

		if (!HsRelidIsHummock(relid))
			continue;
		if (!HsDbStateLogRequestAdd(db, relid))
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("too many views over streaming views are being created or rebuilt at once"),
					 errdetail("At most %d upstream views can be asked for their change logs at a time.",
							   HS_MAX_LOG_REQUESTS),
					 errhint("Try again when one of them is done.")));
		any = true;
	}
	if (any)
		HsDbStateWakeManager(MyDatabaseId);
}

bool
HsViewSourceLogReady(Oid upstream, const HsVersion *v, const char **why)
{
	HsEpoch		seen;
	HsEpoch		committed = 0;

	if (HsCatalogJobIsNew(upstream))
		return true;
	seen = HsDbStateLogRequestSeen(HsDbStateGet(MyDatabaseId, true), upstream);
	if (seen == 0)
	{
		*why = "the barrier manager has not taken the request for its change log into account";
		return false;
	}
	if (!HsVersionCommittedEpoch(v, (HsTableId) upstream, &committed) || committed <= seen)
	{
		*why = "it has not committed an epoch since its change log was asked for";
		return false;
	}
	if (HsVersionChangeLog(v, (HsTableId) upstream) == NULL)
	{
		*why = "its change log has not started yet";
		return false;
	}
	return true;
}

/* Store row bytes (a MinimalTuple) in the input's slot, copied into cxt. */
static TupleTableSlot *
store_row(HsStreamJobInput *in, HsSlice row, MemoryContext cxt)
{
	MinimalTuple mt = MemoryContextAlloc(cxt, Max(row.len, MINIMAL_TUPLE_DATA_OFFSET));

	if (row.len < MINIMAL_TUPLE_DATA_OFFSET)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a row of streaming materialized view \"%s\" is %zu bytes long",
						get_rel_name(in->leaf->relid), row.len)));
	memcpy(mt, row.data, row.len);
	mt->t_len = (uint32) row.len;
	ExecStoreMinimalTuple(mt, in->slot, false);
	return in->slot;
}

struct HsViewScan
{
	HsStreamJobInput *in;
	HsIterator *it;
	MemoryContext scratch;
	int			n;
	bool		started;
};

HsViewScan *
HsViewScanBegin(HsStreamJob *job, int i, const HsVersion *v, HsEpoch epoch)
{
	HsViewScan *scan = palloc0(sizeof(HsViewScan));
	HsStatus	st;

	scan->in = &job->inputs[i];
	scan->scratch = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream view scan",
										  ALLOCSET_DEFAULT_SIZES);
	HS_CHECK(HsVersionTableIterator(v, HsHummockSstCache(), (HsTableId) scan->in->leaf->relid,
									epoch, NULL, NULL, NULL, &scan->it, &st), &st);
	HsIterSeekToFirst(scan->it);
	return scan;
}

TupleTableSlot *
HsViewScanNext(HsViewScan *scan)
{
	HsStatus	st;

	ExecClearTuple(scan->in->slot);
	if (scan->started)
		HsIterNext(scan->it);
	scan->started = true;
	if (!HsIterValid(scan->it))
	{
		if (!HsIterStatus(scan->it, &st))
			HsStatusReport(ERROR, &st);
		return NULL;
	}
	if (++scan->n % ROWS_PER_RESET == 0)
		MemoryContextReset(scan->scratch);
	return store_row(scan->in, HsUserIterRow(scan->it), scan->scratch);
}

void
HsViewScanEnd(HsViewScan *scan)
{
	ExecClearTuple(scan->in->slot);
	HsIterDestroy(scan->it);
	MemoryContextDelete(scan->scratch);
	pfree(scan);
}

void
HsViewSourceConsume(HsStreamJob *job, int i, const HsVersion *v, HsEpoch from, HsEpoch to)
{
	HsStreamJobInput *in = &job->inputs[i];
	Oid			upstream = in->leaf->relid;
	const HsTableChangeLog *log;
	HsEpoch		committed;
	HsChangeLogIter *it;
	HsStatus	st;
	MemoryContext scratch;
	volatile int n = 0;

	if (to <= from)
		return;
	if (!HsViewSourceReady(upstream, v, to, &committed))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("streaming materialized view \"%s\" is not committed at epoch " UINT64_FORMAT,
						get_rel_name(upstream), (uint64) to),
				 errdetail("Its committed epoch is " UINT64_FORMAT ".", (uint64) committed)));
	log = HsVersionChangeLog(v, (HsTableId) upstream);
	if (log == NULL || log->start_epoch > from)
		ereport(ERROR,
				(errcode(ERRCODE_SNAPSHOT_TOO_OLD),
				 errmsg("the change log of streaming materialized view \"%s\" no longer reaches back to epoch " UINT64_FORMAT,
						get_rel_name(upstream), (uint64) from),
				 errdetail("Streaming materialized view \"%s\" reads it from there.",
						   get_rel_name(job->job_id)),
				 errhint("Rebuild the view: hummock_stream.rebuild(view).")));

	scratch = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream view source",
									ALLOCSET_DEFAULT_SIZES);
	HS_CHECK(HsIterLog(v, HsHummockSstCache(), (HsTableId) upstream, from, to,
					   NULL, NULL, &it, &st), &st);
	PG_TRY();
	{
		for (; HsChangeLogIterValid(it); HsChangeLogIterNext(it))
		{
			HsChangeOp	op = HsChangeLogIterOp(it);
			int			sign = (op == HS_CHANGE_INSERT || op == HS_CHANGE_UPDATE_INSERT) ? +1 : -1;

			HsStreamJobPush(job, i, store_row(in, HsChangeLogIterRow(it), scratch), sign);
			ExecClearTuple(in->slot);
			if (++n % ROWS_PER_RESET == 0)
				MemoryContextReset(scratch);
		}
		if (!HsChangeLogIterStatus(it, &st))
			HsStatusReport(ERROR, &st);
	}
	PG_FINALLY();
	{
		HsChangeLogIterDestroy(it);
	}
	PG_END_TRY();
	MemoryContextDelete(scratch);
}
