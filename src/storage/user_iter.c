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
 * The inner position is read and moved through the in_* helpers below.
 * Whenever the inner iterator can lend a block cursor (iterator.h), they
 * step that cursor directly, so walking a block costs no calls through
 * the merge, concat and SST iterators; at the end of the block, or at the
 * lender's limit, the position goes back to the inner iterator and the
 * next cursor is borrowed.  A scan of a table whose keys sit in one
 * sorted run (a compacted table) steps every entry this way.
 *
 * src/storage/user_iter.c
 *
 *-------------------------------------------------------------------------
 */
#include "hummock_stream/storage/block.h"
#include "hummock_stream/storage/user_iter.h"

/* Bytes ahead of the current entry a scan asks the CPU to fetch. */
#define USER_ITER_PREFETCH_AHEAD	512

/* Steps over versions of one key before the iterator seeks instead. */
#define HS_USER_ITER_MAX_SKIPS	8

/* Where user_fill_in_block left the generic path to go on. */
typedef enum InBlockResult
{
	IN_BLOCK_DONE,				/* the next visible put is published */
	IN_BLOCK_SKIP,				/* the cursor is on a version of a key to skip */
	IN_BLOCK_FIND				/* the cursor is on an unexamined entry */
} InBlockResult;

typedef struct HsUserIter
{
	HsIterator	base;
	HsIterator *inner;			/* owned */
	HsEpoch		read_epoch;

	/* a block cursor borrowed from inner (NULL: none), and its limit */
	HsBlockIter  *bi;
	HsSlice		limit;
	/* where user_fill_in_block stopped inside HsUserIterFill (or DONE) */
	InBlockResult pending;

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

	/* inner entries stepped over, seeks counted as USER_ITER_SEEK_WORK */
	uint64_t	work;
} HsUserIter;

/* What a seek of the inner iterator counts for in HsUserIterWork. */
#define USER_ITER_SEEK_WORK 16

/* ----------------------------------------------------------------
 *		the inner position, through a borrowed cursor when there is one
 * ----------------------------------------------------------------
 */

/* Borrow inner's block cursor, if it is valid and has one to lend. */
static inline void
in_borrow(HsUserIter *ui)
{
	if (ui->inner->ops->cursor && HsIterValid(ui->inner))
		ui->bi = ui->inner->ops->cursor(ui->inner, &ui->limit);
}

/* Give a borrowed cursor back: inner stands on its position again. */
static inline void
in_return(HsUserIter *ui)
{
	if (ui->bi)
	{
		ui->bi = NULL;
		ui->inner->ops->resync(ui->inner);
	}
}

/* While a cursor is borrowed it is valid and below its limit. */
static inline bool
in_valid(HsUserIter *ui)
{
	return ui->bi != NULL || HsIterValid(ui->inner);
}

/* Returns the inner entry's key (from the borrowed cursor if any). */
static inline HsSlice
in_key(HsUserIter *ui)
{
	return ui->bi ? HsBlockIterKey(ui->bi) : HsIterKey(ui->inner);
}

/* Returns the inner entry's value (from the borrowed cursor if any). */
static inline HsSlice
in_value(HsUserIter *ui)
{
	return ui->bi ? HsBlockIterValue(ui->bi) : HsIterValue(ui->inner);
}

/* Moves the inner position forward, on the borrowed cursor while it may. */
static inline void
in_next(HsUserIter *ui)
{
	ui->work++;
	if (ui->bi)
	{
		HsBlockIterNext(ui->bi);
		if (ui->bi->valid &&
			(ui->limit.data == NULL ||
			 HsFullKeyCompare(HsBlockIterKey(ui->bi), ui->limit) < 0))
			return;
		/* end of the block or at the limit: back to inner, then re-borrow */
		in_return(ui);
	}
	else
		HsIterNext(ui->inner);
	in_borrow(ui);
}

/* Seeks the inner iterator (handing a borrowed cursor back first). */
static void
in_seek(HsUserIter *ui, HsSlice target)
{
	ui->work += USER_ITER_SEEK_WORK;
	in_return(ui);
	HsIterSeek(ui->inner, target);
	in_borrow(ui);
}

/* Positions the inner iterator at its start (handing a cursor back first). */
static void
in_seek_to_first(HsUserIter *ui)
{
	in_return(ui);
	HsIterSeekToFirst(ui->inner);
	in_borrow(ui);
}

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

/*
 * Is a new table key of a bounded scan (a parallel scan's chunk) below
 * the upper bound?  Asked for every row of the block, so it costs next to
 * nothing in the usual case.  *below_at is where the last key checked fell
 * below the bound, at a byte smaller than the bound's (SIZE_MAX: none
 * known); the bytes before it are the bound's own.  A key that shares
 * more bytes than that with the previous key has the same smaller byte,
 * and is below too.  Any other is compared from the first byte it does
 * not share (its bytes from shared on are delta[0..]), or from the start
 * of key (the whole key, in the key buffer) when nothing is known.
 */
