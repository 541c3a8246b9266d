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
 *	- registry_lock (exclusive) to take, give back or change the life-cycle
 *	  fields of a database slot;
 *	- version_id is an atomic that only grows (compare-and-swap loop);
 *	- pin_lock: a process writes its own pin slot in LW_SHARED mode (no
 *	  other process writes it) and a summarizer reads all slots in
 *	  LW_EXCLUSIVE mode, so it never sees a half-written pin.
 *
 * Giving slots back.  A process uses only the slot of its own database
 * (MyDatabaseId), except the launcher and a backend running DROP DATABASE,
 * which look a slot up by its database under the registry lock each time.
 * So a slot can go to another database once no process of its database
 * can use it any more:
 *	- its database was dropped (DROP DATABASE committed: nobody is
 *	  connected to it and nobody can connect), or
 *	- its extension was dropped (DROP EXTENSION committed, after it stopped
 *	  the manager; every reader of the store then fails on the missing
 *	  extension before it touches the slot), or a barrier manager found no
 *	  extension (the slot was taken at start for a database that does not
 *	  use hummock_stream),
 * and, for both, no barrier manager of the database runs, was registered
 * by the launcher and has not attached yet, or exited with an error and
 * is about to be restarted by the postmaster (a manager that finds no
 * slot for its database would take a new one).  CREATE EXTENSION counts
 * itself in the slot from its ProcessUtility hook to the end of its
 * transaction, so neither a DROP EXTENSION committing meanwhile nor a
 * manager that does not see the new extension yet marks the slot free.
 * A slot whose database is not in pg_database any more is given back
 * under the same condition, lazily (a backend that needs a slot and finds
 * none looks) and by the launcher every few seconds.  Condition variables
 * and spinlocks of a slot are never initialized again (a process may
 * still sleep on one); its incarnation takes a new server-wide value, so
 * no process mistakes its caches for the new database's.
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
#include "utils/syscache.h"

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

/* A database whose barrier manager could not start, and why. */
#define HS_MAX_MANAGER_PROBLEMS 64
typedef struct HsManagerProblemEntry
{
	Oid			dboid;			/* InvalidOid: unused */
	uint8		problem;		/* HsManagerProblem */
} HsManagerProblemEntry;

