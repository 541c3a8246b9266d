/*-------------------------------------------------------------------------
 *
 * change_log.c
 *	  iter_log over a table's change log.
 *
 * Two merge iterators run side by side: one over the new-value SSTs of the
 * log entries that overlap (e1, e2], one over their old-value SSTs.  The
 * new-value side drives: for each table key it finds the newest and the
 * oldest version inside the range, then seeks the old-value side to
 * exactly (key, oldest epoch).  Keys only ascend, so the old side only
 * moves forward.  An update yields two outputs, kept as a pending pair.
 *
 * src/storage/change_log.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <string.h>

#include "hummock_stream/storage/change_log.h"
#include "hummock_stream/storage/merge_iter.h"
#include "hummock_stream/storage/version_read.h"

struct HsChangeLogIter
{
	HsEnv	   *env;
	HsTableId	table_id;
	HsEpoch		e1;
	HsEpoch		e2;
	HsIterator *news;
	HsIterator *olds;
	HsBuf		hi;				/* table-key upper bound */
	bool		has_hi;
	HsStatus	status;

	/* current output and the pending second half of an update */
	bool		valid;
	HsChangeOp	op;
	HsBuf		key;			/* table key of the current change */
	HsBuf		row;
	bool		pending;
	HsBuf		pending_row;	/* the new row of an update */

	HsBuf		newest;			/* scratch: newest value (kind + row) */
	HsBuf		seek_key;
};

/* Returns the name of a change op ("insert", ...). */
const char *
HsChangeOpName(HsChangeOp op)
{
	switch (op)
	{
		case HS_CHANGE_INSERT:
			return "insert";
		case HS_CHANGE_DELETE:
			return "delete";
		case HS_CHANGE_UPDATE_INSERT:
			return "update_insert";
		case HS_CHANGE_UPDATE_DELETE:
			return "update_delete";
	}
	return "unknown";
}

/*
 * Builds a merge over the new-value SSTs (old_side false) or the old-value
 * SSTs of the log entries that overlap (e1, e2] and hold keys of the
 * log's table.
 */
static bool
build_side(const HsVersion *v, HsSstCache *cache, const HsTableChangeLog *log,
		   HsEpoch e1, HsEpoch e2, bool old_side, HsIterator **out,
		   HsStatus *st)
{
	HsIterator **children = NULL;
	int			n = 0;
	int			i;
	int			j;

	for (i = 0; i < log->n_entries; i++)
	{
		const HsChangeLogEntry *e = log->entries[i];
		HsSstInfo *const *ssts = old_side ? e->old_ssts : e->new_ssts;
		int			n_ssts = old_side ? e->n_old : e->n_new;

		if (HsChangeLogEntryCheckpointEpoch(e) <= e1 || e->epochs[0] > e2)
			continue;
		children = HsRealloc(v->env, children,
							 sizeof(HsIterator *) * (n + n_ssts + 1));
		for (j = 0; j < n_ssts; j++)
		{
			if (!HsSstInfoHasTable(ssts[j], log->table_id))
				continue;
			if (!HsSstCacheNewIterator(cache, ssts[j]->object_id,
									   &children[n], st))
			{
				while (n > 0)
					HsIterDestroy(children[--n]);
				HsFree(v->env, children);
				return false;
			}
			n++;
		}
	}
	*out = HsMergeIterCreate(v->env, children, n);
	if (children)
		HsFree(v->env, children);
	return true;
}

/* Is epoch e in (e1, e2]? */
static bool
in_range(HsChangeLogIter *it, HsEpoch e)
{
	return e > it->e1 && e <= it->e2;
}

/* Is the new-value side still inside the table and the key range? */
static bool
news_in_bounds(HsChangeLogIter *it)
{
	HsSlice		fk;

	if (!HsIterValid(it->news))
		return false;
	fk = HsIterKey(it->news);
	if (fk.len < HS_MIN_FULL_KEY_LEN || HsFullKeyTableId(fk) != it->table_id)
		return false;
	if (it->has_hi &&
		HsSliceCompare(HsFullKeyTableKey(fk), HsBufSlice(&it->hi)) >= 0)
		return false;
	return true;
}

