/*-------------------------------------------------------------------------
 *
 * test_block.c
 *	  Unit tests of block_builder.c and block.c: round trips for every
 *	  restart interval, seek semantics, and malformed blocks.
 *
 * test/unit/test_block.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "sst_test_util.h"
#include "hummock_stream/storage/block.h"
#include "hummock_stream/storage/block_builder.h"

static HsSlice
build_block(HsBlockBuilder *bb, const TestData *d, size_t from, size_t to)
{
	HsBlockBuilderReset(bb);
	for (size_t i = from; i < to; i++)
		HsBlockBuilderAdd(bb, test_key(&d->e[i]), test_value(&d->e[i]));
	return HsBlockBuilderFinish(bb);
}

/* Check the iterator is at entry i of d (or invalid if i == to). */
static void
expect_at(HsBlockIter *bi, const TestData *d, size_t i, size_t to)
{
	if (i >= to)
	{
		assert_false(HsBlockIterValid(bi));
		return;
	}
	assert_true(HsBlockIterValid(bi));
	assert_int_equal(HsBlockIterKey(bi).len, d->e[i].key_len);
	assert_memory_equal(HsBlockIterKey(bi).data, d->e[i].key, d->e[i].key_len);
	assert_int_equal(HsBlockIterValue(bi).len, d->e[i].value_len);
	assert_memory_equal(HsBlockIterValue(bi).data, d->e[i].value, d->e[i].value_len);
}

static void
test_block_round_trip(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TestDataSpec spec = {600, 4, 3, 20, 40, 20};
	TestData	d = test_data_make(&spec, 1);
	TestDataSpec tspec = {300, 2, 4, 22, 0, 0};
	TestData	targets = test_data_make(&tspec, 2);
	uint32_t	intervals[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 64, 1000};
	HsStatus	st;

	HsStatusClear(&st);
	for (size_t run = 0; run < 2 * sizeof(intervals) / sizeof(intervals[0]); run++)
	{
		size_t		ii = run / 2;
		bool		align = run % 2 == 1;
		HsBlockBuilder bb;
		HsBlockIter	bi;
		Block		blk;
		HsSlice		contents;
		size_t		i;

		HsBlockBuilderInit(&bb, env, intervals[ii]);
		HsBlockBuilderAlignPayloads(&bb, align);
		contents = build_block(&bb, &d, 0, d.n);
		assert_status_ok(HsBlockParse(&blk, contents, "b", 0, &st), &st);
		assert_int_equal(blk.num_restarts, (d.n + intervals[ii] - 1) / intervals[ii]);
		HsBlockIterInit(&bi, env, &st);
		HsBlockIterReset(&bi, &blk, "b", 0);

		/*
		 * full scan; payloads aligned if asked; every step says whether it
		 * reached another version of the same table key
		 */
		HsBlockIterSeekToFirst(&bi);
		for (i = 0; i < d.n; i++)
		{
			size_t		len = d.e[i].key_len;
			int			want = -1;

			expect_at(&bi, &d, i, d.n);
			if (align)
				assert_int_equal((size_t) (HsBlockIterValue(&bi).data + 1 -
										   contents.data) % HS_BLOCK_PAYLOAD_ALIGN, 0);
			assert_int_equal(HsBlockIterHasNext(&bi), i + 1 < d.n);
			if (i + 1 < d.n)
				want = d.e[i + 1].key_len == len &&
					memcmp(d.e[i + 1].key, d.e[i].key, len - HS_EPOCH_LEN) == 0;
			assert_int_equal(HsBlockIterNextSameTableKey(&bi), want);
		}
		assert_false(HsBlockIterValid(&bi));
		assert_int_equal(st.code, HS_OK);

		/* exact seeks, then next */
		for (i = 0; i < d.n; i += 1 + i % 5)
		{
			HsBlockIterSeek(&bi, test_key(&d.e[i]));
			expect_at(&bi, &d, i, d.n);
			HsBlockIterNext(&bi);
			expect_at(&bi, &d, i + 1, d.n);
		}
		/* seeks to unrelated keys: between, before first, past last */
		for (i = 0; i < targets.n; i++)
		{
			size_t		want = test_data_lower_bound(&d, test_key(&targets.e[i]));

			HsBlockIterSeek(&bi, test_key(&targets.e[i]));
			expect_at(&bi, &d, want, d.n);
		}
		assert_int_equal(st.code, HS_OK);
		HsBlockIterDestroy(&bi);
		HsBlockBuilderDestroy(&bb);
	}
	test_data_free(&d);
	test_data_free(&targets);
}

