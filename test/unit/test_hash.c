/*-------------------------------------------------------------------------
 *
 * test_hash.c
 *	  Unit tests of hash.c: pinned values (the hash is persisted in bloom
 *	  filters), avalanche and spread.
 *
 * test/unit/test_hash.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "hummock_stream/storage/hash.h"

/*
 * Pinned outputs.  If this test fails, HsHash64 changed, and every bloom
 * filter written so far would answer wrongly: do not "fix" the numbers.
 */
static void
test_hash_pinned(void **state)
{
	static const char *const inputs[] = {
		"", "a", "abc", "abcd", "hummock!", "0123456789abcdef",
		"0123456789abcdef0", "the quick brown fox jumps over the lazy dog",
		"a string longer than forty-eight bytes, to cover the wide loop path"
	};
	static const uint64_t expected[] = {
		UINT64_C(0x179236129856660f), UINT64_C(0x991ca4902d701dba),
		UINT64_C(0x8d5a1053cd02c87f), UINT64_C(0x692ebff66d517386),
		UINT64_C(0x54de299210b7f11b), UINT64_C(0x3945e63a882ff673),
		UINT64_C(0xbb27b320350b9ccf), UINT64_C(0x4cdd33cf618154b5),
		UINT64_C(0x2a0d7535fbb00f23)
	};

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
	{
		uint64_t	h = HsHash64(inputs[i], strlen(inputs[i]), 0);

		if (h != expected[i])
			fail_msg("input %zu: got 0x%016llx", i, (unsigned long long) h);
	}
	assert_true(HsHash64("abc", 3, 1) != HsHash64("abc", 3, 0));
}

/* Flipping any input bit flips about half of the output bits. */
static void
test_hash_avalanche(void **state)
{
	uint64_t	rs = 99;
	uint8_t		buf[80];
	double		total = 0;
	int			trials = 0;
	int			lens[] = {1, 3, 4, 7, 8, 12, 16, 20, 24, 33, 48, 49, 80};

	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
	{
		int			len = lens[li];

		for (int round = 0; round < 40; round++)
		{
			uint64_t	h0;

			for (int i = 0; i < len; i++)
				buf[i] = (uint8_t) unit_rand(&rs);
			h0 = HsHash64(buf, len, 12345);
			for (int bit = 0; bit < len * 8; bit++)
			{
				uint64_t	h1;
				int			flips;

				buf[bit / 8] ^= (uint8_t) (1 << (bit % 8));
				h1 = HsHash64(buf, len, 12345);
				buf[bit / 8] ^= (uint8_t) (1 << (bit % 8));
				flips = __builtin_popcountll(h0 ^ h1);
				assert_true(flips > 4);
				total += flips;
				trials++;
			}
		}
	}
	total /= trials;
	assert_true(total > 31.0 && total < 33.0);
}

/* Sequential keys spread evenly over buckets and never collide. */
static void
test_hash_spread(void **state)
{
	enum
	{
		N = 200000, BUCKETS = 1024
	};
	static uint32_t counts[BUCKETS];
	uint64_t   *hs = malloc(N * sizeof(uint64_t));

	memset(counts, 0, sizeof(counts));
	for (uint32_t i = 0; i < N; i++)
	{
		uint8_t		key[20];

		memset(key, 0, sizeof(key));
		key[16] = (uint8_t) (i >> 24);
		key[17] = (uint8_t) (i >> 16);
		key[18] = (uint8_t) (i >> 8);
		key[19] = (uint8_t) i;
		hs[i] = HsHash64(key, sizeof(key), 0);
		counts[hs[i] >> 54]++;
	}
	for (int b = 0; b < BUCKETS; b++)
		assert_true(counts[b] > N / BUCKETS / 2 && counts[b] < N / BUCKETS * 2);
	for (uint32_t i = 1; i < N; i++)
		assert_true(hs[i] != hs[i - 1]);
	free(hs);
}

static const struct CMUnitTest hash_tests[] = {
	cmocka_unit_test(test_hash_pinned),
	cmocka_unit_test(test_hash_avalanche),
	cmocka_unit_test(test_hash_spread),
};

UNIT_SUITE(hash)
{
	*tests = hash_tests;
	return sizeof(hash_tests) / sizeof(hash_tests[0]);
}
