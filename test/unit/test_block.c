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
build_block(BlockBuilder *bb, const TestData *d, size_t from, size_t to)
{
	BlockBuilderReset(bb);
	for (size_t i = from; i < to; i++)
		BlockBuilderAdd(bb, test_key(&d->e[i]), test_value(&d->e[i]));
	return BlockBuilderFinish(bb);
}

/* Check the iterator is at entry i of d (or invalid if i == to). */
static void
expect_at(BlockIter *bi, const TestData *d, size_t i, size_t to)
{
	if (i >= to)
	{
		assert_false(BlockIterValid(bi));
		return;
	}
	assert_true(BlockIterValid(bi));
	assert_int_equal(BlockIterKey(bi).len, d->e[i].key_len);
	assert_memory_equal(BlockIterKey(bi).data, d->e[i].key, d->e[i].key_len);
	assert_int_equal(BlockIterValue(bi).len, d->e[i].value_len);
	assert_memory_equal(BlockIterValue(bi).data, d->e[i].value, d->e[i].value_len);
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
		BlockBuilder bb;
		BlockIter	bi;
		Block		blk;
		HsSlice		contents;
		size_t		i;

		BlockBuilderInit(&bb, env, intervals[ii]);
		BlockBuilderAlignPayloads(&bb, align);
		contents = build_block(&bb, &d, 0, d.n);
		assert_status_ok(BlockParse(&blk, contents, "b", 0, &st), &st);
		assert_int_equal(blk.num_restarts, (d.n + intervals[ii] - 1) / intervals[ii]);
		BlockIterInit(&bi, env, &st);
		BlockIterReset(&bi, &blk, "b", 0);

		/*
		 * full scan; payloads aligned if asked; every step says whether it
		 * reached another version of the same table key
		 */
		BlockIterSeekToFirst(&bi);
		for (i = 0; i < d.n; i++)
		{
			size_t		len = d.e[i].key_len;
			int			want = -1;

			expect_at(&bi, &d, i, d.n);
			if (align)
				assert_int_equal((size_t) (BlockIterValue(&bi).data + 1 -
										   contents.data) % HS_BLOCK_PAYLOAD_ALIGN, 0);
			assert_int_equal(BlockIterHasNext(&bi), i + 1 < d.n);
			if (i + 1 < d.n)
				want = d.e[i + 1].key_len == len &&
					memcmp(d.e[i + 1].key, d.e[i].key, len - HS_EPOCH_LEN) == 0;
			assert_int_equal(BlockIterNextSameTableKey(&bi), want);
		}
		assert_false(BlockIterValid(&bi));
		assert_int_equal(st.code, HS_OK);

		/* exact seeks, then next */
		for (i = 0; i < d.n; i += 1 + i % 5)
		{
			BlockIterSeek(&bi, test_key(&d.e[i]));
			expect_at(&bi, &d, i, d.n);
			BlockIterNext(&bi);
			expect_at(&bi, &d, i + 1, d.n);
		}
		/* seeks to unrelated keys: between, before first, past last */
		for (i = 0; i < targets.n; i++)
		{
			size_t		want = test_data_lower_bound(&d, test_key(&targets.e[i]));

			BlockIterSeek(&bi, test_key(&targets.e[i]));
			expect_at(&bi, &d, want, d.n);
		}
		assert_int_equal(st.code, HS_OK);
		BlockIterDestroy(&bi);
		BlockBuilderDestroy(&bb);
	}
	test_data_free(&d);
	test_data_free(&targets);
}

