/*-------------------------------------------------------------------------
 *
 * version_apply.c
 *	  Applying a version delta to a version, and every invariant that
 *	  application checks.
 *
 * HsVersionApplyDelta is the only way a version changes: the hummock
 * manager applies each delta it commits, and each one it reads back when
 * it rolls its cached version forward, so the checks here guard both what
 * is written and what is replayed.  The invariants themselves are listed
 * in version_apply.h.
 *
 * Design notes:
 *	- Copy-on-write.  The delta is applied to a copy of the version
 *	  (HsVersionCopy: new arrays, one more reference on every SST info and
 *	  change-log entry), which is edited in place and returned; the input
 *	  version is never touched, so a failed delta leaves nothing behind but
 *	  the copy, which is dropped.
 *	- Checks run in a fixed order, so a delta that breaks several rules is
 *	  always reported by the same one: the delta's ids, its kind and the
 *	  parts that kind may carry (check_parts), then each part in the order
 *	  of the delta (commits: epochs, the new L0 sub-level, change-log
 *	  appends; compactions: the L0 insertion, each level change), then
 *	  the truncations.
 *	  The result is finally run through HsVersionValidate, the structural
 *	  checks a decoded checkpoint gets; a delta that would fail them is
 *	  refused, not published.
 *	- Errors are HS_INVALID_ARGUMENT naming the delta and the table, epoch
 *	  or object at fault: a delta that breaks a rule is a caller's bug (or
 *	  a replayed delta from a build that had one), not damaged bytes, which
 *	  version_delta.c reports as HS_CORRUPTION while decoding.
 *	- A commit must not reuse an object the version references.  Object
 *	  ids come from one increasing counter, so this guards against bugs
 *	  only, and only the levels are searched: searching every change-log
 *	  entry would make each commit cost as much as the logs are long.
 *	- Change logs grow with the checkpoints that changed their table: an
 *	  entry without SSTs replaces a last entry that has none either.  A
 *	  logged table committed without an append loses its log (the stop
 *	  rule, version.h).
 *	- Removed tables: their info and change log go at once; while level
 *	  SSTs still hold their keys their ids stay in the version's dropped
 *	  list (so a commit cannot reuse them), and every compaction forgets
 *	  the ids whose keys are gone.
 *
 * src/storage/version_apply.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hummock_stream/storage/version_apply.h"
#include "hummock_stream/storage/version_delta.h"

/* Sets an HS_INVALID_ARGUMENT status "version delta N: msg"; returns false. */
static bool
invalid(HsStatus *st, uint64_t delta_id, const char *msg)
{
	HsStatusSet(st, HS_INVALID_ARGUMENT, "version delta %" PRIu64 ": %s",
				delta_id, msg);
	return false;
}

/*
 * Returns the epoch the delta commits for table_id, or HS_EPOCH_INVALID if
 * it does not commit the table.
 */
static HsEpoch
delta_commit_epoch(const HsVersionDelta *d, HsTableId table_id)
{
	int			i;

	for (i = 0; i < d->n_commits; i++)
		if (d->commits[i].table_id == table_id)
			return d->commits[i].epoch;
	return HS_EPOCH_INVALID;
}

/* Does the delta append to table_id's change log? */
static bool
delta_appends_log(const HsVersionDelta *d, HsTableId table_id)
{
	int			i;

	for (i = 0; i < d->n_log_appends; i++)
		if (d->log_appends[i].table_id == table_id)
			return true;
	return false;
}

/* ----------------------------------------------------------------
 *		tables
 * ----------------------------------------------------------------
 */

/* Returns the info of table_id in a mutable version, inserted if new. */
static HsTableInfo *
table_upsert(HsVersion *v, HsTableId table_id)
{
	int			i;

	for (i = 0; i < v->n_tables; i++)
	{
		if (v->tables[i].table_id == table_id)
			return &v->tables[i];
		if (v->tables[i].table_id > table_id)
			break;
	}
	v->tables = HsRealloc(v->env, v->tables,
						  sizeof(HsTableInfo) * (v->n_tables + 1));
	memmove(&v->tables[i + 1], &v->tables[i],
			sizeof(HsTableInfo) * (v->n_tables - i));
	v->n_tables++;
	memset(&v->tables[i], 0, sizeof(HsTableInfo));
	v->tables[i].table_id = table_id;
	return &v->tables[i];
}

