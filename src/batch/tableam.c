/*-------------------------------------------------------------------------
 *
 * tableam.c
 *	  The "hummock" table access method: relations whose rows live in the
 *	  hummock store, keyed by the relation's OID as table id.
 *
 * NOTES
 *	  A relation USING hummock holds no tuples in its own files (it gets an
 *	  empty main fork so that the rest of PostgreSQL finds what it expects).
 *	  Its rows are the hummock table whose id is the relation's OID: each
 *	  value is a PostgreSQL MinimalTuple, so a scan copies the bytes into an
 *	  aligned buffer and stores them in a minimal-tuple slot, and the
 *	  executor deforms them as it would any tuple.
 *
 *	  A scan reads the table at one epoch, decided when the scan starts:
 *	  hummock_stream.query_epoch if set (time travel: an error names the
 *	  relation if it cannot serve that epoch), else the table's committed
 *	  epoch.  The version is pinned for the transaction.
 *
 *	  Only the streaming engine writes: INSERT, UPDATE, DELETE, MERGE, COPY
 *	  FROM and TRUNCATE are rejected with SQLSTATE 0A000 before they run
 *	  (ExecutorStart and ProcessUtility hooks), and every write callback of
 *	  the AM raises the same error should it be reached another way.  Index
 *	  builds, CLUSTER, VACUUM FULL and UNLOGGED relations are rejected too.
 *	  Every slot of TableAmRoutine is filled (the Debian server has no
 *	  assertions: a NULL slot would be a crash, not an error).
 *
 *	  Dropping a hummock relation removes its table from the version in the
 *	  same transaction; its objects are then garbage for GC.
 *
 * src/batch/tableam.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/tsmapi.h"

#include "access/heapam.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "catalog/storage.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "optimizer/plancat.h"
#include "pgstat.h"
#include "parser/parsetree.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/smgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "hummock_stream/batch/parallel_scan.h"
#include "hummock_stream/batch/read_epoch.h"
#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/compactor.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/user_iter.h"
#include "hummock_stream/storage/version_read.h"


/*
 * Sequential scans run in page mode, as heap scans do: one call to the
 * user iterator collects the visible rows of a block (up to this many),
 * and getnextslot hands them out one by one without calling into storage.
 */
#define HS_SCAN_PAGE_ROWS	256

/*
 * Rows have no tids.  A scan numbers its rows and gives row n the tid
 * (n >> SCAN_TID_ROWS_BITS, (n & mask) + 1): stable within the scan, and
 * cheaper to compute than heap's MaxHeapTuplesPerPage rows per block.
 */
#define SCAN_TID_ROWS_BITS	8

typedef struct HsScanDescData
{
	TableScanDescData base;		/* must be first */
	HsVersion  *version;
	HsIterator *it;
	bool		started;
	HsEpoch		epoch;
	MemoryContext cxt;
	MinimalTuple buf;			/* aligned copy of the current row */
	Size		buflen;
	uint64		ordinal;		/* synthetic tid of the current row */
	/* page mode: the visible rows of the current block (HsUserIterFill) */
	HsSlice		rows[HS_SCAN_PAGE_ROWS];
	int			nrows;
	int			next_row;		/* rows[next_row] is returned next */
	/*
	 * ANALYZE and TABLESAMPLE: rows are sampled in pseudo-blocks of
	 * SAMPLE_BLOCK_ROWS (hummock_scan_analyze_next_block)
	 */
	uint64		block_end;		/* ordinal after the current pseudo-block */
	BlockNumber sample_block;	/* TABLESAMPLE: the current pseudo-block */
	bool		sample_started; /* ... and whether there is one */
	/* key range [lower, upper) of user keys (HsScanSetKeyRange); NULL: none */
	HsSlice    *lower;
	HsSlice    *upper;
	HsSlice		lower_buf;
	HsSlice		upper_buf;
} HsScanDescData;

#define SAMPLE_BLOCK_ROWS 100

typedef HsScanDescData *HsScanDesc;

static uint64 hummock_relation_size(Relation rel, ForkNumber forkNumber);

