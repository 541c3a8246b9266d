/*-------------------------------------------------------------------------
 *
 * partial_graph.c
 *	  The life cycle of a partial graph in the barrier manager.
 *
 * A graph is INITIALIZING (its next barrier is an Initial barrier whose
 * Add mutation builds all its actors from their committed state), then
 * RUNNING.  On a FAILURE report from any worker, or when a worker hosting
 * it dies, it is RESETTING (its in-flight barriers are dropped and every
 * worker hosting it is told to drop it); when all confirm it is FAILED
 * for HsGraphBackoffMs(failures in a row) (1 s, doubling up to 30 s), and
 * then INITIALIZING again.  Nothing of this touches other graphs.
 *
 * Barriers of a graph complete in order: when its oldest in-flight barrier
 * has been collected from every worker it was injected into, it completes;
 * a completed checkpoint commits the graph's tables at its prev epoch
 * (HsGraphsComplete commits every graph that completed one in one
 * transaction, as few version deltas as possible), with the capture
 * position of a view's job in the same transaction.
 *
 * src/meta/partial_graph.c
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

const char *
HsGraphStateName(HsGraphState state)
{
	switch (state)
	{
		case HS_GRAPH_INITIALIZING:
			return "initializing";
		case HS_GRAPH_RUNNING:
			return "running";
		case HS_GRAPH_RESETTING:
			return "resetting";
		case HS_GRAPH_FAILED:
			return "failed";
	}
	return "unknown";
}

uint64
HsGraphWorkerMask(const HsGraph *g)
{
	uint64		mask = 0;
	ListCell   *lc;

	foreach(lc, g->actors)
		mask |= UINT64CONST(1) << ((HsPlacedActor *) lfirst(lc))->worker;
	foreach(lc, g->pending_add)
		mask |= UINT64CONST(1) << ((HsPlacedActor *) lfirst(lc))->worker;
	return mask;
}

/* ---------------------------------------------------------------------
 * Graphs and their actors
 * ---------------------------------------------------------------------
 */

HsGraph *
HsGraphFind(uint32 graph_id, bool create)
{
	ListCell   *lc;
	HsGraph    *g;

	foreach(lc, hs_manager.graphs)
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
	hs_manager.graphs = lappend(hs_manager.graphs, g);
	return g;
}

/*
 * Forget the graphs that run nothing and have nothing to do: their actors
 * were stopped (a dropped view, a source no view reads any more), and every
 * barrier injected into them completed.  A graph whose actors come back (a
 * view being rebuilt) is found again as a new one (HsGraphFind), which
 * starts at its tables' committed epoch, as after a restart.
 */
void
HsGraphsForgetEmpty(void)
{
	ListCell   *lc;

	foreach(lc, hs_manager.graphs)
	{
		HsGraph    *g = lfirst(lc);

		if (g->actors != NIL || g->pending_add != NIL || g->pending_stop != NIL ||
			g->pending_update != NIL || g->inflight != NIL ||
			g->state == HS_GRAPH_RESETTING)
			continue;
		/* (a failed view's waiters see it gone) */
		if (g->failed)
			hs_manager.failure_changed = true;
		hs_manager.graphs = foreach_delete_current(hs_manager.graphs, lc);
		pfree(g);
	}
}

HsPlacedActor *
HsPlacedActorMake(const HsActorSpec *spec, int worker)
{
	HsPlacedActor *a = palloc(offsetof(HsPlacedActor, tables) +
							  sizeof(HsTableId) * spec->n_state_tables);

	a->spec = *spec;
	a->worker = worker;
	if (spec->n_state_tables > 0)
		memcpy(a->tables, spec->state_tables, sizeof(HsTableId) * spec->n_state_tables);
	a->spec.state_tables = a->tables;
	return a;
}

HsPlacedActor *
HsGraphFindActor(List *actors, uint32 actor_id)
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

