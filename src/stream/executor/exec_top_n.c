/*-------------------------------------------------------------------------
 *
 * exec_top_n.c
 *	  Streaming Top-N: the first rows of each group in a sort order
 *	  (ORDER BY ... LIMIT n [OFFSET m], FETCH FIRST n ROWS WITH TIES, and
 *	  row_number() OVER (PARTITION BY ... ORDER BY ...) <= n).
 *
 * Two state tables:
 *
 *	rows	every input row: key = memcmp(group columns) | memcmp(sort
 *			columns, inverted for DESC; text under a linguistic collation
 *			by its collated sort key) | identity, value = a counted row
 *			(copies of the row, then the row; stored_row.c).  The identity
 *			is memcmp(unique key columns) when the input has a unique key,
 *			else the row's canonical bytes (as in exec_hash_join.c).
 *	shown	the rows emitted now: key = the row's key in rows | BE64(copy
 *			number), value = the output row as a stored row.
 *
 * Pushes only update rows and remember the touched groups.  At flush each
 * touched group's new top is read from rows (a prefix scan that stops
 * after offset + limit copies, or after the last tie) and merged with what
 * shown holds for the group (both are in key order): rows that left are
 * deleted, rows that came are inserted, and with a row number column,
 * rows whose number changed are updated.  Deletes are emitted before
 * inserts (of all touched groups: a row can move from one group to
 * another), so a downstream keyed by a unique key never sees a key twice.
 *
 * A cache (top_n_cache.c) keeps each group's first rows and what it
 * shows, so a flush reads a group from the state tables only when its
 * cached prefix no longer covers the top (and WITH TIES, or a top of more
 * than TOP_N_CACHE_MAX_NEED copies, always scans).
 *
 * Ties: with LIMIT alone, rows that tie on the sort key are taken in key
 * order (that is, by their identity), which is deterministic but may pick
 * other rows than a Postgres query would; WITH TIES is exact.
 *
 * src/stream/executor/exec_top_n.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "port/pg_bswap.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/stream/bytes_key_hash.h"
#include "hummock_stream/stream/executor.h"

#include "top_n_internal.h"

typedef struct TopNExec
{
	HsExec		exec;			/* exec.out: a minimal-tuple slot */
	TupleDesc	in_desc;
	int			natts;
	int		   *group_cols;
	int			ngroup;
	int		   *sort_cols;
	bool	   *sort_desc;
	bool	   *sort_nulls_first;
	Oid		   *sort_colls;		/* per sort column: a collation whose
								 * order is not the byte order, else 0 */
	bool	   *sort_own;		/* per sort column: its type's own order */
	int			nsort;
	int		   *ukey;			/* NULL: rows identified by their bytes */
	int			nukey;
	int64		limit;
	int64		offset;
	bool		with_ties;
	bool		row_number;		/* output column: position in the group */
	HsStateTable *rows;
	HsStateTable *shown;
	List	   *touched;		/* StringInfo group prefixes (group_cxt) */
	HTAB	   *touched_set;	/* the same, to find one (group_cxt) */
	MemoryContext group_cxt;	/* reset after each flush */
	/* exec.row_cxt: reset per push and per flush */
	bool		use_cache;
	TopNCache	cache;
} TopNExec;

/* Bytes the cache may hold before it is emptied after a flush. */
#define TOP_N_CACHE_MAX_BYTES ((Size) 64 * 1024 * 1024)

/* An entry of the new top of a group, or of what is shown. */
typedef struct TopEntry
{
	StringInfoData key;			/* key in shown */
	Datum	   *values;
	bool	   *isnull;
	MinimalTuple out;			/* output row */
} TopEntry;

/* A touched group's prefix, as the key of touched_set. */
typedef HsBytesKey TouchedKey;

