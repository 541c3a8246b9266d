/*-------------------------------------------------------------------------
 *
 * capture_reader.c
 *	  Read the rows a capture log holds between two barrier snapshots, in
 *	  replay order, straight from the log's heap and txid index.
 *
 * An epoch's input from a source is the log rows whose transaction is
 * visible in the barrier snapshot that ends the epoch and not in the one
 * that began it, replayed in (stmt, ord) order (capture.c).  A query says
 * that in one statement, but costs per row what the executor costs: the
 * visibility functions called through fmgr, every row copied into a
 * tuplestore, and a sort of the whole rows, which spills to temporary
 * files as soon as an epoch holds a large transaction.  This reader does
 * the same in two passes:
 *
 * 1. An index scan of the txid index over [from.xmin, to.xmax), which
 *    gives each transaction's rows in heap order, with their txid from the
 *    index tuple: rows of transactions not in the epoch (consumed, or still
 *    running) are passed over without reading the heap, the transaction
 *    tests done in C against the two snapshots parsed once.  Each run of
 *    the epoch's rows on one page is tested for visibility on the page
 *    under one lock (the rows of one inserting transaction share one
 *    test).  It keeps only each row's sort key and its heap TID: 24 bytes
 *    a row.  A transaction's rows are appended in (stmt, ord) order, so
 *    the keys are usually sorted already (one transaction, or transactions
 *    that did not overlap); the scan notes whether they are, and they are
 *    sorted only if not.  (This pass was a bitmap heap scan, which read
 *    and tested every row of the range at every barrier, a running
 *    transaction's too: while one transaction inserted 1M rows, 64% of a
 *    min view's worker; 24% now, counting the epoch that reads them.)
 * 2. The rows are fetched by TID in that order, one buffer pin kept while
 *    consecutive rows share a page, each run of them copied out under one
 *    share lock and handed to the caller with the lock released.
 *
 * No row can go between the passes: a log row is deleted only when every
 * job's position is past its transaction (capture.c, trimming), which the
 * reading job's position is not; pruning may move a live row within its
 * page but keeps its line pointer.  The keys are kept in an array up to
 * maintenance_work_mem (about 2.8 million rows at the default 64 MB);
 * past that (a transaction of millions of rows) they all go into a
 * tuplesort, which spills to temporary files, and pass 2 takes them back
 * in batches.  (Such an epoch was left to a planned query, whose sort of
 * the whole rows spilled: a 3M-row insert applied at a tenth of the rate
 * of a 1M-row one.)
 *
 * src/stream/capture_reader.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplesort.h"
#include "utils/xid8.h"

#include "hummock_stream/stream/capture_reader.h"

/* Columns of a capture log (capture.c). */
#define LOG_ATT_TXID	1
#define LOG_ATT_STMT	2
#define LOG_ATT_ORD		3
#define LOG_ATT_OP		4
#define LOG_ATT_ROW		5

/* A pg_snapshot, parsed: xip ascending, as pg_snapshot_out prints it. */
typedef struct TxidSnapshot
{
	uint64		xmin;
	uint64		xmax;
	int			nxip;
	uint64	   *xip;
} TxidSnapshot;

/* A row of the epoch in pass 1: its replay position and where it is. */
typedef struct LogEntry
{
	int64		stmt;
	int32		ord;
	ItemPointerData tid;
} LogEntry;

/*
 * Where pass 1 puts the entries: an array, up to max of them; past that
 * (a transaction of millions of rows) all of them go into a tuplesort
 * of (stmt, ord, tid), which spills to temporary files beyond
 * maintenance_work_mem, and pass 2 reads them back in batches.
 */
typedef struct EntrySink
{
	LogEntry   *entries;
	Size		cap;
	Size		n;				/* in entries (none once sort is started) */
	Size		max;
	bool		sorted;			/* entries[0..n) are in order */
	Tuplesortstate *sort;		/* NULL until the array overflows */
	TupleDesc	sort_desc;
	TupleTableSlot *sort_slot;	/* virtual: what goes in */
	TupleTableSlot *sorted_slot;	/* minimal tuples: what comes out */
	Size		sorted_n;		/* how many went into sort */
} EntrySink;

