/*-------------------------------------------------------------------------
 *
 * job_stats.h
 *	  Per streaming view, what its maintenance did since the server started
 *	  (job_stats.c): epochs, rows in and out of each executor, time per
 *	  epoch.  Shown by hummock_stream.job_stats.
 *
 * include/hummock_stream/stream/job_stats.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_JOB_STATS_H
#define HS_STREAM_JOB_STATS_H

#include "hummock_stream/stream/stream_job.h"

/* Executors of a view whose rows are counted (later ones are not shown). */
#define HS_JOB_STATS_MAX_EXECUTORS 32
#define HS_JOB_STATS_NAME_LEN 24

typedef struct HsJobStatsExecutor
{
	char		name[HS_JOB_STATS_NAME_LEN];
	uint64		rows_in;
	uint64		rows_out;
} HsJobStatsExecutor;

/* A copy of one view's statistics. */
typedef struct HsJobStatsSnapshot
{
	Oid			job_id;
	uint64		epochs;			/* epochs consumed */
	uint64		last_epoch;
	uint64		rows_in;		/* rows read from the inputs */
	uint64		rows_out;		/* rows written to the view (+ and -) */
	uint64		capture_reads_skipped;	/* reads of unwritten inputs saved */
	double		last_epoch_ms;	/* time to consume and flush an epoch */
	double		total_epoch_ms;
	double		max_epoch_ms;
	TimestampTz last_epoch_at;
	int			n_executors;
	HsJobStatsExecutor executors[HS_JOB_STATS_MAX_EXECUTORS];
} HsJobStatsSnapshot;

/* hummock_stream.log_min_epoch_duration, ms (-1: off) */
extern int	hs_log_min_epoch_duration;

extern Size HsJobStatsShmemSize(void);
extern void HsJobStatsShmemInit(void *ptr, bool found);

/* Add what job did in its epoch (since its last report) to its statistics. */
extern void HsJobStatsReport(HsStreamJob *job, HsEpoch epoch, double elapsed_ms);

/* The statistics of the views of this database (palloc'd); how many. */
extern int	HsJobStatsCollect(HsJobStatsSnapshot **out);

/* Forget a dropped view's statistics. */
extern void HsJobStatsForget(Oid job_id);

#endif							/* HS_STREAM_JOB_STATS_H */