/* Removes the info of table_id, if any, from a mutable version. */
static void
table_remove(HsVersion *v, HsTableId table_id)
{
	int			i;

	for (i = 0; i < v->n_tables; i++)
		if (v->tables[i].table_id == table_id)
		{
			memmove(&v->tables[i], &v->tables[i + 1],
					sizeof(HsTableInfo) * (v->n_tables - i - 1));
			v->n_tables--;
			return;
		}
}

/* Does any L0 or level SST hold keys of table_id? */
static bool
level_ssts_mention_table(const HsVersion *v, HsTableId table_id)
{
	int			i;
	int			j;

	for (i = 0; i < v->n_sub_levels; i++)
		for (j = 0; j < v->sub_levels[i].n_ssts; j++)
			if (HsSstInfoHasTable(v->sub_levels[i].ssts[j], table_id))
				return true;
	for (i = 0; i < HS_MAX_LEVEL; i++)
		for (j = 0; j < v->levels[i].n_ssts; j++)
			if (HsSstInfoHasTable(v->levels[i].ssts[j], table_id))
				return true;
	return false;
}

/* qsort comparator of table ids. */
static int
table_id_cmp(const void *a, const void *b)
{
	HsTableId	x = *(const HsTableId *) a;
	HsTableId	y = *(const HsTableId *) b;

	return (x > y) - (x < y);
}

/* Forgets dropped ids whose keys are gone from every level. */
static void
prune_dropped(HsVersion *v)
{
	int			i;
	int			k = 0;

	for (i = 0; i < v->n_dropped; i++)
		if (level_ssts_mention_table(v, v->dropped[i]))
			v->dropped[k++] = v->dropped[i];
	v->n_dropped = k;
}

/* ----------------------------------------------------------------
 *		change logs
 * ----------------------------------------------------------------
 */

/* Returns table_id's change log in a mutable version, or NULL. */
static HsTableChangeLog *
log_find(HsVersion *v, HsTableId table_id)
{
	int			i;

	for (i = 0; i < v->n_change_logs; i++)
		if (v->change_logs[i].table_id == table_id)
			return &v->change_logs[i];
	return NULL;
}

/* Inserts an empty change log for table_id (kept sorted by table id). */
static HsTableChangeLog *
log_create(HsVersion *v, HsTableId table_id, HsEpoch start_epoch)
{
	int			i;

	for (i = 0; i < v->n_change_logs; i++)
		if (v->change_logs[i].table_id > table_id)
			break;
	v->change_logs = HsRealloc(v->env, v->change_logs,
							   sizeof(HsTableChangeLog) * (v->n_change_logs + 1));
	memmove(&v->change_logs[i + 1], &v->change_logs[i],
			sizeof(HsTableChangeLog) * (v->n_change_logs - i));
	v->n_change_logs++;
	memset(&v->change_logs[i], 0, sizeof(HsTableChangeLog));
	v->change_logs[i].table_id = table_id;
	v->change_logs[i].start_epoch = start_epoch;
	return &v->change_logs[i];
}

/* Removes table_id's change log, if any, dropping its entries. */
static void
log_remove(HsVersion *v, HsTableId table_id)
{
	int			i;
	int			j;

	for (i = 0; i < v->n_change_logs; i++)
		if (v->change_logs[i].table_id == table_id)
		{
			HsTableChangeLog *log = &v->change_logs[i];

			for (j = 0; j < log->n_entries; j++)
				HsChangeLogEntryUnref(log->entries[j]);
			if (log->entries)
				HsFree(v->env, log->entries);
			memmove(&v->change_logs[i], &v->change_logs[i + 1],
					sizeof(HsTableChangeLog) * (v->n_change_logs - i - 1));
			v->n_change_logs--;
			return;
		}
}

