/*-------------------------------------------------------------------------
 *
 * top_n_cache.c
 *	  The streaming Top-N's cache: per group, the first rows of its rows
 *	  state table and what its shown table holds, so that a flush takes a
 *	  group's new top from memory instead of a prefix scan.
 *
 * A prefix scan merges the memtable with every piece of the table the
 * shared buffer holds; a backfill leaves one piece per epoch unsynced, so
 * scanning every touched group at every flush grew with the square of the
 * epochs (10M rows: 12x the time of 2M).  With the cache, a flush reads a
 * group from the state tables only when its cached prefix became unknown.
 *
 * Invariant of a valid prefix: rows[0..nrows) are exactly the group's
 * first rows in key order, with their copies.  A row written below the
 * last cached key (or anywhere, when the prefix is the whole group) goes
 * in; one written above is not cached (it cannot be in a top the prefix
 * covers).  A prefix holding more than keep copies drops its last rows
 * (it is then no longer complete).  When a row of the prefix loses copies
 * and the prefix no longer covers need copies without being complete, it
 * becomes invalid: the next flush refills it with a scan, up to keep
 * copies.  keep is twice need, so deletes at the top rescan only after
 * need copies went.
 *
 * The cache is emptied when a flush leaves it with more groups than
 * hummock_stream.agg_cache_groups or 64 MB (every group reloads then).
 *
 * src/stream/executor/top_n_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "top_n_internal.h"

void
TopNCacheInit(TopNCache *c, int64 need, MemoryContext parent)
{
	c->need = need;
	c->keep = need * 2;
	c->cxt = AllocSetContextCreate(parent, "hummock_stream top-n cache",
								   ALLOCSET_DEFAULT_SIZES);
	c->groups = NULL;
}

void
TopNCacheReset(TopNCache *c)
{
	MemoryContextReset(c->cxt);
	c->groups = NULL;
}

TopNCacheGroup *
TopNCacheGroupOf(TopNCache *c, const char *prefix, int len)
{
	HsBytesKey	k;
	TopNCacheGroup *g;
	bool		found;

	if (c->groups == NULL)
		c->groups = HsBytesKeyHashCreate("hummock_stream top-n cache groups",
										 sizeof(TopNCacheGroup), 64, c->cxt);
	k.data = (char *) prefix;
	k.len = len;
	g = hash_search(c->groups, &k, HASH_ENTER, &found);
	if (!found)
	{
		g->group.data = MemoryContextAlloc(c->cxt, Max(len, 1));
		memcpy(g->group.data, prefix, len);
		g->group.len = len;
		g->rows_valid = false;
		g->complete = false;
		g->rows = NULL;
		g->nrows = 0;
		g->rows_cap = 0;
		g->copies = 0;
		g->shown_valid = false;
		g->shown = NULL;
		g->nshown = 0;
	}
	return g;
}

/* memcmp order of two keys (a prefix sorts first). */
static int
key_cmp(const char *a, int alen, const char *b, int blen)
{
	int			cmp = memcmp(a, b, Min(alen, blen));

	if (cmp != 0)
		return cmp;
	return (alen > blen) - (alen < blen);
}