void
HsGraphRecordBarrier(HsGraph *g, HsInflightBarrier *b, TimestampTz committed_at)
{
	HsBarrierRecord *r;

	SpinLockAcquire(&hs_manager.db->barrier_mutex);
	r = &hs_manager.db->ring[hs_manager.db->ring_next];
	r->graph_id = g ? g->graph_id : 0;
	r->kind = b->kind;
	r->prev_epoch = b->prev_epoch;
	r->curr_epoch = b->curr_epoch;
	r->injected_at = b->injected_at;
	r->collected_at = b->collected_at;
	r->committed_at = committed_at;
	hs_manager.db->ring_next = (hs_manager.db->ring_next + 1) % HS_BARRIER_RING;
	SpinLockRelease(&hs_manager.db->barrier_mutex);
}

/*
 * A graph's reset is complete (every worker that hosted it confirmed, or
 * is gone): it waits in FAILED for its backoff delay, then starts again
 * from its committed epoch.
 */
void
HsGraphResetDone(HsGraph *g)
{
	g->state = HS_GRAPH_FAILED;
	g->last_injected = 0;
	g->reset_done_at = GetCurrentTimestamp();
	g->retry_at = TimestampTzPlusMilliseconds(g->reset_done_at,
											  HsGraphBackoffMs(g->failures));
	hs_manager.failure_changed = true;
}

/*
 * A graph failed (why: the FAILURE message's text, or the worker that
 * exited, lost_worker): drop its in-flight barriers and tell its workers
 * to drop it.
 */
void
HsGraphReset(HsGraph *g, const char *why, bool lost_worker)
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
	hs_manager.failure_changed = true;
	{
		ListCell   *lb;

		foreach(lb, g->inflight)
			HsInflightFree(lfirst(lb));
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
	for (int i = 0; i < hs_manager.nworkers; i++)
	{
		if (!(mask & (UINT64CONST(1) << i)))
			continue;
		if (HsWorkerSend(i, &msg, sizeof(msg)))
			g->reset_pending |= UINT64CONST(1) << i;
	}
	if (g->reset_pending == 0)
		HsGraphResetDone(g);
}

/* The first compute worker of g that is not running, or -1. */
int
HsGraphMissingWorker(const HsGraph *g)
{
	uint64		mask = HsGraphWorkerMask(g);

	for (int i = 0; i < hs_manager.nworkers; i++)
		if ((mask & (UINT64CONST(1) << i)) && !hs_manager.workers[i].alive)
			return i;
	return -1;
}

/*
 * Before a barrier: a failed graph whose delay has passed starts again
 * (INITIALIZING), once every compute worker it needs runs.  A graph about
 * to start on a worker that does not run waits in FAILED for it, with the
 * reason in last_error (it cannot start for lack of a worker slot).
 */
