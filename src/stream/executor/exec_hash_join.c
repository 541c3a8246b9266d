/*-------------------------------------------------------------------------
 *
 * exec_hash_join.c
 *	  Streaming equi-join of two inputs: inner, left, full, semi and anti.
 *
 * Each side keeps every row it has seen (with a non-NULL join key) in its
 * state table, so a change on one side is joined with the other side's
 * rows as they are now.  The job pushes an epoch's changes input by input,
 * so the emitted changes are
 *
 *		delta(L join R) = delta(L) join R_old  +  L_new join delta(R)
 *
 * and every prefix of them is the join of some consistent state (no key
 * is inserted twice or deleted before it is inserted downstream).
 *
 * State rows.  Key: memcmp(join key) | identity, where the identity is
 * memcmp(the side's unique key columns) when the side has a unique key
 * and otherwise the row's canonical bytes (a MinimalTuple formed from
 * detoasted values, so equal rows have equal bytes).  Value: a counted row
 * (stored_row.c): the copies of the row (always 1 with a unique key), then
 * the row.
 * The memcmp encoding is prefix-free, so the rows of one join key are
 * exactly the keys that start with its encoding: a prefix scan.
 *
 * Join key semantics.  Equal encodings mean equal values under the
 * type's default equality (the planner casts both sides to one type and
 * accepts only operators and collations for which that holds).  A row
 * with a NULL join key matches nothing and is not stored; on an outer
 * side it is NULL-extended at once.  A key of IS NOT DISTINCT FROM
 * (null_safe_keys) encodes NULL as a value of its own, which matches
 * NULL only.
 *
 * Outer, semi and anti joins.  A row of a preserved side (left of LEFT,
 * both of FULL, left of SEMI/ANTI) appears NULL-extended (or, for
 * SEMI/ANTI, appears or not) depending on whether it has a match: its
 * degree.  Degrees are not stored: when a row arrives on the other side,
 * the degree of each preserved row it matches is counted from the state
 * of the arriving row's side (the rows with the same join key that also
 * pass the join filter), before the arriving row is applied.  A
 * transition 0 -> 1 retracts the NULL-extended row before emitting the
 * joined one; 1 -> 0 retracts the joined row before bringing the
 * NULL-extended row back.  Without a join filter the degree is the sum
 * of counts under the key, counted once per change; with one it is
 * counted per matched row (quadratic in the rows of one key).
 *
 * Output rows are left columns then right columns (LEFT, FULL, INNER), or
 * left columns only (SEMI, ANTI).
 *
 * A side whose join key is its unique key (a join on its primary key)
 * has at most one row per key, stored under the join key twice: a probe
 * that misses the cache reads it with a point get, not a prefix scan.
 *
 * Cache: each side keeps, per join key it was probed for lately, its rows
 * under that key in memory (also "no rows"); writes to a cached key update
 * it, writes to other keys do not load them (a write with a unique key is
 * blind, one without reads the row's count with a point get).  A probe
 * that hits the cache reads no storage.  While a side's cache is larger
 * than hummock_stream.join_cache_size, the keys it lacks are read for one
 * chunk only (transient entries), so it stays about that size within an
 * epoch; after an epoch it is emptied if over.
 *
 * Chunks: a row pushed into a port is copied into the port's chunk (with
 * its join key) and joined when the chunk is full (JOIN_CHUNK_ROWS or
 * JOIN_CHUNK_BYTES), when the port is flushed, or when a row comes into
 * the other port first, so rows are joined in the order they came.  A
 * chunk first looks up the other side's cache entries for all its keys
 * and reads the misses in one pass in key order (a multi-get where the
 * key is the unique key, else one forward scan over their prefixes), then
 * joins its rows one by one, all of them cache hits.  The other side's
 * state does not change while a chunk is joined.
 *
 * Flush: the join has two input ports; it flushes its downstream once
 * both ports are flushed for the epoch (barrier alignment: the job feeds
 * the inputs one after the other, so nothing is buffered for it).
 *
 * src/stream/executor/exec_hash_join.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"

#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/stream/bytes_key_hash.h"
#include "hummock_stream/stream/executor.h"

#define LEFT	0
#define RIGHT	1

int			hs_join_cache_kb = 16384;

/* A chunk of rows pushed into a port is joined at this many rows or bytes. */
#define JOIN_CHUNK_ROWS 4096
#define JOIN_CHUNK_BYTES (8 * 1024 * 1024)

/* A row of a side, as cached or read: identity = its state key past the join key. */
typedef struct SideRow
{
	int64		count;
	Datum	   *values;
	bool	   *isnull;
	char	   *ident;
	int			ident_len;
	MinimalTuple mt;			/* the values point into it */
} SideRow;

typedef HsBytesKey CacheKey;

