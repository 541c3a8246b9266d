/*-------------------------------------------------------------------------
 *
 * compactor.c
 *	  The per-database compactor: compacts L0 into L1+, then deletes what
 *	  nothing can reach.
 *
 * The barrier manager starts one compactor per database (and stops it
 * with itself).  Every hummock_stream.compaction_interval the compactor
 * picks one task (HsCompactionPick: L0 when it has enough sub-levels, or a
 * level over its size target), runs it, and commits the result as a
 * version delta like any other; then it runs a GC pass.  The same step is
 * available synchronously as hummock_stream.compact().
 *
 * A compaction races commits safely: it is computed on the version it
 * read, and its delta only removes the SSTs it merged (which commits never
 * remove) and adds its outputs to a lower level; applying it to a newer
 * version, whose extra L0 sub-levels it leaves alone, loses nothing.
 * Every GC_EVERY_ROUNDS rounds it also drops change-log entries older than
 * the retention and runs a GC pass.
 * Versions a reader may still need are kept: every version of a key newer
 * than the safe epoch (the oldest pinned epoch, or now minus
 * hummock_stream.time_travel_retention) and the newest one at or below it.
 * The internal state tables of streaming views are read only at their
 * newest committed epoch (time travel reads views, not operators' state),
 * so their safe epoch is the oldest pinned epoch alone: an aggregation's
 * value counts or a join side under heavy churn do not carry ten minutes
 * of dead versions that every read must step over.
 *
 * src/meta/compactor.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/compactor.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/gc.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/pg/user_context.h"
#include "hummock_stream/storage/compaction.h"

int			hs_compaction_interval_ms = 1000;
int			hs_time_travel_retention_ms = 600000;

/* GC runs every this many compaction rounds. */
#define GC_EVERY_ROUNDS 10

BackgroundWorkerHandle *
HsCompactorStart(Oid dboid)
{
	BackgroundWorker bw;
	BackgroundWorkerHandle *handle;

	memset(&bw, 0, sizeof(bw));
	bw.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	bw.bgw_start_time = BgWorkerStart_RecoveryFinished;
	bw.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(bw.bgw_library_name, BGW_MAXLEN, HS_EXTENSION_NAME);
	snprintf(bw.bgw_function_name, BGW_MAXLEN, "HsCompactorMain");
	snprintf(bw.bgw_name, BGW_MAXLEN, "hummock_stream compactor for database %u", dboid);
	snprintf(bw.bgw_type, BGW_MAXLEN, "hummock_stream compactor");
	bw.bgw_main_arg = ObjectIdGetDatum(dboid);
	bw.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&bw, &handle))
	{
		ereport(WARNING,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the hummock_stream compactor of database %u", dboid),
				 errhint("Raise max_worker_processes.")));
		return NULL;
	}
	return handle;
}

/* The oldest epoch compaction must keep readable: pins and retention. */
static HsEpoch
safe_epoch(void)
{
	HsPinSummary pins;

	HsPinSummarize(MyDatabaseId, &pins);
	return Min(pins.min_epoch, HsEpochMsAgo(hs_time_travel_retention_ms));
}

/*
 * The safe epochs of a compaction: safe_epoch() for every table, the
 * oldest pinned epoch for the views' internal state tables (in the current
 * memory context).
 */
static void
compaction_safe_epochs(HsSafeEpochs *safe)
{
	HsPinSummary pins;
	Oid		   *tables;
	int			n = HsCatalogStateTables(&tables);
	HsTableEpoch *te = palloc(sizeof(HsTableEpoch) * Max(n, 1));

	HsPinSummarize(MyDatabaseId, &pins);
	safe->epoch = Min(pins.min_epoch, HsEpochMsAgo(hs_time_travel_retention_ms));
	for (int i = 0; i < n; i++)
	{
		te[i].table_id = (HsTableId) tables[i];
		te[i].epoch = pins.min_epoch;
	}
	safe->n_tables = n;
	safe->tables = te;
	pfree(tables);
}

/*
 * Drop change-log entries older than the retention (and than any pinned
 * epoch) in the current transaction; true if there were any.
 */
bool
HsTrimChangeLogs(void)
{
	HsVersion  *v = HsHummockPinnedVersion(HS_EPOCH_MAX);
	HsLogFloor *floors;
	int			n_floors = HsCatalogLogFloors(&floors);

	/* a view's log stays as long as a view over it still reads it */
	HsVersionDelta *delta = HsCompactionTrimChangeLogs(v, safe_epoch(), floors, n_floors);

	HsVersionUnref(v);
	if (delta == NULL)
		return false;
	(void) HsHummockCommitDelta(delta);
	HsVersionDeltaFree(delta);
	return true;
}

/*
 * One compaction task at a time in a database: two tasks picked from one
 * version (the compactor's and hummock_stream.compact()'s) may merge the
 * same SSTs, and the second to commit found its inputs gone ("compaction
 * removes an SST that is not in the level").  An object lock on the
 * extension (sub-id 1: not the one ALTER and DROP EXTENSION take), held
 * until the transaction that commits the task ends.
 */
static bool
lock_compaction(bool wait)
{
	LOCKTAG		tag;

	SET_LOCKTAG_OBJECT(tag, MyDatabaseId, ExtensionRelationId,
					   get_extension_oid(HS_EXTENSION_NAME, false), 1);
	return LockAcquire(&tag, ExclusiveLock, false, !wait) != LOCKACQUIRE_NOT_AVAIL;
}