void
HsGraphRetry(HsGraph *g, TimestampTz now)
{
	int			missing;

	if (g->state == HS_GRAPH_FAILED && g->retry_requested)
	{
		/* a wait() asked (see HsGraphBackoffMs) */
		TimestampTz soon = TimestampTzPlusMilliseconds(g->reset_done_at,
													   HS_GRAPH_BACKOFF_MIN_MS);

		g->retry_requested = false;
		if (soon < g->retry_at)
		{
			g->retry_at = soon;
			hs_manager.failure_changed = true;
		}
	}
	if (g->state == HS_GRAPH_FAILED && now < g->retry_at)
		return;
	if (g->state != HS_GRAPH_FAILED && g->state != HS_GRAPH_INITIALIZING)
		return;
	missing = HsGraphMissingWorker(g);
	if (missing >= 0)
	{
		char		why[sizeof(g->last_error)];

		snprintf(why, sizeof(why), HS_NO_WORKER_SLOT_MSG, missing);
		if (g->state != HS_GRAPH_FAILED || !g->failed || strcmp(why, g->last_error) != 0)
			hs_manager.failure_changed = true;
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

/*
 * Aligned rounds (HsDbStateRecordAligned).  A round is aligned when it is
 * a checkpoint and no graph that advances is past its in-flight limit; it
 * is then injected into every graph up to one barrier past that limit.  So
 * a slow graph, at its limit, skips the rounds that are not aligned and
 * takes the next aligned one as soon as one of its barriers completes,
 * while the graphs that keep up take every round: all of them hold each
 * aligned round's snapshot at its prev epoch, and the global read epoch is
 * the newest aligned epoch every view committed.  Rounds skipped one graph
 * at a time would leave no epoch at which all views hold one snapshot (a
 * view read at an epoch it skipped shows its older commit).
 *
 * Does g hold back aligned rounds now: a graph that advances (running
 * actors, not failed, no commit held back, committed within the time-travel
 * retention, as HsGlobalReadEpoch counts them) and is past its limit.
 */
bool
HsGraphHoldsBackAlignment(const HsGraph *g, HsEpoch horizon)
{
	if (g->state != HS_GRAPH_RUNNING || g->failed || g->commit_held ||
		(g->actors == NIL && g->pending_add == NIL) || g->committed_epoch < horizon)
		return false;
	return list_length(g->inflight) > hs_max_inflight_barriers;
}

/* g does not take aligned round e as such: its exact run ends there. */
static void
missed_aligned(HsGraph *g, HsEpoch e)
{
	g->last_missed = Max(g->last_missed, e);
	if (g->exact_since != 0 && g->exact_until == HS_EPOCH_MAX && e > g->exact_since)
		g->exact_until = e;
}

/* g committed aligned epoch e: a run starts there unless one goes on. */
static void
committed_aligned(HsGraph *g, HsEpoch e)
{
	if (g->exact_since != 0 && g->exact_since <= e && e < g->exact_until)
		return;
	g->exact_since = e;
	/* (a round it missed since: exact at e alone) */
	g->exact_until = g->last_missed > e ? e + 1 : HS_EPOCH_MAX;
}

/*
 * Inject the barrier of the round prev -> curr (snapshot: the round's)
 * into the workers of graph g; aligned: the round is aligned (above).
 *
 * The rows a graph's barrier brings (those of the round's snapshot that
 * the graph has not read yet) are written and committed at the barrier's
 * prev epoch: every graph that takes each round's barrier holds at epoch
 * prev exactly what the round's snapshot shows.  A slow graph skips
 * rounds (at its in-flight limit); its next barrier goes from the round's
 * prev too, not from the last epoch it was injected (whose rows would then
 * be those of a snapshot taken rounds later: a read at that epoch, global
 * or by time travel, would see rows committed after it).  A graph's first
 * barrier after its Initial one, or after its creation's backfill, starts
 * there likewise.  The epochs it skipped hold what it held before them.
 */
void
HsGraphInject(HsGraph *g, HsEpoch prev, HsEpoch curr, HsBarrierKind kind, bool aligned,
			 TimestampTz now, const char *snapshot)
{
	HsEpoch		from;

	HsInflightBarrier *b;
	uint64		mask;
	HsMsgInject *msg;
	Size		snap_len = strlen(snapshot) + 1;

	if (g->state == HS_GRAPH_RESETTING || g->state == HS_GRAPH_FAILED ||
		(g->last_injected ? g->last_injected : g->committed_epoch) >= curr ||
		list_length(g->inflight) >= hs_max_inflight_barriers + (aligned ? 1 : 0))
	{
		/* (failed, committed past this epoch (a new view), or slow) */
		if (aligned)
			missed_aligned(g, prev);
		return;
	}
	if (g->state == HS_GRAPH_INITIALIZING)
	{
		/*
		 * It starts over from its committed state: no aligned epoch it
		 * holds exactly until it commits one again.
		 */
		kind = HS_BARRIER_INITIAL;
		g->exact_since = 0;
		g->exact_until = HS_EPOCH_MAX;
		g->last_missed = Max(g->last_missed, prev);
	}

	mask = HsGraphWorkerMask(g);
	from = g->last_injected ? g->last_injected : g->committed_epoch;
	if (kind != HS_BARRIER_INITIAL && prev > from && prev < curr)
		from = prev;
	b = MemoryContextAllocZero(hs_manager.cxt, sizeof(HsInflightBarrier));
	b->prev_epoch = from;
	b->curr_epoch = curr;
	b->kind = kind;
	b->injected_at = now;
	b->to_collect = 0;
	b->snapshot = MemoryContextStrdup(hs_manager.cxt, snapshot);
	b->tables_exist = g->is_stream_job;
	b->aligned = aligned && kind == HS_BARRIER_CHECKPOINT && from == prev && mask != 0;
	if (aligned && !b->aligned)
		missed_aligned(g, prev);

	/*
	 * The actor arrays (and the added actors' state tables after them) only
	 * when the barrier carries a mutation; the snapshot text last.
	 */
	{
		Size		max_len = offsetof(HsMsgInject, add);

		if (g->pending_add != NIL || g->pending_update != NIL ||
			g->pending_stop != NIL)
		{
			ListCell   *lc;

			max_len = sizeof(HsMsgInject);
			foreach(lc, g->pending_add)
				max_len += sizeof(HsTableId) *
					((HsPlacedActor *) lfirst(lc))->spec.n_state_tables;
		}
		msg = palloc0(max_len + snap_len);
	}
	for (int i = 0; i < hs_manager.nworkers; i++)
	{
		ListCell   *lc;
		Size		len;
		HsTableId  *add_tables = (HsTableId *) (msg + 1);

		if (!(mask & (UINT64CONST(1) << i)))
			continue;
		msg->type = HS_MSG_INJECT;
		msg->kind = (uint8) kind;
		msg->graph_id = g->graph_id;
		msg->prev_epoch = b->prev_epoch;
		msg->curr_epoch = curr;
		msg->n_add = msg->n_stop = msg->n_update = 0;
		msg->n_add_tables = 0;
		/* an Initial barrier rebuilds the actors in the graph's pause state */
		if (g->want_paused != g->paused || kind == HS_BARRIER_INITIAL)
			msg->pause = g->want_paused ? HS_PAUSE : HS_RESUME;
		else
			msg->pause = HS_PAUSE_NONE;
		foreach(lc, g->pending_update)
		{
			HsPlacedActor *a = lfirst(lc);

			if (a->worker == i && msg->n_update < HS_MSG_MAX_ACTORS)
			{
				HsActorSpec *u = &msg->update[msg->n_update++];

				*u = a->spec;
				u->n_state_tables = 0;
				u->state_tables = NULL;
			}
		}
		foreach(lc, g->pending_add)
		{
			HsPlacedActor *a = lfirst(lc);

			if (a->worker == i && msg->n_add < HS_MSG_MAX_ACTORS)
			{
				HsActorSpec *s = &msg->add[msg->n_add++];

				*s = a->spec;
				s->state_tables = NULL;
				if (a->spec.n_state_tables > 0)
					memcpy(add_tables + msg->n_add_tables, a->spec.state_tables,
						   sizeof(HsTableId) * a->spec.n_state_tables);
				msg->n_add_tables += a->spec.n_state_tables;
			}
		}
		foreach(lc, g->pending_stop)
		{
			HsPlacedActor *a = lfirst(lc);

			if (a->worker == i && msg->n_stop < HS_MSG_MAX_ACTORS)
				msg->stop[msg->n_stop++] = a->spec.actor_id;
		}
		len = (msg->n_add || msg->n_stop || msg->n_update) ?
			sizeof(HsMsgInject) + sizeof(HsTableId) * msg->n_add_tables :
			offsetof(HsMsgInject, add);
		msg->snapshot_len = (uint32) snap_len;
		memcpy((char *) msg + len, snapshot, snap_len);
		len += snap_len;
		if (HsWorkerSend(i, msg, len))
			b->to_collect |= UINT64CONST(1) << i;
	}
	pfree(msg);

	/* the mutation is applied: added actors run, stopped ones are gone */
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(hs_manager.cxt);
		ListCell   *lc;

		g->actors = list_concat(g->actors, g->pending_add);
		list_free(g->pending_add);
		g->pending_add = NIL;
		foreach(lc, g->pending_update)
		{
			HsPlacedActor *u = lfirst(lc);
			HsPlacedActor *a = HsGraphFindActor(g->actors, u->spec.actor_id);

			if (a)
			{
				a->spec.param = u->spec.param;
				a->spec.flags = u->spec.flags;
			}
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

				int			n = HsActorSpecNumTables(&a->spec);

				for (int k = 0; k < n; k++)
					b->tables = lappend_int(b->tables, (int) HsActorSpecTable(&a->spec, k));
			}
		}
		g->inflight = lappend(g->inflight, b);
		MemoryContextSwitchTo(oldcxt);
	}
	g->last_injected = curr;
	if (g->state == HS_GRAPH_INITIALIZING)
		g->state = HS_GRAPH_RUNNING;
}

