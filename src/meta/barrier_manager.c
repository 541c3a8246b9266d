/*-------------------------------------------------------------------------
 *
 * barrier_manager.c
 *	  The per-database barrier manager ("meta"): epochs, barriers, partial
 *	  graphs, compute workers.
 *
 * One manager runs in each database that has the extension (started by
 * the launcher).  It owns:
 *
 *	- the epoch clock: every hummock_stream.barrier_interval_ms a new epoch,
 *	  (unix ms - 2025-01-01) << 16, bumped by one if the clock has not
 *	  moved; every hummock_stream.checkpoint_frequency-th barrier is a
 *	  checkpoint;
 *	- hummock_stream.compute_workers compute workers (dynamic bgworkers),
 *	  each with one control channel (channel.h, barrier_msg.h);
 *	- the partial graphs of the database.  A graph is the set of actors a
 *	  barrier stream is injected into and collected from as a unit; its
 *	  actors live on one or more workers.  Each graph has its own chain of
 *	  barriers (prev of one = curr of the previous one *of that graph*), its
 *	  own in-flight limit (hummock_stream.max_inflight_barriers) and its own
 *	  committed epoch.  A slow graph stops receiving barriers when it
 *	  reaches its limit; the others go on, so it never holds their commits.
 *
 * Life of a graph: INITIALIZING (its next barrier is an Initial barrier
 * whose Add mutation builds all its actors from their committed state) ->
 * RUNNING -> on a FAILURE report from any worker, or when a worker hosting
 * it dies: RESETTING (its in-flight barriers are dropped and every worker
 * hosting it is told to drop it) -> when all confirm: FAILED, which waits
 * HsGraphBackoffMs(failures in a row) (1 s, doubling up to 30 s) -> at the
 * first barrier after that: INITIALIZING again.  The error message stays
 * in last_error, and the delay grows, until the graph commits a checkpoint
 * again.  A graph whose compute worker is not running (it could not start
 * for lack of a background worker slot) waits in FAILED until the worker
 * runs.  Nothing of a failure touches other graphs: the delay is a time
 * stamp the barrier loop compares, never a wait.
 *
 * Barriers of a graph complete in order: when its oldest in-flight barrier
 * has been collected from every worker it was injected into, it completes;
 * a completed checkpoint commits the graph's tables at its prev epoch.
 *
 * The graphs come from the catalog (for now the test actors of
 * hummock_stream.test_actors); the catalog is reread when a backend changes
 * it and wakes the manager, and the change rides on the next barrier as an
 * Add or Stop mutation.
 *
 * Crash-only: any ERROR ends the process with exit code 1 and the
 * postmaster restarts it after 1 s; it then rebuilds everything from the
 * catalog and restarts its workers (their old channels are gone with the
 * old process).  A compute worker or the compactor that cannot be started
 * (RegisterDynamicBackgroundWorker finds no slot: max_worker_processes) is
 * not an error: it is logged, shown (hummock_stream.workers, and the
 * failed state of the graphs it would host), and tried again on the
 * graphs' backoff delays.  It exits with code 0 (not restarted) when the extension
 * is no longer installed or DROP DATABASE asked it to stop.
 *
 * src/meta/barrier_manager.c
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

int			hs_barrier_interval_ms = 1000;
int			hs_checkpoint_frequency = 1;
int			hs_max_inflight_barriers = 16;
int			hs_compute_workers = 2;

/* How often the capture logs are trimmed. */
#define CAPTURE_TRIM_INTERVAL_MS 1000

typedef struct WorkerSlot
{
	HsChannel  *channel;		/* NULL while the worker does not run */
	BackgroundWorkerHandle *handle;
	bool		alive;
	int64		starts;
	TimestampTz started_at;
	pid_t		pid;
	int			start_failures; /* attempts in a row that found no slot */
	TimestampTz retry_at;		/* not running: next attempt */
} WorkerSlot;

static Oid	manager_dboid = InvalidOid;
static HsDbState *db;
static volatile sig_atomic_t stop_pending = false;
static MemoryContext ManagerContext;
static WorkerSlot *workers;
static int	nworkers;
static List *graphs = NIL;		/* HsGraph * */
static BackgroundWorkerHandle *compactor = NULL;
static int	compactor_failures = 0;
static TimestampTz compactor_retry_at = 0;
static HsEnv *manager_env;		/* allocates in ManagerContext */
static bool failure_changed = false;	/* wake wait() after publishing */

static void free_inflight(HsInflightBarrier *b);

static void
manager_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	stop_pending = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

static void
manager_exit(int code, Datum arg)
{
	for (int i = 0; i < nworkers; i++)
		if (workers[i].handle)
			TerminateBackgroundWorker(workers[i].handle);
	if (compactor)
		TerminateBackgroundWorker(compactor);
	HsDbStateManagerDetach(manager_dboid, code);
}

/* The next epoch after prev, from the wall clock. */
static HsEpoch
next_epoch(HsEpoch prev)
{
	HsEpoch		e = HsEpochNow();

	return e > prev ? e : prev + 1;
}

/* ---------------------------------------------------------------------
 * Catalog
 * ---------------------------------------------------------------------
 */

/* Is the extension installed in this database? */
static bool
extension_installed(void)
{
	bool		found;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	found = OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true));
	PopActiveSnapshot();
	CommitTransactionCommand();
	return found;
}

static HsGraph *
find_graph(uint32 graph_id, bool create)
{
	ListCell   *lc;
	HsGraph    *g;

	foreach(lc, graphs)
	{
		g = lfirst(lc);
		if (g->graph_id == graph_id)
			return g;
	}
	if (!create)
		return NULL;
	g = palloc0(sizeof(HsGraph));
	g->graph_id = graph_id;
	g->state = HS_GRAPH_INITIALIZING;
	graphs = lappend(graphs, g);
	return g;
}