PG_FUNCTION_INFO_V1(hummock_tableam_handler);

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------
 */

void
HsRejectWrite(Relation rel, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot %s relation \"%s\"", what, RelationGetRelationName(rel)),
			 errdetail("Relations USING hummock are written only by the streaming engine."),
			 errhint("Write to the tables the view is defined on; the view follows.")));
}

static void
reject(Relation rel, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s is not supported for relation \"%s\"", what,
					RelationGetRelationName(rel)),
			 errdetail("\"%s\" uses the hummock table access method.",
					   RelationGetRelationName(rel))));
}

/* ------------------------------------------------------------------------
 * Slot related callbacks
 * ------------------------------------------------------------------------
 */

static const TupleTableSlotOps *
hummock_slot_callbacks(Relation relation)
{
	return &TTSOpsMinimalTuple;
}

/* ------------------------------------------------------------------------
 * Sequential scans
 * ------------------------------------------------------------------------
 */

static TableScanDesc
hummock_scan_begin(Relation rel, Snapshot snapshot, int nkeys,
				   struct ScanKeyData *key, ParallelTableScanDesc pscan,
				   uint32 flags)
{
	HsScanDesc	scan = palloc0(sizeof(HsScanDescData));
	HsEpoch		e;

	scan->base.rs_rd = rel;
	scan->base.rs_snapshot = snapshot;
	scan->base.rs_nkeys = nkeys;
	scan->base.rs_key = key;
	scan->base.rs_flags = flags;
	scan->base.rs_parallel = pscan;
	scan->cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock scan",
									  ALLOCSET_DEFAULT_SIZES);

	/*
	 * In parallel mode nobody may read the catalog with a new snapshot:
	 * the leader uses what it prepared before (parallel_scan.c), workers
	 * what the leader shared.
	 */
	if (pscan && IsParallelWorker())
	{
		scan->version = HsParallelScanVersion(pscan);
		scan->epoch = HsParallelScanEpoch(pscan);
	}
	else if (IsInParallelMode())
	{
		if (!HsParallelPrepared(rel, &scan->version, &scan->epoch))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot scan relation \"%s\" in this parallel operation",
							RelationGetRelationName(rel)),
					 errhint("Set max_parallel_workers_per_gather to 0 for this query.")));
		if (pscan)
			scan->epoch = HsParallelScanEpoch(pscan);
	}
	else
	{
		HsScanResolve(rel, &scan->version, &e);
		scan->epoch = e;
	}
	return (TableScanDesc) scan;
}

static void
close_iterator(HsScanDesc scan)
{
	if (scan->it)
		HsIterDestroy(scan->it);
	scan->it = NULL;
	scan->started = false;
	scan->ordinal = 0;
	scan->nrows = scan->next_row = 0;
	scan->sample_started = false;
}

