/*-------------------------------------------------------------------------
 *
 * test_user_iter.c
 *	  Unit tests of user_iter.c, and a model-based test of the read path.
 *
 * Hand-written cases pin down versions, tombstones, bounds (also in page
 * mode over an SST, where the in-block loop checks the upper bound), seeks,
 * bad entries and inner failures.  The model test then plays thousands of
 * random puts and deletes at increasing epochs into an LSM-like stack of
 * runs (a memtable, flushed runs, compacted runs), and checks that full
 * scans, per-table scans, seeks and point lookups through merge + user
 * iterators at random epochs equal a simple in-memory model.  Runs are
 * in-memory vectors or real SST files (each compression kind, random block
 * sizes, restart intervals and filters, some behind a block cache), and
 * point lookups are also answered the L0 way: HsSstReaderGet on each run,
 * newest first.
 *
 * test/unit/test_user_iter.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "iter_util.h"
#include "hummock_stream/storage/merge_iter.h"
#include "hummock_stream/storage/sst_builder.h"
#include "hummock_stream/storage/sst_reader.h"
#include "hummock_stream/storage/user_iter.h"
#include "hummock_stream/storage/vec_iter.h"

/* ----------------------------------------------------------------
 *		entries with inline storage
 * ----------------------------------------------------------------
 */

#define UKEY_MAX	8
#define UVAL_MAX	32

typedef struct UEnt
{
	uint8_t		key[UKEY_MAX + HS_MIN_FULL_KEY_LEN];
	uint8_t		klen;
	uint8_t		val[UVAL_MAX + 1];
	uint8_t		vlen;
} UEnt;

static int
uent_cmp(const void *a, const void *b)
{
	const UEnt *x = a;
	const UEnt *y = b;

	return HsFullKeyCompare(HsSliceMake(x->key, x->klen),
							HsSliceMake(y->key, y->klen));
}

static void
uent_set(UEnt *e, HsTableId t, const char *uk, HsEpoch epoch,
		 const char *row)
{
	e->klen = (uint8_t) HsFullKeyEncode(e->key, t, uk, strlen(uk), epoch);
	if (row == NULL)
	{
		e->val[0] = HS_VALUE_DELETE;
		e->vlen = 1;
	}
	else
	{
		e->val[0] = HS_VALUE_PUT;
		memcpy(e->val + 1, row, strlen(row));
		e->vlen = (uint8_t) (1 + strlen(row));
	}
}

static void
free_entries(void *arg)
{
	free(arg);
}

/* A vector iterator over ents[0 .. n), which must be sorted. */
static HsIterator *
uents_iter(HsEnv *env, const UEnt *ents, size_t n)
{
	HsVecEntry *ve = malloc(sizeof(HsVecEntry) * (n ? n : 1));

	for (size_t i = 0; i < n; i++)
	{
		ve[i].key = HsSliceMake(ents[i].key, ents[i].klen);
		ve[i].value = HsSliceMake(ents[i].val, ents[i].vlen);
	}
	return HsVecIterCreate(env, ve, n, free_entries, ve);
}

/* Collect a scan as "t:uk@epoch=row" strings joined by spaces. */
static void
scan_string(HsIterator *it, char *out, size_t outlen)
{
	size_t		used = 0;

	out[0] = '\0';
	for (; HsIterValid(it); HsIterNext(it))
	{
		HsSlice		k = HsIterKey(it);
		HsSlice		uk = HsFullKeyUserKey(k);
		HsSlice		row = HsUserIterRow(it);

		used += snprintf(out + used, outlen - used, "%s%u:%.*s@%llu=%.*s",
						 used ? " " : "", HsFullKeyTableId(k),
						 (int) uk.len, (const char *) uk.data,
						 (unsigned long long) HsFullKeyEpoch(k),
						 (int) row.len, (const char *) row.data);
		assert_true(used < outlen);
	}
}

/* Table key t | uk into buf. */
static HsSlice
table_key(uint8_t *buf, HsTableId t, const char *uk)
{
	HsPutBE32(buf, t);
	memcpy(buf + HS_TABLE_ID_LEN, uk, strlen(uk));
	return HsSliceMake(buf, HS_TABLE_ID_LEN + strlen(uk));
}

/* The fixed data set of the hand-written tests (sorted). */
static UEnt *
sample_entries(size_t *n)
{
	static const struct
	{
		HsTableId	t;
		const char *uk;
		HsEpoch		e;
		const char *row;
	}			rows[] = {
		{1, "z", 4, "z4"},
		{2, "a", 10, "a10"},
		{2, "a", 8, NULL},
		{2, "a", 5, "a5"},
		{2, "a", 2, "a2"},
		{2, "b", 7, "b7"},
		{2, "c", 9, NULL},
		{2, "d", 3, "d3"},
		{3, "", 1, "e1"},
	};
	size_t		k = sizeof(rows) / sizeof(rows[0]);
	UEnt	   *e = malloc(sizeof(UEnt) * k);

	for (size_t i = 0; i < k; i++)
		uent_set(&e[i], rows[i].t, rows[i].uk, rows[i].e, rows[i].row);
	qsort(e, k, sizeof(UEnt), uent_cmp);
	*n = k;
	return e;
}

/* ----------------------------------------------------------------
 *		hand-written cases
 * ----------------------------------------------------------------
 */

