/*-------------------------------------------------------------------------
 *
 * partial_graph.h
 *	  Partial graphs: the unit a barrier stream is injected into, collected
 *	  from and committed for.
 *
 * include/hummock_stream/meta/partial_graph.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_PARTIAL_GRAPH_H
#define HS_META_PARTIAL_GRAPH_H

#include "nodes/pg_list.h"

#include "hummock_stream/meta/barrier_msg.h"
#include "hummock_stream/storage/sst_info.h"

typedef enum HsGraphState
{
	HS_GRAPH_INITIALIZING = 1,	/* next barrier is Initial and adds all actors */
	HS_GRAPH_RUNNING = 2,
	HS_GRAPH_RESETTING = 3,		/* waiting for workers to drop it */
	HS_GRAPH_FAILED = 4			/* reset after a failure: waits (backoff) to
								 * start again, or for a compute worker */
} HsGraphState;

/*
 * After a failure a graph waits HS_GRAPH_BACKOFF_MIN_MS before its next
 * Initial barrier, twice as long after each further failure, at most
 * HS_GRAPH_BACKOFF_MAX_MS; a committed checkpoint resets the delay.
 * Compute workers that could not start are tried again on the same delays.
 * A wait() on a failed view asks for its retry sooner (retry_requested):
 * HS_GRAPH_BACKOFF_MIN_MS after the reset, whatever the failures before,
 * so a cause that was fixed is seen without waiting out a long delay, and
 * a failing view costs at most one start a second however often waited.
 */
#define HS_GRAPH_BACKOFF_MIN_MS 1000
#define HS_GRAPH_BACKOFF_MAX_MS 30000

/* The delay after the n-th failure in a row (n >= 1). */
static inline int
HsGraphBackoffMs(int n)
{
	return n >= 6 ? HS_GRAPH_BACKOFF_MAX_MS :
		Min(HS_GRAPH_BACKOFF_MIN_MS << Max(n - 1, 0), HS_GRAPH_BACKOFF_MAX_MS);
}

extern const char *HsGraphStateName(HsGraphState state);

/* One barrier in flight in one graph. */
typedef struct HsInflightBarrier
{
	HsEpoch		prev_epoch;
	HsEpoch		curr_epoch;
	HsBarrierKind kind;
	uint64		to_collect;		/* bit per worker index */
	uint64		collected;
	TimestampTz injected_at;
	TimestampTz collected_at;
	List	   *tables;			/* table ids (as int) to commit, checkpoint only */
	List	   *ssts;			/* HsSstInfo * synced by the workers */
	char	   *snapshot;		/* pg_snapshot text taken at injection */
	List	   *change_logs;	/* HsSyncedLog *, from the workers' payloads */
	bool		tables_exist;	/* its tables were created before (a view's) */
	bool		aligned;		/* a checkpoint of an aligned round, from its
								 * prev epoch (HsDbStateRecordAligned) */
} HsInflightBarrier;

/* An actor as the manager places it. */
/* A synced table's change-log entry, as a worker reported it. */
typedef struct HsSyncedLog
{
	HsTableId	table_id;
	int			n_epochs;
	HsEpoch    *epochs;
	int			n_new;
	HsSstInfo **new_ssts;		/* references into the barrier's ssts */
	int			n_old;
	HsSstInfo **old_ssts;		/* own references */
} HsSyncedLog;

typedef struct HsPlacedActor
{
	HsActorSpec spec;			/* spec.state_tables: tables[] below (an
								 * update's copy: its actor's) */
	int			worker;			/* worker index */
	HsTableId	tables[FLEXIBLE_ARRAY_MEMBER];
} HsPlacedActor;

/* A placed actor of spec on worker, its state tables copied into it. */
extern HsPlacedActor *HsPlacedActorMake(const HsActorSpec *spec, int worker);

typedef struct HsGraph
{
	uint32		graph_id;
	HsGraphState state;
	List	   *actors;			/* HsPlacedActor *, the running set */
	List	   *pending_add;	/* HsPlacedActor *, ride on the next barrier */
	List	   *pending_stop;	/* HsPlacedActor *, ditto */
	List	   *pending_update; /* HsPlacedActor * with new parameters, ditto */
	bool		paused;			/* as the workers know it */
	bool		want_paused;	/* as the catalog says */
	List	   *inflight;		/* HsInflightBarrier *, oldest first */
	HsEpoch		last_injected;	/* prev epoch of the next barrier */
	HsEpoch		committed_epoch;
	uint64		reset_pending;	/* workers that must confirm RESET */
	int64		commits;
	int64		resets;
	TimestampTz last_commit_at;
	char		last_error[512];	/* kept until the graph commits again */
	bool		failed;			/* failed since its last commit */
	int			failures;		/* failures since its last commit (backoff) */
	bool		worker_lost;	/* the last one: a compute worker exited */
	TimestampTz retry_at;		/* FAILED: not before this time */
	TimestampTz reset_done_at;	/* FAILED: since when */
	bool		retry_requested;	/* a wait() asked it to start again soon */
	bool		waits_for_worker;	/* FAILED: a worker of it is not running */
	bool		dropping;		/* remove once its Stop barrier is collected */
	bool		is_stream_job;	/* a view's job: commits its capture position */
	TimestampTz position_saved_at;	/* when a commit last wrote it */
	bool		commit_held;	/* its commits held back since its last one:
								 * another transaction holds its job's row */
	bool		emptied;		/* ran no actor when a reload began (a view
								 * being rebuilt): actors it gets again
								 * start it over */
	/*
	 * Where it holds exactly each aligned round's snapshot (HsGraphStatus
	 * says how), and the newest aligned round it did not take as such.
	 */
	HsEpoch		exact_since;
	HsEpoch		exact_until;
	HsEpoch		last_missed;
} HsGraph;

/* Workers hosting some actor of the graph (running or about to be added). */
extern uint64 HsGraphWorkerMask(const HsGraph *g);

#endif							/* HS_META_PARTIAL_GRAPH_H */