static void
hummock_scan_end(TableScanDesc sscan)
{
	HsScanDesc	scan = (HsScanDesc) sscan;

	close_iterator(scan);
	if (scan->version)
		HsVersionUnref(scan->version);
	/* a parallel scan's restored snapshot was registered for the scan */
	if (scan->base.rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(scan->base.rs_snapshot);
	MemoryContextDelete(scan->cxt);
	pfree(scan);
}

static void
hummock_scan_rescan(TableScanDesc sscan, struct ScanKeyData *key,
					bool set_params, bool allow_strat, bool allow_sync,
					bool allow_pagemode)
{
	close_iterator((HsScanDesc) sscan);
}

void
HsScanSetKeyRange(TableScanDesc sscan, const char *lower, int lower_len,
				  const char *upper, int upper_len)
{
	HsScanDesc	scan = (HsScanDesc) sscan;
	MemoryContext old = MemoryContextSwitchTo(scan->cxt);

	Assert(!scan->started);
	scan->lower = scan->upper = NULL;
	if (lower)
	{
		char	   *b = palloc(lower_len + 1);

		memcpy(b, lower, lower_len);
		scan->lower_buf = HsSliceMake(b, lower_len);
		scan->lower = &scan->lower_buf;
	}
	if (upper)
	{
		char	   *b = palloc(upper_len + 1);

		memcpy(b, upper, upper_len);
		scan->upper_buf = HsSliceMake(b, upper_len);
		scan->upper = &scan->upper_buf;
	}
	MemoryContextSwitchTo(old);
}

/* Open the scan's iterator over user keys [lower, upper) at its first row. */
static void
scan_open(HsScanDesc scan, const HsSlice *lower, const HsSlice *upper)
{
	MemoryContext old = MemoryContextSwitchTo(scan->cxt);
	HsStatus	st;

	HS_CHECK(HsVersionTableIterator(scan->version, HsHummockSstCache(),
									(HsTableId) RelationGetRelid(scan->base.rs_rd),
									scan->epoch, lower, upper, NULL,
									&scan->it, &st),
			 &st);
	HsIterSeekToFirst(scan->it);
	MemoryContextSwitchTo(old);
}

/*
 * Move the scan to its next row; false at the end.  A parallel scan reads
 * one chunk of keys after the other, as long as chunks are left.
 */
static pg_noinline bool
scan_advance(HsScanDesc scan)
{
	HsStatus	st;

	if (scan->epoch == 0)
		return false;
	if (scan->started && scan->it != NULL)
		HsIterNext(scan->it);
	else if (!scan->started && scan->base.rs_parallel == NULL)
		scan_open(scan, scan->lower, scan->upper);
	scan->started = true;

	for (;;)
	{
		const char *lo,
				   *hi;
		int			lo_len,
					hi_len;
		HsSlice		lower,
					upper;

		if (scan->it != NULL)
		{
			if (HsIterValid(scan->it))
			{
				scan->ordinal++;
				return true;
			}
			if (!HsIterStatus(scan->it, &st))
				HsStatusReport(ERROR, &st);
		}
		if (scan->base.rs_parallel == NULL ||
			!HsParallelScanNextChunk(scan->base.rs_parallel, &lo, &lo_len,
									 &hi, &hi_len))
			return false;
		if (scan->it)
			HsIterDestroy(scan->it);
		scan->it = NULL;
		lower = HsSliceMake(lo, lo_len);
		upper = HsSliceMake(hi, hi_len);
		scan_open(scan, lo ? &lower : NULL, hi ? &upper : NULL);
	}
}

/* Move the scan on to row number ordinal (if behind it); false at the end. */
static bool
scan_skip_to(HsScanDesc scan, uint64 ordinal)
{
	while (scan->ordinal < ordinal)
		if (!scan_advance(scan))
			return false;
	return true;
}

/*
 * Give the row numbered ordinal its synthetic tid, stable within the scan,
 * and the relation's oid.
 */
static inline void
scan_set_tid(HsScanDesc scan, TupleTableSlot *slot, uint64 ordinal)
{
	ItemPointerSet(&slot->tts_tid, (BlockNumber) (ordinal >> SCAN_TID_ROWS_BITS),
				   (OffsetNumber) ((ordinal & ((1 << SCAN_TID_ROWS_BITS) - 1)) + 1));
	slot->tts_tableOid = RelationGetRelid(scan->base.rs_rd);
}

/* A stored row too short to be a MinimalTuple. */
static pg_noinline void
row_too_short(HsScanDesc scan, size_t len)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("row of relation \"%s\" is too short (%zu bytes)",
					RelationGetRelationName(scan->base.rs_rd), len)));
}

/*
 * Store a row (a value: the kind byte and the row's MinimalTuple bytes)
 * in slot.  SST builders align the payload (block_builder.h), so the row
 * is normally handed over in place: the slot does not own it, and it
 * lives until the iterator moves, which only happens in a later call on
 * this scan (the executor never reads a scan slot after asking for the
 * next row).  A row that is not aligned (in a block read without
 * decompression or copy, say) is copied.
 */