void
HsInflightFree(HsInflightBarrier *b)
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
 *
 * A job whose checkpoints wrote nothing (no SST, no change log: its state
 * is what it was at the position the catalog holds) keeps that older
 * position for up to HS_POSITION_SAVE_MS: recovering from it reads again
 * what the job read since, which changes nothing again, so either position
 * is right for the committed state.  With many idle views at short
 * barrier intervals this spares an update of every job's catalog row per
 * round; the bound keeps the capture logs trimmed (behind the oldest
 * position) however long a job reads rows that change nothing.
 */
#define HS_POSITION_SAVE_MS 1000

static bool
checkpoints_wrote(List *mine)
{
	ListCell   *lc;

	foreach(lc, mine)
	{
		HsInflightBarrier *b = lfirst(lc);

		if (b->ssts != NIL || b->change_logs != NIL)
			return true;
	}
	return false;
}

/*
 * Save the positions of the committing jobs that need it (above), in the
 * commit's transaction, in one statement that skips the rows another
 * transaction holds (a DROP of the view in an open transaction block,
 * which deletes the row and removes the view's tables from the version
 * only at its pre-commit; an ALTER of the view).  Such a job is held back:
 * none of its barriers commit this round, they stay in flight for the
 * next one, and its graph leaves per_graph and committers (returned in
 * the list of held graphs).  So a commit round never waits for a user's
 * transaction, which may itself wait at its pre-commit for the version
 * head this round holds, and the other views go on committing.
 */