static void
test_user_iter_versions(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	size_t		n;
	UEnt	   *e = sample_entries(&n);
	char		out[512];
	static const struct
	{
		HsEpoch		epoch;
		const char *expect;
	}			cases[] = {
		{0, ""},
		{1, "3:@1=e1"},
		{2, "2:a@2=a2 3:@1=e1"},
		{4, "1:z@4=z4 2:a@2=a2 2:d@3=d3 3:@1=e1"},
		{5, "1:z@4=z4 2:a@5=a5 2:d@3=d3 3:@1=e1"},
		{7, "1:z@4=z4 2:a@5=a5 2:b@7=b7 2:d@3=d3 3:@1=e1"},
		{8, "1:z@4=z4 2:b@7=b7 2:d@3=d3 3:@1=e1"},
		{9, "1:z@4=z4 2:b@7=b7 2:d@3=d3 3:@1=e1"},
		{10, "1:z@4=z4 2:a@10=a10 2:b@7=b7 2:d@3=d3 3:@1=e1"},
		{HS_EPOCH_MAX, "1:z@4=z4 2:a@10=a10 2:b@7=b7 2:d@3=d3 3:@1=e1"},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		HsIterator *ui = HsUserIterCreate(env, uents_iter(env, e, n),
										  cases[c].epoch, NULL, NULL);
		HsStatus	st;

		HsIterSeekToFirst(ui);
		scan_string(ui, out, sizeof(out));
		assert_string_equal(out, cases[c].expect);
		assert_true(HsIterStatus(ui, &st));
		HsIterDestroy(ui);
	}
	free(e);
}

static void
test_user_iter_seek(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	size_t		n;
	UEnt	   *e = sample_entries(&n);
	uint8_t		buf[32];
	char		out[512];
	HsIterator *ui = HsUserIterCreate(env, uents_iter(env, e, n), 8,
									  NULL, NULL);

	/* before the first key */
	HsIterSeek(ui, HsSliceMake(buf, 0));
	assert_true(HsIterValid(ui));
	assert_int_equal(HsFullKeyTableId(HsIterKey(ui)), 1);
	/* exact, on a key deleted at the read epoch: the next visible one */
	HsIterSeek(ui, table_key(buf, 2, "a"));
	scan_string(ui, out, sizeof(out));
	assert_string_equal(out, "2:b@7=b7 2:d@3=d3 3:@1=e1");
	/* exact, visible */
	HsIterSeek(ui, table_key(buf, 2, "d"));
	scan_string(ui, out, sizeof(out));
	assert_string_equal(out, "2:d@3=d3 3:@1=e1");
	/* between keys: "b\x01" sorts after "b" */
	HsIterSeek(ui, table_key(buf, 2, "b\x01"));
	scan_string(ui, out, sizeof(out));
	assert_string_equal(out, "2:d@3=d3 3:@1=e1");
	/* past the last key */
	HsIterSeek(ui, table_key(buf, 3, "a"));
	assert_false(HsIterValid(ui));
	HsIterSeek(ui, table_key(buf, 9, ""));
	assert_false(HsIterValid(ui));
	HsIterDestroy(ui);

	/* a key whose every version is newer than the read epoch */
	ui = HsUserIterCreate(env, uents_iter(env, e, n), 6, NULL, NULL);
	HsIterSeek(ui, table_key(buf, 2, "b"));
	scan_string(ui, out, sizeof(out));
	assert_string_equal(out, "2:d@3=d3 3:@1=e1");
	HsIterSeek(ui, table_key(buf, 2, "a"));
	assert_true(HsIterValid(ui));
	assert_int_equal(HsFullKeyEpoch(HsIterKey(ui)), 5);
	HsIterDestroy(ui);
	free(e);
}

static void
test_user_iter_bounds(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	size_t		n;
	UEnt	   *e = sample_entries(&n);
	uint8_t		b1[32],
				b2[32],
				b3[32];
	HsSlice		lo,
				hi;
	char		out[512];
	HsIterator *ui;

	/* one table: stops at its end, and seeks are clamped into it */
	ui = HsUserIterCreateForTable(env, uents_iter(env, e, n), 10, 2);
	HsIterSeekToFirst(ui);
	scan_string(ui, out, sizeof(out));
	assert_string_equal(out, "2:a@10=a10 2:b@7=b7 2:d@3=d3");
	HsIterSeek(ui, table_key(b1, 1, "zz"));
	scan_string(ui, out, sizeof(out));
	assert_string_equal(out, "2:a@10=a10 2:b@7=b7 2:d@3=d3");
	HsIterSeek(ui, table_key(b1, 2, "c"));
	scan_string(ui, out, sizeof(out));
	assert_string_equal(out, "2:d@3=d3");
	HsIterSeek(ui, table_key(b1, 3, ""));
	assert_false(HsIterValid(ui));
	HsIterDestroy(ui);

	/* an empty table, and the last possible table id */
	ui = HsUserIterCreateForTable(env, uents_iter(env, e, n), 10, 0);
	HsIterSeekToFirst(ui);
	assert_false(HsIterValid(ui));
	HsIterDestroy(ui);
	ui = HsUserIterCreateForTable(env, uents_iter(env, e, n), 10, UINT32_MAX);
	HsIterSeekToFirst(ui);
	assert_false(HsIterValid(ui));
	HsIterDestroy(ui);

	/* explicit [2:b, 2:d): only b; lower only; upper only */
	lo = table_key(b2, 2, "b");
	hi = table_key(b3, 2, "d");
	ui = HsUserIterCreate(env, uents_iter(env, e, n), 10, &lo, &hi);
	HsIterSeekToFirst(ui);
	scan_string(ui, out, sizeof(out));
	assert_string_equal(out, "2:b@7=b7");
	HsIterDestroy(ui);
	ui = HsUserIterCreate(env, uents_iter(env, e, n), 10, &lo, NULL);
	HsIterSeekToFirst(ui);
	scan_string(ui, out, sizeof(out));
	assert_string_equal(out, "2:b@7=b7 2:d@3=d3 3:@1=e1");
	HsIterDestroy(ui);
	ui = HsUserIterCreate(env, uents_iter(env, e, n), 10, NULL, &hi);
	HsIterSeekToFirst(ui);
	scan_string(ui, out, sizeof(out));
	assert_string_equal(out, "1:z@4=z4 2:a@10=a10 2:b@7=b7");
	HsIterDestroy(ui);
	free(e);
}