typedef struct CacheEntry
{
	CacheKey	key;			/* the join key (hash key: first) */
	List	   *rows;			/* SideRow, in the cache's context */
	bool		transient;		/* not in the cache: a chunk's, in its context */
} CacheEntry;

typedef struct HashJoinExec HashJoinExec;

/* An input of the join: pushes into it arrive here. */
typedef struct JoinPort
{
	HsExec		exec;
	HashJoinExec *join;
	int			side;
} JoinPort;

/*
 * A row pushed into a port and not yet joined: a copy of it, its join key
 * (NULL: a NULL where NULL matches nothing) and the other side's cache
 * entry for the key, looked up when the chunk is joined.
 */
typedef struct PendingRow
{
	MinimalTuple mt;
	int			sign;
	char	   *jkey;
	int			jkey_len;
	CacheEntry *matches;
} PendingRow;

typedef struct JoinSide
{
	TupleDesc	desc;
	int			natts;
	List	   *key_states;		/* ExprState per key column, over the side */
	Oid		   *key_types;
	bool	   *key_null_safe;	/* per key: NULL matches NULL */
	int			nkeys;
	const int  *ukey;			/* unique key columns, or NULL */
	int			nukey;
	bool		key_is_ukey;	/* the join key is the unique key, column by column */
	bool		preserved;		/* rows appear even without a match */
	HsStateTable *state;
	HTAB	   *cache;			/* CacheEntry by join key */
	MemoryContext cache_cxt;
	Size		cache_bytes;
	ExprContext *econtext;		/* key evaluation */
	JoinPort	port;

	/* the chunk of rows pushed into the port and not yet joined */
	PendingRow *pending;
	int			npending;
	Size		pending_bytes;
	MemoryContext chunk_cxt;	/* the rows' copies and keys */
	TupleTableSlot *chunk_slot; /* a pending row, joined */
	StringInfoData key_buf;		/* a pushed row's join key */
} JoinSide;

typedef SideRow Match;

struct HashJoinExec
{
	HsExec		exec;			/* exec.row_cxt: reset per pushed row */
	HsJoinKind	kind;
	JoinSide	side[2];
	ExprState  *filter;			/* over left ++ right, or NULL */
	ExprContext *filter_econtext;
	TupleTableSlot *combined;	/* left ++ right, for the filter */
	int			nflushed;
};

/* ---------------------------------------------------------------------
 * State rows
 * ---------------------------------------------------------------------
 */

static CacheEntry *cache_lookup(JoinSide *s, StringInfo jkey);
static SideRow *make_row(JoinSide *s, int64 count, const char *mt_bytes, int mt_len,
						 const char *ident, int ident_len);

/*
 * The join key of row into key; false if one of its columns is NULL where
 * NULL matches nothing (an IS NOT DISTINCT FROM key encodes it instead).
 */
static bool
encode_join_key(JoinSide *s, TupleTableSlot *row, StringInfo key)
{
	ListCell   *lc;
	int			i = 0;
	bool		has_key = true;
	MemoryContext old;

	/*
	 * The encoding's by-products (detoasted or unpacked numeric and jsonb
	 * values) go into the per-row memory; key keeps its own context.
	 */
	ResetExprContext(s->econtext);
	old = MemoryContextSwitchTo(s->econtext->ecxt_per_tuple_memory);
	s->econtext->ecxt_scantuple = row;
	foreach(lc, s->key_states)
	{
		bool		isnull;
		Datum		d = ExecEvalExpr((ExprState *) lfirst(lc), s->econtext, &isnull);

		if (isnull && !s->key_null_safe[i])
		{
			has_key = false;
			break;
		}
		HsMemcmpEncode(key, d, isnull, s->key_types[i], false);
		i++;
	}
	MemoryContextSwitchTo(old);
	return has_key;
}

/*
 * Apply a change of row (sign) to side s's state under join key jkey (and
 * to the cached rows of the key, if it is cached; a write does not load
 * it).
 */
