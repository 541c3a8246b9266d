/*-------------------------------------------------------------------------
 *
 * compactor.h
 *	  The per-database compactor worker.
 *
 * include/hummock_stream/meta/compactor.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_COMPACTOR_H
#define HS_META_COMPACTOR_H

#include "postmaster/bgworker.h"

extern int	hs_compaction_interval_ms;

/* hummock_stream.time_travel_retention (ms): how far back every table stays readable */
extern int	hs_time_travel_retention_ms;

/* Start the compactor of the manager's database (a dynamic worker). */
extern BackgroundWorkerHandle *HsCompactorStart(Oid dboid);

/*
 * One compaction step in the current transaction; true if it did work.
 * One runs at a time in a database (a lock held to the end of the
 * transaction): wait for the one running, or (!wait) do nothing then.
 */
extern bool HsCompactOnce(bool force_l0, bool wait, int *input_level, int *output_level,
						  int *inputs, uint64 *version_id);

/* Drop change-log entries past retention; true if any were dropped. */
extern bool HsTrimChangeLogs(void);

extern PGDLLEXPORT void HsCompactorMain(Datum main_arg);

#endif							/* HS_META_COMPACTOR_H */
