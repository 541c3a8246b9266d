/*-------------------------------------------------------------------------
 *
 * view_source.h
 *	  An upstream streaming view as an input of another view: its rows at
 *	  an epoch (the snapshot backfill) and its change log between two
 *	  epochs (every epoch after).
 *
 * A downstream D over an upstream view U reads U the way RisingWave's
 * snapshot backfill does: at creation every row of U at U's committed
 * epoch E0 (pinned, so compaction keeps it), then at every barrier that
 * ends D's epoch E the net changes of U over (the epoch D consumed up to,
 * E] from U's change log (iter_log: Insert, Delete, UpdateDelete then
 * UpdateInsert), pushed as -1 of each old row and +1 of each new one.
 * D's epoch E reflects U at E, so a view at epoch E equals its query over
 * its inputs at E along every chain; D can consume epoch E only once U
 * has committed it (HsViewSourceReady), which is what it waits for.
 *
 * The epoch D consumed U up to needs no catalog of its own: it is D's
 * committed epoch (D's state at E was built from U up to E), so after a
 * crash or a reset D reads U's log from its committed epoch on.
 *
 * U keeps a change log (writes old values) only while it is needed: while
 * a view reads it or its owner asked for one (stream_jobs.change_log), and
 * while a process that is creating or rebuilding a view over it asks for
 * one (HsViewSourcesRequestLogs): that process then reads U at an epoch
 * from which U's log is sure to go on (HsViewSourceLogReady).
 *
 * include/hummock_stream/stream/view_source.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_VIEW_SOURCE_H
#define HS_STREAM_VIEW_SOURCE_H

#include "executor/tuptable.h"

#include "hummock_stream/storage/version.h"

struct HsStreamJob;

/*
 * May a job consume upstream's changes up to epoch?  True once upstream
 * has committed epoch or a later one in v; *committed gets its committed
 * epoch (0 if it has none).
 */
extern bool HsViewSourceReady(Oid upstream, const HsVersion *v, HsEpoch epoch,
							  HsEpoch *committed);

/*
 * Ask that every streaming view among sources (relation OIDs) keep its
 * change log until the current transaction ends, when the catalog takes
 * over (a view that reads it) or nobody needs it any more; wakes the
 * barrier manager.  Error 53400 if too many processes ask at once.
 */
extern void HsViewSourcesRequestLogs(List *sources);

/*
 * Will upstream's change log in v go on, without a gap, for as long as
 * this transaction's request (or the catalog) needs it?  True once the
 * barrier manager took the request into account, upstream committed an
 * epoch after that, and v holds its log; or if upstream was created in
 * this transaction (its actor starts after the commit, with its log).
 * *why gets a short reason when false.
 */
extern bool HsViewSourceLogReady(Oid upstream, const HsVersion *v, const char **why);

/*
 * The rows of input i's upstream view at epoch (in v), one at a time
 * (the backfill): HsViewScanNext returns the input's slot holding the next
 * row, or NULL at the end.  Caller pins v (and epoch) while it runs.
 */
typedef struct HsViewScan HsViewScan;
extern HsViewScan *HsViewScanBegin(struct HsStreamJob *job, int i, const HsVersion *v,
								   HsEpoch epoch);
extern TupleTableSlot *HsViewScanNext(HsViewScan *scan);
extern void HsViewScanEnd(HsViewScan *scan);

/*
 * Push the net changes of input i's upstream view over epochs (from, to]
 * into the job.  The upstream must have committed to (HsViewSourceReady)
 * and its change log must reach back to from, else an error (22023 if it
 * has not committed to yet, 72000 if its log no longer reaches from).
 */
extern void HsViewSourceConsume(struct HsStreamJob *job, int i, const HsVersion *v,
								HsEpoch from, HsEpoch to);

#endif							/* HS_STREAM_VIEW_SOURCE_H */
