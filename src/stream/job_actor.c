/*-------------------------------------------------------------------------
 *
 * job_actor.c
 *	  The streaming job's actor: the product's one built-in actor kind
 *	  (HS_ACTOR_STREAM_JOB), one per view, run by a compute worker.
 *
 * Built from the catalog by its first barrier (it restores its committed
 * state and capture position); every later barrier ends the epoch prev:
 * the job consumes the capture log up to the barrier's snapshot, flushes
 * its executors and seals the epoch's state into the worker's shared
 * buffer.  A job has no Pause (its input is the capture log, which
 * waits).  Its table (the view's relation) keeps a change log while the
 * worker says so (write_old_values: a view reads it, or its owner asked).
 *
 * A job whose source table is being altered waits for the ALTER TABLE
 * the same way, and is built again if the table's columns changed
 * (source_alter.c).
 *
 * An epoch's work may take at most hummock_stream.epoch_timeout: past it
 * the job is canceled (a timeout of Postgres's timeout framework sets
 * QueryCancelPending, so any CHECK_FOR_INTERRUPTS in the view's executors
 * or in a function it calls raises it) and fails like any error, with a
 * message that says why; its graph retries with backoff, and the worker
 * runs the other views meanwhile: one slow view no longer holds every
 * view of its worker for as long as it runs.
 *
 * A view over other streaming views writes its epoch prev from theirs at
 * prev (view_source.h), so it passes the barrier only once every upstream
 * has committed prev: until then it asks to be offered the barrier again
 * a few milliseconds later, and the worker goes on with other graphs.
 *
 * src/stream/job_actor.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/latch.h"
#include "utils/lsyscache.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"

#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/user_context.h"
#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/stream/actor.h"
#include "hummock_stream/stream/compute_worker.h"
#include "hummock_stream/stream/job_stats.h"
#include "hummock_stream/stream/stream_job.h"
#include "hummock_stream/stream/view_settings.h"

HsStreamJobEpochHook hs_stream_job_epoch_hook = NULL;

/* How often a view waiting for an upstream's commit looks again. */
#define UPSTREAM_POLL_MS 5

/* hummock_stream.epoch_timeout, ms (0: none) */
int			hs_epoch_timeout_ms = 0;

/* The timeout that cancels an epoch's work, and whether it fired. */
static TimeoutId epoch_timeout_id = MAX_TIMEOUTS;
static volatile sig_atomic_t epoch_timed_out = false;

static void
epoch_timeout_handler(void)
{
	epoch_timed_out = true;
	QueryCancelPending = true;
	InterruptPending = true;
	SetLatch(MyLatch);
}

/*
 * Run job's consumption of the epoch under hummock_stream.epoch_timeout:
 * the cancel it causes is reported as the timeout, naming the view.
 */
static void
consume_within_timeout(HsStreamJob *job, const HsActorBarrier *b)
{
	MemoryContext cxt = CurrentMemoryContext;

	if (hs_epoch_timeout_ms <= 0)
	{
		HsStreamJobConsume(job, b->snapshot);
		HsStreamJobFlush(job);
		return;
	}
	if (epoch_timeout_id == MAX_TIMEOUTS)
		epoch_timeout_id = RegisterTimeout(USER_TIMEOUT, epoch_timeout_handler);
	epoch_timed_out = false;
	enable_timeout_after(epoch_timeout_id, hs_epoch_timeout_ms);
	PG_TRY();
	{
		HsStreamJobConsume(job, b->snapshot);
		HsStreamJobFlush(job);
	}
	PG_CATCH();
	{
		disable_timeout(epoch_timeout_id, false);
		if (epoch_timed_out)
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			if (edata->sqlerrcode != ERRCODE_QUERY_CANCELED)
				PG_RE_THROW();
			FlushErrorState();
			epoch_timed_out = false;
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("maintenance of streaming materialized view \"%s\" took longer than hummock_stream.epoch_timeout (%d ms)",
							get_rel_name(job->job_id), hs_epoch_timeout_ms),
					 errdetail("Epoch %llu was canceled; the view retries it with a growing delay.",
							   (unsigned long long) b->prev_epoch),
					 errhint("Make what the view computes cheaper, or raise hummock_stream.epoch_timeout.")));
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	disable_timeout(epoch_timeout_id, false);
	/* (it fired as the work ended: the cancel it asked for is not ours) */
	if (epoch_timed_out)
		QueryCancelPending = false;
	epoch_timed_out = false;
}