static void
encode_cols(TopNExec *t, StringInfo buf, Datum *values, bool *isnull,
			const int *cols, const bool *desc, const bool *nulls_first,
			const Oid *colls, const bool *own, int n)
{
	for (int i = 0; i < n; i++)
	{
		int			c = cols[i];
		bool		d = desc ? desc[i] : false;
		Oid			typid = TupleDescAttr(t->in_desc, c)->atttypid;

		if (own && own[i])
			HsMemcmpEncodeOwnSortKey(buf, values[c], isnull[c], typid, d, nulls_first[i]);
		else if (colls && OidIsValid(colls[i]))
			HsMemcmpEncodeCollatedSortKey(buf, values[c], isnull[c], typid, colls[i],
										  d, nulls_first[i]);
		else
			HsMemcmpEncodeSortKey(buf, values[c], isnull[c], typid,
								  d, nulls_first ? nulls_first[i] : d);
	}
}

static void
top_n_push(HsExec *self, TupleTableSlot *row, int sign)
{
	TopNExec   *t = (TopNExec *) self;
	MemoryContext old;
	StringInfoData group;
	StringInfoData key;
	StringInfoData cur;
	MinimalTuple mt;
	int64		count = 0;
	bool		found;
	bool		seen = false;
	char	   *val;
	int			vlen;

	MemoryContextReset(t->exec.row_cxt);
	old = MemoryContextSwitchTo(t->exec.row_cxt);
	slot_getallattrs(row);
	initStringInfo(&group);
	encode_cols(t, &group, row->tts_values, row->tts_isnull, t->group_cols, NULL, NULL, NULL, NULL, t->ngroup);
	initStringInfo(&key);
	appendBinaryStringInfo(&key, group.data, group.len);
	encode_cols(t, &key, row->tts_values, row->tts_isnull, t->sort_cols, t->sort_desc,
				t->sort_nulls_first, t->sort_colls, t->sort_own, t->nsort);
	mt = HsCanonicalTuple(t->in_desc, row->tts_values, row->tts_isnull);
	initStringInfo(&cur);
	if (t->ukey)
	{
		encode_cols(t, &key, row->tts_values, row->tts_isnull, t->ukey, NULL, NULL, NULL, NULL, t->nukey);
		found = sign < 0;
		count = found ? 1 : 0;
	}
	else
	{
		appendBinaryStringInfo(&key, (char *) mt, mt->t_len);
		found = HsStateTableGet(t->rows, key.data, key.len, &cur);
		if (found)
			count = HsCountedRowCount(cur.data);
	}
	count += sign;
	if (count < 0)
		elog(ERROR, "streaming Top-N: a row was deleted that was never inserted");
	if (t->use_cache)
		TopNCacheApply(&t->cache, TopNCacheGroupOf(&t->cache, group.data, group.len),
					   key.data, key.len, count - sign, count, mt);
	if (count == 0)
		HsStateTableDelete(t->rows, key.data, key.len, cur.data, cur.len);
	else
	{
		val = HsCountedRowForm(count, mt, &vlen);
		HsStateTablePut(t->rows, key.data, key.len, found ? cur.data : NULL, cur.len,
						val, vlen);
	}

	{
		TouchedKey	k = {group.data, group.len};
		TouchedKey *e;

		if (t->touched_set == NULL)
			t->touched_set = HsBytesKeyHashCreate("hummock_stream top-n touched groups",
												  sizeof(TouchedKey), 64, t->group_cxt);
		e = hash_search(t->touched_set, &k, HASH_ENTER, &seen);
		if (!seen)
		{
			StringInfo	g;

			MemoryContextSwitchTo(t->group_cxt);
			g = makeStringInfo();
			appendBinaryStringInfo(g, group.data, group.len);
			e->data = g->data;
			e->len = g->len;
			t->touched = lappend(t->touched, g);
		}
	}
	MemoryContextSwitchTo(old);
}

typedef struct CollectTop
{
	TopNExec   *t;
	int			prefix_len;
	int64		taken;			/* copies seen, offset included */
	StringInfoData last_sort;	/* sort key bytes of the last taken copy */
	List	   *entries;
} CollectTop;