static void
test_block_seek_semantics(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsBlockBuilder bb;
	HsBlockIter	bi;
	Block		blk;
	HsStatus	st;
	uint8_t		k[64];
	size_t		n;

	HsStatusClear(&st);
	HsBlockBuilderInit(&bb, env, 2);
	/* keys b@9 b@5 d@7 f@3 f@1 (table 1) */
	{
		const char *uk[] = {"b", "b", "d", "f", "f"};
		HsEpoch		ep[] = {9, 5, 7, 3, 1};

		for (int i = 0; i < 5; i++)
		{
			n = HsFullKeyEncode(k, 1, uk[i], 1, ep[i]);
			HsBlockBuilderAdd(&bb, HsSliceMake(k, n), HsSliceMake("\0v", 2));
		}
	}
	assert_status_ok(HsBlockParse(&blk, HsBlockBuilderFinish(&bb), "b", 0, &st), &st);
	HsBlockIterInit(&bi, env, &st);
	HsBlockIterReset(&bi, &blk, "b", 0);

	/* before the first */
	n = HsFullKeyEncode(k, 1, "a", 1, 1);
	HsBlockIterSeek(&bi, HsSliceMake(k, n));
	assert_true(HsBlockIterValid(&bi));
	assert_int_equal(HsFullKeyEpoch(HsBlockIterKey(&bi)), 9);
	/* exact */
	n = HsFullKeyEncode(k, 1, "b", 1, 5);
	HsBlockIterSeek(&bi, HsSliceMake(k, n));
	assert_int_equal(HsFullKeyEpoch(HsBlockIterKey(&bi)), 5);
	/* same user key, epoch between versions: the older one */
	n = HsFullKeyEncode(k, 1, "b", 1, 7);
	HsBlockIterSeek(&bi, HsSliceMake(k, n));
	assert_int_equal(HsFullKeyEpoch(HsBlockIterKey(&bi)), 5);
	/* same user key, older than every version: next user key */
	n = HsFullKeyEncode(k, 1, "b", 1, 2);
	HsBlockIterSeek(&bi, HsSliceMake(k, n));
	assert_memory_equal(HsFullKeyUserKey(HsBlockIterKey(&bi)).data, "d", 1);
	/* between user keys */
	n = HsFullKeyEncode(k, 1, "e", 1, HS_EPOCH_MAX);
	HsBlockIterSeek(&bi, HsSliceMake(k, n));
	assert_memory_equal(HsFullKeyUserKey(HsBlockIterKey(&bi)).data, "f", 1);
	assert_int_equal(HsFullKeyEpoch(HsBlockIterKey(&bi)), 3);
	/* past the last */
	n = HsFullKeyEncode(k, 1, "f", 1, 0);
	HsBlockIterSeek(&bi, HsSliceMake(k, n));
	assert_false(HsBlockIterValid(&bi));
	n = HsFullKeyEncode(k, 2, "", 0, 5);
	HsBlockIterSeek(&bi, HsSliceMake(k, n));
	assert_false(HsBlockIterValid(&bi));
	assert_int_equal(st.code, HS_OK);

	/* an empty block */
	HsBlockBuilderReset(&bb);
	assert_status_ok(HsBlockParse(&blk, HsBlockBuilderFinish(&bb), "b", 0, &st), &st);
	assert_int_equal(blk.size, 8);
	HsBlockIterReset(&bi, &blk, "b", 0);
	HsBlockIterSeekToFirst(&bi);
	assert_false(HsBlockIterValid(&bi));
	HsBlockIterSeek(&bi, HsSliceMake(k, n));
	assert_false(HsBlockIterValid(&bi));
	assert_int_equal(st.code, HS_OK);

	HsBlockIterDestroy(&bi);
	HsBlockBuilderDestroy(&bb);
}