static void
apply_to_state(JoinSide *s, TupleTableSlot *row, StringInfo jkey, int sign)
{
	StringInfoData key;
	MinimalTuple mt = HsCanonicalTuple(s->desc, row->tts_values, row->tts_isnull);
	CacheEntry *ce = cache_lookup(s, jkey);
	SideRow    *cur = NULL;
	ListCell   *lc;
	int64		count = 0;
	bool		exists;
	const char *ident;
	int			ident_len;
	char	   *val;
	int			vlen;
	MemoryContext old;

	initStringInfo(&key);
	appendBinaryStringInfo(&key, jkey->data, jkey->len);
	if (s->ukey)
	{
		for (int i = 0; i < s->nukey; i++)
		{
			int			c = s->ukey[i];

			HsMemcmpEncode(&key, row->tts_values[c], row->tts_isnull[c],
						   TupleDescAttr(s->desc, c)->atttypid, false);
		}
	}
	else
		appendBinaryStringInfo(&key, (char *) mt, mt->t_len);
	ident = key.data + jkey->len;
	ident_len = key.len - jkey->len;

	/*
	 * The current count: with a unique key an insert is of a new row (a
	 * blind write, and no search of a cached key's rows, which made a
	 * backfill quadratic in the rows per join key); else a cached key has
	 * every row, or the table is asked.
	 */
	if (s->ukey && sign > 0)
		count = 0;
	else if (ce)
	{
		foreach(lc, ce->rows)
		{
			SideRow    *r = lfirst(lc);

			if (r->ident_len == ident_len && memcmp(r->ident, ident, ident_len) == 0)
			{
				cur = r;
				count = r->count;
				break;
			}
		}
	}
	else if (s->ukey)
		count = sign < 0 ? 1 : 0;	/* one row per key: a blind write */
	else
	{
		StringInfoData v;

		initStringInfo(&v);
		if (HsStateTableGet(s->state, key.data, key.len, &v))
			count = HsCountedRowCount(v.data);
	}
	exists = count > 0;
	count += sign;
	if (count < 0)
		elog(ERROR, "streaming join: a row was deleted that was never inserted");
	if (count == 0)
	{
		HsStateTableDelete(s->state, key.data, key.len, NULL, 0);
		if (ce)
			ce->rows = list_delete_ptr(ce->rows, cur);
		return;
	}
	val = HsCountedRowForm(count, mt, &vlen);
	/* (state tables check no old values: an update needs none) */
	HsStateTablePut(s->state, key.data, key.len, exists ? val : NULL, 0, val, vlen);
	if (cur)
		cur->count = count;
	else if (ce)
	{
		old = MemoryContextSwitchTo(s->cache_cxt);
		ce->rows = lappend(ce->rows, make_row(s, count, (char *) mt, mt->t_len, ident, ident_len));
		MemoryContextSwitchTo(old);
	}
}

/* ---------------------------------------------------------------------
 * The cache
 * ---------------------------------------------------------------------
 */

static void
cache_create(JoinSide *s)
{
	MemoryContextReset(s->cache_cxt);
	s->cache = HsBytesKeyHashCreate("hummock_stream join cache", sizeof(CacheEntry), 256,
									s->cache_cxt);
	s->cache_bytes = 0;
}

/* A SideRow in the current context from a stored tuple. */
static SideRow *
make_row(JoinSide *s, int64 count, const char *mt_bytes, int mt_len,
		 const char *ident, int ident_len)
{
	SideRow    *r = palloc(sizeof(SideRow));

	r->count = count;
	r->values = palloc(sizeof(Datum) * s->natts);
	r->isnull = palloc(sizeof(bool) * s->natts);
	r->mt = HsStoredRowCopyDeform(s->desc, mt_bytes, mt_len, r->values, r->isnull);
	r->ident = palloc(ident_len + 1);
	memcpy(r->ident, ident, ident_len);
	r->ident_len = ident_len;
	s->cache_bytes += sizeof(SideRow) + mt_len + ident_len + s->natts * (sizeof(Datum) + 1);
	return r;
}

/*
 * The cache entry of side s for join key (key, len); *found false: it is
 * new, without rows yet (the caller reads them).
 */
static CacheEntry *
cache_enter(JoinSide *s, char *key, int len, bool *found)
{
	CacheKey	k = {key, len};
	CacheEntry *e = hash_search(s->cache, &k, HASH_ENTER, found);

	if (!*found)
	{
		e->key.data = MemoryContextAlloc(s->cache_cxt, len + 1);
		memcpy(e->key.data, key, len);
		e->key.len = len;
		e->rows = NIL;
		e->transient = false;
		s->cache_bytes += sizeof(CacheEntry) + len;
	}
	return e;
}

/* Orders cache entries by join key (memcmp, then length). */
static int
entry_key_cmp(const void *a, const void *b)
{
	const CacheEntry *x = *(CacheEntry *const *) a;
	const CacheEntry *y = *(CacheEntry *const *) b;
	int			c = memcmp(x->key.data, y->key.data, Min(x->key.len, y->key.len));

	if (c != 0)
		return c;
	return (x->key.len > y->key.len) - (x->key.len < y->key.len);
}

typedef struct FillArg
{
	JoinSide   *side;
	CacheEntry **entries;
	MemoryContext transient_cxt;	/* of transient entries' rows */
} FillArg;

