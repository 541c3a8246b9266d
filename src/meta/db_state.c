/*-------------------------------------------------------------------------
 *
 * db_state.c
 *	  Per-database shared state and the pin registry.
 *
 * Layout: one shared area holding the registry lock, hs_max_databases
 * HsDbState slots, and one HsPinSlot per PGPROC (MaxBackends plus
 * auxiliary processes plus prepared transactions, indexed by pgprocno).
 *
 * Locking:
 *	- registry_lock (exclusive) to take a database slot; slots are never
 *	  given back while the server runs (a dropped database's slot keeps its
 *	  oid; at most hs_max_databases databases can use hummock_stream
 *	  between restarts);
 *	- version_id is an atomic that only grows (compare-and-swap loop);
 *	- pin_lock: a process writes its own pin slot in LW_SHARED mode (no
 *	  other process writes it) and a summarizer reads all slots in
 *	  LW_EXCLUSIVE mode, so it never sees a half-written pin.
 *
 * src/meta/db_state.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/twophase.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include <signal.h>
#include "storage/proc.h"
#include "utils/guc.h"

#include "hummock_stream/meta/db_state.h"

int			hs_max_databases = 16;

typedef struct HsPinSlot
{
	Oid			dboid;			/* InvalidOid: no pin */
	uint64		version_id;
	HsEpoch		epoch;
	Oid			inflight_dboid;
	uint64		inflight_object_id; /* PG_UINT64_MAX: none */
} HsPinSlot;

typedef struct HsDbShared
{
	int			tranche_id;
	Latch	   *launcher_latch; /* under registry_lock; NULL if none */
	LWLock		registry_lock;
	LWLock		pin_lock;
	int			nslots;
	int			npins;
	/* HsDbState slots[nslots] follow, then HsPinSlot pins[npins] */
} HsDbShared;

static HsDbShared *db_shared = NULL;
static bool pin_callbacks_registered = false;

static int
pin_slot_count(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

static inline HsDbState *
db_slots(void)
{
	return (HsDbState *) ((char *) db_shared + MAXALIGN(sizeof(HsDbShared)));
}

static inline HsPinSlot *
pin_slots(void)
{
	return (HsPinSlot *) ((char *) db_slots() +
						  MAXALIGN(sizeof(HsDbState) * db_shared->nslots));
}

Size
HsDbStateShmemSize(void)
{
	Size		sz = MAXALIGN(sizeof(HsDbShared));

	sz = add_size(sz, MAXALIGN(mul_size(sizeof(HsDbState), hs_max_databases)));
	sz = add_size(sz, mul_size(sizeof(HsPinSlot), pin_slot_count()));
	return sz;
}

void
HsDbStateShmemInit(void *ptr, bool found)
{
	db_shared = (HsDbShared *) ptr;
	if (!found)
	{
		HsDbState  *slots;
		HsPinSlot  *pins;

		db_shared->tranche_id = LWLockNewTrancheId();
		db_shared->launcher_latch = NULL;
		LWLockInitialize(&db_shared->registry_lock, db_shared->tranche_id);
		LWLockInitialize(&db_shared->pin_lock, db_shared->tranche_id);
		db_shared->nslots = hs_max_databases;
		db_shared->npins = pin_slot_count();
		slots = db_slots();
		for (int i = 0; i < db_shared->nslots; i++)
		{
			slots[i].dboid = InvalidOid;
			pg_atomic_init_u64(&slots[i].version_id, 0);
			pg_atomic_init_u64(&slots[i].incarnation, 0);
			ConditionVariableInit(&slots[i].version_cv);
			slots[i].start_requested = false;
			slots[i].stop_requested = false;
			slots[i].manager_pid = 0;
			slots[i].manager_latch = NULL;
			SpinLockInit(&slots[i].barrier_mutex);
			slots[i].last_injected = 0;
			slots[i].barriers_total = 0;
			slots[i].ring_next = 0;
			slots[i].n_graphs = 0;
			slots[i].n_workers = 0;
			slots[i].reload_requested = false;
			memset(slots[i].ring, 0, sizeof(slots[i].ring));
			memset(slots[i].graphs, 0, sizeof(slots[i].graphs));
			memset(slots[i].workers, 0, sizeof(slots[i].workers));
			ConditionVariableInit(&slots[i].manager_cv);
		}
		pins = pin_slots();
		for (int i = 0; i < db_shared->npins; i++)
		{
			pins[i].dboid = InvalidOid;
			pins[i].inflight_dboid = InvalidOid;
			pins[i].inflight_object_id = PG_UINT64_MAX;
		}
	}
	LWLockRegisterTranche(db_shared->tranche_id, "hummock_stream");
}

HsDbState *
HsDbStateGet(Oid dboid, bool create)
{
	HsDbState  *slots = db_slots();
	HsDbState  *result = NULL;

	Assert(db_shared != NULL);
	LWLockAcquire(&db_shared->registry_lock, create ? LW_EXCLUSIVE : LW_SHARED);
	for (int i = 0; i < db_shared->nslots; i++)
	{
		if (slots[i].dboid == dboid)
		{
			result = &slots[i];
			break;
		}
	}
	if (result == NULL && create)
	{
		for (int i = 0; i < db_shared->nslots; i++)
		{
			if (slots[i].dboid == InvalidOid)
			{
				result = &slots[i];
				result->dboid = dboid;
				pg_atomic_write_u64(&result->version_id, 0);
				break;
			}
		}
	}
	LWLockRelease(&db_shared->registry_lock);

	if (result == NULL && create)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("too many databases use hummock_stream"),
				 errdetail("At most %d databases can use hummock_stream between server restarts.",
						   hs_max_databases),
				 errhint("Raise hummock_stream.max_databases and restart the server.")));
	return result;
}

