/*-------------------------------------------------------------------------
 *
 * compute_worker.c
 *	  A compute worker: hosts actors and runs its local barrier manager.
 *
 * The barrier manager of a database starts hummock_stream.compute_workers
 * of these and talks to each over one control channel (channel.h).  The
 * worker keeps, per partial graph, its actors and the queue of barriers
 * injected into the graph.  The head barrier of a graph is offered to each
 * actor of the graph; an actor passes it at once or asks to be offered it
 * again later (a slow actor), so one slow graph never stops the worker from
 * collecting the barriers of other graphs.  When every actor of the graph
 * has passed the head barrier, the worker reports it collected (for a
 * checkpoint, with the SSTs synced for the graph's tables) and moves on.
 *
 * Actors are created by the barrier that carries their Add mutation and
 * removed by a Stop mutation.  What an actor does with a barrier depends
 * on its kind, through the kind's table of operations (actor.h): the
 * streaming job (job_actor.c) is built in, and libraries in
 * shared_preload_libraries may register more (the test module's counter,
 * sleep and error actors); an actor of a kind nobody registered fails its
 * graph.  An actor that raises an error suspends its graph on this
 * worker: the failure is reported, the graph's later barriers are
 * dropped, and the worker waits for the manager's RESET, which removes the
 * graph's actors and state; the manager then re-adds them with an Initial
 * barrier from the committed epoch.  Other graphs are not affected.
 *
 * State: an actor writes its state-table changes of epoch E (the data
 * between the barriers E-1 -> E and E -> E') into a memtable of epoch E;
 * passing the barrier E -> E' seals it into the worker's shared buffer.  A
 * checkpoint barrier then syncs the graph's tables up to E into SSTs
 * (inside a transaction of the worker: object ids come from the catalog
 * sequence) and their metadata rides up with the COLLECTED message; the
 * manager commits them.  Until it says COMMITTED, the worker keeps its
 * claim on in-flight object ids so GC leaves the new objects alone.
 *
 * Change logs: a table keeps one while its actor's spec has
 * HS_ACTOR_KEEP_CHANGE_LOG (a view with downstream views or a change_log()
 * reader).  A change-log entry must cover every epoch since the table's
 * last commit with old values, so an actor whose flag an Update turns on
 * writes old values from then on (LOG_STARTING) but sends no entry with
 * its next checkpoint, whose epochs may predate the switch; the log starts
 * with the checkpoint after (LOG_ON).  An actor added by an Initial
 * barrier with the flag is LOG_ON at once (its first epoch follows its
 * committed one).  Turning the flag off stops both at once, and the next
 * commit without an entry ends the log (the stop rule, version.h).
 *
 * The worker exits with code 1 on any error outside an actor; the manager
 * notices the closed channel and starts a replacement.
 *
 * src/stream/compute_worker.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "lib/ilist.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "hummock_stream/meta/barrier_msg.h"
#include "hummock_stream/meta/channel.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/stream/actor.h"
#include "hummock_stream/stream/compute_worker.h"

int			hs_shared_buffer_size_kb = 64 * 1024;

/* Where an actor's table stands with its change log (see the top). */
typedef enum ActorLogState
{
	LOG_OFF = 0,				/* no old values, no entries */
	LOG_STARTING,				/* old values; entries from the next checkpoint
								 * on */
	LOG_ON						/* old values, an entry per checkpoint */
} ActorLogState;

typedef struct WorkerActor
{
	HsActor		actor;			/* what its kind's operations see */
	ActorLogState log;
	bool		passed_head;	/* has passed the graph's head barrier */
	dlist_node	node;
} WorkerActor;

typedef struct PendingBarrier
{
	char	   *snapshot;		/* pg_snapshot text of the barrier */
	TimestampTz arrived_at;
	dlist_node	node;
	HsMsgInject msg;			/* last: allocated without its actor arrays
								 * when the barrier carries no mutation */
} PendingBarrier;

