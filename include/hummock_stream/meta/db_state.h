/*-------------------------------------------------------------------------
 *
 * db_state.h
 *	  Per-database shared state: published version, and the pin registry.
 *
 * Every database that uses hummock_stream gets one HsDbState slot in
 * shared memory (hummock_stream.max_databases of them).  It holds what
 * every process of that database must agree on without reading the
 * catalog: the id of the newest committed version (published after the
 * committing transaction commits) and a condition variable to wait for it.
 *
 * The pin registry has one slot per PGPROC.  A process that reads hummock
 * data pins the oldest version id and epoch it reads at (for the rest of
 * its transaction); one that writes SSTs not yet committed records the
 * lowest such object id.  GC and compaction read the registry to know
 * what they must keep.  A slot is cleared at transaction end and at
 * process exit; after a crash, shared memory is initialized anew.
 *
 * include/hummock_stream/meta/db_state.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_DB_STATE_H
#define HS_META_DB_STATE_H

#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

#include "hummock_stream/storage/key.h"

extern int	hs_max_databases;

/* One recent barrier of one partial graph, for hummock_stream.barriers. */
#define HS_BARRIER_RING 1024
typedef struct HsBarrierRecord
{
	uint32		graph_id;		/* 0: the database's barrier itself */
	uint8		kind;			/* HsBarrierKind */
	HsEpoch		prev_epoch;
	HsEpoch		curr_epoch;
	TimestampTz injected_at;
	TimestampTz collected_at;	/* 0 while in flight */
	TimestampTz committed_at;	/* 0 unless a committed checkpoint */
} HsBarrierRecord;

/* Status of one partial graph, for hummock_stream.partial_graphs. */
#define HS_MAX_GRAPH_STATUS 256
typedef struct HsGraphStatus
{
	uint32		graph_id;		/* 0: unused slot */
	uint8		state;			/* HsGraphState */
	bool		paused;
	int16		n_actors;
	int16		inflight;
	HsEpoch		committed_epoch;
	HsEpoch		last_injected;
	int64		commits;
	int64		resets;
	TimestampTz last_commit_at;
	char		last_error[160];
} HsGraphStatus;

/* Status of one compute worker, for hummock_stream.workers. */
#define HS_MAX_WORKER_STATUS 64
typedef struct HsWorkerStatus
{
	pid_t		pid;			/* 0: not running */
	int16		n_graphs;
	int64		starts;
	TimestampTz started_at;
} HsWorkerStatus;

typedef struct HsDbState
{
	/* set once when the slot is taken, under the registry lock */
	Oid			dboid;			/* InvalidOid: free slot */

	/* written by committers after their transaction commits; only grows */
	pg_atomic_uint64 version_id;
	ConditionVariable version_cv;	/* broadcast when version_id grows */

	/*
	 * Bumped after CREATE or DROP EXTENSION commits in this database, so a
	 * process knows when to look the extension's OID up again.
	 */
	pg_atomic_uint64 incarnation;

	/*
	 * Barrier manager lifecycle (all under the registry lock).  A backend
	 * sets start_requested after CREATE EXTENSION commits and wakes the
	 * launcher; DROP DATABASE sets stop_requested before it waits for the
	 * manager (which then exits with code 0 and is not restarted).
	 */
	bool		start_requested;
	bool		stop_requested;
	pid_t		manager_pid;	/* 0 if not running */
	Latch	   *manager_latch;	/* set with manager_pid */
	ConditionVariable manager_cv;	/* broadcast when manager_pid changes */

	/*
	 * Written only by the manager (readers take the spinlock): the newest
	 * epoch injected and collected, and a ring of recent barriers.
	 */
	slock_t		barrier_mutex;
	HsEpoch		last_injected;
	uint64		barriers_total;
	int			ring_next;
	int			n_graphs;
	int			n_workers;
	bool		reload_requested;	/* the catalog of graphs changed */
	HsBarrierRecord ring[HS_BARRIER_RING];
	HsGraphStatus graphs[HS_MAX_GRAPH_STATUS];
	HsWorkerStatus workers[HS_MAX_WORKER_STATUS];
} HsDbState;

