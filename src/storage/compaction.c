/*-------------------------------------------------------------------------
 *
 * compaction.c
 *	  Compaction picking, execution and change-log trimming.
 *
 * See compaction.h for the rules.  The version-retention rule in detail:
 * the merged stream presents each table key's versions newest first; a
 * version is kept if its epoch is above safe_epoch, or if it is the first
 * one at or below it (that is what a read at any epoch >= safe_epoch
 * sees).  The first-at-or-below version is dropped anyway when it is a
 * tombstone and the output is the bottom level.
 *
 * src/storage/compaction.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <string.h>

#include "hummock_stream/storage/compaction.h"
#include "hummock_stream/storage/merge_iter.h"

void
HsCompactionConfigInit(HsCompactionConfig *cfg)
{
	cfg->l0_trigger = 4;
	cfg->l0_max_sub_levels = 32;
	cfg->l0_min_ratio = 8;
	cfg->level_base_size = UINT64_C(256) << 20;
	cfg->level_multiplier = 10;
}

/* Returns an empty task from input_level to the level below. */
static HsCompactionTask *
task_new(const HsVersion *v, int input_level)
{
	HsCompactionTask *t = HsAllocZero(v->env, sizeof(HsCompactionTask));

	t->env = v->env;
	t->input_level = input_level;
	t->output_level = input_level + 1;
	t->version_id = v->id;
	return t;
}

/* Appends a reference to s to the task's array *arr. */
static void
task_add(HsEnv *env, HsSstInfo ***arr, int *n, HsSstInfo *s)
{
	HsSstInfoArrayAppend(env, arr, n, &s, 1);
}

/* Add the SSTs of level (1-based) overlapping [lo, hi] (table keys). */
static void
add_overlapping(HsCompactionTask *t, const HsVersion *v, int level,
				HsSlice lo, HsSlice hi)
{
	const HsLevel *lv = &v->levels[level - 1];
	int			i;

	for (i = 0; i < lv->n_ssts; i++)
	{
		HsSlice		s = HsFullKeyTableKey(HsSstInfoSmallest(lv->ssts[i]));
		HsSlice		l = HsFullKeyTableKey(HsSstInfoLargest(lv->ssts[i]));

		if (HsSliceCompare(s, hi) <= 0 && HsSliceCompare(lo, l) <= 0)
			task_add(t->env, &t->lower, &t->n_lower, lv->ssts[i]);
	}
}

/* Sets [lo, hi] to the table-key range the n SSTs cover. */
static void
range_of(HsSstInfo *const *ssts, int n, HsSlice *lo, HsSlice *hi)
{
	int			i;

	*lo = HsFullKeyTableKey(HsSstInfoSmallest(ssts[0]));
	*hi = HsFullKeyTableKey(HsSstInfoLargest(ssts[0]));
	for (i = 1; i < n; i++)
	{
		HsSlice		s = HsFullKeyTableKey(HsSstInfoSmallest(ssts[i]));
		HsSlice		l = HsFullKeyTableKey(HsSstInfoLargest(ssts[i]));

		if (HsSliceCompare(s, *lo) < 0)
			*lo = s;
		if (HsSliceCompare(l, *hi) > 0)
			*hi = l;
	}
}

HsCompactionTask *
HsCompactionPickL0(const HsVersion *v)
{
	HsCompactionTask *t;
	HsSlice		lo;
	HsSlice		hi;
	int			i;
	int			j;

	if (v->n_sub_levels == 0)
		return NULL;
	t = task_new(v, 0);
	for (i = v->n_sub_levels - 1; i >= 0; i--)
		for (j = 0; j < v->sub_levels[i].n_ssts; j++)
			task_add(t->env, &t->upper, &t->n_upper, v->sub_levels[i].ssts[j]);
	range_of(t->upper, t->n_upper, &lo, &hi);
	add_overlapping(t, v, 1, lo, hi);
	return t;
}