bool
HsCompactOnce(bool force_l0, bool wait, int *input_level, int *output_level, int *inputs,
			  uint64 *version_id)
{
	HsVersion  *v;
	HsCompactionConfig cfg;
	HsCompactionTask *task;
	HsVersionDelta *delta;
	HsSstWriteContext ctx;
	HsSafeEpochs safe;
	HsStatus	st;

	if (!lock_compaction(wait))
		return false;
	v = HsHummockPinnedVersion(HS_EPOCH_MAX);
	HsCompactionConfigInit(&cfg);
	task = force_l0 ? HsCompactionPickL0(v) : HsCompactionPick(v, &cfg);
	if (task == NULL)
	{
		HsVersionUnref(v);
		return false;
	}
	HsHummockWriteContext(&ctx);
	compaction_safe_epochs(&safe);
	HS_CHECK(HsCompactionRun(v, HsHummockSstCache(), task, &safe, &ctx,
							 &delta, &st), &st);
	*input_level = task->input_level;
	*output_level = task->output_level;
	*inputs = task->n_upper + task->n_lower;
	*version_id = HsHummockCommitDelta(delta);
	HsVersionDeltaFree(delta);
	HsCompactionTaskFree(task);
	HsVersionUnref(v);
	return true;
}

/* Compaction tasks failed in a row, and when the next may run. */
static int	compaction_failures = 0;
static TimestampTz compaction_resume_at = 0;

/* The longest pause of compaction after failed tasks. */
#define COMPACTION_MAX_BACKOFF_MS (10 * 60 * 1000)

/*
 * Run one compaction task in a transaction of its own.  A task that fails
 * (an SST that cannot be read, a full disk) is reported as a WARNING and
 * compaction pauses, twice as long after each failure in a row (up to
 * COMPACTION_MAX_BACKOFF_MS): before, the error ended the compactor, which
 * was started again and failed on the same task every interval, and its
 * garbage collection, which runs every GC_EVERY_ROUNDS rounds of one
 * process, never ran; now GC and change-log trimming go on.  What the task
 * wrote is an orphan object that GC deletes; its pin goes with its
 * transaction.
 */
static bool
compact_one(int *in, int *out, int *n, uint64 *vid)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile bool worked = false;

	PG_TRY();
	{
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		pgstat_report_activity(STATE_RUNNING, "compacting");
		worked = HsCompactOnce(false, false, in, out, n, vid);
		PopActiveSnapshot();
		CommitTransactionCommand();
		compaction_failures = 0;
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		long		backoff_ms;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		AbortOutOfAnyTransaction();
		MemoryContextSwitchTo(cxt);
		compaction_failures++;
		backoff_ms = Min((long) Max(hs_compaction_interval_ms, 1000) << Min(compaction_failures, 10),
						 COMPACTION_MAX_BACKOFF_MS);
		compaction_resume_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), backoff_ms);
		ereport(WARNING,
				(errcode(edata->sqlerrcode),
				 errmsg("hummock_stream compaction failed: %s", edata->message),
				 edata->detail ? errdetail("%s", edata->detail) : 0,
				 errhint("Compaction pauses for %ld s (failure %d in a row); garbage collection and change-log trimming go on.",
						 backoff_ms / 1000, compaction_failures)));
		FreeErrorData(edata);
		worked = false;
	}
	PG_END_TRY();
	return worked;
}

void
HsCompactorMain(Datum main_arg)
{
	Oid			dboid = DatumGetObjectId(main_arg);
	int			round = 0;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("hummock_stream compactor");
	/* no ALTER DATABASE/ROLE ... SET search_path or isolation level reaches what we run */
	HsPinWorkerSettings();

	for (;;)
	{
		int			in,
					out,
					n;
		uint64		vid;
		bool		worked;
		TimestampTz due;

		/*
		 * Wait a whole interval (the first round too); the latch also wakes
		 * us for interrupts and reloads, which are no reason to compact.
		 */
		due = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), hs_compaction_interval_ms);

		for (;;)
		{
			long		left = (long) TimestampDifferenceMilliseconds(GetCurrentTimestamp(), due);

			if (left <= 0)
				break;
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 left, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
			if (ConfigReloadPending)
			{
				ConfigReloadPending = false;
				ProcessConfigFile(PGC_SIGHUP);
			}
		}

		/* as many tasks as are due, one transaction each */
		do
		{
			if (GetCurrentTimestamp() < compaction_resume_at)
				break;			/* backing off after a failed task */
			worked = compact_one(&in, &out, &n, &vid);
			if (worked)
				elog(DEBUG1, "hummock_stream compacted %d SSTs of level %d into level %d (version %llu)",
					 n, in, out, (unsigned long long) vid);
			CHECK_FOR_INTERRUPTS();
		} while (worked);

		if (++round % GC_EVERY_ROUNDS == 0)
		{
			HsGcResult r;

			StartTransactionCommand();
			PushActiveSnapshot(GetTransactionSnapshot());
			pgstat_report_activity(STATE_RUNNING, "trimming change logs");
			(void) HsTrimChangeLogs();
			PopActiveSnapshot();
			CommitTransactionCommand();

			StartTransactionCommand();
			PushActiveSnapshot(GetTransactionSnapshot());
			pgstat_report_activity(STATE_RUNNING, "collecting garbage");
			HsHummockCollectGarbage(&r);
			PopActiveSnapshot();
			CommitTransactionCommand();
		}
		pgstat_report_activity(STATE_IDLE, NULL);
		(void) pgstat_report_stat(false);	/* as a backend going idle */
	}
}
