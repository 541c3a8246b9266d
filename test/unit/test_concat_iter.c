/*-------------------------------------------------------------------------
 *
 * test_concat_iter.c
 *	  Unit tests of the concat iterator over a sorted run of SSTs.
 *
 * A random data set is written through the SST writer with a small target
 * file size, which cuts it into a run of many SSTs.  The concat iterator
 * over the run must return exactly the data set: a full walk, and seeks to
 * every kind of target (an existing key, between two SSTs, before the
 * first and past the last key), each followed by a few nexts.  The run
 * check must accept the run and refuse overlapping or unordered SSTs.
 *
 * test/unit/test_concat_iter.c
 *
 *-------------------------------------------------------------------------
 */
#include "sst_test_util.h"
#include "hummock_stream/storage/concat_iter.h"
#include "hummock_stream/storage/object_store.h"
#include "hummock_stream/storage/sst_writer.h"

static uint64_t next_object_id;

static bool
concat_alloc_id(void *arg, uint64_t *id, HsStatus *st)
{
	*id = ++next_object_id;
	return true;
}

/* Write d as a run of SSTs of about target bytes each. */
static void
write_run(HsEnv *env, HsObjectStore *store, const TestData *d,
		  uint64_t target, HsSstInfo ***ssts, int *n)
{
	HsSstWriteContext ctx;
	HsSstWriter *w;
	HsStatus	st;

	HsSstWriteContextInit(&ctx);
	ctx.store = store;
	ctx.alloc_id = concat_alloc_id;
	ctx.target_file_size = target;
	ctx.sst.block_size = 256;
	w = HsSstWriterCreate(env, &ctx);
	for (size_t i = 0; i < d->n; i++)
		assert_status_ok(HsSstWriterAdd(w, test_key(&d->e[i]),
										test_value(&d->e[i]), &st), &st);
	assert_status_ok(HsSstWriterFinish(w, ssts, n, &st), &st);
}

/* The iterator is at entry i of d (or invalid if i == d->n). */
static void
assert_at(HsIterator *it, const TestData *d, size_t i)
{
	if (i == d->n)
	{
		assert_false(HsIterValid(it));
		assert_int_equal(it->status.code, HS_OK);
		return;
	}
	assert_true(HsIterValid(it));
	assert_int_equal(HsFullKeyCompare(HsIterKey(it), test_key(&d->e[i])), 0);
	assert_int_equal(HsIterValue(it).len, d->e[i].value_len);
	assert_memory_equal(HsIterValue(it).data, d->e[i].value,
						d->e[i].value_len);
}

static void
seek_and_walk(HsIterator *it, const TestData *d, HsSlice target)
{
	size_t		i = test_data_lower_bound(d, target);

	HsIterSeek(it, target);
	for (int step = 0; step < 5; step++)
	{
		assert_at(it, d, i);
		if (i == d->n)
			break;
		HsIterNext(it);
		i++;
	}
}