/* The position of key in g's rows, or where it would go (*found: it is there). */
static int
find_row(TopNCacheGroup *g, const char *key, int keylen, bool *found)
{
	int			lo = 0;
	int			hi = g->nrows;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		int			cmp = key_cmp(g->rows[mid].key, g->rows[mid].keylen, key, keylen);

		if (cmp == 0)
		{
			*found = true;
			return mid;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static void
free_row(TopNCachedRow *r)
{
	pfree(r->key);
	pfree(r->tuple);
}

/* Forget g's prefix. */
static void
invalidate_rows(TopNCacheGroup *g)
{
	for (int i = 0; i < g->nrows; i++)
		free_row(&g->rows[i]);
	g->nrows = 0;
	g->copies = 0;
	g->rows_valid = false;
	g->complete = false;
}

/* Put a copy of the row at position pos of g's rows. */
static void
insert_row(TopNCache *c, TopNCacheGroup *g, int pos, const char *key, int keylen,
		   int64 count, const char *tuple, int tuplen)
{
	MemoryContext old = MemoryContextSwitchTo(c->cxt);
	TopNCachedRow *r;

	if (g->nrows == g->rows_cap)
	{
		g->rows_cap = g->rows_cap ? g->rows_cap * 2 : 8;
		g->rows = g->rows ? repalloc(g->rows, sizeof(TopNCachedRow) * g->rows_cap) :
			palloc(sizeof(TopNCachedRow) * g->rows_cap);
	}
	memmove(&g->rows[pos + 1], &g->rows[pos], sizeof(TopNCachedRow) * (g->nrows - pos));
	r = &g->rows[pos];
	r->key = palloc(keylen);
	memcpy(r->key, key, keylen);
	r->keylen = keylen;
	r->count = count;
	r->tuple = palloc(tuplen);
	memcpy(r->tuple, tuple, tuplen);
	g->nrows++;
	g->copies += count;
	MemoryContextSwitchTo(old);
}

/* Drop the last rows while the others still keep more than keep copies. */
static void
trim_rows(TopNCache *c, TopNCacheGroup *g)
{
	while (g->nrows > 0 && g->copies - g->rows[g->nrows - 1].count >= c->keep)
	{
		TopNCachedRow *last = &g->rows[--g->nrows];

		g->copies -= last->count;
		free_row(last);
		g->complete = false;
	}
}

void
TopNCacheApply(TopNCache *c, TopNCacheGroup *g, const char *key, int keylen,
			   int64 before, int64 after, MinimalTuple tuple)
{
	bool		found;
	int			pos;

	if (!g->rows_valid)
		return;
	pos = find_row(g, key, keylen, &found);
	if (found)
	{
		TopNCachedRow *r = &g->rows[pos];

		if (r->count != before)
		{
			/* never expected: the cache and the state disagree */
			invalidate_rows(g);
			return;
		}
		g->copies += after - before;
		if (after == 0)
		{
			free_row(r);
			memmove(r, r + 1, sizeof(TopNCachedRow) * (g->nrows - pos - 1));
			g->nrows--;
		}
		else
			r->count = after;
	}
	else if (before > 0)
	{
		/* a row above the prefix (a complete prefix has them all) */
		if (g->complete || pos < g->nrows)
			invalidate_rows(g);
		return;
	}
	else if (after > 0 && (g->complete || pos < g->nrows))
		insert_row(c, g, pos, key, keylen, after, (const char *) tuple, tuple->t_len);
	else
		return;					/* a new row above the prefix */

	if (!g->complete && g->copies < c->need)
		invalidate_rows(g);		/* the top may reach past the prefix now */
	else
		trim_rows(c, g);
}

void
TopNCacheFillBegin(TopNCacheGroup *g)
{
	invalidate_rows(g);
}

bool
TopNCacheFillAdd(TopNCache *c, TopNCacheGroup *g, const char *key, int keylen,
				 int64 count, const char *tuple, int tuplen)
{
	insert_row(c, g, g->nrows, key, keylen, count, tuple, tuplen);
	return g->copies < c->keep;
}

void
TopNCacheFillEnd(TopNCacheGroup *g, bool complete)
{
	g->rows_valid = true;
	g->complete = complete;
}

void
TopNCacheSetShown(TopNCache *c, TopNCacheGroup *g, TopNShownRow *shown, int n)
{
	MemoryContext old = MemoryContextSwitchTo(c->cxt);

	for (int i = 0; i < g->nshown; i++)
	{
		pfree(g->shown[i].key);
		pfree(g->shown[i].out);
	}
	if (g->shown)
		pfree(g->shown);
	g->shown = palloc(sizeof(TopNShownRow) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		g->shown[i].key = palloc(shown[i].keylen);
		memcpy(g->shown[i].key, shown[i].key, shown[i].keylen);
		g->shown[i].keylen = shown[i].keylen;
		g->shown[i].out = palloc(shown[i].out->t_len);
		memcpy(g->shown[i].out, shown[i].out, shown[i].out->t_len);
	}
	g->nshown = n;
	g->shown_valid = true;
	MemoryContextSwitchTo(old);
}

void
TopNCacheBound(TopNCache *c, long max_groups, Size max_bytes)
{
	if (c->groups != NULL &&
		(hash_get_num_entries(c->groups) > max_groups ||
		 MemoryContextMemAllocated(c->cxt, true) > max_bytes))
		TopNCacheReset(c);
}