static void
parse_snapshot(const char *text, TxidSnapshot *s)
{
	const char *p = text;
	char	   *end;
	int			cap = 8;

	s->xmin = strtou64(p, &end, 10);
	if (end == p || *end != ':')
		goto bad;
	p = end + 1;
	s->xmax = strtou64(p, &end, 10);
	if (end == p || *end != ':')
		goto bad;
	p = end + 1;
	s->nxip = 0;
	s->xip = palloc(sizeof(uint64) * cap);
	while (*p != '\0')
	{
		uint64		xid = strtou64(p, &end, 10);

		if (end == p || (*end != ',' && *end != '\0') ||
			(s->nxip > 0 && xid <= s->xip[s->nxip - 1]))
			goto bad;
		if (s->nxip == cap)
		{
			cap *= 2;
			s->xip = repalloc(s->xip, sizeof(uint64) * cap);
		}
		s->xip[s->nxip++] = xid;
		p = *end == ',' ? end + 1 : end;
	}
	return;
bad:
	elog(ERROR, "invalid barrier snapshot \"%s\"", text);
}

/* pg_visible_in_snapshot(xid, s) */
static bool
visible_in(const TxidSnapshot *s, uint64 xid)
{
	int			lo = 0,
				hi = s->nxip - 1;

	if (xid < s->xmin)
		return true;
	if (xid >= s->xmax)
		return false;
	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (s->xip[mid] == xid)
			return false;
		if (s->xip[mid] < xid)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return true;
}

static int
entry_cmp(const LogEntry *a, const LogEntry *b)
{
	if (a->stmt != b->stmt)
		return a->stmt < b->stmt ? -1 : 1;
	if (a->ord != b->ord)
		return a->ord < b->ord ? -1 : 1;
	return ItemPointerCompare((ItemPointer) &a->tid, (ItemPointer) &b->tid);
}

static int
entry_qsort_cmp(const void *a, const void *b)
{
	return entry_cmp((const LogEntry *) a, (const LogEntry *) b);
}

/* Entries pass 2 takes from the tuplesort at a time. */
#define SORTED_BATCH_ENTRIES 65536

static void
sink_sort_put(EntrySink *k, const LogEntry *e)
{
	TupleTableSlot *slot = k->sort_slot;

	ExecClearTuple(slot);
	slot->tts_values[0] = Int64GetDatum(e->stmt);
	slot->tts_values[1] = Int32GetDatum(e->ord);
	slot->tts_values[2] = PointerGetDatum(&e->tid);
	memset(slot->tts_isnull, 0, sizeof(bool) * 3);
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(k->sort, slot);
	k->sorted_n++;
}

/* The array is full: every entry goes through a tuplesort from now on. */
static void
sink_start_sort(EntrySink *k)
{
	AttrNumber	atts[3] = {1, 2, 3};
	Oid			ops[3] = {Int8LessOperator, Int4LessOperator, TIDLessOperator};
	Oid			colls[3] = {InvalidOid, InvalidOid, InvalidOid};
	bool		nulls_first[3] = {false, false, false};

	k->sort_desc = CreateTemplateTupleDesc(3);
	TupleDescInitEntry(k->sort_desc, 1, "stmt", INT8OID, -1, 0);
	TupleDescInitEntry(k->sort_desc, 2, "ord", INT4OID, -1, 0);
	TupleDescInitEntry(k->sort_desc, 3, "tid", TIDOID, -1, 0);
	k->sort_slot = MakeSingleTupleTableSlot(k->sort_desc, &TTSOpsVirtual);
	k->sorted_slot = MakeSingleTupleTableSlot(k->sort_desc, &TTSOpsMinimalTuple);
	k->sort = tuplesort_begin_heap(k->sort_desc, 3, atts, ops, colls, nulls_first,
								   maintenance_work_mem, NULL, TUPLESORT_NONE);
	for (Size i = 0; i < k->n; i++)
		sink_sort_put(k, &k->entries[i]);
	k->n = 0;
	/* pass 2's batches: the sort has the memory now */
	pfree(k->entries);
	k->cap = Min(k->max, SORTED_BATCH_ENTRIES);
	k->entries = palloc(sizeof(LogEntry) * k->cap);
}

