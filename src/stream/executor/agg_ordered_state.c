/*-------------------------------------------------------------------------
 *
 * agg_ordered_state.c
 *	  The ordered state of the streaming hash aggregation: per group, call
 *	  and value, how many inputs have that value, for min/max and for
 *	  DISTINCT calls.
 *
 *	min/max(x)	the current extreme is an accumulator (agg_accumulators.c);
 *				behind it, (group, call, value) -> how many rows have that
 *				value, or, when the input rows have a unique key (in
 *				views planned so: "by row" in the state role), one entry
 *				per row, (group, call, value, row key).  When the last row
 *				holding the extreme goes, the next one is the first entry
 *				of the group's range (max uses the descending encoding, so
 *				its first entry is the largest), read at the flush
 *				(AggMinMaxRescanAll: one pass over the groups that need it).
 *	DISTINCT	count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT x): per
 *				(group, call, value) the number of inputs with that value;
 *				the accumulator sees a value when its count goes 0 -> 1
 *				and loses it at 1 -> 0.
 *
 * Access pattern.  A pushed row does not read the table: its key and +1
 * or -1 are appended to the pending changes (AggValueCountsAdd), and an
 * insert below a min/max extreme becomes the extreme at once.  At the
 * flush, or within the epoch once the pending changes hold
 * maintenance_work_mem, they are applied (AggPendingApply): sorted by key
 * (a radix sort on 16-byte prefixes, then the rest) and summed per key,
 * their current counts read in one forward pass over the table
 * (HsStateTableMultiGet: dense keys cost a step each, not a point get
 * through every SST's bloom filter), and every changed value written
 * once, in key order (so the memtable links them without a sort).  Then
 * a DISTINCT accumulator gains the values whose count left 0 and loses
 * those that reached 0, and a min/max whose extreme's count reached 0 is
 * found again by the flush.  A value pushed and taken back in one round
 * costs nothing in the table.  Entries kept by row are not read at all:
 * a row's net change in the round is +1 (a blind put), -1 (a delete of
 * the row as it was stored, which its own value gives) or 0; a min/max
 * whose extreme's value lost a row (or may have: net 0) is found again by
 * the flush, as rows of equal value are told apart only by the table.
 *
 * Rows of the min/max state table (persisted): key = the group's key (the
 * memcmp encoding of its key columns) | call number (1 byte) |
 * memcmp(value), descending for max [| identity tail] [| memcmp(row
 * key), by row]; value = a stored row (stored_row.c) of (value, count
 * int8), the count always 1 by row.  For min/max of a type whose
 * encoding folds values that Postgres prints differently (numeric 1.0 and
 * 1.00, float -0 and 0, ...; memcmp_key.c), the value's encoding is
 * followed by its identity tail (its send bytes, ascending after the
 * equal values' encoding): each printed form is counted apart, so the
 * extreme shown is always one some input has, as Postgres's would be (the
 * state role says "by identity"; by row, the tail also makes a row whose
 * value changes only its printed form change its key).  For DISTINCT calls equal values share a row (they are
 * one distinct value), whose value is the one stored for the first of
 * them (the first pushed in the round that created the row).
 *
 * src/stream/executor/agg_ordered_state.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"

#include "agg_internal.h"

void
AggValueCountsInit(AggValueCounts *vc, HsStateTable *table, int callno,
				   const HsAggCall *call, bool by_row)
{
	vc->table = table;
	vc->desc = CreateTemplateTupleDesc(2);
	TupleDescInitEntry(vc->desc, 1, NULL, call->argtype, -1, 0);
	TupleDescInitEntry(vc->desc, 2, NULL, INT8OID, -1, 0);
	vc->callno = (uint8) callno;
	vc->argtype = call->argtype;
	vc->descending = call->kind == HS_AGG_MAX;
	vc->distinct = call->distinct;
	vc->by_row = by_row && !call->distinct;
	vc->identity_send = vc->distinct ? NULL : HsMemcmpIdentitySends(vc->desc, 1);
}

/*
 * Pending changes are applied within the epoch once they take more than
 * maintenance_work_mem (the memory a worker may take per epoch to sort,
 * as the capture reader does; about 60 bytes a change).
 */
