/*-------------------------------------------------------------------------
 *
 * test_merge_iter.c
 *	  Unit tests of vec_iter.c and merge_iter.c.
 *
 * The merge of random sorted runs must equal the sorted concatenation of
 * the runs; identical full keys in several children come out once, from
 * the lowest-indexed child; seeks land on the lower bound of the target;
 * and a failing child makes the merge invalid with the child's status.
 *
 * Also defines UnitFailIterCreate (iter_util.h), a failure-injecting
 * wrapper shared with test_user_iter.c.
 *
 * test/unit/test_merge_iter.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "iter_util.h"
#include "hummock_stream/storage/merge_iter.h"
#include "hummock_stream/storage/vec_iter.h"

/* ----------------------------------------------------------------
 *		failure-injecting iterator
 * ----------------------------------------------------------------
 */

typedef struct UnitFailIter
{
	HsIterator	base;
	HsIterator *inner;
	int			moves_left;		/* < 0: never fail */
	bool		failed;
} UnitFailIter;

/* Count one move; returns false (and fails) once the budget is spent. */
static bool
fail_iter_move(UnitFailIter *fi)
{
	if (fi->failed)
		return false;
	if (fi->moves_left == 0)
	{
		fi->failed = true;
		HsStatusSet(&fi->base.status, HS_IO_ERROR,
					"could not read file \"injected.sst\"");
		HsStatusDetail(&fi->base.status, "Injected failure.");
		return false;
	}
	if (fi->moves_left > 0)
		fi->moves_left--;
	return true;
}

static bool
fail_iter_valid(HsIterator *it)
{
	UnitFailIter *fi = (UnitFailIter *) it;

	return !fi->failed && HsIterValid(fi->inner);
}

static void
fail_iter_seek_to_first(HsIterator *it)
{
	UnitFailIter *fi = (UnitFailIter *) it;

	if (fail_iter_move(fi))
		HsIterSeekToFirst(fi->inner);
}

static void
fail_iter_seek(HsIterator *it, HsSlice target)
{
	UnitFailIter *fi = (UnitFailIter *) it;

	if (fail_iter_move(fi))
		HsIterSeek(fi->inner, target);
}

static void
fail_iter_next(HsIterator *it)
{
	UnitFailIter *fi = (UnitFailIter *) it;

	if (fail_iter_move(fi))
		HsIterNext(fi->inner);
}

static HsSlice
fail_iter_key(HsIterator *it)
{
	return HsIterKey(((UnitFailIter *) it)->inner);
}

static HsSlice
fail_iter_value(HsIterator *it)
{
	return HsIterValue(((UnitFailIter *) it)->inner);
}

static void
fail_iter_destroy(HsIterator *it)
{
	UnitFailIter *fi = (UnitFailIter *) it;

	HsIterDestroy(fi->inner);
	HsFree(it->env, fi);
}

static const HsIteratorOps fail_iter_ops = {
	.valid = fail_iter_valid,
	.seek_to_first = fail_iter_seek_to_first,
	.seek = fail_iter_seek,
	.next = fail_iter_next,
	.key = fail_iter_key,
	.value = fail_iter_value,
	.destroy = fail_iter_destroy,
};

HsIterator *
UnitFailIterCreate(HsEnv *env, HsIterator *inner, int fail_after)
{
	UnitFailIter *fi = HsAlloc(env, sizeof(UnitFailIter));

	fi->base.ops = &fail_iter_ops;
	fi->base.env = env;
	HsStatusClear(&fi->base.status);
	fi->inner = inner;
	fi->moves_left = fail_after;
	fi->failed = false;
	return &fi->base;
}

/* ----------------------------------------------------------------
 *		test data
 * ----------------------------------------------------------------
 */

#define TKEY_MAX	32

/* One entry with inline storage; a run is an array of these. */
typedef struct TEnt
{
	uint8_t		key[TKEY_MAX];
	uint8_t		klen;
	uint8_t		val[8];
	uint8_t		vlen;
} TEnt;

static int
tent_cmp(const void *a, const void *b)
{
	const TEnt *x = a;
	const TEnt *y = b;

	return HsFullKeyCompare(HsSliceMake(x->key, x->klen),
							HsSliceMake(y->key, y->klen));
}

