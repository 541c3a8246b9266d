/*-------------------------------------------------------------------------
 *
 * sst_functions.c
 *	  SQL functions over single SST files: describe a file's layout.
 *
 * It takes a path, so it is for superusers only (like pg_read_file):
 * EXECUTE is revoked from PUBLIC and the function checks superuser too.
 * A relative path is relative to the data directory.  (sst_build_test,
 * which writes a deterministic file, is the test module's:
 * test/modules/hummock_stream_test.)
 *
 * src/entry/sst_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "hummock_stream/entry/guc.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/sst_builder.h"
#include "hummock_stream/storage/sst_describe.h"

PG_FUNCTION_INFO_V1(hummock_stream_sst_describe);

static void
require_superuser(const char *fn)
{
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function %s", fn),
				 errdetail("Only superusers may read or write SST files by path.")));
}

/*
 * hummock_stream.sst_describe(path text) returns setof text: the layout of
 * an SST file, block by block, one line per row.
 */
Datum
hummock_stream_sst_describe(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));
	HsStatus	st;
	HsBuf		buf;
	char	   *p,
			   *end;

	require_superuser("sst_describe");
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	HsBufInit(&buf, HsEnvPgTransient());
	HS_CHECK(HsSstDescribe(HsEnvPgTransient(), path, &buf, &st), &st);

	p = (char *) buf.data;
	end = p + buf.len;
	while (p < end)
	{
		char	   *nl = memchr(p, '\n', end - p);
		size_t		len = nl ? (size_t) (nl - p) : (size_t) (end - p);
		Datum		value = PointerGetDatum(cstring_to_text_with_len(p, len));
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
		p += len + 1;
	}
	HsBufFree(&buf);
	return (Datum) 0;
}