#define PENDING_MAX_BYTES ((Size) maintenance_work_mem * 1024)

/* How many sorted changes ahead AggPendingApply fetches (two steps). */
#define PENDING_PREFETCH_AHEAD 8

/* One pushed input not yet applied to the state table. */
typedef struct PendingChange
{
	const AggValueCounts *vc;
	AggAcc	   *acc;			/* the call's accumulators in the group */
	Datum		value;			/* as pushed (a copy in the pending context) */
	uint32		key_off;		/* group | call | memcmp(value), in p->keys */
	uint32		key_len;
	uint32		prefix_len;		/* of group | call */
	uint32		enc_len;		/* of what follows it that the extreme's
								 * encoding holds (without the row key) */
	int32		sign;
} PendingChange;

/*
 * What the sort moves: the first 16 key bytes as two big-endian integers
 * (most comparisons end there) and the change's number.
 */
typedef struct PendingSortItem
{
	uint64		p1;
	uint64		p2;
	uint32		idx;
} PendingSortItem;

/* One key of the apply: its changes summed, and what the table holds. */
typedef struct PendingKey
{
	PendingChange first;		/* its first change (its value is the one
								 * kept), copied: the keys are visited in
								 * key order, the changes lie in push order */
	int64		delta;
	bool		found;
	int64		old_count;
	Datum		stored;			/* the value stored with the row, if found */
} PendingKey;

void
AggPendingInit(AggPendingCounts *p, MemoryContext parent)
{
	p->cxt = AllocSetContextCreate(parent, "hummock_stream agg value counts",
								   ALLOCSET_DEFAULT_SIZES);
	p->changes = NULL;
	p->n = p->cap = 0;
	p->keys = NULL;
	p->keys_len = p->keys_cap = 0;
	initStringInfo(&p->scratch);
	initStringInfo(&p->scratch2);
}

static void
pending_reset(AggPendingCounts *p)
{
	MemoryContextReset(p->cxt);
	p->changes = NULL;
	p->n = p->cap = 0;
	p->keys = NULL;
	p->keys_len = p->keys_cap = 0;
}

void
AggPendingDiscard(AggPendingCounts *p)
{
	pending_reset(p);
}

bool
AggPendingFull(const AggPendingCounts *p)
{
	return p->n > 0 && MemoryContextMemAllocated(p->cxt, false) > PENDING_MAX_BYTES;
}

/* Set acc->val to v (a copy in group_cxt) with encoding key. */
static void
set_extreme(const AggValueCounts *vc, AggAcc *acc, Datum v, const char *key, int keylen,
			MemoryContext group_cxt)
{
	MemoryContext old = MemoryContextSwitchTo(group_cxt);

	acc->val = copy_att_datum(v, TupleDescAttr(vc->desc, 0));
	acc->val_null = false;
	acc->val_key = palloc(keylen);
	memcpy(acc->val_key, key, keylen);
	acc->val_key_len = keylen;
	MemoryContextSwitchTo(old);
}

/* Is the value encoding enc (of a key's value part) acc's current extreme? */
static bool
is_extreme(const AggAcc *acc, const char *enc, int len)
{
	return !acc->val_null && acc->val_key_len == len && memcmp(acc->val_key, enc, len) == 0;
}