/*
 * Fill e with a key drawn from a small space (so that keys collide and
 * user keys are prefixes of one another) and a value naming its run.
 */
static void
tent_random(TEnt *e, uint64_t *rng, int run)
{
	uint8_t		uk[8];
	size_t		uklen = unit_rand(rng) % 5;
	static const uint8_t alphabet[] = {0x00, 'a', 'b', 0xff};

	for (size_t i = 0; i < uklen; i++)
		uk[i] = alphabet[unit_rand(rng) % 4];
	e->klen = (uint8_t) HsFullKeyEncode(e->key, 1 + unit_rand(rng) % 3,
										uk, uklen, 1 + unit_rand(rng) % 50);
	e->val[0] = HS_VALUE_PUT;
	e->val[1] = (uint8_t) run;
	e->vlen = 2;
}

static void
tent_set(TEnt *e, HsTableId t, const char *uk, HsEpoch epoch, int tag)
{
	e->klen = (uint8_t) HsFullKeyEncode(e->key, t, uk, strlen(uk), epoch);
	e->val[0] = HS_VALUE_PUT;
	e->val[1] = (uint8_t) tag;
	e->vlen = 2;
}

/* A vector iterator over ents[0 .. n) (the entries array is malloc'ed). */
static void
free_entries(void *arg)
{
	free(arg);
}

static HsIterator *
tents_iter(HsEnv *env, const TEnt *ents, size_t n)
{
	HsVecEntry *ve = malloc(sizeof(HsVecEntry) * (n ? n : 1));

	for (size_t i = 0; i < n; i++)
	{
		ve[i].key = HsSliceMake(ents[i].key, ents[i].klen);
		ve[i].value = HsSliceMake(ents[i].val, ents[i].vlen);
	}
	return HsVecIterCreate(env, ve, n, free_entries, ve);
}

static void
assert_at(HsIterator *it, const TEnt *e)
{
	HsSlice		k;
	HsSlice		v;

	assert_true(HsIterValid(it));
	k = HsIterKey(it);
	v = HsIterValue(it);
	assert_int_equal(k.len, e->klen);
	assert_memory_equal(k.data, e->key, e->klen);
	assert_int_equal(v.len, e->vlen);
	assert_memory_equal(v.data, e->val, e->vlen);
}

/* ----------------------------------------------------------------
 *		tests
 * ----------------------------------------------------------------
 */

static void
test_vec_iter_basic(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TEnt		e[4];
	TEnt		probe;
	HsIterator *it;

	tent_set(&e[0], 1, "a", 9, 0);
	tent_set(&e[1], 1, "a", 3, 1);
	tent_set(&e[2], 1, "b", 5, 2);
	tent_set(&e[3], 2, "", 5, 3);
	it = tents_iter(env, e, 4);

	assert_false(HsIterValid(it));
	HsIterSeekToFirst(it);
	for (int i = 0; i < 4; i++, HsIterNext(it))
		assert_at(it, &e[i]);
	assert_false(HsIterValid(it));

	/* seek lands on the first key >= target */
	tent_set(&probe, 1, "a", 5, 0);
	HsIterSeek(it, HsSliceMake(probe.key, probe.klen));
	assert_at(it, &e[1]);
	HsIterSeek(it, HsSliceMake(e[2].key, e[2].klen));
	assert_at(it, &e[2]);
	tent_set(&probe, 0, "zz", 1, 0);
	HsIterSeek(it, HsSliceMake(probe.key, probe.klen));
	assert_at(it, &e[0]);
	tent_set(&probe, 2, "", 4, 0);
	HsIterSeek(it, HsSliceMake(probe.key, probe.klen));
	assert_false(HsIterValid(it));
	HsIterDestroy(it);
}

/*
 * Merge 0..8 random runs of globally distinct full keys: the output must be
 * the sorted concatenation.  Then random seeks must land on its lower
 * bound.
 */