/* Scan and seek a damaged block; return the status code. */
static HsCode
damaged_block_code(const uint8_t *data, size_t len)
{
	HsEnv	   *env = HsEnvPosix();
	HsIterator *it = HsBlockNewIterator(env, HsSliceMake(data, len), "blk", 4096);
	HsStatus	st;
	uint8_t		k[32];
	size_t		n = HsFullKeyEncode(k, 1, "key", 3, 5);
	int			count = 0;

	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
		count++;
	if (HsIterStatus(it, &st))
	{
		HsIterSeek(it, HsSliceMake(k, n));
		HsIterStatus(it, &st);
	}
	if (st.code != HS_OK)
	{
		assert_true(strlen(st.msg) > 0);
		assert_non_null(strstr(st.detail, "blk"));
	}
	HsIterDestroy(it);
	return st.code;
}

static void
test_block_malformed(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsBlockBuilder bb;
	HsSlice		good;
	uint8_t    *buf;
	size_t		len;
	uint64_t	rs = 3;
	uint8_t		k[64];

	HsBlockBuilderInit(&bb, env, 4);
	for (int i = 0; i < 40; i++)
	{
		char		uk[16];
		size_t		n;

		snprintf(uk, sizeof(uk), "key%04d", i);
		n = HsFullKeyEncode(k, 1, uk, strlen(uk), 10);
		HsBlockBuilderAdd(&bb, HsSliceMake(k, n), HsSliceMake("\0value", 6));
	}
	good = HsBlockBuilderFinish(&bb);
	len = good.len;
	buf = malloc(len + 16);
	assert_int_equal(damaged_block_code(good.data, len), HS_OK);

	/* restart count too large / zero */
	memcpy(buf, good.data, len);
	HsPutLE32(buf + len - 4, 1000000);
	assert_int_equal(damaged_block_code(buf, len), HS_CORRUPTION);
	HsPutLE32(buf + len - 4, 0);
	assert_int_equal(damaged_block_code(buf, len), HS_CORRUPTION);
	/* a restart offset past the entries, out of order, first not 0 */
	memcpy(buf, good.data, len);
	HsPutLE32(buf + len - 8, (uint32_t) len);
	assert_int_equal(damaged_block_code(buf, len), HS_CORRUPTION);
	memcpy(buf, good.data, len);
	HsPutLE32(buf + len - 8, 1);
	assert_int_equal(damaged_block_code(buf, len), HS_CORRUPTION);
	memcpy(buf, good.data, len);
	HsPutLE32(buf + len - 4 - 4 * 10, 5);
	assert_int_equal(damaged_block_code(buf, len), HS_CORRUPTION);
	/* too short */
	assert_int_equal(damaged_block_code(good.data, 3), HS_CORRUPTION);
	/* malformed varints at the first entry */
	memcpy(buf, good.data, len);
	memset(buf, 0xFF, 6);
	assert_int_equal(damaged_block_code(buf, len), HS_CORRUPTION);
	/* shared > 0 at a restart */
	memcpy(buf, good.data, len);
	buf[0] = 3;
	assert_int_equal(damaged_block_code(buf, len), HS_CORRUPTION);
	/* value length running past the entries */
	memcpy(buf, good.data, len);
	buf[2] = 0xFF;
	buf[3] = 0x7F;
	assert_int_equal(damaged_block_code(buf, len), HS_CORRUPTION);
	/* a key shorter than a full key */
	memcpy(buf, good.data, len);
	buf[1] = 3;
	assert_int_equal(damaged_block_code(buf, len), HS_CORRUPTION);

	/* random damage anywhere: never a crash (ASan/valgrind check reads) */
	for (int round = 0; round < 3000; round++)
	{
		HsCode		code;
		size_t		cut = len;

		memcpy(buf, good.data, len);
		for (int f = 0; f < 1 + round % 4; f++)
			buf[unit_rand(&rs) % len] = (uint8_t) unit_rand(&rs);
		if (round % 7 == 0)
			cut = unit_rand(&rs) % len;
		/* an exact-size heap copy so that overreads are caught */
		{
			uint8_t    *exact = malloc(cut ? cut : 1);

			memcpy(exact, buf, cut);
			code = damaged_block_code(exact, cut);
			free(exact);
		}
		assert_true(code == HS_OK || code == HS_CORRUPTION);
	}
	free(buf);
	HsBlockBuilderDestroy(&bb);
}

static const struct CMUnitTest block_tests[] = {
	cmocka_unit_test(test_block_round_trip),
	cmocka_unit_test(test_block_seek_semantics),
	cmocka_unit_test(test_block_malformed),
};

UNIT_SUITE(block)
{
	*tests = block_tests;
	return sizeof(block_tests) / sizeof(block_tests[0]);
}