void
AggValueCountsAdd(AggPendingCounts *p, const AggValueCounts *vc, const HsBytesKey *group,
				  AggAcc *acc, Datum v, int sign, HsSlice rowkey, MemoryContext group_cxt)
{
	StringInfo	key = &p->scratch;
	PendingChange *pc;
	MemoryContext old;
	int			prefix_len;
	int			enc_len;

	resetStringInfo(key);
	appendBinaryStringInfo(key, group->data, group->len);
	appendBinaryStringInfo(key, (const char *) &vc->callno, 1);
	prefix_len = key->len;
	HsMemcmpEncode(key, v, false, vc->argtype, vc->descending);
	if (vc->identity_send)
		HsMemcmpAppendIdentity(key, v, false, vc->identity_send);
	enc_len = key->len - prefix_len;
	if (vc->by_row)
		appendBinaryStringInfo(key, (const char *) rowkey.data, (int) rowkey.len);

	old = MemoryContextSwitchTo(p->cxt);
	if (p->n == p->cap)
	{
		p->cap = Max(p->cap * 2, 1024);
		p->changes = p->changes ? repalloc_huge(p->changes, sizeof(PendingChange) * p->cap)
			: palloc(sizeof(PendingChange) * p->cap);
	}
	if (p->keys_len + key->len > p->keys_cap)
	{
		p->keys_cap = Max(Max(p->keys_cap * 2, 64 * 1024), p->keys_len + key->len);
		p->keys = p->keys ? repalloc_huge(p->keys, p->keys_cap) : palloc(p->keys_cap);
	}
	pc = &p->changes[p->n++];
	pc->vc = vc;
	pc->acc = acc;
	pc->value = copy_att_datum(v, TupleDescAttr(vc->desc, 0));
	pc->key_off = (uint32) p->keys_len;
	pc->key_len = (uint32) key->len;
	pc->prefix_len = (uint32) prefix_len;
	pc->enc_len = (uint32) enc_len;
	pc->sign = sign;
	memcpy(p->keys + p->keys_len, key->data, key->len);
	p->keys_len += key->len;
	MemoryContextSwitchTo(old);

	/*
	 * min/max: a new input below the extreme is the new extreme now (the
	 * encodings are prefix-free: memcmp over the shorter length decides);
	 * an extreme whose last input goes is found again after the apply.
	 */
	if (!vc->distinct && sign > 0 &&
		(acc->val_null ||
		 memcmp(key->data + prefix_len, acc->val_key,
				Min(acc->val_key_len, enc_len)) < 0))
		set_extreme(vc, acc, v, key->data + prefix_len, enc_len, group_cxt);
}

/* Bytes from..from+8 of a key as a big-endian integer, zero-padded. */
static inline uint64
key_prefix(const uint8 *k, uint32 len, uint32 from)
{
	uint64		r = 0;

	for (uint32 i = from; i < from + 8; i++)
		r = (r << 8) | (i < len ? k[i] : 0);
	return r;
}