/* Take the copies of one row of the group (in key order); false when done. */
static bool
take_row(CollectTop *c, const char *key, int keylen, int64 count,
		 const char *tuple, int tuplen)
{
	TopNExec   *t = c->t;
	StringInfoData sort;
	Datum	   *values = palloc(sizeof(Datum) * t->natts);
	bool	   *isnull = palloc(sizeof(bool) * t->natts);

	(void) HsStoredRowCopyDeform(t->in_desc, tuple, tuplen, values, isnull);
	initStringInfo(&sort);
	encode_cols(t, &sort, values, isnull, t->sort_cols, t->sort_desc, t->sort_nulls_first,
				t->sort_colls, t->sort_own, t->nsort);

	for (int64 copy = 0; copy < count; copy++)
	{
		TopEntry   *e;
		uint64		be = pg_hton64((uint64) copy);

		if (c->taken >= t->offset + t->limit)
		{
			/* past the limit: only ties of the last taken row go on */
			if (!t->with_ties || t->limit == 0 ||
				sort.len != c->last_sort.len ||
				memcmp(sort.data, c->last_sort.data, sort.len) != 0)
				return false;
		}
		c->taken++;
		if (c->taken <= t->offset)
			continue;
		resetStringInfo(&c->last_sort);
		appendBinaryStringInfo(&c->last_sort, sort.data, sort.len);
		e = palloc0(sizeof(TopEntry));
		initStringInfo(&e->key);
		appendBinaryStringInfo(&e->key, key, keylen);
		appendBinaryStringInfo(&e->key, (char *) &be, sizeof(be));
		e->values = values;
		e->isnull = isnull;
		c->entries = lappend(c->entries, e);
	}
	return true;
}

static bool
collect_top(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	return take_row(arg, key, keylen, HsCountedRowCount(value),
					HsCountedRowTuple(value), HsCountedRowTupleLen(vlen));
}

/* Refill a group's cached prefix from a scan of rows. */
typedef struct FillCache
{
	TopNExec   *t;
	TopNCacheGroup *g;
	bool		stopped;
} FillCache;

static bool
fill_cache(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	FillCache  *f = arg;

	f->stopped = !TopNCacheFillAdd(&f->t->cache, f->g, key, keylen, HsCountedRowCount(value),
								   HsCountedRowTuple(value), HsCountedRowTupleLen(vlen));
	return !f->stopped;
}

static bool
collect_shown(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	List	  **entries = arg;
	TopEntry   *e = palloc0(sizeof(TopEntry));

	initStringInfo(&e->key);
	appendBinaryStringInfo(&e->key, key, keylen);
	e->out = HsStoredRowCopy(value, vlen);
	*entries = lappend(*entries, e);
	return true;
}

static void
emit_tuple(TopNExec *t, MinimalTuple mt, int sign)
{
	ExecStoreMinimalTuple(mt, t->exec.out, false);
	HsExecEmit(&t->exec, t->exec.out, sign);
	ExecClearTuple(t->exec.out);
}

/*
 * Recompute one group's top: emit the deletes of the difference to what
 * is shown now, and append the inserts to *inserts (emitted once every
 * group's deletes are: a row keyed by a unique key can move from one
 * group to another).
 */