/* A stored row (value) of entry e, whose identity is ident, into its rows. */
static void
entry_add_row(FillArg *fa, CacheEntry *e, const char *value, int vlen,
			  const char *ident, int ident_len)
{
	JoinSide   *s = fa->side;
	Size		cached = s->cache_bytes;
	MemoryContext old = MemoryContextSwitchTo(e->transient ? fa->transient_cxt : s->cache_cxt);

	e->rows = lappend(e->rows,
					  make_row(s, HsCountedRowCount(value), HsCountedRowTuple(value),
							   HsCountedRowTupleLen(vlen), ident, ident_len));
	if (e->transient)
		s->cache_bytes = cached;
	MemoryContextSwitchTo(old);
}

/* Multi-get callback: the row of entries[i]'s key (stored under it twice). */
static void
fill_point_row(int i, const char *value, int vlen, void *arg)
{
	FillArg    *fa = arg;
	CacheEntry *e = fa->entries[i];

	entry_add_row(fa, e, value, vlen, e->key.data, e->key.len);
}

/* Prefix-scans callback: a state row under entries[i]'s key. */
static void
fill_prefix_row(int i, const char *key, int keylen, const char *value, int vlen,
				void *arg)
{
	FillArg    *fa = arg;
	CacheEntry *e = fa->entries[i];

	entry_add_row(fa, e, value, vlen, key + e->key.len, keylen - e->key.len);
}

/*
 * Read the rows of n new entries of side s (in its cache, or transient:
 * their rows in transient_cxt) from its state table, in key order with
 * one iterator: a multi-get where the join key is the unique key, else
 * one forward scan over the keys' prefixes.  Transient entries of equal
 * keys are read once and share their rows.  (In the current memory
 * context: scratch.)
 */
static void
cache_fill(JoinSide *s, CacheEntry **entries, int n, MemoryContext transient_cxt)
{
	CacheEntry **uniq = palloc(sizeof(CacheEntry *) * n);
	int		   *same_as = palloc(sizeof(int) * n);
	int			nuniq = 0;
	FillArg		fa = {s, uniq, transient_cxt};
	HsSlice    *keys;

	qsort(entries, n, sizeof(CacheEntry *), entry_key_cmp);
	for (int i = 0; i < n; i++)
	{
		if (nuniq > 0 && entry_key_cmp(&entries[i], &uniq[nuniq - 1]) == 0)
			same_as[i] = nuniq - 1;
		else
		{
			same_as[i] = -1;
			uniq[nuniq++] = entries[i];
		}
	}
	keys = palloc(sizeof(HsSlice) * nuniq);
	for (int i = 0; i < nuniq; i++)
	{
		CacheEntry *e = uniq[i];

		if (s->key_is_ukey)
		{
			/* the join key twice: in the same order as the join keys */
			char	   *k = palloc(e->key.len * 2);

			memcpy(k, e->key.data, e->key.len);
			memcpy(k + e->key.len, e->key.data, e->key.len);
			keys[i] = HsSliceMake(k, e->key.len * 2);
		}
		else
			keys[i] = HsSliceMake(e->key.data, e->key.len);
	}
	if (s->key_is_ukey && nuniq == 1)
	{
		/* one key: a point get, whose bloom filters skip SSTs */
		StringInfoData val;

		initStringInfo(&val);
		if (HsStateTableGet(s->state, (const char *) keys[0].data, (int) keys[0].len, &val))
			fill_point_row(0, val.data, val.len, &fa);
	}
	else if (s->key_is_ukey)
		HsStateTableMultiGet(s->state, keys, nuniq, fill_point_row, &fa);
	else
		HsStateTableScanPrefixes(s->state, keys, nuniq, fill_prefix_row, &fa);
	for (int i = 0; i < n; i++)
		if (same_as[i] >= 0)
			entries[i]->rows = uniq[same_as[i]]->rows;
}

/* The cache entry of side s for jkey, read from the state table on a miss. */
static CacheEntry *
cache_entry(JoinSide *s, StringInfo jkey)
{
	bool		found;
	CacheEntry *e = cache_enter(s, jkey->data, jkey->len, &found);

	if (!found)
		cache_fill(s, &e, 1, CurrentMemoryContext);
	return e;
}

/* The cache entry of side s for jkey if it is cached, else NULL. */
static CacheEntry *
cache_lookup(JoinSide *s, StringInfo jkey)
{
	CacheKey	k = {jkey->data, jkey->len};

	return hash_search(s->cache, &k, HASH_FIND, NULL);
}

/* The rows of side s under join key jkey (valid until s's state changes). */
static List *
rows_with_key(JoinSide *s, StringInfo jkey)
{
	return cache_entry(s, jkey)->rows;
}

/* ---------------------------------------------------------------------
 * Emitting
 * ---------------------------------------------------------------------
 */

/*
 * Does the filter hold for the left row l and right row r (either NULL:
 * that side's columns are NULL)?
 */