static inline bool
below_upper(const HsUserIter *ui, const uint8_t *key, size_t tk_len,
			size_t shared, const uint8_t *delta, size_t *below_at)
{
	const uint8_t *u = ui->upper;
	size_t		ulen = ui->upper_len;
	size_t		i;
	uint8_t		b = 0;

	if (*below_at != SIZE_MAX && shared > *below_at)
		return true;
	if (*below_at == SIZE_MAX)
	{
		for (i = 0; i < tk_len && i < ulen && key[i] == u[i]; i++)
			;
		if (i < tk_len)
			b = key[i];
	}
	else
	{
		for (i = shared; i < tk_len && i < ulen && delta[i - shared] == u[i]; i++)
			;
		if (i < tk_len)
			b = delta[i - shared];
	}
	if (i == ulen || (i < tk_len && b > u[i]))
		return false;			/* at or past the bound */
	/* below: at a smaller byte, or the key ended first (nothing to keep) */
	*below_at = i < tk_len ? i : SIZE_MAX;
	return true;
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
	in_seek(ui,
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

		in_next(ui);
		if (!in_valid(ui))
			return;
		k = in_key(ui);
		if (k.len < HS_MIN_FULL_KEY_LEN ||
			!table_key_equal(HsFullKeyTableKey(k), saved.data, saved.len))
			return;
		if (++steps >= HS_USER_ITER_MAX_SKIPS)
		{
			/* epoch 0 is the oldest version: the seek lands at or past it */
			user_seek_saved(ui, 0);
			steps = 0;
			if (!in_valid(ui))
				return;
			k = in_key(ui);
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
	while (in_valid(ui))
	{
		HsSlice		k = in_key(ui);
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
			in_next(ui);
			continue;
		}
		newer = 0;

		v = in_value(ui);
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
	ui->pending = IN_BLOCK_DONE;
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

/* Positions at the first visible row (at the lower bound, if any). */
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
	ui->pending = IN_BLOCK_DONE;
	if (it->status.code != HS_OK)
		return;
	in_seek_to_first(ui);
	user_find_visible(ui);
}


/*
 * Collect visible puts from a borrowed cursor without a limit (one sorted
 * run) into values[*n..max), inside the block and without copying keys;
 * user_next is the case of one.  The cursor starts on an entry whose
 * table key is handled (the published put, or a tombstone): each round
 * skips that key's other versions and examines the next table key.
 * Returns DONE when values is full (the last put published), or where
 * anything out of the ordinary (the block ends, a version newer than the
 * read epoch, the upper bound, a malformed entry) hands over to the
 * generic path, in the state the result names; the last put collected is
 * then the current value (its key is gone).
 *
 * This loop runs once per row of every scan, so it steps the cursor
 * itself, with the cursor's fields in locals (stores into the key buffer
 * would otherwise make the compiler reload them after every entry):
 * entries whose header varints are one byte each and whose key delta is
 * short take the inline path below, which does what HsBlockIterStep does;
 * any other entry (restart entries with padded varints, long keys, a
 * malformed entry) takes HsBlockIterNextSameTableKey itself.  The table id
 * is checked against a table bound only when the entry does not share it
 * with the previous key, which was checked.
 */
static InBlockResult
user_fill_in_block(HsUserIter *ui, HsSlice *values, int max, int *np)
{
	HsBlockIter  *bi = ui->bi;
	const uint8_t *data = bi->data;
	const uint8_t *limit = data + bi->restarts_offset;
	const uint8_t *e = data + bi->next;	/* the entry after the current */
	uint8_t    *key = bi->key.data;
	size_t		klen = bi->key.len;
	size_t		kcap = bi->key.cap;
	const uint8_t *value = bi->value;
	uint32_t	vlen = bi->value_len;
	uint32_t	dlen = bi->delta_len;
	int			n = *np;
	int			start = n;
	size_t		below_at = SIZE_MAX;	/* see below_upper */
	/* compare key deltas: for versions, or for below_upper's shortcut */
	bool		compare_keys = !bi->unique_keys ||
		(ui->has_upper && !ui->upper_is_table);
	InBlockResult r;

	for (;;)
	{
		int			same;
		bool		same_table = false;
		size_t		shared = 0;		/* key bytes shared with the previous */
		const uint8_t *delta = key; /* the key's bytes from shared on */
		HsSlice		v;

		/* step to the next entry */
		if (e >= limit)
		{
			r = IN_BLOCK_SKIP;	/* the block ends: go on in the next */
			goto out;
		}
		ui->work++;
		/* blocks read in place are not in any cache yet: stream ahead */
		HS_PREFETCH(e + USER_ITER_PREFETCH_AHEAD);
		{
			uint32_t	s = e[0];
			uint32_t	ns = e[1];
			uint32_t	vl = e[2];

			if ((s | ns | vl) < 128 && ns <= 16 && s <= klen &&
				s + ns >= HS_MIN_FULL_KEY_LEN && kcap >= (size_t) s + 16 &&
				(size_t) (limit - e) >= 3 + (size_t) ns + vl &&
				(size_t) (limit - e) >= 3 + 16 - 4)
			{
				const uint8_t *d = e + 3;
				size_t		common = s;	/* bytes equal to the previous key's */

				same = 0;
				if (compare_keys && s + ns == klen)
				{
					size_t		tk_end = klen - HS_EPOCH_LEN;

					common = HsBlockKeyDeltaDiffersAt(d, s, key, tk_end);
					same = common == tk_end;
				}
				HsBlockKeyDeltaCopy16(key + s, d);
				same_table = common >= HS_TABLE_ID_LEN;
				shared = common;
				delta = d + (common - s);
				klen = s + ns;
				value = d + ns;
				vlen = vl;
				dlen = ns;
				e = value + vl;
			}
			else
			{
				/* the general step, on the cursor itself */
				bi->next = (uint32_t) (e - data);
				bi->key.len = klen;
				same = HsBlockIterNextSameTableKey(bi);
				e = data + bi->next;
				key = bi->key.data;
				delta = key;
				klen = bi->key.len;
				kcap = bi->key.cap;
				value = bi->value;
				vlen = bi->value_len;
				dlen = bi->delta_len;
				if (same < 0)
				{
					r = IN_BLOCK_FIND;	/* malformed: the generic path reports */
					goto out;
				}
			}
		}
		if (same == 1)
			continue;			/* another version of a handled key */

		/* a new table key: in bounds, old enough, a put? */
		if (ui->has_upper)
		{
			if (!ui->upper_is_table)
			{
				if (!below_upper(ui, key, klen - HS_EPOCH_LEN, shared, delta,
								 &below_at))
				{
					r = IN_BLOCK_FIND;
					goto out;
				}
			}
			else if (!same_table && HsGetBE32(key) >= ui->upper_table)
			{
				r = IN_BLOCK_FIND;
				goto out;
			}
		}
		if (HsBlockEntryEpoch(value, dlen, key, klen) > ui->read_epoch)
		{
			r = IN_BLOCK_FIND;
			goto out;
		}
		v = HsSliceMake(value, vlen);
		if (vlen > 0 && value[0] == HS_VALUE_PUT)
		{
			values[n++] = v;
			if (n < max)
				continue;
			r = IN_BLOCK_DONE;
			goto out;
		}
		if (vlen == 0 || value[0] != HS_VALUE_DELETE)
		{
			r = IN_BLOCK_FIND;
			goto out;
		}
		/* a tombstone: skip this key's older versions too */
	}
out:
	/* the cursor stands on the last entry examined */
	bi->next = (uint32_t) (e - data);
	bi->key.len = klen;
	bi->value = value;
	bi->value_len = vlen;
	bi->delta_len = dlen;
	if (r == IN_BLOCK_DONE)
		HsIterPublish(&ui->base, true, HsBlockIterKey(bi), HsBlockIterValue(bi));
	else if (n > start)
		ui->base.cur_value = values[n - 1];
	*np = n;
	return r;
}

/* The generic next: past every version of table key tk, find a put. */
static void
user_next_after(HsUserIter *ui, HsSlice tk)
{
	user_save_key(ui, tk);
	user_skip_saved(ui);
	user_find_visible(ui);
}

/* Go on with the generic path where user_fill_in_block stopped. */
static void
user_next_resume(HsUserIter *ui, InBlockResult r)
{
	if (r == IN_BLOCK_SKIP)
	{
		/* the cursor stands on a version of a key to skip */
		user_next_after(ui, HsFullKeyTableKey(in_key(ui)));
		return;
	}
	if (!ui->bi->valid)
	{
		/* a malformed entry: inner takes the error */
		in_return(ui);
		in_borrow(ui);
	}
	user_find_visible(ui);
}

/* Moves to the next visible row. */
static void
user_next(HsIterator *it)
{
	HsUserIter *ui = (HsUserIter *) it;
	InBlockResult r;

	if (!ui->base.cur_valid)
		return;
	if (ui->pending != IN_BLOCK_DONE)
	{
		r = ui->pending;
		ui->pending = IN_BLOCK_DONE;
		user_next_resume(ui, r);
		return;
	}
	if (ui->bi && ui->limit.data == NULL)
	{
		HsSlice		v;
		int			n = 0;

		r = user_fill_in_block(ui, &v, 1, &n);
		if (r != IN_BLOCK_DONE)
			user_next_resume(ui, r);
		return;
	}
	user_next_after(ui, HsFullKeyTableKey(ui->base.cur_key));
}

int
HsUserIterFill(HsIterator *it, HsSlice *values, int max)
{
	HsUserIter *ui = (HsUserIter *) it;
	int			n = 0;

	if (!ui->base.cur_valid || max <= 0 || ui->pending != IN_BLOCK_DONE)
		return 0;
	values[n++] = ui->base.cur_value;
	if (n < max && ui->bi && ui->limit.data == NULL)
	{
		/* stopped inside the block: the next call to next goes on */
		ui->pending = user_fill_in_block(ui, values, max, &n);
	}
	return n;
}

/* Destroys the inner iterator and frees the user iterator. */
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
	ui->bi = NULL;
	ui->pending = IN_BLOCK_DONE;
	ui->read_epoch = read_epoch;
	ui->work = 0;
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

uint64_t
HsUserIterWork(HsIterator *it)
{
	return ((HsUserIter *) it)->work;
}