static void
sink_add(EntrySink *k, int64 stmt, int32 ord, ItemPointer tid)
{
	LogEntry   *e;

	if (k->sort == NULL && k->n == k->max)
		sink_start_sort(k);
	if (k->sort != NULL)
	{
		LogEntry	one;

		one.stmt = stmt;
		one.ord = ord;
		one.tid = *tid;
		sink_sort_put(k, &one);
		return;
	}
	if (k->n == k->cap)
	{
		k->cap = Min(k->cap * 2, k->max);
		k->entries = repalloc_huge(k->entries, sizeof(LogEntry) * k->cap);
	}
	e = &k->entries[k->n++];
	e->stmt = stmt;
	e->ord = ord;
	e->tid = *tid;
	if (k->sorted && k->n > 1 && entry_cmp(e - 1, e) > 0)
		k->sorted = false;
}

/*
 * Pass 1 jumps past a transaction not in the epoch (a new descent of the
 * index) once it has passed over this many of its rows one by one.
 */
#define SKIP_RESCAN_AFTER 64

/* How many tuples of a page run pass 1 prefetches ahead of the one it tests. */
#define PREFETCH_AHEAD 6

/*
 * What pass 1 knows of the tuples it tested: the visibility found for the
 * last inserting transaction whose tuple nobody had deleted or locked.
 * Such a tuple's visibility in an MVCC snapshot depends on its xmin alone
 * (the reader never inserted it), so the rows of one transaction cost one
 * test however many pages they fill; hint bits are left to later readers
 * (the trim, vacuum) for the rest.
 */
typedef struct VisibilityMemo
{
	TransactionId xmin;			/* InvalidTransactionId: nothing known */
	bool		visible;
} VisibilityMemo;

/*
 * Test the tuples at offs[0..noffs) of block blk of the log (one share
 * lock; their transactions are the epoch's, by their index keys) and
 * put the keys of the visible ones into the sink.
 */
static void
collect_page(Relation log, Buffer buf, BlockNumber blk, const OffsetNumber *offs, int noffs,
			 Snapshot snapshot, VisibilityMemo *memo, EntrySink *sink)
{
	TupleDesc	desc = RelationGetDescr(log);
	Page		page;
	OffsetNumber maxoff;
	LogEntry	found[MaxHeapTuplesPerPage];
	int			nfound = 0;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	maxoff = PageGetMaxOffsetNumber(page);
	for (int i = 0; i < noffs; i++)
	{
		ItemId		lp;
		HeapTupleData tup;
		TransactionId xmin;
		bool		untouched;
		bool		visible;
		bool		isnull;

		/* the tuples are cache misses: ask for a few ahead */
		if (i + PREFETCH_AHEAD < noffs && offs[i + PREFETCH_AHEAD] <= maxoff)
		{
			ItemId		ahead = PageGetItemId(page, offs[i + PREFETCH_AHEAD]);

			if (ItemIdIsNormal(ahead))
				__builtin_prefetch(PageGetItem(page, ahead));
		}
		/* a trimmed row's line pointer may be pruned already: not ours */
		if (offs[i] > maxoff)
			continue;
		lp = PageGetItemId(page, offs[i]);
		untouched = false;
		if (ItemIdIsNormal(lp))
		{
			tup.t_data = (HeapTupleHeader) PageGetItem(page, lp);
			tup.t_len = ItemIdGetLength(lp);
			ItemPointerSet(&tup.t_self, blk, offs[i]);
			tup.t_tableOid = RelationGetRelid(log);
			untouched = HeapTupleHeaderGetRawXmax(tup.t_data) == InvalidTransactionId &&
				(tup.t_data->t_infomask & HEAP_MOVED) == 0;
		}
		if (untouched)
		{
			xmin = HeapTupleHeaderGetRawXmin(tup.t_data);
			if (xmin != memo->xmin)	/* a tuple's xmin is never invalid */
			{
				memo->xmin = xmin;
				memo->visible = HeapTupleSatisfiesVisibility(&tup, snapshot, buf);
			}
			visible = memo->visible;
		}
		else
		{
			/*
			 * Deleted, or updated in place by an ALTER TYPE that reshaped
			 * the captured rows (capture.c), or a pruned chain's redirect:
			 * the chain's visible member, as an index scan would find it.
			 */
			ItemPointerData tid;
			bool		all_dead;

			ItemPointerSet(&tid, blk, offs[i]);
			visible = heap_hot_search_buffer(&tid, log, buf, snapshot, &tup, &all_dead, true);
		}
		if (!visible)
			continue;

		found[nfound].stmt = DatumGetInt64(heap_getattr(&tup, LOG_ATT_STMT, desc, &isnull));
		found[nfound].ord = DatumGetInt32(heap_getattr(&tup, LOG_ATT_ORD, desc, &isnull));
		found[nfound].tid = tup.t_self;
		nfound++;
	}
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	/* with the lock released: a tuplesort may write a run to disk */
	for (int i = 0; i < nfound; i++)
		sink_add(sink, found[i].stmt, found[i].ord, &found[i].tid);
}

