/*-------------------------------------------------------------------------
 *
 * test_secondary_cache.c
 *	  Unit tests of SST readers with a secondary block cache.
 *
 * The secondary cache here is a plain array of copies keyed by (object
 * id, offset), counting lookups, hits and inserts.  A scan by one reader
 * fills it with every block; a second reader of the same object then
 * takes every block from it, which the test proves by overwriting the
 * file's data blocks with garbage before the second reader reads them:
 * the scan and point gets still return the data set.  A reader without an
 * object id never touches the cache.  A cache that can pin blocks in place
 * (lookup_pinned) is read in place by scans, one pin at a time, each
 * released when the scan leaves the block or is destroyed.
 *
 * test/unit/test_secondary_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include "sst_test_util.h"

#define FAKE_MAX 4096

typedef struct FakeCache
{
	int			n;
	uint64_t	object_id[FAKE_MAX];
	uint64_t	offset[FAKE_MAX];
	uint8_t    *data[FAKE_MAX];
	size_t		len[FAKE_MAX];
	int			lookups;
	int			hits;
	int			inserts;
	int			sequential;		/* inserts marked as from a scan */
	/* in-place reads (lookup_pinned) */
	int			pinned;			/* pins given out */
	int			copied;			/* pinned lookups answered by a copy */
	int			held;			/* pins not yet released */
	int			max_held;
	uint64_t	held_ids[16];
	uint64_t	next_pin;
} FakeCache;

static int
fake_find(FakeCache *c, uint64_t object_id, uint64_t offset)
{
	for (int i = 0; i < c->n; i++)
		if (c->object_id[i] == object_id && c->offset[i] == offset)
			return i;
	return -1;
}

static bool
fake_lookup(void *arg, uint64_t object_id, uint64_t offset, HsBuf *out)
{
	FakeCache  *c = arg;
	int			i = fake_find(c, object_id, offset);

	c->lookups++;
	if (i < 0)
		return false;
	c->hits++;
	HsBufAssign(out, c->data[i], c->len[i]);
	return true;
}

/*
 * In place except for every third block of the array, which is copied, so
 * that scans see both answers, and runs of blocks they can pin ahead.
 */
static bool
fake_lookup_pinned(void *arg, uint64_t object_id, uint64_t offset, HsBuf *out,
				   HsSlice *contents, uint64_t *pin)
{
	FakeCache  *c = arg;
	int			i = fake_find(c, object_id, offset);

	*pin = 0;
	if (out == NULL && (i < 0 || i % 3 == 2))
		return false;			/* only a block it can pin is wanted */
	if (i < 0 || i % 3 == 2)
	{
		/* missing, or copied as lookup does */
		c->copied += i >= 0;
		if (!fake_lookup(arg, object_id, offset, out))
			return false;
		*contents = HsBufSlice(out);
		return true;
	}
	c->lookups++;
	c->hits++;
	assert_true(c->held < 16);
	*pin = ++c->next_pin;
	c->held_ids[c->held++] = *pin;
	if (c->held > c->max_held)
		c->max_held = c->held;
	c->pinned++;
	*contents = HsSliceMake(c->data[i], c->len[i]);
	return true;
}

static void
fake_unpin(void *arg, uint64_t pin)
{
	FakeCache  *c = arg;

	for (int i = 0; i < c->held; i++)
		if (c->held_ids[i] == pin)
		{
			c->held_ids[i] = c->held_ids[--c->held];
			return;
		}
	fail_msg("unpin of pin %llu, which is not held", (unsigned long long) pin);
}

static void
fake_insert(void *arg, uint64_t object_id, uint64_t offset, HsSlice contents,
			bool sequential)
{
	FakeCache  *c = arg;

	c->inserts++;
	c->sequential += sequential;
	if (fake_find(c, object_id, offset) >= 0 || c->n == FAKE_MAX)
		return;
	c->object_id[c->n] = object_id;
	c->offset[c->n] = offset;
	c->data[c->n] = malloc(contents.len ? contents.len : 1);
	memcpy(c->data[c->n], contents.data, contents.len);
	c->len[c->n] = contents.len;
	c->n++;
}

static HsSstReader *
open_reader(const char *path, const HsSecondaryCache *sec, uint64_t object_id)
{
	HsSstReaderOptions o;
	HsStatus	st;
	HsSstReader  *r;

	HsSstReaderOptionsInit(&o);
	o.secondary_cache = sec;
	o.object_id = object_id;
	r = HsSstReaderOpenWithOptions(HsEnvPosix(), path, &o, &st);
	assert_status_ok(r != NULL, &st);
	return r;
}

/* Every entry of d, in order, from a full scan of r. */
static void
assert_scan(HsSstReader *r, const TestData *d)
{
	HsIterator *it = HsSstReaderNewIterator(r);
	size_t		i = 0;
	HsStatus	st;

	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it), i++)
	{
		assert_true(i < d->n);
		assert_int_equal(HsFullKeyCompare(HsIterKey(it), test_key(&d->e[i])), 0);
		assert_int_equal(HsIterValue(it).len, d->e[i].value_len);
	}
	assert_status_ok(HsIterStatus(it, &st), &st);
	assert_int_equal(i, d->n);
	HsIterDestroy(it);
}

