/*-------------------------------------------------------------------------
 *
 * test_sst_describe.c
 *	  Unit tests of sst_describe.c: content and determinism of the dump.
 *
 * test/unit/test_sst_describe.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "sst_test_util.h"
#include "hummock_stream/storage/sst_describe.h"

static void
build_fixed(const char *path, HsCompression kind)
{
	HsEnv	   *env = HsEnvPosix();
	HsSstBuilderOptions opts;
	HsSstBuilder *b;
	HsSstMeta		meta;
	HsStatus	st;

	HsSstBuilderOptionsInit(&opts);
	opts.block_size = 300;
	opts.compression = kind;
	b = HsSstBuilderCreate(env, path, &opts, &st);
	assert_status_ok(b != NULL, &st);
	for (int i = 0; i < 30; i++)
	{
		uint8_t		k[64];
		char		uk[16];
		size_t		n;

		snprintf(uk, sizeof(uk), "row%03d", i);
		n = HsFullKeyEncode(k, 42, uk, strlen(uk), 100 + i % 3);
		assert_true(HsSstBuilderAdd(b, HsSliceMake(k, n),
								  i % 7 == 6 ? HsSliceMake("\1", 1) :
								  HsSliceMake("\0payload payload payload", 24),
								  &st));
	}
	assert_status_ok(HsSstBuilderFinish(b, &meta, &st), &st);
	HsSstMetaFree(env, &meta);
}

static void
test_describe_content(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	char		path[512];
	HsBuf		out;
	HsStatus	st;
	const char *text;

	unit_path(path, sizeof(path), "describe.sst");
	build_fixed(path, HS_COMPRESSION_NONE);
	HsBufInit(&out, env);
	assert_status_ok(HsSstDescribe(env, path, &out, &st), &st);
	text = (const char *) out.data;
	assert_int_equal(strlen(text), out.len);
	assert_non_null(strstr(text, "sst: file size "));
	assert_non_null(strstr(text, "format version 1"));
	assert_non_null(strstr(text, "data block 0: offset 0, stored "));
	assert_non_null(strstr(text, "compression none"));
	assert_non_null(strstr(text, "first key: t42 726f77303030 @100\n"));
	assert_non_null(strstr(text, "largest key:  t42 726f77303239 @102\n"));
	assert_non_null(strstr(text, "entries 30, tombstones 4, distinct keys 30\n"));
	assert_non_null(strstr(text, "table 42: entries 30, tombstones 4"));
	assert_non_null(strstr(text, "filter block: offset "));
	assert_non_null(strstr(text, "probes 6, keys 30"));
	assert_non_null(strstr(text, "index block: offset "));
	assert_non_null(strstr(text, "footer: offset "));
	assert_non_null(strstr(text, "magic 0x68756d6d6f636b53"));
	assert_null(strstr(text, path));	/* no paths: golden-test safe */
	assert_int_equal(text[out.len - 1], '\n');
	HsBufFree(&out);
}

static void
test_describe_deterministic(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsCompression kinds[] = {HS_COMPRESSION_NONE, HS_COMPRESSION_LZ4,
	HS_COMPRESSION_ZSTD};

	for (int k = 0; k < 3; k++)
	{
		char		p1[512],
					p2[512];
		HsBuf		o1,
					o2;
		HsStatus	st;

		unit_path(p1, sizeof(p1), "det1.sst");
		unit_path(p2, sizeof(p2), "det2.sst");
		build_fixed(p1, kinds[k]);
		build_fixed(p2, kinds[k]);
		HsBufInit(&o1, env);
		HsBufInit(&o2, env);
		assert_status_ok(HsSstDescribe(env, p1, &o1, &st), &st);
		assert_status_ok(HsSstDescribe(env, p2, &o2, &st), &st);
		assert_int_equal(o1.len, o2.len);
		assert_memory_equal(o1.data, o2.data, o1.len);
		if (k > 0)
			assert_non_null(strstr((char *) o1.data,
								   k == 1 ? "compression lz4" : "compression zstd"));
		HsBufFree(&o1);
		HsBufFree(&o2);
	}
}

static void
test_describe_key(void **state)
{
	HsBuf		out;
	uint8_t		k[64];
	size_t		n;

	HsBufInit(&out, HsEnvPosix());
	n = HsFullKeyEncode(k, 7, "", 0, 5);
	HsSstDescribeKey(&out, HsSliceMake(k, n));
	assert_string_equal((char *) out.data, "t7 (empty) @5");
	HsBufReset(&out);
	n = HsFullKeyEncode(k, 1, "0123456789abcdef0123456789abcdefXYZ", 35, HS_EPOCH_MAX);
	HsSstDescribeKey(&out, HsSliceMake(k, n));
	assert_string_equal((char *) out.data,
						"t1 3031323334353637383961626364656630313233343536373839616263646566... @18446744073709551615");
	HsBufReset(&out);
	HsSstDescribeKey(&out, HsSliceMake(k, 3));
	assert_string_equal((char *) out.data, "(invalid key of 3 bytes)");
	HsBufFree(&out);
}

static const struct CMUnitTest sst_describe_tests[] = {
	cmocka_unit_test(test_describe_content),
	cmocka_unit_test(test_describe_deterministic),
	cmocka_unit_test(test_describe_key),
};

UNIT_SUITE(sst_describe)
{
	*tests = sst_describe_tests;
	return sizeof(sst_describe_tests) / sizeof(sst_describe_tests[0]);
}