/*
 * Pass 1: the keys of the epoch's rows into sink.  An index scan of the
 * txid range gives each transaction's rows in heap order (btree keeps
 * equal keys by TID), with the txid from the index tuple: the rows of
 * transactions not in the epoch (consumed before it, or still running: a large transaction's rows
 * are in the log long before it commits, and every barrier meanwhile
 * reads this range) are passed over without touching the heap, and after
 * SKIP_RESCAN_AFTER of them in one transaction the scan jumps past it.
 * Each run of the epoch's rows on one page is tested under one lock,
 * straight on the page; only a row updated since (capture.c reshapes the
 * captured rows at an ALTER TYPE of the source) takes the generic
 * HOT-chain search.
 */
static void
collect_entries(Relation log, Relation index, const TxidSnapshot *from,
				const TxidSnapshot *to, EntrySink *sink)
{
	Snapshot	snapshot = GetActiveSnapshot();
	ScanKeyData keys[2];
	IndexScanDesc iscan;
	Buffer		buf = InvalidBuffer;
	BlockNumber run_blk = InvalidBlockNumber;
	OffsetNumber offs[MaxHeapTuplesPerPage];
	int			noffs = 0;
	VisibilityMemo memo = {InvalidTransactionId, false};
	uint64		passed_txid = 0;
	uint32		passed = 0;
	uint64		passed_all = 0;

	ScanKeyInit(&keys[0], 1, BTGreaterEqualStrategyNumber, F_XID8GE,
				FullTransactionIdGetDatum(FullTransactionIdFromU64(from->xmin)));
	ScanKeyInit(&keys[1], 1, BTLessStrategyNumber, F_XID8LT,
				FullTransactionIdGetDatum(FullTransactionIdFromU64(to->xmax)));
	iscan = index_beginscan(log, index, snapshot, 2, 0);
	iscan->xs_want_itup = true;
	index_rescan(iscan, keys, 2, NULL, 0);
	for (;;)
	{
		ItemPointer tid = index_getnext_tid(iscan, ForwardScanDirection);

		if (tid != NULL)
		{
			bool		isnull;
			Datum		key = index_getattr(iscan->xs_itup, 1, iscan->xs_itupdesc, &isnull);
			uint64		txid = U64FromFullTransactionId(DatumGetFullTransactionId(key));

			if (!visible_in(to, txid) || visible_in(from, txid))
			{
				if ((++passed_all & 4095) == 0)
					CHECK_FOR_INTERRUPTS();
				if (txid != passed_txid)
				{
					passed_txid = txid;
					passed = 0;
				}
				else if (++passed == SKIP_RESCAN_AFTER)
				{
					CHECK_FOR_INTERRUPTS();
					ScanKeyInit(&keys[0], 1, BTGreaterEqualStrategyNumber, F_XID8GE,
								FullTransactionIdGetDatum(FullTransactionIdFromU64(txid + 1)));
					index_rescan(iscan, keys, 2, NULL, 0);
				}
				continue;
			}
		}

		/* a run ends at a new page (or a full one: a page's TIDs recur) */
		if (noffs > 0 &&
			(tid == NULL || ItemPointerGetBlockNumber(tid) != run_blk ||
			 noffs == MaxHeapTuplesPerPage))
		{
			CHECK_FOR_INTERRUPTS();
			if (!BufferIsValid(buf) || BufferGetBlockNumber(buf) != run_blk)
				buf = ReleaseAndReadBuffer(buf, log, run_blk);
			collect_page(log, buf, run_blk, offs, noffs, snapshot, &memo, sink);
			noffs = 0;
		}
		if (tid == NULL)
			break;
		run_blk = ItemPointerGetBlockNumber(tid);
		offs[noffs++] = ItemPointerGetOffsetNumber(tid);
	}
	if (BufferIsValid(buf))
		ReleaseBuffer(buf);
	index_endscan(iscan);
}

