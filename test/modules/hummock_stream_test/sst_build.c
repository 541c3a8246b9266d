/*-------------------------------------------------------------------------
 *
 * sst_build.c
 *	  sst_build_test(): a deterministic SST file, for the golden tests of
 *	  the format (sst_describe, which reads one, is hummock_stream's).
 *
 * It takes a path, so it is for superusers only (like pg_read_file):
 * EXECUTE is revoked from PUBLIC and the function checks superuser too.
 * A relative path is relative to the data directory.
 *
 * test/modules/hummock_stream_test/sst_build.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/sst_builder.h"

PG_FUNCTION_INFO_V1(hummock_stream_test_sst_build);

/*
 * hummock_stream_test.sst_build_test(path text, entries int, table_id int,
 *		versions int) returns bigint: build an SST with the current
 * hummock_stream.sst_* settings holding user keys 'key000000' ... and, for
 * each, `versions` versions at epochs 1..versions (every 7th newest version
 * a tombstone), values 'value-<key>-<epoch>'.  Returns the file size.
 */
Datum
hummock_stream_test_sst_build(PG_FUNCTION_ARGS)
{
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		entries = PG_GETARG_INT32(1);
	int32		table_id = PG_GETARG_INT32(2);
	int32		versions = PG_GETARG_INT32(3);
	HsEnv	   *env = HsEnvPgTransient();
	HsSstBuilderOptions opts;
	HsSstBuilder *b;
	HsSstMeta	meta;
	HsStatus	st;
	uint64		size;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function %s", "sst_build_test"),
				 errdetail("Only superusers may read or write SST files by path.")));
	if (entries < 0 || versions < 1 || table_id < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("entries and table_id must not be negative and versions must be positive")));

	HsSstBuilderOptionsInit(&opts);
	opts.block_size = (uint32) hs_sst_block_size_kb * 1024;
	opts.compression = (HsCompression) hs_sst_compression;
	opts.zstd_level = hs_sst_zstd_level;
	opts.bloom_bits_per_key = (uint32) hs_sst_bloom_bits_per_key;

	b = HsSstBuilderCreate(env, path, &opts, &st);
	if (b == NULL)
		HsStatusReport(ERROR, &st);
	for (int i = 0; i < entries; i++)
	{
		char		ukey[32];
		int			ulen = snprintf(ukey, sizeof(ukey), "key%06d", i);

		for (int v = versions; v >= 1; v--)
		{
			uint8_t		fk[64];
			size_t		fklen = HsFullKeyEncode(fk, (HsTableId) table_id,
												ukey, ulen, (HsEpoch) v);
			char		val[64];
			int			vlen;
			bool		tombstone = (v == versions && versions > 1 && i % 7 == 0);

			if (tombstone)
			{
				val[0] = HS_VALUE_DELETE;
				vlen = 1;
			}
			else
			{
				val[0] = HS_VALUE_PUT;
				vlen = 1 + snprintf(val + 1, sizeof(val) - 1, "value-%s-%d", ukey, v);
			}
			if (!HsSstBuilderAdd(b, HsSliceMake(fk, fklen), HsSliceMake(val, vlen), &st))
			{
				HsSstBuilderAbandon(b);
				HsStatusReport(ERROR, &st);
			}
		}
	}
	if (!HsSstBuilderFinish(b, &meta, &st))
		HsStatusReport(ERROR, &st);
	size = meta.file_size;
	HsSstMetaFree(env, &meta);
	PG_RETURN_INT64((int64) size);
}