static void
scan_store_row(HsScanDesc scan, TupleTableSlot *slot, HsSlice row)
{
	MinimalTuple tup = (MinimalTuple) (row.data + 1);
	uint32		len = (uint32) (row.len - 1);

	if (row.len < 1 + MINIMAL_TUPLE_DATA_OFFSET)
		row_too_short(scan, row.len);
	if ((uintptr_t) tup % MAXIMUM_ALIGNOF != 0 || tup->t_len != len)
	{
		if (scan->buflen < len)
		{
			scan->buflen = Max(len, 256);
			scan->buf = MemoryContextAlloc(scan->cxt, scan->buflen);
		}
		memcpy(scan->buf, tup, len);
		tup = scan->buf;
		tup->t_len = len;
	}
	ExecStoreMinimalTuple(tup, slot, false);
	scan_set_tid(scan, slot, scan->ordinal);
}

/* Store the scan's current row in slot. */
static void
scan_store(HsScanDesc scan, TupleTableSlot *slot)
{
	scan_store_row(scan, slot, HsIterValue(scan->it));
}

/*
 * getnextslot for everything but the common case: the first row of a
 * page, the end of the scan, a row to copy, a slot that owns its tuple.
 */
static pg_noinline bool
scan_getnextslot_slow(HsScanDesc scan, ScanDirection direction,
					  TupleTableSlot *slot)
{
	/*
	 * Cursors declared SCROLL read a Material node above the scan
	 * (backward_scan.c).  A cursor declared without SCROLL or NO SCROLL is
	 * let scroll by Postgres when its plan says it can, which a Seq Scan
	 * always does: its backward fetches end here.
	 */
	if (direction != ForwardScanDirection)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot scan relation \"%s\" backward",
						RelationGetRelationName(scan->base.rs_rd)),
				 errdetail("Scans of relations USING hummock read forward only."),
				 errhint("Declare the cursor with SCROLL to fetch backward.")));
	if (scan->next_row < scan->nrows)
	{
		scan->ordinal++;
		scan_store_row(scan, slot, scan->rows[scan->next_row++]);
		return true;
	}
	/* the page is used up: move past its last row and fill the next */
	if (!scan_advance(scan))
	{
		scan->nrows = scan->next_row = 0;
		ExecClearTuple(slot);
		return false;
	}
	scan->nrows = HsUserIterFill(scan->it, scan->rows, HS_SCAN_PAGE_ROWS);
	scan->next_row = 1;
	scan_store_row(scan, slot, scan->rows[0]);
	return true;
}

/*
 * The common case is the next row of the page, aligned, stored in a slot
 * that does not own its tuple.  The slot is ours (hummock_slot_callbacks):
 * a minimal-tuple slot, and storing a borrowed tuple in it takes the field
 * writes that tts_minimal_store_tuple makes after tts_minimal_clear (PG15
 * executor/execTuples.c).  Made here, they keep the per-row path free of
 * calls, so it needs no stack frame.  Everything else goes through
 * ExecStoreMinimalTuple (scan_getnextslot_slow), which frees or rejects
 * as it should.
 */
static bool
hummock_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
						 TupleTableSlot *slot)
{
	HsScanDesc	scan = (HsScanDesc) sscan;

	if (likely(scan->next_row < scan->nrows &&
			   direction == ForwardScanDirection))
	{
		HsSlice		row = scan->rows[scan->next_row];
		MinimalTuple tup = (MinimalTuple) (row.data + 1);
		uint32		len = (uint32) (row.len - 1);

		if (likely(row.len >= 1 + MINIMAL_TUPLE_DATA_OFFSET &&
				   (uintptr_t) tup % MAXIMUM_ALIGNOF == 0 &&
				   tup->t_len == len &&
				   slot->tts_ops == &TTSOpsMinimalTuple &&
				   !TTS_SHOULDFREE(slot)))
		{
			MinimalTupleTableSlot *mslot = (MinimalTupleTableSlot *) slot;

			scan->next_row++;
			mslot->tuple = &mslot->minhdr;
			mslot->mintuple = tup;
			mslot->minhdr.t_len = len + MINIMAL_TUPLE_OFFSET;
			mslot->minhdr.t_data = (HeapTupleHeader) ((char *) tup - MINIMAL_TUPLE_OFFSET);
			mslot->off = 0;
			slot->tts_nvalid = 0;
			slot->tts_flags &= ~TTS_FLAG_EMPTY;
			scan_set_tid(scan, slot, ++scan->ordinal);
			return true;
		}
	}
	return scan_getnextslot_slow(scan, direction, slot);
}