static bool
filter_holds(HashJoinExec *j, Datum *lv, bool *ln, Datum *rv, bool *rn)
{
	TupleTableSlot *c = j->combined;
	int			nl = j->side[LEFT].natts;
	int			nr = j->side[RIGHT].natts;

	if (j->filter == NULL)
		return true;
	ExecClearTuple(c);
	memcpy(c->tts_values, lv, sizeof(Datum) * nl);
	memcpy(c->tts_isnull, ln, sizeof(bool) * nl);
	memcpy(c->tts_values + nl, rv, sizeof(Datum) * nr);
	memcpy(c->tts_isnull + nl, rn, sizeof(bool) * nr);
	ExecStoreVirtualTuple(c);
	ResetExprContext(j->filter_econtext);
	j->filter_econtext->ecxt_scantuple = c;
	return ExecQual(j->filter, j->filter_econtext);
}

/*
 * Emit count copies of the output row made of left row (lv, ln) and right
 * row (rv, rn); lv or rv NULL: that side's columns are NULL (a row
 * NULL-extended).  SEMI and ANTI emit the left row alone; FULL adds
 * whether the row has a left row (so an unmatched right row whose key is
 * NULL and an unmatched left one whose key is NULL differ).
 */
static void
emit(HashJoinExec *j, Datum *lv, bool *ln, Datum *rv, bool *rn,
	 int64 count, int sign)
{
	TupleTableSlot *o = j->exec.out;
	int			nl = j->side[LEFT].natts;
	int			nr = j->side[RIGHT].natts;
	bool		semi = j->kind == HS_JOIN_SEMI || j->kind == HS_JOIN_ANTI;

	for (int64 i = 0; i < count; i++)
	{
		ExecClearTuple(o);
		for (int c = 0; c < nl; c++)
		{
			o->tts_values[c] = lv ? lv[c] : (Datum) 0;
			o->tts_isnull[c] = lv ? ln[c] : true;
		}
		if (!semi)
		{
			for (int c = 0; c < nr; c++)
			{
				o->tts_values[nl + c] = rv ? rv[c] : (Datum) 0;
				o->tts_isnull[nl + c] = rv ? rn[c] : true;
			}
		}
		if (j->kind == HS_JOIN_FULL)
		{
			o->tts_values[nl + nr] = BoolGetDatum(lv != NULL);
			o->tts_isnull[nl + nr] = false;
		}
		ExecStoreVirtualTuple(o);
		HsExecEmit(&j->exec, o, sign);
	}
}

/* Emit for a (left, right) pair whose left row's match state is unchanged. */
static void
emit_pair(HashJoinExec *j, int s, Datum *sv, bool *sn, Match *m, int sign)
{
	if (s == LEFT)
		emit(j, sv, sn, m->values, m->isnull, m->count, sign);
	else
		emit(j, m->values, m->isnull, sv, sn, m->count, sign);
}

/* A preserved row of side s without match: NULL-extended (or itself). */
static void
emit_unmatched(HashJoinExec *j, int s, Datum *v, bool *n, int64 count, int sign)
{
	if (s == LEFT)
		emit(j, v, n, NULL, NULL, count, sign);
	else
		emit(j, NULL, NULL, v, n, count, sign);
}

/* ---------------------------------------------------------------------
 * Pushing
 * ---------------------------------------------------------------------
 */

/*
 * How many rows of side s (matches: its rows under the key) match the
 * row (v, n) of the other side?
 */
static int64
degree(HashJoinExec *j, int s, List *rows_of_s, Datum *v, bool *n)
{
	int64		d = 0;
	ListCell   *lc;

	foreach(lc, rows_of_s)
	{
		Match	   *m = lfirst(lc);
		bool		ok = s == LEFT ?
			filter_holds(j, m->values, m->isnull, v, n) :
			filter_holds(j, v, n, m->values, m->isnull);

		if (ok)
			d += m->count;
	}
	return d;
}

/*
 * Join row (sign) of side s, whose join key is jkey (NULL: it has a NULL
 * that matches nothing), with the other side's rows under the key (their
 * cache entry, looked up for the whole chunk), then apply it to s's state.
 */
