/*-------------------------------------------------------------------------
 *
 * test_sst.c
 *	  Unit tests of sst_builder.c and sst_reader.c: round trips over random
 *	  data for every compression kind and several block sizes, point gets
 *	  against an in-memory model, filters, versions across blocks, the
 *	  block cache, and the builder's argument checks.
 *
 * test/unit/test_sst.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "sst_test_util.h"
#include "hummock_stream/storage/block_cache.h"

static const HsCompression all_kinds[] = {
	HS_COMPRESSION_NONE, HS_COMPRESSION_LZ4, HS_COMPRESSION_ZSTD
};

/* The iterator yields exactly d, in order. */
static void
check_scan(HsSstReader *r, const TestData *d)
{
	HsIterator *it = HsSstReaderNewIterator(r);
	HsStatus	st;
	size_t		i = 0;

	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it), i++)
	{
		HsSlice		k = HsIterKey(it);
		HsSlice		v = HsIterValue(it);

		assert_true(i < d->n);
		assert_int_equal(k.len, d->e[i].key_len);
		assert_memory_equal(k.data, d->e[i].key, k.len);
		assert_int_equal(v.len, d->e[i].value_len);
		assert_memory_equal(v.data, d->e[i].value, v.len);
	}
	assert_status_ok(HsIterStatus(it, &st), &st);
	assert_int_equal(i, d->n);
	HsIterDestroy(it);
}

/* Random seeks land where the model says; next continues correctly. */
static void
check_seeks(HsSstReader *r, const TestData *d, uint64_t seed, int rounds)
{
	TestDataSpec spec = {(size_t) rounds, 1, 4, 16, 0, 0};
	TestData	targets = test_data_make(&spec, seed);
	HsIterator *it = HsSstReaderNewIterator(r);
	HsStatus	st;

	for (size_t t = 0; t < targets.n + d->n / 50; t++)
	{
		HsSlice		target;
		size_t		want;

		/* mix unrelated targets with exact keys */
		if (t < targets.n)
			target = test_key(&targets.e[t]);
		else
			target = test_key(&d->e[(t - targets.n) * 50]);
		want = test_data_lower_bound(d, target);
		HsIterSeek(it, target);
		for (int step = 0; step < 3; step++, want++)
		{
			if (want >= d->n)
			{
				assert_false(HsIterValid(it));
				break;
			}
			assert_true(HsIterValid(it));
			assert_int_equal(HsIterKey(it).len, d->e[want].key_len);
			assert_memory_equal(HsIterKey(it).data, d->e[want].key,
								d->e[want].key_len);
			HsIterNext(it);
		}
	}
	assert_status_ok(HsIterStatus(it, &st), &st);
	HsIterDestroy(it);
	test_data_free(&targets);
}

/* Random point gets at random epochs agree with the model. */
static void
check_gets(HsSstReader *r, const TestData *d, uint64_t seed, int rounds)
{
	HsEnv	   *env = HsEnvPosix();
	uint64_t	rs = seed;
	HsBuf		value;
	HsStatus	st;
	int			found_count = 0;

	HsBufInit(&value, env);
	for (int round = 0; round < rounds; round++)
	{
		uint8_t		tk[300];
		HsSlice		table_key;
		HsEpoch		epoch;
		long		want;
		bool		found;
		HsEpoch		got_epoch = 0;

		if (d->n > 0 && round % 4 != 3)
		{
			const TestEntry *e = &d->e[unit_rand(&rs) % d->n];

			table_key = HsFullKeyTableKey(test_key(e));
		}
		else
		{
			/* a key that is most likely absent */
			size_t		n = 4 + unit_rand(&rs) % 12;

			for (size_t i = 0; i < n; i++)
				tk[i] = (uint8_t) unit_rand(&rs);
			HsPutBE32(tk, 1000 * (1 + (uint32_t) (unit_rand(&rs) % 3)));
			table_key = HsSliceMake(tk, n);
		}
		switch (round % 5)
		{
			case 0:
				epoch = HS_EPOCH_MAX;
				break;
			case 1:
				epoch = 0;
				break;
			default:
				epoch = unit_rand(&rs) % 3000;
				break;
		}
		want = test_data_get(d, table_key, epoch);
		assert_status_ok(HsSstReaderGetVersion(r, table_key, epoch, &found,
											 &got_epoch, &value, &st), &st);
		assert_int_equal(found, want >= 0);
		if (found)
		{
			const TestEntry *e = &d->e[want];

			found_count++;
			assert_int_equal(got_epoch, HsFullKeyEpoch(test_key(e)));
			assert_int_equal(value.len, e->value_len);
			assert_memory_equal(value.data, e->value, e->value_len);
		}
	}
	if (d->n > 100)
		assert_true(found_count > 0);
	HsBufFree(&value);
}