static void
test_concat_run(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	char		dir[512];
	HsObjectStore *store;
	HsSstCache *cache;
	HsStatus	st;
	TestDataSpec spec = {.num_keys = 3000,.max_versions = 3,.num_tables = 2,
	.max_user_key = 12,.max_payload = 40,.delete_pct = 10};
	TestData	d = test_data_make(&spec, 20261130);
	HsSstInfo **ssts;
	int			n;
	HsIterator *it;
	size_t		i;
	uint64_t	rs = 7;

	unit_path(dir, sizeof(dir), "concat-run");
	assert_status_ok(HsObjectStoreOpen(env, dir, &store, &st), &st);
	cache = HsSstCacheCreate(env, store, 4, NULL);
	write_run(env, store, &d, 4096, &ssts, &n);
	assert_true(n > 10);
	assert_true(HsSstRunIsSorted(ssts, n));
	assert_true(HsSstRunIsSorted(ssts, 1));

	/* overlapping or unordered arrays are not runs */
	{
		HsSstInfo  *two[2] = {ssts[1], ssts[0]};
		HsSstInfo  *same[2] = {ssts[2], ssts[2]};

		assert_false(HsSstRunIsSorted(two, 2));
		assert_false(HsSstRunIsSorted(same, 2));
	}

	it = HsConcatIterCreate(env, cache, ssts, n);
	assert_false(HsIterValid(it));

	/* a full walk */
	HsIterSeekToFirst(it);
	for (i = 0; i < d.n; i++)
	{
		assert_at(it, &d, i);
		HsIterNext(it);
	}
	assert_at(it, &d, d.n);

	/* seeks: every SST's first and last key, and the keys next to them */
	for (int s = 0; s < n; s++)
	{
		seek_and_walk(it, &d, HsSstInfoSmallest(ssts[s]));
		seek_and_walk(it, &d, HsSstInfoLargest(ssts[s]));
	}
	/* random existing keys, forward and backward */
	for (int k = 0; k < 300; k++)
		seek_and_walk(it, &d, test_key(&d.e[unit_rand(&rs) % d.n]));
	/* before everything and past everything */
	{
		uint8_t		lo[HS_MIN_FULL_KEY_LEN];
		uint8_t		hi[HS_MIN_FULL_KEY_LEN];

		HsFullKeyEncode(lo, 1, NULL, 0, HS_EPOCH_MAX);
		HsFullKeyEncode(hi, UINT32_MAX, NULL, 0, 0);
		seek_and_walk(it, &d, HsSliceMake(lo, sizeof(lo)));
		seek_and_walk(it, &d, HsSliceMake(hi, sizeof(hi)));
	}
	/* a walk across SST boundaries after a seek into the middle */
	HsIterSeek(it, test_key(&d.e[d.n / 3]));
	for (i = d.n / 3; i < d.n; i++)
	{
		assert_at(it, &d, i);
		HsIterNext(it);
	}
	assert_at(it, &d, d.n);
	/* at most one SST is held open */
	assert_true(HsSstCacheOpenCount(cache) <= 4);
	HsIterDestroy(it);

	/* a run of one SST */
	it = HsConcatIterCreate(env, cache, ssts, 1);
	HsIterSeekToFirst(it);
	assert_true(HsIterValid(it));
	assert_int_equal(HsFullKeyCompare(HsIterKey(it), HsSstInfoSmallest(ssts[0])), 0);
	HsIterDestroy(it);

	HsSstInfoArrayFree(env, ssts, n);
	HsSstCacheDestroy(cache);
	HsObjectStoreClose(store);
	test_data_free(&d);
}

/* A missing SST object: the iterator fails with a status, sticky. */
static void
test_concat_missing_object(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	char		dir[512];
	HsObjectStore *store;
	HsSstCache *cache;
	HsStatus	st;
	TestDataSpec spec = {.num_keys = 500,.max_versions = 1,.num_tables = 1,
	.max_user_key = 8,.max_payload = 20,.delete_pct = 0};
	TestData	d = test_data_make(&spec, 99);
	HsSstInfo **ssts;
	int			n;
	HsIterator *it;
	size_t		seen = 0;

	unit_path(dir, sizeof(dir), "concat-missing");
	assert_status_ok(HsObjectStoreOpen(env, dir, &store, &st), &st);
	cache = HsSstCacheCreate(env, store, 4, NULL);
	write_run(env, store, &d, 2048, &ssts, &n);
	assert_true(n >= 3);
	assert_status_ok(HsObjectStoreRemove(store, ssts[1]->object_id, false, &st), &st);

	it = HsConcatIterCreate(env, cache, ssts, n);
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
		seen++;
	assert_true(seen > 0 && seen < d.n);
	assert_false(HsIterStatus(it, &st));
	HsIterSeekToFirst(it);
	assert_false(HsIterValid(it));
	HsIterDestroy(it);

	HsSstInfoArrayFree(env, ssts, n);
	HsSstCacheDestroy(cache);
	HsObjectStoreClose(store);
	test_data_free(&d);
}