static void
join_push(HashJoinExec *j, int s, TupleTableSlot *row, int sign,
		  StringInfo jkey, CacheEntry *matches_entry)
{
	JoinSide   *me = &j->side[s];
	JoinSide   *other = &j->side[1 - s];
	bool		semi = j->kind == HS_JOIN_SEMI || j->kind == HS_JOIN_ANTI;
	MemoryContext old;
	List	   *matches;
	List	   *mine = NIL;
	bool		mine_loaded = false;
	int64		total_mine = -1;
	bool		any = false;
	Datum	   *v;
	bool	   *n;
	ListCell   *lc;

	MemoryContextReset(j->exec.row_cxt);
	old = MemoryContextSwitchTo(j->exec.row_cxt);
	slot_getallattrs(row);
	v = palloc(sizeof(Datum) * me->natts);
	n = palloc(sizeof(bool) * me->natts);
	memcpy(v, row->tts_values, sizeof(Datum) * me->natts);
	memcpy(n, row->tts_isnull, sizeof(bool) * me->natts);

	if (jkey == NULL)
	{
		/* matches nothing, now or later: not stored */
		if (me->preserved && j->kind != HS_JOIN_SEMI)
			emit_unmatched(j, s, v, n, 1, sign);
		MemoryContextSwitchTo(old);
		return;
	}

	matches = matches_entry->rows;
	foreach(lc, matches)
	{
		Match	   *m = lfirst(lc);
		bool		ok = s == LEFT ?
			filter_holds(j, v, n, m->values, m->isnull) :
			filter_holds(j, m->values, m->isnull, v, n);

		if (!ok)
			continue;
		any = true;
		if (semi)
		{
			if (s == LEFT)
				break;			/* the left row's fate needs only "any" */
		}
		if (!other->preserved)
		{
			emit_pair(j, s, v, n, m, sign);
			continue;
		}

		/*
		 * m is a preserved row (s is its non-preserved or also-preserved
		 * partner side): does this change move its degree across zero?
		 */
		{
			int64		before;
			int64		after;

			if (!mine_loaded)
			{
				mine = rows_with_key(me, jkey);
				mine_loaded = true;
			}
			if (j->filter == NULL)
			{
				if (total_mine < 0)
					total_mine = degree(j, s, mine, m->values, m->isnull);
				before = total_mine;
			}
			else
				before = degree(j, s, mine, m->values, m->isnull);
			after = before + sign;

			if (semi)
			{
				/* s is the right side; m a left row */
				bool		was = before > 0;
				bool		is = after > 0;

				if (was != is)
					emit(j, m->values, m->isnull, NULL, NULL, m->count,
						 (j->kind == HS_JOIN_SEMI) == is ? +1 : -1);
				continue;
			}
			if (sign > 0 && before == 0)
			{
				emit_unmatched(j, 1 - s, m->values, m->isnull, m->count, -1);
				emit_pair(j, s, v, n, m, +1);
			}
			else if (sign < 0 && after == 0)
			{
				emit_pair(j, s, v, n, m, -1);
				emit_unmatched(j, 1 - s, m->values, m->isnull, m->count, +1);
			}
			else
				emit_pair(j, s, v, n, m, sign);
		}
	}

	if (semi && s == LEFT)
	{
		if (any == (j->kind == HS_JOIN_SEMI))
			emit(j, v, n, NULL, NULL, 1, sign);
	}
	else if (!any && me->preserved)
		emit_unmatched(j, s, v, n, 1, sign);

	apply_to_state(me, row, jkey, sign);
	MemoryContextSwitchTo(old);
}

/*
 * Join the chunk of rows pending on side s, in the order they came: first
 * the other side's cache entries for all their keys (the misses read in
 * one pass, in key order), then row by row.  The other side's state does
 * not change meanwhile: only s's rows are joined, and a row pushed into
 * the other port first joins this chunk.
 */
static void
join_chunk(HashJoinExec *j, int s)
{
	JoinSide   *me = &j->side[s];
	JoinSide   *other = &j->side[1 - s];
	int			n = me->npending;
	CacheEntry **missing;
	int			nmissing = 0;
	Size		cache_limit = (Size) hs_join_cache_kb * 1024;
	MemoryContext old;

	if (n == 0)
		return;
	old = MemoryContextSwitchTo(me->chunk_cxt);
	missing = palloc(sizeof(CacheEntry *) * n);
	for (int i = 0; i < n; i++)
	{
		PendingRow *r = &me->pending[i];
		bool		found;

		if (r->jkey == NULL)
			continue;
		if (other->cache_bytes <= cache_limit)
			r->matches = cache_enter(other, r->jkey, r->jkey_len, &found);
		else
		{
			/* the cache is full: keys it lacks are read for the chunk only */
			CacheKey	k = {r->jkey, r->jkey_len};

			r->matches = hash_search(other->cache, &k, HASH_FIND, &found);
			if (!found)
			{
				r->matches = palloc(sizeof(CacheEntry));
				r->matches->key = k;
				r->matches->rows = NIL;
				r->matches->transient = true;
			}
		}
		if (!found)
			missing[nmissing++] = r->matches;
	}
	if (nmissing > 0)
		cache_fill(other, missing, nmissing, me->chunk_cxt);
	MemoryContextSwitchTo(old);

	for (int i = 0; i < n; i++)
	{
		PendingRow *r = &me->pending[i];
		StringInfoData k;

		ExecStoreMinimalTuple(r->mt, me->chunk_slot, false);
		if (r->jkey)
		{
			k.data = r->jkey;
			k.len = r->jkey_len;
			k.maxlen = r->jkey_len + 1;
			k.cursor = 0;
		}
		join_push(j, s, me->chunk_slot, r->sign, r->jkey ? &k : NULL, r->matches);
	}
	ExecClearTuple(me->chunk_slot);
	me->npending = 0;
	me->pending_bytes = 0;
	MemoryContextReset(me->chunk_cxt);
}

