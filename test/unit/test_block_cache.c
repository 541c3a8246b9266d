/*-------------------------------------------------------------------------
 *
 * test_block_cache.c
 *	  Unit tests of block_cache.c: hits, LRU eviction, pins, erase.
 *
 * test/unit/test_block_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "hummock_stream/storage/block_cache.h"

static uint8_t *
block_of(HsEnv *env, size_t len, uint8_t fill)
{
	uint8_t    *p = HsAlloc(env, len);

	memset(p, fill, len);
	return p;
}

static void
test_block_cache_lru(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsBlockCache *c = HsBlockCacheCreate(env, 10 * 1100);
	uint64_t	id = HsBlockCacheNewId(c);
	uint64_t	id2 = HsBlockCacheNewId(c);
	HsBlockCacheEntry *e;
	HsBlockCacheEntry *pinned;
	uint64_t	hits,
				misses;

	assert_true(id != id2);
	for (int i = 0; i < 10; i++)
		HsBlockCacheRelease(c, HsBlockCacheInsert(c, id, (uint64_t) i * 1000,
												  block_of(env, 1000, (uint8_t) i),
												  1000, 1000));
	/* touch block 0 so that block 1 is the coldest */
	e = HsBlockCacheLookup(c, id, 0);
	assert_non_null(e);
	assert_int_equal(HsBlockCacheValue(e).data[5], 0);
	HsBlockCacheRelease(c, e);
	assert_null(HsBlockCacheLookup(c, id2, 0));

	/* pin block 2, then insert more: 1 goes, 2 stays while pinned */
	pinned = HsBlockCacheLookup(c, id, 2000);
	for (int i = 10; i < 14; i++)
		HsBlockCacheRelease(c, HsBlockCacheInsert(c, id, (uint64_t) i * 1000,
												  block_of(env, 1000, (uint8_t) i),
												  1000, 1000));
	assert_null(HsBlockCacheLookup(c, id, 1000));
	e = HsBlockCacheLookup(c, id, 0);
	assert_non_null(e);
	HsBlockCacheRelease(c, e);
	assert_int_equal(HsBlockCacheValue(pinned).data[0], 2);
	assert_true(HsBlockCacheUsage(c) <= 10 * 1100);

	/* erase while pinned: the pin keeps the bytes alive */
	HsBlockCacheEraseId(c, id);
	assert_int_equal(HsBlockCacheUsage(c), 0);
	assert_int_equal(HsBlockCacheValue(pinned).data[999], 2);
	assert_null(HsBlockCacheLookup(c, id, 2000));
	HsBlockCacheRelease(c, pinned);

	/* replacing a key */
	HsBlockCacheRelease(c, HsBlockCacheInsert(c, id2, 5, block_of(env, 10, 1), 10, 10));
	HsBlockCacheRelease(c, HsBlockCacheInsert(c, id2, 5, block_of(env, 20, 2), 20, 20));
	e = HsBlockCacheLookup(c, id2, 5);
	assert_int_equal(HsBlockCacheValue(e).len, 20);
	HsBlockCacheRelease(c, e);

	/* many entries: the hash table grows */
	for (int i = 0; i < 5000; i++)
		HsBlockCacheRelease(c, HsBlockCacheInsert(c, id2, 100 + (uint64_t) i,
												  block_of(env, 1, 0), 1, 1));
	HsBlockCacheStats(c, &hits, &misses);
	assert_true(hits >= 3 && misses >= 2);
	HsBlockCacheDestroy(c);
}

static const struct CMUnitTest block_cache_tests[] = {
	cmocka_unit_test(test_block_cache_lru),
};

UNIT_SUITE(block_cache)
{
	*tests = block_cache_tests;
	return sizeof(block_cache_tests) / sizeof(block_cache_tests[0]);
}
