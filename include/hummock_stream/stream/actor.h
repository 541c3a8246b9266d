/*-------------------------------------------------------------------------
 *
 * actor.h
 *	  Actors and their kinds: what a compute worker runs for a partial
 *	  graph, dispatched through a table of operations per kind.
 *
 * An actor is created by the barrier that carries its Add mutation (from
 * an HsActorSpec the barrier manager sent), is offered every barrier of
 * its graph in order, and is removed by a Stop mutation or with its graph
 * (a reset).  What it does with a barrier depends on its kind: the
 * product has one built-in kind, HS_ACTOR_STREAM_JOB (a view's executors,
 * job_actor.c); a library loaded through shared_preload_libraries may
 * register more from its _PG_init (the test module's counter, sleep and
 * error actors: test/modules/hummock_stream_test), so that every compute
 * worker, forked from the postmaster, has them.  An actor of a kind that
 * nobody registered fails its graph with an error naming the kind.
 *
 * The callbacks run in the compute worker, inside PG_TRY: an ERROR fails
 * the actor's graph on this worker (FAILURE to the manager, which resets
 * the graph and later re-adds its actors from their committed state); it
 * never touches other graphs.
 *
 * include/hummock_stream/stream/actor.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_ACTOR_H
#define HS_STREAM_ACTOR_H

#include "datatype/timestamp.h"

#include "hummock_stream/meta/barrier_msg.h"

/* Kinds are small numbers: HS_ACTOR_STREAM_JOB, or registered ones. */
#define HS_MAX_ACTOR_KINDS 64

struct HsActorOps;

/* One actor in a compute worker. */
typedef struct HsActor
{
	HsActorSpec spec;			/* from its Add mutation; an Update mutation
								 * replaces it (a changed param) */
	const struct HsActorOps *ops;	/* of spec.kind */
	uint32		graph_id;		/* its partial graph */
	int64		barriers_seen;	/* barriers it has passed */
	bool		write_old_values;	/* its table's memtables keep old values
									 * (the worker sets it: see
									 * keeps_change_log) */
	void	   *state;			/* the kind's own (NULL until the kind sets
								 * it; freed by ops->free) */
} HsActor;

/* A barrier as an actor is offered it: the head barrier of its graph. */
typedef struct HsActorBarrier
{
	HsBarrierKind kind;			/* Initial: no data belongs to prev_epoch */
	HsEpoch		prev_epoch;		/* the epoch the barrier ends */
	HsEpoch		curr_epoch;
	const char *snapshot;		/* pg_snapshot text taken at injection: the
								 * input of prev_epoch ends there (NULL if
								 * none) */
	TimestampTz arrived_at;		/* when it became the head of the graph on
								 * this worker */
} HsActorBarrier;

typedef struct HsActorOps
{
	const char *name;			/* for messages: "stream job", "counter" */

	/*
	 * Offered the head barrier of the actor's graph.  Returns true if the
	 * actor passed it: its data of epoch prev_epoch is sealed into the
	 * worker's shared buffer (HsComputeWorkerSharedBuffer).  Returns false
	 * to be offered the same barrier again at *wake_at: a slow actor holds
	 * only its own graph.  paused: the graph's input is paused (a Pause
	 * mutation).  Required.
	 */
	bool		(*on_barrier) (HsActor *actor, const HsActorBarrier *barrier,
							   bool paused, TimestampTz *wake_at);

	/*
	 * A Stop mutation removes the actor (its graph goes on); before free.
	 * Optional (a streaming job drops its unsynced state here).
	 */
	void		(*on_stop) (HsActor *actor);

	/* The actor goes (stopped, or its graph reset): free state.  Optional. */
	void		(*free) (HsActor *actor);

	/*
	 * spec.table_id may keep a change log: it does while spec.flags has
	 * HS_ACTOR_KEEP_CHANGE_LOG.  The worker then sets write_old_values, and
	 * the actor must create its table's memtables with old values from its
	 * next write on; the log starts at the first checkpoint all of whose
	 * epochs were written so (compute_worker.c).
	 */
	bool		keeps_change_log;
} HsActorOps;

/*
 * Register the operations of actor kind `kind` (1 .. HS_MAX_ACTOR_KINDS-1,
 * not HS_ACTOR_STREAM_JOB, not taken yet).  Only from the _PG_init of a
 * library in shared_preload_libraries (loaded after hummock_stream): the
 * compute workers inherit the table from the postmaster.  ops must stay
 * valid for the life of the process (a static const struct).
 */
extern void HsActorKindRegister(uint32 kind, const HsActorOps *ops);

/* The operations of kind, or NULL if no one registered it. */
extern const HsActorOps *HsActorKindLookup(uint32 kind);

/* The built-in kind: a streaming job (job_actor.c). */
extern const HsActorOps HsStreamJobActorOps;

/* hummock_stream.epoch_timeout, ms (0: none): the longest an epoch of a view may take */
extern int	hs_epoch_timeout_ms;

#endif							/* HS_STREAM_ACTOR_H */