/*
 * Appends e to log.  An entry without SSTs (a checkpoint that did not
 * change the table) replaces a last entry that has none either: what an
 * empty entry tells a reader is only that the log reaches its checkpoint
 * epoch, so a run of them keeps just the newest, and a log grows with the
 * checkpoints that changed the table, not with every checkpoint.
 */
static void
log_append(HsVersion *v, HsTableChangeLog *log, HsChangeLogEntry *e)
{
	if (e->n_new == 0 && e->n_old == 0 && log->n_entries > 0)
	{
		HsChangeLogEntry *last = log->entries[log->n_entries - 1];

		if (last->n_new == 0 && last->n_old == 0)
		{
			HsChangeLogEntryUnref(last);
			log->entries[log->n_entries - 1] = HsChangeLogEntryRef(e);
			return;
		}
	}
	log->entries = HsRealloc(v->env, log->entries,
							 sizeof(HsChangeLogEntry *) * (log->n_entries + 1));
	log->entries[log->n_entries++] = HsChangeLogEntryRef(e);
}

/*
 * Drops the entries of table_id's log whose checkpoint epoch is below
 * epoch; the log then starts at the last dropped checkpoint epoch.
 */
static void
log_truncate(HsVersion *v, HsTableId table_id, HsEpoch epoch)
{
	HsTableChangeLog *log = log_find(v, table_id);
	int			k = 0;
	int			j;

	if (log == NULL)
		return;
	while (k < log->n_entries &&
		   HsChangeLogEntryCheckpointEpoch(log->entries[k]) < epoch)
		k++;
	if (k == 0)
		return;
	log->start_epoch = HsChangeLogEntryCheckpointEpoch(log->entries[k - 1]);
	for (j = 0; j < k; j++)
		HsChangeLogEntryUnref(log->entries[j]);
	memmove(log->entries, log->entries + k,
			sizeof(HsChangeLogEntry *) * (log->n_entries - k));
	log->n_entries -= k;
}

/* ----------------------------------------------------------------
 *		commits
 * ----------------------------------------------------------------
 */

/* Sets the committed epochs: each table once, valid, newer, not dropped. */
static bool
commit_epochs(const HsVersion *v, HsVersion *c, const HsVersionDelta *d,
			  HsStatus *st)
{
	int			i;
	int			j;

	for (i = 0; i < d->n_commits; i++)
	{
		HsTableId	t = d->commits[i].table_id;
		HsEpoch		e = d->commits[i].epoch;
		const HsTableInfo *old = HsVersionTableInfo(v, t);
		HsTableInfo *ti;

		for (j = 0; j < i; j++)
			if (d->commits[j].table_id == t)
			{
				invalid(st, d->id, "table committed twice");
				return HsStatusDetail(st, "Table %u appears twice in the commit.", t);
			}
		if (HsVersionTableDropped(v, t))
		{
			invalid(st, d->id, "commit of a dropped table");
			return HsStatusDetail(st, "Table %u was dropped and its keys are not yet compacted away.", t);
		}
		if (e == HS_EPOCH_INVALID)
		{
			invalid(st, d->id, "commit of the invalid epoch");
			return HsStatusDetail(st, "Table %u.", t);
		}
		if (old != NULL && e <= old->committed_epoch)
		{
			HsStatusSet(st, HS_INVALID_ARGUMENT,
						"committed epoch of table %u cannot move from %" PRIu64 " to %" PRIu64,
						t, old->committed_epoch, e);
			return HsStatusDetail(st, "Version delta %" PRIu64 " commits an epoch that is not newer than the committed one.",
								  d->id);
		}
		ti = table_upsert(c, t);
		ti->committed_epoch = e;
	}
	return true;
}

/*
 * Adds the delta's SSTs as one new L0 sub-level: new objects, each listed
 * once, holding only tables the delta commits.
 */