/*
 * The row image of a log tuple as an aligned composite datum: copied into
 * *buf (grown as needed) unless it is compressed or stored out of line,
 * when it is detoasted into new memory (*detoasted set).
 */
static HeapTupleHeader
row_image(Datum d, char **buf, Size *buf_size, bool *detoasted)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);
	Size		len;
	const char *data;

	/*
	 * A toast pointer has a 1-byte header too: tell it from a short inline
	 * value before VARATT_IS_SHORT, which is true of both (a row image
	 * stored out of line read as a short value crashed the worker).
	 */
	*detoasted = VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v);
	if (*detoasted)
		return (HeapTupleHeader) PG_DETOAST_DATUM(d);
	if (VARATT_IS_SHORT(v))
	{
		len = VARSIZE_SHORT(v) - VARHDRSZ_SHORT;
		data = VARDATA_SHORT(v);
	}
	else
	{
		len = VARSIZE(v) - VARHDRSZ;
		data = VARDATA(v);
	}
	if (len + VARHDRSZ > *buf_size)
	{
		*buf_size = Max(len + VARHDRSZ, *buf_size * 2);
		*buf = repalloc(*buf, *buf_size);
	}
	SET_VARSIZE(*buf, len + VARHDRSZ);
	memcpy(*buf + VARHDRSZ, data, len);
	return (HeapTupleHeader) *buf;
}

/*
 * Pass 2: fetch the rows by TID in entry order and hand them to cb: each
 * run of entries on one page is copied out under one share lock, then
 * handed over with the lock released.
 */
static void
replay_entries(Relation log, const LogEntry *entries, Size n,
			   HsCaptureRowCallback cb, void *arg)
{
	TupleDesc	desc = RelationGetDescr(log);
	Buffer		buf = InvalidBuffer;
	BlockNumber cur = InvalidBlockNumber;
	Size		arena_size = BLCKSZ,
				row_size = 256;
	char	   *arena = palloc(arena_size);
	char	   *row_copy = palloc(row_size);
	Size		starts[MaxHeapTuplesPerPage];
	uint32		lens[MaxHeapTuplesPerPage];
	Size		i = 0;

	while (i < n)
	{
		BlockNumber blk = ItemPointerGetBlockNumber(&entries[i].tid);
		Page		page;
		Size		run = 0,
					used = 0;

		CHECK_FOR_INTERRUPTS();
		if (blk != cur)
		{
			if (BufferIsValid(buf))
				ReleaseBuffer(buf);
			buf = ReadBuffer(log, blk);
			cur = blk;
		}
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		while (i + run < n && run < MaxHeapTuplesPerPage &&
			   ItemPointerGetBlockNumber(&entries[i + run].tid) == blk)
		{
			OffsetNumber off = ItemPointerGetOffsetNumber(&entries[i + run].tid);
			ItemId		lp;
			Size		len;

			if (off > PageGetMaxOffsetNumber(page) ||
				!ItemIdIsNormal(lp = PageGetItemId(page, off)))
				elog(ERROR, "capture log \"%s\" lost its row (%u,%u) while it was read",
					 RelationGetRelationName(log), blk, off);
			len = ItemIdGetLength(lp);
			if (used + MAXALIGN(len) > arena_size)
			{
				arena_size = Max(arena_size * 2, used + MAXALIGN(len));
				arena = repalloc(arena, arena_size);
			}
			memcpy(arena + used, PageGetItem(page, lp), len);
			starts[run] = used;
			lens[run++] = len;
			used += MAXALIGN(len);
		}
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);

		for (Size r = 0; r < run; r++)
		{
			HeapTupleData tup;
			bool		isnull;
			char		op;
			HeapTupleHeader row;
			bool		detoasted;

			tup.t_data = (HeapTupleHeader) (arena + starts[r]);
			tup.t_len = lens[r];
			tup.t_self = entries[i + r].tid;
			tup.t_tableOid = RelationGetRelid(log);
			op = DatumGetChar(heap_getattr(&tup, LOG_ATT_OP, desc, &isnull));
			row = row_image(heap_getattr(&tup, LOG_ATT_ROW, desc, &isnull),
							&row_copy, &row_size, &detoasted);
			cb(arg, op, row);
			if (detoasted)
				pfree(row);
		}
		i += run;
	}
	if (BufferIsValid(buf))
		ReleaseBuffer(buf);
	pfree(arena);
	pfree(row_copy);
}