static HsPlacedActor *
find_actor(List *actors, uint32 actor_id)
{
	ListCell   *lc;

	foreach(lc, actors)
	{
		HsPlacedActor *a = lfirst(lc);

		if (a->spec.actor_id == actor_id)
			return a;
	}
	return NULL;
}

static uint32
actor_kind_from_name(const char *name)
{
	if (strcmp(name, "counter") == 0)
		return HS_ACTOR_COUNTER;
	if (strcmp(name, "sleep") == 0)
		return HS_ACTOR_SLEEP;
	return HS_ACTOR_ERROR;
}

/*
 * Reread the graphs from the catalog: actors that appeared are added by the
 * next barrier of their graph, actors that disappeared are stopped by it.
 */
static void
reload_graphs(void)
{
	List	   *seen = NIL;
	List	   *jobs;
	ListCell   *lc;
	MemoryContext oldcxt;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
	if (SPI_execute("SELECT actor_id, graph_id, kind, param, coalesce(table_id, 0)"
					"  FROM hummock_stream.test_actors ORDER BY actor_id",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read hummock_stream.test_actors");

	oldcxt = MemoryContextSwitchTo(ManagerContext);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	td = SPI_tuptable->tupdesc;
		bool		isnull;
		HsActorSpec spec;
		HsGraph    *g;
		HsPlacedActor *a;

		memset(&spec, 0, sizeof(spec));
		spec.actor_id = DatumGetInt32(SPI_getbinval(tup, td, 1, &isnull));
		g = find_graph(DatumGetInt32(SPI_getbinval(tup, td, 2, &isnull)), true);
		spec.kind = actor_kind_from_name(SPI_getvalue(tup, td, 3));
		spec.param = DatumGetInt32(SPI_getbinval(tup, td, 4, &isnull));
		spec.table_id = (uint32) DatumGetInt64(SPI_getbinval(tup, td, 5, &isnull));
		seen = lappend_int(seen, (int) spec.actor_id);

		if ((a = find_actor(g->actors, spec.actor_id)) != NULL)
		{
			/* a changed parameter rides on the next barrier as an Update */
			if (a->spec.param != spec.param &&
				find_actor(g->pending_update, spec.actor_id) == NULL)
			{
				HsPlacedActor *u = palloc(sizeof(HsPlacedActor));

				*u = *a;
				u->spec.param = spec.param;
				g->pending_update = lappend(g->pending_update, u);
			}
		}
		else if ((a = find_actor(g->pending_add, spec.actor_id)) != NULL)
		{
			/* not running (a failed graph): it starts with the new one */
			a->spec.param = spec.param;
		}
		else
		{
			a = palloc(sizeof(HsPlacedActor));
			a->spec = spec;
			a->worker = (int) (spec.actor_id % nworkers);
			g->pending_add = lappend(g->pending_add, a);
		}
	}
	/* streaming jobs: one graph and one actor each (graph id = job id) */
	MemoryContextSwitchTo(oldcxt);
	jobs = HsCatalogJobs();
	MemoryContextSwitchTo(ManagerContext);
	foreach(lc, jobs)
	{
		HsJobRow   *job = lfirst(lc);
		HsActorSpec spec;
		HsGraph    *g;

		if (strcmp(job->state, "created") != 0)
			continue;
		memset(&spec, 0, sizeof(spec));
		spec.actor_id = job->job_id;
		spec.kind = HS_ACTOR_STREAM_JOB;
		spec.table_id = spec.actor_id;
		for (int k = 0; k < job->n_state_tables && k < HS_ACTOR_MAX_STATE_TABLES; k++)
			spec.state_tables[spec.n_state_tables++] = job->state_tables[k];
		g = find_graph(spec.actor_id, true);
		g->is_stream_job = true;
		seen = lappend_int(seen, (int) spec.actor_id);
		if (find_actor(g->actors, spec.actor_id) == NULL &&
			find_actor(g->pending_add, spec.actor_id) == NULL)
		{
			HsPlacedActor *a = palloc(sizeof(HsPlacedActor));

			a->spec = spec;
			a->worker = (int) (spec.actor_id % nworkers);
			g->pending_add = lappend(g->pending_add, a);
		}
	}

	/* actors gone from the catalog are stopped */
	foreach(lc, graphs)
	{
		HsGraph    *g = lfirst(lc);
		ListCell   *la;

		foreach(la, g->actors)
		{
			HsPlacedActor *a = lfirst(la);

			if (!list_member_int(seen, (int) a->spec.actor_id) &&
				!list_member_ptr(g->pending_stop, a))
				g->pending_stop = lappend(g->pending_stop, a);
		}
		foreach(la, g->pending_add)
		{
			HsPlacedActor *a = lfirst(la);

			if (!list_member_int(seen, (int) a->spec.actor_id))
				g->pending_add = foreach_delete_current(g->pending_add, la);
		}
	}
	/* paused graphs (hummock_stream.test_graphs) */
	if (SPI_execute("SELECT graph_id, paused FROM hummock_stream.test_graphs",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read hummock_stream.test_graphs");
	foreach(lc, graphs)
		((HsGraph *) lfirst(lc))->want_paused = false;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		HsGraph    *g = find_graph(DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i],
															   SPI_tuptable->tupdesc, 1, &isnull)),
								   false);

		if (g)
			g->want_paused = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[i],
														SPI_tuptable->tupdesc, 2, &isnull));
	}
	MemoryContextSwitchTo(oldcxt);
	SPI_finish();

	/*
	 * A graph that (re)starts begins at its tables' committed epoch: its
	 * Initial barrier has that prev epoch and its actors restore that state.
	 */
	{
		HsVersion  *v = HsHummockCurrentVersion();

		foreach(lc, graphs)
		{
			HsGraph    *g = lfirst(lc);
			ListCell   *la;
			HsEpoch		min_committed = 0;
			bool		first = true;

			if ((g->state != HS_GRAPH_INITIALIZING && g->state != HS_GRAPH_FAILED) ||
				g->inflight != NIL)
				continue;
			foreach(la, g->pending_add)
			{
				HsPlacedActor *a = lfirst(la);
				HsTableId	tables[HS_ACTOR_MAX_STATE_TABLES + 1];
				int			n = HsActorSpecTables(&a->spec, tables);

				for (int k = 0; k < n; k++)
				{
					HsEpoch		e = 0;

					(void) HsVersionCommittedEpoch(v, tables[k], &e);
					if (first || e < min_committed)
						min_committed = e;
					first = false;
				}
			}
			if (!first)
				g->committed_epoch = min_committed;
		}
		HsVersionUnref(v);
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/* The newest committed epoch of any table: new epochs must be newer. */
static HsEpoch
max_committed_epoch(void)
{
	HsEpoch		max = 0;
	HsVersion  *v;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	v = HsHummockCurrentVersion();
	for (int i = 0; i < v->n_tables; i++)
		max = Max(max, v->tables[i].committed_epoch);
	HsVersionUnref(v);
	PopActiveSnapshot();
	CommitTransactionCommand();
	return max;
}

/* ---------------------------------------------------------------------
 * Workers
 * ---------------------------------------------------------------------
 */

/* The first attempt in a row that fails is logged; so is each one after. */
static void
worker_start_failed(int i, const char *what)
{
	WorkerSlot *w = &workers[i];

	w->alive = false;
	w->start_failures++;
	w->retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
											  HsGraphBackoffMs(w->start_failures));
	ereport(LOG,
			(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
			 errmsg("could not start hummock_stream compute worker %d of database %u: %s",
					i, manager_dboid, what),
			 errhint("Raise max_worker_processes (now %d); the barrier manager tries again in %d ms.",
					 max_worker_processes, HsGraphBackoffMs(w->start_failures))));
}