static List *
save_positions(List **per_graph, List **committers)
{
	ListCell   *lc;
	ListCell   *lg;
	TimestampTz now = GetCurrentTimestamp();
	int			n = 0;
	int			max = list_length(*per_graph);
	Oid		   *ids = palloc(sizeof(Oid) * Max(max, 1));
	const char **snapshots = palloc(sizeof(char *) * Max(max, 1));
	HsEpoch    *views = palloc(sizeof(HsEpoch) * Max(max, 1));
	bool	   *saving = palloc(sizeof(bool) * Max(max, 1));
	bool	   *saved = palloc(sizeof(bool) * Max(max, 1));
	List	   *kept_mine = NIL;
	List	   *kept_graphs = NIL;
	List	   *held = NIL;
	MemoryContext old;
	int			i = 0;

	forboth(lc, *per_graph, lg, *committers)
	{
		List	   *mine = lfirst(lc);
		HsInflightBarrier *b = llast(mine);
		HsGraph    *g = lfirst(lg);

		saving[i] = g->is_stream_job && b->snapshot != NULL &&
			(checkpoints_wrote(mine) ||
			 TimestampDifferenceExceeds(g->position_saved_at, now, HS_POSITION_SAVE_MS));
		if (saving[i++])
		{
			ids[n] = g->graph_id;
			snapshots[n] = b->snapshot;
			views[n] = b->prev_epoch;
			n++;
		}
	}
	HsCatalogSetPositions(n, ids, snapshots, views, saved);
	/* (the lists outlive this transaction: where the caller made them) */
	old = MemoryContextSwitchTo(GetMemoryChunkContext(*per_graph));
	i = 0;
	n = 0;
	forboth(lc, *per_graph, lg, *committers)
	{
		HsGraph    *g = lfirst(lg);

		if (saving[i++])
		{
			if (!saved[n++])
			{
				held = lappend(held, g);
				list_free(lfirst(lc));
				continue;
			}
			g->position_saved_at = now;
		}
		kept_mine = lappend(kept_mine, lfirst(lc));
		kept_graphs = lappend(kept_graphs, g);
	}
	MemoryContextSwitchTo(old);
	list_free(*per_graph);
	list_free(*committers);
	*per_graph = kept_mine;
	*committers = kept_graphs;
	pfree(ids);
	pfree(snapshots);
	pfree(views);
	pfree(saving);
	pfree(saved);
	return held;
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
void
HsGraphsComplete(void)
{
	List	   *per_graph = NIL;	/* List * of checkpoints, one per graph */
	List	   *committers = NIL;	/* HsGraph *: the graph of each */
	List	   *held = NIL;		/* HsGraph *: held back (save_positions) */
	ListCell   *lc;
	TimestampTz committed_at = 0;
	bool		any = false;

	foreach(lc, hs_manager.graphs)
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
			committers = lappend(committers, g);
			any = true;
		}
	}

	if (any)
	{
		HsVersion  *current;

		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		/*
		 * The head first: a drop that committed meanwhile is in the version
		 * read next, and none can commit until these commits do (a drop
		 * removes its tables at its pre-commit, under the head's lock; a
		 * commit of a removed table would fail).
		 */
		HsHummockLockVersionHead();
		current = HsHummockCurrentVersion();
		held = save_positions(&per_graph, &committers);
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
		HsVersionUnref(current);
		PopActiveSnapshot();
		CommitTransactionCommand();
		committed_at = GetCurrentTimestamp();
	}
	foreach(lc, per_graph)
		list_free(lfirst(lc));
	list_free(per_graph);
	list_free(committers);

	foreach(lc, hs_manager.graphs)
	{
		HsGraph    *g = lfirst(lc);
		uint64		notify = 0;

		if (list_member_ptr(held, g))
		{
			if (!g->commit_held)
				hs_manager.failure_changed = true;	/* (published at once) */
			g->commit_held = true;
			continue;
		}
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
				if (b->aligned)
					committed_aligned(g, b->prev_epoch);
				g->commits++;
				g->last_commit_at = commit_ts;
				/* healthy again: the error and the backoff go */
				if (g->failed || g->commit_held)
					hs_manager.failure_changed = true;
				g->failed = false;
				g->commit_held = false;
				g->failures = 0;
				g->retry_requested = false;
				g->last_error[0] = '\0';
				if (b->tables != NIL)
					notify |= b->to_collect;
			}
			HsGraphRecordBarrier(g, b, commit_ts);
			g->inflight = list_delete_first(g->inflight);
			HsInflightFree(b);
		}
		if (notify)
		{
			HsMsgCommitted msg;

			msg.type = HS_MSG_COMMITTED;
			msg.graph_id = g->graph_id;
			msg.epoch = g->committed_epoch;
			for (int i = 0; i < hs_manager.nworkers; i++)
				if (notify & (UINT64CONST(1) << i))
					(void) HsWorkerSend(i, &msg, sizeof(msg));
		}
	}
	list_free(held);
}