/*
 * A hot key with many versions (and a hot deleted key) between neighbours:
 * exercises the switch from stepping to seeking over versions.
 */
/*
 * Scans in page mode over one SST, most bounded as parallel chunks read: the
 * in-block loop decides most rows against the upper bound from the bytes
 * they share with the previous key (below_upper).  Keys are 1- and 2-byte
 * user keys over a small alphabet (so neighbours share 0 to 6 bytes, some
 * keys are prefixes of others, and some share a byte of the previous
 * key's epoch), some with an older version; the bounds are every key,
 * every key followed by a byte, and every key cut short by a byte.  Each
 * row's value names its key.
 */
/*
 * Scan ui in page mode (pages of 256) and destroy it: its rows must be
 * "0", "1", ... in order; returns how many there were.
 */
static int
count_numbered_rows(HsIterator *ui)
{
	HsStatus	st;
	int			got = 0;

	for (HsIterSeekToFirst(ui); HsIterValid(ui); HsIterNext(ui))
	{
		HsSlice		page[256];
		int			m = HsUserIterFill(ui, page, 256);

		for (int i = 0; i < m; i++, got++)
		{
			char		row[16];

			snprintf(row, sizeof(row), "%d", got);
			assert_int_equal(page[i].len, 1 + strlen(row));
			assert_memory_equal(page[i].data + 1, row, strlen(row));
		}
	}
	assert_true(HsIterStatus(ui, &st));
	HsIterDestroy(ui);
	return got;
}

static void
bounded_fill_case(bool with_old)
{
	HsEnv	   *env = HsEnvPosix();
	enum
	{
		A = 10
	};
	UEnt	   *ents = calloc(2 * A * (A + 2), sizeof(UEnt));
	int			nkeys = 0;
	size_t		n = 0;
	char		path[512];
	HsSstBuilderOptions opts;
	HsSstBuilder *b;
	HsSstMeta		meta;
	HsSstReader  *r;
	HsIterator *ui;
	HsStatus	st;
	uint8_t		tks[A * (A + 2)][16];
	size_t		tklens[A * (A + 2)];

	for (int x = 1; x <= A; x++)
		for (int y = 0; y <= A + 1; y++)
		{
			/* odd x: x, x 1 .. x A, x ff; even x: x, x ff */
			int			yb = y == A + 1 ? 0xff : y;
			char		uk[3] = {(char) x, (char) yb, 0};
			char		row[16];

			if (x % 2 == 0 && y > 0 && y <= A)
				continue;

			snprintf(row, sizeof(row), "%d", nkeys);
			uent_set(&ents[n++], 1, uk, 20, row);
			if (with_old && nkeys % 3 == 0)
				uent_set(&ents[n++], 1, uk, 10, "old");
			tklens[nkeys] = HsFullKeyTableKey(HsSliceMake(ents[n - 1].key,
														  ents[n - 1].klen)).len;
			memcpy(tks[nkeys], ents[n - 1].key, tklens[nkeys]);
			nkeys++;
		}
	qsort(ents, n, sizeof(UEnt), uent_cmp);

	HsSstBuilderOptionsInit(&opts);
	opts.block_size = 256;
	opts.restart_interval = 4;
	unit_path(path, sizeof(path), "bounded_fill.sst");
	b = HsSstBuilderCreate(env, path, &opts, &st);
	assert_status_ok(b != NULL, &st);
	for (size_t i = 0; i < n; i++)
		assert_status_ok(HsSstBuilderAdd(b, HsSliceMake(ents[i].key, ents[i].klen),
									   HsSliceMake(ents[i].val, ents[i].vlen),
									   &st), &st);
	assert_status_ok(HsSstBuilderFinish(b, &meta, &st), &st);
	HsSstMetaFree(env, &meta);
	r = HsSstReaderOpen(env, path, &st);
	assert_status_ok(r != NULL, &st);

	/* the whole table, bounded by its table id only */
	ui = HsUserIterCreateForTable(env, HsSstReaderNewIterator(r), 30, 1);
	assert_int_equal(count_numbered_rows(ui), nkeys);

	for (int k = 0; k < nkeys; k++)
		for (int variant = 0; variant < 3; variant++)
		{
			uint8_t		ub[17];
			uint8_t		lb[4];
			HsSlice		upper = HsSliceMake(ub, tklens[k]);
			HsSlice		lower = HsSliceMake(lb, 4);
			int			want = 0;

			memcpy(ub, tks[k], tklens[k]);
			if (variant == 1)
				ub[upper.len++] = 0x01;
			else if (variant == 2)
				upper.len--;
			HsPutBE32(lb, 1);
			/* the keys were made in key order: want counts those below upper */
			while (want < nkeys &&
				   HsSliceCompare(HsSliceMake(tks[want], tklens[want]), upper) < 0)
				want++;

			ui = HsUserIterCreate(env, HsSstReaderNewIterator(r), 30, &lower, &upper);
			assert_int_equal(count_numbered_rows(ui), want);
		}
	HsSstReaderClose(r);
	assert_true(env->remove(env, path, &st));
	free(ents);
}

