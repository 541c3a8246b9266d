/*-------------------------------------------------------------------------
 *
 * sst_test_util.h
 *	  Helpers shared by the SST-format unit tests: random sorted data sets,
 *	  an in-memory model of "newest version <= epoch", and file surgery.
 *
 * A data set is an array of (full key, value) entries sorted by
 * HsFullKeyCompare with no duplicates, built from random table ids, user
 * keys drawn from a small alphabet (so keys share prefixes, and some are
 * prefixes of others) and one or more versions per key at distinct
 * epochs.  Values are a kind byte (put or delete) and random payload.
 *
 * test/unit/sst_test_util.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_SST_TEST_UTIL_H
#define HS_SST_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/key.h"
#include "hummock_stream/storage/sst_builder.h"
#include "hummock_stream/storage/sst_reader.h"

typedef struct TestEntry
{
	uint8_t    *key;
	size_t		key_len;
	uint8_t    *value;
	size_t		value_len;
} TestEntry;

typedef struct TestData
{
	TestEntry  *e;
	size_t		n;
} TestData;

typedef struct TestDataSpec
{
	size_t		num_keys;		/* distinct table keys (before dedup) */
	int			max_versions;	/* 1..max versions per key */
	int			num_tables;		/* table ids 1..num_tables (x 1000) */
	size_t		max_user_key;	/* user key length 0..max */
	size_t		max_payload;	/* value payload 0..max */
	int			delete_pct;		/* share of tombstones */
} TestDataSpec;

static inline HsSlice
test_key(const TestEntry *e)
{
	return HsSliceMake(e->key, e->key_len);
}

static inline HsSlice
test_value(const TestEntry *e)
{
	return HsSliceMake(e->value, e->value_len);
}

static inline int
test_entry_cmp(const void *a, const void *b)
{
	return HsFullKeyCompare(test_key(a), test_key(b));
}

/* Random sorted data set (deterministic for a seed). */
static inline TestData
test_data_make(const TestDataSpec *spec, uint64_t seed)
{
	TestData	d;
	size_t		cap = 0;
	uint64_t	rs = seed;
	size_t		out = 0;

	for (size_t i = 0; i < spec->num_keys; i++)
		cap += (size_t) spec->max_versions;
	d.e = calloc(cap ? cap : 1, sizeof(TestEntry));
	d.n = 0;
	for (size_t i = 0; i < spec->num_keys; i++)
	{
		uint8_t		uk[256];
		size_t		uklen = (size_t) (unit_rand(&rs) % (spec->max_user_key + 1));
		HsTableId	tid = (HsTableId) (1000 * (1 + unit_rand(&rs) % spec->num_tables));
		int			nv = 1 + (int) (unit_rand(&rs) % spec->max_versions);
		HsEpoch		epoch = 1 + unit_rand(&rs) % 1000;

		for (size_t j = 0; j < uklen; j++)
			uk[j] = (uint8_t) ("abcd\x00\xff"[unit_rand(&rs) % 6]);
		for (int v = 0; v < nv; v++)
		{
			TestEntry  *e = &d.e[d.n++];
			size_t		plen = (size_t) (unit_rand(&rs) % (spec->max_payload + 1));
			bool		del = (int) (unit_rand(&rs) % 100) < spec->delete_pct;

			e->key_len = uklen + HS_MIN_FULL_KEY_LEN;
			e->key = malloc(e->key_len);
			HsFullKeyEncode(e->key, tid, uk, uklen, epoch);
			epoch += 1 + unit_rand(&rs) % 50;
			if (del)
				plen = 0;
			e->value_len = plen + 1;
			e->value = malloc(e->value_len);
			e->value[0] = del ? HS_VALUE_DELETE : HS_VALUE_PUT;
			/* a random 8-byte pattern, repeated: compressible */
			{
				uint64_t	pattern = unit_rand(&rs);

				for (size_t j = 0; j < plen; j++)
					e->value[1 + j] = (uint8_t) (pattern >> (8 * (j % 8)));
			}
		}
	}
	qsort(d.e, d.n, sizeof(TestEntry), test_entry_cmp);
	/* drop duplicate full keys */
	for (size_t i = 0; i < d.n; i++)
	{
		if (out > 0 && test_entry_cmp(&d.e[out - 1], &d.e[i]) == 0)
		{
			free(d.e[i].key);
			free(d.e[i].value);
			continue;
		}
		d.e[out++] = d.e[i];
	}
	d.n = out;
	return d;
}

