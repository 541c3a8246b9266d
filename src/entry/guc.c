/*-------------------------------------------------------------------------
 *
 * guc.c
 *	  Definition of the hummock_stream.* configuration parameters.
 *
 * Every parameter lives under the reserved prefix "hummock_stream", so a
 * misspelt hummock_stream.* setting is reported instead of silently
 * accepted.  Sizes of shared structures and worker counts are
 * PGC_POSTMASTER; intervals are PGC_SIGHUP; what a session may choose for
 * itself (consistency, query epoch) is PGC_USERSET.
 *
 * src/entry/guc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "hummock_stream/batch/read_epoch.h"
#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/entry/guc.h"
#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/compactor.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/stream/backfill.h"
#include "hummock_stream/stream/actor.h"
#include "hummock_stream/stream/job_stats.h"
#include "hummock_stream/meta/launcher.h"
#include "hummock_stream/pg/shared_block_cache.h"
#include "hummock_stream/stream/compute_worker.h"
#include "hummock_stream/stream/executor.h"


static const struct config_enum_entry consistency_options[] = {
	{"global", HS_CONSISTENCY_GLOBAL, false},
	{"per_table", HS_CONSISTENCY_PER_TABLE, false},
	{NULL, 0, false}
};

/* Values are the persisted compression kinds of the SST format. */
static const struct config_enum_entry compression_options[] = {
	{"none", 0, false},
	{"lz4", 1, false},
	{"zstd", 2, false},
	{NULL, 0, false}
};

/*
 * Define every hummock_stream.* parameter.
 */
