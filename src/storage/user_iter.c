/*-------------------------------------------------------------------------
 *
 * user_iter.c
 *	  Newest visible version per table key, tombstones hidden.
 *
 * Design notes
 *
 * Full keys sort by table key ascending and epoch descending, so all the
 * versions of one table key are adjacent, newest first.  Finding the
 * visible version of a table key is therefore a forward walk: skip the
 * versions newer than the read epoch; the first version at or below it is
 * the visible one (a put) or hides the key (a tombstone); everything after
 * it down to the next table key is older and skipped.
 *
 * The inner iterator's key bytes die when it moves, so before skipping the
 * remaining versions of a key the iterator copies its table key into
 * ikey.  The same buffer builds seek targets (table key | ~epoch).
 *
 * Many versions of one key (a hot counter updated every epoch) would make
 * that walk linear in the number of versions.  After HS_USER_ITER_MAX_SKIPS
 * consecutive steps over versions of the same table key, the iterator
 * seeks instead: to table key | read epoch past newer versions, and to
 * table key | epoch 0 (the last possible version) past older ones.  This
 * is LevelDB's DBIter trick; a seek costs a few key comparisons per level
 * of the inner iterator, so a handful of cheap steps come first.
 *
 * src/storage/user_iter.c
 *
 *-------------------------------------------------------------------------
 */
#include "hummock_stream/storage/user_iter.h"

/* Steps over versions of one key before the iterator seeks instead. */
#define HS_USER_ITER_MAX_SKIPS	8

typedef struct HsUserIter
{
	HsIterator	base;
	HsIterator *inner;			/* owned */
	HsEpoch		read_epoch;

	/* bounds on the table key (copies) */
	uint8_t    *lower;
	size_t		lower_len;
	bool		has_lower;
	uint8_t    *upper;
	size_t		upper_len;
	bool		has_upper;
	bool		upper_is_table;	/* upper is a bare table id (a table scan) */
	HsTableId	upper_table;	/* that table id */

	/* a saved table key, with room for an epoch suffix */
	uint8_t    *ikey;
	size_t		ikey_len;
	size_t		ikey_cap;
} HsUserIter;

/* Fail with HS_CORRUPTION about the entry at the inner position. */
static void
user_corrupt(HsUserIter *ui, const char *what, HsSlice key)
{
	HsStatusSet(&ui->base.status, HS_CORRUPTION, "%s", what);
	if (key.len >= HS_TABLE_ID_LEN)
		HsStatusDetail(&ui->base.status,
					   "Entry of table %u with a %zu-byte full key.",
					   HsFullKeyTableId(key), key.len);
	else
		HsStatusDetail(&ui->base.status, "Entry with a %zu-byte full key.",
					   key.len);
	ui->base.cur_valid = false;
}

/* Copy the inner iterator's status, if it failed, into ours. */
static void
user_take_inner_status(HsUserIter *ui)
{
	if (ui->inner->status.code != HS_OK)
		ui->base.status = ui->inner->status;
}

/*
 * Are two table keys equal?  Table keys are short (a table id and a
 * memcmp-encoded key), so compare them in words rather than through a
 * memcmp call: this runs once per entry of every scan.
 */