/* With older versions of some keys, and with one version per key. */
static void
test_user_iter_bounded_fill(void **state)
{
	bounded_fill_case(true);
	bounded_fill_case(false);
}

static void
test_user_iter_many_versions(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	UEnt		e[205];
	size_t		n = 0;
	char		out[512];
	char		expect[512];

	uent_set(&e[n++], 1, "a", 50, "a50");
	for (int ep = 1; ep <= 100; ep++)
	{
		char		row[16];

		snprintf(row, sizeof(row), "h%d", ep);
		uent_set(&e[n++], 1, "h", ep, row);
		/* "x": deleted at every even epoch */
		uent_set(&e[n++], 1, "x", ep, (ep % 2) ? "x" : NULL);
	}
	uent_set(&e[n++], 1, "z", 1, "z1");
	qsort(e, n, sizeof(UEnt), uent_cmp);

	for (HsEpoch ep = 0; ep <= 101; ep++)
	{
		HsIterator *ui = HsUserIterCreate(env, uents_iter(env, e, n), ep,
										  NULL, NULL);
		HsEpoch		h = ep > 100 ? 100 : ep;
		size_t		used = 0;

		expect[0] = '\0';
		if (ep >= 50)
			used += snprintf(expect + used, sizeof(expect) - used,
							 "1:a@50=a50");
		if (h >= 1)
			used += snprintf(expect + used, sizeof(expect) - used,
							 "%s1:h@%llu=h%llu", used ? " " : "",
							 (unsigned long long) h, (unsigned long long) h);
		if (h % 2 == 1)
			used += snprintf(expect + used, sizeof(expect) - used,
							 "%s1:x@%llu=x", used ? " " : "",
							 (unsigned long long) h);
		if (ep >= 1)
			snprintf(expect + used, sizeof(expect) - used, "%s1:z@1=z1",
					 used ? " " : "");

		HsIterSeekToFirst(ui);
		scan_string(ui, out, sizeof(out));
		assert_string_equal(out, expect);
		HsIterDestroy(ui);
	}
}

/* Entries the user iterator must refuse. */
static void
test_user_iter_corruption(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	UEnt		e[2];
	HsIterator *ui;
	HsStatus	st;

	for (int c = 0; c < 3; c++)
	{
		uent_set(&e[0], 1, "a", 5, "ok");
		uent_set(&e[1], 1, "b", 5, "bad");
		if (c == 0)
			e[1].vlen = 0;
		else if (c == 1)
			e[1].val[0] = 7;
		else
			e[1].klen = HS_MIN_FULL_KEY_LEN - 1;
		ui = HsUserIterCreate(env, uents_iter(env, e, 2), 9, NULL, NULL);
		HsIterSeekToFirst(ui);
		assert_true(HsIterValid(ui));
		HsIterNext(ui);
		assert_false(HsIterValid(ui));
		assert_false(HsIterStatus(ui, &st));
		assert_int_equal(st.code, HS_CORRUPTION);
		/* sticky */
		HsIterSeekToFirst(ui);
		assert_false(HsIterValid(ui));
		HsIterDestroy(ui);
	}
}

/* An inner failure at any point ends the scan with the inner status. */
static void
test_user_iter_inner_error(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	size_t		n;
	UEnt	   *e = sample_entries(&n);

	for (int fail_after = 0; fail_after < 12; fail_after++)
	{
		HsIterator *inner = UnitFailIterCreate(env, uents_iter(env, e, n),
											   fail_after);
		HsIterator *children[2];
		HsIterator *ui;
		HsStatus	st;

		children[0] = inner;
		children[1] = uents_iter(env, e, 0);
		ui = HsUserIterCreate(env, HsMergeIterCreate(env, children, 2),
							  HS_EPOCH_MAX, NULL, NULL);
		for (HsIterSeekToFirst(ui); HsIterValid(ui); HsIterNext(ui))
			;
		if (fail_after >= 10)
		{
			/* seek plus n nexts: the scan never needs the failing move */
			assert_true(HsIterStatus(ui, &st));
		}
		else
		{
			assert_false(HsIterStatus(ui, &st));
			assert_int_equal(st.code, HS_IO_ERROR);
		}
		HsIterDestroy(ui);
	}
	free(e);
}

/* ----------------------------------------------------------------
 *		model-based test
 * ----------------------------------------------------------------
 */

#define M_NKEYS		150
#define M_NOPS		6000
#define M_MAXRUNS	64

/* One write in the model, in program order. */
typedef struct MOp
{
	int			key;			/* index into the key pool */
	HsEpoch		epoch;
	bool		del;
	uint8_t		vlen;
	uint8_t		val[UVAL_MAX];
} MOp;

/* The key pool, sorted by table key. */
typedef struct MKey
{
	HsTableId	t;
	uint8_t		uk[UKEY_MAX];
	uint8_t		uklen;
	uint8_t		tk[HS_TABLE_ID_LEN + UKEY_MAX];
	uint8_t		tklen;
} MKey;

/*
 * A run of the LSM: sorted entries with distinct full keys, either in
 * memory (ents) or in an SST file (reader; ents is then NULL).
 */
typedef struct MRun
{
	UEnt	   *ents;
	size_t		n;
	HsSstReader  *reader;
	char		path[256];
} MRun;

