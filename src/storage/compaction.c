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
	cfg->l0_tier_min_size = UINT64_C(64) << 10;
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
 * L0 membership flags of a range: in[i][j] for SST j of sub-level i.
 */
typedef struct L0Marks
{
	bool	  **in;
	int			n_sub;			/* sub-levels holding a marked SST */
	uint64_t	bytes;			/* of the marked SSTs */
} L0Marks;

static void
marks_init(const HsVersion *v, L0Marks *m)
{
	int			i;

	m->in = HsAllocZero(v->env, sizeof(bool *) * (v->n_sub_levels + 1));
	for (i = 0; i < v->n_sub_levels; i++)
		m->in[i] = HsAllocZero(v->env, sizeof(bool) * (v->sub_levels[i].n_ssts + 1));
	m->n_sub = 0;
	m->bytes = 0;
}

static void
marks_free(const HsVersion *v, L0Marks *m)
{
	int			i;

	for (i = 0; i < v->n_sub_levels; i++)
		HsFree(v->env, m->in[i]);
	HsFree(v->env, m->in);
}

/* The table ids an SST's keys span: [*lo, *hi]. */
static void
table_span(const HsSstInfo *s, HsTableId *lo, HsTableId *hi)
{
	*lo = HsFullKeyTableId(HsSstInfoSmallest(s));
	*hi = HsFullKeyTableId(HsSstInfoLargest(s));
}

/* Counts m's sub-levels and bytes. */
static void
marks_count(const HsVersion *v, L0Marks *m)
{
	int			i;
	int			j;

	m->n_sub = 0;
	m->bytes = 0;
	for (i = 0; i < v->n_sub_levels; i++)
	{
		bool		any = false;

		for (j = 0; j < v->sub_levels[i].n_ssts; j++)
			if (m->in[i][j])
			{
				any = true;
				m->bytes += v->sub_levels[i].ssts[j]->file_size;
			}
		m->n_sub += any;
	}
}

/*
 * An L0 group: from L0 SST (si, sj), every L0 SST whose tables overlap the
 * group's table-id span, grown until none is left (marked in m).  Groups
 * are by table, not by key, so the SSTs a graph commits every barrier for
 * a table whose keys only grow (disjoint key ranges) are one group that
 * merges, instead of as many groups of one SST that never do.
 */
static void
l0_group(const HsVersion *v, int si, int sj, L0Marks *m)
{
	HsTableId	lo;
	HsTableId	hi;
	bool		grew = true;
	int			i;
	int			j;

	table_span(v->sub_levels[si].ssts[sj], &lo, &hi);
	while (grew)
	{
		grew = false;
		for (i = 0; i < v->n_sub_levels; i++)
			for (j = 0; j < v->sub_levels[i].n_ssts; j++)
			{
				HsTableId	a;
				HsTableId	b;

				if (m->in[i][j])
					continue;
				table_span(v->sub_levels[i].ssts[j], &a, &b);
				if (a > hi || b < lo)
					continue;
				m->in[i][j] = true;
				lo = a < lo ? a : lo;
				hi = b > hi ? b : hi;
				grew = true;
			}
	}
	marks_count(v, m);
}

/*
 * L0 -> L1 for an L0 group (g): the table-key range of its SSTs grows
 * until it holds every L0 and L1 SST that overlaps it.  Every version of a
 * key in the range is then an input, and no L1 SST left out overlaps the
 * outputs.  L0 SSTs of other groups (other graphs' tables) stay for later
 * tasks, so a compaction rewrites only the L1 data of the tables that
 * changed, not all of L1, and of a table whose keys only grow only the
 * end.
 */