static void
test_merge_random_runs(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	uint64_t	rng = 42;

	for (int round = 0; round < 200; round++)
	{
		int			nruns = (int) (unit_rand(&rng) % 9);
		size_t		total = 0;
		size_t		cap = 0;
		TEnt	   *all = NULL;
		TEnt	   *runs[8];
		size_t		runlen[8];
		HsIterator *children[8];
		HsIterator *mi;
		size_t		n;

		/* distinct entries, dealt out to the runs */
		for (int r = 0; r < nruns; r++)
		{
			runlen[r] = unit_rand(&rng) % 200;
			runs[r] = malloc(sizeof(TEnt) * (runlen[r] + 1));
			for (size_t i = 0; i < runlen[r]; i++)
			{
				TEnt		e;
				bool		dup;

				do
				{
					tent_random(&e, &rng, r);
					dup = false;
					for (size_t j = 0; j < total && !dup; j++)
						dup = tent_cmp(&all[j], &e) == 0;
				} while (dup);
				if (total == cap)
				{
					cap = cap ? cap * 2 : 64;
					all = realloc(all, sizeof(TEnt) * cap);
				}
				all[total++] = e;
				runs[r][i] = e;
			}
			qsort(runs[r], runlen[r], sizeof(TEnt), tent_cmp);
			children[r] = tents_iter(env, runs[r], runlen[r]);
		}
		if (total > 0)
			qsort(all, total, sizeof(TEnt), tent_cmp);

		mi = HsMergeIterCreate(env, children, nruns);
		n = 0;
		for (HsIterSeekToFirst(mi); HsIterValid(mi); HsIterNext(mi))
		{
			assert_true(n < total);
			assert_at(mi, &all[n]);
			n++;
		}
		assert_int_equal(n, total);
		assert_int_equal(mi->status.code, HS_OK);

		/* seeks: before the first, exact, between, past the last */
		for (int s = 0; s < 50; s++)
		{
			TEnt		target;
			size_t		lb;

			if (s == 0 || total == 0)
				tent_set(&target, 0, "", HS_EPOCH_MAX, 0);
			else if (s == 1)
				tent_set(&target, 9, "z", 1, 0);
			else if (s % 2 == 0)
				target = all[unit_rand(&rng) % total];
			else
				tent_random(&target, &rng, 0);

			for (lb = 0; lb < total && tent_cmp(&all[lb], &target) < 0; lb++)
				;
			HsIterSeek(mi, HsSliceMake(target.key, target.klen));
			for (int step = 0; step < 3; step++, lb++, HsIterNext(mi))
			{
				if (lb >= total)
				{
					assert_false(HsIterValid(mi));
					break;
				}
				assert_at(mi, &all[lb]);
			}
		}

		HsIterDestroy(mi);
		for (int r = 0; r < nruns; r++)
			free(runs[r]);
		free(all);
	}
}

/*
 * Identical full keys: returned once, with the value of the lowest-indexed
 * child holding them; copies inside that child are all returned.
 */
static void
test_merge_duplicates(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TEnt		r0[3],
				r1[3],
				r2[2],
				r3[3];
	TEnt		expect[6];
	HsIterator *children[4];
	HsIterator *mi;
	int			n = 0;

	/* newest child: a@5 (twice) and c@1 */
	tent_set(&r0[0], 1, "a", 5, 10);
	tent_set(&r0[1], 1, "a", 5, 11);
	tent_set(&r0[2], 1, "c", 1, 12);
	/* a@5 and b@5 and c@1 again */
	tent_set(&r1[0], 1, "a", 5, 20);
	tent_set(&r1[1], 1, "b", 5, 21);
	tent_set(&r1[2], 1, "c", 1, 22);
	/* b@5 again and b@4 */
	tent_set(&r2[0], 1, "b", 5, 30);
	tent_set(&r2[1], 1, "b", 4, 31);
	/* oldest: a@5, c@1 and d@1 */
	tent_set(&r3[0], 1, "a", 5, 40);
	tent_set(&r3[1], 1, "c", 1, 41);
	tent_set(&r3[2], 1, "d", 1, 42);

	expect[0] = r0[0];
	expect[1] = r0[1];
	expect[2] = r1[1];
	expect[3] = r2[1];
	expect[4] = r0[2];
	expect[5] = r3[2];

	children[0] = tents_iter(env, r0, 3);
	children[1] = tents_iter(env, r1, 3);
	children[2] = tents_iter(env, r2, 2);
	children[3] = tents_iter(env, r3, 3);
	mi = HsMergeIterCreate(env, children, 4);
	for (HsIterSeekToFirst(mi); HsIterValid(mi); HsIterNext(mi))
	{
		assert_true(n < 6);
		assert_at(mi, &expect[n]);
		n++;
	}
	assert_int_equal(n, 6);

	/* a seek onto a duplicated key also picks the newest child */
	HsIterSeek(mi, HsSliceMake(r1[1].key, r1[1].klen));
	assert_at(mi, &r1[1]);
	HsIterNext(mi);
	assert_at(mi, &r2[1]);
	HsIterSeek(mi, HsSliceMake(r3[1].key, r3[1].klen));
	assert_at(mi, &r0[2]);
	HsIterNext(mi);
	assert_at(mi, &r3[2]);
	HsIterNext(mi);
	assert_false(HsIterValid(mi));
	HsIterDestroy(mi);
}