typedef struct HsDbShared
{
	int			tranche_id;
	Latch	   *launcher_latch; /* under registry_lock; NULL if none */
	LWLock		registry_lock;
	LWLock		pin_lock;
	pg_atomic_uint64 next_incarnation;	/* server-wide, never repeats */
	HsManagerProblemEntry problems[HS_MAX_MANAGER_PROBLEMS];	/* registry_lock */
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

/*
 * Make slot s the fresh slot of dboid (InvalidOid: free), keeping its
 * locks and condition variables.  Caller holds the registry lock
 * exclusively, or initializes shared memory.
 */
static void
reset_slot(HsDbState *s, Oid dboid)
{
	s->dboid = dboid;
	s->extension_gone = false;
	s->database_dropped = false;
	s->pending_creates = 0;
	s->claims = 0;
	pg_atomic_write_u64(&s->version_id, 0);
	pg_atomic_write_u64(&s->incarnation,
						pg_atomic_fetch_add_u64(&db_shared->next_incarnation, 1));
	s->start_requested = false;
	s->stop_requested = false;
	s->manager_starting = false;
	s->manager_restart_pending = false;
	s->manager_pid = 0;
	s->manager_latch = NULL;
	SpinLockAcquire(&s->barrier_mutex);
	s->last_injected = 0;
	s->global_floor = 0;
	s->global_floor_version = 0;
	s->barriers_total = 0;
	s->ring_next = 0;
	s->aligned_next = 0;
	s->n_graphs = 0;
	s->graphs_published = false;
	s->n_workers = 0;
	s->reload_requested = false;
	SpinLockRelease(&s->barrier_mutex);
	/* nobody can look the slot up while we hold the registry lock */
	memset(s->ring, 0, sizeof(s->ring));
	memset(s->aligned, 0, sizeof(s->aligned));
	memset(s->graphs, 0, sizeof(s->graphs));
	memset(s->workers, 0, sizeof(s->workers));
	memset(s->creations, 0, sizeof(s->creations));
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
		pg_atomic_init_u64(&db_shared->next_incarnation, 1);
		memset(db_shared->problems, 0, sizeof(db_shared->problems));
		db_shared->nslots = hs_max_databases;
		db_shared->npins = pin_slot_count();
		slots = db_slots();
		for (int i = 0; i < db_shared->nslots; i++)
		{
			pg_atomic_init_u64(&slots[i].version_id, 0);
			pg_atomic_init_u64(&slots[i].incarnation, 0);
			ConditionVariableInit(&slots[i].version_cv);
			ConditionVariableInit(&slots[i].manager_cv);
			SpinLockInit(&slots[i].barrier_mutex);
			reset_slot(&slots[i], InvalidOid);
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

/* The slot of dboid, or NULL; caller holds the registry lock. */
static HsDbState *
find_slot(Oid dboid)
{
	HsDbState  *slots = db_slots();

	for (int i = 0; i < db_shared->nslots; i++)
		if (slots[i].dboid == dboid)
			return &slots[i];
	return NULL;
}

/*
 * Does no barrier manager of the slot's database run, wait to attach or
 * wait to be restarted, and does no CREATE EXTENSION count on it?  Caller
 * holds the registry lock.
 */
static bool
slot_idle(HsDbState *s)
{
	if (s->manager_pid != 0 && s->manager_pid != MyProcPid &&
		kill(s->manager_pid, 0) == 0)
		return false;
	return !s->manager_starting && !s->manager_restart_pending &&
		s->pending_creates == 0;
}

/*
 * A slot another database may take now: free, or given back (and idle).
 * Caller holds the registry lock exclusively.
 */
static HsDbState *
reusable_slot(void)
{
	HsDbState  *slots = db_slots();

	for (int i = 0; i < db_shared->nslots; i++)
		if (slots[i].dboid == InvalidOid)
			return &slots[i];
	for (int i = 0; i < db_shared->nslots; i++)
		if ((slots[i].extension_gone || slots[i].database_dropped) &&
			slot_idle(&slots[i]))
			return &slots[i];
	return NULL;
}

/* Find or take the slot of dboid; NULL if none is left. */
static HsDbState *
get_slot(Oid dboid, bool create)
{
	HsDbState  *result;
	Oid			candidates[64];
	int			ncand = 0;

	Assert(db_shared != NULL);
	LWLockAcquire(&db_shared->registry_lock, LW_SHARED);
	result = find_slot(dboid);
	LWLockRelease(&db_shared->registry_lock);
	if (result != NULL || !create)
		return result;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	result = find_slot(dboid);
	if (result == NULL && (result = reusable_slot()) != NULL)
		reset_slot(result, dboid);
	if (result == NULL)
	{
		HsDbState  *slots = db_slots();

		/* idle slots whose database may have been dropped */
		for (int i = 0; i < db_shared->nslots && ncand < (int) lengthof(candidates); i++)
			if (slot_idle(&slots[i]))
				candidates[ncand++] = slots[i].dboid;
	}
	LWLockRelease(&db_shared->registry_lock);
	if (result != NULL || ncand == 0 || !IsTransactionState())
		return result;

	/*
	 * Look the candidates up in pg_database (a shared catalog) without the
	 * lock held; a database that is not there was dropped and committed,
	 * so nobody is connected to it.  Then check again under the lock.
	 */
	for (int i = 0; i < ncand; i++)
		if (SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(candidates[i])))
			candidates[i] = InvalidOid;
	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	result = find_slot(dboid);
	for (int i = 0; result == NULL && i < ncand; i++)
	{
		HsDbState  *s;

		if (!OidIsValid(candidates[i]) || (s = find_slot(candidates[i])) == NULL ||
			!slot_idle(s))
			continue;
		ereport(LOG,
				(errmsg("hummock_stream gives the shared slot of dropped database %u to database %u",
						candidates[i], dboid)));
		reset_slot(s, dboid);
		result = s;
	}
	LWLockRelease(&db_shared->registry_lock);
	return result;
}

HsDbState *
HsDbStateGet(Oid dboid, bool create)
{
	HsDbState  *result = get_slot(dboid, create);

	if (result == NULL && create)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("too many databases use hummock_stream"),
				 errdetail("At most %d databases can use hummock_stream at the same time.",
						   hs_max_databases),
				 errhint("Drop the extension in a database that does not need it, or raise hummock_stream.max_databases and restart the server.")));
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

		CHECK_FOR_INTERRUPTS();
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

void
HsDbStateNotify(HsDbState *db)
{
	ConditionVariableBroadcast(&db->version_cv);
}

void
HsDbStateNewIncarnation(HsDbState *db)
{
	pg_atomic_write_u64(&db->incarnation,
						pg_atomic_fetch_add_u64(&db_shared->next_incarnation, 1));
}

HsEpoch
HsDbStateCommittedBy(HsDbState *db, uint32 graph_id, HsEpoch e)
{
	HsEpoch		by = 0;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_BARRIER_RING; i++)
	{
		const HsBarrierRecord *r = &db->ring[i];

		/* (only a committed checkpoint has a commit time) */
		if (r->graph_id == graph_id && r->prev_epoch == e && r->committed_at != 0)
		{
			by = r->curr_epoch;
			break;
		}
	}
	SpinLockRelease(&db->barrier_mutex);
	return by;
}