static void
check_meta(const HsSstMeta *m, const TestData *d, HsSstReader *r)
{
	const HsSstProperties *p = HsSstReaderProperties(r);
	uint64_t	tombstones = 0;
	uint64_t	kb = 0,
				vb = 0;
	HsEpoch		mn = HS_EPOCH_MAX,
				mx = 0;

	for (size_t i = 0; i < d->n; i++)
	{
		HsEpoch		e = HsFullKeyEpoch(test_key(&d->e[i]));

		tombstones += d->e[i].value[0] == HS_VALUE_DELETE;
		kb += d->e[i].key_len;
		vb += d->e[i].value_len;
		mn = e < mn ? e : mn;
		mx = e > mx ? e : mx;
	}
	assert_int_equal(m->entry_count, d->n);
	assert_int_equal(m->tombstone_count, tombstones);
	assert_int_equal(m->raw_key_bytes, kb);
	assert_int_equal(m->raw_value_bytes, vb);
	assert_int_equal(m->file_size, HsSstReaderFileSize(r));
	assert_int_equal(p->entry_count, d->n);
	assert_int_equal(p->tombstone_count, tombstones);
	assert_int_equal(p->data_block_count, m->data_block_count);
	assert_int_equal(p->data_raw_size, m->data_raw_size);
	assert_int_equal(p->data_stored_size, m->data_stored_size);
	assert_int_equal(p->table_count, m->table_count);
	assert_int_equal(HsSstReaderBlockCount(r), m->data_block_count);
	if (d->n > 0)
	{
		assert_int_equal(m->min_epoch, mn);
		assert_int_equal(m->max_epoch, mx);
		assert_int_equal(p->min_epoch, mn);
		assert_int_equal(p->max_epoch, mx);
		assert_int_equal(m->smallest_key_len, d->e[0].key_len);
		assert_memory_equal(m->smallest_key, d->e[0].key, d->e[0].key_len);
		assert_int_equal(m->largest_key_len, d->e[d->n - 1].key_len);
		assert_memory_equal(m->largest_key, d->e[d->n - 1].key,
							d->e[d->n - 1].key_len);
		assert_int_equal(p->smallest_key.len, m->smallest_key_len);
		assert_memory_equal(p->largest_key.data, m->largest_key,
							m->largest_key_len);
	}
	/* per-table stats */
	{
		uint32_t	t = 0;
		uint64_t	sum = 0;

		for (size_t i = 0; i < d->n; i++)
		{
			HsTableId	tid = HsFullKeyTableId(test_key(&d->e[i]));

			if (i == 0 || tid != HsFullKeyTableId(test_key(&d->e[i - 1])))
			{
				assert_true(t < m->table_count);
				assert_int_equal(m->tables[t].table_id, tid);
				assert_int_equal(p->tables[t].table_id, tid);
				t++;
			}
		}
		assert_int_equal(t, m->table_count);
		for (t = 0; t < m->table_count; t++)
		{
			sum += m->tables[t].entry_count;
			assert_int_equal(m->tables[t].entry_count, p->tables[t].entry_count);
			assert_int_equal(m->tables[t].key_bytes, p->tables[t].key_bytes);
		}
		assert_int_equal(sum, d->n);
	}
}