static void
hummock_scan_set_tidrange(TableScanDesc scan, ItemPointer mintid, ItemPointer maxtid)
{
	reject(scan->rs_rd, "a scan by tid range");
}

static bool
hummock_scan_getnextslot_tidrange(TableScanDesc scan, ScanDirection direction,
								  TupleTableSlot *slot)
{
	reject(scan->rs_rd, "a scan by tid range");
	return false;
}

/* ------------------------------------------------------------------------
 * Index scans: hummock relations have no indexes
 * ------------------------------------------------------------------------
 */

static struct IndexFetchTableData *
hummock_index_fetch_begin(Relation rel)
{
	reject(rel, "an index scan");
	return NULL;
}

static void
hummock_index_fetch_reset(struct IndexFetchTableData *data)
{
}

static void
hummock_index_fetch_end(struct IndexFetchTableData *data)
{
}

static bool
hummock_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid,
						  Snapshot snapshot, TupleTableSlot *slot,
						  bool *call_again, bool *all_dead)
{
	reject(scan->rel, "an index scan");
	return false;
}

/* ------------------------------------------------------------------------
 * Non-modifying operations on individual tuples
 * ------------------------------------------------------------------------
 */

static bool
hummock_tuple_fetch_row_version(Relation rel, ItemPointer tid,
								Snapshot snapshot, TupleTableSlot *slot)
{
	reject(rel, "fetching a row by tid");
	return false;
}

static bool
hummock_tuple_tid_valid(TableScanDesc scan, ItemPointer tid)
{
	return ItemPointerIsValid(tid);
}

static void
hummock_tuple_get_latest_tid(TableScanDesc scan, ItemPointer tid)
{
	reject(scan->rs_rd, "currtid");
}

static bool
hummock_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
								 Snapshot snapshot)
{
	/* every row a scan returns belongs to the scan's epoch */
	return true;
}

static TransactionId
hummock_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	reject(rel, "deleting index tuples");
	return InvalidTransactionId;
}

/* ------------------------------------------------------------------------
 * Manipulations of physical tuples: only the streaming engine writes
 * ------------------------------------------------------------------------
 */

static void
hummock_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
					 int options, struct BulkInsertStateData *bistate)
{
	HsRejectWrite(rel, "insert into");
}

static void
hummock_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
								 CommandId cid, int options,
								 struct BulkInsertStateData *bistate,
								 uint32 specToken)
{
	HsRejectWrite(rel, "insert into");
}

static void
hummock_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
								   uint32 specToken, bool succeeded)
{
	HsRejectWrite(rel, "insert into");
}

static void
hummock_multi_insert(Relation rel, TupleTableSlot **slots, int nslots,
					 CommandId cid, int options, struct BulkInsertStateData *bistate)
{
	HsRejectWrite(rel, "insert into");
}

static TM_Result
hummock_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
					 Snapshot snapshot, Snapshot crosscheck, bool wait,
					 TM_FailureData *tmfd, bool changingPart)
{
	HsRejectWrite(rel, "delete from");
	return TM_Ok;
}

static TM_Result
hummock_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
					 CommandId cid, Snapshot snapshot, Snapshot crosscheck,
					 bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
					 bool *update_indexes)
{
	HsRejectWrite(rel, "update");
	return TM_Ok;
}

static TM_Result
hummock_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
				   TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
				   LockWaitPolicy wait_policy, uint8 flags,
				   TM_FailureData *tmfd)
{
	reject(rel, "SELECT FOR UPDATE/SHARE");
	return TM_Ok;
}

static void
hummock_finish_bulk_insert(Relation rel, int options)
{
}

/* ------------------------------------------------------------------------
 * DDL related callbacks
 * ------------------------------------------------------------------------
 */