static bool
commit_l0(const HsVersion *v, HsVersion *c, const HsVersionDelta *d,
		  HsStatus *st)
{
	HsSubLevel *sl;
	int			i;
	int			j;

	if (d->n_new_l0 == 0)
		return true;
	for (i = 0; i < d->n_new_l0; i++)
	{
		const HsSstInfo *s = d->new_l0[i];
		uint32_t	k;

		if (HsVersionLevelsReferenceObject(v, s->object_id))
		{
			invalid(st, d->id, "commit reuses an existing object");
			return HsStatusDetail(st, "Object %" PRIu64 " is already referenced by version %" PRIu64 ".",
								  s->object_id, v->id);
		}
		for (j = 0; j < i; j++)
			if (d->new_l0[j]->object_id == s->object_id)
			{
				invalid(st, d->id, "commit lists an object twice");
				return HsStatusDetail(st, "Object %" PRIu64 ".", s->object_id);
			}
		for (k = 0; k < s->table_count; k++)
			if (delta_commit_epoch(d, s->table_ids[k]) == HS_EPOCH_INVALID)
			{
				invalid(st, d->id, "commit adds data of a table it does not commit");
				return HsStatusDetail(st, "Object %" PRIu64 " holds keys of table %u.",
									  s->object_id, s->table_ids[k]);
			}
	}
	c->sub_levels = HsRealloc(c->env, c->sub_levels,
							  sizeof(HsSubLevel) * (c->n_sub_levels + 1));
	sl = &c->sub_levels[c->n_sub_levels++];
	sl->sub_level_id = ++c->max_sub_level_id;
	sl->n_ssts = d->n_new_l0;
	sl->ssts = HsSstInfoArrayCopy(c->env, d->new_l0, d->n_new_l0);
	qsort(sl->ssts, sl->n_ssts, sizeof(HsSstInfo *),
		  HsSstInfoCompareSmallest);
	return true;
}

/*
 * Appends the delta's change-log entries: one per table, of a table the
 * delta commits, covering the epochs after its previous committed epoch
 * up to the new one.  Then applies the stop rule.
 */
static bool
commit_log_appends(const HsVersion *v, HsVersion *c, const HsVersionDelta *d,
				   HsStatus *st)
{
	int			i;
	int			j;

	for (i = 0; i < d->n_log_appends; i++)
	{
		HsTableId	t = d->log_appends[i].table_id;
		HsChangeLogEntry *e = d->log_appends[i].entry;
		const HsTableInfo *old = HsVersionTableInfo(v, t);
		HsEpoch		prev = old ? old->committed_epoch : HS_EPOCH_INVALID;
		HsEpoch		newe = delta_commit_epoch(d, t);
		HsTableChangeLog *log;

		for (j = 0; j < i; j++)
			if (d->log_appends[j].table_id == t)
			{
				invalid(st, d->id, "two change-log appends for one table");
				return HsStatusDetail(st, "Table %u.", t);
			}
		if (newe == HS_EPOCH_INVALID)
		{
			invalid(st, d->id, "change-log append for a table the delta does not commit");
			return HsStatusDetail(st, "Table %u.", t);
		}
		if (e->epochs[0] <= prev ||
			HsChangeLogEntryCheckpointEpoch(e) != newe)
		{
			HsStatusSet(st, HS_INVALID_ARGUMENT,
						"change-log entry of table %u is out of epoch order",
						t);
			return HsStatusDetail(st, "Version delta %" PRIu64 ": the entry covers epochs %" PRIu64 " to %" PRIu64 "; it must start after the committed epoch %" PRIu64 " and end at the new committed epoch %" PRIu64 ".",
								  d->id, e->epochs[0],
								  HsChangeLogEntryCheckpointEpoch(e), prev,
								  newe);
		}
		log = log_find(c, t);
		if (log == NULL)
			log = log_create(c, t, prev);
		log_append(c, log, e);
	}

	/* stop rule: a logged table committed without an entry loses its log */
	for (i = 0; i < d->n_commits; i++)
	{
		HsTableId	t = d->commits[i].table_id;

		if (!delta_appends_log(d, t) && log_find(c, t) != NULL)
			log_remove(c, t);
	}
	return true;
}

/* Applies a COMMIT delta's epochs, L0 sub-level and change-log appends. */
static bool
apply_commit(const HsVersion *v, HsVersion *c, const HsVersionDelta *d,
			 HsStatus *st)
{
	if (d->n_commits == 0)
		return invalid(st, d->id, "commit delta commits no table");
	return commit_epochs(v, c, d, st) &&
		commit_l0(v, c, d, st) &&
		commit_log_appends(v, c, d, st);
}