bool
HsDbStateGraphStatus(HsDbState *db, uint32 graph_id, HsGraphStatus *out)
{
	bool		found = false;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < db->n_graphs; i++)
	{
		if (db->graphs[i].graph_id == graph_id)
		{
			*out = db->graphs[i];
			found = true;
			break;
		}
	}
	SpinLockRelease(&db->barrier_mutex);
	return found;
}

int
HsDbStateStalledGraphs(HsDbState *db, uint32 *graph_ids, int max)
{
	int			n = 0;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < db->n_graphs && n < max; i++)
		if (db->graphs[i].failed || db->graphs[i].commit_held || db->graphs[i].n_actors == 0 ||
			db->graphs[i].exact_since == 0 || db->graphs[i].exact_until != HS_EPOCH_MAX)
			graph_ids[n++] = db->graphs[i].graph_id;
	SpinLockRelease(&db->barrier_mutex);
	return n;
}

int
HsDbStateRunningGraphs(HsDbState *db, uint32 *graph_ids, int max)
{
	int			n = -1;

	SpinLockAcquire(&db->barrier_mutex);
	if (db->graphs_published && db->manager_pid != 0 &&
		db->n_graphs < HS_MAX_GRAPH_STATUS && db->n_graphs <= max)
	{
		for (n = 0; n < db->n_graphs; n++)
			graph_ids[n] = db->graphs[n].graph_id;
	}
	SpinLockRelease(&db->barrier_mutex);
	return n;
}

HsEpoch
HsDbStateGlobalFloor(HsDbState *db, uint64 version_id)
{
	HsEpoch		floor;

	SpinLockAcquire(&db->barrier_mutex);
	floor = db->global_floor_version <= version_id ? db->global_floor : 0;
	SpinLockRelease(&db->barrier_mutex);
	return floor;
}

void
HsDbStateRaiseGlobalFloor(HsDbState *db, uint64 version_id, HsEpoch epoch)
{
	SpinLockAcquire(&db->barrier_mutex);
	if (epoch > db->global_floor)
	{
		db->global_floor = epoch;
		db->global_floor_version = Max(db->global_floor_version, version_id);
	}
	SpinLockRelease(&db->barrier_mutex);
}

void
HsDbStateRecordAligned(HsDbState *db, HsEpoch e)
{
	SpinLockAcquire(&db->barrier_mutex);
	db->aligned[db->aligned_next] = e;
	db->aligned_next = (db->aligned_next + 1) % HS_ALIGNED_RING;
	SpinLockRelease(&db->barrier_mutex);
}

HsEpoch
HsDbStateAlignedAtOrBelow(HsDbState *db, HsEpoch e)
{
	HsEpoch		best = 0;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_ALIGNED_RING; i++)
		if (db->aligned[i] <= e && db->aligned[i] > best)
			best = db->aligned[i];
	SpinLockRelease(&db->barrier_mutex);
	return best;
}

