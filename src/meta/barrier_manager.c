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
 *	  each with one control channel (channel.h, barrier_msg.h), and the
 *	  compactor (worker_pool.c);
 *	- the partial graphs of the database.  A graph is the set of actors a
 *	  barrier stream is injected into and collected from as a unit; its
 *	  actors live on one or more workers.  Each graph has its own chain of
 *	  barriers (prev of one = curr of the previous one *of that graph*), its
 *	  own in-flight limit (hummock_stream.max_inflight_barriers) and its own
 *	  committed epoch.  A slow graph stops receiving barriers when it
 *	  reaches its limit; the others go on, so it never holds their commits.
 *	  Their life cycle (inject, complete, commit, reset, back off) is in
 *	  partial_graph.c.
 *
 * The graphs come from the catalog: a view's job is one graph (catalog.c;
 * graph id = the view's OID), and registered graph sources add others
 * (graph_source.h; the test module's test_actors, for instance).  Both are
 * reread when a backend changes them and wakes the manager, and the change
 * rides on the next barrier of the graph as an Add, Stop, Update, Pause or
 * Resume mutation.
 *
 * The process's state is hs_manager (barrier_manager_internal.h).
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
#include "catalog/dependency.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_class.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/barrier_msg.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/channel.h"
#include "hummock_stream/meta/compactor.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/graph_source.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/meta/launcher.h"
#include "hummock_stream/meta/partial_graph.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/pg/user_context.h"
#include "hummock_stream/storage/coding.h"

#include "barrier_manager_internal.h"

int			hs_barrier_interval_ms = 1000;
int			hs_checkpoint_frequency = 1;
int			hs_max_inflight_barriers = 16;
int			hs_compute_workers = 2;

/* How often the capture logs are trimmed. */
#define CAPTURE_TRIM_INTERVAL_MS 1000

static volatile sig_atomic_t stop_pending = false;

HsManager	hs_manager;

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
	for (int i = 0; i < hs_manager.nworkers; i++)
		if (hs_manager.workers[i].handle)
			TerminateBackgroundWorker(hs_manager.workers[i].handle);
	if (hs_manager.compactor)
		TerminateBackgroundWorker(hs_manager.compactor);
	HsDbStateManagerDetach(hs_manager.dboid, code);
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

/*
 * The compute worker a new actor goes to: the one hosting the fewest
 * actors (running or about to start, of every graph), so that views
 * spread evenly over the workers; among those, the one its id names
 * (actor_id modulo the workers), else the first.  An actor stays where
 * it was placed.
 */
static int
place_actor(const HsActorSpec *spec)
{
	int		   *hosted = palloc0(sizeof(int) * hs_manager.nworkers);
	int			preferred = (int) (spec->actor_id % hs_manager.nworkers);
	int			best = preferred;
	ListCell   *lc;
	ListCell   *la;

	foreach(lc, hs_manager.graphs)
	{
		HsGraph    *g = lfirst(lc);

		foreach(la, g->actors)
			hosted[((HsPlacedActor *) lfirst(la))->worker]++;
		foreach(la, g->pending_add)
			hosted[((HsPlacedActor *) lfirst(la))->worker]++;
	}
	for (int w = 0; w < hs_manager.nworkers; w++)
		if (hosted[w] < hosted[best])
			best = w;
	pfree(hosted);
	return best;
}

/*
 * The graph g should run the actor spec: add it, or if it runs with
 * another param or other flags, update it by its graph's next barrier.
 */
static void
want_actor(HsGraph *g, const HsActorSpec *spec)
{
	HsPlacedActor *a;
	HsPlacedActor *u;

	if ((a = HsGraphFindActor(g->actors, spec->actor_id)) != NULL)
	{
		u = HsGraphFindActor(g->pending_update, spec->actor_id);
		if (u != NULL)
		{
			/* a second change before the first rode: the newest wins */
			u->spec.param = spec->param;
			u->spec.flags = spec->flags;
		}
		else if (a->spec.param != spec->param || a->spec.flags != spec->flags)
		{
			u = palloc(sizeof(HsPlacedActor));
			*u = *a;
			u->spec.param = spec->param;
			u->spec.flags = spec->flags;
			g->pending_update = lappend(g->pending_update, u);
		}
	}
	else if ((a = HsGraphFindActor(g->pending_add, spec->actor_id)) != NULL)
	{
		/* not running (a failed graph): it starts with the new spec */
		a->spec.param = spec->param;
		a->spec.flags = spec->flags;
	}
	else
	{
		a = HsPlacedActorMake(spec, place_actor(spec));
		g->pending_add = lappend(g->pending_add, a);
	}
}

/*
 * Reread the graphs: the views' jobs from the catalog and the actors and
 * pause states of every registered graph source (graph_source.h).  Actors
 * that appeared are added by the next barrier of their graph, actors that
 * disappeared are stopped by it, and an actor whose param or flags
 * changed is updated by it.  A view keeps a change log if its owner asked
 * for one, if a view reads it, or while a process asks for it
 * (HsLogRequest): the requests are read before the catalog, so that a
 * request released at its commit shows in the catalog instead.  injected:
 * the newest epoch injected (or committed) so far.
 */
static void
reload_graphs(HsEpoch injected)
{
	List	   *seen = NIL;
	List	   *jobs;
	List	   *src_actors = NIL;
	List	   *src_graphs = NIL;
	ListCell   *lc;
	MemoryContext oldcxt;
	Oid			log_wanted[HS_MAX_LOG_REQUESTS];
	int			n_log_wanted;

	n_log_wanted = HsDbStateLogRequestsTake(hs_manager.db, injected, log_wanted,
											HS_MAX_LOG_REQUESTS);

	/*
	 * Graphs that run no actor now (a view being rebuilt stopped its
	 * actor): noted before the catalog may give them actors again, for
	 * the same reload may be the first since they emptied.
	 */
	foreach(lc, hs_manager.graphs)
	{
		HsGraph    *g = lfirst(lc);

		if (g->actors == NIL && g->pending_add == NIL && g->inflight == NIL)
			g->emptied = true;
	}
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	HsGraphSourcesCollect(&src_actors, &src_graphs);

	oldcxt = MemoryContextSwitchTo(hs_manager.cxt);
	foreach(lc, src_actors)
	{
		HsSourceActor *sa = lfirst(lc);

		seen = lappend_int(seen, (int) sa->spec.actor_id);
		want_actor(HsGraphFind(sa->graph_id, true), &sa->spec);
	}
	/* streaming jobs: one graph and one actor each (graph id = job id) */
	MemoryContextSwitchTo(oldcxt);
	jobs = HsCatalogJobs();
	MemoryContextSwitchTo(hs_manager.cxt);
	foreach(lc, jobs)
	{
		HsJobRow   *job = lfirst(lc);
		HsActorSpec spec;
		HsGraph    *g;
		bool		log = job->keeps_log;

		if (strcmp(job->state, "created") != 0)
			continue;
		memset(&spec, 0, sizeof(spec));
		spec.actor_id = job->job_id;
		spec.kind = HS_ACTOR_STREAM_JOB;
		spec.table_id = spec.actor_id;
		for (int k = 0; k < n_log_wanted; k++)
			log = log || log_wanted[k] == job->job_id;
		if (log)
			spec.flags |= HS_ACTOR_KEEP_CHANGE_LOG;
		spec.n_state_tables = (uint32) job->n_state_tables;
		spec.state_tables = (const HsTableId *) job->state_tables;
		g = HsGraphFind(spec.actor_id, true);
		g->is_stream_job = true;
		seen = lappend_int(seen, (int) spec.actor_id);
		want_actor(g, &spec);
	}

	/* actors gone from the catalog and the sources are stopped */
	foreach(lc, hs_manager.graphs)
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
	/* paused graphs: as the sources say, the others run */
	foreach(lc, hs_manager.graphs)
		((HsGraph *) lfirst(lc))->want_paused = false;
	foreach(lc, src_graphs)
	{
		HsSourceGraph *sg = lfirst(lc);
		HsGraph    *g = HsGraphFind(sg->graph_id, false);

		if (g)
			g->want_paused = sg->paused;
	}
	MemoryContextSwitchTo(oldcxt);

	/*
	 * A graph whose actors all stopped (a view being rebuilt) and that gets
	 * actors again starts over, as a new graph would: its tables may have
	 * committed epochs its old chain of barriers never reached.
	 */
	foreach(lc, hs_manager.graphs)
	{
		HsGraph    *g = lfirst(lc);

		if (g->actors == NIL && g->pending_add == NIL && g->inflight == NIL)
			g->emptied = true;
		else if (g->emptied && g->pending_add != NIL && g->inflight == NIL &&
				 g->state != HS_GRAPH_RESETTING)
		{
			/* a new start: no backoff, no failure carried over */
			g->emptied = false;
			g->state = HS_GRAPH_INITIALIZING;
			g->last_injected = 0;
			g->failed = false;
			g->failures = 0;
			g->retry_at = 0;
			g->last_error[0] = '\0';
			hs_manager.failure_changed = true;
		}
	}

	/*
	 * A graph that (re)starts begins at its tables' committed epoch: its
	 * Initial barrier has that prev epoch and its actors restore that state.
	 * (The newest version: a creation whose job row was read above may not
	 * have published its first commit yet.)
	 */
	{
		HsVersion  *v = HsHummockNewestVersion();

		foreach(lc, hs_manager.graphs)
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
				int			n = HsActorSpecNumTables(&a->spec);

				for (int k = 0; k < n; k++)
				{
					HsEpoch		e = 0;

					(void) HsVersionCommittedEpoch(v, HsActorSpecTable(&a->spec, k), &e);
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
 * Status in shared memory
 * ---------------------------------------------------------------------
 */

/* Graph g's status, as partial_graphs shows it. */
static void
fill_graph_status(HsGraphStatus *s, const HsGraph *g)
{
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
	s->waits_for_worker = g->state == HS_GRAPH_FAILED && g->waits_for_worker;
	s->commit_held = g->commit_held;
	s->exact_since = g->exact_since;
	s->exact_until = g->exact_until;
	s->retry_at = g->state == HS_GRAPH_FAILED ? g->retry_at : 0;
	strlcpy(s->last_error, g->last_error, sizeof(s->last_error));
}

/*
 * Graphs that do not advance (failed since their last commit, running no
 * actor, or with their commits held back by a transaction that holds their
 * job's row) are published first: with more graphs than the status has
 * room for, wait(), jobs and the global read epoch still see every one
 * that holds them back.
 */
static bool
graph_stalled(const HsGraph *g)
{
	return g->failed || g->commit_held || (g->actors == NIL && g->pending_add == NIL) ||
		g->exact_since == 0 || g->exact_until != HS_EPOCH_MAX;
}

static void
publish_status(HsEpoch last_injected)
{
	int			n = 0;
	ListCell   *lc;

	SpinLockAcquire(&hs_manager.db->barrier_mutex);
	hs_manager.db->last_injected = last_injected;
	for (int pass = 0; pass < 2; pass++)
		foreach(lc, hs_manager.graphs)
		{
			HsGraph    *g = lfirst(lc);

			if (n >= HS_MAX_GRAPH_STATUS)
				break;
			if (graph_stalled(g) == (pass == 0))
				fill_graph_status(&hs_manager.db->graphs[n++], g);
		}
	hs_manager.db->n_graphs = n;
	hs_manager.db->graphs_published = true;
	hs_manager.db->n_workers = Min(hs_manager.nworkers, HS_MAX_WORKER_STATUS);
	for (int i = 0; i < hs_manager.db->n_workers; i++)
	{
		int			hosted = 0;

		foreach(lc, hs_manager.graphs)
			if (HsGraphWorkerMask(lfirst(lc)) & (UINT64CONST(1) << i))
				hosted++;
		hs_manager.db->workers[i].pid = hs_manager.workers[i].alive ? hs_manager.workers[i].pid : 0;
		hs_manager.db->workers[i].start_failed = hs_manager.workers[i].start_failures > 0;
		hs_manager.db->workers[i].n_graphs = (int16) hosted;
		hs_manager.db->workers[i].starts = hs_manager.workers[i].starts;
		hs_manager.db->workers[i].started_at = hs_manager.workers[i].started_at;
	}
	SpinLockRelease(&hs_manager.db->barrier_mutex);
	/* wait() fails at once on a failed view, and returns on a healed one */
	if (hs_manager.failure_changed)
	{
		hs_manager.failure_changed = false;
		HsDbStateNotify(hs_manager.db);
	}
}

/* The graphs wait() asked to start again soon (HsGraphBackoffMs). */
static void
take_retry_requests(void)
{
	uint32		ids[HS_MAX_RETRY_REQUESTS];
	int			n = HsDbStateRetryRequestsTake(hs_manager.db, ids, HS_MAX_RETRY_REQUESTS);
	ListCell   *lc;

	for (int i = 0; i < n; i++)
		foreach(lc, hs_manager.graphs)
		{
			HsGraph    *g = lfirst(lc);

			if (g->graph_id == ids[i] && g->failed)
				g->retry_requested = true;
		}
}

static bool
take_reload_request(void)
{
	bool		r;

	SpinLockAcquire(&hs_manager.db->barrier_mutex);
	r = hs_manager.db->reload_requested;
	hs_manager.db->reload_requested = false;
	SpinLockRelease(&hs_manager.db->barrier_mutex);
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
	text = MemoryContextStrdup(hs_manager.cxt, text);
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

	foreach(lc, hs_manager.graphs)
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

/* The views whose job is in state (read in a transaction of its own). */
static List *
jobs_in_state(const char *state)
{
	List	   *out = NIL;
	ListCell   *lc;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	foreach(lc, HsCatalogJobs())
	{
		HsJobRow   *job = lfirst(lc);

		if (strcmp(job->state, state) == 0)
		{
			MemoryContext old = MemoryContextSwitchTo(hs_manager.cxt);

			out = lappend_oid(out, job->job_id);
			MemoryContextSwitchTo(old);
		}
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
	return out;
}

/*
 * Drop the views left half-created: in state 'creating' with no live
 * creator (view_create.c), which happens only when a crash took the
 * creator and the cleanup it does on error or cancel.  Each is dropped in
 * a transaction of its own, under its relation's AccessExclusiveLock and
 * after reading its state again (its creator may have finished since we
 * listed it); a relation someone holds is left for the next round.
 */
static void
drop_orphan_creations(void)
{
	List	   *orphans = NIL;
	ListCell   *lc;

	if (hs_manager.db == NULL)
		return;
	orphans = jobs_in_state("creating");
	foreach(lc, orphans)
		if (HsDbStateCreating(hs_manager.db, lfirst_oid(lc), NULL))
			orphans = foreach_delete_current(orphans, lc);

	foreach(lc, orphans)
	{
		Oid			view = lfirst_oid(lc);
		HsJobRow	job;

		StartTransactionCommand();
		if (ConditionalLockRelationOid(view, AccessExclusiveLock))
		{
			PushActiveSnapshot(GetTransactionSnapshot());
			if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)) &&
				HsCatalogReadJob(view, &job) && strcmp(job.state, "creating") == 0 &&
				!HsDbStateCreating(hs_manager.db, view, NULL))
			{
				ObjectAddress addr;
				char	   *name = get_rel_name(view);

				ObjectAddressSet(addr, RelationRelationId, view);
				performDeletion(&addr, DROP_CASCADE, PERFORM_DELETION_INTERNAL);
				ereport(LOG,
						(errmsg("hummock_stream dropped streaming materialized view \"%s\", left half-created",
								name ? name : "?"),
						 errdetail("Its creator ended without finishing or cleaning up (a crash)."),
						 errhint("Create the view again.")));
			}
			PopActiveSnapshot();
		}
		CommitTransactionCommand();
	}
	list_free(orphans);
}

/*
 * Views left 'rebuilding' by a rebuild that ended without finishing (an
 * error, a cancel, a crash: its lock is free, HsCatalogRebuildBegin) go
 * on from their state before it: 'created' again, each in a transaction
 * of its own, after reading the state again under the lock.
 */
static void
resume_abandoned_rebuilds(void)
{
	List	   *abandoned = NIL;
	ListCell   *lc;

	if (hs_manager.db == NULL)
		return;
	abandoned = jobs_in_state("rebuilding");

	foreach(lc, abandoned)
	{
		Oid			view = lfirst_oid(lc);
		HsJobRow	job;

		StartTransactionCommand();
		if (HsCatalogRebuildAbandoned(view))
		{
			PushActiveSnapshot(GetTransactionSnapshot());
			if (HsCatalogReadJob(view, &job) && strcmp(job.state, "rebuilding") == 0)
			{
				char	   *name = get_rel_name(view);

				HsCatalogSetState(view, "created");
				HsWakeManagerOnCommit();
				ereport(LOG,
						(errmsg("hummock_stream resumes streaming materialized view \"%s\", left rebuilding",
								name ? name : "?"),
						 errdetail("Its rebuild ended without finishing (an error, a cancel or a crash); it goes on from its state before the rebuild."),
						 errhint("Call hummock_stream.rebuild() again to rebuild it.")));
			}
			PopActiveSnapshot();
		}
		CommitTransactionCommand();
	}
	list_free(abandoned);
}

/* The housekeeping of the layers above (launcher.h), or NULL. */
static HsManagerChoreFn manager_chore = NULL;

void
HsBarrierManagerSetChore(HsManagerChoreFn chore)
{
	manager_chore = chore;
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

/* May this round be aligned (partial_graph.c): no graph holds it back? */
static bool
round_can_align(void)
{
	HsEpoch		horizon = HsEpochMsAgo(hs_time_travel_retention_ms);
	ListCell   *lc;

	foreach(lc, hs_manager.graphs)
		if (HsGraphHoldsBackAlignment(lfirst(lc), horizon))
			return false;
	return true;
}

void
HsBarrierManagerMain(Datum main_arg)
{
	HsEpoch		prev;
	int			since_checkpoint = 0;
	TimestampTz next_barrier_at;
	TimestampTz next_trim_at = 0;
	HsAttachResult attach;
	uint64		claims_seen;

	hs_manager.dboid = DatumGetObjectId(main_arg);

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, manager_sigterm);
	BackgroundWorkerUnblockSignals();

	/*
	 * Decide before connecting: the database may be being dropped (its
	 * slot then says stop).  Without a free slot we still connect, to learn
	 * whether the database uses the extension at all.
	 */
	attach = HsDbStateManagerAttach(hs_manager.dboid, &claims_seen);
	if (attach == HS_ATTACH_STOP)
		proc_exit(0);
	if (attach == HS_ATTACH_OK)
	{
		before_shmem_exit(manager_exit, (Datum) 0);
		hs_manager.db = HsDbStateGet(hs_manager.dboid, false);
	}

	BackgroundWorkerInitializeConnectionByOid(hs_manager.dboid, InvalidOid, 0);
	pgstat_report_appname("hummock_stream barrier manager");
	/* no ALTER DATABASE/ROLE ... SET search_path or isolation level reaches what we run */
	HsPinWorkerSettings();

	/* version commits stay synchronous: committed epochs never go back after a crash */

	if (!extension_installed())
	{
		/* a database that does not use hummock_stream: its slot goes back */
		if (attach == HS_ATTACH_OK)
			HsDbStateManagerNoExtension(hs_manager.dboid, claims_seen);
		else
			HsDbStateSetManagerProblem(hs_manager.dboid, HS_MANAGER_OK);
		proc_exit(0);
	}
	if (attach == HS_ATTACH_NO_SLOT)
	{
		/* the launcher tries again later */
		HsDbStateSetManagerProblem(hs_manager.dboid, HS_MANAGER_NO_DB_SLOT);
		ereport(LOG,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("hummock_stream barrier manager of database %u cannot run: too many databases use hummock_stream",
						hs_manager.dboid),
				 errhint("Drop the extension in a database that does not need it, or raise hummock_stream.max_databases (now %d) and restart the server.",
						 hs_max_databases)));
		proc_exit(0);
	}
	HsDbStateSetManagerProblem(hs_manager.dboid, HS_MANAGER_OK);

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	HsHummockRemoveOldIncarnations();
	PopActiveSnapshot();
	CommitTransactionCommand();

	hs_manager.cxt = AllocSetContextCreate(TopMemoryContext, "hummock_stream manager",
										   ALLOCSET_DEFAULT_SIZES);
	hs_manager.env = HsEnvPgForContext(hs_manager.cxt);
	hs_manager.nworkers = Max(1, Min(hs_compute_workers, HS_MAX_WORKER_STATUS));
	hs_manager.workers = MemoryContextAllocZero(hs_manager.cxt, sizeof(WorkerSlot) * hs_manager.nworkers);
	for (int i = 0; i < hs_manager.nworkers; i++)
		(void) HsWorkerStart(i);
	HsWorkersMaintain();			/* the compactor */
	(void) take_reload_request();
	prev = Max(hs_manager.db->last_injected, max_committed_epoch());
	reload_graphs(prev);
	prev = next_epoch(prev);
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

		HsWorkersPoll();
		HsWorkersMaintain();
		if (take_reload_request())
		{
			if (!extension_installed())
			{
				/* dropped: stop for good */
				HsDbStateManagerNoExtension(hs_manager.dboid, claims_seen);
				break;
			}
			reload_graphs(prev);
		}

		now = GetCurrentTimestamp();
		if (now >= next_barrier_at)
		{
			HsEpoch		curr = next_epoch(prev);
			bool		checkpoint = (++since_checkpoint >= hs_checkpoint_frequency);
			HsInflightBarrier dbb = {0};
			bool		aligned;
			char	   *snapshot;

			if (checkpoint)
				since_checkpoint = 0;
			take_retry_requests();
			foreach(lc, hs_manager.graphs)
				HsGraphRetry(lfirst(lc), now);
			snapshot = take_snapshot();
			aligned = checkpoint && round_can_align();
			if (aligned)
				HsDbStateRecordAligned(hs_manager.db, prev);
			foreach(lc, hs_manager.graphs)
				HsGraphInject(lfirst(lc), prev, curr,
							 checkpoint ? HS_BARRIER_CHECKPOINT : HS_BARRIER_REGULAR,
							 aligned, now, snapshot);
			pfree(snapshot);

			/* the database's own barrier record (graph 0) */
			dbb.prev_epoch = prev;
			dbb.curr_epoch = curr;
			dbb.kind = checkpoint ? HS_BARRIER_CHECKPOINT : HS_BARRIER_REGULAR;
			dbb.injected_at = now;
			dbb.collected_at = now;
			HsGraphRecordBarrier(NULL, &dbb, 0);
			SpinLockAcquire(&hs_manager.db->barrier_mutex);
			hs_manager.db->barriers_total++;
			SpinLockRelease(&hs_manager.db->barrier_mutex);
			prev = curr;
			next_barrier_at = TimestampTzPlusMilliseconds(now, hs_barrier_interval_ms);
		}

		HsWorkersPoll();
		HsGraphsComplete();
		HsGraphsForgetEmpty();
		publish_status(prev);
		if (GetCurrentTimestamp() >= next_trim_at)
		{
			drop_orphan_creations();
			resume_abandoned_rebuilds();
			if (manager_chore != NULL)
				manager_chore();
			trim_capture_logs();
			next_trim_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   CAPTURE_TRIM_INTERVAL_MS);
		}

		/*
		 * A background worker's table statistics (the rows the trim
		 * deleted from capture logs) reach the cumulative statistics only
		 * when it reports them, as a backend does when it goes idle:
		 * autovacuum finds a log's dead rows there.
		 */
		if (!IsTransactionOrTransactionBlock())
			(void) pgstat_report_stat(false);

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
	proc_exit(stop_pending && !HsDbStateStopRequested(hs_manager.dboid) ? 1 : 0);
}