static inline void
test_data_free(TestData *d)
{
	for (size_t i = 0; i < d->n; i++)
	{
		free(d->e[i].key);
		free(d->e[i].value);
	}
	free(d->e);
	d->e = NULL;
	d->n = 0;
}

/* Index of the first entry >= target (d->n if none). */
static inline size_t
test_data_lower_bound(const TestData *d, HsSlice target)
{
	size_t		lo = 0,
				hi = d->n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (HsFullKeyCompare(test_key(&d->e[mid]), target) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Model of HsSstReaderGet: entry index or -1. */
static inline long
test_data_get(const TestData *d, HsSlice table_key, HsEpoch epoch)
{
	uint8_t		buf[512];
	size_t		i;

	memcpy(buf, table_key.data, table_key.len);
	HsPutBE64(buf + table_key.len, ~epoch);
	i = test_data_lower_bound(d, HsSliceMake(buf, table_key.len + 8));
	if (i < d->n && d->e[i].key_len == table_key.len + 8 &&
		memcmp(d->e[i].key, table_key.data, table_key.len) == 0)
		return (long) i;
	return -1;
}

/* Build an SST of d at path; fails the test on error. */
static inline void
test_build_sst(const TestData *d, const char *path,
			   const HsSstBuilderOptions *opts, HsSstMeta *meta)
{
	HsEnv	   *env = HsEnvPosix();
	HsStatus	st;
	HsSstBuilder *b = HsSstBuilderCreate(env, path, opts, &st);
	HsSstMeta		m;

	assert_status_ok(b != NULL, &st);
	for (size_t i = 0; i < d->n; i++)
	{
		bool		ok = HsSstBuilderAdd(b, test_key(&d->e[i]),
									   test_value(&d->e[i]), &st);

		if (!ok)
			HsSstBuilderAbandon(b);
		assert_status_ok(ok, &st);
	}
	assert_status_ok(HsSstBuilderFinish(b, meta ? meta : &m, &st), &st);
	if (meta == NULL)
		HsSstMetaFree(env, &m);
}

/* ---- file surgery ---- */

static inline uint8_t *
test_read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *buf;
	long		n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t) n : 1);
	assert_int_equal(fread(buf, 1, (size_t) n, f), (size_t) n);
	fclose(f);
	*len = (size_t) n;
	return buf;
}

static inline void
test_write_file(const char *path, const uint8_t *data, size_t len)
{
	FILE	   *f;

	/*
	 * A fresh file rather than a truncated one: ext4 flushes a file that
	 * is truncated and rewritten on close (auto_da_alloc), which is slow.
	 */
	unlink(path);
	f = fopen(path, "wb");
	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/*
 * Open the SST, scan it fully and run a few gets; return the first error
 * code met (HS_OK if none).  Used on damaged files: must never crash.
 */
static inline HsCode
test_check_sst(const char *path, HsStatus *st, bool verify)
{
	HsEnv	   *env = HsEnvPosix();
	HsSstReaderOptions ro;
	HsSstReader  *r;
	HsIterator *it;
	HsBuf		value;
	HsCode		code = HS_OK;

	HsSstReaderOptionsInit(&ro);
	ro.verify_checksums = verify;
	HsStatusClear(st);
	r = HsSstReaderOpenWithOptions(env, path, &ro, st);
	if (r == NULL)
		return st->code;
	it = HsSstReaderNewIterator(r);
	HsBufInit(&value, env);
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
	{
		HsSlice		k = HsIterKey(it);
		bool		found;

		/* get every key back: exercises the index and block seek */
		if (!HsSstReaderGet(r, HsFullKeyTableKey(k), HsFullKeyEpoch(k),
						  &found, &value, st))
		{
			code = st->code;
			break;
		}
	}
	if (code == HS_OK && !HsIterStatus(it, st))
		code = st->code;
	HsBufFree(&value);
	HsIterDestroy(it);
	HsSstReaderClose(r);
	return code;
}

#endif							/* HS_SST_TEST_UTIL_H */
