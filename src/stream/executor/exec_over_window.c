/*-------------------------------------------------------------------------
 *
 * exec_over_window.c
 *	  Streaming window functions: rank(), lag(), sum() OVER (...), ...,
 *	  computed again by Postgres's own WindowAgg for every partition an
 *	  epoch touches.
 *
 * Every input row belongs to one partition (the memcmp encoding of its
 * PARTITION BY values; all the window functions of a query level share
 * them).  The executor keeps
 *
 *	rows	(persisted) key = partition | canonical bytes of the row
 *			(HsCanonicalTuple), value = how many input rows are that row
 *			(int64, as the count of a counted row);
 *	shown	(persisted) key = partition | canonical bytes of an output
 *			row (the input columns, then one column per function), value
 *			= how many copies of it the view was given.
 *
 * A pushed row updates its partition's rows at once and marks the
 * partition touched.  At the flush, all touched partitions are computed
 * again in one query, planned once when the executor is built:
 *
 *		SELECT ord, <input columns>, f1 OVER w1, f2 OVER w2, ...
 *		  FROM rows WINDOW w1 AS (PARTITION BY ord ORDER BY ...), ...
 *
 * over an ephemeral named relation of each touched partition's ordinal and
 * rows (each as many times as it is counted; ord stands for the original
 * PARTITION BY, which each ordinal is one value of), each function the
 * view's own WindowFunc and each window its own ORDER BY and frame, read
 * from the relation's columns.  The partition's new output rows are
 * compared with what it showed: the rows it showed and no longer shows
 * are emitted as deletes, the new ones as inserts (every partition's
 * deletes before any insert: a row may move between partitions), and
 * shown is updated.
 * A partition's rows in its ORDER BY order tie as Postgres's do: functions
 * whose result depends on the order of tied rows (row_number() over a
 * non-unique ORDER BY) may number them otherwise than a query would.
 *
 * Cost: an epoch reads and computes again every partition it touches, its
 * rows and what it showed; a window without PARTITION BY is one partition.
 *
 * Ranged (HsExecOverWindowRangedCreate): when every function reads a
 * bounded number of rows around the current one (lag/lead by a constant,
 * a ROWS frame with constant offsets: HsWindowRanges says how many before
 * and after, plan_window.c), a change computes again only the rows that
 * can read it, and the state is kept in ORDER BY order:
 *
 *	rows		key = partition | position (the sort-key encoding of the
 *				row's ORDER BY values, then its canonical bytes), value =
 *				RangedCount (its count, the encoding's length);
 *	rows_rev	the same, each position's bytes complemented: the rows in
 *				reverse order (both parts are prefix-free), walked back
 *				from a change, as no state table scan steps backward;
 *	shown		key = partition | ORDER BY encoding | canonical bytes of
 *				the output row, value = RangedCount.
 *
 * At the flush each changed position gives a range (range_of_change): the
 * rows up to `before` positions ahead of it and `after` behind it, widened
 * to whole peer groups, so the rows computed again are those whose ORDER
 * BY encodings lie in an interval [lo, hi] and what they showed is one
 * range of shown; and the rows their frames read, `after` more positions
 * before lo and `before` more past hi.  Ranges of a partition whose
 * intervals overlap merge; a partition with more than RANGED_MAX_CHANGES
 * changes gets one range from its first change to its last.  Each range
 * is one partition (ord) of the same query, whose ORDER BY ends with seq,
 * the row's position among the rows read, so tied rows keep the order
 * they have in rows whichever range reads them (the ranged functions do
 * not look at peers); only the results of rows inside the interval are
 * kept, compared with that range of shown, and the difference emitted.
 * Cost per change: two short walks, and the rows around it.
 *
 * Prefix functions (HsWindowPrefix: row_number, rank, dense_rank, running
 * count, sum, min/max over a frame from the partition's start) read every
 * row before theirs, so a change reaches every row after it: its range
 * runs to the partition's end, and the rows read start at a peer group
 * (s).  What the rows before s add is not read: the peer group just
 * before s is final (no change of the epoch lies before s), and what it
 * showed gives each function's result over the rows before s (the largest
 * row number or count, the rank plus the group's rows less one, the
 * dense rank, the running sum or extreme), which the function's result
 * over the rows read is added to (prefix_combine).  Functions whose
 * results peers share (rank, RANGE/GROUPS frames) read a copy of their
 * window without seq.  A ROWS frame's running sum over tied rows does not
 * tell which tied row was last: that range reads from the partition's
 * start.  An appended row then costs the rows of the group before it.
 *
 * RANGE frames with offsets (HsWindowValueFrame) reach rows by their
 * ORDER BY value: each walk also takes the rows whose frames' far bound
 * holds the change's value (walk_value_reaches), then the rows the frame
 * of the last computed row holds, by the window's in_range functions
 * called as nodeWindowAgg.c calls them; a row of NULL value frames only
 * its peers.
 *
 * src/stream/executor/exec_over_window.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "tcop/tcopprot.h"
#include "utils/datum.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/stream/bytes_key_hash.h"
#include "hummock_stream/stream/executor.h"

#include "rows_query.h"

/* The name of the ephemeral relation of the rows in the query. */
#define ROWS_ENR_NAME "hummock_stream_partition_rows"

typedef struct OverWindowExec
{
	HsExec		exec;			/* exec.out: virtual; exec.row_cxt: per row */
	TupleDesc	in_desc;
	int			nfuncs;
	ExprContext *econtext;
	List	   *partition_states;	/* ExprState: PARTITION BY values */
	HsStateTable *rows;
	HsStateTable *shown;
	TupleDesc	enr_desc;		/* (ord int4, input columns...) */
	PlannedStmt *plan;
	MemoryContext touched_cxt;	/* the touched partitions of the epoch */
	HTAB	   *touched;		/* TouchedPartition, by partition key */
	List	   *touched_list;	/* TouchedPartition *, in order */
	StringInfoData key;
	int			func_col;		/* the first function's column in the results */

	/* computing the rows around each change only (ranges != NULL) */
	HsWindowRanges *ranges;
	List	   *order_states;	/* ExprState: ORDER BY values */
	Oid		   *order_types;
	bool	   *order_own;	/* per ORDER BY value: its type's own order */
	HsStateTable *rows_rev;
	FmgrInfo   *prefix_fn;		/* per function: HsWindowPrefix.fn */
	FmgrInfo   *in_range_fn;	/* per function: value frames' start, end */
	TupleTableSlot *walk_slot;	/* value frames: a row walked over */
} OverWindowExec;

/* A partition the epoch touched, and (ranged) the rows it changed. */
typedef struct TouchedPartition
{
	HsBytesKey	key;			/* the partition (hash key: must be first) */
	/* ranged: */
	List	   *changes;		/* RowPosition *: changed rows, the first
								 * RANGED_MAX_CHANGES */
	int			nchanges;
	struct RowPosition *first;	/* the smallest and largest changed */
	struct RowPosition *last;
} TouchedPartition;

/*
 * Ranged: a partition with more changes in an epoch than this (a
 * backfill, a bulk load) is computed again from its first change to its
 * last, rather than around each change at two seeks a change.
 */
#define RANGED_MAX_CHANGES 64

/*
 * Ranged: a row's position key, its ORDER BY values' sort-key encoding
 * then its canonical bytes (HsCanonicalTuple): rows in ORDER BY order,
 * ties in the order of their bytes.  Both parts are prefix-free, so the
 * bitwise complement of position keys orders them in reverse (rows_rev).
 */
typedef struct RowPosition
{
	char	   *data;
	int			len;
	int			oklen;			/* of the ORDER BY encoding at its start */
} RowPosition;

/*
 * Ranged: the value of every entry of rows, rows_rev and shown (whose key
 * is the partition, then the ORDER BY encoding, then the row's bytes).
 */
typedef struct RangedCount
{
	int64		count;
	int32		oklen;
} RangedCount;