/*
 * Start compute worker i with a new control channel; false (logged, tried
 * again later) if no background worker slot is free or it did not start.
 */
static bool
start_worker(int i)
{
	BackgroundWorker bw;
	WorkerSlot *w = &workers[i];
	MemoryContext oldcxt = MemoryContextSwitchTo(ManagerContext);
	BgwHandleStatus status;

	w->channel = HsChannelCreate(manager_dboid, i);
	memset(&bw, 0, sizeof(bw));
	bw.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	bw.bgw_start_time = BgWorkerStart_RecoveryFinished;
	bw.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(bw.bgw_library_name, BGW_MAXLEN, HS_EXTENSION_NAME);
	snprintf(bw.bgw_function_name, BGW_MAXLEN, "HsComputeWorkerMain");
	snprintf(bw.bgw_name, BGW_MAXLEN, "hummock_stream compute worker %d for database %u",
			 i, manager_dboid);
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
static bool
send_to_worker(int i, const void *msg, Size len)
{
	WorkerSlot *w = &workers[i];

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

/* ---------------------------------------------------------------------
 * Graph life cycle
 * ---------------------------------------------------------------------
 */

static void
record_graph_barrier(HsGraph *g, HsInflightBarrier *b, TimestampTz committed_at)
{
	HsBarrierRecord *r;

	SpinLockAcquire(&db->barrier_mutex);
	r = &db->ring[db->ring_next];
	r->graph_id = g ? g->graph_id : 0;
	r->kind = b->kind;
	r->prev_epoch = b->prev_epoch;
	r->curr_epoch = b->curr_epoch;
	r->injected_at = b->injected_at;
	r->collected_at = b->collected_at;
	r->committed_at = committed_at;
	db->ring_next = (db->ring_next + 1) % HS_BARRIER_RING;
	SpinLockRelease(&db->barrier_mutex);
}

/*
 * A graph's reset is complete (every worker that hosted it confirmed, or
 * is gone): it waits in FAILED for its backoff delay, then starts again
 * from its committed epoch.
 */
static void
reset_done(HsGraph *g)
{
	g->state = HS_GRAPH_FAILED;
	g->last_injected = 0;
	g->retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
											  HsGraphBackoffMs(g->failures));
	failure_changed = true;
}

/*
 * A graph failed (why: the FAILURE message's text, or the worker that
 * exited, lost_worker): drop its in-flight barriers and tell its workers
 * to drop it.
 */
static void
reset_graph(HsGraph *g, const char *why, bool lost_worker)
{
	uint64		mask = HsGraphWorkerMask(g);
	HsMsgReset	msg;

	g->failures++;
	g->worker_lost = lost_worker;
	ereport(LOG,
			(errmsg("hummock_stream resets partial graph %u: %s", g->graph_id, why),
			 errdetail("It starts again in %d ms (failure %d since its last commit).",
					   HsGraphBackoffMs(g->failures), g->failures)));
	strlcpy(g->last_error, why, sizeof(g->last_error));
	g->failed = true;
	failure_changed = true;
	{
		ListCell   *lb;

		foreach(lb, g->inflight)
			free_inflight(lfirst(lb));
		list_free(g->inflight);
		g->inflight = NIL;
	}
	g->resets++;
	g->state = HS_GRAPH_RESETTING;
	g->reset_pending = 0;
	/* the running actors are re-added by the Initial barrier */
	g->pending_add = list_concat(g->actors, g->pending_add);
	g->actors = NIL;
	{
		ListCell   *lc;

		/* actors being stopped are simply not re-added */
		foreach(lc, g->pending_stop)
			g->pending_add = list_delete_ptr(g->pending_add, lfirst(lc));
		list_free(g->pending_stop);
		g->pending_stop = NIL;
	}
	msg.type = HS_MSG_RESET;
	msg.graph_id = g->graph_id;
	for (int i = 0; i < nworkers; i++)
	{
		if (!(mask & (UINT64CONST(1) << i)))
			continue;
		if (send_to_worker(i, &msg, sizeof(msg)))
			g->reset_pending |= UINT64CONST(1) << i;
	}
	if (g->reset_pending == 0)
		reset_done(g);
}

/* The first compute worker of g that is not running, or -1. */
static int
graph_missing_worker(const HsGraph *g)
{
	uint64		mask = HsGraphWorkerMask(g);

	for (int i = 0; i < nworkers; i++)
		if ((mask & (UINT64CONST(1) << i)) && !workers[i].alive)
			return i;
	return -1;
}

/*
 * Before a barrier: a failed graph whose delay has passed starts again
 * (INITIALIZING), once every compute worker it needs runs.  A graph about
 * to start on a worker that does not run waits in FAILED for it, with the
 * reason in last_error (it cannot start for lack of a worker slot).
 */
static void
retry_graph(HsGraph *g, TimestampTz now)
{
	int			missing;

	if (g->state == HS_GRAPH_FAILED && now < g->retry_at)
		return;
	if (g->state != HS_GRAPH_FAILED && g->state != HS_GRAPH_INITIALIZING)
		return;
	missing = graph_missing_worker(g);
	if (missing >= 0)
	{
		char		why[sizeof(g->last_error)];

		snprintf(why, sizeof(why), HS_NO_WORKER_SLOT_MSG, missing);
		if (g->state != HS_GRAPH_FAILED || !g->failed || strcmp(why, g->last_error) != 0)
			failure_changed = true;
		strlcpy(g->last_error, why, sizeof(g->last_error));
		g->failed = true;
		g->worker_lost = false;
		g->state = HS_GRAPH_FAILED;
		g->last_injected = 0;
		g->waits_for_worker = true;
		return;
	}
	g->waits_for_worker = false;
	if (g->state == HS_GRAPH_FAILED)
		g->state = HS_GRAPH_INITIALIZING;
}

/* Inject the barrier prev -> curr of graph g into its workers. */
static void
inject_graph(HsGraph *g, HsEpoch curr, HsBarrierKind kind, TimestampTz now,
			 const char *snapshot)
{
	HsInflightBarrier *b;
	uint64		mask;
	HsMsgInject *msg;
	Size		snap_len = strlen(snapshot) + 1;

	if (g->state == HS_GRAPH_RESETTING || g->state == HS_GRAPH_FAILED)
		return;
	if ((g->last_injected ? g->last_injected : g->committed_epoch) >= curr)
		return;					/* committed past this epoch (a new view) */
	if (list_length(g->inflight) >= hs_max_inflight_barriers)
		return;					/* slow graph: it skips this epoch */
	if (g->state == HS_GRAPH_INITIALIZING)
		kind = HS_BARRIER_INITIAL;

	mask = HsGraphWorkerMask(g);
	b = MemoryContextAllocZero(ManagerContext, sizeof(HsInflightBarrier));
	b->prev_epoch = g->last_injected ? g->last_injected : g->committed_epoch;
	b->curr_epoch = curr;
	b->kind = kind;
	b->injected_at = now;
	b->to_collect = 0;
	b->snapshot = MemoryContextStrdup(ManagerContext, snapshot);
	b->tables_exist = g->is_stream_job;

	msg = palloc0(sizeof(HsMsgInject) + snap_len);
	for (int i = 0; i < nworkers; i++)
	{
		ListCell   *lc;
		Size		len;

		if (!(mask & (UINT64CONST(1) << i)))
			continue;
		msg->type = HS_MSG_INJECT;
		msg->kind = (uint8) kind;
		msg->graph_id = g->graph_id;
		msg->prev_epoch = b->prev_epoch;
		msg->curr_epoch = curr;
		msg->n_add = msg->n_stop = msg->n_update = 0;
		/* an Initial barrier rebuilds the actors in the graph's pause state */
		if (g->want_paused != g->paused || kind == HS_BARRIER_INITIAL)
			msg->pause = g->want_paused ? HS_PAUSE : HS_RESUME;
		else
			msg->pause = HS_PAUSE_NONE;
		foreach(lc, g->pending_update)
		{
			HsPlacedActor *a = lfirst(lc);

			if (a->worker == i && msg->n_update < HS_MSG_MAX_ACTORS)
				msg->update[msg->n_update++] = a->spec;
		}
		foreach(lc, g->pending_add)
		{
			HsPlacedActor *a = lfirst(lc);

			if (a->worker == i && msg->n_add < HS_MSG_MAX_ACTORS)
				msg->add[msg->n_add++] = a->spec;
		}
		foreach(lc, g->pending_stop)
		{
			HsPlacedActor *a = lfirst(lc);

			if (a->worker == i && msg->n_stop < HS_MSG_MAX_ACTORS)
				msg->stop[msg->n_stop++] = a->spec.actor_id;
		}
		len = (msg->n_add || msg->n_stop || msg->n_update) ? sizeof(HsMsgInject) :
			offsetof(HsMsgInject, add);
		msg->snapshot_len = (uint32) snap_len;
		memcpy((char *) msg + len, snapshot, snap_len);
		len += snap_len;
		if (send_to_worker(i, msg, len))
			b->to_collect |= UINT64CONST(1) << i;
	}
	pfree(msg);

	/* the mutation is applied: added actors run, stopped ones are gone */
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(ManagerContext);
		ListCell   *lc;

		g->actors = list_concat(g->actors, g->pending_add);
		list_free(g->pending_add);
		g->pending_add = NIL;
		foreach(lc, g->pending_update)
		{
			HsPlacedActor *u = lfirst(lc);
			HsPlacedActor *a = find_actor(g->actors, u->spec.actor_id);

			if (a)
				a->spec = u->spec;
		}
		list_free_deep(g->pending_update);
		g->pending_update = NIL;
		g->paused = g->want_paused;
		foreach(lc, g->pending_stop)
			g->actors = list_delete_ptr(g->actors, lfirst(lc));
		list_free_deep(g->pending_stop);
		g->pending_stop = NIL;
		if (kind == HS_BARRIER_CHECKPOINT)
		{
			foreach(lc, g->actors)
			{
				HsPlacedActor *a = lfirst(lc);

				HsTableId	tables[HS_ACTOR_MAX_STATE_TABLES + 1];
				int			n = HsActorSpecTables(&a->spec, tables);

				for (int k = 0; k < n; k++)
					b->tables = lappend_int(b->tables, (int) tables[k]);
			}
		}
		g->inflight = lappend(g->inflight, b);
		MemoryContextSwitchTo(oldcxt);
	}
	g->last_injected = curr;
	if (g->state == HS_GRAPH_INITIALIZING)
		g->state = HS_GRAPH_RUNNING;
}