void
HsDbStatePublishVersion(HsDbState *db, uint64 version_id)
{
	uint64		cur = pg_atomic_read_u64(&db->version_id);

	while (cur < version_id)
	{
		if (pg_atomic_compare_exchange_u64(&db->version_id, &cur, version_id))
		{
			ConditionVariableBroadcast(&db->version_cv);
			break;
		}
	}
}

uint64
HsDbStateWaitVersion(HsDbState *db, uint64 want, long timeout_ms)
{
	TimestampTz start = GetCurrentTimestamp();
	uint64		cur;

	ConditionVariablePrepareToSleep(&db->version_cv);
	while ((cur = pg_atomic_read_u64(&db->version_id)) < want)
	{
		long		left = -1;

		if (timeout_ms >= 0)
		{
			left = timeout_ms -
				(long) (TimestampDifferenceMilliseconds(start, GetCurrentTimestamp()));
			if (left <= 0)
				break;
		}
		if (left < 0)
			ConditionVariableSleep(&db->version_cv, PG_WAIT_EXTENSION);
		else
			ConditionVariableTimedSleep(&db->version_cv, left, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return cur;
}

/* ---------------------------------------------------------------------
 * Barrier manager lifecycle
 * ---------------------------------------------------------------------
 */

void
HsLauncherRegisterSelf(void)
{
	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db_shared->launcher_latch = MyLatch;
	LWLockRelease(&db_shared->registry_lock);
}

void
HsLauncherUnregisterSelf(void)
{
	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	if (db_shared->launcher_latch == MyLatch)
		db_shared->launcher_latch = NULL;
	LWLockRelease(&db_shared->registry_lock);
}

void
HsLauncherWake(void)
{
	LWLockAcquire(&db_shared->registry_lock, LW_SHARED);
	if (db_shared->launcher_latch)
		SetLatch(db_shared->launcher_latch);
	LWLockRelease(&db_shared->registry_lock);
}

void
HsDbStateRequestStart(Oid dboid)
{
	HsDbState  *db = HsDbStateGet(dboid, true);

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db->start_requested = true;
	db->stop_requested = false;
	LWLockRelease(&db_shared->registry_lock);
	HsLauncherWake();
}

int
HsDbStateTakeStartRequests(Oid *dboids, int max)
{
	HsDbState  *slots = db_slots();
	int			n = 0;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	for (int i = 0; i < db_shared->nslots && n < max; i++)
	{
		if (slots[i].dboid != InvalidOid && slots[i].start_requested)
		{
			slots[i].start_requested = false;
			dboids[n++] = slots[i].dboid;
		}
	}
	LWLockRelease(&db_shared->registry_lock);
	return n;
}

bool
HsDbStateManagerAttach(Oid dboid)
{
	HsDbState  *db = HsDbStateGet(dboid, true);
	bool		ok;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	ok = !db->stop_requested &&
		(db->manager_pid == 0 || db->manager_pid == MyProcPid ||
		 kill(db->manager_pid, 0) != 0);
	if (ok)
	{
		db->manager_pid = MyProcPid;
		db->manager_latch = MyLatch;
		/* the barrier history and statuses belong to this manager */
		SpinLockAcquire(&db->barrier_mutex);
		memset(db->ring, 0, sizeof(db->ring));
		db->ring_next = 0;
		db->n_graphs = 0;
		db->n_workers = 0;
		SpinLockRelease(&db->barrier_mutex);
	}
	LWLockRelease(&db_shared->registry_lock);
	ConditionVariableBroadcast(&db->manager_cv);
	return ok;
}

void
HsDbStateManagerDetach(Oid dboid)
{
	HsDbState  *db = HsDbStateGet(dboid, false);

	if (db == NULL)
		return;
	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	if (db->manager_pid == MyProcPid)
	{
		db->manager_pid = 0;
		db->manager_latch = NULL;
	}
	LWLockRelease(&db_shared->registry_lock);
	ConditionVariableBroadcast(&db->manager_cv);
}

void
HsDbStateWakeManager(Oid dboid)
{
	HsDbState  *db = HsDbStateGet(dboid, false);

	if (db == NULL)
		return;
	SpinLockAcquire(&db->barrier_mutex);
	db->reload_requested = true;
	SpinLockRelease(&db->barrier_mutex);
	LWLockAcquire(&db_shared->registry_lock, LW_SHARED);
	if (db->manager_latch)
		SetLatch(db->manager_latch);
	LWLockRelease(&db_shared->registry_lock);
}

bool
HsDbStateStopRequested(Oid dboid)
{
	HsDbState  *db = HsDbStateGet(dboid, false);
	bool		stop;

	if (db == NULL)
		return false;
	LWLockAcquire(&db_shared->registry_lock, LW_SHARED);
	stop = db->stop_requested;
	LWLockRelease(&db_shared->registry_lock);
	return stop;
}

void
HsDbStateStopManager(Oid dboid, long timeout_ms)
{
	HsDbState  *db = HsDbStateGet(dboid, false);
	TimestampTz start = GetCurrentTimestamp();
	pid_t		pid;

	if (db == NULL)
		return;
	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db->stop_requested = true;
	db->start_requested = false;
	pid = db->manager_pid;
	LWLockRelease(&db_shared->registry_lock);
	if (pid == 0)
		return;
	if (kill(pid, SIGTERM) != 0 && errno == ESRCH)
		return;

	ConditionVariablePrepareToSleep(&db->manager_cv);
	for (;;)
	{
		long		left;

		LWLockAcquire(&db_shared->registry_lock, LW_SHARED);
		pid = db->manager_pid;
		LWLockRelease(&db_shared->registry_lock);
		if (pid == 0 || kill(pid, 0) != 0)
			break;
		left = timeout_ms -
			(long) TimestampDifferenceMilliseconds(start, GetCurrentTimestamp());
		if (left <= 0)
			break;
		ConditionVariableTimedSleep(&db->manager_cv, Min(left, 100), PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
}

void
HsDbStateCancelStop(Oid dboid)
{
	HsDbState  *db = HsDbStateGet(dboid, false);

	if (db == NULL)
		return;
	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db->stop_requested = false;
	LWLockRelease(&db_shared->registry_lock);
}

/* ---------------------------------------------------------------------
 * Pins
 * ---------------------------------------------------------------------
 */

static HsPinSlot *
my_pin_slot(void)
{
	Assert(MyProc != NULL);
	Assert(MyProc->pgprocno < db_shared->npins);
	return &pin_slots()[MyProc->pgprocno];
}

static void
pin_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PREPARE)
		HsPinRelease();
	/* objects written by an aborted transaction are garbage */
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		HsPinClearInflightObjects();
}

static void
pin_exit_callback(int code, Datum arg)
{
	HsPinRelease();
	HsPinClearInflightObjects();
}

static void
register_pin_callbacks(void)
{
	if (pin_callbacks_registered)
		return;
	RegisterXactCallback(pin_xact_callback, NULL);
	before_shmem_exit(pin_exit_callback, (Datum) 0);
	pin_callbacks_registered = true;
}

void
HsPinVersion(Oid dboid, uint64 version_id, HsEpoch epoch)
{
	HsPinSlot  *slot = my_pin_slot();

	register_pin_callbacks();
	LWLockAcquire(&db_shared->pin_lock, LW_SHARED);
	if (slot->dboid != dboid)
	{
		slot->dboid = dboid;
		slot->version_id = version_id;
		slot->epoch = epoch;
	}
	else
	{
		slot->version_id = Min(slot->version_id, version_id);
		slot->epoch = Min(slot->epoch, epoch);
	}
	LWLockRelease(&db_shared->pin_lock);
}

uint64
HsPinPublishedVersion(Oid dboid, HsEpoch epoch)
{
	HsDbState  *db = HsDbStateGet(dboid, true);
	HsPinSlot  *slot = my_pin_slot();
	uint64		id;

	register_pin_callbacks();
	LWLockAcquire(&db_shared->pin_lock, LW_SHARED);
	id = pg_atomic_read_u64(&db->version_id);
	if (slot->dboid != dboid)
	{
		slot->dboid = dboid;
		slot->version_id = id;
		slot->epoch = epoch;
	}
	else
	{
		slot->version_id = Min(slot->version_id, id);
		slot->epoch = Min(slot->epoch, epoch);
	}
	LWLockRelease(&db_shared->pin_lock);
	return id;
}

void
HsPinRelease(void)
{
	HsPinSlot  *slot;

	if (db_shared == NULL || MyProc == NULL)
		return;
	slot = my_pin_slot();
	if (slot->dboid == InvalidOid)
		return;
	LWLockAcquire(&db_shared->pin_lock, LW_SHARED);
	slot->dboid = InvalidOid;
	LWLockRelease(&db_shared->pin_lock);
}

void
HsPinInflightObjects(Oid dboid, uint64 min_object_id)
{
	HsPinSlot  *slot = my_pin_slot();

	register_pin_callbacks();
	LWLockAcquire(&db_shared->pin_lock, LW_SHARED);
	if (slot->inflight_dboid == dboid)
		slot->inflight_object_id = Min(slot->inflight_object_id, min_object_id);
	else
	{
		slot->inflight_dboid = dboid;
		slot->inflight_object_id = min_object_id;
	}
	LWLockRelease(&db_shared->pin_lock);
}

void
HsPinSetInflightObjects(Oid dboid, uint64 min_object_id)
{
	HsPinSlot  *slot = my_pin_slot();

	register_pin_callbacks();
	LWLockAcquire(&db_shared->pin_lock, LW_SHARED);
	slot->inflight_dboid = dboid;
	slot->inflight_object_id = min_object_id;
	LWLockRelease(&db_shared->pin_lock);
}

uint64
HsPinInflightFloor(void)
{
	HsPinSlot  *slot = my_pin_slot();

	return slot->inflight_dboid == InvalidOid ? PG_UINT64_MAX :
		slot->inflight_object_id;
}

void
HsPinClearInflightObjects(void)
{
	HsPinSlot  *slot;

	if (db_shared == NULL || MyProc == NULL)
		return;
	slot = my_pin_slot();
	LWLockAcquire(&db_shared->pin_lock, LW_SHARED);
	slot->inflight_dboid = InvalidOid;
	slot->inflight_object_id = PG_UINT64_MAX;
	LWLockRelease(&db_shared->pin_lock);
}

void
HsPinSummarize(Oid dboid, HsPinSummary *out)
{
	HsPinSlot  *pins = pin_slots();

	out->min_version_id = PG_UINT64_MAX;
	out->min_epoch = HS_EPOCH_MAX;
	out->min_inflight_object_id = PG_UINT64_MAX;
	out->npins = 0;

	LWLockAcquire(&db_shared->pin_lock, LW_EXCLUSIVE);
	{
		HsDbState  *db = HsDbStateGet(dboid, false);

		out->published_version_id = db ? pg_atomic_read_u64(&db->version_id) : 0;
	}
	for (int i = 0; i < db_shared->npins; i++)
	{
		if (pins[i].dboid == dboid)
		{
			out->min_version_id = Min(out->min_version_id, pins[i].version_id);
			out->min_epoch = Min(out->min_epoch, pins[i].epoch);
			out->npins++;
		}
		if (pins[i].inflight_dboid == dboid)
			out->min_inflight_object_id = Min(out->min_inflight_object_id,
											  pins[i].inflight_object_id);
	}
	LWLockRelease(&db_shared->pin_lock);
}