bool
HsDbStateGraphExactAt(HsDbState *db, uint32 graph_id, HsEpoch e)
{
	HsGraphStatus st;

	if (!HsDbStateGraphStatus(db, graph_id, &st))
		return true;
	return st.exact_since != 0 && st.exact_since <= e && e < st.exact_until;
}

/* ---------------------------------------------------------------------
 * Slot life cycle
 * ---------------------------------------------------------------------
 */

HsCreateClaim
HsDbStateCreateBegin(Oid dboid)
{
	bool		existed = get_slot(dboid, false) != NULL;
	HsDbState  *db = HsDbStateGet(dboid, true);
	HsCreateClaim claim;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	if (!existed && db->claims == 0 && db->manager_pid == 0)
		claim = HS_CLAIM_FRESH;
	else if (db->extension_gone)
		claim = HS_CLAIM_WAS_GONE;
	else
		claim = HS_CLAIM_IN_USE;
	db->pending_creates++;
	db->claims++;
	db->extension_gone = false;
	LWLockRelease(&db_shared->registry_lock);
	return claim;
}

void
HsDbStateCreateEnded(Oid dboid, bool committed, HsCreateClaim claim)
{
	HsDbState  *db;
	bool		check = false;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db = find_slot(dboid);
	if (db != NULL)
	{
		if (db->pending_creates > 0)
			db->pending_creates--;
		if (committed)
			db->extension_gone = false;
		else if (claim == HS_CLAIM_WAS_GONE && db->pending_creates == 0)
			db->extension_gone = true;
		else if (claim == HS_CLAIM_FRESH)
			check = true;
	}
	LWLockRelease(&db_shared->registry_lock);
	/* a manager looks whether the extension is there, and frees the slot if not */
	if (check)
		HsDbStateRequestStart(dboid);
}

void
HsDbStateExtensionDropped(Oid dboid)
{
	HsDbState  *db;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db = find_slot(dboid);
	if (db != NULL && db->pending_creates == 0)
	{
		db->extension_gone = true;
		/* a new store's version ids start over */
		pg_atomic_write_u64(&db->version_id, 0);
	}
	LWLockRelease(&db_shared->registry_lock);
}

void
HsDbStateDatabaseDropped(Oid dboid)
{
	HsDbState  *db;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db = find_slot(dboid);
	if (db != NULL)
	{
		db->database_dropped = true;
		if (slot_idle(db))
			reset_slot(db, InvalidOid);
	}
	for (int i = 0; i < HS_MAX_MANAGER_PROBLEMS; i++)
		if (db_shared->problems[i].dboid == dboid)
			db_shared->problems[i].dboid = InvalidOid;
	LWLockRelease(&db_shared->registry_lock);
}

int
HsDbStateDatabasesInUse(void)
{
	HsDbState  *slots = db_slots();
	int			n = 0;

	LWLockAcquire(&db_shared->registry_lock, LW_SHARED);
	for (int i = 0; i < db_shared->nslots; i++)
		if (OidIsValid(slots[i].dboid) && !slots[i].extension_gone &&
			!slots[i].database_dropped)
			n++;
	LWLockRelease(&db_shared->registry_lock);
	return n;
}

int
HsDbStateSlotDatabases(Oid *dboids, int max)
{
	HsDbState  *slots = db_slots();
	int			n = 0;

	LWLockAcquire(&db_shared->registry_lock, LW_SHARED);
	for (int i = 0; i < db_shared->nslots && n < max; i++)
		if (OidIsValid(slots[i].dboid))
			dboids[n++] = slots[i].dboid;
	for (int i = 0; i < HS_MAX_MANAGER_PROBLEMS && n < max; i++)
		if (OidIsValid(db_shared->problems[i].dboid))
			dboids[n++] = db_shared->problems[i].dboid;
	LWLockRelease(&db_shared->registry_lock);
	return n;
}

void
HsDbStateForgetDatabases(const Oid *gone, int n)
{
	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	for (int k = 0; k < n; k++)
	{
		HsDbState  *db = find_slot(gone[k]);

		if (db != NULL && slot_idle(db))
		{
			ereport(LOG,
					(errmsg("hummock_stream frees the shared slot of dropped database %u",
							gone[k])));
			reset_slot(db, InvalidOid);
		}
		for (int i = 0; i < HS_MAX_MANAGER_PROBLEMS; i++)
			if (db_shared->problems[i].dboid == gone[k])
				db_shared->problems[i].dboid = InvalidOid;
	}
	LWLockRelease(&db_shared->registry_lock);
}