static void
free_inflight(HsInflightBarrier *b)
{
	ListCell   *lc;

	foreach(lc, b->ssts)
		HsSstInfoUnref(lfirst(lc));
	list_free(b->ssts);
	foreach(lc, b->change_logs)
	{
		HsSyncedLog *log = lfirst(lc);

		for (int i = 0; i < log->n_old; i++)
			HsSstInfoUnref(log->old_ssts[i]);
		pfree(log->old_ssts);
		pfree(log->new_ssts);
		pfree(log->epochs);
		pfree(log);
	}
	list_free(b->change_logs);
	list_free(b->tables);
	if (b->snapshot)
		pfree(b->snapshot);
	pfree(b);
}

static bool
fully_collected(const HsInflightBarrier *b)
{
	return (b->collected & b->to_collect) == b->to_collect;
}

/*
 * Was any table of checkpoint b dropped (DROP of its view)?  A view's
 * tables exist from its creation on, so one that is missing was dropped
 * (and compacted away) too.
 */
static bool
barrier_tables_dropped(HsVersion *v, HsInflightBarrier *b)
{
	ListCell   *lc;

	foreach(lc, b->tables)
	{
		HsTableId	t = (HsTableId) lfirst_int(lc);
		HsEpoch		e;

		if (HsVersionTableDropped(v, t) ||
			(b->tables_exist && !HsVersionCommittedEpoch(v, t, &e)))
			return true;
	}
	return false;
}

