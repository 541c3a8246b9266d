/*-------------------------------------------------------------------------
 *
 * test_compress.c
 *	  Unit tests of compress.c: round trips and strict size checks.
 *
 * test/unit/test_compress.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "hummock_stream/storage/compress.h"

static const HsCompression kinds[] = {
	HS_COMPRESSION_NONE, HS_COMPRESSION_LZ4, HS_COMPRESSION_ZSTD
};

/* Half text-like, half random bytes. */
static void
fill(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t	rs = seed;

	for (size_t i = 0; i < n; i++)
		p[i] = (i / 64) % 2 ? (uint8_t) unit_rand(&rs) :
			(uint8_t) ("hummock stream "[i % 15]);
}

static void
test_compress_round_trip(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	size_t		sizes[] = {0, 1, 15, 100, 4096, 65536, 300000};
	HsBuf		out;
	HsDecompressor d;
	HsStatus	st;

	HsBufInit(&out, env);
	HsDecompressorInit(&d, env);
	for (size_t k = 0; k < 3; k++)
	{
		HsCompressor c;

		assert_status_ok(HsCompressorInit(&c, env, kinds[k], 0, &st), &st);
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		{
			size_t		n = sizes[s];
			uint8_t    *raw = malloc(n + 1);
			uint8_t    *back = malloc(n + 1);

			fill(raw, n, n);
			assert_status_ok(HsCompress(&c, HsSliceMake(raw, n), &out, &st), &st);
			if (kinds[k] == HS_COMPRESSION_NONE)
				assert_int_equal(out.len, n);
			if (kinds[k] != HS_COMPRESSION_NONE && n >= 4096)
				assert_true(out.len < n);
			assert_true(HsDecompressSizePlausible(kinds[k], HsBufSlice(&out), n));
			assert_status_ok(HsDecompress(&d, kinds[k], HsBufSlice(&out), back,
										  n, "x", 0, &st), &st);
			assert_memory_equal(raw, back, n);

			/* claiming a different size is corruption */
			if (n > 0)
			{
				bool		ok = HsDecompress(&d, kinds[k], HsBufSlice(&out),
											  back, n - 1, "x", 7, &st);

				assert_false(ok);
				assert_int_equal(st.code, HS_CORRUPTION);
			}
			free(raw);
			free(back);
		}
		HsCompressorDestroy(&c);
	}
	HsDecompressorDestroy(&d);
	HsBufFree(&out);
}

static void
test_decompress_garbage(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsDecompressor d;
	HsCompressor c;
	HsStatus	st;
	HsBuf		out;
	uint8_t		raw[5000];
	uint8_t		back[5000];
	uint64_t	rs = 5;

	HsBufInit(&out, env);
	HsDecompressorInit(&d, env);
	fill(raw, sizeof(raw), 1);
	for (size_t k = 1; k < 3; k++)
	{
		assert_status_ok(HsCompressorInit(&c, env, kinds[k], 0, &st), &st);
		assert_status_ok(HsCompress(&c, HsSliceMake(raw, sizeof(raw)), &out, &st), &st);
		/* truncations and random damage: never a crash, never success with wrong bytes */
		for (int round = 0; round < 300; round++)
		{
			HsBuf		bad;
			bool		ok;

			HsBufInit(&bad, env);
			HsBufAssign(&bad, out.data, out.len);
			if (round % 2)
				bad.len = unit_rand(&rs) % out.len;
			else
				bad.data[unit_rand(&rs) % bad.len] ^= (uint8_t) (1 + unit_rand(&rs) % 255);
			ok = HsDecompress(&d, kinds[k], HsBufSlice(&bad), back, sizeof(raw),
							  "x", 0, &st);
			if (!ok)
				assert_int_equal(st.code, HS_CORRUPTION);
			HsBufFree(&bad);
		}
		HsCompressorDestroy(&c);
	}
	/* unknown kind */
	assert_false(HsDecompress(&d, (HsCompression) 9, HsSliceMake(raw, 10), back,
							  10, "x", 0, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	HsDecompressorDestroy(&d);
	HsBufFree(&out);
}

static void
test_compressor_options(void **state)
{
	HsCompressor c;
	HsStatus	st;

	assert_false(HsCompressorInit(&c, HsEnvPosix(), HS_COMPRESSION_ZSTD, 1000, &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	assert_false(HsCompressorInit(&c, HsEnvPosix(), (HsCompression) 3, 0, &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	assert_true(HsCompressorInit(&c, HsEnvPosix(), HS_COMPRESSION_ZSTD, 19, &st));
	HsCompressorDestroy(&c);
	assert_string_equal(HsCompressionName(HS_COMPRESSION_LZ4), "lz4");
	assert_string_equal(HsCompressionName(7), "unknown");
}

static const struct CMUnitTest compress_tests[] = {
	cmocka_unit_test(test_compress_round_trip),
	cmocka_unit_test(test_decompress_garbage),
	cmocka_unit_test(test_compressor_options),
};

UNIT_SUITE(compress)
{
	*tests = compress_tests;
	return sizeof(compress_tests) / sizeof(compress_tests[0]);
}
