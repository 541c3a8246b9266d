/*-------------------------------------------------------------------------
 *
 * exec_materialize.c
 *	  Streaming materialize: the view's rows in its hummock table.
 *
 * Each row of the view is stored under a key derived from the row's unique
 * key: the memcmp encoding of the key columns (the group key of an
 * aggregation, the source tables' primary keys for filters, projections
 * and joins that keep them, or all columns of a DISTINCT).  The stored value is a
 * stored row of the view's row type (stored_row.c), the format the table AM
 * reads.
 *
 * A view without a unique key is a multiset: it is planned as a count(*)
 * per distinct row, and copy i (0-based) of a row that occurs n times is
 * stored under memcmp(row) | BE64(i).  A change of n to n' deletes copies
 * n'..n-1 or inserts copies n..n'-1 (the delete of the old count and the
 * insert of the new one arrive as a pair and cancel in the memtable where
 * they overlap).
 *
 * The view's memtables keep old values, so its change log records every
 * change with its old row (Delete and Update).
 *
 * src/stream/executor/exec_materialize.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/tuptable.h"
#include "port/pg_bswap.h"
#include "utils/memutils.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/stream/executor.h"

typedef struct MaterializeExec
{
	HsExec		exec;
	TupleDesc	in_desc;
	TupleDesc	view_desc;
	int			nview;
	int		   *key_cols;
	int			nkey;
	bool		has_count;
	FmgrInfo   *identity;		/* with has_count: the send functions of the
								 * view columns whose key encoding folds
								 * values (HsMemcmpIdentitySends), or NULL */
	HsStateTable *view;
} MaterializeExec;

static void
materialize_push(HsExec *self, TupleTableSlot *row, int sign)
{
	MaterializeExec *m = (MaterializeExec *) self;
	MemoryContext old;
	StringInfoData key;
	MinimalTuple mt;

	MemoryContextReset(m->exec.row_cxt);
	old = MemoryContextSwitchTo(m->exec.row_cxt);
	slot_getallattrs(row);
	initStringInfo(&key);
	for (int i = 0; i < m->nkey; i++)
	{
		int			c = m->key_cols[i];

		HsMemcmpEncode(&key, row->tts_values[c], row->tts_isnull[c],
					   TupleDescAttr(m->in_desc, c)->atttypid, false);
	}
	if (m->has_count)
	{
		for (int c = 0; c < m->nview; c++)
			HsMemcmpEncode(&key, row->tts_values[c], row->tts_isnull[c],
						   TupleDescAttr(m->in_desc, c)->atttypid, false);
		for (int c = 0; m->identity && c < m->nview; c++)
			HsMemcmpAppendIdentity(&key, row->tts_values[c], row->tts_isnull[c],
								   &m->identity[c]);
	}
	mt = HsStoredRowForm(m->view_desc, row->tts_values, row->tts_isnull);

	if (!m->has_count)
	{
		if (sign > 0)
			HsStateTablePut(m->view, key.data, key.len, NULL, 0, (char *) mt, mt->t_len);
		else
			HsStateTableDelete(m->view, key.data, key.len, (char *) mt, mt->t_len);
	}
	else
	{
		int64		n = DatumGetInt64(row->tts_values[m->nview]);
		int			base = key.len;

		for (int64 i = 0; i < n; i++)
		{
			uint64		be = pg_hton64((uint64) i);

			key.len = base;
			appendBinaryStringInfo(&key, (char *) &be, 8);
			if (sign > 0)
				HsStateTablePut(m->view, key.data, key.len, NULL, 0, (char *) mt, mt->t_len);
			else
				HsStateTableDelete(m->view, key.data, key.len, (char *) mt, mt->t_len);
		}
	}
	MemoryContextSwitchTo(old);
}

static void
materialize_flush(HsExec *self)
{
}

static const HsExecMethods materialize_methods = {
	.name = "Materialize",
	.push = materialize_push,
	.flush = materialize_flush,
	.row_context = "hummock_stream materialize row",
};

HsExec *
HsExecMaterializeCreate(TupleDesc in_desc, TupleDesc view_desc,
						const int *key_cols, int nkey, bool has_count,
						HsStateTable *view)
{
	MaterializeExec *m = HsExecCreate(sizeof(MaterializeExec), &materialize_methods,
									  view_desc);

	m->in_desc = in_desc;
	m->view_desc = view_desc;
	m->nview = view_desc->natts;
	m->key_cols = palloc(sizeof(int) * Max(nkey, 1));
	memcpy(m->key_cols, key_cols, sizeof(int) * nkey);
	m->nkey = nkey;
	m->has_count = has_count;
	if (has_count)
		m->identity = HsMemcmpIdentitySends(in_desc, m->nview);
	m->view = view;
	return &m->exec;
}