static void
hummock_relation_set_new_filenode(Relation rel, const RelFileNode *newrnode,
								  char persistence, TransactionId *freezeXid,
								  MultiXactId *minmulti)
{
	SMgrRelation srel;

	if (persistence == RELPERSISTENCE_UNLOGGED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("unlogged relations cannot use the hummock access method"),
				 errhint("hummock data survives crashes by design; create the relation without UNLOGGED.")));

	/* no tuples live here, but the rest of PostgreSQL expects a main fork */
	*freezeXid = InvalidTransactionId;
	*minmulti = InvalidMultiXactId;
	srel = RelationCreateStorage(*newrnode, persistence, true);
	smgrclose(srel);
}

static void
hummock_relation_nontransactional_truncate(Relation rel)
{
	HsRejectWrite(rel, "truncate");
}

static void
hummock_relation_copy_data(Relation rel, const RelFileNode *newrnode)
{
	/* ALTER TABLE SET TABLESPACE: no tuples live in the relation's files */
	SMgrRelation srel = RelationCreateStorage(*newrnode, rel->rd_rel->relpersistence, true);

	smgrclose(srel);
}

static void
hummock_relation_copy_for_cluster(Relation OldTable, Relation NewTable,
								  Relation OldIndex, bool use_sort,
								  TransactionId OldestXmin,
								  TransactionId *xid_cutoff,
								  MultiXactId *multi_cutoff,
								  double *num_tuples, double *tups_vacuumed,
								  double *tups_recently_dead)
{
	reject(OldTable, "CLUSTER or VACUUM FULL");
}

static void
hummock_relation_vacuum(Relation rel, struct VacuumParams *params,
						BufferAccessStrategy bstrategy)
{
	/* compaction and GC do the work of VACUUM in the background */
}

/*
 * ANALYZE asks for blocks in increasing order; rows are not in blocks, so
 * pseudo-block b stands for rows [b * SAMPLE_BLOCK_ROWS, (b + 1) *
 * SAMPLE_BLOCK_ROWS) of one scan in key order (hummock_relation_size
 * reports as many pseudo-blocks as the SST statistics suggest).
 */
static bool
hummock_scan_analyze_next_block(TableScanDesc sscan, BlockNumber blockno,
								BufferAccessStrategy bstrategy)
{
	HsScanDesc	scan = (HsScanDesc) sscan;
	uint64		first = (uint64) blockno * SAMPLE_BLOCK_ROWS;

	/* skip to the row before the block's first */
	if (!scan_skip_to(scan, first))
		return false;
	scan->block_end = first + SAMPLE_BLOCK_ROWS;
	return true;
}

static bool
hummock_scan_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
								double *liverows, double *deadrows,
								TupleTableSlot *slot)
{
	HsScanDesc	scan = (HsScanDesc) sscan;

	ExecClearTuple(slot);
	if (scan->ordinal >= scan->block_end || !scan_advance(scan))
		return false;
	scan_store(scan, slot);
	*liverows += 1;
	return true;
}

static double
hummock_index_build_range_scan(Relation table_rel, Relation index_rel,
							   struct IndexInfo *index_info, bool allow_sync,
							   bool anyvisible, bool progress,
							   BlockNumber start_blockno, BlockNumber numblocks,
							   IndexBuildCallback callback, void *callback_state,
							   TableScanDesc scan)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot create an index on relation \"%s\"",
					RelationGetRelationName(table_rel)),
			 errdetail("\"%s\" uses the hummock table access method, which serves key lookups itself.",
					   RelationGetRelationName(table_rel))));
	return 0;
}

static void
hummock_index_validate_scan(Relation table_rel, Relation index_rel,
							struct IndexInfo *index_info, Snapshot snapshot,
							struct ValidateIndexState *state)
{
	reject(table_rel, "an index build");
}

/* ------------------------------------------------------------------------
 * Miscellaneous callbacks
 * ------------------------------------------------------------------------
 */

static void hummock_relation_estimate_size(Relation rel, int32 *attr_widths,
										   BlockNumber *pages, double *tuples,
										   double *allvisfrac);