static void
refresh_group(TopNExec *t, StringInfo group, List **inserts)
{
	CollectTop	c;
	List	   *shown = NIL;
	ListCell   *lc;
	int64		rank = 0;
	int			nout = t->exec.out_desc->natts;
	Datum	   *ov = palloc(sizeof(Datum) * nout);
	bool	   *on = palloc(sizeof(bool) * nout);
	ListCell   *ln;
	ListCell   *ls;

	TopNCacheGroup *g = NULL;

	memset(&c, 0, sizeof(c));
	c.t = t;
	c.prefix_len = group->len;
	initStringInfo(&c.last_sort);
	if (t->use_cache)
	{
		g = TopNCacheGroupOf(&t->cache, group->data, group->len);
		if (!g->rows_valid)
		{
			FillCache	f = {t, g, false};

			TopNCacheFillBegin(g);
			HsStateTableScanPrefix(t->rows, group->data, group->len, fill_cache, &f);
			TopNCacheFillEnd(g, !f.stopped);
		}
		for (int i = 0; i < g->nrows; i++)
		{
			TopNCachedRow *r = &g->rows[i];

			if (!take_row(&c, r->key, r->keylen, r->count, (const char *) r->tuple,
						  r->tuple->t_len))
				break;
		}
	}
	else if (t->limit > 0 || t->with_ties)
		HsStateTableScanPrefix(t->rows, group->data, group->len, collect_top, &c);
	if (g != NULL && g->shown_valid)
	{
		for (int i = 0; i < g->nshown; i++)
		{
			TopEntry   *e = palloc0(sizeof(TopEntry));

			initStringInfo(&e->key);
			appendBinaryStringInfo(&e->key, g->shown[i].key, g->shown[i].keylen);
			e->out = g->shown[i].out;	/* read only, until SetShown below */
			shown = lappend(shown, e);
		}
	}
	else
		HsStateTableScanPrefix(t->shown, group->data, group->len, collect_shown, &shown);

	/* output rows of the new top */
	foreach(lc, c.entries)
	{
		TopEntry   *e = lfirst(lc);

		memcpy(ov, e->values, sizeof(Datum) * t->natts);
		memcpy(on, e->isnull, sizeof(bool) * t->natts);
		if (t->row_number)
		{
			ov[t->natts] = Int64GetDatum(++rank);
			on[t->natts] = false;
		}
		e->out = HsStoredRowForm(t->exec.out_desc, ov, on);
	}

	/* merge the two key-ordered lists: deletes now, inserts after */
	ln = list_head(c.entries);
	ls = list_head(shown);
	while (ln || ls)
	{
		TopEntry   *n = ln ? lfirst(ln) : NULL;
		TopEntry   *s = ls ? lfirst(ls) : NULL;
		int			cmp;

		if (n && s)
		{
			cmp = memcmp(n->key.data, s->key.data, Min(n->key.len, s->key.len));
			if (cmp == 0)
				cmp = (n->key.len > s->key.len) - (n->key.len < s->key.len);
		}
		else
			cmp = n ? -1 : 1;
		if (cmp < 0)
		{
			*inserts = lappend(*inserts, n);
			HsStateTablePut(t->shown, n->key.data, n->key.len, NULL, 0,
							(char *) n->out, n->out->t_len);
			ln = lnext(c.entries, ln);
		}
		else if (cmp > 0)
		{
			emit_tuple(t, s->out, -1);
			HsStateTableDelete(t->shown, s->key.data, s->key.len,
							   (char *) s->out, s->out->t_len);
			ls = lnext(shown, ls);
		}
		else
		{
			if (n->out->t_len != s->out->t_len ||
				memcmp(n->out, s->out, s->out->t_len) != 0)
			{
				emit_tuple(t, s->out, -1);
				*inserts = lappend(*inserts, n);
				HsStateTablePut(t->shown, n->key.data, n->key.len,
								(char *) s->out, s->out->t_len,
								(char *) n->out, n->out->t_len);
			}
			ln = lnext(c.entries, ln);
			ls = lnext(shown, ls);
		}
	}

	if (g != NULL)
	{
		/* the group shows the new top now */
		int			n = list_length(c.entries);
		TopNShownRow *rows = palloc(sizeof(TopNShownRow) * Max(n, 1));
		int			i = 0;

		foreach(lc, c.entries)
		{
			TopEntry   *e = lfirst(lc);

			rows[i].key = e->key.data;
			rows[i].keylen = e->key.len;
			rows[i].out = e->out;
			i++;
		}
		TopNCacheSetShown(&t->cache, g, rows, n);
	}
}