void
HsDbStateSetManagerProblem(Oid dboid, HsManagerProblem problem)
{
	HsManagerProblemEntry *e = NULL;
	HsDbState  *db;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	for (int i = 0; i < HS_MAX_MANAGER_PROBLEMS; i++)
		if (db_shared->problems[i].dboid == dboid)
			e = &db_shared->problems[i];
	if (e == NULL && problem != HS_MANAGER_OK)
		for (int i = 0; i < HS_MAX_MANAGER_PROBLEMS && e == NULL; i++)
			if (!OidIsValid(db_shared->problems[i].dboid))
				e = &db_shared->problems[i];
	if (e != NULL)
	{
		e->dboid = problem == HS_MANAGER_OK ? InvalidOid : dboid;
		e->problem = (uint8) problem;
	}
	db = find_slot(dboid);
	LWLockRelease(&db_shared->registry_lock);
	/* wait() fails at once on a problem: wake it */
	if (db != NULL)
		HsDbStateNotify(db);
}

HsManagerProblem
HsDbStateManagerProblem(Oid dboid)
{
	HsManagerProblem problem = HS_MANAGER_OK;

	LWLockAcquire(&db_shared->registry_lock, LW_SHARED);
	for (int i = 0; i < HS_MAX_MANAGER_PROBLEMS; i++)
		if (db_shared->problems[i].dboid == dboid)
			problem = (HsManagerProblem) db_shared->problems[i].problem;
	LWLockRelease(&db_shared->registry_lock);
	return problem;
}

int
HsDbStateManagerProblems(Oid *dboids, int max)
{
	int			n = 0;

	LWLockAcquire(&db_shared->registry_lock, LW_SHARED);
	for (int i = 0; i < HS_MAX_MANAGER_PROBLEMS && n < max; i++)
		if (OidIsValid(db_shared->problems[i].dboid))
			dboids[n++] = db_shared->problems[i].dboid;
	LWLockRelease(&db_shared->registry_lock);
	return n;
}