typedef struct Model
{
	MKey		keys[M_NKEYS];
	MOp		   *ops;
	int			nops;
	/* runs[0] is the oldest */
	MRun		runs[M_MAXRUNS];
	int			nruns;
	int			mem_start;		/* first op not yet flushed */
	uint64_t	rng;
	int			sealed;			/* runs sealed so far (picks the kind) */
	int			sst_kinds[HS_COMPRESSION_KIND_MAX + 1];
	HsBlockCache *cache;		/* shared by some of the SST runs */
} Model;

static int
mkey_cmp(const void *a, const void *b)
{
	const MKey *x = a;
	const MKey *y = b;

	return HsSliceCompare(HsSliceMake(x->tk, x->tklen),
						  HsSliceMake(y->tk, y->tklen));
}

static void
model_make_keys(Model *m)
{
	static const uint8_t alphabet[] = {0x00, 'a', 'b', 'c', 0xff};
	static const HsTableId tables[] = {1, 2, 5};
	int			n = 0;

	while (n < M_NKEYS)
	{
		MKey	   *k = &m->keys[n];
		bool		dup = false;

		k->t = tables[unit_rand(&m->rng) % 3];
		k->uklen = (uint8_t) (unit_rand(&m->rng) % 7);
		for (int i = 0; i < k->uklen; i++)
			k->uk[i] = alphabet[unit_rand(&m->rng) % 5];
		HsPutBE32(k->tk, k->t);
		memcpy(k->tk + HS_TABLE_ID_LEN, k->uk, k->uklen);
		k->tklen = (uint8_t) (HS_TABLE_ID_LEN + k->uklen);
		for (int j = 0; j < n && !dup; j++)
			dup = mkey_cmp(&m->keys[j], k) == 0;
		if (!dup)
			n++;
	}
	qsort(m->keys, M_NKEYS, sizeof(MKey), mkey_cmp);
}

static void
op_to_uent(const Model *m, const MOp *op, UEnt *e)
{
	const MKey *k = &m->keys[op->key];

	e->klen = (uint8_t) HsFullKeyEncode(e->key, k->t, k->uk, k->uklen,
										op->epoch);
	e->val[0] = op->del ? HS_VALUE_DELETE : HS_VALUE_PUT;
	memcpy(e->val + 1, op->val, op->vlen);
	e->vlen = (uint8_t) (1 + (op->del ? 0 : op->vlen));
}

/*
 * Sort ops[from .. to) into a run, keeping only the last write of each
 * (key, epoch), as a memtable does.  A stable sort by full key keeps
 * program order among equal keys.
 */