bool
HsCaptureReadBetween(Oid log_relid, const char *from, const char *to,
					 HsCaptureRowCallback cb, void *arg)
{
	TxidSnapshot from_snap,
				to_snap;
	Relation	log;
	Relation	index;
	List	   *indexes;
	EntrySink	sink = {0};

	parse_snapshot(from, &from_snap);
	parse_snapshot(to, &to_snap);
	log = table_open(log_relid, AccessShareLock);
	indexes = RelationGetIndexList(log);
	if (indexes == NIL)
	{
		table_close(log, AccessShareLock);
		return false;
	}
	index = index_open(linitial_oid(indexes), AccessShareLock);
	list_free(indexes);
	sink.max = Max((Size) maintenance_work_mem * 1024 / sizeof(LogEntry), 1024);
	sink.cap = Min(sink.max, 1024);
	sink.entries = palloc(sizeof(LogEntry) * sink.cap);
	sink.sorted = true;
	collect_entries(log, index, &from_snap, &to_snap, &sink);
	index_close(index, AccessShareLock);
	if (sink.sort == NULL)
	{
		if (!sink.sorted)
			qsort(sink.entries, sink.n, sizeof(LogEntry), entry_qsort_cmp);
		replay_entries(log, sink.entries, sink.n, cb, arg);
	}
	else
	{
		/* the sorted keys back in batches */
		elog(DEBUG1, "capture log \"%s\": " UINT64_FORMAT " rows in this epoch, more than maintenance_work_mem holds the keys of: sorted with a tuplesort",
			 RelationGetRelationName(log), (uint64) sink.sorted_n);
		tuplesort_performsort(sink.sort);
		for (;;)
		{
			Size		n = 0;

			while (n < sink.cap &&
				   tuplesort_gettupleslot(sink.sort, true, false, sink.sorted_slot, NULL))
			{
				TupleTableSlot *t = sink.sorted_slot;
				bool		isnull;

				sink.entries[n].stmt = DatumGetInt64(slot_getattr(t, 1, &isnull));
				sink.entries[n].ord = DatumGetInt32(slot_getattr(t, 2, &isnull));
				sink.entries[n].tid = *(ItemPointer) DatumGetPointer(slot_getattr(t, 3, &isnull));
				n++;
			}
			if (n == 0)
				break;
			replay_entries(log, sink.entries, n, cb, arg);
		}
		tuplesort_end(sink.sort);
		ExecDropSingleTupleTableSlot(sink.sort_slot);
		ExecDropSingleTupleTableSlot(sink.sorted_slot);
		FreeTupleDesc(sink.sort_desc);
	}
	pfree(sink.entries);
	pfree(from_snap.xip);
	pfree(to_snap.xip);
	table_close(log, AccessShareLock);
	return true;
}
