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
 * Slots are given back: DROP DATABASE and DROP EXTENSION mark a database's
 * slot as no longer needed, and a barrier manager that finds no extension
 * does the same; such a slot, and one whose database no longer exists in
 * pg_database, is taken by the next database that needs one, once no
 * barrier manager of its old database runs, is starting or is about to be
 * restarted (db_state.c describes the protocol).
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

/*
 * Aligned epochs kept for the global read epoch: more than any graph can
 * have in flight (hummock_stream.max_inflight_barriers plus the one an
 * aligned round adds) in all but extreme settings.
 */
#define HS_ALIGNED_RING 256

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

/*
 * Status of one partial graph, for hummock_stream.partial_graphs, wait(),
 * jobs and the global read epoch.  At most HS_MAX_GRAPH_STATUS graphs per
 * database are shown, those that do not advance first (publish_status).
 */
#define HS_MAX_GRAPH_STATUS 1024
typedef struct HsGraphStatus
{
	uint32		graph_id;		/* 0: unused slot */
	uint8		state;			/* HsGraphState */
	bool		paused;
	bool		failed;			/* failed since its last commit (last_error) */
	bool		worker_lost;	/* its last failure: a compute worker exited */
	bool		waits_for_worker;	/* failed: a worker of it has no slot */
	bool		commit_held;	/* another transaction holds its job's row
								 * (a DROP of it in an open transaction) */
	/*
	 * The aligned epochs (see HsDbStateRecordAligned) at which the graph
	 * holds exactly the round's snapshot: those in [exact_since,
	 * exact_until).  exact_since 0: none yet (a graph just started, or
	 * rebuilt); exact_until HS_EPOCH_MAX: it has taken every aligned round
	 * since exact_since.
	 */
	HsEpoch		exact_since;
	HsEpoch		exact_until;
	int16		failures;		/* failures in a row since its last commit */
	int16		n_actors;
	int16		inflight;
	HsEpoch		committed_epoch;
	HsEpoch		last_injected;
	int64		commits;
	int64		resets;
	TimestampTz last_commit_at;
	TimestampTz retry_at;		/* failed: when its next Initial barrier may go */
	char		last_error[512];
} HsGraphStatus;

/* Status of one compute worker, for hummock_stream.workers. */
#define HS_MAX_WORKER_STATUS 64
typedef struct HsWorkerStatus
{
	pid_t		pid;			/* 0: not running */
	bool		start_failed;	/* its last start found no worker slot */
	int16		n_graphs;
	int64		starts;
	TimestampTz started_at;
} HsWorkerStatus;

/* The reason a graph waits for a compute worker that has no slot. */
#define HS_NO_WORKER_SLOT_MSG \
	"no background worker slot for compute worker %d of this database; raise max_worker_processes"
/* The reason every view of a database whose manager cannot start fails. */
#define HS_NO_MANAGER_SLOT_MSG \
	"no background worker slot for the barrier manager of this database; raise max_worker_processes"

/*
 * A view being created in the background (view_create.c), for
 * hummock_stream.create_progress: written by its creator process under
 * the barrier mutex.
 */
#define HS_MAX_CREATIONS 16
#define HS_CREATION_MAX_INPUTS 8
typedef enum HsCreationPhase
{
	HS_CREATION_FREE = 0,
	HS_CREATION_WAITING_WRITERS,	/* for writers of its sources to end */
	HS_CREATION_SETTING_UP,		/* capture, the view's relation */
	HS_CREATION_WAITING,		/* for its upstream views' epoch */
	HS_CREATION_BACKFILLING,	/* reading its inputs at S0 / E */
	HS_CREATION_COMMITTING		/* its first epoch */
} HsCreationPhase;