static void
test_sst_round_trip_matrix(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TestDataSpec spec = {6000, 5, 3, 24, 120, 15};
	TestData	d = test_data_make(&spec, 11);
	uint32_t	block_sizes[] = {256, 4096, 65536};
	char		path[512];
	HsStatus	st;

	for (size_t k = 0; k < 3; k++)
		for (size_t b = 0; b < 3; b++)
		{
			HsSstBuilderOptions opts;
			HsSstMeta		meta;
			HsSstReader  *r;

			HsSstBuilderOptionsInit(&opts);
			opts.compression = all_kinds[k];
			opts.block_size = block_sizes[b];
			opts.restart_interval = b == 0 ? 1 : 16;
			unit_path(path, sizeof(path), "matrix.sst");
			test_build_sst(&d, path, &opts, &meta);
			r = HsSstReaderOpen(env, path, &st);
			assert_status_ok(r != NULL, &st);
			check_meta(&meta, &d, r);
			if (block_sizes[b] == 256)
				assert_true(meta.data_block_count > d.n / 10);
			if (all_kinds[k] != HS_COMPRESSION_NONE && block_sizes[b] >= 4096)
				assert_true(meta.data_stored_size < meta.data_raw_size);
			check_scan(r, &d);
			check_seeks(r, &d, 100 + k * 3 + b, 400);
			check_gets(r, &d, 200 + k * 3 + b, 4000);
			HsSstReaderClose(r);
			HsSstMetaFree(env, &meta);
		}
	test_data_free(&d);
}

static void
test_sst_filter_rejects_absent(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TestDataSpec spec = {20000, 1, 1, 16, 10, 0};
	TestData	d = test_data_make(&spec, 21);
	char		path[512];
	HsStatus	st;
	HsSstReader  *r;
	const HsBloomFilter *filter;
	uint64_t	rs = 5;
	int			may = 0;
	int			probes = 20000;

	unit_path(path, sizeof(path), "filter.sst");
	test_build_sst(&d, path, NULL, NULL);
	r = HsSstReaderOpen(env, path, &st);
	assert_status_ok(r != NULL, &st);
	assert_status_ok(HsSstReaderFilter(r, &filter, &st), &st);
	assert_non_null(filter);
	for (size_t i = 0; i < d.n; i++)
		assert_true(HsSstReaderMayContain(r, HsFullKeyTableKey(test_key(&d.e[i]))));
	for (int i = 0; i < probes; i++)
	{
		uint8_t		tk[24];

		HsPutBE32(tk, 1000);
		for (int j = 4; j < 24; j++)
			tk[j] = (uint8_t) ('e' + unit_rand(&rs) % 10);	/* not in alphabet */
		may += HsSstReaderMayContain(r, HsSliceMake(tk, 24));
	}
	assert_true(may < probes / 50);
	HsSstReaderClose(r);

	/* without a filter every key may be present, and gets still work */
	{
		HsSstBuilderOptions opts;

		HsSstBuilderOptionsInit(&opts);
		opts.bloom_bits_per_key = 0;
		test_build_sst(&d, path, &opts, NULL);
		r = HsSstReaderOpen(env, path, &st);
		assert_status_ok(r != NULL, &st);
		assert_status_ok(HsSstReaderFilter(r, &filter, &st), &st);
		assert_null(filter);
		assert_true(HsSstReaderMayContain(r, HsSliceMake("\0\0\0\1zz", 6)));
		check_gets(r, &d, 9, 2000);
		HsSstReaderClose(r);
	}
	test_data_free(&d);
}