/* Key order (memcmp, then length); equal keys in push order. */
static inline int
pending_cmp(const PendingSortItem *a, const PendingSortItem *b, AggPendingCounts *p)
{
	const PendingChange *x;
	const PendingChange *y;
	uint32		len;
	int			r;

	if (a->p1 != b->p1)
		return a->p1 < b->p1 ? -1 : 1;
	if (a->p2 != b->p2)
		return a->p2 < b->p2 ? -1 : 1;
	x = &p->changes[a->idx];
	y = &p->changes[b->idx];
	len = Min(x->key_len, y->key_len);
	if (len > 16 &&
		(r = memcmp(p->keys + x->key_off + 16, p->keys + y->key_off + 16, len - 16)) != 0)
		return r;
	if (x->key_len != y->key_len)
		return x->key_len < y->key_len ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

#define ST_SORT sort_pending
#define ST_ELEMENT_TYPE PendingSortItem
#define ST_COMPARE(a, b, arg) pending_cmp(a, b, arg)
#define ST_COMPARE_ARG_TYPE AggPendingCounts
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* Fewer changes than this are sorted by comparisons alone. */
#define RADIX_MIN_ITEMS 256

/*
 * Sort items[0..n) into key order (pending_cmp): an LSD radix sort on the
 * 16-byte prefix, a pass per byte some items differ in (stable: changes of
 * one prefix stay in push order), then each run of one prefix by
 * comparisons (the rest of the keys, their lengths, push order).  The
 * comparison sort alone took 6% of a min view's worker in an epoch of 1%
 * churn (20,000 changes).
 */
static void
sort_items(PendingSortItem *items, uint32 n, AggPendingCounts *p)
{
	PendingSortItem *src = items;
	PendingSortItem *dst;
	PendingSortItem *tmp;
	uint64		any1 = 0,
				all1 = ~(uint64) 0,
				any2 = 0,
				all2 = ~(uint64) 0;
	uint32		i,
				j;

	if (n < RADIX_MIN_ITEMS)
	{
		sort_pending(items, n, p);
		return;
	}
	tmp = palloc_extended(sizeof(PendingSortItem) * n, MCXT_ALLOC_HUGE);
	dst = tmp;
	for (i = 0; i < n; i++)
	{
		any1 |= items[i].p1;
		all1 &= items[i].p1;
		any2 |= items[i].p2;
		all2 &= items[i].p2;
	}
	/* least significant first: p2's bytes, then p1's */
	for (int b = 0; b < 16; b++)
	{
		bool		high = b >= 8;
		int			shift = 8 * (b % 8);
		uint64		differ = high ? any1 ^ all1 : any2 ^ all2;
		uint32		count[256];
		uint32		at = 0;
		PendingSortItem *swap;

		if (((differ >> shift) & 0xff) == 0)
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[((high ? src[i].p1 : src[i].p2) >> shift) & 0xff]++;
		for (int d = 0; d < 256; d++)
		{
			uint32		k = count[d];

			count[d] = at;
			at += k;
		}
		for (i = 0; i < n; i++)
			dst[count[((high ? src[i].p1 : src[i].p2) >> shift) & 0xff]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != items)
		memcpy(items, src, sizeof(PendingSortItem) * n);
	pfree(tmp);

	for (i = 0; i < n; i = j)
	{
		for (j = i + 1; j < n && items[j].p1 == items[i].p1 &&
			 items[j].p2 == items[i].p2; j++)
			;
		if (j - i > 1)
			sort_pending(items + i, j - i, p);
	}
}

/* The counted keys a multi-get asks for: pks[map[i]] is the i-th. */
typedef struct CountedKeys
{
	PendingKey *pks;
	int		   *map;
} CountedKeys;

/* HsStateTableMultiGet callback: the count and value stored for key i. */
static void
pending_found(int i, const char *value, int vlen, void *arg)
{
	CountedKeys *ck = (CountedKeys *) arg;
	PendingKey *pk = &ck->pks[ck->map[i]];
	Datum		mv[2];
	bool		mn[2];

	HsStoredRowDeform(pk->first.vc->desc, value, mv, mn);
	pk->found = true;
	pk->old_count = DatumGetInt64(mv[1]);
	/* the deformed value points into the iterator's block: keep a copy */
	pk->stored = copy_att_datum(mv[0], TupleDescAttr(pk->first.vc->desc, 0));
}

/* Write pk's new count (count, of value v) over what the table holds. */
static void
write_count(AggPendingCounts *p, const PendingKey *pk, HsSlice key, Datum v, int64 count)
{
	const AggValueCounts *vc = pk->first.vc;
	StringInfo	oldrow = &p->scratch;
	StringInfo	newrow = &p->scratch2;
	Datum		cv[2];
	bool		cn[2] = {false, false};

	resetStringInfo(oldrow);
	resetStringInfo(newrow);
	cv[0] = v;
	if (pk->found)
	{
		cv[1] = Int64GetDatum(pk->old_count);
		HsStoredRowFormInto(oldrow, vc->desc, cv, cn);
	}
	if (count == 0)
	{
		if (pk->found)
			HsStateTableDelete(vc->table, (const char *) key.data, (int) key.len,
							   oldrow->data, oldrow->len);
		return;
	}
	cv[1] = Int64GetDatum(count);
	HsStoredRowFormInto(newrow, vc->desc, cv, cn);
	HsStateTablePut(vc->table, (const char *) key.data, (int) key.len,
					pk->found ? oldrow->data : NULL, oldrow->len, newrow->data, newrow->len);
}

void
AggPendingApply(AggPendingCounts *p, AggDistinctChanged changed, void *arg,
				MemoryContext group_cxt)
{
	PendingSortItem *items;
	PendingKey *pks;
	HsSlice    *keys;
	int			nkeys = 0;
	HsSlice    *counted;
	CountedKeys ck;
	int			ncounted = 0;
	MemoryContext old;

	if (p->n == 0)
		return;
	old = MemoryContextSwitchTo(p->cxt);
	items = palloc_extended(sizeof(PendingSortItem) * p->n, MCXT_ALLOC_HUGE);
	for (uint32 i = 0; i < p->n; i++)
	{
		const uint8 *k = (const uint8 *) p->keys + p->changes[i].key_off;
		uint32		len = p->changes[i].key_len;

		items[i].p1 = key_prefix(k, len, 0);
		items[i].p2 = key_prefix(k, len, 8);
		items[i].idx = i;
	}
	sort_items(items, p->n, p);

	/* the distinct keys, each with its changes summed */
	pks = palloc_extended(sizeof(PendingKey) * p->n, MCXT_ALLOC_HUGE);
	keys = palloc_extended(sizeof(HsSlice) * p->n, MCXT_ALLOC_HUGE);
	for (uint32 i = 0; i < p->n; i++)
	{
		PendingChange *pc = &p->changes[items[i].idx];
		HsSlice		k = HsSliceMake(p->keys + pc->key_off, pc->key_len);

		/*
		 * The changes (and their keys) lie in push order: fetch those a few
		 * keys ahead while this one is summed.  Keys whose 16-byte prefixes
		 * differ differ; only equal prefixes compare the bytes.
		 */
		if (i + PENDING_PREFETCH_AHEAD * 2 < p->n)
			__builtin_prefetch(&p->changes[items[i + PENDING_PREFETCH_AHEAD * 2].idx]);
		if (i + PENDING_PREFETCH_AHEAD < p->n)
			__builtin_prefetch(p->keys + p->changes[items[i + PENDING_PREFETCH_AHEAD].idx].key_off);
		if (nkeys == 0 || items[i].p1 != items[i - 1].p1 || items[i].p2 != items[i - 1].p2 ||
			HsSliceCompare(keys[nkeys - 1], k) != 0)
		{
			keys[nkeys] = k;
			pks[nkeys].first = *pc;
			pks[nkeys].delta = 0;
			pks[nkeys].found = false;
			pks[nkeys].old_count = 0;
			nkeys++;
		}
		pks[nkeys - 1].delta += pc->sign;
	}
	pfree(items);

	/*
	 * The counts the table holds (every call of the aggregation keeps its
	 * entries in the one table); entries kept by row are not read.
	 */
	counted = palloc_extended(sizeof(HsSlice) * nkeys, MCXT_ALLOC_HUGE);
	ck.pks = pks;
	ck.map = palloc_extended(sizeof(int) * nkeys, MCXT_ALLOC_HUGE);
	for (int i = 0; i < nkeys; i++)
		if (!pks[i].first.vc->by_row)
		{
			ck.map[ncounted] = i;
			counted[ncounted++] = keys[i];
		}
	if (ncounted > 0)
		HsStateTableMultiGet(pks[ck.map[0]].first.vc->table, counted, ncounted,
							 pending_found, &ck);

	for (int i = 0; i < nkeys; i++)
	{
		PendingKey *pk = &pks[i];
		const AggValueCounts *vc = pk->first.vc;
		AggAcc	   *acc = pk->first.acc;
		int64		count;
		Datum		v;
		const char *enc;
		int			enclen;

		enc = (const char *) keys[i].data + pk->first.prefix_len;
		enclen = (int) pk->first.enc_len;
		if (vc->by_row)
		{
			/* one row's changes: inserted (+1), deleted (-1) or both (0) */
			if (pk->delta > 1 || pk->delta < -1)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("min/max state of a streaming aggregation got a net change of %lld for one input row",
								(long long) pk->delta)));
			if (pk->delta != 0)
			{
				pk->found = pk->delta < 0;
				pk->old_count = pk->found ? 1 : 0;
				write_count(p, pk, keys[i], pk->first.value, pk->found ? 0 : 1);
			}
			/* the extreme's value lost a row, or may have (net 0) */
			if (pk->delta <= 0 && is_extreme(acc, enc, enclen))
				acc->rescan = true;
			continue;
		}

		/* below zero is never expected: there is nothing to take back */
		count = Max(pk->old_count + pk->delta, 0);
		v = pk->found ? pk->stored : pk->first.value;
		if (count != pk->old_count)
			write_count(p, pk, keys[i], v, count);
		if (vc->distinct)
		{
			if (pk->old_count == 0 && count > 0)
				changed(arg, vc->callno, acc, v, +1);
			else if (pk->old_count > 0 && count == 0)
				changed(arg, vc->callno, acc, v, -1);
		}
		else if (is_extreme(acc, enc, enclen))
		{
			if (count == 0)
				acc->rescan = true; /* its last input went */
			else if (pk->found)
				set_extreme(vc, acc, v, enc, enclen, group_cxt);	/* as stored */
		}
	}
	MemoryContextSwitchTo(old);
	pending_reset(p);
}