/* ----------------------------------------------------------------
 *		compactions
 * ----------------------------------------------------------------
 */

/*
 * Removes object_id from the array of *n SSTs, dropping its reference;
 * returns whether it was there.
 */
static bool
remove_sst(HsSstInfo **ssts, int *n, uint64_t object_id)
{
	int			k;

	for (k = 0; k < *n; k++)
		if (ssts[k]->object_id == object_id)
		{
			HsSstInfoUnref(ssts[k]);
			memmove(&ssts[k], &ssts[k + 1],
					sizeof(HsSstInfo *) * (*n - k - 1));
			(*n)--;
			return true;
		}
	return false;
}

/*
 * Applies one level change: removes SSTs that are in the level (from any
 * L0 sub-level for level 0, dropping sub-levels it empties), inserts SSTs
 * below L0 that are new to the version and leaves the level disjoint.
 */
static bool
apply_level_change(const HsVersion *v, HsVersion *c, const HsVersionDelta *d,
				   const HsLevelChange *lc, HsStatus *st)
{
	int			i;
	int			j;

	if (lc->level < 0 || lc->level > HS_MAX_LEVEL)
	{
		invalid(st, d->id, "level change names an unknown level");
		return HsStatusDetail(st, "Level %d.", lc->level);
	}
	if (lc->level == 0 && lc->n_inserted > 0)
	{
		invalid(st, d->id, "compaction may not insert into L0");
		return HsStatusDetail(st, "%d SSTs inserted into L0.", lc->n_inserted);
	}
	for (i = 0; i < lc->n_removed; i++)
	{
		uint64_t	id = lc->removed[i];
		bool		found = false;

		if (lc->level == 0)
		{
			for (j = 0; j < c->n_sub_levels && !found; j++)
				found = remove_sst(c->sub_levels[j].ssts,
								   &c->sub_levels[j].n_ssts, id);
		}
		else
		{
			HsLevel    *lv = &c->levels[lc->level - 1];

			found = remove_sst(lv->ssts, &lv->n_ssts, id);
		}
		if (!found)
		{
			invalid(st, d->id, "compaction removes an SST that is not in the level");
			return HsStatusDetail(st, "Object %" PRIu64 " is not in level %d of version %" PRIu64 ".",
								  id, lc->level, v->id);
		}
	}
	/* drop emptied L0 sub-levels */
	if (lc->level == 0)
	{
		int			k = 0;

		for (j = 0; j < c->n_sub_levels; j++)
		{
			if (c->sub_levels[j].n_ssts == 0)
			{
				HsFree(c->env, c->sub_levels[j].ssts);
				continue;
			}
			c->sub_levels[k++] = c->sub_levels[j];
		}
		c->n_sub_levels = k;
	}
	if (lc->n_inserted > 0)
	{
		HsLevel    *lv = &c->levels[lc->level - 1];

		for (i = 0; i < lc->n_inserted; i++)
			if (HsVersionLevelsReferenceObject(v, lc->inserted[i]->object_id))
			{
				invalid(st, d->id, "compaction inserts an object the version already references");
				return HsStatusDetail(st, "Object %" PRIu64 ".",
									  lc->inserted[i]->object_id);
			}
		HsSstInfoArrayAppend(c->env, &lv->ssts, &lv->n_ssts, lc->inserted,
							 lc->n_inserted);
		qsort(lv->ssts, lv->n_ssts, sizeof(HsSstInfo *),
			  HsSstInfoCompareSmallest);
		for (j = 1; j < lv->n_ssts; j++)
			if (HsSstInfoRangesOverlap(lv->ssts[j - 1], lv->ssts[j]))
			{
				invalid(st, d->id, "compaction leaves overlapping SSTs in a level");
				return HsStatusDetail(st, "Objects %" PRIu64 " and %" PRIu64 " overlap in level %d.",
									  lv->ssts[j - 1]->object_id,
									  lv->ssts[j]->object_id, lc->level);
			}
	}
	return true;
}

