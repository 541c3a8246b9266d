/*-------------------------------------------------------------------------
 *
 * stored_row.h
 *	  Rows as hummock tables store them: forming, reading and counting the
 *	  MinimalTuples kept in views and in the executors' state tables.
 *
 * The formats are documented in src/row/stored_row.c.  In short: a stored
 * row is a MinimalTuple's bytes; a counted row is an int64 count of
 * copies followed by a stored row.  A row without a unique key is
 * identified by its canonical bytes (HsCanonicalTuple, memcmp_key.h).
 *
 * include/hummock_stream/row/stored_row.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_ROW_STORED_ROW_H
#define HS_ROW_STORED_ROW_H

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "lib/stringinfo.h"

/* Bytes before the stored row in a counted row: the int64 count. */
#define HS_COUNTED_ROW_HEADER ((int) sizeof(int64))

/* values/isnull (desc->natts of each) as a stored row of desc, palloc'd. */
static inline MinimalTuple
HsStoredRowForm(TupleDesc desc, Datum *values, bool *isnull)
{
	return heap_form_minimal_tuple(desc, values, isnull);
}

/* The same, into buf (reset first). */
extern void HsStoredRowFormInto(StringInfo buf, TupleDesc desc, Datum *values,
								bool *isnull);

/*
 * Read the stored row at data (MAXALIGNed, as a StringInfo's or palloc's
 * buffer is) into values/isnull (desc->natts of each) in place: the
 * values of pass-by-reference columns point into data, which must outlive
 * them.
 */
extern void HsStoredRowDeform(TupleDesc desc, const char *data, Datum *values,
							  bool *isnull);

/* A palloc'd (so aligned) copy of the stored row data[0..len-1]. */
extern MinimalTuple HsStoredRowCopy(const char *data, int len);

/*
 * Copy the stored row data[0..len-1] (at any alignment, such as a value a
 * state-table scan hands out) and read the copy into values/isnull; returns
 * the copy, which the values point into.
 */
extern MinimalTuple HsStoredRowCopyDeform(TupleDesc desc, const char *data, int len,
										  Datum *values, bool *isnull);

/* The count of a counted row (at any alignment). */
static inline int64
HsCountedRowCount(const char *value)
{
	int64		count;

	memcpy(&count, value, sizeof(int64));
	return count;
}

/* The stored row of a counted row of vlen bytes, and its length. */
static inline const char *
HsCountedRowTuple(const char *value)
{
	return value + HS_COUNTED_ROW_HEADER;
}

static inline int
HsCountedRowTupleLen(int vlen)
{
	return vlen - HS_COUNTED_ROW_HEADER;
}

/* count copies of stored row mt as a counted row (palloc'd, *len bytes). */
extern char *HsCountedRowForm(int64 count, MinimalTuple mt, int *len);

#endif							/* HS_ROW_STORED_ROW_H */
