/*-------------------------------------------------------------------------
 *
 * version_read.c
 *	  Point reads and table scans over a hummock version.
 *
 * Scans merge one child iterator per sorted run of candidate SSTs (L0
 * sub-levels newest first, then the levels top down; a level is one run, a
 * sub-level one or a few, each walked by a concat iterator) and put a user
 * iterator on top, which picks the newest version <= the read epoch and
 * hides tombstones.
 *
 * Point reads walk the same sources newest first and stop at the first
 * source that holds a version <= the read epoch.  That is correct because
 * for any one key a newer source only holds newer versions: commits of a
 * table append sub-levels in epoch order, and compaction moves the oldest
 * data down (all of L0 at once into L1, a level into the one below).
 * Inside one L0 sub-level SSTs may overlap (spills of several epochs), so
 * every candidate SST of the sub-level is asked and the newest answer
 * wins.
 *
 * src/storage/version_read.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <string.h>

#include "hummock_stream/storage/concat_iter.h"
#include "hummock_stream/storage/merge_iter.h"
#include "hummock_stream/storage/user_iter.h"
#include "hummock_stream/storage/version_read.h"

HsSlice
HsTableKeyMake(uint8_t *buf, HsTableId table_id, HsSlice user_key)
{
	HsPutBE32(buf, table_id);
	if (user_key.len)
		memcpy(buf + HS_TABLE_ID_LEN, user_key.data, user_key.len);
	return HsSliceMake(buf, user_key.len + HS_TABLE_ID_LEN);
}

/*
 * Sets buf to the table key that ends the user-key range [..., upper) of
 * table_id: upper's table key, or for no upper the first key of the next
 * table.  Returns false, buf empty, if the range has no end (the last
 * table, unbounded).
 */
bool
HsTableKeyRangeEnd(HsBuf *buf, HsTableId table_id, const HsSlice *upper)
{
	HsBufReset(buf);
	if (upper)
	{
		HsBufReserve(buf, HS_TABLE_ID_LEN + upper->len);
		buf->len = HsTableKeyMake(buf->data, table_id, *upper).len;
		return true;
	}
	if (table_id == UINT32_MAX)
		return false;
	HsBufReserve(buf, HS_TABLE_ID_LEN);
	buf->len = HsTableKeyMake(buf->data, table_id + 1,
							  HsSliceMake(NULL, 0)).len;
	return true;
}

/*
 * A read of a table the version does not know yet is allowed (it may have
 * only buffered data); a dropped table or an epoch below the safe epoch
 * is not.
 */
static bool
check_read(const HsVersion *v, HsTableId table_id, HsEpoch epoch,
		   HsStatus *st)
{
	if (HsVersionTableInfo(v, table_id) == NULL &&
		!HsVersionTableDropped(v, table_id))
		return true;
	return HsVersionCheckReadEpoch(v, table_id, epoch, st);
}

void
HsTableBoundsInit(HsTableBounds *b, HsEnv *env, HsTableId t, const HsSlice *lower,
				  const HsSlice *upper)
{
	HsBufInit(&b->lo_buf, env);
	HsBufInit(&b->hi_buf, env);
	HsBufReserve(&b->lo_buf, HS_TABLE_ID_LEN + (lower ? lower->len : 0));
	b->lo = HsTableKeyMake(b->lo_buf.data, t,
						   lower ? *lower : HsSliceMake(NULL, 0));
	b->lo_buf.len = b->lo.len;
	b->has_hi = HsTableKeyRangeEnd(&b->hi_buf, t, upper);
	b->hi = HsBufSlice(&b->hi_buf);
}

void
HsTableBoundsFree(HsTableBounds *b)
{
	HsBufFree(&b->lo_buf);
	HsBufFree(&b->hi_buf);
}

typedef struct Children
{
	HsEnv	   *env;
	HsIterator **its;
	int			n;
	int			cap;
} Children;

/* Makes room for one more child iterator. */
static void
children_reserve(Children *c)
{
	if (c->n == c->cap)
	{
		c->cap = c->cap * 2 + 8;
		c->its = HsRealloc(c->env, c->its, sizeof(HsIterator *) * c->cap);
	}
}

/*
 * The candidate SSTs [*first, *end) of one level (sorted and disjoint) for
 * table keys in [lo, hi): a binary search skips the SSTs that end below
 * lo, and the walk may stop at the first one that starts at or after hi.
 */