static void
test_secondary_cache_serves_blocks(void **state)
{
	TestDataSpec spec = {.num_keys = 2000,.max_versions = 2,.num_tables = 2,
	.max_user_key = 10,.max_payload = 60,.delete_pct = 5};
	TestData	d = test_data_make(&spec, 42);
	HsSstBuilderOptions bo;
	FakeCache  *fc = calloc(1, sizeof(FakeCache));
	HsSecondaryCache sec = {.lookup = fake_lookup,.insert = fake_insert,.arg = fc};
	HsSecondaryCache pinning = {.lookup = fake_lookup,.insert = fake_insert,
		.lookup_pinned = fake_lookup_pinned,.unpin = fake_unpin,.arg = fc};
	char		path[512];
	HsSstReader  *r;
	uint32_t	blocks;
	size_t		len;
	uint8_t    *file;
	size_t		data_end;

	HsSstBuilderOptionsInit(&bo);
	bo.block_size = 512;
	bo.compression = HS_COMPRESSION_LZ4;
	unit_path(path, sizeof(path), "secondary.sst");
	test_build_sst(&d, path, &bo, NULL);

	/* without an object id the cache is never asked */
	r = open_reader(path, &sec, 0);
	assert_scan(r, &d);
	assert_int_equal(fc->lookups + fc->inserts, 0);
	HsSstReaderClose(r);

	/* a first scan offers every block */
	r = open_reader(path, &sec, 7);
	blocks = HsSstReaderBlockCount(r);
	assert_true(blocks > 20);
	assert_scan(r, &d);
	assert_int_equal(fc->inserts, (int) blocks);
	assert_int_equal(fc->n, (int) blocks);
	/* every block came by the sequential walk (seek_to_first starts it) */
	assert_int_equal(fc->sequential, (int) blocks);
	data_end = HsSstReaderBlockHandle(r, blocks - 1).offset +
		HsSstReaderBlockHandle(r, blocks - 1).size;
	HsSstReaderClose(r);

	/* garble the data blocks; index, filter and footer stay intact */
	file = test_read_file(path, &len);
	for (size_t i = 0; i < data_end; i++)
		file[i] ^= 0x5a;
	test_write_file(path, file, len);
	free(file);

	/* a second reader scans and gets from the cache alone */
	fc->hits = fc->lookups = fc->inserts = 0;
	r = open_reader(path, &sec, 7);
	assert_scan(r, &d);
	assert_int_equal(fc->hits, (int) blocks);
	assert_int_equal(fc->inserts, 0);
	for (size_t i = 0; i < d.n; i += 37)
	{
		HsSlice		k = test_key(&d.e[i]);
		HsSlice		tk = HsFullKeyTableKey(k);
		long		want = test_data_get(&d, tk, HsFullKeyEpoch(k));
		bool		found;
		HsBuf		v;
		HsStatus	st;

		HsBufInit(&v, HsEnvPosix());
		assert_status_ok(HsSstReaderGet(r, tk, HsFullKeyEpoch(k), &found, &v, &st), &st);
		assert_true(found);
		assert_true(want >= 0);
		assert_int_equal(v.len, d.e[want].value_len);
		HsBufFree(&v);
	}
	HsSstReaderClose(r);

	/*
	 * a reader whose cache can pin: the scan reads blocks in place (or
	 * copied, when the cache says so), holding at most two pins (its
	 * block and the next one, pinned ahead), each released when the scan
	 * moves on or ends; a block pinned ahead is not looked up again
	 */
	fc->hits = fc->lookups = 0;
	r = open_reader(path, &pinning, 7);
	assert_scan(r, &d);
	assert_int_equal(fc->hits, (int) blocks);
	assert_true(fc->pinned > 0);
	assert_true(fc->copied > 0);
	assert_int_equal(fc->pinned + fc->copied, (int) blocks);
	assert_int_equal(fc->max_held, 2);
	assert_int_equal(fc->held, 0);
	/* destroying an iterator in the middle of a block releases its pins */
	{
		HsIterator *it = HsSstReaderNewIterator(r);

		HsIterSeekToFirst(it);
		while (HsIterValid(it) && fc->held < 2)
			HsIterNext(it);
		assert_true(HsIterValid(it));
		assert_int_equal(fc->held, 2);
		HsIterDestroy(it);
		assert_int_equal(fc->held, 0);
	}
	/* a seek lets go of the block pinned ahead */
	{
		HsIterator *it = HsSstReaderNewIterator(r);

		HsIterSeekToFirst(it);
		assert_int_equal(fc->held, 2);
		HsIterSeek(it, test_key(&d.e[d.n - 1]));
		assert_true(HsIterValid(it));
		assert_true(fc->held <= 1);
		HsIterDestroy(it);
		assert_int_equal(fc->held, 0);
	}
	HsSstReaderClose(r);

	/* another object id misses and reads the (now garbled) file */
	r = open_reader(path, &sec, 8);
	{
		HsIterator *it = HsSstReaderNewIterator(r);
		HsStatus	st;

		HsIterSeekToFirst(it);
		assert_false(HsIterValid(it));
		assert_false(HsIterStatus(it, &st));
		assert_int_equal(st.code, HS_CORRUPTION);
		HsIterDestroy(it);
	}
	HsSstReaderClose(r);

	for (int i = 0; i < fc->n; i++)
		free(fc->data[i]);
	free(fc);
	test_data_free(&d);
}

static const struct CMUnitTest secondary_cache_tests[] = {
	cmocka_unit_test(test_secondary_cache_serves_blocks),
};

UNIT_SUITE(secondary_cache)
{
	*tests = secondary_cache_tests;
	return sizeof(secondary_cache_tests) / sizeof(secondary_cache_tests[0]);
}
