/*-------------------------------------------------------------------------
 *
 * worker_pool.c
 *	  The compute workers (and the compactor) of a barrier manager.
 *
 * The manager starts hummock_stream.compute_workers compute workers, each
 * with one control channel (channel.h; messages in barrier_msg.h): it
 * sends barriers, resets and commit notices down and handles what comes
 * up (COLLECTED with the SSTs a checkpoint synced, FAILURE, RESET_DONE).
 * A worker that exits (its channel detaches) resets only the graphs it
 * hosted and is replaced; one that cannot be started for lack of
 * background worker slots is logged and tried again on the graphs'
 * backoff delays, and the graphs it would host wait in FAILED.
 *
 * src/meta/worker_pool.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "access/xact.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/barrier_msg.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/channel.h"
#include "hummock_stream/meta/compactor.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/meta/launcher.h"
#include "hummock_stream/meta/partial_graph.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/pg/user_context.h"
#include "hummock_stream/storage/coding.h"

#include "barrier_manager_internal.h"

/* The first attempt in a row that fails is logged; so is each one after. */
static void
worker_start_failed(int i, const char *what)
{
	WorkerSlot *w = &hs_manager.workers[i];

	w->alive = false;
	w->start_failures++;
	w->retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
											  HsGraphBackoffMs(w->start_failures));
	ereport(LOG,
			(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
			 errmsg("could not start hummock_stream compute worker %d of database %u: %s",
					i, hs_manager.dboid, what),
			 errhint("Raise max_worker_processes (now %d); the barrier manager tries again in %d ms.",
					 max_worker_processes, HsGraphBackoffMs(w->start_failures))));
}

/*
 * Start compute worker i with a new control channel; false (logged, tried
 * again later) if no background worker slot is free or it did not start.
 */
bool
HsWorkerStart(int i)
{
	BackgroundWorker bw;
	WorkerSlot *w = &hs_manager.workers[i];
	MemoryContext oldcxt = MemoryContextSwitchTo(hs_manager.cxt);
	BgwHandleStatus status;

	w->channel = HsChannelCreate(hs_manager.dboid, i);
	memset(&bw, 0, sizeof(bw));
	bw.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	bw.bgw_start_time = BgWorkerStart_RecoveryFinished;
	bw.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(bw.bgw_library_name, BGW_MAXLEN, HS_EXTENSION_NAME);
	snprintf(bw.bgw_function_name, BGW_MAXLEN, "HsComputeWorkerMain");
	snprintf(bw.bgw_name, BGW_MAXLEN, "hummock_stream compute worker %d for database %u",
			 i, hs_manager.dboid);
	snprintf(bw.bgw_type, BGW_MAXLEN, "hummock_stream compute worker");
	bw.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(w->channel->seg));
	bw.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&bw, &w->handle))
	{
		HsChannelDestroy(w->channel);
		w->channel = NULL;
		w->handle = NULL;
		MemoryContextSwitchTo(oldcxt);
		worker_start_failed(i, "no background worker slot is free");
		return false;
	}
	HsChannelAttachWorker(w->channel, w->handle);
	status = WaitForBackgroundWorkerStartup(w->handle, &w->pid);
	if (status != BGWH_STARTED)
	{
		if (status == BGWH_POSTMASTER_DIED)
			proc_exit(1);
		HsChannelDestroy(w->channel);
		w->channel = NULL;
		w->handle = NULL;
		MemoryContextSwitchTo(oldcxt);
		worker_start_failed(i, "it stopped before it started");
		return false;
	}
	w->alive = true;
	w->starts++;
	w->start_failures = 0;
	w->started_at = GetCurrentTimestamp();
	MemoryContextSwitchTo(oldcxt);
	return true;
}