static MRun
model_build_run(const Model *m, int from, int to)
{
	MRun		run;
	size_t		cnt = (size_t) (to - from);
	UEnt	   *tmp = malloc(sizeof(UEnt) * (cnt ? cnt : 1));
	size_t		out = 0;

	/* insertion into a sorted array: runs are small, stability matters */
	for (int i = from; i < to; i++)
	{
		UEnt		e;
		size_t		lo = 0,
					hi = out;

		op_to_uent(m, &m->ops[i], &e);
		while (lo < hi)
		{
			size_t		mid = (lo + hi) / 2;

			if (uent_cmp(&tmp[mid], &e) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < out && uent_cmp(&tmp[lo], &e) == 0)
			tmp[lo] = e;		/* a later write of the same version */
		else
		{
			memmove(&tmp[lo + 1], &tmp[lo], sizeof(UEnt) * (out - lo));
			tmp[lo] = e;
			out++;
		}
	}
	memset(&run, 0, sizeof(run));
	run.ents = tmp;
	run.n = out;
	return run;
}

/*
 * Turn a freshly built in-memory run into its final form: one in four
 * stays in memory, the others become an SST file of each compression kind
 * in turn, with random block size, restart interval and filter.
 */
static MRun
model_seal_run(HsEnv *env, Model *m, MRun run)
{
	static const uint32_t block_sizes[] = {64, 512, 4096, 65536};
	int			kind = m->sealed++ % 4 - 1;
	HsSstBuilderOptions opts;
	HsSstReaderOptions ropts;
	HsSstBuilder *b;
	HsSstMeta		meta;
	HsStatus	st;
	char		name[64];
	bool		ok;

	if (kind < 0)
		return run;

	HsSstBuilderOptionsInit(&opts);
	opts.compression = (HsCompression) kind;
	opts.block_size = block_sizes[unit_rand(&m->rng) % 4];
	opts.restart_interval = 1 + (uint32_t) (unit_rand(&m->rng) % 16);
	opts.bloom_bits_per_key = (unit_rand(&m->rng) % 2) ? 10 : 0;
	snprintf(name, sizeof(name), "model_%d.sst", m->sealed);
	unit_path(run.path, sizeof(run.path), name);

	b = HsSstBuilderCreate(env, run.path, &opts, &st);
	assert_status_ok(b != NULL, &st);
	for (size_t i = 0; i < run.n; i++)
	{
		ok = HsSstBuilderAdd(b, HsSliceMake(run.ents[i].key, run.ents[i].klen),
						   HsSliceMake(run.ents[i].val, run.ents[i].vlen),
						   &st);
		assert_status_ok(ok, &st);
	}
	ok = HsSstBuilderFinish(b, &meta, &st);
	assert_status_ok(ok, &st);
	assert_int_equal(meta.entry_count, run.n);
	HsSstMetaFree(env, &meta);

	HsSstReaderOptionsInit(&ropts);
	if (unit_rand(&m->rng) % 2)
		ropts.block_cache = m->cache;
	run.reader = HsSstReaderOpenWithOptions(env, run.path, &ropts, &st);
	assert_status_ok(run.reader != NULL, &st);
	m->sst_kinds[kind]++;
	free(run.ents);
	run.ents = NULL;
	return run;
}

static void
model_free_run(HsEnv *env, MRun *run)
{
	HsStatus	st;

	if (run->reader)
	{
		bool		ok;

		HsSstReaderClose(run->reader);
		ok = env->remove(env, run->path, &st);
		assert_status_ok(ok, &st);
	}
	free(run->ents);
}

static HsIterator *
run_iter(HsEnv *env, MRun *run)
{
	if (run->reader)
		return HsSstReaderNewIterator(run->reader);
	return uents_iter(env, run->ents, run->n);
}

/* Children newest first: the memtable, then runs newest to oldest. */
static HsIterator *
model_merge(HsEnv *env, Model *m, MRun *mem)
{
	HsIterator *children[M_MAXRUNS + 1];
	int			n = 0;

	children[n++] = run_iter(env, mem);
	for (int r = m->nruns - 1; r >= 0; r--)
		children[n++] = run_iter(env, &m->runs[r]);
	return HsMergeIterCreate(env, children, n);
}

/*
 * Compact runs [from, to] (oldest first) into one run through the merge
 * iterator, keeping every version; the result takes their place.
 */
static void
model_compact(HsEnv *env, Model *m, int from, int to)
{
	HsIterator *children[M_MAXRUNS];
	HsIterator *mi;
	size_t		cap = 0;
	MRun		out;
	HsStatus	st;
	int			n = 0;

	memset(&out, 0, sizeof(out));
	for (int r = to; r >= from; r--)
	{
		children[n++] = run_iter(env, &m->runs[r]);
		cap += m->runs[r].n;
	}
	out.ents = malloc(sizeof(UEnt) * (cap ? cap : 1));
	mi = HsMergeIterCreate(env, children, n);
	for (HsIterSeekToFirst(mi); HsIterValid(mi); HsIterNext(mi))
	{
		UEnt	   *e = &out.ents[out.n++];
		HsSlice		k = HsIterKey(mi);
		HsSlice		v = HsIterValue(mi);

		memcpy(e->key, k.data, k.len);
		e->klen = (uint8_t) k.len;
		memcpy(e->val, v.data, v.len);
		e->vlen = (uint8_t) v.len;
	}
	assert_true(HsIterStatus(mi, &st));
	HsIterDestroy(mi);

	for (int r = from; r <= to; r++)
		model_free_run(env, &m->runs[r]);
	m->runs[from] = model_seal_run(env, m, out);
	memmove(&m->runs[from + 1], &m->runs[to + 1],
			sizeof(MRun) * (m->nruns - to - 1));
	m->nruns -= to - from;
}

/*
 * The model's answer for key k at epoch e: the last write (in program
 * order) of the newest epoch <= e; NULL if none or a delete.
 */
static const MOp *
model_get(const Model *m, int k, HsEpoch e)
{
	const MOp  *best = NULL;

	for (int i = 0; i < m->nops; i++)
	{
		const MOp  *op = &m->ops[i];

		if (op->key == k && op->epoch <= e &&
			(best == NULL || op->epoch >= best->epoch))
			best = op;
	}
	return (best && !best->del) ? best : NULL;
}

/* Check the user iterator's current entry against the model's op. */
static void
assert_matches(const Model *m, HsIterator *ui, int k, const MOp *op)
{
	HsSlice		key = HsIterKey(ui);
	HsSlice		row = HsUserIterRow(ui);
	HsSlice		tk = HsFullKeyTableKey(key);

	assert_int_equal(tk.len, m->keys[k].tklen);
	assert_memory_equal(tk.data, m->keys[k].tk, tk.len);
	assert_int_equal(HsFullKeyEpoch(key), op->epoch);
	assert_int_equal(row.len, op->vlen);
	if (row.len)
		assert_memory_equal(row.data, op->val, row.len);
}

/*
 * Point lookup the L0 way: ask each run, newest first, for its newest
 * version <= e; the first run that has one decides (a tombstone hides the
 * key).  Correct because a newer run never holds an older epoch of a key
 * than an older run does.  Returns the row in *row, or false if absent.
 */
static bool
model_run_get(HsEnv *env, Model *m, MRun *mem, int k, HsEpoch e, HsBuf *row)
{
	const MKey *key = &m->keys[k];
	HsSlice		tk = HsSliceMake(key->tk, key->tklen);

	for (int r = m->nruns; r >= -1; r--)
	{
		MRun	   *run = r == m->nruns ? mem : (r >= 0 ? &m->runs[r] : NULL);
		bool		found = false;
		HsStatus	st;

		if (run == NULL)
			break;
		if (run->reader)
		{
			bool		ok = HsSstReaderGet(run->reader, tk, e, &found, row, &st);

			assert_status_ok(ok, &st);
		}
		else
		{
			uint8_t		fk[HS_TABLE_ID_LEN + UKEY_MAX + HS_EPOCH_LEN];
			HsIterator *it = uents_iter(env, run->ents, run->n);
			size_t		fklen = HsFullKeyEncode(fk, key->t, key->uk,
												key->uklen, e);

			HsIterSeek(it, HsSliceMake(fk, fklen));
			if (HsIterValid(it) &&
				HsSliceCompare(HsFullKeyTableKey(HsIterKey(it)), tk) == 0)
			{
				found = true;
				HsBufAssign(row, HsIterValue(it).data, HsIterValue(it).len);
			}
			HsIterDestroy(it);
		}
		if (found)
		{
			assert_true(row->len >= 1);
			if (row->data[0] == HS_VALUE_DELETE)
				return false;
			memmove(row->data, row->data + 1, row->len - 1);
			row->len--;
			return true;
		}
	}
	return false;
}

/* Read everything at epoch e in several ways and compare with the model. */
/*
 * Scan ui (fresh, bounded by upper if not NULL) in page mode, pages of 1 to
 * 8 rows, checking each row against the visible versions from pool key k
 * on; destroys ui and returns the pool index after the last visible key
 * below the bound.
 */
static int
model_page_scan(Model *m, HsIterator *ui, const MOp **visible, int k,
				const HsSlice *upper)
{
	HsStatus	st;

	HsIterSeekToFirst(ui);
	while (HsIterValid(ui))
	{
		HsSlice		page[8];
		int			max = 1 + (int) (unit_rand(&m->rng) % 8);
		int			n = HsUserIterFill(ui, page, max);

		assert_true(n >= 1 && n <= max);
		for (int i = 0; i < n; i++)
		{
			while (k < M_NKEYS && visible[k] == NULL)
				k++;
			assert_true(k < M_NKEYS);
			if (upper)
				assert_true(HsSliceCompare(HsSliceMake(m->keys[k].tk,
													   m->keys[k].tklen),
										   *upper) < 0);
			assert_int_equal(page[i].len, 1 + visible[k]->vlen);
			assert_int_equal(page[i].data[0], HS_VALUE_PUT);
			if (visible[k]->vlen)
				assert_memory_equal(page[i].data + 1, visible[k]->val,
									visible[k]->vlen);
			k++;
		}
		HsIterNext(ui);
	}
	assert_true(HsIterStatus(ui, &st));
	HsIterDestroy(ui);
	while (k < M_NKEYS && visible[k] == NULL)
		k++;
	return k;
}

static void
model_check_epoch(HsEnv *env, Model *m, MRun *mem, HsEpoch e)
{
	const MOp  *visible[M_NKEYS];
	HsIterator *ui;
	HsStatus	st;
	int			k;

	for (k = 0; k < M_NKEYS; k++)
		visible[k] = model_get(m, k, e);

	/* full scan */
	ui = HsUserIterCreate(env, model_merge(env, m, mem), e, NULL, NULL);
	HsIterSeekToFirst(ui);
	for (k = 0; k < M_NKEYS; k++)
	{
		if (visible[k] == NULL)
			continue;
		assert_true(HsIterValid(ui));
		assert_matches(m, ui, k, visible[k]);
		HsIterNext(ui);
	}
	assert_false(HsIterValid(ui));
	assert_true(HsIterStatus(ui, &st));
	HsIterDestroy(ui);

	/* the same in page mode (HsUserIterFill), pages of 1 to 8 rows */
	ui = HsUserIterCreate(env, model_merge(env, m, mem), e, NULL, NULL);
	assert_int_equal(model_page_scan(m, ui, visible, 0, NULL), M_NKEYS);

	/*
	 * bounded scans in page mode, as parallel chunks read: from pool key a
	 * up to pool key b, a key just after b, or b cut short by a byte
	 */
	for (int probe = 0; probe < 3; probe++)
	{
		uint8_t		ubuf[HS_TABLE_ID_LEN + UKEY_MAX + 1];
		int			a = (int) (unit_rand(&m->rng) % M_NKEYS);
		int			b = (int) (unit_rand(&m->rng) % M_NKEYS);
		HsSlice		lower,
					upper;

		if (a > b)
		{
			int			t = a;

			a = b;
			b = t;
		}
		lower = HsSliceMake(m->keys[a].tk, m->keys[a].tklen);
		memcpy(ubuf, m->keys[b].tk, m->keys[b].tklen);
		upper = HsSliceMake(ubuf, m->keys[b].tklen);
		if (probe == 1)
			ubuf[upper.len++] = 0x01;
		else if (probe == 2 && upper.len > HS_TABLE_ID_LEN)
			upper.len--;

		ui = HsUserIterCreate(env, model_merge(env, m, mem), e, &lower, &upper);
		k = model_page_scan(m, ui, visible, a, &upper);
		/* nothing visible was left out below the upper bound */
		assert_true(k == M_NKEYS ||
					HsSliceCompare(HsSliceMake(m->keys[k].tk, m->keys[k].tklen),
								   upper) >= 0);
	}
	ui = HsUserIterCreate(env, model_merge(env, m, mem), e, NULL, NULL);

	/* point lookups and short range scans from random targets */
	for (int probe = 0; probe < 40; probe++)
	{
		uint8_t		tbuf[HS_TABLE_ID_LEN + UKEY_MAX + 1];
		HsSlice		target;
		int			lb;

		k = (int) (unit_rand(&m->rng) % M_NKEYS);
		memcpy(tbuf, m->keys[k].tk, m->keys[k].tklen);
		target = HsSliceMake(tbuf, m->keys[k].tklen);
		lb = k;
		if (probe % 4 == 3)
		{
			/* a key just after pool key k, absent from the pool */
			tbuf[target.len++] = 0x01;
			lb = 0;
			while (lb < M_NKEYS &&
				   HsSliceCompare(HsSliceMake(m->keys[lb].tk,
											  m->keys[lb].tklen),
								  target) < 0)
				lb++;
		}

		HsIterSeek(ui, target);
		if (probe % 4 != 3)
		{
			/* point lookup */
			bool		found = HsIterValid(ui) &&
				HsSliceCompare(HsFullKeyTableKey(HsIterKey(ui)), target) == 0;

			assert_int_equal(found, visible[k] != NULL);
			if (found)
				assert_matches(m, ui, k, visible[k]);
		}
		for (int step = 0; step < 4; step++)
		{
			while (lb < M_NKEYS && visible[lb] == NULL)
				lb++;
			if (lb == M_NKEYS)
			{
				assert_false(HsIterValid(ui));
				break;
			}
			assert_true(HsIterValid(ui));
			assert_matches(m, ui, lb, visible[lb]);
			HsIterNext(ui);
			lb++;
		}
	}
	assert_true(HsIterStatus(ui, &st));
	HsIterDestroy(ui);

	/* point lookups run by run, for a sample of keys */
	for (int probe = 0; probe < 40; probe++)
	{
		HsBuf		row;
		bool		found;

		HsBufInit(&row, env);
		k = (int) (unit_rand(&m->rng) % M_NKEYS);
		found = model_run_get(env, m, mem, k, e, &row);
		assert_int_equal(found, visible[k] != NULL);
		if (found)
		{
			assert_int_equal(row.len, visible[k]->vlen);
			if (row.len)
				assert_memory_equal(row.data, visible[k]->val, row.len);
		}
		HsBufFree(&row);
	}

	/* per-table scans stop at the table boundary */
	for (HsTableId t = 0; t <= 6; t++)
	{
		ui = HsUserIterCreateForTable(env, model_merge(env, m, mem), e, t);
		HsIterSeekToFirst(ui);
		for (k = 0; k < M_NKEYS; k++)
		{
			if (visible[k] == NULL || m->keys[k].t != t)
				continue;
			assert_true(HsIterValid(ui));
			assert_matches(m, ui, k, visible[k]);
			HsIterNext(ui);
		}
		assert_false(HsIterValid(ui));
		assert_true(HsIterStatus(ui, &st));
		HsIterDestroy(ui);
	}
}

static void
model_check(HsEnv *env, Model *m, HsEpoch max_epoch)
{
	MRun		mem = model_build_run(m, m->mem_start, m->nops);

	for (int i = 0; i < 12; i++)
	{
		HsEpoch		e;

		if (i == 0)
			e = HS_EPOCH_MAX;
		else if (i == 1)
			e = 0;
		else
			e = 1000 + unit_rand(&m->rng) % (max_epoch - 1000 + 3);
		model_check_epoch(env, m, &mem, e);
	}
	free(mem.ents);
}

static void
test_user_iter_model(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	Model	   *m = calloc(1, sizeof(Model));
	HsEpoch		epoch = 1000;
	int			flush_at;

	m->rng = 20250101;
	m->ops = malloc(sizeof(MOp) * M_NOPS);
	m->cache = HsBlockCacheCreate(env, 16 * 1024);
	model_make_keys(m);
	flush_at = 50 + (int) (unit_rand(&m->rng) % 400);

	for (int i = 0; i < M_NOPS; i++)
	{
		MOp		   *op = &m->ops[m->nops++];

		/* epochs advance irregularly, leaving gaps to read between */
		if (unit_rand(&m->rng) % 10 == 0)
			epoch += 1 + unit_rand(&m->rng) % 3;
		/* skewed keys: a few hot keys collect many versions */
		if (unit_rand(&m->rng) % 4 == 0)
			op->key = (int) (unit_rand(&m->rng) % 5);
		else
			op->key = (int) (unit_rand(&m->rng) % M_NKEYS);
		op->epoch = epoch;
		op->del = unit_rand(&m->rng) % 10 < 3;
		op->vlen = op->del ? 0 : (uint8_t) (unit_rand(&m->rng) % UVAL_MAX);
		for (int j = 0; j < op->vlen; j++)
			op->val[j] = (uint8_t) unit_rand(&m->rng);

		/* flush the memtable (possibly mid-epoch, as a spill would) */
		if (m->nops - m->mem_start >= flush_at)
		{
			m->runs[m->nruns++] =
				model_seal_run(env, m, model_build_run(m, m->mem_start, m->nops));
			m->mem_start = m->nops;
			flush_at = 50 + (int) (unit_rand(&m->rng) % 400);
		}
		/* compact a random range of adjacent runs now and then */
		if (m->nruns >= 6 || (m->nruns >= 2 && unit_rand(&m->rng) % 500 == 0))
		{
			int			from = (int) (unit_rand(&m->rng) % (m->nruns - 1));
			int			to = from + 1 +
				(int) (unit_rand(&m->rng) % (m->nruns - from - 1));

			model_compact(env, m, from, to);
		}
		if ((i + 1) % 1000 == 0)
			model_check(env, m, epoch);
	}
	model_check(env, m, epoch);

	/* every compression kind was exercised */
	for (int kind = 0; kind <= HS_COMPRESSION_KIND_MAX; kind++)
		assert_true(m->sst_kinds[kind] > 0);

	for (int r = 0; r < m->nruns; r++)
		model_free_run(env, &m->runs[r]);
	HsBlockCacheDestroy(m->cache);
	free(m->ops);
	free(m);
}

static const struct CMUnitTest user_iter_tests[] = {
	cmocka_unit_test(test_user_iter_versions),
	cmocka_unit_test(test_user_iter_seek),
	cmocka_unit_test(test_user_iter_bounds),
	cmocka_unit_test(test_user_iter_bounded_fill),
	cmocka_unit_test(test_user_iter_many_versions),
	cmocka_unit_test(test_user_iter_corruption),
	cmocka_unit_test(test_user_iter_inner_error),
	cmocka_unit_test(test_user_iter_model),
};

UNIT_SUITE(user_iter)
{
	*tests = user_iter_tests;
	return sizeof(user_iter_tests) / sizeof(user_iter_tests[0]);
}
