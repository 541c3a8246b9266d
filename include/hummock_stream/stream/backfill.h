/*-------------------------------------------------------------------------
 *
 * backfill.h
 *	  A streaming view's first state (backfill.c): at creation, and when
 *	  it is rebuilt.
 *
 * include/hummock_stream/stream/backfill.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_BACKFILL_H
#define HS_STREAM_BACKFILL_H

#include "utils/snapshot.h"

#include "hummock_stream/stream/stream_job.h"

/* hummock_stream.backfill_rate_limit: source rows per second (0: none). */
extern int	hs_backfill_rate_limit;

/*
 * The planner's estimate of relid's rows (reltuples scaled to its current
 * size, or a guess from its pages if never analyzed; as for a scan of it);
 * -1 if it is not a table or materialized view.
 */
extern int64 HsRelationRowEstimate(Oid relid);

/*
 * The pg_snapshot text of snapshot, with the current transaction (if it
 * has an xid) counted as running: the backfill sees its earlier writes,
 * and its later ones reach the capture log under its xid.
 */
extern char *HsBackfillSnapshotText(Snapshot snap);

/*
 * The epoch a view reads its upstream views among sources at (0 if it
 * reads none): the newest of their committed epochs, once every one of
 * them committed it (waited for up to hummock_stream.wait_timeout; 55000
 * after it).  *v (pinned) is replaced by the newest version; the epoch is
 * pinned for the transaction.
 */
extern HsEpoch HsBackfillUpstreamEpoch(List *sources, HsVersion **v);

/*
 * Backfill job (its tables at snapshot, its upstream views at view_epoch)
 * from epoch job->store.epoch on and commit its tables at the last epoch
 * used, in this transaction; returns that epoch.  replace: first delete
 * every row the job's tables have in job->store.version (a rebuild).
 */
extern HsEpoch HsBackfillAndCommit(HsStreamJob *job, Snapshot snapshot,
								   HsEpoch view_epoch, bool replace);

/*
 * Report the backfill's rows read per input into slot of db's creations
 * (status is the caller's copy, updated in place), every few thousand
 * rows; db NULL: stop reporting.
 */
struct HsDbState;
struct HsCreationStatus;
extern void HsBackfillSetProgress(struct HsDbState *db, int slot,
								  struct HsCreationStatus *status);

#endif							/* HS_STREAM_BACKFILL_H */