/* A range of a partition computed again. */
typedef struct WindowRange
{
	TouchedPartition *tp;
	/* the rows computed again: ORDER BY encoding in [lo, hi] */
	StringInfoData lo;
	bool		lo_inf;			/* from the partition's start */
	StringInfoData hi;
	bool		hi_inf;			/* to its end */
	/* the rows read: position keys from s (a lower bound) to e (inclusive) */
	StringInfoData s;			/* empty: from the start */
	StringInfoData e;
	bool		e_inf;
	HTAB	   *fresh;			/* ORDER BY encoding | output row -> count */
	HTAB	   *shown;
	/* prefix functions: s starts a peer group (s_ok), and their results
	 * over the rows before s, added to theirs over the rows read */
	StringInfoData s_ok;
	bool		has_offset;
	Datum	   *offset;			/* per function */
	bool	   *offset_null;
} WindowRange;

/* ---------------------------------------------------------------------
 * The query
 * ---------------------------------------------------------------------
 */

/*
 * Plan SELECT ord, <input columns>, funcs... FROM rows WINDOW ... : funcs
 * are WindowFuncs and windows WindowClauses over the relation's columns
 * (Var varno 1, attno 2.. for the input columns; attno 1 is ord), their
 * ORDER BY given as sort expressions (orders: a List per window of
 * SortGroupClause copies whose tleSortGroupRef index order_exprs).
 * Ranged, the relation's last column is seq, the row's position among
 * the rows read (a result column before the functions), which every
 * window's ORDER BY ends with: tied rows are then ordered as they lie in
 * rows, the same way whichever of them a run reads.  Functions whose
 * results peers share (rank(), a RANGE frame) read a copy of the window
 * without it.
 */
static PlannedStmt *
plan_windows(OverWindowExec *w, List *funcs, List *windows, List *order_exprs)
{
	Query	   *q = HsRowsQuery(ROWS_ENR_NAME, w->enr_desc);
	List	   *tlist = NIL;
	ListCell   *lc;
	SortGroupClause *by_ord;
	int			resno = 0;
	Index		ord_ref = list_length(order_exprs) + 1;
	Index		seq_ref = ord_ref + 1;
	int			npeer_copies = 0;

	q->hasWindowFuncs = true;

	/* ord and the input columns */
	for (int c = 0; c < w->enr_desc->natts; c++)
	{
		Form_pg_attribute att = TupleDescAttr(w->enr_desc, c);
		TargetEntry *tle = makeTargetEntry((Expr *) makeVar(1, c + 1, att->atttypid,
															att->atttypmod,
															att->attcollation, 0),
										   ++resno, NULL, false);

		if (c == 0)
			tle->ressortgroupref = ord_ref;
		else if (w->ranges && c == w->enr_desc->natts - 1)
			tle->ressortgroupref = seq_ref;
		tlist = lappend(tlist, tle);
	}
	/* the functions */
	foreach(lc, funcs)
		tlist = lappend(tlist, makeTargetEntry((Expr *) copyObject(lfirst(lc)), ++resno,
											   NULL, false));
	/* the ORDER BY expressions, as the windows' sort keys (refs 1..n) */
	for (int k = 0; k < list_length(order_exprs); k++)
	{
		TargetEntry *tle = makeTargetEntry((Expr *) copyObject(list_nth(order_exprs, k)),
										   ++resno, NULL, true);

		tle->ressortgroupref = k + 1;
		tlist = lappend(tlist, tle);
	}
	q->targetList = tlist;

	by_ord = HsRowsByOrdinal(ord_ref);
	foreach(lc, windows)
	{
		WindowClause *wc = copyObject(lfirst(lc));
		bool		peers = false;
		bool		ordered = false;
		ListCell   *lf;

		wc->partitionClause = list_make1(copyObject(by_ord));
		q->windowClause = lappend(q->windowClause, wc);
		if (!w->ranges)
			continue;

		/*
		 * Ranged, tied rows are ordered by seq, but for the functions whose
		 * results peers share (rank(), a RANGE frame): they read a copy of
		 * the window without it.
		 */
		foreach(lf, funcs)
		{
			if (((WindowFunc *) lfirst(lf))->winref != wc->winref)
				continue;
			if (w->ranges->shares_peers[foreach_current_index(lf)])
				peers = true;
			else
				ordered = true;
		}
		if (peers && ordered)
		{
			WindowClause *copy = copyObject(wc);

			copy->winref = list_length(windows) + ++npeer_copies;
			q->windowClause = lappend(q->windowClause, copy);
			foreach(lf, funcs)
			{
				TargetEntry *tle = list_nth(tlist, w->func_col + foreach_current_index(lf));
				WindowFunc *f = (WindowFunc *) tle->expr;

				if (f->winref == wc->winref && w->ranges->shares_peers[foreach_current_index(lf)])
					f->winref = copy->winref;
			}
		}
		if (ordered || !peers)
		{
			wc->orderClause = lappend(wc->orderClause, HsRowsByOrdinal(seq_ref));
			/*
			 * (its RANGE offsets, for the copy's functions only, would
			 * need one ORDER BY key: the others here read no frame)
			 */
			if ((wc->frameOptions & FRAMEOPTION_RANGE) &&
				(wc->frameOptions & (FRAMEOPTION_START_OFFSET | FRAMEOPTION_END_OFFSET)))
			{
				wc->frameOptions = FRAMEOPTION_DEFAULTS;
				wc->startOffset = wc->endOffset = NULL;
			}
		}
	}
	return pg_plan_query(q, "hummock_stream: recompute window functions", 0, NULL);
}

/* ---------------------------------------------------------------------
 * Rows and what was shown
 * ---------------------------------------------------------------------
 */

/* Add delta to the count of entry prefix | bytes in table. */
static void
count_apply(OverWindowExec *w, HsStateTable *table, const HsBytesKey *prefix,
			const char *bytes, int len, int64 delta)
{
	resetStringInfo(&w->key);
	appendBinaryStringInfo(&w->key, prefix->data, prefix->len);
	appendBinaryStringInfo(&w->key, bytes, len);
	HsRowsCountAdd(table, w->key.data, w->key.len, delta, "window");
}

/* A palloc'd copy of len bytes (which may hold zeros). */
static char *
bytes_copy(const char *data, int len)
{
	char	   *copy = palloc(len + 1);

	memcpy(copy, data, len);
	copy[len] = '\0';
	return copy;
}

/* memcmp order, a prefix first. */
static int
bytes_cmp(const char *a, int alen, const char *b, int blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c;
	return (alen > blen) - (alen < blen);
}

/* Ranged: the value of an entry of rows, rows_rev or shown. */
static RangedCount
ranged_value(const char *value)
{
	RangedCount v;

	memcpy(&v, value, sizeof(v));
	return v;
}

/*
 * Ranged: add delta to the count of entry prefix | suffix in table (the
 * complement of suffix, complemented), whose ORDER BY encoding is oklen
 * bytes.
 */
