/*-------------------------------------------------------------------------
 *
 * stream_job.h
 *	  A running streaming job: a view's executors, its state tables, and
 *	  its position in the capture log of its source.
 *
 * include/hummock_stream/stream/stream_job.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_STREAM_JOB_H
#define HS_STREAM_STREAM_JOB_H

#include "executor/spi.h"
#include "utils/snapshot.h"

#include "hummock_stream/stream/stream_plan.h"
#include "hummock_stream/stream/view_privileges.h"

/* A leaf of the job's executors and how it reads its table's capture log. */
typedef struct HsStreamJobInput
{
	HsStreamLeaf *leaf;
	TupleDesc	desc;			/* the table's row type */
	TupleTableSlot *slot;
	Oid			log_relid;		/* the table's capture log, once known */
	SPIPlanPtr	log_plan;		/* reads the log between two snapshots
								 * when capture_reader.c cannot */
	bool		is_view;		/* an upstream view: read its change log
								 * between epochs (view_source.h) */
} HsStreamJobInput;

typedef struct HsStreamJob
{
	Oid			job_id;			/* the view's relation OID = its table id */
	MemoryContext cxt;
	HsStreamPlan *plan;
	HsStreamStore store;
	HsStateTable view;
	int			n_states;
	HsStateTable *states;
	int			n_inputs;
	HsStreamJobInput *inputs;	/* in the order they are fed */
	char	   *position;		/* pg_snapshot text: tables consumed up to */
	int			n_view_inputs;
	HsEpoch		views_consumed; /* upstream views consumed up to this epoch */
	int64		rows_in;		/* input rows consumed */
	bool		consolidate_next;	/* consolidate the next epoch's captured
									 * rows (log_consolidation.c): the first
									 * after a load, the replay of a reset */
	struct HsLogConsolidation *consolidation;	/* while it does */
	int64		log_reads_skipped;	/* capture-log reads of unwritten inputs skipped */
	HsViewReads *reads;			/* what the query reads, for privilege
								 * checks at every epoch */
	List	   *settings;		/* 'name=value': in force while it is
								 * evaluated (view_settings.h) */
	struct HsJobStatsCursor *stats; /* what job_stats.c reported so far */
	/* cutting an epoch's writes into sub-epochs (HsStreamJobAllowSplit) */
	HsEpoch		split_next;		/* the next sub-epoch (0: no cutting) */
	size_t		split_bytes;	/* cut when the memtables hold this much */
	int			split_unchecked;	/* rows pushed since the last look */
	bool		split_indexing; /* a cut turned the buffer's index at
								 * spill on (split_index_before: as it was) */
	bool		split_index_before;
	int64		splits;			/* sub-epochs cut so far */
} HsStreamJob;

/*
 * Build a job's executors from its Query (already checked by
 * HsStreamPlanCreate) in a new context under parent; state_tables has as
 * many table ids as the plan needs (n_state_tables), created to hold
 * state_roles (as the catalog recorded them, or as the new job's plan
 * makes them: see HsStreamPlanCreateAs).  change_log: the view's memtables
 * keep old values (HsStreamJobSetChangeLog).  The job is one that
 * backfills (HsBackfillAndCommit); HsStreamJobLoad makes one that goes on
 * from its tables' committed state.
 */
extern HsStreamJob *HsStreamJobCreate(Oid job_id, Query *query,
									  const Oid *state_tables, int n_state_tables,
									  List *state_roles, HsStreamStore *store,
									  bool change_log, MemoryContext parent);

/*
 * Whether the view's memtables keep old values (for its change log) from
 * its next epoch's first write on.
 */
extern void HsStreamJobSetChangeLog(HsStreamJob *job, bool change_log);

/*
 * Who maintains a job: its view's owner.  Whoever drives a job (creates
 * it, pushes rows, consumes, flushes) runs as this role, with
 * HsSwitchToUser (user_context.h): every expression of the view is
 * evaluated with its owner's rights, as REFRESH MATERIALIZED VIEW runs
 * a matview's query.
 */
extern Oid	HsStreamJobOwner(Oid job_id);


/* Load a job from the catalog (compute worker; in a transaction). */
extern HsStreamJob *HsStreamJobLoad(Oid job_id, HsStreamStore *store,
									MemoryContext parent);

/*
 * Let the writes of the job's current epoch (store.epoch) be cut into
 * sub-epochs above floor (every epoch the job's tables sealed or committed
 * is at most floor) whenever its memtables hold bytes: what the executors
 * hold is flushed, the memtables are sealed as the next sub-epoch and the
 * shared buffer may spill, so an epoch of any size needs bounded memory.
 * The epoch's last writes stay at store.epoch, where the tables commit;
 * the sub-epochs are below it and above everything before.  Until the
 * next HsStreamJobFlush.
 */
extern void HsStreamJobAllowSplit(HsStreamJob *job, HsEpoch floor, size_t bytes);

/* The newest epoch the job's tables sealed in its store's buffer (or 0). */
extern HsEpoch HsStreamJobMaxSealed(HsStreamJob *job);

/*
 * Push one row of input i (a row of its table) with sign.  The row's
 * external TOAST pointers are expanded first: state must not point into
 * a table that vacuum may clean.
 */
extern void HsStreamJobPush(HsStreamJob *job, int i, TupleTableSlot *row, int sign);

/*
 * May the job consume its inputs up to epoch in v?  False while an
 * upstream view has not committed epoch yet (*waiting_for, if not NULL,
 * names it): the compute worker offers the barrier again later.
 */
extern bool HsStreamJobReady(HsStreamJob *job, const HsVersion *v, HsEpoch epoch,
							 Oid *waiting_for);

/*
 * Lock the job's source tables for the rest of the transaction, without
 * waiting: BUSY if one is locked against readers (an ALTER TABLE runs:
 * try again later), CHANGED if the columns of one are not those the job
 * was built with (build it again, HsStreamJobRebuild), else UNCHANGED.
 */
typedef enum HsStreamJobSources
{
	HS_SOURCES_UNCHANGED,
	HS_SOURCES_CHANGED,
	HS_SOURCES_BUSY
} HsStreamJobSources;

extern HsStreamJobSources HsStreamJobLockSources(HsStreamJob *job);

/*
 * The job built again from the catalog and its sources' present columns,
 * at the position the old one reached (which is freed).  Between epochs
 * only: the old one's state is sealed.
 */
extern HsStreamJob *HsStreamJobRebuild(HsStreamJob *old, MemoryContext parent);

/*
 * Feed the sources' captured changes of transactions visible in snapshot
 * and not in the job's position, then make snapshot the position; and the
 * changes of upstream views up to the epoch being written
 * (job->store.epoch, in job->store.version).
 */
extern void HsStreamJobConsume(HsStreamJob *job, const char *snapshot);

/* End of the epoch: flush the executors and seal the state tables. */
extern void HsStreamJobFlush(HsStreamJob *job);

/* Table ids of the job (view first, palloc'd); returns how many. */
extern int	HsStreamJobTables(HsStreamJob *job, HsTableId **out);

extern void HsStreamJobFree(HsStreamJob *job);

/*
 * Called by a job's actor at every epoch, before it reads anything, with
 * the job's id and the epoch it is about to write (NULL: none).  For
 * tests: the test module makes a chosen view fail with it.  An error
 * fails the job's graph as any error of the job would.
 */
typedef void (*HsStreamJobEpochHook) (Oid job_id, HsEpoch epoch);
extern HsStreamJobEpochHook hs_stream_job_epoch_hook;

#endif							/* HS_STREAM_STREAM_JOB_H */
