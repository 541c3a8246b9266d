/*-------------------------------------------------------------------------
 *
 * top_n_internal.h
 *	  The in-memory cache of the streaming Top-N (top_n_cache.c), used by
 *	  the executor (exec_top_n.c).
 *
 * src/stream/executor/top_n_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_EXECUTOR_TOP_N_INTERNAL_H
#define HS_STREAM_EXECUTOR_TOP_N_INTERNAL_H

#include "access/htup_details.h"

#include "hummock_stream/stream/bytes_key_hash.h"

/* A row of a group's cached prefix of the rows table. */
typedef struct TopNCachedRow
{
	char	   *key;			/* its key in rows */
	int			keylen;
	int64		count;			/* copies */
	MinimalTuple tuple;			/* the row (a stored row) */
} TopNCachedRow;

/* A row a group shows now: its key in shown and its output row. */
typedef struct TopNShownRow
{
	char	   *key;
	int			keylen;
	MinimalTuple out;
} TopNShownRow;

typedef struct TopNCacheGroup
{
	HsBytesKey	group;			/* hash key (the group's prefix): must be first */

	/*
	 * rows_valid: rows[0..nrows) are the group's first rows in key order,
	 * exactly as the rows table holds them, with copies counted; complete:
	 * they are all of the group's rows.
	 */
	bool		rows_valid;
	bool		complete;
	TopNCachedRow *rows;
	int			nrows;
	int			rows_cap;
	int64		copies;

	/* shown_valid: shown[0..nshown) is what the shown table holds */
	bool		shown_valid;
	TopNShownRow *shown;
	int			nshown;
} TopNCacheGroup;

typedef struct TopNCache
{
	int64		need;			/* copies a top needs (offset + limit) */
	int64		keep;			/* copies a group keeps at most (beyond need) */
	MemoryContext cxt;			/* the groups and everything they hold */
	HTAB	   *groups;
} TopNCache;

/* Groups may cache at most this many copies for a top (else: no cache). */
#define TOP_N_CACHE_MAX_NEED 1024

extern void TopNCacheInit(TopNCache *c, int64 need, MemoryContext parent);
extern void TopNCacheReset(TopNCache *c);

/* The group of prefix (made, with nothing valid, if new). */
extern TopNCacheGroup *TopNCacheGroupOf(TopNCache *c, const char *prefix, int len);

/*
 * A row of the group went from before to after copies (its key in rows;
 * tuple: the row, copied if it is cached).  Keeps the cached prefix exact,
 * or marks it invalid when it may no longer hold the group's top.
 */
extern void TopNCacheApply(TopNCache *c, TopNCacheGroup *g, const char *key, int keylen,
						   int64 before, int64 after, MinimalTuple tuple);

/* Start refilling g's prefix (from a scan of the rows table in key order). */
extern void TopNCacheFillBegin(TopNCacheGroup *g);

/* Add the next scanned row; false once the group keeps enough copies. */
extern bool TopNCacheFillAdd(TopNCache *c, TopNCacheGroup *g, const char *key, int keylen,
							 int64 count, const char *tuple, int tuplen);

/* The scan ended: complete if it ran out of rows (not stopped by FillAdd). */
extern void TopNCacheFillEnd(TopNCacheGroup *g, bool complete);

/* What g shows now becomes shown[0..n) (copied). */
extern void TopNCacheSetShown(TopNCache *c, TopNCacheGroup *g, TopNShownRow *shown, int n);

/* After a flush: empty the cache if it holds too much. */
extern void TopNCacheBound(TopNCache *c, long max_groups, Size max_bytes);

#endif							/* HS_STREAM_EXECUTOR_TOP_N_INTERNAL_H */