/*
 * The SST cache's byte capacity: idle readers beyond it are closed, least
 * recently used first; a reader in use stays open whatever the bound.
 */
static void
test_sst_cache_byte_capacity(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	char		dir[512];
	HsObjectStore *store;
	HsSstCache *cache;
	HsStatus	st;
	TestDataSpec spec = {.num_keys = 3000,.max_versions = 1,.num_tables = 1,
	.max_user_key = 12,.max_payload = 40,.delete_pct = 0};
	TestData	d = test_data_make(&spec, 20261207);
	HsSstInfo **ssts;
	int			n;
	HsSstCacheHandle *h;
	HsSstCacheHandle *held;
	size_t		all;
	size_t		one;

	unit_path(dir, sizeof(dir), "sst-cache-bytes");
	assert_status_ok(HsObjectStoreOpen(env, dir, &store, &st), &st);
	cache = HsSstCacheCreate(env, store, 100, NULL);
	write_run(env, store, &d, 4096, &ssts, &n);
	assert_true(n > 10);

	/* bounded by the count alone, every reader stays open */
	for (int i = 0; i < n; i++)
	{
		assert_true(HsSstCacheGet(cache, ssts[i]->object_id, &h, &st));
		HsSstCacheRelease(cache, h);
	}
	assert_int_equal(HsSstCacheOpenCount(cache), n);
	all = HsSstCacheOpenBytes(cache);
	assert_true(all > 0);
	one = all / (size_t) n;

	/* room for about three: the oldest are closed at once */
	HsSstCacheSetByteCapacity(cache, one * 3);
	assert_true(HsSstCacheOpenCount(cache) >= 1 && HsSstCacheOpenCount(cache) <= 4);
	assert_true(HsSstCacheOpenBytes(cache) <= one * 3);
	/* the most recently used one is kept (no reopen: still in the table) */
	assert_true(HsSstCacheGet(cache, ssts[n - 1]->object_id, &held, &st));
	assert_true(HsSstCacheOpenCount(cache) <= 4);

	/* a reader in use outlives a bound it exceeds; idle, it goes */
	HsSstCacheSetByteCapacity(cache, 1);
	assert_int_equal(HsSstCacheOpenCount(cache), 1);
	assert_true(HsSstCacheOpenBytes(cache) > 1);
	HsSstCacheRelease(cache, held);
	assert_int_equal(HsSstCacheOpenCount(cache), 0);
	assert_int_equal(HsSstCacheOpenBytes(cache), 0);

	/* reads still work through the bound: open, read, close */
	{
		bool		found;
		HsEpoch		epoch;
		HsBuf		value;
		size_t		i = d.n / 2;
		HsSlice		full = test_key(&d.e[i]);

		HsBufInit(&value, env);
		for (int s = 0; s < n; s++)
		{
			if (HsFullKeyCompare(full, HsSstInfoLargest(ssts[s])) <= 0)
			{
				assert_true(HsSstCacheGetVersion(cache, ssts[s]->object_id,
												 HsFullKeyTableKey(full),
												 HS_EPOCH_MAX, &found, &epoch,
												 &value, &st));
				assert_true(found);
				break;
			}
		}
		HsBufFree(&value);
	}
	assert_int_equal(HsSstCacheOpenCount(cache), 0);

	HsSstInfoArrayFree(env, ssts, n);
	HsSstCacheDestroy(cache);
	HsObjectStoreClose(store);
	test_data_free(&d);
}

static const struct CMUnitTest concat_iter_tests[] = {
	cmocka_unit_test(test_concat_run),
	cmocka_unit_test(test_sst_cache_byte_capacity),
	cmocka_unit_test(test_concat_missing_object),
};

UNIT_SUITE(concat_iter)
{
	*tests = concat_iter_tests;
	return sizeof(concat_iter_tests) / sizeof(concat_iter_tests[0]);
}