/* One pass of AggMinMaxRescanAll: the rescans in prefix order. */
typedef struct RescanPass
{
	AggRescan  *rescans;
	int		   *order;			/* pass position -> rescans[] index */
	bool	   *found;			/* per rescans[] index */
	MemoryContext group_cxt;
	StringInfoData enc;
} RescanPass;

typedef struct RescanPrefix
{
	HsSlice		prefix;			/* group | call */
	int			idx;
} RescanPrefix;

static int
rescan_prefix_cmp(const void *a, const void *b)
{
	return HsSliceCompare(((const RescanPrefix *) a)->prefix,
						  ((const RescanPrefix *) b)->prefix);
}

/* HsStateTableFirstWithPrefixes callback: the first value of a group's call. */
static void
rescan_found(int i, const char *key, int keylen, const char *value, int vlen, void *arg)
{
	RescanPass *rp = (RescanPass *) arg;
	AggRescan  *r = &rp->rescans[rp->order[i]];
	const AggValueCounts *vc = r->vc;
	int			prefix_len = (int) r->group->len + 1;
	Datum		mv[2];
	bool		mn[2];

	HsStoredRowDeform(vc->desc, value, mv, mn);
	if (vc->by_row)
	{
		/* the extreme's encoding is its value's, without the row key */
		resetStringInfo(&rp->enc);
		HsMemcmpEncode(&rp->enc, mv[0], false, vc->argtype, vc->descending);
		if (vc->identity_send)
			HsMemcmpAppendIdentity(&rp->enc, mv[0], false, vc->identity_send);
		set_extreme(vc, r->acc, mv[0], rp->enc.data, rp->enc.len, rp->group_cxt);
	}
	else
		set_extreme(vc, r->acc, mv[0], key + prefix_len, keylen - prefix_len, rp->group_cxt);
	rp->found[rp->order[i]] = true;
}

