/*-------------------------------------------------------------------------
 *
 * parallel_scan.h
 *	  Parallel sequential scans of relations USING hummock.
 *
 * A parallel scan splits the relation's key space into chunks at keys
 * taken from its SSTs' block index, and the leader and every worker claim
 * chunks from a shared counter until none is left; each chunk is read with
 * the same iterator stack as a serial scan, bounded to the chunk's keys.
 * Everyone reads the same version at the same epoch: the leader decides
 * both before the query enters parallel mode (HsParallelPrepare, from the
 * ExecutorStart hook), and the shared scan state carries the epoch, the
 * chunk bounds and the version itself (encoded), which workers decode
 * instead of reading the catalog.  The leader pinned that epoch, so
 * compaction keeps what it reads until its transaction ends.
 *
 * include/hummock_stream/batch/parallel_scan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_BATCH_PARALLEL_SCAN_H
#define HS_BATCH_PARALLEL_SCAN_H

#include "access/relscan.h"
#include "nodes/plannodes.h"
#include "utils/rel.h"

#include "hummock_stream/storage/version.h"

/*
 * Before a parallel plan runs: decide (and pin) the version and epoch of
 * every hummock relation the statement reads, for its scans in parallel
 * mode (the leader's, whether parallel-aware or not).
 */
extern void HsParallelPrepare(PlannedStmt *stmt);

/*
 * The version (a new reference) and epoch prepared for rel in this
 * statement; false if none was (the caller is not in a prepared parallel
 * statement).
 */
extern bool HsParallelPrepared(Relation rel, HsVersion **version,
							   HsEpoch *epoch);

/* Table AM callbacks. */
extern Size HsParallelScanEstimate(Relation rel);
extern Size HsParallelScanInitialize(Relation rel, ParallelTableScanDesc pscan);
extern void HsParallelScanReinitialize(Relation rel, ParallelTableScanDesc pscan);

/* The epoch and (a new reference to) the version of a shared scan. */
extern HsEpoch HsParallelScanEpoch(ParallelTableScanDesc pscan);
extern HsVersion *HsParallelScanVersion(ParallelTableScanDesc pscan);

/*
 * Claim the next chunk: its user-key bounds [*lower, *upper) (NULL
 * pointers for unbounded sides; the bytes live in the shared state).
 * False when every chunk is taken.
 */
extern bool HsParallelScanNextChunk(ParallelTableScanDesc pscan,
									const char **lower, int *lower_len,
									const char **upper, int *upper_len);

#endif							/* HS_BATCH_PARALLEL_SCAN_H */
