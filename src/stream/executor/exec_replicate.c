/*-------------------------------------------------------------------------
 *
 * exec_replicate.c
 *	  Streaming replication of counted rows: a row whose last column says
 *	  how many copies of the rest exist becomes that many rows.
 *
 * INTERSECT ALL and EXCEPT ALL count each distinct row on both sides
 * (plan_setop.c) and compute how many copies the result has; this turns
 * those counted rows back into a multiset.  A counted row pushed with
 * sign s becomes count copies pushed with sign s, so a count that goes
 * from 2 to 3 (its old row retracted, its new row inserted) nets one more
 * copy.  It keeps no state.
 *
 * src/stream/executor/exec_replicate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/tuptable.h"

#include "hummock_stream/stream/executor.h"

typedef struct ReplicateExec
{
	HsExec		exec;			/* exec.out: virtual, the columns but the count */
	int			ncols;
} ReplicateExec;

static void
replicate_push(HsExec *self, TupleTableSlot *row, int sign)
{
	ReplicateExec *r = (ReplicateExec *) self;
	TupleTableSlot *out = r->exec.out;
	int64		count;

	slot_getallattrs(row);
	if (row->tts_isnull[r->ncols])
		return;
	count = DatumGetInt64(row->tts_values[r->ncols]);
	ExecClearTuple(out);
	memcpy(out->tts_values, row->tts_values, sizeof(Datum) * r->ncols);
	memcpy(out->tts_isnull, row->tts_isnull, sizeof(bool) * r->ncols);
	ExecStoreVirtualTuple(out);
	for (int64 i = 0; i < count; i++)
		HsExecEmit(&r->exec, out, sign);
}

static void
replicate_flush(HsExec *self)
{
	HsExecFlush(self->downstream);
}

static const HsExecMethods replicate_methods = {
	.name = "Replicate",
	.push = replicate_push,
	.flush = replicate_flush,
	.out_ops = &TTSOpsVirtual,
};

HsExec *
HsExecReplicateCreate(TupleDesc in_desc)
{
	int			ncols = in_desc->natts - 1;
	TupleDesc	out = CreateTemplateTupleDesc(ncols);
	ReplicateExec *r;

	for (int i = 0; i < ncols; i++)
		TupleDescCopyEntry(out, i + 1, in_desc, i + 1);
	r = HsExecCreate(sizeof(ReplicateExec), &replicate_methods, out);
	r->ncols = ncols;
	return &r->exec;
}