/* One user key with many versions spread over many small blocks. */
static void
test_sst_versions_across_blocks(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TestData	d;
	char		path[512];
	HsStatus	st;
	HsSstReader  *r;
	HsSstBuilderOptions opts;
	HsSstMeta		meta;
	size_t		nv = 700;

	/* "a" x 1, "k" x nv versions (epochs 10, 20, ...), "z" x 1 */
	d.n = nv + 2;
	d.e = calloc(d.n, sizeof(TestEntry));
	for (size_t i = 0; i < d.n; i++)
	{
		const char *uk = i == 0 ? "a" : i == d.n - 1 ? "z" : "k";
		HsEpoch		epoch = i == 0 || i == d.n - 1 ? 5 : 10 * (nv - (i - 1));

		d.e[i].key_len = 1 + HS_MIN_FULL_KEY_LEN;
		d.e[i].key = malloc(d.e[i].key_len);
		HsFullKeyEncode(d.e[i].key, 7, uk, 1, epoch);
		d.e[i].value_len = 9;
		d.e[i].value = malloc(9);
		d.e[i].value[0] = (i % 10 == 3) ? HS_VALUE_DELETE : HS_VALUE_PUT;
		HsPutBE64(d.e[i].value + 1, epoch);
	}
	HsSstBuilderOptionsInit(&opts);
	opts.block_size = 256;
	opts.compression = HS_COMPRESSION_LZ4;
	unit_path(path, sizeof(path), "versions.sst");
	test_build_sst(&d, path, &opts, &meta);
	assert_true(meta.data_block_count > 20);
	assert_int_equal(meta.distinct_key_count, 3);
	r = HsSstReaderOpen(env, path, &st);
	assert_status_ok(r != NULL, &st);
	check_scan(r, &d);

	/* every epoch from above the newest to below the oldest */
	{
		HsBuf		value;
		uint8_t		tk[5];

		HsBufInit(&value, env);
		HsPutBE32(tk, 7);
		tk[4] = 'k';
		for (int64_t ie = 10 * (int64_t) nv + 7; ie >= -1; ie -= 3)
		{
			HsEpoch		e = ie < 0 ? HS_EPOCH_MAX : (HsEpoch) ie;
			bool		found;
			HsEpoch		got;
			long		want = test_data_get(&d, HsSliceMake(tk, 5), e);

			assert_status_ok(HsSstReaderGetVersion(r, HsSliceMake(tk, 5), e,
												 &found, &got, &value, &st), &st);
			assert_int_equal(found, want >= 0);
			if (found)
			{
				assert_int_equal(got, e == HS_EPOCH_MAX ? 10 * nv : (e / 10) * 10);
				assert_int_equal(value.data[0], d.e[want].value[0]);
				assert_int_equal(HsGetBE64(value.data + 1), got);
			}
		}
		HsBufFree(&value);
	}
	check_seeks(r, &d, 77, 100);
	HsSstReaderClose(r);
	HsSstMetaFree(env, &meta);
	test_data_free(&d);
}