/* Send a message to a worker; a full ring waits (briefly) for room. */
bool
HsWorkerSend(int i, const void *msg, Size len)
{
	WorkerSlot *w = &hs_manager.workers[i];

	for (;;)
	{
		bool		detached;

		if (!w->alive)
			return false;
		if (HsChannelSend(w->channel, msg, len, &detached))
			return true;
		if (detached)
		{
			w->alive = false;
			return false;
		}
		/* the worker is behind: wait for it to drain its ring */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Keep the SSTs a worker synced for a checkpoint barrier. */
static void
decode_synced_ssts(HsInflightBarrier *b, const HsMsgCollected *m)
{
	HsCursor	c;
	uint32		n;
	HsStatus	st;
	MemoryContext oldcxt = MemoryContextSwitchTo(hs_manager.cxt);

	List	   *mine = NIL;

	HsCursorInit(&c, HsSliceMake(m->payload, m->payload_len));
	if (!HsCursorGetVarint32(&c, &n))
		elog(ERROR, "malformed SST list from a hummock_stream compute worker");
	for (uint32 i = 0; i < n; i++)
	{
		HsSstInfo  *info;

		HS_CHECK(HsSstInfoDecode(hs_manager.env, &c, "synced SST list", &info, &st), &st);
		b->ssts = lappend(b->ssts, info);
		mine = lappend(mine, info);
	}
	/* change-log entries (compute_worker.c, encode_change_logs) */
	if (!HsCursorGetVarint32(&c, &n))
		elog(ERROR, "malformed change-log list from a hummock_stream compute worker");
	for (uint32 i = 0; i < n; i++)
	{
		HsSyncedLog *log = palloc0(sizeof(HsSyncedLog));
		uint32		k,
					cnt;

		if (!HsCursorGetVarint32(&c, &log->table_id) || !HsCursorGetVarint32(&c, &cnt))
			elog(ERROR, "malformed change-log entry from a hummock_stream compute worker");
		log->n_epochs = (int) cnt;
		log->epochs = palloc(sizeof(HsEpoch) * Max(cnt, 1));
		for (k = 0; k < cnt; k++)
			if (!HsCursorGetVarint64(&c, &log->epochs[k]))
				elog(ERROR, "malformed change-log epochs from a hummock_stream compute worker");
		if (!HsCursorGetVarint32(&c, &cnt))
			elog(ERROR, "malformed change-log entry from a hummock_stream compute worker");
		log->new_ssts = palloc(sizeof(HsSstInfo *) * Max(cnt, 1));
		for (k = 0; k < cnt; k++)
		{
			uint64		id;
			ListCell   *lc;

			if (!HsCursorGetVarint64(&c, &id))
				elog(ERROR, "malformed change-log SST id from a hummock_stream compute worker");
			foreach(lc, mine)
				if (((HsSstInfo *) lfirst(lc))->object_id == id)
					log->new_ssts[log->n_new++] = lfirst(lc);
		}
		if (!HsCursorGetVarint32(&c, &cnt))
			elog(ERROR, "malformed change-log entry from a hummock_stream compute worker");
		log->old_ssts = palloc(sizeof(HsSstInfo *) * Max(cnt, 1));
		for (k = 0; k < cnt; k++)
			HS_CHECK(HsSstInfoDecode(hs_manager.env, &c, "synced old-value SST", &log->old_ssts[log->n_old++],
									 &st), &st);
		b->change_logs = lappend(b->change_logs, log);
	}
	list_free(mine);
	MemoryContextSwitchTo(oldcxt);
}

static void
handle_worker_message(int i, const void *data, Size len)
{
	uint8		type = *(const uint8 *) data;
	uint64		bit = UINT64CONST(1) << i;

	if (type == HS_MSG_COLLECTED)
	{
		const HsMsgCollected *m = data;
		HsGraph    *g = HsGraphFind(m->graph_id, false);
		ListCell   *lc;

		if (g == NULL || g->state == HS_GRAPH_RESETTING)
			return;				/* stale: the graph was reset */
		foreach(lc, g->inflight)
		{
			HsInflightBarrier *b = lfirst(lc);

			if (b->prev_epoch == m->prev_epoch && b->curr_epoch == m->curr_epoch)
			{
				if (m->payload_len > 0)
					decode_synced_ssts(b, m);
				b->collected |= bit;
				if ((b->collected & b->to_collect) == b->to_collect)
					b->collected_at = GetCurrentTimestamp();
				break;
			}
		}
	}
	else if (type == HS_MSG_FAILURE)
	{
		const HsMsgFailure *m = data;
		HsGraph    *g = HsGraphFind(m->graph_id, false);

		/* only a running graph has actors that can fail */
		if (g != NULL && g->state == HS_GRAPH_RUNNING)
			HsGraphReset(g, m->message, false);
	}
	else if (type == HS_MSG_RESET_DONE)
	{
		const HsMsgResetDone *m = data;
		HsGraph    *g = HsGraphFind(m->graph_id, false);

		if (g != NULL && g->state == HS_GRAPH_RESETTING)
		{
			g->reset_pending &= ~bit;
			if (g->reset_pending == 0)
				HsGraphResetDone(g);
		}
	}
	else
		elog(ERROR, "unexpected message type %d from hummock_stream compute worker %d",
			 type, i);
}

/*
 * A worker died: reset the graphs it hosted and start a replacement (if
 * none can start now, it is tried again later and those graphs wait).
 */
static void
worker_lost(int i)
{
	ListCell   *lc;
	uint64		bit = UINT64CONST(1) << i;
	char		why[128];

	snprintf(why, sizeof(why), "compute worker %d (pid %d) exited", i, (int) hs_manager.workers[i].pid);
	hs_manager.workers[i].alive = false;
	HsChannelDestroy(hs_manager.workers[i].channel);
	hs_manager.workers[i].channel = NULL;
	hs_manager.workers[i].handle = NULL;

	foreach(lc, hs_manager.graphs)
	{
		HsGraph    *g = lfirst(lc);

		if (g->state == HS_GRAPH_RESETTING)
			g->reset_pending &= ~bit;
		if (HsGraphWorkerMask(g) & bit)
		{
			if (g->state == HS_GRAPH_RUNNING)
				HsGraphReset(g, why, true);
			g->reset_pending &= ~bit;
		}
		if (g->state == HS_GRAPH_RESETTING && g->reset_pending == 0)
			HsGraphResetDone(g);
	}
	(void) HsWorkerStart(i);
}

/*
 * Start the compute workers and the compactor that do not run and whose
 * next attempt is due.  Graphs that waited for a worker start at once.
 */
void
HsWorkersMaintain(void)
{
	TimestampTz now = GetCurrentTimestamp();
	ListCell   *lc;

	for (int i = 0; i < hs_manager.nworkers; i++)
	{
		if (hs_manager.workers[i].channel != NULL || now < hs_manager.workers[i].retry_at)
			continue;
		if (!HsWorkerStart(i))
			continue;
		ereport(LOG,
				(errmsg("hummock_stream compute worker %d of database %u started", i,
						hs_manager.dboid)));
		foreach(lc, hs_manager.graphs)
		{
			HsGraph    *g = lfirst(lc);

			if (g->state == HS_GRAPH_FAILED && g->waits_for_worker &&
				HsGraphMissingWorker(g) < 0)
				g->retry_at = 0;
		}
	}
	/* a compactor that died, or could not start, is started again */
	if (hs_manager.compactor != NULL)
	{
		pid_t		pid;

		if (GetBackgroundWorkerPid(hs_manager.compactor, &pid) == BGWH_STOPPED)
			hs_manager.compactor = NULL;
	}
	if (hs_manager.compactor == NULL && now >= hs_manager.compactor_retry_at)
	{
		hs_manager.compactor = HsCompactorStart(hs_manager.dboid);
		if (hs_manager.compactor == NULL)
			hs_manager.compactor_failures++;
		else
			hs_manager.compactor_failures = 0;
		hs_manager.compactor_retry_at = hs_manager.compactor == NULL ?
			TimestampTzPlusMilliseconds(now, HsGraphBackoffMs(hs_manager.compactor_failures)) : 0;
	}
}

void
HsWorkersPoll(void)
{
	for (int i = 0; i < hs_manager.nworkers; i++)
	{
		void	   *data;
		Size		len;
		bool		detached = false;

		if (hs_manager.workers[i].channel == NULL)
			continue;			/* not running: HsWorkersMaintain starts it */
		while (hs_manager.workers[i].alive &&
			   HsChannelReceive(hs_manager.workers[i].channel, &data, &len, &detached))
			handle_worker_message(i, data, len);
		if (detached || !hs_manager.workers[i].alive)
			worker_lost(i);
	}
}