typedef struct HsCreationStatus
{
	uint8		phase;			/* HsCreationPhase; FREE: unused slot */
	Oid			view;			/* InvalidOid until its relation exists */
	pid_t		pid;			/* the creator process */
	pid_t		canceled_by;	/* a backend whose DROP canceled it, or 0
								 * (kept by HsDbStateCreationSet) */
	Oid			userid;			/* who creates it */
	TimestampTz started_at;
	TimestampTz phase_at;		/* when it entered its phase */
	int			n_inputs;
	Oid			input[HS_CREATION_MAX_INPUTS];
	int64		rows_read[HS_CREATION_MAX_INPUTS];
	int64		rows_estimate[HS_CREATION_MAX_INPUTS];
} HsCreationStatus;

/*
 * A process reading an upstream view's change log from an epoch it is
 * about to choose (a view over it being created or rebuilt) asks that the
 * upstream keep a log, before the catalog says so (view_source.c).  The
 * requester fills the slot and clears it at its transaction's end, after
 * the commit is visible; the barrier manager, rereading its graphs, reads
 * the requests before the catalog (so one or the other shows every need)
 * and sets seen_epoch: every barrier injected after it carries the flag.
 */
#define HS_MAX_LOG_REQUESTS 64

/*
 * Graphs that a wait() asked to start again soon (failed, waiting out
 * their delay): their id, 0 in a free slot.  A waiter fills a slot, the
 * barrier manager takes and frees them before it retries graphs.
 */
#define HS_MAX_RETRY_REQUESTS 16

typedef struct HsLogRequest
{
	Oid			relid;			/* InvalidOid: unused slot */
	pid_t		pid;			/* the requester */
	HsEpoch		seen_epoch;		/* 0 until the manager took it into account;
								 * then an epoch no barrier injected before
								 * passed */
} HsLogRequest;