/*
 * The capture position of each streaming job whose checkpoints commit now:
 * the snapshot of its newest one (in the commit's transaction, so the
 * position and the view's data commit together).
 */
static void
commit_positions(List *per_graph)
{
	ListCell   *lc;

	foreach(lc, per_graph)
	{
		List	   *mine = lfirst(lc);
		HsInflightBarrier *b = llast(mine);
		HsGraph    *g = NULL;
		ListCell   *lg;

		foreach(lg, graphs)
		{
			HsGraph    *gg = lfirst(lg);

			if (list_member_ptr(gg->inflight, b))
				g = gg;
		}
		if (g == NULL || !g->is_stream_job || b->snapshot == NULL)
			continue;
		HsCatalogSetPosition(g->graph_id, b->snapshot);
	}
}

/*
 * Complete every graph's collected barriers, oldest first.  The checkpoints
 * among them that have tables are committed first, in one transaction and
 * as few version deltas as possible: each delta carries at most one
 * checkpoint per graph (exactly that graph's tables at the barrier's prev
 * epoch, with the SSTs its workers synced), so all graphs that completed a
 * checkpoint since the last round share one delta and one new L0
 * sub-level, and a graph's two checkpoints never share a sub-level.  A
 * graph whose oldest barrier is still being collected holds only itself.
 */
static void
complete_graphs(void)
{
	List	   *per_graph = NIL;	/* List * of checkpoints, one per graph */
	ListCell   *lc;
	TimestampTz committed_at = 0;
	bool		any = false;

	foreach(lc, graphs)
	{
		HsGraph    *g = lfirst(lc);
		ListCell   *lb;
		List	   *mine = NIL;

		foreach(lb, g->inflight)
		{
			HsInflightBarrier *b = lfirst(lb);

			if (!fully_collected(b))
				break;
			if (b->kind == HS_BARRIER_CHECKPOINT && b->tables != NIL)
				mine = lappend(mine, b);
		}
		if (mine != NIL)
		{
			per_graph = lappend(per_graph, mine);
			any = true;
		}
	}

	if (any)
	{
		HsVersion  *current;

		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		current = HsHummockCurrentVersion();
		for (int round = 0;; round++)
		{
			HsVersionDelta *delta = NULL;

			foreach(lc, per_graph)
			{
				List	   *mine = lfirst(lc);
				HsInflightBarrier *b;
				ListCell   *lt;

				if (round >= list_length(mine))
					continue;
				b = list_nth(mine, round);
				if (barrier_tables_dropped(current, b))
					continue;	/* its view was dropped: its SSTs are garbage */
				if (delta == NULL)
					delta = HsVersionDeltaCreate(HsHummockEnv(), HS_DELTA_COMMIT, 0);
				foreach(lt, b->tables)
					HsVersionDeltaAddCommit(delta, (HsTableId) lfirst_int(lt), b->prev_epoch);
				foreach(lt, b->ssts)
				{
					HsSstInfo  *info = lfirst(lt);

					HsVersionDeltaAddL0Ssts(delta, &info, 1);
				}
				foreach(lt, b->change_logs)
				{
					HsSyncedLog *log = lfirst(lt);
					HsStatus	st;

					HS_CHECK(HsVersionDeltaAddChangeLog(delta, log->table_id, log->epochs,
														log->n_epochs, log->new_ssts, log->n_new,
														log->old_ssts, log->n_old, &st), &st);
				}
			}
			if (delta == NULL)
				break;
			(void) HsHummockCommitDelta(delta);
			HsVersionDeltaFree(delta);
		}
		commit_positions(per_graph);
		HsVersionUnref(current);
		PopActiveSnapshot();
		CommitTransactionCommand();
		committed_at = GetCurrentTimestamp();
	}
	foreach(lc, per_graph)
		list_free(lfirst(lc));
	list_free(per_graph);

	foreach(lc, graphs)
	{
		HsGraph    *g = lfirst(lc);
		uint64		notify = 0;

		while (g->inflight != NIL)
		{
			HsInflightBarrier *b = linitial(g->inflight);
			TimestampTz commit_ts = 0;

			if (!fully_collected(b))
				break;
			if (b->collected_at == 0)
				b->collected_at = GetCurrentTimestamp();
			if (b->kind == HS_BARRIER_CHECKPOINT)
			{
				commit_ts = b->tables != NIL ? committed_at : GetCurrentTimestamp();
				g->committed_epoch = b->prev_epoch;
				g->commits++;
				g->last_commit_at = commit_ts;
				/* healthy again: the error and the backoff go */
				if (g->failed)
					failure_changed = true;
				g->failed = false;
				g->failures = 0;
				g->last_error[0] = '\0';
				if (b->tables != NIL)
					notify |= b->to_collect;
			}
			record_graph_barrier(g, b, commit_ts);
			g->inflight = list_delete_first(g->inflight);
			free_inflight(b);
		}
		if (notify)
		{
			HsMsgCommitted msg;

			msg.type = HS_MSG_COMMITTED;
			msg.graph_id = g->graph_id;
			msg.epoch = g->committed_epoch;
			for (int i = 0; i < nworkers; i++)
				if (notify & (UINT64CONST(1) << i))
					(void) send_to_worker(i, &msg, sizeof(msg));
		}
	}
}