static void
top_n_flush(HsExec *self)
{
	TopNExec   *t = (TopNExec *) self;
	ListCell   *lc;
	List	   *inserts = NIL;
	MemoryContext old;

	/* (group_cxt holds the touched groups and, until the end, the inserts) */
	MemoryContextReset(t->exec.row_cxt);
	old = MemoryContextSwitchTo(t->group_cxt);
	foreach(lc, t->touched)
		refresh_group(t, lfirst(lc), &inserts);
	foreach(lc, inserts)
		emit_tuple(t, ((TopEntry *) lfirst(lc))->out, +1);
	MemoryContextSwitchTo(old);
	t->touched = NIL;
	t->touched_set = NULL;
	MemoryContextReset(t->group_cxt);
	if (t->use_cache)
		TopNCacheBound(&t->cache, hs_agg_cache_groups, TOP_N_CACHE_MAX_BYTES);
	HsExecFlush(t->exec.downstream);
}

static void
top_n_reset(HsExec *self)
{
	TopNExec   *t = (TopNExec *) self;

	t->touched = NIL;
	t->touched_set = NULL;
	MemoryContextReset(t->group_cxt);
	if (t->use_cache)
		TopNCacheReset(&t->cache);
}

static int *
copy_ints(const int *a, int n)
{
	int		   *c = palloc(sizeof(int) * Max(n, 1));

	if (n > 0)
		memcpy(c, a, sizeof(int) * n);
	return c;
}

static const HsExecMethods top_n_methods = {
	.name = "TopN",
	.push = top_n_push,
	.flush = top_n_flush,
	.reset = top_n_reset,
	.out_ops = &TTSOpsMinimalTuple,
	.row_context = "hummock_stream top-n row",
};

HsExec *
HsExecTopNCreate(TupleDesc in_desc, const int *group_cols, int ngroup,
				 const int *sort_cols, const bool *sort_desc, const bool *sort_nulls_first,
				 const Oid *sort_colls, int nsort, const int *ukey, int nukey, int64 limit, int64 offset,
				 bool with_ties, bool row_number,
				 HsStateTable *rows, HsStateTable *shown)
{
	int			natts = in_desc->natts;
	TupleDesc	out = CreateTemplateTupleDesc(natts + (row_number ? 1 : 0));
	TopNExec   *t;

	for (int i = 0; i < natts; i++)
		TupleDescCopyEntry(out, i + 1, in_desc, i + 1);
	if (row_number)
		TupleDescInitEntry(out, natts + 1, "row_number", INT8OID, -1, 0);
	t = HsExecCreate(sizeof(TopNExec), &top_n_methods, out);
	t->in_desc = in_desc;
	t->natts = natts;
	t->group_cols = copy_ints(group_cols, ngroup);
	t->ngroup = ngroup;
	t->sort_cols = copy_ints(sort_cols, nsort);
	t->sort_desc = palloc(sizeof(bool) * Max(nsort, 1));
	t->sort_nulls_first = palloc(sizeof(bool) * Max(nsort, 1));
	t->sort_colls = palloc0(sizeof(Oid) * Max(nsort, 1));
	t->sort_own = palloc0(sizeof(bool) * Max(nsort, 1));
	for (int i = 0; i < nsort; i++)
	{
		Oid			typid = TupleDescAttr(in_desc, sort_cols[i])->atttypid;

		if (sort_colls && HsCollationNeedsSortKey(typid, sort_colls[i]))
			t->sort_colls[i] = sort_colls[i];
		t->sort_own[i] = HsTypeHasOwnSortKey(typid);
		t->sort_desc[i] = sort_desc[i];
		/* Postgres's default: NULLs last ascending, first descending */
		t->sort_nulls_first[i] = sort_nulls_first ? sort_nulls_first[i] : sort_desc[i];
	}
	t->nsort = nsort;
	t->ukey = ukey ? copy_ints(ukey, nukey) : NULL;
	t->nukey = nukey;
	t->limit = limit;
	t->offset = offset;
	t->with_ties = with_ties;
	t->row_number = row_number;
	t->rows = rows;
	t->shown = shown;
	t->group_cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream top-n groups",
										 ALLOCSET_DEFAULT_SIZES);
	t->use_cache = !with_ties && limit > 0 && offset + limit <= TOP_N_CACHE_MAX_NEED;
	if (t->use_cache)
		TopNCacheInit(&t->cache, offset + limit, CurrentMemoryContext);
	return &t->exec;
}