static void
level_candidates(HsSstInfo *const *ssts, int n, HsSlice lo, const HsSlice *hi,
				 int *first, int *end)
{
	int			l = 0;
	int			h = n;

	while (l < h)
	{
		int			m = l + (h - l) / 2;

		if (HsSliceCompare(HsFullKeyTableKey(HsSstInfoLargest(ssts[m])), lo) < 0)
			l = m + 1;
		else
			h = m;
	}
	*first = l;
	for (h = l; h < n; h++)
		if (hi && HsSliceCompare(HsFullKeyTableKey(HsSstInfoSmallest(ssts[h])),
								 *hi) >= 0)
			break;
	*end = h;
}

/*
 * Add the SSTs of one array sorted by smallest key (a sub-level or a
 * level) that may hold keys of the range.  They are split greedily into
 * sorted runs (each SST joins the first run whose last SST ends before it
 * starts), and each run becomes one concat iterator: a level is one run,
 * and an L0 sub-level whose spills overlap here and there is a few, so a
 * scan merges a handful of children instead of one per SST.  cand and
 * run_of are scratch space for n entries.
 */
static bool
add_ssts(Children *c, HsSstCache *cache, HsSstInfo *const *ssts, int n,
		 bool is_level, HsTableId table_id, const HsTableBounds *b,
		 HsSstInfo **cand, int *run_of, HsStatus *st)
{
	int			m = 0;
	int			n_runs = 0;
	int		   *run_last;
	int			from = 0;

	if (is_level)
		level_candidates(ssts, n, b->lo, b->has_hi ? &b->hi : NULL, &from, &n);
	for (int j = from; j < n; j++)
		if (HsSstInfoMayOverlap(ssts[j], table_id, &b->lo,
								b->has_hi ? &b->hi : NULL))
			cand[m++] = ssts[j];
	if (m == 0)
		return true;

	/* run_of[j]: the run of cand[j]; run_last[r]: the run's last SST */
	run_last = HsAlloc(c->env, sizeof(int) * m);
	for (int j = 0; j < m; j++)
	{
		int			r;

		for (r = 0; r < n_runs; r++)
			if (HsFullKeyCompare(HsSstInfoLargest(cand[run_last[r]]),
								 HsSstInfoSmallest(cand[j])) < 0)
				break;
		if (r == n_runs)
			n_runs++;
		run_of[j] = r;
		run_last[r] = j;
	}
	HsFree(c->env, run_last);

	for (int r = 0; r < n_runs; r++)
	{
		HsSstInfo **run = HsAlloc(c->env, sizeof(HsSstInfo *) * m);
		int			len = 0;
		bool		ok = true;

		for (int j = 0; j < m; j++)
			if (run_of[j] == r)
				run[len++] = cand[j];
		children_reserve(c);
		if (len > 1)
			c->its[c->n++] = HsConcatIterCreate(c->env, cache, run, len);
		else if (HsSstCacheNewIterator(cache, run[0]->object_id,
									   &c->its[c->n], st))
			c->n++;
		else
			ok = false;
		HsFree(c->env, run);
		if (!ok)
			return false;
	}
	return true;
}

bool
HsVersionNewRawIterator(const HsVersion *v, HsSstCache *cache,
						HsTableId table_id, const HsSlice *lower,
						const HsSlice *upper, HsIterator **out, HsStatus *st)
{
	HsTableBounds b;
	Children	c;
	HsSstInfo **cand;
	int		   *run_of;
	int			max_n;
	int			i;
	bool		ok = true;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	c.env = v->env;
	HsTableBoundsInit(&b, v->env, table_id, lower, upper);
	max_n = 1;
	for (i = 0; i < v->n_sub_levels; i++)
		if (v->sub_levels[i].n_ssts > max_n)
			max_n = v->sub_levels[i].n_ssts;
	for (i = 0; i < HS_MAX_LEVEL; i++)
		if (v->levels[i].n_ssts > max_n)
			max_n = v->levels[i].n_ssts;
	cand = HsAlloc(v->env, sizeof(HsSstInfo *) * max_n);
	run_of = HsAlloc(v->env, sizeof(int) * max_n);
	for (i = v->n_sub_levels - 1; i >= 0 && ok; i--)
		ok = add_ssts(&c, cache, v->sub_levels[i].ssts,
					  v->sub_levels[i].n_ssts, false, table_id, &b, cand,
					  run_of, st);
	for (i = 0; i < HS_MAX_LEVEL && ok; i++)
		ok = add_ssts(&c, cache, v->levels[i].ssts, v->levels[i].n_ssts,
					  true, table_id, &b, cand, run_of, st);
	HsFree(v->env, cand);
	HsFree(v->env, run_of);
	HsTableBoundsFree(&b);
	if (!ok)
	{
		while (c.n > 0)
			HsIterDestroy(c.its[--c.n]);
		if (c.its)
			HsFree(v->env, c.its);
		return false;
	}
	*out = HsMergeIterCreate(v->env, c.its, c.n);
	if (c.its)
		HsFree(v->env, c.its);
	return true;
}