/* Forget the rows pending on side s (error recovery). */
static void
discard_chunk(JoinSide *s)
{
	ExecClearTuple(s->chunk_slot);
	s->npending = 0;
	s->pending_bytes = 0;
	MemoryContextReset(s->chunk_cxt);
}

/*
 * A row pushed into a port joins a chunk: a copy and its join key, until
 * the chunk is full, the port is flushed or a row comes into the other
 * port.  A row that comes when nothing is pending and whose key the other
 * side has cached is joined at once (a join with a small dimension
 * copies nothing).
 */
static void
port_push(HsExec *self, TupleTableSlot *row, int sign)
{
	JoinPort   *p = (JoinPort *) self;
	HashJoinExec *j = p->join;
	JoinSide   *me = &j->side[p->side];
	PendingRow *r;
	MemoryContext old;
	bool		has_key;

	if (j->side[1 - p->side].npending > 0)
		join_chunk(j, 1 - p->side);
	resetStringInfo(&me->key_buf);
	has_key = encode_join_key(me, row, &me->key_buf);

	/*
	 * Nothing pending, and the other side's rows under the key are cached
	 * (or the key is NULL): joined at once, without a copy.
	 */
	if (me->npending == 0)
	{
		CacheEntry *e = has_key ? cache_lookup(&j->side[1 - p->side], &me->key_buf) : NULL;

		if (!has_key || e != NULL)
		{
			join_push(j, p->side, row, sign, has_key ? &me->key_buf : NULL, e);
			return;
		}
	}

	r = &me->pending[me->npending++];
	r->sign = sign;
	r->matches = NULL;
	old = MemoryContextSwitchTo(me->chunk_cxt);
	r->mt = ExecCopySlotMinimalTuple(row);
	if (has_key)
	{
		r->jkey = palloc(me->key_buf.len + 1);
		memcpy(r->jkey, me->key_buf.data, me->key_buf.len);
		r->jkey_len = me->key_buf.len;
	}
	else
	{
		r->jkey = NULL;
		r->jkey_len = 0;
	}
	MemoryContextSwitchTo(old);
	me->pending_bytes += r->mt->t_len + r->jkey_len + sizeof(PendingRow);
	if (me->npending == JOIN_CHUNK_ROWS || me->pending_bytes >= JOIN_CHUNK_BYTES)
		join_chunk(j, p->side);
}

static void
port_flush(HsExec *self)
{
	JoinPort   *p = (JoinPort *) self;
	HashJoinExec *j = p->join;

	join_chunk(j, p->side);
	if (++j->nflushed < 2)
		return;
	join_chunk(j, 1 - p->side);
	j->nflushed = 0;
	HsExecFlush(j->exec.downstream);
	for (int s = 0; s < 2; s++)
		if (j->side[s].cache_bytes > (Size) hs_join_cache_kb * 1024)
			cache_create(&j->side[s]);
}

static void
port_reset(HsExec *self)
{
	HashJoinExec *j = ((JoinPort *) self)->join;

	j->nflushed = 0;
	for (int s = 0; s < 2; s++)
	{
		discard_chunk(&j->side[s]);
		cache_create(&j->side[s]);
	}
}

static void
join_push_direct(HsExec *self, TupleTableSlot *row, int sign)
{
	elog(ERROR, "a streaming join is pushed to through its ports");
}

static void
join_flush_direct(HsExec *self)
{
	elog(ERROR, "a streaming join is flushed through its ports");
}

static const HsExecMethods hash_join_methods = {
	.name = "HashJoin",
	.push = join_push_direct,
	.flush = join_flush_direct,
	.reset = port_reset,
	.out_ops = &TTSOpsVirtual,
	.row_context = "hummock_stream join row",
};

static const HsExecMethods join_port_methods[2] = {
	[LEFT] = {
		.name = "HashJoin (left)",
		.push = port_push,
		.flush = port_flush,
		.reset = port_reset,
	},
	[RIGHT] = {
		.name = "HashJoin (right)",
		.push = port_push,
		.flush = port_flush,
		.reset = port_reset,
	},
};