static HsCompactionTask *
pick_l0_range(const HsVersion *v, const L0Marks *g)
{
	HsCompactionTask *t;
	L0Marks		m;
	const HsLevel *l1 = &v->levels[0];
	bool	   *in_l1;
	HsSlice		lo = {0};
	HsSlice		hi = {0};
	bool		first = true;
	bool		grew = true;
	int			i;
	int			j;

	marks_init(v, &m);
	for (i = 0; i < v->n_sub_levels; i++)
		for (j = 0; j < v->sub_levels[i].n_ssts; j++)
			if (g->in[i][j])
			{
				const HsSstInfo *s = v->sub_levels[i].ssts[j];

				m.in[i][j] = true;
				if (first)
				{
					lo = HsFullKeyTableKey(HsSstInfoSmallest(s));
					hi = HsFullKeyTableKey(HsSstInfoLargest(s));
					first = false;
				}
				else
					widen(s, &lo, &hi);
			}
	in_l1 = HsAllocZero(v->env, sizeof(bool) * (l1->n_ssts + 1));
	while (grew)
	{
		grew = false;
		for (i = 0; i < v->n_sub_levels; i++)
			for (j = 0; j < v->sub_levels[i].n_ssts; j++)
				if (!m.in[i][j] && overlaps(v->sub_levels[i].ssts[j], lo, hi))
				{
					m.in[i][j] = true;
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
			if (m.in[i][j])
				task_add(t->env, &t->upper, &t->n_upper, v->sub_levels[i].ssts[j]);
	for (j = 0; j < l1->n_ssts; j++)
		if (in_l1[j])
			task_add(t->env, &t->lower, &t->n_lower, l1->ssts[j]);
	marks_free(v, &m);
	HsFree(v->env, in_l1);
	return t;
}

/*
 * Intra-L0 for an L0 group (m): the group's newest sub-levels, taken
 * newest first while each next older one is no larger than all those
 * taken so far or than tier_min bytes (size tiers: a big merged SST is
 * rewritten only once the small data above it has grown as large), merged
 * into one run that stays in L0, in the newest of them.  Every SST of the
 * group in a sub-level at or above the oldest one taken is an input, and
 * no other L0 SST shares a table with them, so for any key of the outputs
 * the sub-levels above still hold only newer versions and those below only
 * older ones, as reads require.  NULL unless at least min_sub sub-levels
 * would be merged.
 */
static HsCompactionTask *
pick_intra_l0(const HsVersion *v, const L0Marks *m, int min_sub,
			  uint64_t tier_min)
{
	HsCompactionTask *t;
	uint64_t	taken = 0;
	int			n_taken = 0;
	int			cut = v->n_sub_levels;
	int			newest = -1;
	int			i;
	int			j;

	for (i = v->n_sub_levels - 1; i >= 0; i--)
	{
		uint64_t	b = 0;
		bool		any = false;

		for (j = 0; j < v->sub_levels[i].n_ssts; j++)
			if (m->in[i][j])
			{
				any = true;
				b += v->sub_levels[i].ssts[j]->file_size;
			}
		if (!any)
			continue;
		if (n_taken > 0 && b > taken && b > tier_min)
			break;
		if (newest < 0)
			newest = i;
		taken += b;
		n_taken++;
		cut = i;
	}
	if (n_taken < min_sub || n_taken < 2)
		return NULL;
	t = task_new(v, 0);
	t->output_level = 0;
	t->l0_target = v->sub_levels[newest].sub_level_id;
	for (i = v->n_sub_levels - 1; i >= cut; i--)
		for (j = 0; j < v->sub_levels[i].n_ssts; j++)
			if (m->in[i][j])
				task_add(t->env, &t->upper, &t->n_upper, v->sub_levels[i].ssts[j]);
	return t;
}

static uint64_t
task_bytes(HsSstInfo *const *ssts, int n)
{
	uint64_t	b = 0;
	int			i;

	for (i = 0; i < n; i++)
		b += ssts[i]->file_size;
	return b;
}

/* Does an SST marked in m hold keys of a dropped table? */
static bool
marks_hold_dropped(const HsVersion *v, const L0Marks *m)
{
	for (int i = 0; i < v->n_sub_levels; i++)
		for (int j = 0; j < v->sub_levels[i].n_ssts; j++)
			if (m->in[i][j])
				for (int k = 0; k < v->n_dropped; k++)
					if (HsSstInfoHasTable(v->sub_levels[i].ssts[j], v->dropped[k]))
						return true;
	return false;
}

/*
 * The first L0 task due, group by group (l0_group, from the oldest
 * sub-level's SSTs up): a group spanning at least l0_trigger
 * sub-levels goes to L1 if its L0 bytes are at least 1/l0_min_ratio of the
 * L1 bytes that would be rewritten (or it spans l0_max_sub_levels);
 * otherwise its newest sub-levels are merged within L0 (pick_intra_l0).
 * Counting sub-levels per group, not in all of L0, keeps graphs that
 * commit often from forcing each other's big L1 ranges to be rewritten
 * for a little new data.
 *
 * A group holding keys of a dropped table goes to L1 whatever its size,
 * which drops those keys: a dropped view's last sub-levels are fewer than
 * l0_trigger and no commit adds to them, so they would otherwise stay in
 * L0 for good, on disk and in every read's list of SSTs to check.
 */
static HsCompactionTask *
pick_l0(const HsVersion *v, const HsCompactionConfig *cfg)
{
	L0Marks		seen;
	HsCompactionTask *t = NULL;
	int			i;
	int			j;

	marks_init(v, &seen);
	for (i = 0; i < v->n_sub_levels && t == NULL; i++)
		for (j = 0; j < v->sub_levels[i].n_ssts && t == NULL; j++)
		{
			L0Marks		m;
			int			a;
			int			b;

			if (seen.in[i][j])
				continue;
			marks_init(v, &m);
			l0_group(v, i, j, &m);
			for (a = 0; a < v->n_sub_levels; a++)
				for (b = 0; b < v->sub_levels[a].n_ssts; b++)
					seen.in[a][b] |= m.in[a][b];
			if (v->n_dropped > 0 && marks_hold_dropped(v, &m))
				t = pick_l0_range(v, &m);
			else if (m.n_sub >= cfg->l0_trigger)
			{
				t = pick_l0_range(v, &m);
				if (!(m.n_sub >= cfg->l0_max_sub_levels || cfg->l0_min_ratio <= 0 ||
					  task_bytes(t->upper, t->n_upper) * (uint64_t) cfg->l0_min_ratio >=
					  task_bytes(t->lower, t->n_lower)))
				{
					HsCompactionTaskFree(t);
					t = pick_intra_l0(v, &m, cfg->l0_trigger, cfg->l0_tier_min_size);
				}
			}
			marks_free(v, &m);
		}
	marks_free(v, &seen);
	return t;
}

HsCompactionTask *
HsCompactionPick(const HsVersion *v, const HsCompactionConfig *cfg)
{
	uint64_t	target = cfg->level_base_size;
	int			level;

	if (v->n_sub_levels > 0)
	{
		HsCompactionTask *t = pick_l0(v, cfg);

		if (t != NULL)
			return t;
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

/*
 * The safe epoch of table t, and whether it is one of its own (listed in
 * safe); the list is sorted.
 */
static HsEpoch
table_safe_epoch(const HsSafeEpochs *safe, HsTableId t, bool *own)
{
	int			lo = 0;
	int			hi = safe->n_tables;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (safe->tables[mid].table_id < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	*own = lo < safe->n_tables && safe->tables[lo].table_id == t &&
		safe->tables[lo].epoch > safe->epoch;
	return *own ? safe->tables[lo].epoch : safe->epoch;
}

bool
HsCompactionRun(const HsVersion *v, HsSstCache *cache,
				const HsCompactionTask *task, const HsSafeEpochs *safe,
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
	bool		bottom = task->output_level > 0;	/* L0 output: L1.. may hold more */
	uint64_t	entries = 0;
	int			n = 0;
	int			i;
	bool		ok = true;
	HsSstInfo **outs;
	int			n_outs;
	uint64_t   *ids;
	HsVersionDelta *d;
	HsTableId	cur_table = 0;
	bool		have_table = false;
	HsEpoch		safe_epoch = safe->epoch;	/* of cur_table */
	int			n_own = 0;		/* tables compacted to their own safe epoch */
	HsTableEpoch *own;

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
	own = HsAlloc(env, sizeof(HsTableEpoch) * (safe->n_tables + 1));

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
		if (!have_table || HsFullKeyTableId(fk) != cur_table)
		{
			bool		is_own;

			/* keys come in table order: one lookup per table */
			cur_table = HsFullKeyTableId(fk);
			have_table = true;
			safe_epoch = table_safe_epoch(safe, cur_table, &is_own);
			if (is_own)
			{
				own[n_own].table_id = cur_table;
				own[n_own++].epoch = safe_epoch;
			}
		}

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
		HsFree(env, own);
		return false;
	}
	if (!HsSstWriterFinish(w, &outs, &n_outs, st))
	{
		HsFree(env, own);
		return false;
	}

	d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
	ids = HsAlloc(env, sizeof(uint64_t) * (task->n_upper + task->n_lower + 1));
	for (i = 0; i < task->n_upper; i++)
		ids[i] = task->upper[i]->object_id;
	HsVersionDeltaAddLevelChange(d, task->input_level, ids, task->n_upper,
								 NULL, 0);
	if (task->output_level == 0)
		HsVersionDeltaAddL0Insert(d, task->l0_target, outs, n_outs);
	else
	{
		for (i = 0; i < task->n_lower; i++)
			ids[i] = task->lower[i]->object_id;
		HsVersionDeltaAddLevelChange(d, task->output_level, ids, task->n_lower,
									 outs, n_outs);
	}
	d->safe_epoch = safe->epoch;
	for (i = 0; i < n_own; i++)
		HsVersionDeltaAddTableSafeEpoch(d, own[i].table_id, own[i].epoch);
	HsFree(env, own);
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