bool
HsVersionTableIterator(const HsVersion *v, HsSstCache *cache,
					   HsTableId table_id, HsEpoch read_epoch,
					   const HsSlice *lower, const HsSlice *upper,
					   HsIterator *newer, HsIterator **out, HsStatus *st)
{
	HsIterator *raw;
	HsIterator *inner;
	HsTableBounds b;

	*out = NULL;
	if (!check_read(v, table_id, read_epoch, st) ||
		!HsVersionNewRawIterator(v, cache, table_id, lower, upper, &raw, st))
	{
		HsIterDestroy(newer);
		return false;
	}
	if (newer)
	{
		HsIterator *two[2];

		two[0] = newer;
		two[1] = raw;
		inner = HsMergeIterCreate(v->env, two, 2);
	}
	else
		inner = raw;
	HsTableBoundsInit(&b, v->env, table_id, lower, upper);
	*out = HsUserIterCreate(v->env, inner, read_epoch, &b.lo,
							b.has_hi ? &b.hi : NULL);
	HsTableBoundsFree(&b);
	return true;
}

/* Ask one SST; keep the answer if it is newer than the best so far. */
static bool
probe(HsSstCache *cache, const HsSstInfo *s, HsSlice table_key,
	  HsEpoch read_epoch, bool *found, HsEpoch *best_epoch, HsBuf *best,
	  HsBuf *scratch, HsStatus *st)
{
	bool		hit;
	HsEpoch		e = 0;

	if (!HsSstCacheGetVersion(cache, s->object_id, table_key, read_epoch,
							  &hit, &e, scratch, st))
		return false;
	if (hit && (!*found || e > *best_epoch))
	{
		*found = true;
		*best_epoch = e;
		HsBufAssign(best, scratch->data, scratch->len);
	}
	return true;
}

bool
HsVersionGet(const HsVersion *v, HsSstCache *cache, HsTableId table_id,
			 HsSlice user_key, HsEpoch read_epoch, bool *found, HsBuf *row,
			 HsStatus *st)
{
	HsBuf		tk_buf;
	HsBuf		best;
	HsBuf		scratch;
	HsSlice		tk;
	HsSlice		hi;
	uint8_t		zero = 0;
	bool		any = false;
	HsEpoch		best_epoch = 0;
	bool		ok = true;
	int			i;
	int			j;

	*found = false;
	HsBufReset(row);
	if (!check_read(v, table_id, read_epoch, st))
		return false;
	/* never committed, so no data (a commit adds only its tables' SSTs) */
	if (HsVersionTableInfo(v, table_id) == NULL && !HsVersionTableDropped(v, table_id))
		return true;
	HsBufInit(&tk_buf, v->env);
	HsBufInit(&best, v->env);
	HsBufInit(&scratch, v->env);
	HsBufReserve(&tk_buf, user_key.len + HS_TABLE_ID_LEN + 1);
	tk = HsTableKeyMake(tk_buf.data, table_id, user_key);
	/* [tk, tk || 0x00) holds exactly tk */
	tk_buf.data[tk.len] = zero;
	hi = HsSliceMake(tk_buf.data, tk.len + 1);

	for (i = v->n_sub_levels - 1; i >= 0 && ok && !any; i--)
	{
		const HsSubLevel *sl = &v->sub_levels[i];

		for (j = 0; j < sl->n_ssts && ok; j++)
			if (HsSstInfoMayOverlap(sl->ssts[j], table_id, &tk, &hi))
				ok = probe(cache, sl->ssts[j], tk, read_epoch, &any,
						   &best_epoch, &best, &scratch, st);
	}
	for (i = 0; i < HS_MAX_LEVEL && ok && !any; i++)
	{
		const HsLevel *lv = &v->levels[i];
		int			end;

		level_candidates(lv->ssts, lv->n_ssts, tk, &hi, &j, &end);
		for (; j < end && ok; j++)
			if (HsSstInfoMayOverlap(lv->ssts[j], table_id, &tk, &hi))
				ok = probe(cache, lv->ssts[j], tk, read_epoch, &any,
						   &best_epoch, &best, &scratch, st);
	}
	if (ok && any)
	{
		if (best.len == 0 ||
			(best.data[0] != HS_VALUE_PUT && best.data[0] != HS_VALUE_DELETE))
		{
			HsStatusSet(st, HS_CORRUPTION, "bad value kind for a key of table %u",
						table_id);
			ok = false;
		}
		else if (best.data[0] == HS_VALUE_PUT)
		{
			*found = true;
			HsBufAssign(row, best.data + 1, best.len - 1);
		}
	}
	HsBufFree(&tk_buf);
	HsBufFree(&best);
	HsBufFree(&scratch);
	return ok;
}