/* Is everything fine so far? Takes over either side's error. */
static bool
check_inner(HsChangeLogIter *it)
{
	if (it->status.code != HS_OK)
		return false;
	if (!HsIterStatus(it->news, &it->status))
		return false;
	if (!HsIterStatus(it->olds, &it->status))
		return false;
	return true;
}

/* Find the next key with a net change and set the output. */
static void
advance(HsChangeLogIter *it)
{
	it->valid = false;
	while (check_inner(it) && news_in_bounds(it))
	{
		HsSlice		fk = HsIterKey(it->news);
		HsEpoch		e = HsFullKeyEpoch(fk);
		HsEpoch		oldest;
		bool		has_old = false;
		bool		newest_put;

		if (!in_range(it, e))
		{
			HsIterNext(it->news);
			continue;
		}
		/* the newest in-range version of this key */
		HsBufAssign(&it->key, fk.data, fk.len - HS_EPOCH_LEN);
		{
			HsSlice		val = HsIterValue(it->news);

			HsBufAssign(&it->newest, val.data, val.len);
		}
		oldest = e;
		HsIterNext(it->news);
		while (HsIterValid(it->news))
		{
			HsSlice		k2 = HsIterKey(it->news);

			if (HsSliceCompare(HsFullKeyTableKey(k2), HsBufSlice(&it->key)) != 0)
				break;
			if (in_range(it, HsFullKeyEpoch(k2)))
				oldest = HsFullKeyEpoch(k2);
			HsIterNext(it->news);
		}
		if (!check_inner(it))
			return;
		if (it->newest.len == 0 ||
			(it->newest.data[0] != HS_VALUE_PUT &&
			 it->newest.data[0] != HS_VALUE_DELETE))
		{
			HsStatusSet(&it->status, HS_CORRUPTION,
						"bad value kind in the change log of table %u",
						it->table_id);
			return;
		}
		newest_put = it->newest.data[0] == HS_VALUE_PUT;

		/* the old value at exactly the oldest in-range epoch */
		HsBufReset(&it->seek_key);
		HsBufReserve(&it->seek_key, it->key.len + HS_EPOCH_LEN);
		memcpy(it->seek_key.data, it->key.data, it->key.len);
		HsPutBE64(it->seek_key.data + it->key.len, ~oldest);
		it->seek_key.len = it->key.len + HS_EPOCH_LEN;
		HsIterSeek(it->olds, HsBufSlice(&it->seek_key));
		if (!check_inner(it))
			return;
		if (HsIterValid(it->olds) &&
			HsFullKeyCompare(HsIterKey(it->olds), HsBufSlice(&it->seek_key)) == 0)
		{
			HsSlice		ov = HsIterValue(it->olds);

			if (ov.len == 0 || ov.data[0] != HS_VALUE_PUT)
			{
				HsStatusSet(&it->status, HS_CORRUPTION,
							"bad old value in the change log of table %u",
							it->table_id);
				return;
			}
			has_old = true;
			HsBufAssign(&it->row, ov.data + 1, ov.len - 1);
		}

		if (!has_old && !newest_put)
			continue;			/* inserted and deleted inside the range */
		it->valid = true;
		if (!has_old)
		{
			it->op = HS_CHANGE_INSERT;
			HsBufAssign(&it->row, it->newest.data + 1, it->newest.len - 1);
		}
		else if (!newest_put)
			it->op = HS_CHANGE_DELETE;
		else
		{
			it->op = HS_CHANGE_UPDATE_DELETE;
			it->pending = true;
			HsBufAssign(&it->pending_row, it->newest.data + 1,
						it->newest.len - 1);
		}
		return;
	}
}