static void
ranged_count_apply(OverWindowExec *w, HsStateTable *table, const HsBytesKey *prefix,
				   const char *suffix, int len, int oklen, int64 delta, bool complemented)
{
	StringInfoData old;
	RangedCount now = {0, oklen};

	resetStringInfo(&w->key);
	appendBinaryStringInfo(&w->key, prefix->data, prefix->len);
	appendBinaryStringInfo(&w->key, suffix, len);
	if (complemented)
		for (int i = prefix->len; i < w->key.len; i++)
			w->key.data[i] = (char) ~w->key.data[i];
	initStringInfo(&old);
	if (HsStateTableGet(table, w->key.data, w->key.len, &old))
		now.count = ranged_value(old.data).count;
	now.count += delta;
	if (now.count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a streaming window was asked to remove a row its partition does not hold")));
	if (now.count == 0)
		HsStateTableDelete(table, w->key.data, w->key.len, old.data, old.len);
	else
		HsStateTablePut(table, w->key.data, w->key.len, old.len > 0 ? old.data : NULL,
						old.len, (const char *) &now, (int) sizeof(now));
	pfree(old.data);
}

/* Ranged: append the sort-key encoding of the ORDER BY values of row. */
static void
encode_order(OverWindowExec *w, StringInfo buf)
{
	ListCell   *lc;

	foreach(lc, w->order_states)
	{
		int			i = foreach_current_index(lc);
		bool		isnull;
		Datum		d = ExecEvalExpr(lfirst(lc), w->econtext, &isnull);
		HsWindowRanges *r = w->ranges;

		if (w->order_own[i])
			HsMemcmpEncodeOwnSortKey(buf, d, isnull, w->order_types[i], r->desc[i],
									 r->nulls_first[i]);
		else if (OidIsValid(r->colls[i]))
			HsMemcmpEncodeCollatedSortKey(buf, d, isnull, w->order_types[i], r->colls[i],
										  r->desc[i], r->nulls_first[i]);
		else
			HsMemcmpEncodeSortKey(buf, d, isnull, w->order_types[i], r->desc[i],
								  r->nulls_first[i]);
	}
}

static void
over_window_push(HsExec *self, TupleTableSlot *row, int sign)
{
	OverWindowExec *w = (OverWindowExec *) self;
	MemoryContext old;
	StringInfoData part;
	HsBytesKey	pk;
	MinimalTuple mt;
	TouchedPartition *tp;
	bool		found;
	ListCell   *lc;

	MemoryContextReset(w->exec.row_cxt);
	old = MemoryContextSwitchTo(w->exec.row_cxt);
	slot_getallattrs(row);
	ResetExprContext(w->econtext);
	w->econtext->ecxt_scantuple = row;
	initStringInfo(&part);
	foreach(lc, w->partition_states)
	{
		ExprState  *es = lfirst(lc);
		bool		isnull;
		Datum		d = ExecEvalExpr(es, w->econtext, &isnull);

		HsMemcmpEncode(&part, d, isnull, exprType((Node *) es->expr), false);
	}
	pk.data = part.data;
	pk.len = part.len;
	mt = HsCanonicalTuple(w->in_desc, row->tts_values, row->tts_isnull);

	/* the partition is computed again at the flush (ranged: around the row) */
	tp = hash_search(w->touched, &pk, HASH_FIND, &found);
	if (!found)
	{
		MemoryContextSwitchTo(w->touched_cxt);
		pk.data = bytes_copy(pk.data, pk.len);
		tp = hash_search(w->touched, &pk, HASH_ENTER, NULL);
		tp->key = pk;
		tp->changes = NIL;
		tp->nchanges = 0;
		tp->first = tp->last = NULL;
		w->touched_list = lappend(w->touched_list, tp);
		MemoryContextSwitchTo(w->exec.row_cxt);
	}
	if (w->ranges == NULL)
		count_apply(w, w->rows, &tp->key, (const char *) mt, mt->t_len, sign);
	else
	{
		StringInfoData pos;
		RowPosition *rp;
		int			oklen;

		initStringInfo(&pos);
		encode_order(w, &pos);
		oklen = pos.len;
		appendBinaryStringInfo(&pos, (const char *) mt, mt->t_len);
		ranged_count_apply(w, w->rows, &tp->key, pos.data, pos.len, oklen, sign, false);
		ranged_count_apply(w, w->rows_rev, &tp->key, pos.data, pos.len, oklen, sign, true);
		MemoryContextSwitchTo(w->touched_cxt);
		if (tp->nchanges < RANGED_MAX_CHANGES ||
			bytes_cmp(pos.data, pos.len, tp->first->data, tp->first->len) < 0 ||
			bytes_cmp(pos.data, pos.len, tp->last->data, tp->last->len) > 0)
		{
			rp = palloc(sizeof(RowPosition));
			rp->data = bytes_copy(pos.data, pos.len);
			rp->len = pos.len;
			rp->oklen = oklen;
			if (tp->nchanges < RANGED_MAX_CHANGES)
				tp->changes = lappend(tp->changes, rp);
			if (!tp->first || bytes_cmp(rp->data, rp->len, tp->first->data, tp->first->len) < 0)
				tp->first = rp;
			if (!tp->last || bytes_cmp(rp->data, rp->len, tp->last->data, tp->last->len) > 0)
				tp->last = rp;
		}
		tp->nchanges++;
	}
	MemoryContextSwitchTo(old);
}

/* Scan state: a partition's rows into the relation, or its shown rows. */
typedef struct Visit
{
	OverWindowExec *w;
	int			prefix_len;
	int32		ord;
	Tuplestorestate *ts;		/* rows: into the relation */
	Datum	   *values;
	bool	   *nulls;
	HTAB	   *counts;			/* shown: bytes -> count */
} Visit;

typedef struct CountEntry
{
	HsBytesKey	key;			/* row bytes (hash key: must be first) */
	int64		count;
	int			oklen;			/* ranged: of the ORDER BY encoding it starts with */
} CountEntry;

static bool
visit_row(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	Visit	   *v = arg;

	HsRowsPut(v->ts, v->w->enr_desc, v->ord, v->w->in_desc, key + v->prefix_len,
			  keylen - v->prefix_len, HsCountedRowCount(value), v->values, v->nulls);
	return true;
}

static bool
visit_shown(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	Visit	   *v = arg;
	HsBytesKey	k;
	CountEntry *e;
	bool		found;

	k.data = palloc(keylen - v->prefix_len + 1);
	memcpy(k.data, key + v->prefix_len, keylen - v->prefix_len);
	k.len = keylen - v->prefix_len;
	e = hash_search(v->counts, &k, HASH_ENTER, &found);
	if (!found)
	{
		e->count = 0;
		e->oklen = 0;
	}
	e->count += HsCountedRowCount(value);
	return true;
}

/* ---------------------------------------------------------------------
 * The flush
 * ---------------------------------------------------------------------
 */

/*
 * Prefix function k's result over rows P R, from its result over P (a)
 * and over R (b).
 */
static Datum
prefix_combine(OverWindowExec *w, int k, Datum a, bool anull, Datum b, bool bnull,
			   bool *isnull)
{
	const HsWindowPrefix *p = &w->ranges->prefix[k];

	*isnull = false;
	switch (p->kind)
	{
		case HS_PREFIX_NONE:
			break;
		case HS_PREFIX_ROW_NUMBER:
		case HS_PREFIX_RANK:
		case HS_PREFIX_DENSE_RANK:
		case HS_PREFIX_COUNT:
			if (anull)
				return b;
			return Int64GetDatum(DatumGetInt64(a) + DatumGetInt64(b));
		case HS_PREFIX_SUM:
		case HS_PREFIX_EXTREME:
			/* (NULLs are the inputs these aggregates skip) */
			if (anull || bnull)
			{
				*isnull = anull && bnull;
				return anull ? b : a;
			}
			if (p->kind == HS_PREFIX_SUM)
				return FunctionCall2Coll(&w->prefix_fn[k], InvalidOid, a, b);
			/* the later on a tie, as the transition functions keep it */
			return DatumGetBool(FunctionCall2Coll(&w->prefix_fn[k], p->collation, a, b)) ? a : b;
	}
	*isnull = bnull;
	return b;
}

/* Collects the output rows of the query, per partition ordinal. */
typedef struct WindowReceiver
{
	DestReceiver pub;
	OverWindowExec *w;
	HTAB	  **counts;			/* per ordinal: output row bytes -> count */
	int			n;
	MemoryContext cxt;			/* where the bytes are kept */
	RowPosition **seq_ok;		/* ranged: per seq, its ORDER BY encoding if
								 * its results are wanted, else NULL */
	int			nseq;
	WindowRange **ranges;		/* ranged: per ordinal (offsets) */
} WindowReceiver;

static bool
window_receive(TupleTableSlot *slot, DestReceiver *self)
{
	WindowReceiver *r = (WindowReceiver *) self;
	OverWindowExec *w = r->w;
	TupleDesc	out = w->exec.out_desc;
	int			natts = w->in_desc->natts;
	Datum	   *values;
	bool	   *nulls;
	MinimalTuple mt;
	HsBytesKey	k;
	CountEntry *e;
	bool		found;
	int			ord;
	RowPosition *ok = NULL;

	MemoryContext old = MemoryContextSwitchTo(r->cxt);

	slot_getallattrs(slot);
	ord = DatumGetInt32(slot->tts_values[0]);
	if (ord < 0 || ord >= r->n)
		elog(ERROR, "recomputed window row for unknown partition %d", ord);
	if (w->ranges)
	{
		int			seq = DatumGetInt32(slot->tts_values[natts + 1]);

		if (seq < 0 || seq >= r->nseq)
			elog(ERROR, "recomputed window row for unknown row %d", seq);
		ok = r->seq_ok[seq];
		if (ok == NULL)
		{
			/* (a row read for the rows around it: its results may be cut short) */
			MemoryContextSwitchTo(old);
			return true;
		}
	}
	/* the output row: input columns, then the functions */
	values = palloc(sizeof(Datum) * out->natts);
	nulls = palloc(sizeof(bool) * out->natts);
	for (int c = 0; c < out->natts; c++)
	{
		int			from = c < natts ? c + 1 : w->func_col + (c - natts);

		values[c] = slot->tts_values[from];
		nulls[c] = slot->tts_isnull[from];
	}
	if (ok && r->ranges[ord]->has_offset)
	{
		const WindowRange *range = r->ranges[ord];

		for (int k = 0; k < w->nfuncs; k++)
		{
			if (w->ranges->prefix[k].kind == HS_PREFIX_NONE)
				continue;
			values[natts + k] = prefix_combine(w, k, range->offset[k], range->offset_null[k],
											   values[natts + k], nulls[natts + k],
											   &nulls[natts + k]);
		}
	}
	mt = HsCanonicalTuple(out, values, nulls);
	if (ok)
	{
		/* ranged: keyed by its ORDER BY encoding, then its bytes */
		k.len = ok->oklen + mt->t_len;
		k.data = palloc(k.len);
		memcpy(k.data, ok->data, ok->oklen);
		memcpy(k.data + ok->oklen, mt, mt->t_len);
	}
	else
	{
		k.data = (char *) mt;
		k.len = mt->t_len;
	}
	e = hash_search(r->counts[ord], &k, HASH_ENTER, &found);
	if (!found)
	{
		e->count = 0;
		e->oklen = ok ? ok->oklen : 0;
	}
	e->count++;
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * Run the query over the rows in ts (then ended), each result row kept in
 * fresh[its ord] (of n) in cxt; rr: zeroed, or with its ranged fields set.
 */
static void
run_windows(OverWindowExec *w, Tuplestorestate *ts, WindowReceiver *rr, HTAB **fresh,
			int n, MemoryContext cxt)
{
	HsRowsReceiverInit(&rr->pub, window_receive);
	rr->w = w;
	rr->counts = fresh;
	rr->n = n;
	rr->cxt = cxt;
	HsRowsQueryRun(w->plan, "hummock_stream: recompute window functions", ROWS_ENR_NAME,
				   w->enr_desc, ts, &rr->pub);
	tuplestore_end(ts);
}

/* An output row's bytes (a canonical MinimalTuple) as a row, emitted. */
static void
emit_row(OverWindowExec *w, const HsBytesKey *bytes, int64 count, int sign)
{
	HsRowsEmitBytes(&w->exec, bytes->data, bytes->len, count, sign);
}

static HTAB *
count_table(const char *name, MemoryContext cxt)
{
	return HsBytesKeyHashCreate(name, sizeof(CountEntry), 64, cxt);
}

/* After a flush: no partition touched. */
static void
forget_touched(OverWindowExec *w)
{
	MemoryContextReset(w->touched_cxt);
	w->touched = HsBytesKeyHashCreate("hummock_stream window partitions",
									  sizeof(TouchedPartition), 64, w->touched_cxt);
	w->touched_list = NIL;
}

static void flush_ranges(OverWindowExec *w);

static void
over_window_flush(HsExec *self)
{
	OverWindowExec *w = (OverWindowExec *) self;
	int			n = list_length(w->touched_list);
	MemoryContext cxt;
	MemoryContext old;
	Tuplestorestate *ts;
	Visit		v;
	HTAB	  **fresh;
	HTAB	  **shown;
	WindowReceiver rr;
	ListCell   *lc;
	int			i;

	/*
	 * (a backfill's chunk: its rows are in rows, its partitions stay
	 * touched, and the last chunk computes each of them once, not once a
	 * chunk)
	 */
	if (n == 0 || w->rows->store->more_to_come)
	{
		HsExecFlush(self->downstream);
		return;
	}
	if (w->ranges)
	{
		flush_ranges(w);
		forget_touched(w);
		HsExecFlush(self->downstream);
		return;
	}
	cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream window flush",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);

	/* every touched partition's rows, in one relation */
	ts = tuplestore_begin_heap(false, false, work_mem);
	memset(&v, 0, sizeof(v));
	v.w = w;
	v.ts = ts;
	v.values = palloc(sizeof(Datum) * w->enr_desc->natts);
	v.nulls = palloc(sizeof(bool) * w->enr_desc->natts);
	i = 0;
	foreach(lc, w->touched_list)
	{
		HsBytesKey *pk = lfirst(lc);

		v.prefix_len = pk->len;
		v.ord = i++;
		HsStateTableScanPrefix(w->rows, pk->data, pk->len, visit_row, &v);
	}

	/* their new output rows */
	fresh = palloc(sizeof(HTAB *) * n);
	for (i = 0; i < n; i++)
		fresh[i] = count_table("hummock_stream window rows", cxt);
	memset(&rr, 0, sizeof(rr));
	run_windows(w, ts, &rr, fresh, n, cxt);

	/*
	 * Per partition: what it showed against what it shows now.  All the
	 * deletes of all partitions go first: a row keyed by the view's key
	 * may move from one partition to another.
	 */
	shown = palloc(sizeof(HTAB *) * n);
	i = 0;
	foreach(lc, w->touched_list)
	{
		HsBytesKey *pk = lfirst(lc);
		HASH_SEQ_STATUS status;
		CountEntry *e;

		shown[i] = count_table("hummock_stream window shown", cxt);
		v.prefix_len = pk->len;
		v.counts = shown[i];
		HsStateTableScanPrefix(w->shown, pk->data, pk->len, visit_shown, &v);
		hash_seq_init(&status, shown[i]);
		while ((e = hash_seq_search(&status)) != NULL)
		{
			CountEntry *f = hash_search(fresh[i], &e->key, HASH_FIND, NULL);
			int64		gone = e->count - (f ? f->count : 0);

			if (gone > 0)
			{
				emit_row(w, &e->key, gone, -1);
				count_apply(w, w->shown, pk, e->key.data, e->key.len, -gone);
			}
		}
		i++;
	}
	i = 0;
	foreach(lc, w->touched_list)
	{
		HsBytesKey *pk = lfirst(lc);
		HASH_SEQ_STATUS status;
		CountEntry *e;

		hash_seq_init(&status, fresh[i]);
		while ((e = hash_seq_search(&status)) != NULL)
		{
			CountEntry *o = hash_search(shown[i], &e->key, HASH_FIND, NULL);
			int64		added = e->count - (o ? o->count : 0);

			if (added > 0)
			{
				emit_row(w, &e->key, added, +1);
				count_apply(w, w->shown, pk, e->key.data, e->key.len, added);
			}
		}
		i++;
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);

	forget_touched(w);
	HsExecFlush(self->downstream);
}

/* ---------------------------------------------------------------------
 * Ranged: computing again the rows around each change
 *
 * A change at position c of its partition (a row added or taken away)
 * changes the results of the rows whose functions read it: those from
 * before rows ahead of it to after rows behind it, widened to whole peer
 * groups (rows of equal ORDER BY values), so that the rows computed again
 * are exactly those whose ORDER BY values lie in an interval [lo, hi]:
 * what they showed is then a range of shown.  Computing them reads the
 * rows from after positions before the first of them to before
 * positions past the last (their functions' frames), walked from the
 * change through rows_rev and rows.  The ranges of a partition whose
 * intervals overlap are merged; each range is one partition of the
 * WindowAgg run (ord), and only the results of the rows in its interval
 * are kept.
 * ---------------------------------------------------------------------
 */

static void
set_bytes(StringInfo buf, const char *data, int len)
{
	resetStringInfo(buf);
	appendBinaryStringInfo(buf, data, len);
}


/*
 * A walk from a change through rows (ahead) or rows_rev (back): first
 * need positions (phase 0), then the rest of the peer group reached
 * (phase 1), then ctx more positions (phase 2).
 */
typedef struct Walk
{
	OverWindowExec *w;
	const HsBytesKey *part;
	bool		reverse;
	const RowPosition *skip;	/* back: the change itself is not before it */
	int			phase;
	int64		need;
	int64		ctx;
	StringInfoData ref;			/* phase 1: the peer group's ORDER BY encoding */
	StringInfoData peer;		/* the last entry of phases 0 and 1 */
	int			peer_oklen;
	bool		have_peer;
	StringInfoData last;		/* the last entry of phases 2 and 3 */
	int			last_oklen;
	bool		have_last;
	bool		to_group;		/* phase 3: the rest of last's peer group */
	bool		done;			/* phase 2 (3) read its ctx positions */
	/* value frames (by_value): phases 0 and 2 also take the rows they reach */
	bool		by_value;
	Datum		change;			/* the change's ORDER BY value */
	bool		change_null;
	Datum		edge;			/* phase 2: the last computed row's */
	bool		edge_null;
	StringInfoData scratch;
} Walk;

/* The ORDER BY value (value frames: the one key) of a row's bytes. */
static Datum
order_value(OverWindowExec *w, const char *row, int len, bool *isnull)
{
	TupleTableSlot *slot = w->walk_slot;

	/* (the copy the values point into lives as long as the flush) */
	ExecClearTuple(slot);
	(void) HsStoredRowCopyDeform(w->in_desc, row, len, slot->tts_values, slot->tts_isnull);
	ExecStoreVirtualTuple(slot);
	w->econtext->ecxt_scantuple = slot;
	return ExecEvalExpr(linitial(w->order_states), w->econtext, isnull);
}

/*
 * Whether value lies within the frame of a row of value base, on its
 * head's side (head) or its tail's, for value frame k, as nodeWindowAgg.c
 * asks in_range(): false for a CURRENT ROW bound (only peers).
 */
static bool
in_frame_bound(OverWindowExec *w, int k, bool head, Datum value, Datum base)
{
	const HsWindowValueFrame *vf = &w->ranges->value_frames[k];
	HsWindowBound b = head ? vf->start : vf->end;
	bool		sub;
	bool		less;

	if (b != HS_BOUND_PRECEDING && b != HS_BOUND_FOLLOWING)
		return false;
	sub = b == HS_BOUND_PRECEDING;
	less = !head;
	if (!vf->asc)
	{
		sub = !sub;
		less = !less;
	}
	return DatumGetBool(FunctionCall5Coll(&w->in_range_fn[2 * k + (head ? 0 : 1)],
										  vf->collation, value,
										  base, head ? vf->start_offset : vf->end_offset,
										  BoolGetDatum(sub), BoolGetDatum(less)));
}

/*
 * Value frames: whether a row of value x (walked over from the change)
 * has a frame that can reach the change (reach), or, past the computed
 * rows, lies in the frame of the last of them (else).  Rows of NULL value
 * frame only each other (their peers).  Monotone along the walk: the
 * frame's far bound only.
 */
static bool
walk_value_reaches(Walk *k, const char *entry, int len, int oklen, bool reach)
{
	OverWindowExec *w = k->w;
	bool		isnull;
	Datum		x = order_value(w, entry + oklen, len - oklen, &isnull);

	if (isnull || (reach ? k->change_null : k->edge_null))
		return false;
	for (int i = 0; i < w->nfuncs; i++)
	{
		if (w->ranges->value_frames[i].start == HS_BOUND_NONE)
			continue;
		/* back: the change within x's tail, x within the edge's head */
		if (reach ? in_frame_bound(w, i, !k->reverse, k->change, x) :
			in_frame_bound(w, i, k->reverse, x, k->edge))
			return true;
	}
	return false;
}

static bool
walk_visit(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	Walk	   *k = arg;
	const char *suffix;
	int			slen;
	RangedCount v;

	if (keylen < k->part->len || memcmp(key, k->part->data, k->part->len) != 0)
		return false;			/* past the partition */
	slen = keylen - k->part->len;
	if (k->reverse)
	{
		set_bytes(&k->scratch, key + k->part->len, slen);
		for (int i = 0; i < slen; i++)
			k->scratch.data[i] = (char) ~k->scratch.data[i];
		suffix = k->scratch.data;
	}
	else
		suffix = key + k->part->len;
	if (k->skip && bytes_cmp(suffix, slen, k->skip->data, k->skip->len) == 0)
	{
		/*
		 * The changed row's own entry: not before it (back); ahead, the
		 * positions count from its last copy (the changed copy may be any).
		 */
		if (!k->reverse)
		{
			set_bytes(&k->peer, suffix, slen);
			k->peer_oklen = k->skip->oklen;
			k->have_peer = true;
		}
		return true;
	}
	v = ranged_value(value);
	if (k->phase == 0)
	{
		/* (value frames: the rows whose frames reach the change too) */
		if (!k->by_value || k->need > 0 ||
			walk_value_reaches(k, suffix, slen, v.oklen, true))
		{
			k->need -= v.count;
			set_bytes(&k->peer, suffix, slen);
			k->peer_oklen = v.oklen;
			k->have_peer = true;
			set_bytes(&k->ref, suffix, v.oklen);
			if (k->need <= 0 && !k->by_value)
				k->phase = 1;
			return true;
		}
		k->phase = 1;			/* (this row: past the rows reached) */
	}
	if (k->phase == 1)
	{
		if (bytes_cmp(suffix, v.oklen, k->ref.data, k->ref.len) == 0)
		{
			set_bytes(&k->peer, suffix, slen);
			k->peer_oklen = v.oklen;
			k->have_peer = true;
			return true;
		}
		k->phase = 2;
		k->need = k->ctx;
		if (k->by_value)
		{
			/* the computed rows' last: a row of the peer group reached */
			const char *row = k->have_peer ? k->peer.data + k->peer_oklen :
				k->skip->data + k->skip->oklen;
			int			len = k->have_peer ? k->peer.len - k->peer_oklen :
				k->skip->len - k->skip->oklen;

			k->edge = order_value(k->w, row, len, &k->edge_null);
		}
	}
	if (k->phase == 2 && k->need <= 0)
	{
		/* (value frames: the rows the last computed row's frames read) */
		if (k->by_value && walk_value_reaches(k, suffix, slen, v.oklen, false))
		{
			set_bytes(&k->last, suffix, slen);
			k->last_oklen = v.oklen;
			k->have_last = true;
			return true;
		}
		if (!k->to_group || !k->have_last)
		{
			k->done = true;
			return false;
		}
		k->phase = 3;
	}
	if (k->phase == 3 &&
		bytes_cmp(suffix, v.oklen, k->last.data, k->last_oklen) != 0)
	{
		k->done = true;
		return false;
	}
	k->need -= v.count;
	set_bytes(&k->last, suffix, slen);
	k->last_oklen = v.oklen;
	k->have_last = true;
	if (k->phase == 2 && k->need <= 0 && !k->by_value)
	{
		if (k->to_group)
		{
			k->phase = 3;
			return true;
		}
		k->done = true;
		return false;
	}
	return true;
}

/*
 * A walk from the change at rp (need 0, and no value frames: straight to
 * its peer group).
 */
static void
walk_init(Walk *k, OverWindowExec *w, const HsBytesKey *part, const RowPosition *rp,
		  bool reverse, int64 need, int64 ctx)
{
	memset(k, 0, sizeof(*k));
	k->w = w;
	k->part = part;
	k->skip = rp;
	k->reverse = reverse;
	k->need = need;
	k->ctx = ctx;
	initStringInfo(&k->ref);
	initStringInfo(&k->peer);
	initStringInfo(&k->last);
	initStringInfo(&k->scratch);
	set_bytes(&k->ref, rp->data, rp->oklen);
	if (w->ranges->value_frames)
	{
		/* (phase 0 also takes the rows whose frames reach the change) */
		k->by_value = true;
		k->change = order_value(w, rp->data + rp->oklen, rp->len - rp->oklen,
								&k->change_null);
	}
	else if (need == 0)
		k->phase = 1;
}

/* The range a change at rp of partition tp makes to compute again. */
static WindowRange *
range_of_change(OverWindowExec *w, TouchedPartition *tp, const RowPosition *rp)
{
	WindowRange *r = palloc0(sizeof(WindowRange));
	Walk		k;
	StringInfoData from;

	r->tp = tp;
	initStringInfo(&r->lo);
	initStringInfo(&r->hi);
	initStringInfo(&r->s);
	initStringInfo(&r->e);
	initStringInfo(&r->s_ok);

	/*
	 * back: before positions, their peers, after positions of context (with
	 * prefix functions, up to the start of a peer group)
	 */
	walk_init(&k, w, &tp->key, rp, true, w->ranges->before, w->ranges->after);
	k.to_group = w->ranges->prefix != NULL;
	initStringInfo(&from);
	appendBinaryStringInfo(&from, tp->key.data, tp->key.len);
	for (int i = 0; i < rp->len; i++)
		appendStringInfoChar(&from, (char) ~rp->data[i]);
	HsStateTableScanRange(w->rows_rev, from.data, from.len, NULL, 0, walk_visit, &k);
	if (k.phase == 0)
		r->lo_inf = true;		/* (and s from the start) */
	else
	{
		set_bytes(&r->lo, k.ref.data, k.ref.len);
		if (k.done && k.have_last)
		{
			set_bytes(&r->s, k.last.data, k.last.len);
			set_bytes(&r->s_ok, k.last.data, k.last_oklen);
		}
		else if (k.done)
		{
			set_bytes(&r->s, r->lo.data, r->lo.len);
			set_bytes(&r->s_ok, r->lo.data, r->lo.len);
		}
		/* (else the partition's start) */
	}
	if (w->ranges->prefix)
	{
		/* every row after the change reads it */
		r->hi_inf = r->e_inf = true;
		return r;
	}

	/*
	 * ahead: after positions past the change, their peers, and before
	 * positions of context (at least one: the slice then ends at a row)
	 */
	walk_init(&k, w, &tp->key, rp, false, w->ranges->after, Max(w->ranges->before, 1));
	resetStringInfo(&from);
	appendBinaryStringInfo(&from, tp->key.data, tp->key.len);
	appendBinaryStringInfo(&from, rp->data, rp->len);
	HsStateTableScanRange(w->rows, from.data, from.len, NULL, 0, walk_visit, &k);
	if (k.phase == 0)
		r->hi_inf = r->e_inf = true;
	else
	{
		set_bytes(&r->hi, k.ref.data, k.ref.len);
		if (k.done)
			set_bytes(&r->e, k.last.data, k.last.len);
		else
			r->e_inf = true;
	}
	return r;
}

static int
range_lo_cmp(const ListCell *a, const ListCell *b)
{
	WindowRange *x = lfirst(a);
	WindowRange *y = lfirst(b);

	if (x->lo_inf || y->lo_inf)
		return (int) y->lo_inf - (int) x->lo_inf;
	return bytes_cmp(x->lo.data, x->lo.len, y->lo.data, y->lo.len);
}

/* The ranges of partition tp, merged where their intervals overlap. */
static List *
ranges_of_partition(OverWindowExec *w, TouchedPartition *tp)
{
	List	   *all = NIL;
	List	   *merged = NIL;
	WindowRange *cur = NULL;
	ListCell   *lc;

	if (tp->nchanges > RANGED_MAX_CHANGES)
	{
		/*
		 * One range from the first change to the last: two walks, and the
		 * rows between them read once (a bulk append reads only its end).
		 */
		WindowRange *r;
		WindowRange *last;

		r = range_of_change(w, tp, tp->first);
		last = range_of_change(w, tp, tp->last);
		r->hi_inf = last->hi_inf;
		r->hi = last->hi;
		r->e_inf = last->e_inf;
		r->e = last->e;
		return list_make1(r);
	}
	foreach(lc, tp->changes)
		all = lappend(all, range_of_change(w, tp, lfirst(lc)));
	list_sort(all, range_lo_cmp);
	foreach(lc, all)
	{
		WindowRange *r = lfirst(lc);

		if (cur && (cur->hi_inf ||
					r->lo_inf ||
					bytes_cmp(r->lo.data, r->lo.len, cur->hi.data, cur->hi.len) <= 0))
		{
			if (r->hi_inf)
				cur->hi_inf = true;
			else if (!cur->hi_inf &&
					 bytes_cmp(r->hi.data, r->hi.len, cur->hi.data, cur->hi.len) > 0)
				set_bytes(&cur->hi, r->hi.data, r->hi.len);
			if (bytes_cmp(r->s.data, r->s.len, cur->s.data, cur->s.len) < 0)
			{
				set_bytes(&cur->s, r->s.data, r->s.len);
				set_bytes(&cur->s_ok, r->s_ok.data, r->s_ok.len);
			}
			if (r->e_inf)
				cur->e_inf = true;
			else if (!cur->e_inf &&
					 bytes_cmp(r->e.data, r->e.len, cur->e.data, cur->e.len) > 0)
				set_bytes(&cur->e, r->e.data, r->e.len);
			continue;
		}
		cur = r;
		merged = lappend(merged, r);
	}
	return merged;
}

/* Finding the peer group before a range's first row read (through rows_rev). */
typedef struct GroupBefore
{
	const WindowRange *r;
	StringInfoData ok;			/* its ORDER BY encoding */
	bool		found;
} GroupBefore;

static bool
group_before_visit(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	GroupBefore *g = arg;
	const HsBytesKey *part = &g->r->tp->key;
	RangedCount v;

	if (keylen < part->len || memcmp(key, part->data, part->len) != 0)
		return false;
	v = ranged_value(value);
	resetStringInfo(&g->ok);
	for (int i = 0; i < v.oklen; i++)
		appendStringInfoChar(&g->ok, (char) ~key[part->len + i]);
	if (bytes_cmp(g->ok.data, g->ok.len, g->r->s_ok.data, g->r->s_ok.len) == 0)
		return true;			/* (s's own peer group) */
	g->found = true;
	return false;
}

/* Folding what the peer group before a range showed into its offsets. */
typedef struct OffsetFold
{
	OverWindowExec *w;
	WindowRange *r;
	const char *ok;
	int			oklen;
	int64		rows;			/* the group's rows */
	int64		entries;
	Datum	   *values;
	bool	   *nulls;
} OffsetFold;

static bool
offset_visit(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	OffsetFold *f = arg;
	OverWindowExec *w = f->w;
	const HsBytesKey *part = &f->r->tp->key;
	int			natts = w->in_desc->natts;
	RangedCount v;

	if (keylen < part->len || memcmp(key, part->data, part->len) != 0)
		return false;
	v = ranged_value(value);
	if (bytes_cmp(key + part->len, v.oklen, f->ok, f->oklen) != 0)
		return false;
	(void) HsStoredRowCopyDeform(w->exec.out_desc, key + part->len + v.oklen,
								 keylen - part->len - v.oklen, f->values, f->nulls);
	f->rows += v.count;
	f->entries++;
	for (int k = 0; k < w->nfuncs; k++)
	{
		const HsWindowPrefix *p = &w->ranges->prefix[k];
		Datum		x = f->values[natts + k];
		bool		xnull = f->nulls[natts + k];
		Datum	   *off = &f->r->offset[k];
		bool	   *offnull = &f->r->offset_null[k];

		switch (p->kind)
		{
			case HS_PREFIX_NONE:
				break;
			case HS_PREFIX_ROW_NUMBER:
			case HS_PREFIX_COUNT:
				/* (the group's last row counts the most) */
				if (*offnull || DatumGetInt64(x) > DatumGetInt64(*off))
					*off = x;
				*offnull = false;
				break;
			case HS_PREFIX_RANK:
			case HS_PREFIX_DENSE_RANK:
			case HS_PREFIX_SUM:
				/* (peers share it; a ROWS frame's sum, see range_offsets) */
				*off = x;
				*offnull = xnull;
				break;
			case HS_PREFIX_EXTREME:
				/* (a ROWS frame's last row has the first of them) */
				if (f->entries == 1)
				{
					*off = x;
					*offnull = xnull;
				}
				else
					*off = prefix_combine(w, k, *off, *offnull, x, xnull, offnull);
				break;
		}
	}
	return true;
}

/*
 * With prefix functions: the results over the rows before range r's
 * first row read (s, which starts a peer group) that theirs over the rows
 * read add to, from what the peer group just before s showed (its rows'
 * results are final: every change of the partition lies after s).  None
 * when s is the partition's start; if the group cannot tell (a ROWS
 * frame's running sum over tied rows: which is the last?), the range
 * reads from the partition's start.
 */
static void
range_offsets(OverWindowExec *w, WindowRange *r)
{
	GroupBefore g;
	OffsetFold f;
	StringInfoData from;

	if (w->ranges->prefix == NULL || r->s.len == 0)
		return;
	memset(&g, 0, sizeof(g));
	g.r = r;
	initStringInfo(&g.ok);
	initStringInfo(&from);
	appendBinaryStringInfo(&from, r->tp->key.data, r->tp->key.len);
	for (int i = 0; i < r->s.len; i++)
		appendStringInfoChar(&from, (char) ~r->s.data[i]);
	HsStateTableScanRange(w->rows_rev, from.data, from.len, NULL, 0, group_before_visit, &g);
	if (!g.found)
	{
		resetStringInfo(&r->s);
		return;
	}

	r->offset = palloc0(sizeof(Datum) * w->nfuncs);
	r->offset_null = palloc(sizeof(bool) * w->nfuncs);
	for (int k = 0; k < w->nfuncs; k++)
		r->offset_null[k] = true;
	memset(&f, 0, sizeof(f));
	f.w = w;
	f.r = r;
	f.ok = g.ok.data;
	f.oklen = g.ok.len;
	f.values = palloc(sizeof(Datum) * w->exec.out_desc->natts);
	f.nulls = palloc(sizeof(bool) * w->exec.out_desc->natts);
	resetStringInfo(&from);
	appendBinaryStringInfo(&from, r->tp->key.data, r->tp->key.len);
	appendBinaryStringInfo(&from, g.ok.data, g.ok.len);
	HsStateTableScanRange(w->shown, from.data, from.len, NULL, 0, offset_visit, &f);
	if (f.entries == 0)
		elog(ERROR, "streaming window shows no rows for a peer group it holds");
	for (int k = 0; k < w->nfuncs; k++)
	{
		const HsWindowPrefix *p = &w->ranges->prefix[k];

		if (p->kind == HS_PREFIX_RANK)
			r->offset[k] = Int64GetDatum(DatumGetInt64(r->offset[k]) + f.rows - 1);
		else if (p->kind == HS_PREFIX_SUM && p->rows_frame && f.rows > 1)
		{
			/* read from the partition's start */
			resetStringInfo(&r->s);
			return;
		}
	}
	r->has_offset = true;
}

/* Is ORDER BY encoding ok (oklen bytes) in range r's interval? */
static bool
in_interval(const WindowRange *r, const char *ok, int oklen)
{
	return (r->lo_inf || bytes_cmp(ok, oklen, r->lo.data, r->lo.len) >= 0) &&
		(r->hi_inf || bytes_cmp(ok, oklen, r->hi.data, r->hi.len) <= 0);
}

/* Loading a range's rows into the relation of the run. */
typedef struct RangeLoad
{
	OverWindowExec *w;
	WindowRange *r;
	int32		ord;
	Tuplestorestate *ts;
	Datum	   *values;
	bool	   *nulls;
	WindowReceiver *rr;			/* seq_ok, nseq */
	int			seq_cap;
} RangeLoad;

static bool
load_visit(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	RangeLoad  *l = arg;
	OverWindowExec *w = l->w;
	const HsBytesKey *part = &l->r->tp->key;
	int			natts = w->in_desc->natts;
	const char *suffix;
	int			slen;
	RangedCount v;
	MinimalTuple copy;
	RowPosition *ok = NULL;

	if (keylen < part->len || memcmp(key, part->data, part->len) != 0)
		return false;
	suffix = key + part->len;
	slen = keylen - part->len;
	if (!l->r->e_inf && bytes_cmp(suffix, slen, l->r->e.data, l->r->e.len) > 0)
		return false;
	v = ranged_value(value);
	if (in_interval(l->r, suffix, v.oklen))
	{
		ok = palloc(sizeof(RowPosition));
		ok->data = bytes_copy(suffix, v.oklen);
		ok->len = ok->oklen = v.oklen;
	}
	copy = HsStoredRowCopyDeform(w->in_desc, suffix + v.oklen, slen - v.oklen,
								 l->values + 1, l->nulls + 1);
	l->values[0] = Int32GetDatum(l->ord);
	l->nulls[0] = false;
	l->nulls[natts + 1] = false;
	for (int64 i = 0; i < v.count; i++)
	{
		if (l->rr->nseq >= l->seq_cap)
		{
			l->seq_cap *= 2;
			l->rr->seq_ok = repalloc(l->rr->seq_ok, sizeof(RowPosition *) * l->seq_cap);
		}
		l->rr->seq_ok[l->rr->nseq] = ok;
		l->values[natts + 1] = Int32GetDatum(l->rr->nseq);
		l->rr->nseq++;
		tuplestore_putvalues(l->ts, w->enr_desc, l->values, l->nulls);
	}
	pfree(copy);
	return true;
}

/* Collecting what a range's rows showed. */
static bool
shown_range_visit(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	WindowRange *r = arg;
	const HsBytesKey *part = &r->tp->key;
	RangedCount v;
	HsBytesKey	k;
	CountEntry *e;
	bool		found;

	if (keylen < part->len || memcmp(key, part->data, part->len) != 0)
		return false;
	v = ranged_value(value);
	if (!r->hi_inf && bytes_cmp(key + part->len, v.oklen, r->hi.data, r->hi.len) > 0)
		return false;
	k.len = keylen - part->len;
	k.data = bytes_copy(key + part->len, k.len);
	e = hash_search(r->shown, &k, HASH_ENTER, &found);
	if (!found)
	{
		e->count = 0;
		e->oklen = v.oklen;
	}
	e->count += v.count;
	return true;
}

/* Emit and record the difference of what ranges showed and now show. */
static void
ranges_apply(OverWindowExec *w, List *ranges, int sign)
{
	ListCell   *lc;

	foreach(lc, ranges)
	{
		WindowRange *r = lfirst(lc);
		HTAB	   *from = sign < 0 ? r->shown : r->fresh;
		HTAB	   *other = sign < 0 ? r->fresh : r->shown;
		HASH_SEQ_STATUS status;
		CountEntry *e;

		hash_seq_init(&status, from);
		while ((e = hash_seq_search(&status)) != NULL)
		{
			CountEntry *o = hash_search(other, &e->key, HASH_FIND, NULL);
			int64		diff = e->count - (o ? o->count : 0);
			HsBytesKey	row;

			if (diff <= 0)
				continue;
			row.data = e->key.data + e->oklen;
			row.len = e->key.len - e->oklen;
			emit_row(w, &row, diff, sign);
			ranged_count_apply(w, w->shown, &r->tp->key, e->key.data, e->key.len, e->oklen,
							   sign * diff, false);
		}
	}
}

static void
flush_ranges(OverWindowExec *w)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "hummock_stream window flush",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	List	   *ranges = NIL;
	Tuplestorestate *ts;
	RangeLoad	l;
	WindowReceiver rr;
	HTAB	  **fresh;
	ListCell   *lc;
	int			n;

	memset(&rr, 0, sizeof(rr));

	foreach(lc, w->touched_list)
		ranges = list_concat(ranges, ranges_of_partition(w, lfirst(lc)));
	n = list_length(ranges);
	rr.ranges = palloc(sizeof(WindowRange *) * Max(n, 1));
	foreach(lc, ranges)
	{
		range_offsets(w, lfirst(lc));
		rr.ranges[foreach_current_index(lc)] = lfirst(lc);
	}

	/* the rows of every range, each range a partition of the run */
	ts = tuplestore_begin_heap(false, false, work_mem);
	memset(&l, 0, sizeof(l));
	l.w = w;
	l.ts = ts;
	l.values = palloc(sizeof(Datum) * w->enr_desc->natts);
	l.nulls = palloc(sizeof(bool) * w->enr_desc->natts);
	l.rr = &rr;
	l.seq_cap = 64;
	rr.seq_ok = palloc(sizeof(RowPosition *) * l.seq_cap);
	foreach(lc, ranges)
	{
		WindowRange *r = lfirst(lc);
		StringInfoData from;

		initStringInfo(&from);
		appendBinaryStringInfo(&from, r->tp->key.data, r->tp->key.len);
		appendBinaryStringInfo(&from, r->s.data, r->s.len);
		l.r = r;
		l.ord = foreach_current_index(lc);
		HsStateTableScanRange(w->rows, from.data, from.len, NULL, 0, load_visit, &l);
		r->fresh = count_table("hummock_stream window rows", cxt);
		r->shown = count_table("hummock_stream window shown", cxt);
	}

	/* their new results, then what they showed */
	fresh = palloc(sizeof(HTAB *) * Max(n, 1));
	foreach(lc, ranges)
		fresh[foreach_current_index(lc)] = ((WindowRange *) lfirst(lc))->fresh;
	run_windows(w, ts, &rr, fresh, n, cxt);
	foreach(lc, ranges)
	{
		WindowRange *r = lfirst(lc);
		StringInfoData from;

		initStringInfo(&from);
		appendBinaryStringInfo(&from, r->tp->key.data, r->tp->key.len);
		if (!r->lo_inf)
			appendBinaryStringInfo(&from, r->lo.data, r->lo.len);
		HsStateTableScanRange(w->shown, from.data, from.len, NULL, 0, shown_range_visit, r);
	}

	/* every range's deletes first: a row may move between partitions */
	ranges_apply(w, ranges, -1);
	ranges_apply(w, ranges, +1);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

static const HsExecMethods over_window_methods = {
	.name = "OverWindow",
	.push = over_window_push,
	.flush = over_window_flush,
	.out_ops = &TTSOpsVirtual,
	.row_context = "hummock_stream window row",
};

static HsExec *
over_window_create(TupleDesc in_desc, List *partition_exprs, List *funcs, List *windows,
				   List *order_exprs, const HsWindowRanges *ranges, HsStateTable *rows,
				   HsStateTable *rows_rev, HsStateTable *shown)
{
	int			natts = in_desc->natts;
	int			nfuncs = list_length(funcs);
	TupleDesc	out = CreateTemplateTupleDesc(natts + nfuncs);
	OverWindowExec *w;
	ListCell   *lc;
	int			k = 0;

	for (int c = 0; c < natts; c++)
		TupleDescCopyEntry(out, c + 1, in_desc, c + 1);
	foreach(lc, funcs)
	{
		WindowFunc *f = lfirst(lc);

		TupleDescInitEntry(out, natts + k + 1, NULL, f->wintype, -1, 0);
		TupleDescInitEntryCollation(out, natts + k + 1, f->wincollid);
		k++;
	}
	w = HsExecCreate(sizeof(OverWindowExec), &over_window_methods, out);
	w->in_desc = in_desc;
	w->nfuncs = nfuncs;
	w->rows = rows;
	w->rows_rev = rows_rev;
	w->shown = shown;
	w->econtext = CreateStandaloneExprContext();
	foreach(lc, partition_exprs)
		w->partition_states = lappend(w->partition_states, ExecInitExpr(lfirst(lc), NULL));
	if (ranges)
	{
		w->ranges = palloc(sizeof(HsWindowRanges));
		*w->ranges = *ranges;
		w->ranges->shares_peers = palloc(sizeof(bool) * Max(nfuncs, 1));
		memcpy(w->ranges->shares_peers, ranges->shares_peers, sizeof(bool) * nfuncs);
		if (ranges->value_frames)
		{
			w->ranges->value_frames = palloc(sizeof(HsWindowValueFrame) * nfuncs);
			w->in_range_fn = palloc0(sizeof(FmgrInfo) * nfuncs * 2);
			for (k = 0; k < nfuncs; k++)
			{
				HsWindowValueFrame *vf = &w->ranges->value_frames[k];

				*vf = ranges->value_frames[k];
				if (vf->start == HS_BOUND_PRECEDING || vf->start == HS_BOUND_FOLLOWING)
				{
					vf->start_offset = datumCopy(vf->start_offset, vf->offset_byval[0],
												 vf->offset_len[0]);
					fmgr_info(vf->start_fn, &w->in_range_fn[2 * k]);
				}
				if (vf->end == HS_BOUND_PRECEDING || vf->end == HS_BOUND_FOLLOWING)
				{
					vf->end_offset = datumCopy(vf->end_offset, vf->offset_byval[1],
											   vf->offset_len[1]);
					fmgr_info(vf->end_fn, &w->in_range_fn[2 * k + 1]);
				}
			}
			w->walk_slot = MakeSingleTupleTableSlot(in_desc, &TTSOpsVirtual);
		}
		if (ranges->prefix)
		{
			w->ranges->prefix = palloc(sizeof(HsWindowPrefix) * nfuncs);
			memcpy(w->ranges->prefix, ranges->prefix, sizeof(HsWindowPrefix) * nfuncs);
			w->prefix_fn = palloc0(sizeof(FmgrInfo) * nfuncs);
			for (k = 0; k < nfuncs; k++)
				if (OidIsValid(ranges->prefix[k].fn))
					fmgr_info(ranges->prefix[k].fn, &w->prefix_fn[k]);
		}
		w->order_types = palloc(sizeof(Oid) * Max(ranges->nkeys, 1));
		w->order_own = palloc(sizeof(bool) * Max(ranges->nkeys, 1));
		foreach(lc, ranges->key_exprs)
		{
			w->order_types[foreach_current_index(lc)] = exprType(lfirst(lc));
			w->order_own[foreach_current_index(lc)] = HsTypeHasOwnSortKey(exprType(lfirst(lc)));
			w->order_states = lappend(w->order_states, ExecInitExpr(lfirst(lc), NULL));
		}
	}
	/* (ord, the input columns[, seq]) */
	w->enr_desc = CreateTemplateTupleDesc(natts + 1 + (ranges ? 1 : 0));
	TupleDescInitEntry(w->enr_desc, 1, "ord", INT4OID, -1, 0);
	for (int c = 0; c < natts; c++)
	{
		Form_pg_attribute att = TupleDescAttr(in_desc, c);
		char		name[32];

		snprintf(name, sizeof(name), "c%d", c + 1);
		TupleDescInitEntry(w->enr_desc, c + 2, name, att->atttypid, att->atttypmod, 0);
		TupleDescInitEntryCollation(w->enr_desc, c + 2, att->attcollation);
	}
	if (ranges)
		TupleDescInitEntry(w->enr_desc, natts + 2, "seq", INT4OID, -1, 0);
	w->func_col = w->enr_desc->natts;
	w->plan = plan_windows(w, funcs, windows, order_exprs);
	w->touched_cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream window partitions",
										   ALLOCSET_DEFAULT_SIZES);
	forget_touched(w);
	initStringInfo(&w->key);
	return &w->exec;
}

HsExec *
HsExecOverWindowCreate(TupleDesc in_desc, List *partition_exprs, List *funcs,
					   List *windows, List *order_exprs,
					   HsStateTable *rows, HsStateTable *shown)
{
	return over_window_create(in_desc, partition_exprs, funcs, windows, order_exprs, NULL,
							  rows, NULL, shown);
}

HsExec *
HsExecOverWindowRangedCreate(TupleDesc in_desc, List *partition_exprs, List *funcs,
							 List *windows, List *order_exprs,
							 const HsWindowRanges *ranges, HsStateTable *rows,
							 HsStateTable *rows_rev, HsStateTable *shown)
{
	return over_window_create(in_desc, partition_exprs, funcs, windows, order_exprs, ranges,
							  rows, rows_rev, shown);
}