void
HsDbStateManagerStarting(Oid dboid, bool starting)
{
	HsDbState  *db;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db = find_slot(dboid);
	if (db != NULL)
		db->manager_starting = starting;
	LWLockRelease(&db_shared->registry_lock);
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
	HsDbState  *db;

	/* called at commit and abort: no slot is taken here, nothing fails */
	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db = find_slot(dboid);
	if (db != NULL)
	{
		db->start_requested = true;
		db->stop_requested = false;
	}
	LWLockRelease(&db_shared->registry_lock);
	if (db != NULL)
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

HsAttachResult
HsDbStateManagerAttach(Oid dboid, uint64 *claims_seen)
{
	HsDbState  *db = get_slot(dboid, true);
	bool		ok;

	*claims_seen = 0;
	if (db == NULL)
		return HS_ATTACH_NO_SLOT;
	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	if (db->dboid != dboid)
	{
		/* given to another database since we found it: we stop */
		LWLockRelease(&db_shared->registry_lock);
		return HS_ATTACH_STOP;
	}
	/* whatever we decide, the manager the launcher registered has come */
	db->manager_starting = false;
	db->manager_restart_pending = false;
	ok = !db->stop_requested &&
		(db->manager_pid == 0 || db->manager_pid == MyProcPid ||
		 kill(db->manager_pid, 0) != 0);
	if (ok)
	{
		db->manager_pid = MyProcPid;
		db->manager_latch = MyLatch;
		*claims_seen = db->claims;
		/* the barrier history and statuses belong to this manager */
		SpinLockAcquire(&db->barrier_mutex);
		memset(db->ring, 0, sizeof(db->ring));
		db->ring_next = 0;
		db->n_graphs = 0;
		db->graphs_published = false;
		db->n_workers = 0;
		SpinLockRelease(&db->barrier_mutex);
	}
	LWLockRelease(&db_shared->registry_lock);
	ConditionVariableBroadcast(&db->manager_cv);
	return ok ? HS_ATTACH_OK : HS_ATTACH_STOP;
}

void
HsDbStateManagerNoExtension(Oid dboid, uint64 claims_seen)
{
	HsDbState  *db;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db = find_slot(dboid);
	if (db != NULL && db->pending_creates == 0 && db->claims == claims_seen)
		db->extension_gone = true;
	LWLockRelease(&db_shared->registry_lock);
}

void
HsDbStateManagerDetach(Oid dboid, int exit_code)
{
	HsDbState  *db;

	LWLockAcquire(&db_shared->registry_lock, LW_EXCLUSIVE);
	db = find_slot(dboid);
	if (db != NULL && db->manager_pid == MyProcPid)
	{
		db->manager_pid = 0;
		db->manager_latch = NULL;
		/* the postmaster restarts a manager that exits with an error */
		db->manager_restart_pending = (exit_code != 0);
	}
	LWLockRelease(&db_shared->registry_lock);
	if (db != NULL)
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
HsDbStateCancelCreations(Oid dboid)
{
	HsDbState  *db = HsDbStateGet(dboid, false);
	pid_t		creators[HS_MAX_CREATIONS];
	int			n = 0;

	if (db == NULL)
		return;
	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_CREATIONS; i++)
		if (db->creations[i].phase != HS_CREATION_FREE && db->creations[i].pid != 0)
			creators[n++] = db->creations[i].pid;
	SpinLockRelease(&db->barrier_mutex);
	/* (a creator's SIGTERM cancels its creation, which cleans up and exits) */
	for (int i = 0; i < n; i++)
		(void) kill(creators[i], SIGTERM);
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

/* ---------------------------------------------------------------------
 * Creations in the background
 * ---------------------------------------------------------------------
 */

int
HsDbStateCreationBegin(HsDbState *db, Oid userid)
{
	int			slot = -1;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_CREATIONS && slot < 0; i++)
	{
		HsCreationStatus *c = &db->creations[i];

		/* (its creator frees a slot as it exits; a crash resets them all) */
		if (c->phase == HS_CREATION_FREE)
		{
			memset(c, 0, sizeof(*c));
			c->phase = HS_CREATION_WAITING_WRITERS;
			c->pid = MyProcPid;
			c->userid = userid;
			c->started_at = c->phase_at = GetCurrentTimestamp();
			slot = i;
		}
	}
	SpinLockRelease(&db->barrier_mutex);
	return slot;
}

void
HsDbStateCreationSet(HsDbState *db, int slot, const HsCreationStatus *st)
{
	pid_t		canceled_by;

	SpinLockAcquire(&db->barrier_mutex);
	canceled_by = db->creations[slot].canceled_by;
	db->creations[slot] = *st;
	db->creations[slot].canceled_by = canceled_by;
	SpinLockRelease(&db->barrier_mutex);
}

/*
 * A DROP of view is about to cancel its creation: note this backend in the
 * creation's slot (so the creator can say why it stopped) and return the
 * creator's pid, if a live creator has the view.
 */
bool
HsDbStateCreationCancelBy(HsDbState *db, Oid view, pid_t *creator)
{
	HsCreationStatus *found = NULL;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_CREATIONS; i++)
		if (db->creations[i].phase != HS_CREATION_FREE && db->creations[i].view == view)
		{
			found = &db->creations[i];
			found->canceled_by = MyProcPid;
			*creator = found->pid;
		}
	SpinLockRelease(&db->barrier_mutex);
	return found != NULL && *creator != 0 && kill(*creator, 0) == 0;
}

pid_t
HsDbStateCreationCanceledBy(HsDbState *db, int slot)
{
	pid_t		by;

	SpinLockAcquire(&db->barrier_mutex);
	by = db->creations[slot].canceled_by;
	SpinLockRelease(&db->barrier_mutex);
	return by;
}

void
HsDbStateCreationEnd(HsDbState *db, int slot)
{
	SpinLockAcquire(&db->barrier_mutex);
	memset(&db->creations[slot], 0, sizeof(HsCreationStatus));
	SpinLockRelease(&db->barrier_mutex);
}