static inline bool
table_key_equal(HsSlice a, const uint8_t *b, size_t b_len)
{
	size_t		i = 0;

	if (a.len != b_len)
		return false;
	for (; i + 8 <= a.len; i += 8)
	{
		uint64_t	x;
		uint64_t	y;

		memcpy(&x, a.data + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	for (; i < a.len; i++)
		if (a.data[i] != b[i])
			return false;
	return true;
}

/* Is table key tk at or past the upper bound? */
static inline bool
past_upper(const HsUserIter *ui, HsSlice tk)
{
	if (!ui->has_upper)
		return false;
	if (ui->upper_is_table)
		return HsGetBE32(tk.data) >= ui->upper_table;
	return HsSliceCompare(tk, HsSliceMake(ui->upper, ui->upper_len)) >= 0;
}

/* Save table key tk into ikey, growing it to fit tk plus an epoch. */
static void
user_save_key(HsUserIter *ui, HsSlice tk)
{
	if (tk.len + HS_EPOCH_LEN > ui->ikey_cap)
	{
		ui->ikey_cap = (tk.len + HS_EPOCH_LEN) * 2;
		ui->ikey = HsRealloc(ui->base.env, ui->ikey, ui->ikey_cap);
	}
	memcpy(ui->ikey, tk.data, tk.len);
	ui->ikey_len = tk.len;
}

/* Seek the inner iterator to the saved table key | ~epoch. */
static void
user_seek_saved(HsUserIter *ui, HsEpoch epoch)
{
	HsPutBE64(ui->ikey + ui->ikey_len, ~epoch);
	HsIterSeek(ui->inner,
			   HsSliceMake(ui->ikey, ui->ikey_len + HS_EPOCH_LEN));
}

/*
 * Move the inner iterator past every version of the saved table key.
 */
static void
user_skip_saved(HsUserIter *ui)
{
	HsSlice		saved = HsSliceMake(ui->ikey, ui->ikey_len);
	int			steps = 0;

	for (;;)
	{
		HsSlice		k;

		HsIterNext(ui->inner);
		if (!HsIterValid(ui->inner))
			return;
		k = HsIterKey(ui->inner);
		if (k.len < HS_MIN_FULL_KEY_LEN ||
			!table_key_equal(HsFullKeyTableKey(k), saved.data, saved.len))
			return;
		if (++steps >= HS_USER_ITER_MAX_SKIPS)
		{
			/* epoch 0 is the oldest version: the seek lands at or past it */
			user_seek_saved(ui, 0);
			steps = 0;
			if (!HsIterValid(ui->inner))
				return;
			k = HsIterKey(ui->inner);
			if (k.len < HS_MIN_FULL_KEY_LEN ||
				!table_key_equal(HsFullKeyTableKey(k), saved.data, saved.len))
				return;
		}
	}
}

/*
 * From the inner position, find the next visible put: the first table key
 * whose newest version <= read_epoch is a put, and publish it.
 */
static void
user_find_visible(HsUserIter *ui)
{
	int			newer = 0;		/* consecutive too-new versions of ikey */

	ui->base.cur_valid = false;
	while (HsIterValid(ui->inner))
	{
		HsSlice		k = HsIterKey(ui->inner);
		HsSlice		tk;
		HsSlice		v;

		if (k.len < HS_MIN_FULL_KEY_LEN)
		{
			user_corrupt(ui, "full key too short", k);
			return;
		}
		tk = HsFullKeyTableKey(k);
		if (past_upper(ui, tk))
			return;

		if (HsFullKeyEpoch(k) > ui->read_epoch)
		{
			/* too new to see; seek past a long run of such versions */
			if (newer == 0 || !table_key_equal(tk, ui->ikey, ui->ikey_len))
			{
				user_save_key(ui, tk);
				newer = 1;
			}
			else if (++newer >= HS_USER_ITER_MAX_SKIPS)
			{
				user_seek_saved(ui, ui->read_epoch);
				newer = 0;
				continue;
			}
			HsIterNext(ui->inner);
			continue;
		}
		newer = 0;

		v = HsIterValue(ui->inner);
		if (v.len == 0)
		{
			user_corrupt(ui, "empty value", k);
			return;
		}
		if (v.data[0] == HS_VALUE_PUT)
		{
			HsIterPublish(&ui->base, true, k, v);
			return;
		}
		if (v.data[0] != HS_VALUE_DELETE)
		{
			user_corrupt(ui, "unknown value kind", k);
			return;
		}
		/* a tombstone hides this key: skip all its versions */
		user_save_key(ui, tk);
		user_skip_saved(ui);
	}
	user_take_inner_status(ui);
}


/* Position at the first visible table key >= target (a table key). */
static void
user_seek(HsIterator *it, HsSlice target)
{
	HsUserIter *ui = (HsUserIter *) it;

	ui->base.cur_valid = false;
	if (it->status.code != HS_OK)
		return;
	if (ui->has_lower &&
		HsSliceCompare(target, HsSliceMake(ui->lower, ui->lower_len)) < 0)
		target = HsSliceMake(ui->lower, ui->lower_len);
	if (ui->has_upper &&
		HsSliceCompare(target, HsSliceMake(ui->upper, ui->upper_len)) >= 0)
		return;

	/* versions newer than the read epoch sort first: start below them */
	user_save_key(ui, target);
	user_seek_saved(ui, ui->read_epoch);
	user_find_visible(ui);
}

static void
user_seek_to_first(HsIterator *it)
{
	HsUserIter *ui = (HsUserIter *) it;

	if (ui->has_lower)
	{
		user_seek(it, HsSliceMake(ui->lower, ui->lower_len));
		return;
	}
	ui->base.cur_valid = false;
	if (it->status.code != HS_OK)
		return;
	HsIterSeekToFirst(ui->inner);
	user_find_visible(ui);
}

static void
user_next(HsIterator *it)
{
	HsUserIter *ui = (HsUserIter *) it;

	if (!ui->base.cur_valid)
		return;
	user_save_key(ui, HsFullKeyTableKey(ui->base.cur_key));
	user_skip_saved(ui);
	user_find_visible(ui);
}


static void
user_destroy(HsIterator *it)
{
	HsUserIter *ui = (HsUserIter *) it;
	HsEnv	   *env = it->env;

	HsIterDestroy(ui->inner);
	if (ui->lower)
		HsFree(env, ui->lower);
	if (ui->upper)
		HsFree(env, ui->upper);
	if (ui->ikey)
		HsFree(env, ui->ikey);
	HsFree(env, ui);
}

/* valid, key and value are published (iterator.h) */
static const HsIteratorOps user_iter_ops = {
	.seek_to_first = user_seek_to_first,
	.seek = user_seek,
	.next = user_next,
	.destroy = user_destroy,
};

/* Copy a bound into env memory (one byte at least, so never NULL). */
static uint8_t *
user_copy_bound(HsEnv *env, HsSlice b)
{
	uint8_t    *p = HsAlloc(env, b.len > 0 ? b.len : 1);

	if (b.len > 0)
		memcpy(p, b.data, b.len);
	return p;
}

/*
 * Create a user iterator over inner at read_epoch with optional table-key
 * bounds [lower, upper); see user_iter.h.
 */
HsIterator *
HsUserIterCreate(HsEnv *env, HsIterator *inner, HsEpoch read_epoch,
				 const HsSlice *lower, const HsSlice *upper)
{
	HsUserIter *ui = HsAlloc(env, sizeof(HsUserIter));

	ui->base.ops = &user_iter_ops;
	ui->base.env = env;
	HsStatusClear(&ui->base.status);
	ui->inner = inner;
	ui->read_epoch = read_epoch;
	ui->base.cur_valid = false;

	ui->has_lower = lower != NULL;
	ui->lower = lower ? user_copy_bound(env, *lower) : NULL;
	ui->lower_len = lower ? lower->len : 0;
	ui->has_upper = upper != NULL;
	ui->upper = upper ? user_copy_bound(env, *upper) : NULL;
	ui->upper_len = upper ? upper->len : 0;
	ui->upper_is_table = upper != NULL && upper->len == HS_TABLE_ID_LEN;
	ui->upper_table = ui->upper_is_table ? HsGetBE32(upper->data) : 0;

	ui->ikey_cap = 64;
	ui->ikey = HsAlloc(env, ui->ikey_cap);
	ui->ikey_len = 0;
	return &ui->base;
}

/*
 * Create a user iterator over the table keys of one table: from the table
 * id alone (the smallest table key of the table) up to the next table id.
 */
HsIterator *
HsUserIterCreateForTable(HsEnv *env, HsIterator *inner, HsEpoch read_epoch,
						 HsTableId table_id)
{
	uint8_t		lo[HS_TABLE_ID_LEN];
	uint8_t		hi[HS_TABLE_ID_LEN];
	HsSlice		lower = HsSliceMake(lo, sizeof(lo));
	HsSlice		upper = HsSliceMake(hi, sizeof(hi));

	HsPutBE32(lo, table_id);
	if (table_id == UINT32_MAX)
		return HsUserIterCreate(env, inner, read_epoch, &lower, NULL);
	HsPutBE32(hi, table_id + 1);
	return HsUserIterCreate(env, inner, read_epoch, &lower, &upper);
}
