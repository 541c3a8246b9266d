/*-------------------------------------------------------------------------
 *
 * log_consolidation.c
 *	  The net change of a run of captured rows: an insert and a delete of
 *	  the same row image cancel before any executor evaluates them.
 *
 * Why.  A view is exact at epoch boundaries: what it shows after an epoch
 * depends only on its sources' rows at the epoch's end, so the rows an
 * epoch inserted and deleted again are nothing to it.  Executors evaluate
 * every row they are given, though, and a row that makes an expression
 * fail (a division by zero, a failed cast) fails the view even where
 * Postgres, evaluating the query over the rows as they are now, would not
 * see it.  After such a failure the view replays its sources' changes
 * from its last committed position in one epoch (a reset); consolidated,
 * the offending row and the update or delete that fixed it cancel, and
 * the view heals by itself once the data is fixed.  A job consolidates the
 * first epoch after it is loaded (stream_job.c), which is that replay; the
 * epochs after it are pushed row by row (consolidating every epoch would
 * cost a hash of every row on the hot path).
 *
 * How.  Rows are counted by their identity (number of columns, null
 * bitmap and data: the rest of an image's header is the heap tuple's it
 * was copied from, which differs between a row as inserted and as
 * deleted) in a hash table, each
 * entry keeping its first appearance's number; the drain hands out the
 * rows whose count is not 0 in that order.  This keeps what executors
 * need of the order: of one primary key, the rows of an epoch alternate
 * delete, insert, ... from the row it had before (if any), so only that
 * row (count -1, appearing first) and the row it has after (count +1,
 * appearing later) can remain, the delete first; rows of tables without a
 * key are a multiset, where order does not matter.  Images of one row that
 * differ in their bytes (a value compressed in one of them) do not cancel:
 * the result is the same, only without the saving.  Memory is bounded by
 * maintenance_work_mem: the caller drains when it is full and goes on, and
 * consolidating each part is still the net change of the whole.
 *
 * src/stream/log_consolidation.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "hummock_stream/stream/bytes_key_hash.h"
#include "hummock_stream/stream/log_consolidation.h"

typedef struct NetRow
{
	HsBytesKey	key;			/* the row's identity (row_identity) */
	HeapTupleHeader image;		/* its first image (a copy) */
	int64		count;
} NetRow;

struct HsLogConsolidation
{
	MemoryContext cxt;
	HTAB	   *rows;			/* NetRow by image */
	NetRow	  **order;			/* entries in order of first appearance */
	Size		n;
	Size		cap;
	StringInfoData buf;			/* the identity of the row being added */
};

static void
reset_rows(HsLogConsolidation *c)
{
	MemoryContextReset(c->cxt);
	c->rows = HsBytesKeyHashCreate("hummock_stream log consolidation", sizeof(NetRow), 1024,
								   c->cxt);
	c->cap = 1024;
	c->order = MemoryContextAlloc(c->cxt, sizeof(NetRow *) * c->cap);
	c->n = 0;
}

HsLogConsolidation *
HsLogConsolidationBegin(MemoryContext parent)
{
	HsLogConsolidation *c = MemoryContextAllocZero(parent, sizeof(HsLogConsolidation));

	c->cxt = AllocSetContextCreate(parent, "hummock_stream log consolidation",
								   ALLOCSET_DEFAULT_SIZES);
	reset_rows(c);
	{
		MemoryContext old = MemoryContextSwitchTo(parent);

		initStringInfo(&c->buf);
		MemoryContextSwitchTo(old);
	}
	return c;
}

/*
 * What tells two images of a row apart: its number of columns, then its
 * null bitmap and data.  The rest of the header is the heap tuple's it was
 * copied from (hint bits, the update chain's flags and pointer), which
 * differ between a row's image as inserted and as deleted.
 */
static void
row_identity(StringInfo buf, HeapTupleHeader row)
{
	uint16		natts = HeapTupleHeaderGetNatts(row);
	Size		off = offsetof(HeapTupleHeaderData, t_bits);

	resetStringInfo(buf);
	appendBinaryStringInfo(buf, (const char *) &natts, sizeof(natts));
	appendBinaryStringInfo(buf, (const char *) row + off,
						   HeapTupleHeaderGetDatumLength(row) - off);
}

void
HsLogConsolidationAdd(HsLogConsolidation *c, HeapTupleHeader row, int sign)
{
	HsBytesKey	k;
	NetRow	   *e;
	bool		found;

	row_identity(&c->buf, row);
	k.data = c->buf.data;
	k.len = c->buf.len;
	e = hash_search(c->rows, &k, HASH_ENTER, &found);
	if (!found)
	{
		Size		len = HeapTupleHeaderGetDatumLength(row);

		e->key.data = MemoryContextAlloc(c->cxt, k.len);
		memcpy(e->key.data, k.data, k.len);
		e->key.len = k.len;
		e->image = MemoryContextAlloc(c->cxt, len);
		memcpy(e->image, row, len);
		e->count = 0;
		if (c->n == c->cap)
		{
			c->cap *= 2;
			c->order = repalloc_huge(c->order, sizeof(NetRow *) * c->cap);
		}
		c->order[c->n++] = e;
	}
	e->count += sign;
}

bool
HsLogConsolidationFull(HsLogConsolidation *c)
{
	return MemoryContextMemAllocated(c->cxt, true) > (Size) maintenance_work_mem * 1024;
}

void
HsLogConsolidationDrain(HsLogConsolidation *c, HsLogNetRowCallback cb, void *arg)
{
	for (Size i = 0; i < c->n; i++)
	{
		NetRow	   *e = c->order[i];
		int			sign = e->count > 0 ? +1 : -1;

		for (int64 u = 0; u < (e->count > 0 ? e->count : -e->count); u++)
			cb(arg, e->image, sign);
	}
	reset_rows(c);
}

void
HsLogConsolidationEnd(HsLogConsolidation *c)
{
	MemoryContextDelete(c->cxt);
	pfree(c->buf.data);
	pfree(c);
}