/*
 * The size ANALYZE and RelationGetNumberOfBlocks see: pseudo-blocks of
 * SAMPLE_BLOCK_ROWS rows (see hummock_scan_analyze_next_block).
 */
static uint64
hummock_relation_size(Relation rel, ForkNumber forkNumber)
{
	BlockNumber pages;
	double		tuples,
				allvis;

	if (forkNumber != MAIN_FORKNUM)
		return 0;
	hummock_relation_estimate_size(rel, NULL, &pages, &tuples, &allvis);
	return (uint64) ((tuples + SAMPLE_BLOCK_ROWS - 1) / SAMPLE_BLOCK_ROWS) * BLCKSZ;
}

static bool
hummock_relation_needs_toast_table(Relation rel)
{
	/* rows are stored whole in the store */
	return false;
}

static Oid
hummock_relation_toast_am(Relation rel)
{
	return HEAP_TABLE_AM_OID;
}

/* ------------------------------------------------------------------------
 * Planner related callbacks
 * ------------------------------------------------------------------------
 */

static void
hummock_relation_estimate_size(Relation rel, int32 *attr_widths,
							   BlockNumber *pages, double *tuples,
							   double *allvisfrac)
{
	HsVersion  *v = HsHummockCurrentVersion();
	double		keys;
	uint64		bytes;

	HsVersionTableSize(v, (HsTableId) RelationGetRelid(rel), &keys, &bytes);
	HsVersionUnref(v);
	*tuples = keys;
	*pages = (BlockNumber) Max(1, bytes / BLCKSZ);
	*allvisfrac = 1.0;
}

/* ------------------------------------------------------------------------
 * Executor related callbacks
 * ------------------------------------------------------------------------
 */

static bool
hummock_scan_bitmap_next_block(TableScanDesc scan, struct TBMIterateResult *tbmres)
{
	reject(scan->rs_rd, "a bitmap scan");
	return false;
}

static bool
hummock_scan_bitmap_next_tuple(TableScanDesc scan, struct TBMIterateResult *tbmres,
							   TupleTableSlot *slot)
{
	reject(scan->rs_rd, "a bitmap scan");
	return false;
}

/*
 * TABLESAMPLE reads pseudo-blocks too: block b is rows [b * SAMPLE_BLOCK_ROWS,
 * (b + 1) * SAMPLE_BLOCK_ROWS) of the scan in key order, and offset o of a
 * block its row o.  A sampling method that chooses blocks (SYSTEM) gets as
 * many as hummock_relation_size reports; one that does not (BERNOULLI) reads
 * every block until the rows end.  A method that asks for a block before
 * the current one (in random order, say) restarts the scan.
 */
