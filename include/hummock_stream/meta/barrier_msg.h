/*-------------------------------------------------------------------------
 *
 * barrier_msg.h
 *	  Messages of the control channel between the barrier manager and the
 *	  compute workers.
 *
 * Down (manager -> worker):
 *	INJECT		a barrier prev -> curr of one partial graph, with its kind
 *				and the mutation it carries: actors to add (they are built
 *				by this barrier and start from their tables' committed
 *				state), actors to stop, actors whose parameters change
 *				(update), and pause or resume of the graph's input; and the
 *				Postgres snapshot taken at injection, which ends the input
 *				of epoch prev (capture.c);
 *	RESET		drop every actor and all uncommitted state of a graph;
 *	COMMITTED	the manager committed a graph's checkpoint: the SSTs the
 *				worker synced for it are referenced now (the worker may
 *				drop its claim on in-flight object ids).
 * Up (worker -> manager):
 *	COLLECTED	every actor of the graph on this worker has passed the
 *				barrier; for a checkpoint, the SSTs synced for the graph's
 *				tables follow as an encoded payload;
 *	FAILURE		an actor of the graph failed; the graph is suspended on
 *				this worker until RESET;
 *	RESET_DONE	the graph is gone from this worker.
 *
 * Both ends are the same build of the library, so the structs are sent
 * as they are (no cross-version encoding).
 *
 * include/hummock_stream/meta/barrier_msg.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_BARRIER_MSG_H
#define HS_META_BARRIER_MSG_H

#include "hummock_stream/storage/key.h"

typedef enum HsBarrierKind
{
	HS_BARRIER_INITIAL = 0,		/* first barrier of a graph: no data before */
	HS_BARRIER_REGULAR = 1,		/* data stays buffered */
	HS_BARRIER_CHECKPOINT = 2	/* prev epoch's data becomes durable */
} HsBarrierKind;

typedef enum HsMsgType
{
	HS_MSG_INJECT = 1,
	HS_MSG_RESET = 2,
	HS_MSG_COLLECTED = 3,
	HS_MSG_FAILURE = 4,
	HS_MSG_RESET_DONE = 5,
	HS_MSG_COMMITTED = 6
} HsMsgType;

/*
 * Kinds of actors.  The product has one, the streaming job; libraries in
 * shared_preload_libraries register others under their own numbers
 * (HsActorKindRegister, stream/actor.h; the test module takes 1 to 3).
 */
typedef enum HsActorKind
{
	HS_ACTOR_STREAM_JOB = 4		/* a streaming view's executors (job = table_id) */
} HsActorKind;

/* HsActorSpec.flags */
#define HS_ACTOR_KEEP_CHANGE_LOG 0x1	/* its table keeps a change log (a
										 * view with a downstream or a
										 * change_log() reader) */

/*
 * An actor: what it is and the tables it writes.  Its state tables are as
 * many as its plan needs (no fixed limit): state_tables points into
 * memory of whoever holds the spec (the manager's placed actor, the
 * worker's actor); in an INJECT message the tables of the added actors
 * travel after the fixed part (HsMsgInject) and the pointers are fixed up
 * by the receiver.
 */
typedef struct HsActorSpec
{
	uint32		actor_id;
	uint32		kind;			/* HsActorKind, or a registered kind */
	int32		param;
	uint32		flags;			/* HS_ACTOR_*; an Update may change them */
	uint32		table_id;		/* 0 if none */
	uint32		n_state_tables;
	const HsTableId *state_tables;	/* more tables it writes */
} HsActorSpec;

/* How many tables an actor writes (table_id, then state tables). */
static inline int
HsActorSpecNumTables(const HsActorSpec *a)
{
	return (a->table_id != 0 ? 1 : 0) + (int) a->n_state_tables;
}

/* Table i (0 .. HsActorSpecNumTables - 1) an actor writes. */
static inline HsTableId
HsActorSpecTable(const HsActorSpec *a, int i)
{
	if (a->table_id != 0)
	{
		if (i == 0)
			return a->table_id;
		i--;
	}
	return a->state_tables[i];
}

#define HS_MSG_MAX_ACTORS 256

typedef enum HsPauseMutation
{
	HS_PAUSE_NONE = 0,
	HS_PAUSE = 1,				/* actors stop consuming input */
	HS_RESUME = 2
} HsPauseMutation;

typedef struct HsMsgInject
{
	uint8		type;			/* HS_MSG_INJECT */
	uint8		kind;			/* HsBarrierKind */
	uint8		pause;			/* HsPauseMutation */
	uint32		graph_id;
	HsEpoch		prev_epoch;
	HsEpoch		curr_epoch;
	uint16		n_add;
	uint16		n_stop;
	uint16		n_update;
	uint32		snapshot_len;	/* the last snapshot_len bytes of the message:
								 * the pg_snapshot text taken when the barrier
								 * was injected (NUL-terminated) */
	uint32		n_add_tables;	/* with a mutation: after the fixed part, the
								 * state tables of add[0], add[1], ... in
								 * order (add[i].n_state_tables each; their
								 * state_tables pointers mean nothing); the
								 * updates carry none (an Update changes
								 * param and flags only) */
	HsActorSpec add[HS_MSG_MAX_ACTORS];
	uint32		stop[HS_MSG_MAX_ACTORS];
	HsActorSpec update[HS_MSG_MAX_ACTORS];
} HsMsgInject;

typedef struct HsMsgReset
{
	uint8		type;			/* HS_MSG_RESET */
	uint32		graph_id;
} HsMsgReset;

typedef struct HsMsgCollected
{
	uint8		type;			/* HS_MSG_COLLECTED */
	uint8		kind;
	uint32		graph_id;
	HsEpoch		prev_epoch;
	HsEpoch		curr_epoch;
	uint32		payload_len;	/* checkpoint: varint32 count, then that many
								 * HsSstInfoEncode()d SSTs (new values, L0) */
	uint8		payload[FLEXIBLE_ARRAY_MEMBER];
} HsMsgCollected;

typedef struct HsMsgFailure
{
	uint8		type;			/* HS_MSG_FAILURE */
	uint32		graph_id;
	HsEpoch		prev_epoch;
	char		message[512];
} HsMsgFailure;

typedef struct HsMsgCommitted
{
	uint8		type;			/* HS_MSG_COMMITTED */
	uint32		graph_id;
	HsEpoch		epoch;
} HsMsgCommitted;

typedef struct HsMsgResetDone
{
	uint8		type;			/* HS_MSG_RESET_DONE */
	uint32		graph_id;
} HsMsgResetDone;

#endif							/* HS_META_BARRIER_MSG_H */
