/*-------------------------------------------------------------------------
 *
 * exec_consolidate.c
 *	  Cancel a row's insert against its delete before they go further.
 *
 * Why.  An outer, semi or anti join emits a preserved row's NULL-extended
 * (or present/absent) form whenever the row's match count crosses zero.
 * An epoch that deletes and re-inserts the other side's row of a key (an
 * UPDATE that keeps the join key) makes it cross twice: the join emits
 * -joined, +NULL-extended, -NULL-extended, +joined'.  The middle pair is
 * nothing, but a join above it turns each of the four rows into two or
 * more of its own, so a chain of k such joins emits 2^k rows for one
 * change.  Consolidating the rows between the joins keeps the chain
 * linear.
 *
 * How.  Pushed rows are copied (a MinimalTuple each, in a context reset
 * per chunk) with their signs.  When HS_CONSOLIDATE_ROWS rows or
 * HS_CONSOLIDATE_BYTES bytes are buffered, and at the flush, the chunk is
 * sorted by the rows' bytes, the signs of equal rows are summed, and the
 * net rows are emitted: every net delete first, then every net insert.
 * Rows are equal when their bytes are (a value stored otherwise, e.g.
 * compressed in one row and not in the other, is not cancelled: that
 * costs work, never correctness).
 *
 * Why the order is sound.  The rows of a chunk begin and end at points
 * where what the upstream emitted so far is the result of a consistent
 * state (executor.h: every prefix of a join's output is), S0 and S1.  A
 * net delete of a row removes copies S0 has (its count in S1 is not
 * negative), so after the deletes the state is a sub-multiset of both S0
 * and S1, and each insert after it keeps the state a sub-multiset of S1:
 * a downstream that holds a key unique (a view's rows) never sees it
 * twice, and no count goes below zero.
 *
 * src/stream/executor/exec_consolidate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "utils/memutils.h"

#include "hummock_stream/stream/executor.h"

/* A chunk ends at this many rows, or bytes of copies. */
#define HS_CONSOLIDATE_ROWS		4096
#define HS_CONSOLIDATE_BYTES	(1024 * 1024)

typedef struct BufferedRow
{
	MinimalTuple mt;
	int			sign;
} BufferedRow;

typedef struct ConsolidateExec
{
	HsExec		exec;
	MemoryContext chunk_cxt;	/* the copies of the current chunk */
	BufferedRow *rows;			/* HS_CONSOLIDATE_ROWS of them */
	int			nrows;
	Size		bytes;
} ConsolidateExec;

static int
row_cmp(const void *a, const void *b)
{
	MinimalTuple x = ((const BufferedRow *) a)->mt;
	MinimalTuple y = ((const BufferedRow *) b)->mt;

	if (x->t_len != y->t_len)
		return x->t_len < y->t_len ? -1 : 1;
	return memcmp(x, y, x->t_len);
}

/* Emit the net rows of the chunk (deletes, then inserts) and empty it. */
static void
emit_chunk(ConsolidateExec *c)
{
	TupleTableSlot *out = c->exec.out;
	int			n = c->nrows;
	int			pass;

	if (n == 0)
		return;
	qsort(c->rows, n, sizeof(BufferedRow), row_cmp);
	/* sum each run of equal rows into its first entry */
	for (int i = 0; i < n;)
	{
		int			j = i + 1;
		int			net = c->rows[i].sign;

		while (j < n && row_cmp(&c->rows[i], &c->rows[j]) == 0)
		{
			net += c->rows[j].sign;
			c->rows[j].sign = 0;
			j++;
		}
		c->rows[i].sign = net;
		i = j;
	}
	for (pass = 0; pass < 2; pass++)
	{
		for (int i = 0; i < n; i++)
		{
			int			net = c->rows[i].sign;

			if (pass == 0 ? net >= 0 : net <= 0)
				continue;
			ExecStoreMinimalTuple(c->rows[i].mt, out, false);
			for (int k = 0; k < Abs(net); k++)
				HsExecEmit(&c->exec, out, net > 0 ? 1 : -1);
			ExecClearTuple(out);
		}
	}
	c->nrows = 0;
	c->bytes = 0;
	MemoryContextReset(c->chunk_cxt);
}

static void
consolidate_push(HsExec *self, TupleTableSlot *row, int sign)
{
	ConsolidateExec *c = (ConsolidateExec *) self;
	MemoryContext oldcxt = MemoryContextSwitchTo(c->chunk_cxt);
	MinimalTuple mt = ExecCopySlotMinimalTuple(row);

	MemoryContextSwitchTo(oldcxt);
	c->rows[c->nrows].mt = mt;
	c->rows[c->nrows].sign = sign;
	c->nrows++;
	c->bytes += mt->t_len;
	if (c->nrows >= HS_CONSOLIDATE_ROWS || c->bytes >= HS_CONSOLIDATE_BYTES)
		emit_chunk(c);
}

static void
consolidate_flush(HsExec *self)
{
	emit_chunk((ConsolidateExec *) self);
	HsExecFlush(self->downstream);
}

static void
consolidate_reset(HsExec *self)
{
	ConsolidateExec *c = (ConsolidateExec *) self;

	c->nrows = 0;
	c->bytes = 0;
	MemoryContextReset(c->chunk_cxt);
}

static const HsExecMethods consolidate_methods = {
	.name = "Consolidate",
	.push = consolidate_push,
	.flush = consolidate_flush,
	.reset = consolidate_reset,
	.out_ops = &TTSOpsMinimalTuple,
};

HsExec *
HsExecConsolidateCreate(TupleDesc desc)
{
	ConsolidateExec *c = HsExecCreate(sizeof(ConsolidateExec),
									  &consolidate_methods, desc);

	c->chunk_cxt = AllocSetContextCreate(CurrentMemoryContext,
										 "hummock_stream consolidate chunk",
										 ALLOCSET_DEFAULT_SIZES);
	c->rows = palloc(sizeof(BufferedRow) * HS_CONSOLIDATE_ROWS);
	return &c->exec;
}