/* What the registry knows about pins of one database. */
typedef struct HsPinSummary
{
	uint64		min_version_id; /* PG_UINT64_MAX if none */
	HsEpoch		min_epoch;		/* HS_EPOCH_MAX if none */
	uint64		min_inflight_object_id; /* PG_UINT64_MAX if none */
	int			npins;
	uint64		published_version_id;	/* read atomically with the pins */
} HsPinSummary;

/* shared-memory registry entries (src/pg/shmem.c) */
extern Size HsDbStateShmemSize(void);
extern void HsDbStateShmemInit(void *ptr, bool found);

/* The slot of a database; with create, take a free slot if needed. */
extern HsDbState *HsDbStateGet(Oid dboid, bool create);

/* Raise the published version id (never lowers it) and wake waiters. */
extern void HsDbStatePublishVersion(HsDbState *db, uint64 version_id);

/*
 * Wait until the published version id is >= want or timeout_ms passes
 * (-1: forever).  Returns the published id.
 */
extern uint64 HsDbStateWaitVersion(HsDbState *db, uint64 want, long timeout_ms);

/* ---- barrier manager lifecycle ---- */

/* The launcher records its latch so backends can wake it. */
extern void HsLauncherRegisterSelf(void);
extern void HsLauncherUnregisterSelf(void);
extern void HsLauncherWake(void);

/* Ask the launcher to start the manager of dboid. */
extern void HsDbStateRequestStart(Oid dboid);

/* Databases whose start was requested (and clear the requests). */
extern int	HsDbStateTakeStartRequests(Oid *dboids, int max);

/* The manager of dboid records itself; returns false if it must stop. */
extern bool HsDbStateManagerAttach(Oid dboid);
extern void HsDbStateManagerDetach(Oid dboid);
/*
 * Ask the manager of dboid to reread its catalog (graphs, and whether the
 * extension is still installed) and wake it.
 */
extern void HsDbStateWakeManager(Oid dboid);
extern bool HsDbStateStopRequested(Oid dboid);

/*
 * Stop the manager of dboid and keep it from being restarted (DROP
 * DATABASE); waits up to timeout_ms.  HsDbStateCancelStop undoes the
 * request if the drop fails.
 */
extern void HsDbStateStopManager(Oid dboid, long timeout_ms);
extern void HsDbStateCancelStop(Oid dboid);

/* ---- pins (one slot per process) ---- */

/*
 * Pin (version_id, epoch) for the current transaction; a second call
 * keeps the older of the two.  Released at transaction end.
 */
extern void HsPinVersion(Oid dboid, uint64 version_id, HsEpoch epoch);

/*
 * Pin the published version of dboid (and epoch) and return its id; the
 * caller then reads any version at least that new.  Reading the id and
 * pinning it happen under the pin lock, which HsPinSummarize takes
 * exclusively, so GC either sees the pin or published a version no older.
 */
extern uint64 HsPinPublishedVersion(Oid dboid, HsEpoch epoch);
extern void HsPinRelease(void);

/* Record/clear the lowest object id this process wrote but did not commit. */
extern void HsPinInflightObjects(Oid dboid, uint64 min_object_id);
extern void HsPinSetInflightObjects(Oid dboid, uint64 min_object_id);
extern void HsPinClearInflightObjects(void);
/* This process's in-flight floor (PG_UINT64_MAX if none). */
extern uint64 HsPinInflightFloor(void);

extern void HsPinSummarize(Oid dboid, HsPinSummary *out);

/* Ask this database's manager to reread its catalog when we commit. */
extern void HsWakeManagerOnCommit(void);

#endif							/* HS_META_DB_STATE_H */