typedef struct WorkerGraph
{
	uint32		graph_id;
	bool		failed;			/* suspended until RESET */
	bool		paused;			/* actors consume no input */
	dlist_head	actors;
	dlist_head	barriers;		/* pending, oldest first */
	dlist_node	node;
} WorkerGraph;

typedef struct OutMsg
{
	Size		len;
	dlist_node	node;
	char		data[FLEXIBLE_ARRAY_MEMBER];
} OutMsg;

static HsChannel *channel;
static HsSharedBuffer *shared_buffer;
static HsEnv *worker_env;		/* allocates in WorkerContext */
static int	uncommitted_syncs = 0;	/* checkpoints synced, not yet committed */

static dlist_head graphs = DLIST_STATIC_INIT(graphs);
/* graph id -> its WorkerGraph (a worker may host hundreds of graphs) */
typedef struct GraphIndexEntry
{
	uint32		graph_id;
	WorkerGraph *graph;
} GraphIndexEntry;
static HTAB *graph_index = NULL;
static dlist_head outbox = DLIST_STATIC_INIT(outbox);
static MemoryContext WorkerContext;

/* ---------------------------------------------------------------------
 * Sending
 * ---------------------------------------------------------------------
 */

static void
queue_up(const void *msg, Size len)
{
	OutMsg	   *m = MemoryContextAlloc(WorkerContext, offsetof(OutMsg, data) + len);

	m->len = len;
	memcpy(m->data, msg, len);
	dlist_push_tail(&outbox, &m->node);
}

/* Send what the ring takes; exit if the manager is gone. */
static void
flush_outbox(void)
{
	while (!dlist_is_empty(&outbox))
	{
		OutMsg	   *m = dlist_head_element(OutMsg, node, &outbox);
		bool		detached;

		if (!HsChannelSend(channel, m->data, m->len, &detached))
		{
			if (detached)
				proc_exit(0);	/* the manager is gone: so are we */
			return;
		}
		dlist_delete(&m->node);
		pfree(m);
	}
}

/* ---------------------------------------------------------------------
 * Graphs and actors
 * ---------------------------------------------------------------------
 */