static void
test_sst_tombstone_and_tables(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	char		path[512];
	HsStatus	st;
	HsSstBuilder *b;
	HsSstMeta		meta;
	HsSstReader  *r;
	uint8_t		k[64];
	size_t		n;
	HsBuf		value;
	bool		found;

	unit_path(path, sizeof(path), "tomb.sst");
	b = HsSstBuilderCreate(env, path, NULL, &st);
	assert_status_ok(b != NULL, &st);
	n = HsFullKeyEncode(k, 1, "x", 1, 20);
	assert_true(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\1", 1), &st));
	n = HsFullKeyEncode(k, 1, "x", 1, 10);
	assert_true(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\0old", 4), &st));
	n = HsFullKeyEncode(k, 3, "y", 1, 10);
	assert_true(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\0y", 2), &st));
	assert_int_equal(HsSstBuilderEntryCount(b), 3);
	assert_status_ok(HsSstBuilderFinish(b, &meta, &st), &st);
	assert_int_equal(meta.table_count, 2);
	assert_int_equal(meta.tables[0].table_id, 1);
	assert_int_equal(meta.tables[0].entry_count, 2);
	assert_int_equal(meta.tables[0].tombstone_count, 1);
	assert_int_equal(meta.tables[1].table_id, 3);
	assert_int_equal(meta.tombstone_count, 1);

	r = HsSstReaderOpen(env, path, &st);
	assert_status_ok(r != NULL, &st);
	HsBufInit(&value, env);
	/* at 25 the tombstone is the answer: found, delete kind */
	assert_true(HsSstReaderGet(r, HsSliceMake("\0\0\0\1x", 5), 25, &found, &value, &st));
	assert_true(found);
	assert_int_equal(value.len, 1);
	assert_int_equal(value.data[0], HS_VALUE_DELETE);
	/* at 15 the older put */
	assert_true(HsSstReaderGet(r, HsSliceMake("\0\0\0\1x", 5), 15, &found, &value, &st));
	assert_true(found);
	assert_memory_equal(value.data, "\0old", 4);
	/* at 5 nothing */
	assert_true(HsSstReaderGet(r, HsSliceMake("\0\0\0\1x", 5), 5, &found, &value, &st));
	assert_false(found);
	/* other table, missing table */
	assert_true(HsSstReaderGet(r, HsSliceMake("\0\0\0\3y", 5), 10, &found, &value, &st));
	assert_true(found);
	assert_true(HsSstReaderGet(r, HsSliceMake("\0\0\0\2y", 5), 10, &found, &value, &st));
	assert_false(found);
	/* a table key too short */
	assert_false(HsSstReaderGet(r, HsSliceMake("\0\0", 2), 10, &found, &value, &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	HsBufFree(&value);
	HsSstReaderClose(r);
	HsSstMetaFree(env, &meta);
}

static void
test_sst_builder_rejects(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	char		path[512];
	HsStatus	st;
	HsSstBuilder *b;
	HsSstBuilderOptions opts;
	HsSstMeta		meta;
	uint8_t		k[64];
	size_t		n;

	unit_path(path, sizeof(path), "rejects.sst");
	b = HsSstBuilderCreate(env, path, NULL, &st);
	assert_status_ok(b != NULL, &st);
	n = HsFullKeyEncode(k, 1, "m", 1, 10);
	assert_true(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\0", 1), &st));

	/* duplicate */
	assert_false(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\0", 1), &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	assert_non_null(strstr(st.msg, "duplicate"));
	/* same user key, newer epoch: out of order */
	n = HsFullKeyEncode(k, 1, "m", 1, 11);
	assert_false(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\0", 1), &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	assert_non_null(strstr(st.msg, "out of order"));
	/* smaller user key */
	n = HsFullKeyEncode(k, 1, "a", 1, 1);
	assert_false(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\0", 1), &st));
	/* smaller table id */
	n = HsFullKeyEncode(k, 0, "z", 1, 1);
	assert_false(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\0", 1), &st));
	/* short key, missing or bad value kind */
	assert_false(HsSstBuilderAdd(b, HsSliceMake(k, 11), HsSliceMake("\0", 1), &st));
	n = HsFullKeyEncode(k, 1, "n", 1, 1);
	assert_false(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("", 0), &st));
	assert_false(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\2", 1), &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	/* the builder still works: older version, then a later key */
	n = HsFullKeyEncode(k, 1, "m", 1, 9);
	assert_true(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\0", 1), &st));
	n = HsFullKeyEncode(k, 1, "n", 1, 1);
	assert_true(HsSstBuilderAdd(b, HsSliceMake(k, n), HsSliceMake("\0", 1), &st));
	assert_status_ok(HsSstBuilderFinish(b, &meta, &st), &st);
	assert_int_equal(meta.entry_count, 3);
	HsSstMetaFree(env, &meta);

	/* abandon removes the file */
	b = HsSstBuilderCreate(env, path, NULL, &st);
	assert_status_ok(b != NULL, &st);
	HsSstBuilderAbandon(b);
	assert_false(env->file_exists(env, path));

	/* bad options, unwritable path */
	HsSstBuilderOptionsInit(&opts);
	opts.compression = (HsCompression) 5;
	assert_null(HsSstBuilderCreate(env, path, &opts, &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	HsSstBuilderOptionsInit(&opts);
	opts.block_size = 1u << 30;
	assert_null(HsSstBuilderCreate(env, path, &opts, &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	assert_null(HsSstBuilderCreate(env, "/nonexistent-dir/x.sst", NULL, &st));
	assert_int_equal(st.code, HS_IO_ERROR);
	/* opening a missing file */
	assert_null(HsSstReaderOpen(env, "/nonexistent-dir/x.sst", &st));
	assert_int_equal(st.code, HS_NOT_FOUND);
}

static void
test_sst_empty(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TestData	d = {NULL, 0};
	char		path[512];
	HsStatus	st;
	HsSstMeta		meta;
	HsSstReader  *r;
	const HsBloomFilter *filter;

	unit_path(path, sizeof(path), "empty.sst");
	test_build_sst(&d, path, NULL, &meta);
	assert_int_equal(meta.entry_count, 0);
	assert_null(meta.smallest_key);
	assert_int_equal(meta.table_count, 0);
	r = HsSstReaderOpen(env, path, &st);
	assert_status_ok(r != NULL, &st);
	assert_int_equal(HsSstReaderBlockCount(r), 0);
	assert_status_ok(HsSstReaderFilter(r, &filter, &st), &st);
	assert_null(filter);
	check_scan(r, &d);
	check_gets(r, &d, 1, 50);
	check_seeks(r, &d, 2, 20);
	HsSstReaderClose(r);
	HsSstMetaFree(env, &meta);
}

static void
test_sst_block_cache(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TestDataSpec spec = {5000, 3, 2, 16, 60, 10};
	TestData	d = test_data_make(&spec, 31);
	char		path1[512],
				path2[512];
	HsStatus	st;
	HsSstReaderOptions ro;
	HsSstReader  *r1,
			   *r2;
	HsSstBuilderOptions opts;
	uint64_t	hits,
				misses;

	HsSstBuilderOptionsInit(&opts);
	opts.block_size = 1024;
	opts.compression = HS_COMPRESSION_ZSTD;
	unit_path(path1, sizeof(path1), "cache1.sst");
	unit_path(path2, sizeof(path2), "cache2.sst");
	test_build_sst(&d, path1, &opts, NULL);
	opts.compression = HS_COMPRESSION_LZ4;
	test_build_sst(&d, path2, &opts, NULL);

	HsSstReaderOptionsInit(&ro);
	/* small: forces evictions while two readers share it */
	ro.block_cache = HsBlockCacheCreate(env, 64 * 1024);
	r1 = HsSstReaderOpenWithOptions(env, path1, &ro, &st);
	assert_status_ok(r1 != NULL, &st);
	r2 = HsSstReaderOpenWithOptions(env, path2, &ro, &st);
	assert_status_ok(r2 != NULL, &st);
	for (int round = 0; round < 3; round++)
	{
		check_gets(r1, &d, 40 + round, 3000);
		check_gets(r2, &d, 40 + round, 3000);
		check_scan(r1, &d);
	}
	HsBlockCacheStats(ro.block_cache, &hits, &misses);
	assert_true(hits > 0 && misses > 0);
	assert_true(HsBlockCacheUsage(ro.block_cache) <= 64 * 1024);
	HsSstReaderClose(r1);
	check_gets(r2, &d, 50, 1000);
	HsSstReaderClose(r2);
	assert_int_equal(HsBlockCacheUsage(ro.block_cache), 0);
	HsBlockCacheDestroy(ro.block_cache);

	/* a cache big enough for everything: the second round only hits */
	ro.block_cache = HsBlockCacheCreate(env, 64 << 20);
	r1 = HsSstReaderOpenWithOptions(env, path1, &ro, &st);
	assert_status_ok(r1 != NULL, &st);
	check_gets(r1, &d, 60, 5000);
	HsBlockCacheStats(ro.block_cache, &hits, &misses);
	check_gets(r1, &d, 60, 5000);
	{
		uint64_t	h2,
					m2;

		HsBlockCacheStats(ro.block_cache, &h2, &m2);
		assert_int_equal(m2, misses);
		assert_true(h2 > hits);
	}
	/* the iterator uses cached blocks too */
	check_scan(r1, &d);
	check_seeks(r1, &d, 61, 200);
	HsSstReaderClose(r1);
	HsBlockCacheDestroy(ro.block_cache);
	test_data_free(&d);
}

/* Large values and keys, block size smaller than one entry. */
static void
test_sst_large_entries(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TestDataSpec spec = {60, 2, 1, 200, 70000, 10};
	TestData	d = test_data_make(&spec, 41);
	char		path[512];
	HsStatus	st;
	HsSstReader  *r;
	HsSstBuilderOptions opts;

	for (size_t k = 0; k < 3; k++)
	{
		HsSstBuilderOptionsInit(&opts);
		opts.block_size = 512;
		opts.compression = all_kinds[k];
		unit_path(path, sizeof(path), "large.sst");
		test_build_sst(&d, path, &opts, NULL);
		r = HsSstReaderOpen(env, path, &st);
		assert_status_ok(r != NULL, &st);
		check_scan(r, &d);
		check_gets(r, &d, 5, 300);
		HsSstReaderClose(r);
	}
	test_data_free(&d);
}

static const struct CMUnitTest sst_tests[] = {
	cmocka_unit_test(test_sst_round_trip_matrix),
	cmocka_unit_test(test_sst_filter_rejects_absent),
	cmocka_unit_test(test_sst_versions_across_blocks),
	cmocka_unit_test(test_sst_tombstone_and_tables),
	cmocka_unit_test(test_sst_builder_rejects),
	cmocka_unit_test(test_sst_empty),
	cmocka_unit_test(test_sst_block_cache),
	cmocka_unit_test(test_sst_large_entries),
};

UNIT_SUITE(sst)
{
	*tests = sst_tests;
	return sizeof(sst_tests) / sizeof(sst_tests[0]);
}