/* Does s overlap the table-key range [lo, hi]? */
static bool
overlaps(const HsSstInfo *s, HsSlice lo, HsSlice hi)
{
	return HsSliceCompare(HsFullKeyTableKey(HsSstInfoSmallest(s)), hi) <= 0 &&
		HsSliceCompare(lo, HsFullKeyTableKey(HsSstInfoLargest(s))) <= 0;
}

/* Widens [lo, hi] to cover s. */
static void
widen(const HsSstInfo *s, HsSlice *lo, HsSlice *hi)
{
	HsSlice		a = HsFullKeyTableKey(HsSstInfoSmallest(s));
	HsSlice		b = HsFullKeyTableKey(HsSstInfoLargest(s));

	if (HsSliceCompare(a, *lo) < 0)
		*lo = a;
	if (HsSliceCompare(b, *hi) > 0)
		*hi = b;
}

/*
 * L0 -> L1 for one key range: starting from the first SST of the oldest
 * sub-level, the range grows until it holds every L0 and L1 SST that
 * overlaps it.  Every version of a key in the range is then an input, and
 * no L1 SST left out overlaps the outputs.  L0 SSTs of other ranges (other
 * graphs' tables) stay for later tasks, so a compaction rewrites only the
 * L1 data of the tables that changed, not all of L1.
 */
static HsCompactionTask *
pick_l0_range(const HsVersion *v)
{
	HsCompactionTask *t;
	bool	  **in_l0;
	bool	   *in_l1;
	const HsLevel *l1 = &v->levels[0];
	HsSlice		lo;
	HsSlice		hi;
	bool		grew = true;
	int			i;
	int			j;

	if (v->n_sub_levels == 0 || v->sub_levels[0].n_ssts == 0)
		return HsCompactionPickL0(v);
	in_l0 = HsAllocZero(v->env, sizeof(bool *) * v->n_sub_levels);
	for (i = 0; i < v->n_sub_levels; i++)
		in_l0[i] = HsAllocZero(v->env, sizeof(bool) * (v->sub_levels[i].n_ssts + 1));
	in_l1 = HsAllocZero(v->env, sizeof(bool) * (l1->n_ssts + 1));
	lo = HsFullKeyTableKey(HsSstInfoSmallest(v->sub_levels[0].ssts[0]));
	hi = HsFullKeyTableKey(HsSstInfoLargest(v->sub_levels[0].ssts[0]));
	while (grew)
	{
		grew = false;
		for (i = 0; i < v->n_sub_levels; i++)
			for (j = 0; j < v->sub_levels[i].n_ssts; j++)
				if (!in_l0[i][j] && overlaps(v->sub_levels[i].ssts[j], lo, hi))
				{
					in_l0[i][j] = true;
					widen(v->sub_levels[i].ssts[j], &lo, &hi);
					grew = true;
				}
		for (j = 0; j < l1->n_ssts; j++)
			if (!in_l1[j] && overlaps(l1->ssts[j], lo, hi))
			{
				in_l1[j] = true;
				widen(l1->ssts[j], &lo, &hi);
				grew = true;
			}
	}
	t = task_new(v, 0);
	for (i = v->n_sub_levels - 1; i >= 0; i--)
		for (j = 0; j < v->sub_levels[i].n_ssts; j++)
			if (in_l0[i][j])
				task_add(t->env, &t->upper, &t->n_upper, v->sub_levels[i].ssts[j]);
	for (j = 0; j < l1->n_ssts; j++)
		if (in_l1[j])
			task_add(t->env, &t->lower, &t->n_lower, l1->ssts[j]);
	for (i = 0; i < v->n_sub_levels; i++)
		HsFree(v->env, in_l0[i]);
	HsFree(v->env, in_l0);
	HsFree(v->env, in_l1);
	return t;
}

