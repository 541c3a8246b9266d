/*-------------------------------------------------------------------------
 *
 * test_bloom.c
 *	  Unit tests of bloom.c: no false negatives, false positive rate,
 *	  validation of filter blocks.
 *
 * test/unit/test_bloom.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "hummock_stream/storage/bloom.h"

static HsSlice
key_of(uint8_t *buf, uint32_t table, uint64_t i)
{
	HsPutBE32(buf, table);
	HsPutBE64(buf + 4, i * 7919);
	memcpy(buf + 12, "userkey!", 8);
	return HsSliceMake(buf, 20);
}

static void
check_rate(uint32_t bits_per_key, size_t n, double max_fp)
{
	HsEnv	   *env = HsEnvPosix();
	HsBloomBuilder b;
	HsBloomFilter f;
	HsBuf		out;
	HsStatus	st;
	uint8_t		k[20];
	size_t		fp = 0;
	size_t		probes = 20000;

	HsBloomBuilderInit(&b, env, bits_per_key);
	HsBufInit(&out, env);
	for (size_t i = 0; i < n; i++)
		HsBloomBuilderAddHash(&b, HsBloomHash(key_of(k, 1, i)));
	HsBloomBuilderFinish(&b, &out);
	assert_status_ok(HsBloomFilterParse(&f, HsBufSlice(&out), "f", 0, &st), &st);
	assert_int_equal(f.num_probes, HsBloomProbesForBitsPerKey(bits_per_key));
	for (size_t i = 0; i < n; i++)
		assert_true(HsBloomFilterMayContain(&f, key_of(k, 1, i)));
	for (size_t i = 0; i < probes; i++)
		fp += HsBloomFilterMayContain(&f, key_of(k, 2, i));
	if ((double) fp / probes > max_fp)
		fail_msg("bits/key %u, %zu keys: false positive rate %.4f",
				 bits_per_key, n, (double) fp / probes);
	HsBloomBuilderDestroy(&b);
	HsBufFree(&out);
}

static void
test_bloom_rates(void **state)
{
	check_rate(10, 1, 0.02);
	check_rate(10, 100, 0.03);
	check_rate(10, 10000, 0.02);
	check_rate(10, 200000, 0.02);
	check_rate(20, 100000, 0.001);
	check_rate(5, 100000, 0.15);
	check_rate(1, 1000, 0.8);
}

static void
test_bloom_parse_errors(void **state)
{
	HsBloomFilter f;
	HsStatus	st;
	uint8_t		buf[64 * 2 + 2];

	memset(buf, 0, sizeof(buf));
	buf[128] = 6;
	buf[129] = HS_BLOOM_KIND_BLOCKED;
	assert_true(HsBloomFilterParse(&f, HsSliceMake(buf, sizeof(buf)), "f", 0, &st));
	assert_int_equal(f.num_lines, 2);

	/* not a whole number of lines */
	assert_false(HsBloomFilterParse(&f, HsSliceMake(buf + 1, sizeof(buf) - 1), "f", 0, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	/* too short */
	assert_false(HsBloomFilterParse(&f, HsSliceMake(buf, 2), "f", 0, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	/* bad kind */
	buf[129] = 9;
	assert_false(HsBloomFilterParse(&f, HsSliceMake(buf, sizeof(buf)), "f", 0, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	buf[129] = HS_BLOOM_KIND_BLOCKED;
	/* bad probe counts */
	buf[128] = 0;
	assert_false(HsBloomFilterParse(&f, HsSliceMake(buf, sizeof(buf)), "f", 0, &st));
	buf[128] = 31;
	assert_false(HsBloomFilterParse(&f, HsSliceMake(buf, sizeof(buf)), "f", 0, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_true(strlen(st.detail) > 0);
}

static const struct CMUnitTest bloom_tests[] = {
	cmocka_unit_test(test_bloom_rates),
	cmocka_unit_test(test_bloom_parse_errors),
};

UNIT_SUITE(bloom)
{
	*tests = bloom_tests;
	return sizeof(bloom_tests) / sizeof(bloom_tests[0]);
}