static bool
hummock_scan_sample_next_block(TableScanDesc sscan, struct SampleScanState *scanstate)
{
	HsScanDesc	scan = (HsScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	BlockNumber blockno;
	uint64		first;

	if (tsm->NextSampleBlock)
	{
		blockno = tsm->NextSampleBlock(scanstate,
									   (BlockNumber) (hummock_relation_size(sscan->rs_rd,
																			MAIN_FORKNUM) / BLCKSZ));
		if (!BlockNumberIsValid(blockno))
			return false;
	}
	else
		blockno = scan->sample_started ? scan->sample_block + 1 : 0;

	first = (uint64) blockno * SAMPLE_BLOCK_ROWS;
	if (scan->ordinal > first)
		close_iterator(scan);	/* back to the start */
	if (!scan_skip_to(scan, first))
		return false;
	scan->sample_block = blockno;
	scan->sample_started = true;
	scan->block_end = first + SAMPLE_BLOCK_ROWS;
	return true;
}

static bool
hummock_scan_sample_next_tuple(TableScanDesc sscan, struct SampleScanState *scanstate,
							   TupleTableSlot *slot)
{
	HsScanDesc	scan = (HsScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	uint64		first = (uint64) scan->sample_block * SAMPLE_BLOCK_ROWS;

	for (;;)
	{
		OffsetNumber off = tsm->NextSampleTuple(scanstate, scan->sample_block,
												SAMPLE_BLOCK_ROWS);
		uint64		target;

		if (!OffsetNumberIsValid(off))
			break;
		target = first + off;	/* offsets count from 1, as ordinals do */
		if (!scan_skip_to(scan, target))
			break;				/* the rows end inside this block */
		if (scan->ordinal == target)
		{
			scan_store(scan, slot);
			return true;
		}
	}
	ExecClearTuple(slot);
	return false;
}

/* ------------------------------------------------------------------------
 * Definition of the hummock table access method
 * ------------------------------------------------------------------------
 */

static const TableAmRoutine hummock_methods = {
	.type = T_TableAmRoutine,

	.slot_callbacks = hummock_slot_callbacks,

	.scan_begin = hummock_scan_begin,
	.scan_end = hummock_scan_end,
	.scan_rescan = hummock_scan_rescan,
	.scan_getnextslot = hummock_scan_getnextslot,

	.scan_set_tidrange = hummock_scan_set_tidrange,
	.scan_getnextslot_tidrange = hummock_scan_getnextslot_tidrange,

	/* parallel scans: chunks of the key space (parallel_scan.c) */
	.parallelscan_estimate = HsParallelScanEstimate,
	.parallelscan_initialize = HsParallelScanInitialize,
	.parallelscan_reinitialize = HsParallelScanReinitialize,

	.index_fetch_begin = hummock_index_fetch_begin,
	.index_fetch_reset = hummock_index_fetch_reset,
	.index_fetch_end = hummock_index_fetch_end,
	.index_fetch_tuple = hummock_index_fetch_tuple,

	.tuple_fetch_row_version = hummock_tuple_fetch_row_version,
	.tuple_tid_valid = hummock_tuple_tid_valid,
	.tuple_get_latest_tid = hummock_tuple_get_latest_tid,
	.tuple_satisfies_snapshot = hummock_tuple_satisfies_snapshot,
	.index_delete_tuples = hummock_index_delete_tuples,

	.tuple_insert = hummock_tuple_insert,
	.tuple_insert_speculative = hummock_tuple_insert_speculative,
	.tuple_complete_speculative = hummock_tuple_complete_speculative,
	.multi_insert = hummock_multi_insert,
	.tuple_delete = hummock_tuple_delete,
	.tuple_update = hummock_tuple_update,
	.tuple_lock = hummock_tuple_lock,
	.finish_bulk_insert = hummock_finish_bulk_insert,

	.relation_set_new_filenode = hummock_relation_set_new_filenode,
	.relation_nontransactional_truncate = hummock_relation_nontransactional_truncate,
	.relation_copy_data = hummock_relation_copy_data,
	.relation_copy_for_cluster = hummock_relation_copy_for_cluster,
	.relation_vacuum = hummock_relation_vacuum,
	.scan_analyze_next_block = hummock_scan_analyze_next_block,
	.scan_analyze_next_tuple = hummock_scan_analyze_next_tuple,
	.index_build_range_scan = hummock_index_build_range_scan,
	.index_validate_scan = hummock_index_validate_scan,

	.relation_size = hummock_relation_size,
	.relation_needs_toast_table = hummock_relation_needs_toast_table,
	.relation_toast_am = hummock_relation_toast_am,
	.relation_fetch_toast_slice = NULL,	/* no toast table: never called */

	.relation_estimate_size = hummock_relation_estimate_size,

	.scan_bitmap_next_block = hummock_scan_bitmap_next_block,
	.scan_bitmap_next_tuple = hummock_scan_bitmap_next_tuple,
	.scan_sample_next_block = hummock_scan_sample_next_block,
	.scan_sample_next_tuple = hummock_scan_sample_next_tuple
};

Datum
hummock_tableam_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(&hummock_methods);
}

/* ------------------------------------------------------------------------
 * Recognizing hummock relations
 * ------------------------------------------------------------------------
 */

bool
HsRelationIsHummock(Relation rel)
{
	return rel->rd_tableam == &hummock_methods;
}