HsCompactionTask *
HsCompactionPick(const HsVersion *v, const HsCompactionConfig *cfg)
{
	uint64_t	target = cfg->level_base_size;
	int			level;

	if (v->n_sub_levels > 0 && v->n_sub_levels >= cfg->l0_trigger)
	{
		HsCompactionTask *t = pick_l0_range(v);
		uint64_t	upper = 0;
		uint64_t	lower = 0;
		int			i;

		for (i = 0; i < t->n_upper; i++)
			upper += t->upper[i]->file_size;
		for (i = 0; i < t->n_lower; i++)
			lower += t->lower[i]->file_size;

		/*
		 * Small L0 data over a big L1 range waits (up to l0_max_sub_levels
		 * sub-levels): merging it now would rewrite the whole range for a
		 * little new data.
		 */
		if (v->n_sub_levels >= cfg->l0_max_sub_levels || cfg->l0_min_ratio <= 0 ||
			upper * (uint64_t) cfg->l0_min_ratio >= lower)
			return t;
		HsCompactionTaskFree(t);
	}
	/* push keys of dropped tables down and out */
	if (v->n_dropped > 0)
	{
		for (level = 1; level < HS_MAX_LEVEL; level++)
		{
			const HsLevel *lv = &v->levels[level - 1];
			int			i;
			int			k;

			for (i = 0; i < lv->n_ssts; i++)
				for (k = 0; k < v->n_dropped; k++)
					if (HsSstInfoHasTable(lv->ssts[i], v->dropped[k]))
					{
						HsCompactionTask *t = task_new(v, level);

						task_add(t->env, &t->upper, &t->n_upper, lv->ssts[i]);
						add_overlapping(t, v, level + 1,
										HsFullKeyTableKey(HsSstInfoSmallest(lv->ssts[i])),
										HsFullKeyTableKey(HsSstInfoLargest(lv->ssts[i])));
						return t;
					}
		}
	}
	for (level = 1; level < HS_MAX_LEVEL; level++)
	{
		const HsLevel *lv = &v->levels[level - 1];
		uint64_t	size = 0;
		int			i;

		for (i = 0; i < lv->n_ssts; i++)
			size += lv->ssts[i]->file_size;
		if (lv->n_ssts > 0 && size > target)
		{
			HsCompactionTask *t = task_new(v, level);

			task_add(t->env, &t->upper, &t->n_upper, lv->ssts[0]);
			add_overlapping(t, v, level + 1,
							HsFullKeyTableKey(HsSstInfoSmallest(lv->ssts[0])),
							HsFullKeyTableKey(HsSstInfoLargest(lv->ssts[0])));
			return t;
		}
		target *= (uint64_t) (cfg->level_multiplier > 1 ? cfg->level_multiplier : 2);
	}
	return NULL;
}

/* Frees the task and drops its SST references. */
void
HsCompactionTaskFree(HsCompactionTask *t)
{
	if (t == NULL)
		return;
	HsSstInfoArrayFree(t->env, t->upper, t->n_upper);
	HsSstInfoArrayFree(t->env, t->lower, t->n_lower);
	HsFree(t->env, t);
}

/* Is table t committed in v and not dropped? */
static bool
table_live(const HsVersion *v, HsTableId t)
{
	return HsVersionTableInfo(v, t) != NULL && !HsVersionTableDropped(v, t);
}