void
AggMinMaxRescanAll(AggRescan *rescans, int n, MemoryContext group_cxt)
{
	RescanPrefix *items;
	HsSlice    *prefixes;
	RescanPass	rp;
	int			np = 0;

	if (n == 0)
		return;
	items = palloc(sizeof(RescanPrefix) * n);
	for (int i = 0; i < n; i++)
	{
		AggRescan  *r = &rescans[i];
		char	   *p;

		r->acc->rescan = false;
		r->acc->val_null = true;
		if (r->acc->count == 0)
			continue;			/* no inputs: NULL */
		p = palloc(r->group->len + 1);
		memcpy(p, r->group->data, r->group->len);
		p[r->group->len] = (char) r->vc->callno;
		items[np].prefix = HsSliceMake(p, r->group->len + 1);
		items[np++].idx = i;
	}
	/* (group keys are prefix-free encodings: no prefix is another's) */
	qsort(items, np, sizeof(RescanPrefix), rescan_prefix_cmp);
	prefixes = palloc(sizeof(HsSlice) * Max(np, 1));
	rp.rescans = rescans;
	rp.order = palloc(sizeof(int) * Max(np, 1));
	rp.found = palloc0(sizeof(bool) * n);
	rp.group_cxt = group_cxt;
	initStringInfo(&rp.enc);
	for (int i = 0; i < np; i++)
	{
		prefixes[i] = items[i].prefix;
		rp.order[i] = items[i].idx;
	}
	/* every call of the aggregation keeps its values in the one table */
	HsStateTableFirstWithPrefixes(rescans[0].vc->table, prefixes, np, rescan_found, &rp);
	for (int i = 0; i < np; i++)
		if (!rp.found[items[i].idx])
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("min/max state of a streaming aggregation has no value for a group with %lld inputs",
							(long long) rescans[items[i].idx].acc->count)));
	for (int i = 0; i < np; i++)
		pfree((void *) items[i].prefix.data);
	pfree(items);
	pfree(prefixes);
	pfree(rp.order);
	pfree(rp.found);
	pfree(rp.enc.data);
}