static bool
job_on_barrier(HsActor *a, const HsActorBarrier *b, bool paused, TimestampTz *wake_at)
{
	HsStreamJob *job;
	HsVersion  *v;
	HsUserContext owner;

	HsComputeWorkerBeginWork();

	/*
	 * Everything the job evaluates runs as its view's owner (looked up at
	 * every barrier: ALTER ... OWNER TO takes effect at the next one); an
	 * error aborts the round's transaction, which restores the user.
	 */
	HsSwitchToUser(HsStreamJobOwner(a->spec.table_id), &owner);
	if (a->state == NULL)
	{
		HsStreamStore store;

		memset(&store, 0, sizeof(store));
		store.env = HsComputeWorkerEnv();
		store.shared_buffer = HsComputeWorkerSharedBuffer();
		store.cache = HsHummockSstCache();
		store.version = NULL;
		store.epoch = 0;
		a->state = HsStreamJobLoad(a->spec.table_id, &store, HsComputeWorkerContext());
	}
	if (b->kind == HS_BARRIER_INITIAL)
	{
		HsRestoreUser(&owner);
		return true;
	}
	job = a->state;

	/*
	 * Its tables stay locked for the round: an ALTER TABLE of one waits
	 * for this epoch or has committed (then the job is built again for the
	 * table's new columns); one that runs now holds the epoch back.
	 */
	switch (HsStreamJobLockSources(job))
	{
		case HS_SOURCES_BUSY:
			HsRestoreUser(&owner);
			*wake_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), UPSTREAM_POLL_MS);
			return false;
		case HS_SOURCES_CHANGED:
			job = HsStreamJobRebuild(job, HsComputeWorkerContext());
			a->state = job;
			break;
		case HS_SOURCES_UNCHANGED:
			break;
	}
	/* the creator's settings, as the view's expressions were created with */
	HsViewSettingsApply(job->settings);
	if (hs_stream_job_epoch_hook)
		hs_stream_job_epoch_hook(job->job_id, b->prev_epoch);

	/* the owner's rights hold at every epoch, not only at creation */
	HsViewCheckPrivileges(job->reads, get_rel_name(job->job_id), true);

	/*
	 * A view over views writes epoch prev from its upstreams at prev: wait
	 * (without holding the worker) until every one of them committed it.
	 */
	v = HsHummockPinnedVersion(HS_EPOCH_MAX);
	if (!HsStreamJobReady(job, v, b->prev_epoch, NULL))
	{
		HsVersionUnref(v);
		HsRestoreUser(&owner);
		*wake_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), UPSTREAM_POLL_MS);
		return false;
	}
	{
		/* sub-epochs go above all the tables wrote before (stream_job.c) */
		HsEpoch		floor = Max(job->store.epoch, HsStreamJobMaxSealed(job));
		HsEpoch		committed;

		if (HsVersionCommittedEpoch(v, (HsTableId) job->job_id, &committed))
			floor = Max(floor, committed);
		job->store.version = v;
		job->store.epoch = b->prev_epoch;
		HsStreamJobAllowSplit(job, floor, (size_t) hs_shared_buffer_size_kb * 1024 / 2);
	}
	HsStreamJobSetChangeLog(job, a->write_old_values);
	PG_TRY();
	{
		instr_time	start,
					elapsed;
		int64		rows_before = job->rows_in;
		int64		splits_before = job->splits;

		INSTR_TIME_SET_CURRENT(start);
		consume_within_timeout(job, b);
		INSTR_TIME_SET_CURRENT(elapsed);
		INSTR_TIME_SUBTRACT(elapsed, start);
		HsJobStatsReport(job, b->prev_epoch, INSTR_TIME_GET_MILLISEC(elapsed));
		if (hs_log_min_epoch_duration >= 0 &&
			INSTR_TIME_GET_MILLISEC(elapsed) >= hs_log_min_epoch_duration)
			ereport(LOG,
					(errmsg("streaming materialized view \"%s\" took %.3f ms to maintain epoch %llu",
							get_rel_name(job->job_id), INSTR_TIME_GET_MILLISEC(elapsed),
							(unsigned long long) b->prev_epoch),
					 job->splits > splits_before ?
					 errdetail("%lld input rows read; the writes were sealed in %lld parts to bound memory.",
							   (long long) (job->rows_in - rows_before),
							   (long long) (job->splits - splits_before + 1)) :
					 errdetail("%lld input rows read.",
							   (long long) (job->rows_in - rows_before))));
	}
	PG_FINALLY();
	{
		job->store.version = NULL;
		HsVersionUnref(v);
	}
	PG_END_TRY();
	HsRestoreUser(&owner);

	HsComputeWorkerMaybeSpill();
	return true;
}

/* A stopped job's unsynced state goes with it. */
static void
job_on_stop(HsActor *a)
{
	int			n = HsActorSpecNumTables(&a->spec);

	for (int k = 0; k < n; k++)
		HsSharedBufferDropTable(HsComputeWorkerSharedBuffer(), HsActorSpecTable(&a->spec, k));
}

static void
job_free(HsActor *a)
{
	if (a->state)
		HsStreamJobFree((HsStreamJob *) a->state);
	a->state = NULL;
}

const HsActorOps HsStreamJobActorOps = {
	.name = "stream job",
	.on_barrier = job_on_barrier,
	.on_stop = job_on_stop,
	.free = job_free,
	.keeps_change_log = true,
};