bool
HsCompactionRun(const HsVersion *v, HsSstCache *cache,
				const HsCompactionTask *task, HsEpoch safe_epoch,
				const HsSstWriteContext *ctx, HsVersionDelta **delta,
				HsStatus *st)
{
	HsEnv	   *env = v->env;
	HsIterator **children;
	HsIterator *merged;
	HsSstWriter *w;
	HsBuf		cur;
	bool		have_cur = false;
	bool		kept_old = false;	/* kept the newest <= safe of cur */
	bool		bottom = true;
	uint64_t	entries = 0;
	int			n = 0;
	int			i;
	bool		ok = true;
	HsSstInfo **outs;
	int			n_outs;
	uint64_t   *ids;
	HsVersionDelta *d;

	*delta = NULL;
	for (i = task->output_level; i < HS_MAX_LEVEL; i++)
		if (v->levels[i].n_ssts > 0)
			bottom = false;

	children = HsAlloc(env, sizeof(HsIterator *) *
					   (task->n_upper + task->n_lower + 1));
	for (i = 0; i < task->n_upper + task->n_lower && ok; i++)
	{
		const HsSstInfo *s = i < task->n_upper ? task->upper[i] :
			task->lower[i - task->n_upper];

		ok = HsSstCacheNewIterator(cache, s->object_id, &children[n], st);
		if (ok)
			n++;
	}
	if (!ok)
	{
		while (n > 0)
			HsIterDestroy(children[--n]);
		HsFree(env, children);
		return false;
	}
	merged = HsMergeIterCreate(env, children, n);
	HsFree(env, children);

	HsBufInit(&cur, env);
	w = HsSstWriterCreate(env, ctx);
	for (HsIterSeekToFirst(merged); ok && HsIterValid(merged);
		 HsIterNext(merged))
	{
		HsSlice		fk = HsIterKey(merged);
		HsSlice		val = HsIterValue(merged);
		HsSlice		tk = HsFullKeyTableKey(fk);
		HsEpoch		e = HsFullKeyEpoch(fk);

		if (++entries % HS_ENTRIES_PER_INTERRUPT_CHECK == 0)
			HsCheckInterrupts(env);

		if (!have_cur || HsSliceCompare(tk, HsBufSlice(&cur)) != 0)
		{
			HsBufAssign(&cur, tk.data, tk.len);
			have_cur = true;
			kept_old = false;
		}
		if (!table_live(v, HsFullKeyTableId(fk)))
			continue;
		if (e <= safe_epoch)
		{
			if (kept_old)
				continue;
			kept_old = true;
			if (bottom && val.len > 0 && val.data[0] == HS_VALUE_DELETE)
				continue;
		}
		ok = HsSstWriterAdd(w, fk, val, st);
	}
	if (ok && !HsIterStatus(merged, st))
		ok = false;
	HsIterDestroy(merged);
	HsBufFree(&cur);
	if (!ok)
	{
		HsSstWriterAbandon(w);
		return false;
	}
	if (!HsSstWriterFinish(w, &outs, &n_outs, st))
		return false;

	d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
	ids = HsAlloc(env, sizeof(uint64_t) * (task->n_upper + task->n_lower + 1));
	for (i = 0; i < task->n_upper; i++)
		ids[i] = task->upper[i]->object_id;
	HsVersionDeltaAddLevelChange(d, task->input_level, ids, task->n_upper,
								 NULL, 0);
	for (i = 0; i < task->n_lower; i++)
		ids[i] = task->lower[i]->object_id;
	HsVersionDeltaAddLevelChange(d, task->output_level, ids, task->n_lower,
								 outs, n_outs);
	d->safe_epoch = safe_epoch;
	HsFree(env, ids);
	HsSstInfoArrayFree(env, outs, n_outs);
	*delta = d;
	return true;
}

HsVersionDelta *
HsCompactionTrimChangeLogs(const HsVersion *v, HsEpoch retention_epoch,
						   const HsLogFloor *floors, int n_floors)
{
	HsVersionDelta *d = NULL;
	int			i;

	for (i = 0; i < v->n_change_logs; i++)
	{
		const HsTableChangeLog *log = &v->change_logs[i];
		HsEpoch		upto = retention_epoch;

		for (int k = 0; k < n_floors; k++)
			if (floors[k].table_id == log->table_id && floors[k].epoch < upto)
				upto = floors[k].epoch;
		if (log->n_entries == 0 ||
			HsChangeLogEntryCheckpointEpoch(log->entries[0]) >= upto)
			continue;
		if (d == NULL)
			d = HsVersionDeltaCreate(v->env, HS_DELTA_TRUNCATE_LOG, v->id);
		HsVersionDeltaAddTruncate(d, log->table_id, upto);
	}
	return d;
}