void
HsGucDefine(void)
{
	DefineCustomIntVariable("hummock_stream.sst_block_size",
							"Target size of an SST data block before compression.",
							NULL,
							&hs_sst_block_size_kb,
							16, 1, 1024,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("hummock_stream.sst_compression",
							 "Compression of SST data blocks.",
							 "One of none, lz4 or zstd; applies to SSTs built from now on.",
							 &hs_sst_compression,
							 1,
							 compression_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.sst_zstd_level",
							"Compression level used when hummock_stream.sst_compression is zstd.",
							NULL,
							&hs_sst_zstd_level,
							3, 1, 19,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.sst_bloom_bits_per_key",
							"Bits per key of the bloom filter of each SST (0 disables the filter).",
							NULL,
							&hs_sst_bloom_bits_per_key,
							10, 0, 64,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.max_databases",
							"Number of databases that can use hummock_stream between server restarts.",
							"Each gets a slot of shared state (published version, waiters).",
							&hs_max_databases,
							16, 1, 1024,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.barrier_interval_ms",
							"Time between two barriers (epochs) of a database.",
							NULL,
							&hs_barrier_interval_ms,
							1000, 10, 3600 * 1000,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.checkpoint_frequency",
							"Every how many barriers one is a checkpoint.",
							"A checkpoint barrier makes the state of its epoch durable and readable.",
							&hs_checkpoint_frequency,
							1, 1, 10000,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.max_inflight_barriers",
							"Barriers a partial graph may have in flight before it skips epochs.",
							"A slow graph stops receiving barriers at this limit, but for the rounds every graph takes (one past the limit); other graphs go on.",
							&hs_max_inflight_barriers,
							16, 1, 10000,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.compute_workers",
							"Compute worker processes per database that hosts streaming actors.",
							"Each database with the extension starts this many, plus its barrier manager.",
							&hs_compute_workers,
							2, 1, 64,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.time_travel_retention",
							"How far back in time every table stays readable (time travel).",
							"Compaction keeps every version of a key newer than this, and the newest one older.",
							&hs_time_travel_retention_ms,
							600000, 0, INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.compaction_interval",
							"Time between two rounds of the compactor of a database.",
							NULL,
							&hs_compaction_interval_ms,
							1000, 10, 3600 * 1000,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.shared_buffer_size",
							"Memory of each compute worker for state not yet synced to SSTs.",
							"Above it, sealed data is spilled to SSTs before its checkpoint; a view whose epoch writes more than half of it seals the epoch in parts.",
							&hs_shared_buffer_size_kb,
							64 * 1024, 1024, INT_MAX / 1024,
							PGC_POSTMASTER,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.block_cache_size",
							"Memory for decompressed SST blocks, per process.",
							"Compute workers and sessions keep recently read blocks of SSTs; 0 turns the cache off.",
							&hs_block_cache_size_kb,
							64 * 1024, 0, INT_MAX / 1024,
							PGC_POSTMASTER,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.sst_reader_cache_size",
							"Memory for the index and filter blocks of open SSTs, per process.",
							"Compute workers and sessions keep the SSTs they read open; the least recently used unused ones are closed beyond this.",
							&hs_sst_reader_cache_size_kb,
							256 * 1024, 1024, INT_MAX / 1024,
							PGC_POSTMASTER,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.shared_block_cache_size",
							"Shared memory for decompressed SST blocks, for all processes.",
							"Blocks one process read are copied from here by the next; 0 turns the cache off.",
							&hs_shared_block_cache_size_kb,
							128 * 1024, 0, INT_MAX / 1024,
							PGC_POSTMASTER,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.agg_cache_groups",
							"Groups each streaming aggregation keeps in memory.",
							"Above it, the cache is emptied after an epoch; groups are read back from their state table when they change again.",
							&hs_agg_cache_groups,
							100000, 16, INT_MAX,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.join_cache_size",
							"Memory each side of a streaming join may use to cache its rows by join key.",
							"Above it, keys the cache lacks are read for one chunk of rows only, and the cache is emptied after the epoch; keys are read back from the side's state table when they are probed again.",
							&hs_join_cache_kb,
							16384, 64, INT_MAX / 1024,
							PGC_SIGHUP,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.view_memory_limit",
							"Memory a process may hold while it maintains or creates streaming views.",
							"An epoch (or a backfill) that needs more fails with an error and its view is retried later, instead of the server running out of memory. -1: a quarter of the machine's memory; 0: no limit.",
							&hs_view_memory_limit_mb,
							-1, -1, INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("hummock_stream.query_consistency",
							 "Which epoch reads of hummock relations see.",
							 "global: every relation of a statement at one epoch, the oldest committed one (mutually consistent); per_table: each relation at its own committed epoch (freshest).",
							 &hs_query_consistency,
							 HS_CONSISTENCY_GLOBAL,
							 consistency_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("hummock_stream.query_epoch",
							   "Epoch at which to read hummock relations (time travel); 0 reads each at its committed epoch.",
							   "A relation that cannot serve the epoch (not committed yet, or older than its retention) is an error naming it.",
							   &hs_query_epoch_string,
							   "0",
							   PGC_USERSET,
							   0,
							   HsQueryEpochCheck, HsQueryEpochAssign, NULL);

	DefineCustomIntVariable("hummock_stream.wait_timeout",
							"How long a read at hummock_stream.query_epoch waits for a relation to commit that epoch.",
							"After it, a relation still behind the epoch is an error naming it; 0 does not wait.",
							&hs_wait_timeout_ms,
							10000, 0, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.backfill_rate_limit",
							"Source rows per second a view's backfill reads at most (0: no limit).",
							"Taken from the session that creates or rebuilds the view; the backfill sleeps when it is ahead, so a large creation leaves the machine to the running workload.",
							&hs_backfill_rate_limit,
							0, 0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.log_min_epoch_duration",
							"Logs a view's epoch that takes at least this long to maintain (-1: none).",
							"The line names the view, the epoch, the time and the rows read and written; hummock_stream.job_stats has the totals.",
							&hs_log_min_epoch_duration,
							10000, -1, INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.epoch_timeout",
							"The longest the work of one epoch of one view may take (0: no limit).",
							"Past it the epoch is canceled and the view fails, and retries with a growing delay; the other views of its compute worker go on meanwhile.",
							&hs_epoch_timeout_ms,
							0, 0, INT_MAX,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.recompute_max_rows",
							"Rows a view's recursive query may return at most each time it is computed.",
							"Past it the computation fails and so does the view: a recursive UNION ALL over data with a cycle would otherwise never end.",
							&hs_recompute_max_rows,
							10000000, 1, INT_MAX,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved(HS_EXTENSION_NAME);
}
