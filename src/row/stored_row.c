/*-------------------------------------------------------------------------
 *
 * stored_row.c
 *	  Rows as hummock tables store them (see stored_row.h).
 *
 * Every value of a view's table and of the executors' state tables is a
 * row in one of two formats (persisted: views and state tables written by
 * one build are read by the next, so neither may change):
 *
 *	stored row	the bytes of a MinimalTuple of the table's row descriptor,
 *				as heap_form_minimal_tuple makes it: t_len (uint32, the
 *				length of it all) first, then the tuple header and data.
 *	counted row	an int64 count of copies in the machine's byte order, then
 *				a stored row.  The 8-byte count keeps the tuple MAXALIGNed
 *				in a MAXALIGNed buffer.
 *
 * Who stores what (the keys are memcmp encodings, memcmp_key.h):
 *
 *	view table	stored rows of the view's row type, under memcmp(unique
 *				key), or for a multiset under memcmp(row) | BE64(copy
 *				number) (exec_materialize.c); this is what the table AM
 *				reads
 *	HashJoin	counted rows of each side's row type, under memcmp(join key)
 *				| identity (exec_hash_join.c)
 *	TopN		rows: counted rows of the input under memcmp(group) |
 *				memcmp(sort key) | identity; shown: stored rows of the
 *				output under a rows key | BE64(copy number) (exec_top_n.c)
 *	HashAgg		a stored row of the state descriptor per group
 *				(agg_accumulators.c), and stored rows of (value, count) per
 *				group, call and value (agg_ordered_state.c)
 *
 * The identity of a row of an input without a unique key is its canonical
 * bytes: the stored row formed from the values with every varlena
 * detoasted (HsCanonicalTuple, memcmp_key.h), so that a delete finds the
 * row its insert stored whatever the storage of its values.
 *
 * Reading in place: a MinimalTuple is read where it lies only if it is
 * MAXALIGNed.  State-table gets return values in a palloc'd StringInfo,
 * which is; the values a prefix scan hands out lie in blocks and
 * memtables at any alignment and are copied first (HsStoredRowCopyDeform).
 * The SST builder aligns row payloads so that the table AM can hand view
 * rows to the executor in place (docs/ARCHITECTURE.md, Decisions).
 *
 * src/row/stored_row.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"

#include "hummock_stream/row/stored_row.h"

void
HsStoredRowFormInto(StringInfo buf, TupleDesc desc, Datum *values, bool *isnull)
{
	MinimalTuple mt = heap_form_minimal_tuple(desc, values, isnull);

	resetStringInfo(buf);
	appendBinaryStringInfo(buf, (char *) mt, mt->t_len);
	pfree(mt);
}

void
HsStoredRowDeform(TupleDesc desc, const char *data, Datum *values, bool *isnull)
{
	HeapTupleData tup;
	MinimalTuple mt = (MinimalTuple) data;

	Assert(data == (const char *) MAXALIGN(data));
	tup.t_len = mt->t_len + MINIMAL_TUPLE_OFFSET;
	tup.t_data = (HeapTupleHeader) ((char *) mt - MINIMAL_TUPLE_OFFSET);
	ItemPointerSetInvalid(&tup.t_self);
	tup.t_tableOid = InvalidOid;
	heap_deform_tuple(&tup, desc, values, isnull);
}

MinimalTuple
HsStoredRowCopy(const char *data, int len)
{
	MinimalTuple mt = palloc(len);

	memcpy(mt, data, len);
	return mt;
}

MinimalTuple
HsStoredRowCopyDeform(TupleDesc desc, const char *data, int len, Datum *values,
					  bool *isnull)
{
	MinimalTuple mt = HsStoredRowCopy(data, len);

	HsStoredRowDeform(desc, (const char *) mt, values, isnull);
	return mt;
}

char *
HsCountedRowForm(int64 count, MinimalTuple mt, int *len)
{
	char	   *val;

	*len = HS_COUNTED_ROW_HEADER + mt->t_len;
	val = palloc(*len);
	memcpy(val, &count, sizeof(int64));
	memcpy(val + HS_COUNTED_ROW_HEADER, mt, mt->t_len);
	return val;
}