/* Zero and one children. */
static void
test_merge_degenerate(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TEnt		e[2];
	HsIterator *child;
	HsIterator *mi;

	mi = HsMergeIterCreate(env, NULL, 0);
	HsIterSeekToFirst(mi);
	assert_false(HsIterValid(mi));
	HsIterSeek(mi, HsSliceMake(e[0].key, 0));
	assert_false(HsIterValid(mi));
	assert_int_equal(mi->status.code, HS_OK);
	HsIterDestroy(mi);

	tent_set(&e[0], 1, "a", 2, 0);
	tent_set(&e[1], 1, "b", 2, 1);
	child = tents_iter(env, e, 2);
	mi = HsMergeIterCreate(env, &child, 1);
	HsIterSeekToFirst(mi);
	assert_at(mi, &e[0]);
	HsIterNext(mi);
	assert_at(mi, &e[1]);
	HsIterNext(mi);
	assert_false(HsIterValid(mi));
	HsIterDestroy(mi);
}

/*
 * A child that fails on its k-th move: the merge becomes invalid with the
 * child's status, wherever the failure happens (first seek, a later seek,
 * next, next with duplicates pending), and stays failed.
 */
static void
test_merge_child_error(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	TEnt		r0[40],
				r1[40];

	for (int i = 0; i < 40; i++)
	{
		char		uk[8];

		snprintf(uk, sizeof(uk), "k%03d", i);
		/* same keys in both runs at even positions: duplicates */
		tent_set(&r0[i], 1, uk, 10, 0);
		tent_set(&r1[i], 1, uk, (i % 2) ? 9 : 10, 1);
	}

	for (int fail_after = 0; fail_after < 45; fail_after++)
	{
		for (int failing = 0; failing < 2; failing++)
		{
			HsIterator *children[3];
			HsIterator *mi;
			HsStatus	st;
			int			n = 0;

			children[0] = tents_iter(env, r0, 40);
			children[1] = tents_iter(env, r1, 40);
			children[failing] = UnitFailIterCreate(env, children[failing],
												   fail_after);
			children[2] = tents_iter(env, r1, 0);
			mi = HsMergeIterCreate(env, children, 3);
			for (HsIterSeekToFirst(mi); HsIterValid(mi); HsIterNext(mi))
				n++;
			if (fail_after > 40)
			{
				/* a full pass is 41 moves of each child: no failure */
				assert_true(HsIterStatus(mi, &st));
				assert_int_equal(n, 60);
				HsIterDestroy(mi);
				continue;
			}
			/* the child makes fail_after successful moves, then fails */
			assert_false(HsIterStatus(mi, &st));
			assert_int_equal(st.code, HS_IO_ERROR);
			assert_string_equal(st.msg, "could not read file \"injected.sst\"");
			assert_true(n <= 60);

			/* sticky */
			HsIterSeekToFirst(mi);
			assert_false(HsIterValid(mi));
			assert_int_equal(mi->status.code, HS_IO_ERROR);
			HsIterDestroy(mi);
		}
	}
}

static const struct CMUnitTest merge_iter_tests[] = {
	cmocka_unit_test(test_vec_iter_basic),
	cmocka_unit_test(test_merge_random_runs),
	cmocka_unit_test(test_merge_duplicates),
	cmocka_unit_test(test_merge_degenerate),
	cmocka_unit_test(test_merge_child_error),
};

UNIT_SUITE(merge_iter)
{
	*tests = merge_iter_tests;
	return sizeof(merge_iter_tests) / sizeof(merge_iter_tests[0]);
}
