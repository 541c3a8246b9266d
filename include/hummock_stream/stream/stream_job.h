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

typedef struct HsStreamJob
{
	Oid			job_id;			/* the view's relation OID = its table id */
	MemoryContext cxt;
	HsStreamPlan *plan;
	HsStreamStore store;
	HsStateTable view;
	HsStateTable states[HS_N_STATE_TABLES];
	HsExec	   *head;
	TupleDesc	source_desc;
	TupleTableSlot *source_slot;
	Oid			log_relid;		/* the source's capture log */
	SPIPlanPtr	log_plan;		/* reads the log between two snapshots */
	char	   *position;		/* pg_snapshot text: input consumed up to */
	int64		rows_in;		/* input rows consumed */
} HsStreamJob;

/*
 * Build a job's executors from its Query (already checked by
 * HsStreamPlanCreate) in a new context under parent.
 */
extern HsStreamJob *HsStreamJobCreate(Oid job_id, Query *query,
									  const Oid *state_tables,
									  HsStreamStore *store,
									  MemoryContext parent);

/* Load a job from the catalog (compute worker; in a transaction). */
extern HsStreamJob *HsStreamJobLoad(Oid job_id, HsStreamStore *store,
									MemoryContext parent);

/*
 * Feed the source's captured changes of transactions visible in snapshot
 * and not in the job's position, then make snapshot the position.
 */
extern void HsStreamJobConsume(HsStreamJob *job, const char *snapshot);

/* End of the epoch: flush the executors and seal the state tables. */
extern void HsStreamJobFlush(HsStreamJob *job);

/* Table ids of the job (view first); returns how many. */
extern int	HsStreamJobTables(HsStreamJob *job, HsTableId *out);

extern void HsStreamJobFree(HsStreamJob *job);

#endif							/* HS_STREAM_STREAM_JOB_H */