/*
 * Inserts an intra-L0 compaction's outputs into the L0 sub-level it names,
 * which must exist: the newest sub-level its inputs came from, so that for
 * every key of the outputs a newer sub-level still holds only newer
 * versions (the task took every L0 SST of its range from the oldest input
 * sub-level up).  Done before the level changes remove the inputs, so
 * the sub-level is not emptied and dropped meanwhile.
 */
static bool
apply_l0_insert(const HsVersion *v, HsVersion *c, const HsVersionDelta *d,
				HsStatus *st)
{
	HsSubLevel *sl = NULL;
	int			i;
	int			j;

	if (d->n_l0_inserted == 0)
		return true;
	for (j = 0; j < c->n_sub_levels && sl == NULL; j++)
		if (c->sub_levels[j].sub_level_id == d->l0_target)
			sl = &c->sub_levels[j];
	if (sl == NULL)
	{
		invalid(st, d->id, "compaction inserts into an L0 sub-level the version does not have");
		return HsStatusDetail(st, "Sub-level %" PRIu64 " is not in version %" PRIu64 ".",
							  d->l0_target, v->id);
	}
	for (i = 0; i < d->n_l0_inserted; i++)
	{
		if (HsVersionLevelsReferenceObject(v, d->l0_inserted[i]->object_id))
		{
			invalid(st, d->id, "compaction inserts an object the version already references");
			return HsStatusDetail(st, "Object %" PRIu64 ".",
								  d->l0_inserted[i]->object_id);
		}
		for (j = 0; j < i; j++)
			if (d->l0_inserted[j]->object_id == d->l0_inserted[i]->object_id)
			{
				invalid(st, d->id, "compaction lists an object twice");
				return HsStatusDetail(st, "Object %" PRIu64 ".",
									  d->l0_inserted[i]->object_id);
			}
	}
	HsSstInfoArrayAppend(c->env, &sl->ssts, &sl->n_ssts, d->l0_inserted,
						 d->n_l0_inserted);
	qsort(sl->ssts, sl->n_ssts, sizeof(HsSstInfo *), HsSstInfoCompareSmallest);
	return true;
}

/*
 * Applies a COMPACTION delta: its L0 insertion and level changes, then its
 * safe epoch (each table's safe epoch rises to it, capped by the committed
 * epoch, and never falls), then forgets dropped tables whose keys it compacted away.
 */
static bool
apply_compaction(const HsVersion *v, HsVersion *c, const HsVersionDelta *d,
				 HsStatus *st)
{
	int			i;

	if (!apply_l0_insert(v, c, d, st))
		return false;
	for (i = 0; i < d->n_level_changes; i++)
		if (!apply_level_change(v, c, d, &d->level_changes[i], st))
			return false;
	if (d->safe_epoch != 0)
	{
		for (i = 0; i < c->n_tables; i++)
		{
			HsTableInfo *ti = &c->tables[i];
			HsEpoch		s = d->safe_epoch < ti->committed_epoch ?
				d->safe_epoch : ti->committed_epoch;

			if (s > ti->safe_epoch)
				ti->safe_epoch = s;
		}
	}
	/* tables compacted further: their own, later safe epoch */
	for (i = 0; i < d->n_table_safe; i++)
		for (int k = 0; k < c->n_tables; k++)
		{
			HsTableInfo *ti = &c->tables[k];
			HsEpoch		s;

			if (ti->table_id != d->table_safe[i].table_id)
				continue;
			s = d->table_safe[i].epoch < ti->committed_epoch ?
				d->table_safe[i].epoch : ti->committed_epoch;
			if (s > ti->safe_epoch)
				ti->safe_epoch = s;
		}
	prune_dropped(c);
	return true;
}

/* ----------------------------------------------------------------
 *		table removals
 * ----------------------------------------------------------------
 */

/*
 * Applies a REMOVE_TABLES delta: each table's info and change log go; an
 * id whose keys remain in level SSTs joins the dropped list.
 */
