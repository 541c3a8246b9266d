/*-------------------------------------------------------------------------
 *
 * hummock_functions.c
 *	  SQL functions that drive the hummock store for operators: compact().
 *
 * (The functions that write and read tables of the store by number,
 * test_write, test_scan, test_get and test_iter_log, are the test
 * module's: test/modules/hummock_stream_test.)
 *
 * src/meta/hummock_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "hummock_stream/meta/compactor.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/change_log.h"
#include "hummock_stream/storage/compaction.h"
#include "hummock_stream/storage/memtable.h"
#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/storage/version_read.h"

PG_FUNCTION_INFO_V1(hummock_stream_compact);

/*
 * hummock_stream.compact(l0_only bool default false) returns record: run
 * one compaction task if one is due (or, with force, of all of L0) and
 * commit it; reports what it did.
 */
Datum
hummock_stream_compact(PG_FUNCTION_ARGS)
{
	bool		force = PG_GETARG_BOOL(0);
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {0};
	int			in,
				out,
				n;
	uint64		vid;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (!HsCompactOnce(force, true, &in, &out, &n, &vid))
	{
		values[0] = BoolGetDatum(false);
		nulls[1] = nulls[2] = nulls[3] = nulls[4] = true;
	}
	else
	{
		values[0] = BoolGetDatum(true);
		values[1] = Int32GetDatum(in);
		values[2] = Int32GetDatum(out);
		values[3] = Int32GetDatum(n);
		values[4] = Int64GetDatum((int64) vid);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