int
HsDbStateCreations(HsDbState *db, HsCreationStatus *out, int max)
{
	int			n = 0;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_CREATIONS && n < max; i++)
		if (db->creations[i].phase != HS_CREATION_FREE)
			out[n++] = db->creations[i];
	SpinLockRelease(&db->barrier_mutex);
	return n;
}

bool
HsDbStateLogRequestAdd(HsDbState *db, Oid relid)
{
	bool		done = false;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_LOG_REQUESTS && !done; i++)
	{
		HsLogRequest *r = &db->log_requests[i];

		if (r->relid == relid && r->pid == MyProcPid)
			done = true;		/* asked already */
		else if (!OidIsValid(r->relid))
		{
			r->relid = relid;
			r->pid = MyProcPid;
			r->seen_epoch = 0;
			done = true;
		}
	}
	SpinLockRelease(&db->barrier_mutex);
	return done;
}

bool
HsDbStateRetryRequest(HsDbState *db, uint32 graph_id)
{
	bool		done = false;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_RETRY_REQUESTS && !done; i++)
	{
		if (db->retry_requests[i] == graph_id)
			done = true;		/* asked already */
		else if (db->retry_requests[i] == 0)
		{
			db->retry_requests[i] = graph_id;
			done = true;
		}
	}
	SpinLockRelease(&db->barrier_mutex);
	return done;
}

int
HsDbStateRetryRequestsTake(HsDbState *db, uint32 *graph_ids, int max)
{
	int			n = 0;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_RETRY_REQUESTS && n < max; i++)
	{
		if (db->retry_requests[i] == 0)
			continue;
		graph_ids[n++] = db->retry_requests[i];
		db->retry_requests[i] = 0;
	}
	SpinLockRelease(&db->barrier_mutex);
	return n;
}

HsEpoch
HsDbStateLogRequestSeen(HsDbState *db, Oid relid)
{
	HsEpoch		seen = 0;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_LOG_REQUESTS; i++)
		if (db->log_requests[i].relid == relid && db->log_requests[i].pid == MyProcPid)
			seen = db->log_requests[i].seen_epoch;
	SpinLockRelease(&db->barrier_mutex);
	return seen;
}

void
HsDbStateLogRequestsRelease(HsDbState *db)
{
	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_LOG_REQUESTS; i++)
		if (db->log_requests[i].pid == MyProcPid)
			memset(&db->log_requests[i], 0, sizeof(HsLogRequest));
	SpinLockRelease(&db->barrier_mutex);
}

int
HsDbStateLogRequestsTake(HsDbState *db, HsEpoch injected, Oid *relids, int max)
{
	pid_t		pids[HS_MAX_LOG_REQUESTS];
	int			n = 0;
	int			live = 0;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_LOG_REQUESTS && n < max; i++)
	{
		HsLogRequest *r = &db->log_requests[i];

		if (!OidIsValid(r->relid))
			continue;
		if (r->seen_epoch == 0)
			r->seen_epoch = Max(injected, 1);
		relids[n] = r->relid;
		pids[n++] = r->pid;
	}
	SpinLockRelease(&db->barrier_mutex);

	/*
	 * A requester that died without its clean-up (an abort releases them)
	 * asks nothing, and its slot is freed.
	 */
	for (int i = 0; i < n; i++)
	{
		if (kill(pids[i], 0) == 0)
		{
			relids[live++] = relids[i];
			continue;
		}
		SpinLockAcquire(&db->barrier_mutex);
		for (int k = 0; k < HS_MAX_LOG_REQUESTS; k++)
			if (db->log_requests[k].pid == pids[i] &&
				db->log_requests[k].relid == relids[i])
				memset(&db->log_requests[k], 0, sizeof(HsLogRequest));
		SpinLockRelease(&db->barrier_mutex);
	}
	return live;
}

bool
HsDbStateCreating(HsDbState *db, Oid view, pid_t *pid)
{
	pid_t		p = 0;

	SpinLockAcquire(&db->barrier_mutex);
	for (int i = 0; i < HS_MAX_CREATIONS; i++)
		if (db->creations[i].phase != HS_CREATION_FREE && db->creations[i].view == view)
			p = db->creations[i].pid;
	SpinLockRelease(&db->barrier_mutex);
	if (p == 0 || kill(p, 0) != 0)
		return false;
	if (pid)
		*pid = p;
	return true;
}