typedef struct HsDbState
{
	/* under the registry lock: the slot's database, InvalidOid if free */
	Oid			dboid;

	/*
	 * Whether the slot may be given to another database (registry lock):
	 * the extension was dropped (or a manager found it missing), or the
	 * database was dropped.  CREATE EXTENSION counts itself in
	 * pending_creates from its ProcessUtility hook until its transaction
	 * ends, and bumps claims, so that neither flag is set under it.
	 */
	bool		extension_gone;
	bool		database_dropped;
	int			pending_creates;
	uint64		claims;

	/* written by committers after their transaction commits; only grows */
	pg_atomic_uint64 version_id;

	/*
	 * Broadcast when version_id grows, and when the failure state of a
	 * graph or of the database's processes changes (waiters recheck).
	 */
	ConditionVariable version_cv;

	/*
	 * Set anew (from a server-wide counter, so a value never repeats) when
	 * CREATE or DROP EXTENSION commits in this database or the slot is
	 * taken, so a process knows when to look the extension's OID up again.
	 */
	pg_atomic_uint64 incarnation;

	/*
	 * Barrier manager lifecycle (all under the registry lock).  A backend
	 * sets start_requested after CREATE EXTENSION commits and wakes the
	 * launcher; DROP DATABASE sets stop_requested before it waits for the
	 * manager (which then exits with code 0 and is not restarted).
	 * manager_starting: the launcher registered a manager that has not
	 * attached yet; manager_restart_pending: the manager exited with a
	 * non-zero code, so the postmaster starts it again.
	 */
	bool		start_requested;
	bool		stop_requested;
	bool		manager_starting;
	bool		manager_restart_pending;
	pid_t		manager_pid;	/* 0 if not running */
	Latch	   *manager_latch;	/* set with manager_pid */
	ConditionVariable manager_cv;	/* broadcast when manager_pid changes */

	/*
	 * Written only by the manager (readers take the spinlock): the newest
	 * epoch injected and collected, and a ring of recent barriers.
	 */
	slock_t		barrier_mutex;
	HsEpoch		last_injected;
	/*
	 * Kept by readers (HsDbStateGlobalFloor): the highest global read epoch
	 * computed, and the version it was computed from.
	 */
	HsEpoch		global_floor;
	uint64		global_floor_version;
	uint64		barriers_total;
	/*
	 * The newest aligned epochs (HsDbStateRecordAligned), a ring written
	 * by the manager; aligned_next is where the next one goes.
	 */
	HsEpoch		aligned[HS_ALIGNED_RING];
	int			aligned_next;
	int			ring_next;
	int			n_graphs;
	bool		graphs_published;	/* graphs[] is this manager's */
	int			n_workers;
	bool		reload_requested;	/* the catalog of graphs changed */
	HsBarrierRecord ring[HS_BARRIER_RING];
	HsGraphStatus graphs[HS_MAX_GRAPH_STATUS];
	HsWorkerStatus workers[HS_MAX_WORKER_STATUS];
	HsCreationStatus creations[HS_MAX_CREATIONS];
	HsLogRequest log_requests[HS_MAX_LOG_REQUESTS];
	uint32		retry_requests[HS_MAX_RETRY_REQUESTS];
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

/*
 * The slot of a database; with create, take a free slot if needed (or one
 * that can be given back, see above).  Without create, NULL if none.
 */
extern HsDbState *HsDbStateGet(Oid dboid, bool create);

/* Raise the published version id (never lowers it) and wake waiters. */
extern void HsDbStatePublishVersion(HsDbState *db, uint64 version_id);

/*
 * Wait until the published version id is >= want or timeout_ms passes
 * (-1: forever).  Returns the published id.
 */
extern uint64 HsDbStateWaitVersion(HsDbState *db, uint64 want, long timeout_ms);

/* Wake every process waiting on version_cv (a failure state changed). */
extern void HsDbStateNotify(HsDbState *db);

/* Record that CREATE or DROP EXTENSION committed: a new incarnation. */
extern void HsDbStateNewIncarnation(HsDbState *db);

/*
 * Creations in the background: take a slot for the calling process (-1
 * if all are busy), fill it in, give it back; copy them all; is view
 * being created by a live process (its pid in *pid)?
 */
extern int	HsDbStateCreationBegin(HsDbState *db, Oid userid);
extern void HsDbStateCreationSet(HsDbState *db, int slot, const HsCreationStatus *st);
extern void HsDbStateCreationEnd(HsDbState *db, int slot);
extern bool HsDbStateCreationCancelBy(HsDbState *db, Oid view, pid_t *creator);
extern pid_t HsDbStateCreationCanceledBy(HsDbState *db, int slot);
extern int	HsDbStateCreations(HsDbState *db, HsCreationStatus *out, int max);
extern bool HsDbStateCreating(HsDbState *db, Oid view, pid_t *pid);

/*
 * Change-log requests (see HsLogRequest): take a slot for relid (false if
 * all are busy); the seen epoch of this process's request for relid (0:
 * not seen yet); give back every request of this process; the manager
 * copies the live ones, marking them seen at injected (the newest epoch
 * it injected or that any table committed).
 */
extern bool HsDbStateLogRequestAdd(HsDbState *db, Oid relid);
extern HsEpoch HsDbStateLogRequestSeen(HsDbState *db, Oid relid);
extern void HsDbStateLogRequestsRelease(HsDbState *db);
extern int	HsDbStateLogRequestsTake(HsDbState *db, HsEpoch injected, Oid *relids,
									  int max);

/*
 * Retry requests (see HS_MAX_RETRY_REQUESTS): ask that failed graph
 * graph_id start again soon (false if every slot is busy); the manager
 * takes them all (at most max), freeing their slots.
 */
extern bool HsDbStateRetryRequest(HsDbState *db, uint32 graph_id);
extern int	HsDbStateRetryRequestsTake(HsDbState *db, uint32 *graph_ids, int max);

/*
 * The epoch of the checkpoint barrier whose collection committed graph
 * graph_id's tables at epoch e (the barrier that ended e: its snapshot
 * bounds what they hold at e), or 0 when the ring does not show such a
 * commit (too old, or e was committed by a backfill, not a barrier).
 */
extern HsEpoch HsDbStateCommittedBy(HsDbState *db, uint32 graph_id, HsEpoch e);

/* Copy the published status of graph_id; false if the manager shows none. */
extern bool HsDbStateGraphStatus(HsDbState *db, uint32 graph_id, HsGraphStatus *out);

/*
 * The graphs whose tables do not advance now (at most max): failed since
 * their last commit, running no actor (a view being rebuilt), whose
 * commits a transaction holds back (a DROP of the view not committed yet),
 * or that are not taking every aligned round now (exact_until is set, or
 * exact_since is not yet).
 */
extern int	HsDbStateStalledGraphs(HsDbState *db, uint32 *graph_ids, int max);

/*
 * Every graph the barrier manager runs (at most max), or -1 if what it
 * published does not say: no manager, none published since it started,
 * or more graphs than the status has room for.  A view without a graph
 * does not advance (its job is being rebuilt, or not created yet).
 */
extern int	HsDbStateRunningGraphs(HsDbState *db, uint32 *graph_ids, int max);

/*
 * The highest global read epoch computed so far from a version not newer
 * than version_id (0 if none: one computed from a newer version may name
 * epochs this version does not have yet).
 */
extern HsEpoch HsDbStateGlobalFloor(HsDbState *db, uint64 version_id);

/* Raise it to epoch, computed from version version_id. */
extern void HsDbStateRaiseGlobalFloor(HsDbState *db, uint64 version_id, HsEpoch epoch);

/*
 * Aligned epochs.  A round of barriers is aligned when the manager
 * injects it into every graph that advances (none skips it for its
 * in-flight limit): every such graph then holds at the round's prev epoch
 * exactly what the round's snapshot shows, so they can all be read at
 * that epoch together.  The manager records each aligned round's prev
 * epoch; HsDbStateAlignedAtOrBelow returns the newest recorded one not
 * above e (0 if the ring holds none).
 */
extern void HsDbStateRecordAligned(HsDbState *db, HsEpoch e);
extern HsEpoch HsDbStateAlignedAtOrBelow(HsDbState *db, HsEpoch e);

/*
 * Does graph_id hold exactly the aligned round's snapshot at aligned
 * epoch e (its published exact_since and exact_until)?  True for a graph
 * the status does not show (not a view, or beyond HS_MAX_GRAPH_STATUS).
 */
extern bool HsDbStateGraphExactAt(HsDbState *db, uint32 graph_id, HsEpoch e);

/* ---- slot life cycle ---- */

/*
 * CREATE EXTENSION's ProcessUtility hook takes (or keeps) the database's
 * slot and counts itself in pending_creates; it returns what the slot was
 * before.  HsDbStateCreateEnded undoes the count when the transaction
 * commits (the slot is in use) or aborts (a slot that was given back is
 * again; a slot taken fresh is checked by a barrier manager, which gives
 * it back if it finds no extension).
 */
typedef enum HsCreateClaim
{
	HS_CLAIM_IN_USE = 0,		/* the database used the slot already */
	HS_CLAIM_WAS_GONE = 1,		/* its extension had been dropped */
	HS_CLAIM_FRESH = 2			/* the slot was taken for this CREATE */
} HsCreateClaim;

extern HsCreateClaim HsDbStateCreateBegin(Oid dboid);
extern void HsDbStateCreateEnded(Oid dboid, bool committed, HsCreateClaim claim);

/* DROP EXTENSION committed: the slot may go to another database. */
extern void HsDbStateExtensionDropped(Oid dboid);

/* DROP DATABASE committed: the slot may go to another database. */
extern void HsDbStateDatabaseDropped(Oid dboid);

/* Slots held by databases whose extension is not dropped. */
extern int	HsDbStateDatabasesInUse(void);

/* The databases that hold a slot now (the launcher's sweep), at most max. */
extern int	HsDbStateSlotDatabases(Oid *dboids, int max);

/*
 * The databases gone[] no longer exist: free their slots once no manager
 * of theirs runs or may come, and forget their manager problems.
 */
extern void HsDbStateForgetDatabases(const Oid *gone, int n);

/* ---- barrier manager lifecycle ---- */

/* The launcher records its latch so backends can wake it. */
extern void HsLauncherRegisterSelf(void);
extern void HsLauncherUnregisterSelf(void);
extern void HsLauncherWake(void);

/* Ask the launcher to start the manager of dboid (if it has a slot). */
extern void HsDbStateRequestStart(Oid dboid);

/* Databases whose start was requested (and clear the requests). */
extern int	HsDbStateTakeStartRequests(Oid *dboids, int max);

/*
 * Why a database has no barrier manager although it should (the launcher
 * and the manager record it; hummock_stream.jobs and wait() report it).
 */
typedef enum HsManagerProblem
{
	HS_MANAGER_OK = 0,
	HS_MANAGER_NO_WORKER_SLOT = 1,	/* RegisterDynamicBackgroundWorker failed */
	HS_MANAGER_NO_DB_SLOT = 2	/* all max_databases slots are taken */
} HsManagerProblem;

/*
 * Record (or clear, with HS_MANAGER_OK) why the manager of dboid could not
 * start; the launcher retries the managers recorded here.
 */
extern void HsDbStateSetManagerProblem(Oid dboid, HsManagerProblem problem);
extern HsManagerProblem HsDbStateManagerProblem(Oid dboid);
/* Databases with a recorded problem (to retry), at most max. */
extern int	HsDbStateManagerProblems(Oid *dboids, int max);

/* The launcher is about to register the manager of dboid (or failed to). */
extern void HsDbStateManagerStarting(Oid dboid, bool starting);

typedef enum HsAttachResult
{
	HS_ATTACH_OK = 0,			/* recorded in the database's slot */
	HS_ATTACH_STOP = 1,			/* another manager runs, or a stop was asked */
	HS_ATTACH_NO_SLOT = 2		/* no slot is free */
} HsAttachResult;

/*
 * The manager of dboid records itself in the slot of its database (taking
 * one if needed).  *claims_seen is for HsDbStateManagerNoExtension.
 */
extern HsAttachResult HsDbStateManagerAttach(Oid dboid, uint64 *claims_seen);
/* The manager found no extension: give the slot back (if nobody claims it). */
extern void HsDbStateManagerNoExtension(Oid dboid, uint64 claims_seen);
/* The manager leaves; exit_code is its process exit code. */
extern void HsDbStateManagerDetach(Oid dboid, int exit_code);
/*
 * Ask the manager of dboid to reread its catalog (graphs, and whether the
 * extension is still installed) and wake it.
 */
extern void HsDbStateWakeManager(Oid dboid);
extern bool HsDbStateStopRequested(Oid dboid);

/*
 * Stop the manager of dboid and keep it from being restarted (DROP
 * DATABASE, DROP EXTENSION); waits up to timeout_ms.  If the drop fails,
 * HsDbStateRequestStart starts it again.
 */
extern void HsDbStateStopManager(Oid dboid, long timeout_ms);

/*
 * Cancel the creations running in dboid's creator workers (DROP DATABASE:
 * they are connected to it, and it would wait for them and fail); not
 * waited for.
 */
extern void HsDbStateCancelCreations(Oid dboid);

/*
 * Warn (one WARNING) if this database's barrier manager, or the compute
 * worker that runs view, cannot run for lack of background worker slots,
 * or if max_worker_processes is too small for the databases that use
 * hummock_stream.  create_materialized_view calls it with the new view;
 * CREATE EXTENSION with InvalidOid, which checks max_worker_processes
 * first (no process of the database has tried to start yet).
 */
extern void HsWarnIfNoWorkerSlots(Oid view);

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
