/*-------------------------------------------------------------------------
 *
 * test_actors.c
 *	  Test actors of the barrier loop: kinds counter, sleep and error,
 *	  registered with the compute workers (actor.h).
 *
 *	counter	on start it reads its table's committed count; for every epoch
 *			it adds one and writes the count into the epoch's memtable,
 *			sealed into the worker's shared buffer as it passes the
 *			barrier.  Its "input" is the epoch itself: while its graph is
 *			paused (or its param is negative) it writes nothing, and its
 *			table still commits every checkpoint.  Without a table it does
 *			nothing.
 *	sleep	takes param ms (from the moment a barrier becomes the head of
 *			its graph) to pass each barrier: a slow actor.
 *	error	fails at its param-th barrier: its graph is reset.
 *
 * test/modules/hummock_stream_test/test_actors.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/timestamp.h"

#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/memtable.h"
#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/storage/version_read.h"
#include "hummock_stream/stream/actor.h"
#include "hummock_stream/stream/compute_worker.h"

#include "hummock_stream_test.h"

#define COUNTER_KEY "count"

/* What a test actor keeps between barriers (in the worker's memory). */
typedef struct TestActorState
{
	bool		initialized;	/* counter: read its committed state */
	int64		count;			/* counter: the value it commits */
	TimestampTz ready_at;		/* sleep: when it passes the head */
} TestActorState;

static TestActorState *
actor_state(HsActor *a)
{
	if (a->state == NULL)
		a->state = MemoryContextAllocZero(HsComputeWorkerContext(), sizeof(TestActorState));
	return a->state;
}

static void
test_actor_free(HsActor *a)
{
	if (a->state)
		pfree(a->state);
	a->state = NULL;
}

static bool
counter_on_barrier(HsActor *a, const HsActorBarrier *b, bool paused, TimestampTz *wake_at)
{
	TestActorState *s = actor_state(a);
	HsTableId	table = a->spec.table_id;
	HsSlice		key = HsSliceMake(COUNTER_KEY, strlen(COUNTER_KEY));
	HsStatus	st;
	char		oldv[32],
				newv[32];
	HsMemtable *mt;
	bool		ok;

	if (table == 0)
		return true;
	HsComputeWorkerBeginWork();
	if (!s->initialized)
	{
		HsVersion  *v = HsHummockPinnedVersion(HS_EPOCH_MAX);
		HsBuf		row;
		bool		found;

		HsBufInit(&row, HsHummockEnv());
		HS_CHECK(HsVersionGet(v, HsHummockSstCache(), table, key, HS_EPOCH_MAX,
							  &found, &row, &st), &st);
		s->count = found ? strtoll(pnstrdup((char *) row.data, row.len), NULL, 10) : 0;
		HsBufFree(&row);
		HsVersionUnref(v);
		s->initialized = true;
	}
	if (b->kind == HS_BARRIER_INITIAL)
		return true;			/* no data belongs to the prev epoch */
	if (a->spec.param < 0 || paused)
		return true;			/* an idle table or a paused graph: no input */

	snprintf(oldv, sizeof(oldv), "%lld", (long long) s->count);
	snprintf(newv, sizeof(newv), "%lld", (long long) (s->count + 1));
	mt = HsMemtableCreate(HsComputeWorkerEnv(), table, b->prev_epoch, false, false);
	if (s->count > 0)
		ok = HsMemtableUpdate(mt, key, HsSliceMake(oldv, strlen(oldv)),
							  HsSliceMake(newv, strlen(newv)), &st);
	else
		ok = HsMemtableInsert(mt, key, HsSliceMake(newv, strlen(newv)), &st);
	if (!ok)
	{
		HsMemtableDestroy(mt);
		HsStatusReport(ERROR, &st);
	}
	HS_CHECK(HsSharedBufferSeal(HsComputeWorkerSharedBuffer(), mt, &st), &st);
	s->count++;

	/* over hummock_stream.shared_buffer_size: spill sealed data to SSTs */
	HsComputeWorkerMaybeSpill();
	return true;
}

static bool
sleep_on_barrier(HsActor *a, const HsActorBarrier *b, bool paused, TimestampTz *wake_at)
{
	TestActorState *s = actor_state(a);

	if (s->ready_at == 0)
		s->ready_at = TimestampTzPlusMilliseconds(b->arrived_at, a->spec.param);
	if (GetCurrentTimestamp() < s->ready_at)
	{
		*wake_at = s->ready_at;
		return false;
	}
	s->ready_at = 0;
	return true;
}

static bool
error_on_barrier(HsActor *a, const HsActorBarrier *b, bool paused, TimestampTz *wake_at)
{
	if (a->barriers_seen + 1 >= a->spec.param)
		ereport(ERROR,
				(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("test actor %u failed at barrier %lld as asked",
						a->spec.actor_id, (long long) (a->barriers_seen + 1))));
	return true;
}

static const HsActorOps counter_ops = {
	.name = "counter",
	.on_barrier = counter_on_barrier,
	.free = test_actor_free,
};

static const HsActorOps sleep_ops = {
	.name = "sleep",
	.on_barrier = sleep_on_barrier,
	.free = test_actor_free,
};

static const HsActorOps error_ops = {
	.name = "error",
	.on_barrier = error_on_barrier,
};

void
HstRegisterActorKinds(void)
{
	HsActorKindRegister(HST_ACTOR_COUNTER, &counter_ops);
	HsActorKindRegister(HST_ACTOR_SLEEP, &sleep_ops);
	HsActorKindRegister(HST_ACTOR_ERROR, &error_ops);
}