/* ---------------------------------------------------------------------
 * Messages from workers
 * ---------------------------------------------------------------------
 */

/* Keep the SSTs a worker synced for a checkpoint barrier. */
static void
decode_synced_ssts(HsInflightBarrier *b, const HsMsgCollected *m)
{
	HsCursor	c;
	uint32		n;
	HsStatus	st;
	MemoryContext oldcxt = MemoryContextSwitchTo(ManagerContext);

	List	   *mine = NIL;

	HsCursorInit(&c, HsSliceMake(m->payload, m->payload_len));
	if (!HsCursorGetVarint32(&c, &n))
		elog(ERROR, "malformed SST list from a hummock_stream compute worker");
	for (uint32 i = 0; i < n; i++)
	{
		HsSstInfo  *info;

		HS_CHECK(HsSstInfoDecode(manager_env, &c, "synced SST list", &info, &st), &st);
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
			HS_CHECK(HsSstInfoDecode(manager_env, &c, "synced old-value SST", &log->old_ssts[log->n_old++],
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
		HsGraph    *g = find_graph(m->graph_id, false);
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
		HsGraph    *g = find_graph(m->graph_id, false);

		/* only a running graph has actors that can fail */
		if (g != NULL && g->state == HS_GRAPH_RUNNING)
			reset_graph(g, m->message, false);
	}
	else if (type == HS_MSG_RESET_DONE)
	{
		const HsMsgResetDone *m = data;
		HsGraph    *g = find_graph(m->graph_id, false);

		if (g != NULL && g->state == HS_GRAPH_RESETTING)
		{
			g->reset_pending &= ~bit;
			if (g->reset_pending == 0)
				reset_done(g);
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

	snprintf(why, sizeof(why), "compute worker %d (pid %d) exited", i, (int) workers[i].pid);
	workers[i].alive = false;
	HsChannelDestroy(workers[i].channel);
	workers[i].channel = NULL;
	workers[i].handle = NULL;

	foreach(lc, graphs)
	{
		HsGraph    *g = lfirst(lc);

		if (g->state == HS_GRAPH_RESETTING)
			g->reset_pending &= ~bit;
		if (HsGraphWorkerMask(g) & bit)
		{
			if (g->state == HS_GRAPH_RUNNING)
				reset_graph(g, why, true);
			g->reset_pending &= ~bit;
		}
		if (g->state == HS_GRAPH_RESETTING && g->reset_pending == 0)
			reset_done(g);
	}
	(void) start_worker(i);
}

/*
 * Start the compute workers and the compactor that do not run and whose
 * next attempt is due.  Graphs that waited for a worker start at once.
 */
static void
maintain_workers(void)
{
	TimestampTz now = GetCurrentTimestamp();
	ListCell   *lc;

	for (int i = 0; i < nworkers; i++)
	{
		if (workers[i].channel != NULL || now < workers[i].retry_at)
			continue;
		if (!start_worker(i))
			continue;
		ereport(LOG,
				(errmsg("hummock_stream compute worker %d of database %u started", i,
						manager_dboid)));
		foreach(lc, graphs)
		{
			HsGraph    *g = lfirst(lc);

			if (g->state == HS_GRAPH_FAILED && g->waits_for_worker &&
				graph_missing_worker(g) < 0)
				g->retry_at = 0;
		}
	}
	/* a compactor that died, or could not start, is started again */
	if (compactor != NULL)
	{
		pid_t		pid;

		if (GetBackgroundWorkerPid(compactor, &pid) == BGWH_STOPPED)
			compactor = NULL;
	}
	if (compactor == NULL && now >= compactor_retry_at)
	{
		compactor = HsCompactorStart(manager_dboid);
		if (compactor == NULL)
			compactor_failures++;
		else
			compactor_failures = 0;
		compactor_retry_at = compactor == NULL ?
			TimestampTzPlusMilliseconds(now, HsGraphBackoffMs(compactor_failures)) : 0;
	}
}

static void
poll_workers(void)
{
	for (int i = 0; i < nworkers; i++)
	{
		void	   *data;
		Size		len;
		bool		detached = false;

		if (workers[i].channel == NULL)
			continue;			/* not running: maintain_workers starts it */
		while (workers[i].alive &&
			   HsChannelReceive(workers[i].channel, &data, &len, &detached))
			handle_worker_message(i, data, len);
		if (detached || !workers[i].alive)
			worker_lost(i);
	}
}

/* ---------------------------------------------------------------------
 * Status in shared memory
 * ---------------------------------------------------------------------
 */

static void
publish_status(HsEpoch last_injected)
{
	int			n = 0;
	ListCell   *lc;

	SpinLockAcquire(&db->barrier_mutex);
	db->last_injected = last_injected;
	foreach(lc, graphs)
	{
		HsGraph    *g = lfirst(lc);
		HsGraphStatus *s;

		if (n >= HS_MAX_GRAPH_STATUS)
			break;
		s = &db->graphs[n++];
		s->graph_id = g->graph_id;
		s->state = (uint8) g->state;
		s->paused = g->paused;
		s->n_actors = (int16) (list_length(g->actors) + list_length(g->pending_add));
		s->inflight = (int16) list_length(g->inflight);
		s->committed_epoch = g->committed_epoch;
		s->last_injected = g->last_injected;
		s->commits = g->commits;
		s->resets = g->resets;
		s->last_commit_at = g->last_commit_at;
		s->failed = g->failed;
		s->failures = (int16) Min(g->failures, PG_INT16_MAX);
		s->worker_lost = g->worker_lost;
		s->retry_at = g->state == HS_GRAPH_FAILED ? g->retry_at : 0;
		strlcpy(s->last_error, g->last_error, sizeof(s->last_error));
	}
	db->n_graphs = n;
	db->n_workers = Min(nworkers, HS_MAX_WORKER_STATUS);
	for (int i = 0; i < db->n_workers; i++)
	{
		int			hosted = 0;

		foreach(lc, graphs)
			if (HsGraphWorkerMask(lfirst(lc)) & (UINT64CONST(1) << i))
				hosted++;
		db->workers[i].pid = workers[i].alive ? workers[i].pid : 0;
		db->workers[i].start_failed = workers[i].start_failures > 0;
		db->workers[i].n_graphs = (int16) hosted;
		db->workers[i].starts = workers[i].starts;
		db->workers[i].started_at = workers[i].started_at;
	}
	SpinLockRelease(&db->barrier_mutex);
	/* wait() fails at once on a failed view, and returns on a healed one */
	if (failure_changed)
	{
		failure_changed = false;
		HsDbStateNotify(db);
	}
}

static bool
take_reload_request(void)
{
	bool		r;

	SpinLockAcquire(&db->barrier_mutex);
	r = db->reload_requested;
	db->reload_requested = false;
	SpinLockRelease(&db->barrier_mutex);
	return r;
}

/* The pg_snapshot text of a fresh snapshot (in ManagerContext's child). */
static char *
take_snapshot(void)
{
	char	   *text;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	text = DatumGetCString(DirectFunctionCall1(pg_snapshot_out,
											   OidFunctionCall0Coll(F_PG_CURRENT_SNAPSHOT,
																	InvalidOid)));
	text = MemoryContextStrdup(ManagerContext, text);
	PopActiveSnapshot();
	CommitTransactionCommand();
	return text;
}

/* Trim the capture logs behind the committed positions of their views. */
static void
trim_capture_logs(void)
{
	ListCell   *lc;
	bool		any = false;

	foreach(lc, graphs)
		if (((HsGraph *) lfirst(lc))->is_stream_job)
			any = true;
	if (!any)
		return;
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	HsCatalogTrimCaptureLogs();
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/* ---------------------------------------------------------------------
 * Warnings for backends: missing background worker slots
 * ---------------------------------------------------------------------
 */

/*
 * Background worker slots hummock_stream needs at least: the launcher, and
 * per database that uses it a manager, a compactor and the compute workers.
 */
static int
worker_slots_needed(int ndatabases)
{
	return 1 + ndatabases * (Max(1, Min(hs_compute_workers, HS_MAX_WORKER_STATUS)) + 2);
}

/* WARNING if max_worker_processes is below what the databases need. */
static bool
warn_if_too_few_slots(void)
{
	int			ndb = Max(HsDbStateDatabasesInUse(), 1);
	int			per_db = Max(1, Min(hs_compute_workers, HS_MAX_WORKER_STATUS));

	if (worker_slots_needed(ndb) <= max_worker_processes)
		return false;
	ereport(WARNING,
			(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
			 errmsg("max_worker_processes is too low for hummock_stream"),
			 errdetail("hummock_stream needs at least %d background worker slots for the %d database(s) that use it (a launcher, and per database a barrier manager, a compactor and %d compute workers), and max_worker_processes is %d.",
					   worker_slots_needed(ndb), ndb, per_db, max_worker_processes),
			 errhint("Raise max_worker_processes and restart the server; until then the views of a database whose processes cannot start do not advance.")));
	return true;
}

void
HsWarnIfNoWorkerSlots(Oid view)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	HsManagerProblem problem = HsDbStateManagerProblem(MyDatabaseId);
	pid_t		manager = 0;

	/* CREATE EXTENSION: what the new database will need comes first */
	if (!OidIsValid(view) && warn_if_too_few_slots())
		return;
	if (db != NULL)
	{
		HsWorkerStatus ws[HS_MAX_WORKER_STATUS];
		int			nw;

		manager = db->manager_pid;
		SpinLockAcquire(&db->barrier_mutex);
		nw = db->n_workers;
		memcpy(ws, db->workers, sizeof(HsWorkerStatus) * nw);
		SpinLockRelease(&db->barrier_mutex);
		for (int i = 0; manager != 0 && i < nw; i++)
		{
			if (!ws[i].start_failed || ws[i].pid != 0 ||
				(OidIsValid(view) && (int) (view % (Oid) nw) != i))
				continue;
			ereport(WARNING,
					(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
					 errmsg("compute worker %d of this database is not running", i),
					 errdetail("No background worker slot was free to start it (max_worker_processes is %d), so the views it runs do not advance.",
							   max_worker_processes),
					 errhint("Raise max_worker_processes and restart the server.")));
			return;
		}
	}
	if (manager == 0 && problem == HS_MANAGER_NO_WORKER_SLOT)
	{
		ereport(WARNING,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("the barrier manager of this database is not running"),
				 errdetail("No background worker slot was free to start it (max_worker_processes is %d), so streaming materialized views in this database do not advance.",
						   max_worker_processes),
				 errhint("Raise max_worker_processes and restart the server.")));
		return;
	}
	if (manager == 0 && problem == HS_MANAGER_NO_DB_SLOT)
	{
		ereport(WARNING,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("the barrier manager of this database is not running"),
				 errdetail("All %d shared slots of hummock_stream.max_databases are taken by other databases.",
						   hs_max_databases),
				 errhint("Drop the extension in a database that does not need it, or raise hummock_stream.max_databases and restart the server.")));
		return;
	}
	if (OidIsValid(view))
		(void) warn_if_too_few_slots();
}

/* ---------------------------------------------------------------------
 * Main loop
 * ---------------------------------------------------------------------
 */

void
HsBarrierManagerMain(Datum main_arg)
{
	HsEpoch		prev;
	int			since_checkpoint = 0;
	TimestampTz next_barrier_at;
	TimestampTz next_trim_at = 0;
	HsAttachResult attach;
	uint64		claims_seen;

	manager_dboid = DatumGetObjectId(main_arg);

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, manager_sigterm);
	BackgroundWorkerUnblockSignals();

	/*
	 * Decide before connecting: the database may be being dropped (its
	 * slot then says stop).  Without a free slot we still connect, to learn
	 * whether the database uses the extension at all.
	 */
	attach = HsDbStateManagerAttach(manager_dboid, &claims_seen);
	if (attach == HS_ATTACH_STOP)
		proc_exit(0);
	if (attach == HS_ATTACH_OK)
	{
		before_shmem_exit(manager_exit, (Datum) 0);
		db = HsDbStateGet(manager_dboid, false);
	}

	BackgroundWorkerInitializeConnectionByOid(manager_dboid, InvalidOid, 0);
	pgstat_report_appname("hummock_stream barrier manager");
	/* no ALTER DATABASE/ROLE ... SET search_path reaches what we run */
	HsPinProcessSearchPath();

	/* version commits stay synchronous: committed epochs never go back after a crash */

	if (!extension_installed())
	{
		/* a database that does not use hummock_stream: its slot goes back */
		if (attach == HS_ATTACH_OK)
			HsDbStateManagerNoExtension(manager_dboid, claims_seen);
		else
			HsDbStateSetManagerProblem(manager_dboid, HS_MANAGER_OK);
		proc_exit(0);
	}
	if (attach == HS_ATTACH_NO_SLOT)
	{
		/* the launcher tries again later */
		HsDbStateSetManagerProblem(manager_dboid, HS_MANAGER_NO_DB_SLOT);
		ereport(LOG,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("hummock_stream barrier manager of database %u cannot run: too many databases use hummock_stream",
						manager_dboid),
				 errhint("Drop the extension in a database that does not need it, or raise hummock_stream.max_databases (now %d) and restart the server.",
						 hs_max_databases)));
		proc_exit(0);
	}
	HsDbStateSetManagerProblem(manager_dboid, HS_MANAGER_OK);

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	HsHummockRemoveOldIncarnations();
	PopActiveSnapshot();
	CommitTransactionCommand();

	ManagerContext = AllocSetContextCreate(TopMemoryContext, "hummock_stream manager",
										   ALLOCSET_DEFAULT_SIZES);
	manager_env = HsEnvPgForContext(ManagerContext);
	nworkers = Max(1, Min(hs_compute_workers, HS_MAX_WORKER_STATUS));
	workers = MemoryContextAllocZero(ManagerContext, sizeof(WorkerSlot) * nworkers);
	for (int i = 0; i < nworkers; i++)
		(void) start_worker(i);
	maintain_workers();			/* the compactor */
	(void) take_reload_request();
	reload_graphs();

	prev = next_epoch(Max(db->last_injected, max_committed_epoch()));
	next_barrier_at = GetCurrentTimestamp();

	while (!stop_pending)
	{
		TimestampTz now;
		long		wait_ms;
		int			rc;
		ListCell   *lc;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		poll_workers();
		maintain_workers();
		if (take_reload_request())
		{
			if (!extension_installed())
			{
				/* dropped: stop for good */
				HsDbStateManagerNoExtension(manager_dboid, claims_seen);
				break;
			}
			reload_graphs();
		}

		now = GetCurrentTimestamp();
		if (now >= next_barrier_at)
		{
			HsEpoch		curr = next_epoch(prev);
			bool		checkpoint = (++since_checkpoint >= hs_checkpoint_frequency);
			HsInflightBarrier dbb = {0};

			char	   *snapshot;

			if (checkpoint)
				since_checkpoint = 0;
			foreach(lc, graphs)
				retry_graph(lfirst(lc), now);
			snapshot = take_snapshot();
			foreach(lc, graphs)
				inject_graph(lfirst(lc), curr,
							 checkpoint ? HS_BARRIER_CHECKPOINT : HS_BARRIER_REGULAR, now,
							 snapshot);
			pfree(snapshot);

			/* the database's own barrier record (graph 0) */
			dbb.prev_epoch = prev;
			dbb.curr_epoch = curr;
			dbb.kind = checkpoint ? HS_BARRIER_CHECKPOINT : HS_BARRIER_REGULAR;
			dbb.injected_at = now;
			dbb.collected_at = now;
			record_graph_barrier(NULL, &dbb, 0);
			SpinLockAcquire(&db->barrier_mutex);
			db->barriers_total++;
			SpinLockRelease(&db->barrier_mutex);
			prev = curr;
			next_barrier_at = TimestampTzPlusMilliseconds(now, hs_barrier_interval_ms);
		}

		poll_workers();
		complete_graphs();
		publish_status(prev);
		if (GetCurrentTimestamp() >= next_trim_at)
		{
			trim_capture_logs();
			next_trim_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   CAPTURE_TRIM_INTERVAL_MS);
		}

		wait_ms = (long) TimestampDifferenceMilliseconds(GetCurrentTimestamp(),
														 next_barrier_at);
		rc = WaitLatch(MyLatch,
					   WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					   Max(wait_ms, 1), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		(void) rc;
	}

	/*
	 * Exit code 0 (not restarted) if we stop for good; 1 (restarted after
	 * 1 s) if someone merely terminated us.
	 */
	proc_exit(stop_pending && !HsDbStateStopRequested(manager_dboid) ? 1 : 0);
}