static WorkerGraph *
find_graph(uint32 graph_id, bool create)
{
	GraphIndexEntry *e;
	WorkerGraph *g;
	bool		found;

	if (graph_index == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(uint32);
		ctl.entrysize = sizeof(GraphIndexEntry);
		ctl.hcxt = WorkerContext;
		graph_index = hash_create("hummock_stream worker graphs", 256, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	e = hash_search(graph_index, &graph_id, create ? HASH_ENTER : HASH_FIND, &found);
	if (found)
		return e->graph;
	if (!create)
		return NULL;
	g = MemoryContextAllocZero(WorkerContext, sizeof(WorkerGraph));
	g->graph_id = graph_id;
	dlist_init(&g->actors);
	dlist_init(&g->barriers);
	dlist_push_tail(&graphs, &g->node);
	e->graph = g;
	return g;
}

static void
free_actor(WorkerActor *a)
{
	if (a->actor.ops->free)
		a->actor.ops->free(&a->actor);
	if (a->actor.spec.state_tables)
		pfree((void *) a->actor.spec.state_tables);
	pfree(a);
}

static void
free_barrier(PendingBarrier *b)
{
	if (b->snapshot)
		pfree(b->snapshot);
	pfree(b);
}

static void
drop_graph(WorkerGraph *g)
{
	dlist_mutable_iter it;

	dlist_foreach_modify(it, &g->actors)
	{
		dlist_delete(it.cur);
		free_actor(dlist_container(WorkerActor, node, it.cur));
	}
	dlist_foreach_modify(it, &g->barriers)
	{
		dlist_delete(it.cur);
		free_barrier(dlist_container(PendingBarrier, node, it.cur));
	}
	dlist_delete(&g->node);
	(void) hash_search(graph_index, &g->graph_id, HASH_REMOVE, NULL);
	pfree(g);
}

/* Follow the actor's change-log flag (see the top); initial: an Initial barrier. */
static void
set_log_state(WorkerActor *a, bool initial)
{
	bool		want = a->actor.ops->keeps_change_log && a->actor.spec.table_id != 0 &&
		(a->actor.spec.flags & HS_ACTOR_KEEP_CHANGE_LOG) != 0;

	if (!want)
		a->log = LOG_OFF;
	else if (initial)
		a->log = LOG_ON;
	else if (a->log == LOG_OFF)
		a->log = LOG_STARTING;
	a->actor.write_old_values = a->log != LOG_OFF;
}

/* Apply the mutation of a barrier that becomes the head of its graph. */
static void
apply_mutation(WorkerGraph *g, const HsMsgInject *msg)
{
	/* the added actors' state tables follow the fixed part */
	const HsTableId *add_tables = (const HsTableId *) (msg + 1);

	if (msg->pause == HS_PAUSE)
		g->paused = true;
	else if (msg->pause == HS_RESUME)
		g->paused = false;
	for (int i = 0; i < msg->n_update; i++)
	{
		dlist_iter	it;

		dlist_foreach(it, &g->actors)
		{
			WorkerActor *a = dlist_container(WorkerActor, node, it.cur);

			if (a->actor.spec.actor_id == msg->update[i].actor_id)
			{
				/* an Update changes these only (it carries no tables) */
				a->actor.spec.param = msg->update[i].param;
				a->actor.spec.flags = msg->update[i].flags;
				set_log_state(a, false);
			}
		}
	}
	for (int i = 0; i < msg->n_stop; i++)
	{
		dlist_mutable_iter it;

		dlist_foreach_modify(it, &g->actors)
		{
			WorkerActor *a = dlist_container(WorkerActor, node, it.cur);

			if (a->actor.spec.actor_id == msg->stop[i])
			{
				if (a->actor.ops->on_stop)
					a->actor.ops->on_stop(&a->actor);
				dlist_delete(it.cur);
				free_actor(a);
			}
		}
	}
	for (int i = 0; i < msg->n_add; i++)
	{
		const HsActorOps *ops = HsActorKindLookup(msg->add[i].kind);
		WorkerActor *a;
		uint32		nt = msg->add[i].n_state_tables;

		if (ops == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("actor %u of partial graph %u has unknown kind %u: no library in shared_preload_libraries registered it",
							msg->add[i].actor_id, g->graph_id, msg->add[i].kind)));
		a = MemoryContextAllocZero(WorkerContext, sizeof(WorkerActor));
		a->actor.spec = msg->add[i];
		a->actor.spec.state_tables = NULL;
		if (nt > 0)
		{
			HsTableId  *t = MemoryContextAlloc(WorkerContext, sizeof(HsTableId) * nt);

			memcpy(t, add_tables, sizeof(HsTableId) * nt);
			a->actor.spec.state_tables = t;
			add_tables += nt;
		}
		a->actor.ops = ops;
		a->actor.graph_id = g->graph_id;
		set_log_state(a, msg->kind == HS_BARRIER_INITIAL);
		dlist_push_tail(&g->actors, &a->node);
	}
}

/* ---------------------------------------------------------------------
 * What the worker lends its actors (compute_worker.h)
 * ---------------------------------------------------------------------
 */

MemoryContext
HsComputeWorkerContext(void)
{
	Assert(WorkerContext != NULL);
	return WorkerContext;
}

HsEnv *
HsComputeWorkerEnv(void)
{
	Assert(worker_env != NULL);
	return worker_env;
}

HsSharedBuffer *
HsComputeWorkerSharedBuffer(void)
{
	Assert(shared_buffer != NULL);
	return shared_buffer;
}

/* Start a transaction for storage work, unless one is open. */
void
HsComputeWorkerBeginWork(void)
{
	if (!IsTransactionState())
	{
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
	}
}

static void
finish_xact(void)
{
	if (IsTransactionState())
	{
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
}

void
HsComputeWorkerMaybeSpill(void)
{
	HsSstWriteContext ctx;
	HsStatus	st;

	HsHummockWriteContext(&ctx);
	HS_CHECK(HsSharedBufferMaybeSpill(shared_buffer, &ctx, &st), &st);
}

/* Tables of the graph's actors on this worker (palloc'd; *n of them). */
static HsTableId *
graph_tables(WorkerGraph *g, int *n)
{
	dlist_iter	it;
	int			count = 0;
	HsTableId  *tables;

	dlist_foreach(it, &g->actors)
		count += HsActorSpecNumTables(&dlist_container(WorkerActor, node, it.cur)->actor.spec);
	tables = palloc(sizeof(HsTableId) * Max(count, 1));
	*n = 0;
	dlist_foreach(it, &g->actors)
	{
		WorkerActor *a = dlist_container(WorkerActor, node, it.cur);
		int			k = HsActorSpecNumTables(&a->actor.spec);

		for (int i = 0; i < k; i++)
			tables[(*n)++] = HsActorSpecTable(&a->actor.spec, i);
	}
	return tables;
}

/*
 * After the SSTs in a COLLECTED payload: the change-log entries of the
 * synced tables that keep a change log (a view's table): varint32 count,
 * then per table its id, its synced epochs (varint32 count, varint64
 * each), the object ids of its new-value SSTs (among the SSTs above), and
 * its old-value SSTs (encoded; they are not in L0).
 */
static void
encode_change_logs(const HsSyncResult *res, const HsTableId *logged, int n_logged,
				   HsEpoch epoch, HsBuf *payload)
{
	HsBufPutVarint32(payload, (uint32) n_logged);
	for (int i = 0; i < n_logged; i++)
	{
		const HsSyncTable *t = HsSyncResultTable(res, logged[i]);

		HsBufPutVarint32(payload, logged[i]);
		if (t != NULL && t->n_epochs > 0 && !t->log_enabled)
			elog(ERROR, "table %u keeps a change log but synced epochs without old values",
				 logged[i]);
		if (t == NULL || t->n_epochs == 0)
		{
			/*
			 * No change in this checkpoint: an empty entry, since a logged
			 * table committed without one loses its log (version_delta.c).
			 */
			HsBufPutVarint32(payload, 1);
			HsBufPutVarint64(payload, epoch);
			HsBufPutVarint32(payload, 0);
			HsBufPutVarint32(payload, 0);
			continue;
		}
		/*
		 * The entry ends at the checkpoint epoch, where the table commits,
		 * also when its last writes were sealed at an earlier epoch (an
		 * earlier barrier of the checkpoint, or a sub-epoch: stream_job.c).
		 */
		{
			bool		ends_early = t->epochs[t->n_epochs - 1] != epoch;

			HsBufPutVarint32(payload, (uint32) t->n_epochs + (ends_early ? 1 : 0));
			for (int k = 0; k < t->n_epochs; k++)
				HsBufPutVarint64(payload, t->epochs[k]);
			if (ends_early)
				HsBufPutVarint64(payload, epoch);
		}
		HsBufPutVarint32(payload, (uint32) t->n_new);
		for (int k = 0; k < t->n_new; k++)
			HsBufPutVarint64(payload, t->new_ssts[k]->object_id);
		HsBufPutVarint32(payload, (uint32) t->n_old);
		for (int k = 0; k < t->n_old; k++)
			HsSstInfoEncode(t->old_ssts[k], payload);
	}
}

/*
 * Tables of the graph's actors whose change log gets this checkpoint's
 * entry (LOG_ON); those LOG_STARTING get the next one's.
 */
static int
graph_logged_tables(WorkerGraph *g, HsTableId *tables, int max)
{
	dlist_iter	it;
	int			n = 0;

	dlist_foreach(it, &g->actors)
	{
		WorkerActor *a = dlist_container(WorkerActor, node, it.cur);

		if (a->log == LOG_ON && n < max)
			tables[n++] = a->actor.spec.table_id;
		else if (a->log == LOG_STARTING)
			a->log = LOG_ON;
	}
	return n;
}

/*
 * Sync the graph's tables up to epoch and queue the COLLECTED message with
 * the new SSTs.
 */
static void
collect_checkpoint(WorkerGraph *g, const PendingBarrier *b)
{
	int			n;
	HsTableId  *tables = graph_tables(g, &n);
	HsSstWriteContext ctx;
	HsSyncResult *res = NULL;
	HsStatus	st;
	HsBuf		payload;
	HsMsgCollected *done;

	HsBufInit(&payload, HsHummockEnv());
	if (n > 0)
	{
		HsComputeWorkerBeginWork();
		HsHummockWriteContext(&ctx);
		HS_CHECK(HsSharedBufferSync(shared_buffer, b->msg.prev_epoch, tables, n,
									&ctx, &res, &st), &st);
		HsBufPutVarint32(&payload, (uint32) res->n_ssts);
		for (int i = 0; i < res->n_ssts; i++)
			HsSstInfoEncode(res->ssts[i], &payload);
		{
			HsTableId	logged[HS_MSG_MAX_ACTORS];
			int			n_logged = graph_logged_tables(g, logged, HS_MSG_MAX_ACTORS);

			encode_change_logs(res, logged, n_logged, b->msg.prev_epoch, &payload);
		}
		HsSyncResultFree(res);
		uncommitted_syncs++;
	}
	done = palloc0(offsetof(HsMsgCollected, payload) + payload.len);
	done->type = HS_MSG_COLLECTED;
	done->kind = b->msg.kind;
	done->graph_id = g->graph_id;
	done->prev_epoch = b->msg.prev_epoch;
	done->curr_epoch = b->msg.curr_epoch;
	done->payload_len = (uint32) payload.len;
	if (payload.len)
		memcpy(done->payload, payload.data, payload.len);
	queue_up(done, offsetof(HsMsgCollected, payload) + payload.len);
	pfree(done);
	pfree(tables);
	HsBufFree(&payload);
}

/*
 * Offer the head barrier to one actor, through its kind's operations.
 * Returns true if it passed; false if it asks to be offered the barrier
 * again at *wake_at.
 */
static bool
actor_on_barrier(WorkerGraph *g, WorkerActor *a, const PendingBarrier *b,
				 TimestampTz *wake_at)
{
	HsActorBarrier ab;

	ab.kind = (HsBarrierKind) b->msg.kind;
	ab.prev_epoch = b->msg.prev_epoch;
	ab.curr_epoch = b->msg.curr_epoch;
	ab.snapshot = b->snapshot;
	ab.arrived_at = b->arrived_at;
	if (!a->actor.ops->on_barrier(&a->actor, &ab, g->paused, wake_at))
		return false;
	a->actor.barriers_seen++;
	return true;
}

/*
 * Move one graph forward: pass as many of its barriers as its actors
 * allow.  Returns the earliest time an actor asked to be woken (0: none).
 */
static TimestampTz
advance_graph(WorkerGraph *g)
{
	TimestampTz wake = 0;

	while (!g->failed && !dlist_is_empty(&g->barriers))
	{
		PendingBarrier *b = dlist_head_element(PendingBarrier, node, &g->barriers);
		bool		all_passed = true;
		dlist_iter	it;
		HsMsgCollected done;

		if (b->arrived_at == 0)
		{
			/* becomes the head now: its mutation applies first */
			b->arrived_at = GetCurrentTimestamp();
			apply_mutation(g, &b->msg);
			dlist_foreach(it, &g->actors)
				dlist_container(WorkerActor, node, it.cur)->passed_head = false;
		}

		dlist_foreach(it, &g->actors)
		{
			WorkerActor *a = dlist_container(WorkerActor, node, it.cur);
			TimestampTz a_wake = 0;

			if (a->passed_head)
				continue;
			if (actor_on_barrier(g, a, b, &a_wake))
				a->passed_head = true;
			else
			{
				all_passed = false;
				if (wake == 0 || a_wake < wake)
					wake = a_wake;
			}
		}
		if (!all_passed)
			break;

		if (b->msg.kind == HS_BARRIER_CHECKPOINT)
			collect_checkpoint(g, b);
		else
		{
			memset(&done, 0, sizeof(done));
			done.type = HS_MSG_COLLECTED;
			done.kind = b->msg.kind;
			done.graph_id = g->graph_id;
			done.prev_epoch = b->msg.prev_epoch;
			done.curr_epoch = b->msg.curr_epoch;
			done.payload_len = 0;
			queue_up(&done, offsetof(HsMsgCollected, payload));
		}
		dlist_delete(&b->node);
		free_barrier(b);
	}
	return wake;
}

/* Advance a graph; an actor error suspends the graph and is reported. */
static TimestampTz
advance_graph_guarded(WorkerGraph *g)
{
	volatile TimestampTz wake = 0;

	PG_TRY();
	{
		wake = advance_graph(g);
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		HsMsgFailure f;
		PendingBarrier *b;

		/* the copy must outlive the transaction we abort below */
		MemoryContextSwitchTo(WorkerContext);
		edata = CopyErrorData();
		FlushErrorState();
		if (IsTransactionState())
			AbortCurrentTransaction();

		memset(&f, 0, sizeof(f));
		f.type = HS_MSG_FAILURE;
		f.graph_id = g->graph_id;
		b = dlist_is_empty(&g->barriers) ? NULL :
			dlist_head_element(PendingBarrier, node, &g->barriers);
		f.prev_epoch = b ? b->msg.prev_epoch : 0;
		/* with its detail (a corrupt block's file and offset, say) */
		if (edata->detail)
			snprintf(f.message, sizeof(f.message), "%s (%s)", edata->message, edata->detail);
		else
			strlcpy(f.message, edata->message, sizeof(f.message));
		queue_up(&f, sizeof(f));
		g->failed = true;
		ereport(LOG,
				(errmsg("hummock_stream partial graph %u failed on this worker: %s",
						g->graph_id, edata->message)));
		FreeErrorData(edata);
		/* stay in WorkerContext: the round's transaction context is gone */
	}
	PG_END_TRY();
	return wake;
}

/* ---------------------------------------------------------------------
 * Receiving
 * ---------------------------------------------------------------------
 */

static void
handle_message(const void *data, Size len)
{
	uint8		type = *(const uint8 *) data;

	if (type == HS_MSG_INJECT)
	{
		HsMsgInject head;
		Size		snap_len;
		Size		body;
		PendingBarrier *b;
		WorkerGraph *g;

		/*
		 * The message: the header, with a mutation the actor arrays and the
		 * added actors' state tables, then the snapshot.
		 */
		if (len < offsetof(HsMsgInject, add))
			elog(ERROR, "barrier message of %zu bytes is too short", len);
		memcpy(&head, data, offsetof(HsMsgInject, add));
		snap_len = head.snapshot_len <= len - offsetof(HsMsgInject, add) ? head.snapshot_len : 0;
		body = len - snap_len;
		if (!(head.n_add || head.n_stop || head.n_update))
			body = Min(body, offsetof(HsMsgInject, add));
		else if (body != sizeof(HsMsgInject) + sizeof(HsTableId) * (Size) head.n_add_tables)
			elog(ERROR, "barrier message with a mutation of %zu bytes has a wrong length", len);
		b = MemoryContextAllocZero(WorkerContext, offsetof(PendingBarrier, msg) + body);
		memcpy(&b->msg, data, body);
		if (body > offsetof(HsMsgInject, add))
		{
			uint64		sum = 0;

			for (int i = 0; i < b->msg.n_add && i < HS_MSG_MAX_ACTORS; i++)
				sum += b->msg.add[i].n_state_tables;
			if (b->msg.n_add > HS_MSG_MAX_ACTORS || b->msg.n_stop > HS_MSG_MAX_ACTORS ||
				b->msg.n_update > HS_MSG_MAX_ACTORS || sum != b->msg.n_add_tables)
				elog(ERROR, "barrier message of graph %u has inconsistent actor arrays",
					 b->msg.graph_id);
		}
		if (snap_len > 0)
			b->snapshot = MemoryContextStrdup(WorkerContext,
											  (const char *) data + len - snap_len);
		g = find_graph(b->msg.graph_id, true);
		if (g->failed)
			free_barrier(b);	/* suspended: wait for RESET */
		else
			dlist_push_tail(&g->barriers, &b->node);
	}
	else if (type == HS_MSG_RESET)
	{
		const HsMsgReset *r = data;
		WorkerGraph *g = find_graph(r->graph_id, false);
		HsMsgResetDone done;

		if (g)
		{
			int			n;
			HsTableId  *tables = graph_tables(g, &n);

			/* its uncommitted state goes with it */
			for (int i = 0; i < n; i++)
				HsSharedBufferDropTable(shared_buffer, tables[i]);
			pfree(tables);
			drop_graph(g);
		}
		done.type = HS_MSG_RESET_DONE;
		done.graph_id = r->graph_id;
		queue_up(&done, sizeof(done));
	}
	else if (type == HS_MSG_COMMITTED)
	{
		const HsMsgCommitted *m = data;
		WorkerGraph *g = find_graph(m->graph_id, false);

		/* synced data of the graph's tables up to the epoch can go */
		if (g)
		{
			int			n;
			HsTableId  *tables = graph_tables(g, &n);

			for (int i = 0; i < n; i++)
				HsSharedBufferAckCommitted(shared_buffer, tables[i], m->epoch);
			pfree(tables);
		}
		/* the synced objects are referenced now */
		if (uncommitted_syncs > 0 && --uncommitted_syncs == 0)
			HsPinClearInflightObjects();
	}
	else
		elog(ERROR, "unexpected message type %d on the hummock_stream control channel", type);
}

void
HsComputeWorkerMain(Datum main_arg)
{
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	HsKeepFreedMemory();

	channel = HsChannelAttach(DatumGetUInt32(main_arg));
	BackgroundWorkerInitializeConnectionByOid(channel->header->dboid, InvalidOid, 0);
	/* the worker's transactions only read, or allocate object ids */
	SetConfigOption("synchronous_commit", "off", PGC_SUSET, PGC_S_OVERRIDE);
	/* capture logs are read by txid range through their index */
	SetConfigOption("enable_seqscan", "off", PGC_SUSET, PGC_S_OVERRIDE);
	/* no ALTER DATABASE/ROLE ... SET search_path or isolation level reaches what we run */
	HsPinWorkerSettings();
	pgstat_report_appname("hummock_stream compute worker");
	WorkerContext = AllocSetContextCreate(TopMemoryContext, "hummock_stream worker",
										  ALLOCSET_DEFAULT_SIZES);
	worker_env = HsEnvPgForContext(WorkerContext);
	shared_buffer = HsSharedBufferCreate(worker_env, (size_t) hs_shared_buffer_size_kb * 1024);

	for (;;)
	{
		void	   *data;
		Size		len;
		bool		detached;
		TimestampTz wake = 0;
		dlist_mutable_iter it;
		long		timeout = -1;
		int			events = WL_LATCH_SET | WL_EXIT_ON_PM_DEATH;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		while (HsChannelReceive(channel, &data, &len, &detached))
			handle_message(data, len);
		if (detached)
			proc_exit(0);		/* the manager is gone */

		/* one transaction for the storage work of every graph this round */
		dlist_foreach_modify(it, &graphs)
		{
			WorkerGraph *g = dlist_container(WorkerGraph, node, it.cur);
			TimestampTz w = advance_graph_guarded(g);

			if (w != 0 && (wake == 0 || w < wake))
				wake = w;
		}
		finish_xact();
		flush_outbox();
		(void) pgstat_report_stat(false);	/* its reads, as a backend's */

		if (wake != 0)
		{
			timeout = Max(1, (long) TimestampDifferenceMilliseconds(GetCurrentTimestamp(), wake));
			events |= WL_TIMEOUT;
		}
		else if (!dlist_is_empty(&outbox))
		{
			timeout = 10;		/* the ring was full: retry soon */
			events |= WL_TIMEOUT;
		}
		(void) WaitLatch(MyLatch, events, timeout, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