static void
apply_remove_tables(HsVersion *c, const HsVersionDelta *d)
{
	int			i;

	for (i = 0; i < d->n_removed_tables; i++)
	{
		HsTableId	t = d->removed_tables[i];

		table_remove(c, t);
		log_remove(c, t);
		if (!HsVersionTableDropped(c, t) &&
			level_ssts_mention_table(c, t))
		{
			c->dropped = HsRealloc(c->env, c->dropped,
								   sizeof(HsTableId) * (c->n_dropped + 1));
			c->dropped[c->n_dropped++] = t;
			qsort(c->dropped, c->n_dropped, sizeof(HsTableId),
				  table_id_cmp);
		}
	}
}

/* ----------------------------------------------------------------
 *		the delta as a whole
 * ----------------------------------------------------------------
 */

/*
 * Refuses parts the delta's kind may not carry: only a commit commits
 * epochs, adds L0 data or appends to change logs; only a compaction
 * changes levels or the safe epoch; only a table removal removes tables,
 * and it truncates no change log.
 */
static bool
check_parts(const HsVersionDelta *d, HsStatus *st)
{
	bool		commit = d->kind == HS_DELTA_COMMIT;
	bool		compaction = d->kind == HS_DELTA_COMPACTION;
	bool		removal = d->kind == HS_DELTA_REMOVE_TABLES;

	if (!commit && (d->n_commits || d->n_new_l0 || d->n_log_appends))
	{
		invalid(st, d->id, "only a commit delta may commit epochs or add L0 data");
		return HsStatusDetail(st, "The delta is of kind %s.",
							  HsDeltaKindName(d->kind));
	}
	if (!compaction && (d->n_level_changes || d->safe_epoch || d->n_l0_inserted ||
						d->n_table_safe))
	{
		invalid(st, d->id, "only a compaction delta may change levels");
		return HsStatusDetail(st, "The delta is of kind %s.",
							  HsDeltaKindName(d->kind));
	}
	if (!removal && d->n_removed_tables)
	{
		invalid(st, d->id, "only a table-removal delta may remove tables");
		return HsStatusDetail(st, "The delta is of kind %s.",
							  HsDeltaKindName(d->kind));
	}
	if (removal && d->n_truncates)
	{
		invalid(st, d->id, "a table-removal delta may not truncate change logs");
		return false;
	}
	return true;
}

/*
 * Applies d to a copy of v and validates the result; returns it with one
 * reference in *out, or false with *out NULL and st naming the broken
 * invariant.  env is unused: the copy lives in v's env.
 */
bool
HsVersionApplyDelta(HsEnv *env, const HsVersion *v,
					const HsVersionDelta *d, HsVersion **out, HsStatus *st)
{
	HsVersion  *c;
	int			i;

	*out = NULL;
	if (d->prev_id != v->id || d->id != v->id + 1)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"version delta %" PRIu64 " does not follow version %" PRIu64,
					d->id, v->id);
		return HsStatusDetail(st, "The delta's previous version is %" PRIu64 "; deltas must go from version N to N + 1.",
							  d->prev_id);
	}
	if (d->kind < HS_DELTA_COMMIT || d->kind > HS_DELTA_REMOVE_TABLES)
		return HsStatusSet(st, HS_NOT_SUPPORTED, "unknown version delta kind %d",
						   (int) d->kind);
	if (!check_parts(d, st))
		return false;

	c = HsVersionCopy(v);
	(void) env;
	c->id = d->id;

	switch (d->kind)
	{
		case HS_DELTA_COMMIT:
			if (!apply_commit(v, c, d, st))
				goto fail;
			break;
		case HS_DELTA_COMPACTION:
			if (!apply_compaction(v, c, d, st))
				goto fail;
			break;
		case HS_DELTA_TRUNCATE_LOG:
			break;
		case HS_DELTA_REMOVE_TABLES:
			apply_remove_tables(c, d);
			break;
	}
	for (i = 0; i < d->n_truncates; i++)
		log_truncate(c, d->truncates[i].table_id, d->truncates[i].epoch);

	if (!HsVersionValidate(c, st))
	{
		HsStatusWrap(st, HS_INVALID_ARGUMENT, st,
					 "version delta %" PRIu64 " would break a version invariant",
					 d->id);
		goto fail;
	}
	*out = c;
	return true;

fail:
	HsVersionUnref(c);
	return false;
}