static void
init_side(HashJoinExec *j, int s, TupleDesc desc, List *keys, const int *ukey,
		  int nukey, const bool *null_safe, bool preserved, HsStateTable *state)
{
	JoinSide   *side = &j->side[s];
	ListCell   *lc;
	int			i = 0;

	side->desc = desc;
	side->natts = desc->natts;
	side->nkeys = list_length(keys);
	side->key_types = palloc(sizeof(Oid) * Max(side->nkeys, 1));
	side->key_null_safe = palloc0(sizeof(bool) * Max(side->nkeys, 1));
	foreach(lc, keys)
	{
		Expr	   *e = lfirst(lc);

		side->key_null_safe[i] = null_safe != NULL && null_safe[i];
		side->key_types[i++] = exprType((Node *) e);
		side->key_states = lappend(side->key_states, ExecInitExpr(e, NULL));
	}
	side->ukey = ukey;
	side->nukey = nukey;
	/*
	 * Join key = unique key (each key a plain column of the unique key, in
	 * its order and type, as in a join on a primary key): a key has at
	 * most one row, whose state key is the join key twice, so a probe
	 * that misses the cache is a point get (bloom filters answer for an
	 * absent key) instead of a prefix scan over every SST of the side.
	 */
	side->key_is_ukey = ukey != NULL && nukey == side->nkeys && nukey > 0;
	i = 0;
	foreach(lc, keys)
	{
		Expr	   *e = lfirst(lc);

		if (!side->key_is_ukey)
			break;
		if (!IsA(e, Var) || ((Var *) e)->varattno != ukey[i] + 1 ||
			exprType((Node *) e) != TupleDescAttr(desc, ukey[i])->atttypid)
			side->key_is_ukey = false;
		i++;
	}
	side->preserved = preserved;
	side->state = state;
	side->econtext = CreateStandaloneExprContext();
	side->cache_cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream join cache",
											ALLOCSET_DEFAULT_SIZES);
	cache_create(side);
	side->pending = palloc(sizeof(PendingRow) * JOIN_CHUNK_ROWS);
	side->chunk_cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream join chunk",
											ALLOCSET_DEFAULT_SIZES);
	side->chunk_slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	initStringInfo(&side->key_buf);
	HsExecInit(&side->port.exec, &join_port_methods[s], j->exec.out_desc);
	side->port.join = j;
	HsExecCountInto(&side->port.exec, &j->exec);
	side->port.side = s;
}

HsExec *
HsExecHashJoinCreate(HsJoinKind kind,
					 TupleDesc left_desc, List *left_keys, const int *left_ukey, int left_nukey,
					 TupleDesc right_desc, List *right_keys, const int *right_ukey, int right_nukey,
					 List *filter, const bool *null_safe_keys,
					 HsStateTable *left_state, HsStateTable *right_state,
					 HsExec **left_port, HsExec **right_port)
{
	HashJoinExec *j;
	int			nl = left_desc->natts;
	int			nr = right_desc->natts;
	TupleDesc	combined = CreateTemplateTupleDesc(nl + nr);
	TupleDesc	out;
	bool		semi = kind == HS_JOIN_SEMI || kind == HS_JOIN_ANTI;

	for (int i = 0; i < nl; i++)
		TupleDescCopyEntry(combined, i + 1, left_desc, i + 1);
	for (int i = 0; i < nr; i++)
		TupleDescCopyEntry(combined, nl + i + 1, right_desc, i + 1);
	/* outer joins make either side's columns nullable */
	for (int i = 0; i < nl + nr; i++)
		TupleDescAttr(combined, i)->attnotnull = false;
	if (semi)
		out = CreateTupleDescCopy(left_desc);
	else if (kind == HS_JOIN_FULL)
	{
		/* and whether the row has a left row */
		out = CreateTemplateTupleDesc(nl + nr + 1);
		for (int i = 0; i < nl + nr; i++)
			TupleDescCopyEntry(out, i + 1, combined, i + 1);
		TupleDescInitEntry(out, nl + nr + 1, "has_left_row", BOOLOID, -1, 0);
	}
	else
		out = combined;

	j = HsExecCreate(sizeof(HashJoinExec), &hash_join_methods, out);
	j->kind = kind;
	j->filter = filter ? ExecInitQual(filter, NULL) : NULL;
	j->filter_econtext = CreateStandaloneExprContext();
	j->combined = MakeSingleTupleTableSlot(combined, &TTSOpsVirtual);
	init_side(j, LEFT, left_desc, left_keys, left_ukey, left_nukey, null_safe_keys,
			  kind != HS_JOIN_INNER, left_state);
	init_side(j, RIGHT, right_desc, right_keys, right_ukey, right_nukey, null_safe_keys,
			  kind == HS_JOIN_FULL, right_state);
	*left_port = &j->side[LEFT].port.exec;
	*right_port = &j->side[RIGHT].port.exec;
	return &j->exec;
}