static void
test_block_seek_semantics(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	BlockBuilder bb;
	BlockIter	bi;
	Block		blk;
	HsStatus	st;
	uint8_t		k[64];
	size_t		n;

	HsStatusClear(&st);
	BlockBuilderInit(&bb, env, 2);
	/* keys b@9 b@5 d@7 f@3 f@1 (table 1) */
	{
		const char *uk[] = {"b", "b", "d", "f", "f"};
		HsEpoch		ep[] = {9, 5, 7, 3, 1};

		for (int i = 0; i < 5; i++)
		{
			n = HsFullKeyEncode(k, 1, uk[i], 1, ep[i]);
			BlockBuilderAdd(&bb, HsSliceMake(k, n), HsSliceMake("\0v", 2));
		}
	}
	assert_status_ok(BlockParse(&blk, BlockBuilderFinish(&bb), "b", 0, &st), &st);
	BlockIterInit(&bi, env, &st);
	BlockIterReset(&bi, &blk, "b", 0);

	/* before the first */
	n = HsFullKeyEncode(k, 1, "a", 1, 1);
	BlockIterSeek(&bi, HsSliceMake(k, n));
	assert_true(BlockIterValid(&bi));
	assert_int_equal(HsFullKeyEpoch(BlockIterKey(&bi)), 9);
	/* exact */
	n = HsFullKeyEncode(k, 1, "b", 1, 5);
	BlockIterSeek(&bi, HsSliceMake(k, n));
	assert_int_equal(HsFullKeyEpoch(BlockIterKey(&bi)), 5);
	/* same user key, epoch between versions: the older one */
	n = HsFullKeyEncode(k, 1, "b", 1, 7);
	BlockIterSeek(&bi, HsSliceMake(k, n));
	assert_int_equal(HsFullKeyEpoch(BlockIterKey(&bi)), 5);
	/* same user key, older than every version: next user key */
	n = HsFullKeyEncode(k, 1, "b", 1, 2);
	BlockIterSeek(&bi, HsSliceMake(k, n));
	assert_memory_equal(HsFullKeyUserKey(BlockIterKey(&bi)).data, "d", 1);
	/* between user keys */
	n = HsFullKeyEncode(k, 1, "e", 1, HS_EPOCH_MAX);
	BlockIterSeek(&bi, HsSliceMake(k, n));
	assert_memory_equal(HsFullKeyUserKey(BlockIterKey(&bi)).data, "f", 1);
	assert_int_equal(HsFullKeyEpoch(BlockIterKey(&bi)), 3);
	/* past the last */
	n = HsFullKeyEncode(k, 1, "f", 1, 0);
	BlockIterSeek(&bi, HsSliceMake(k, n));
	assert_false(BlockIterValid(&bi));
	n = HsFullKeyEncode(k, 2, "", 0, 5);
	BlockIterSeek(&bi, HsSliceMake(k, n));
	assert_false(BlockIterValid(&bi));
	assert_int_equal(st.code, HS_OK);

	/* an empty block */
	BlockBuilderReset(&bb);
	assert_status_ok(BlockParse(&blk, BlockBuilderFinish(&bb), "b", 0, &st), &st);
	assert_int_equal(blk.size, 8);
	BlockIterReset(&bi, &blk, "b", 0);
	BlockIterSeekToFirst(&bi);
	assert_false(BlockIterValid(&bi));
	BlockIterSeek(&bi, HsSliceMake(k, n));
	assert_false(BlockIterValid(&bi));
	assert_int_equal(st.code, HS_OK);

	BlockIterDestroy(&bi);
	BlockBuilderDestroy(&bb);
}

/* Scan and seek a damaged block; return the status code. */
static HsCode
damaged_block_code(const uint8_t *data, size_t len)
{
	HsEnv	   *env = HsEnvPosix();
	HsIterator *it = BlockNewIterator(env, HsSliceMake(data, len), "blk", 4096);
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
	BlockBuilder bb;
	HsSlice		good;
	uint8_t    *buf;
	size_t		len;
	uint64_t	rs = 3;
	uint8_t		k[64];

	BlockBuilderInit(&bb, env, 4);
	for (int i = 0; i < 40; i++)
	{
		char		uk[16];
		size_t		n;

		snprintf(uk, sizeof(uk), "key%04d", i);
		n = HsFullKeyEncode(k, 1, uk, strlen(uk), 10);
		BlockBuilderAdd(&bb, HsSliceMake(k, n), HsSliceMake("\0value", 6));
	}
	good = BlockBuilderFinish(&bb);
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
	BlockBuilderDestroy(&bb);
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