bool
HsIterLog(const HsVersion *v, HsSstCache *cache, HsTableId table_id,
		  HsEpoch e1, HsEpoch e2, const HsSlice *lower, const HsSlice *upper,
		  HsChangeLogIter **out, HsStatus *st)
{
	const HsTableChangeLog *log = HsVersionChangeLog(v, table_id);
	HsChangeLogIter *it;
	HsEpoch		last;
	HsBuf		lo;

	*out = NULL;
	last = (log && log->n_entries > 0) ?
		HsChangeLogEntryCheckpointEpoch(log->entries[log->n_entries - 1]) :
		(log ? log->start_epoch : HS_EPOCH_INVALID);
	if (log == NULL || e1 > e2 || e1 < log->start_epoch || e2 > last)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"change log of table %u does not cover epochs (%" PRIu64 ", %" PRIu64 "]",
					table_id, e1, e2);
		if (log == NULL)
			return HsStatusDetail(st, "The table has no change log in version %" PRIu64 ".",
								  v->id);
		return HsStatusDetail(st, "The log covers epochs (%" PRIu64 ", %" PRIu64 "].",
							  log->start_epoch, last);
	}
	it = HsAllocZero(v->env, sizeof(HsChangeLogIter));
	it->env = v->env;
	it->table_id = table_id;
	it->e1 = e1;
	it->e2 = e2;
	HsStatusClear(&it->status);
	HsBufInit(&it->hi, v->env);
	HsBufInit(&it->key, v->env);
	HsBufInit(&it->row, v->env);
	HsBufInit(&it->pending_row, v->env);
	HsBufInit(&it->newest, v->env);
	HsBufInit(&it->seek_key, v->env);
	if (!build_side(v, cache, log, e1, e2, false, &it->news, st))
	{
		it->olds = NULL;
		HsChangeLogIterDestroy(it);
		return false;
	}
	if (!build_side(v, cache, log, e1, e2, true, &it->olds, st))
	{
		HsChangeLogIterDestroy(it);
		return false;
	}
	it->has_hi = HsTableKeyRangeEnd(&it->hi, table_id, upper);

	/* seek both sides to (lower, newest possible epoch) */
	HsBufInit(&lo, v->env);
	HsBufReserve(&lo, (lower ? lower->len : 0) + HS_MIN_FULL_KEY_LEN);
	lo.len = HsFullKeyEncode(lo.data, table_id, lower ? lower->data : NULL,
							 lower ? lower->len : 0, HS_EPOCH_MAX);
	HsIterSeek(it->news, HsBufSlice(&lo));
	HsIterSeek(it->olds, HsBufSlice(&lo));
	HsBufFree(&lo);
	advance(it);
	*out = it;
	return true;
}

/* Is the iterator on a change (and without error)? */
bool
HsChangeLogIterValid(HsChangeLogIter *it)
{
	return it->valid && it->status.code == HS_OK;
}

/* Moves to the new row of an update, or to the next key that changed. */
void
HsChangeLogIterNext(HsChangeLogIter *it)
{
	if (!it->valid)
		return;
	if (it->pending)
	{
		it->pending = false;
		it->op = HS_CHANGE_UPDATE_INSERT;
		HsBufAssign(&it->row, it->pending_row.data, it->pending_row.len);
		return;
	}
	advance(it);
}

/* Returns the kind of the current change. */
HsChangeOp
HsChangeLogIterOp(HsChangeLogIter *it)
{
	return it->op;
}

/* Returns the user key of the current change. */
HsSlice
HsChangeLogIterUserKey(HsChangeLogIter *it)
{
	return HsSliceMake(it->key.data + HS_TABLE_ID_LEN,
					   it->key.len - HS_TABLE_ID_LEN);
}

/* Returns the row of the current change (old row for deletes). */
HsSlice
HsChangeLogIterRow(HsChangeLogIter *it)
{
	return HsBufSlice(&it->row);
}

bool
HsChangeLogIterStatus(HsChangeLogIter *it, HsStatus *st)
{
	*st = it->status;
	return it->status.code == HS_OK;
}

void
HsChangeLogIterDestroy(HsChangeLogIter *it)
{
	if (it == NULL)
		return;
	HsIterDestroy(it->news);
	HsIterDestroy(it->olds);
	HsBufFree(&it->hi);
	HsBufFree(&it->key);
	HsBufFree(&it->row);
	HsBufFree(&it->pending_row);
	HsBufFree(&it->newest);
	HsBufFree(&it->seek_key);
	HsFree(it->env, it);
}
