/*-------------------------------------------------------------------------
 *
 * exec_recompute_query.c
 *	  A query computed again whole, by Postgres's executor, from the rows
 *	  it reads, whenever an epoch changes them: what a view needs but
 *	  cannot maintain row by row (a recursive WITH query).
 *
 * The executor has one input, the rows the query reads (the planner
 * gathers every table the query reads into one stream, each row tagged
 * with the number of its table: plan_recursive.c).  It keeps
 *
 *	rows	(persisted) key = canonical bytes of an input row
 *			(HsCanonicalTuple), value = how many input rows are that row
 *			(int64, as the count of a counted row);
 *	shown	(persisted) key = canonical bytes of an output row, value =
 *			how many copies of it the view was given.
 *
 * A pushed row updates its count at once.  At the flush of an epoch that
 * changed the rows every kept row goes into an ephemeral
 * named relation (HS_KEPT_ROWS_ENR: ord int4, always 0, then the input
 * columns; rows_query.c), the query (planned once when the executor is
 * built, by pg_plan_query) runs over it, its result rows are sorted by
 * their bytes and merged with a scan of shown (in the same order): the
 * rows it showed and no longer returns are emitted as deletes, then the
 * new ones as inserts, and shown follows.  A backfill computes the query
 * once, at its last chunk.  An epoch whose pushes cancel out (an UPDATE of
 * columns the query does not read is the delete and insert of one row)
 * computes nothing: the executor follows the net change of each row pushed
 * since its last computation, up to PENDING_MAX_ROWS rows.
 *
 * Cost per epoch that changes the rows: a scan of every kept row and of
 * shown, the query, and a sort of its result (held in memory).  Other
 * epochs cost nothing.
 *
 * A query whose result grows without end (a recursive UNION ALL over a
 * cycle of the data) would keep the compute worker busy for ever: its run
 * stops with an error past hummock_stream.recompute_max_rows result rows,
 * and the view fails (its job stops; others go on), as the query itself
 * would be canceled in a session.
 *
 * src/stream/executor/exec_recompute_query.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/storage/key.h"
#include "hummock_stream/stream/bytes_key_hash.h"
#include "hummock_stream/stream/executor.h"

#include "rows_query.h"

typedef struct RecomputeExec
{
	HsExec		exec;			/* exec.out: virtual; exec.row_cxt: per row */
	TupleDesc	in_desc;
	TupleDesc	enr_desc;		/* (ord int4, the input columns) */
	PlannedStmt *plan;
	HsStateTable *rows;
	HsStateTable *shown;
	/*
	 * the net change of each row pushed since the last computation, while
	 * they stay few (NULL: too many to follow, the rows changed)
	 */
	MemoryContext pending_cxt;
	HTAB	   *pending;		/* PendingRow */
} RecomputeExec;

int			hs_recompute_max_rows = 10000000;

/*
 * Rows whose net change an executor follows between computations: an
 * epoch whose pushes cancel out (an UPDATE of columns the query does not
 * read arrives as the delete and insert of one row) computes nothing.
 * Past this many distinct rows the executor stops following and computes.
 */
#define PENDING_MAX_ROWS 65536

typedef struct PendingRow
{
	HsBytesKey	key;			/* canonical bytes (hash key: must be first) */
	int64		delta;
} PendingRow;

static void
forget_pending(RecomputeExec *r)
{
	MemoryContextReset(r->pending_cxt);
	r->pending = HsBytesKeyHashCreate("hummock_stream recompute pending rows",
									  sizeof(PendingRow), 256, r->pending_cxt);
}

/* Follow the net change of row bytes[0..len) by sign. */
static void
note_pending(RecomputeExec *r, const char *bytes, int len, int sign)
{
	HsBytesKey	k;
	PendingRow *p;
	bool		found;

	if (r->pending == NULL)
		return;
	if (hash_get_num_entries(r->pending) >= PENDING_MAX_ROWS)
	{
		MemoryContextReset(r->pending_cxt);
		r->pending = NULL;
		return;
	}
	k.data = (char *) bytes;
	k.len = len;
	p = hash_search(r->pending, &k, HASH_ENTER, &found);
	if (!found)
	{
		p->key.data = MemoryContextAlloc(r->pending_cxt, len);
		memcpy(p->key.data, bytes, len);
		p->delta = 0;
	}
	p->delta += sign;
}

/* Did the pushes since the last computation change the rows? */
static bool
pending_changes(RecomputeExec *r)
{
	HASH_SEQ_STATUS status;
	PendingRow *p;

	if (r->pending == NULL)
		return true;
	hash_seq_init(&status, r->pending);
	while ((p = hash_seq_search(&status)) != NULL)
		if (p->delta != 0)
		{
			hash_seq_term(&status);
			return true;
		}
	return false;
}

static void
recompute_push(HsExec *self, TupleTableSlot *row, int sign)
{
	RecomputeExec *r = (RecomputeExec *) self;
	MemoryContext old;
	MinimalTuple mt;

	MemoryContextReset(r->exec.row_cxt);
	old = MemoryContextSwitchTo(r->exec.row_cxt);
	slot_getallattrs(row);
	mt = HsCanonicalTuple(r->in_desc, row->tts_values, row->tts_isnull);
	HsRowsCountAdd(r->rows, (const char *) mt, mt->t_len, sign, "recomputed query");
	note_pending(r, (const char *) mt, mt->t_len, sign);
	MemoryContextSwitchTo(old);
}

/* The kept rows into the relation of the run. */
typedef struct FillState
{
	RecomputeExec *r;
	Tuplestorestate *ts;
	Datum	   *values;
	bool	   *nulls;
} FillState;

static bool
fill_row(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	FillState  *f = arg;

	HsRowsPut(f->ts, f->r->enr_desc, 0, f->r->in_desc, key, keylen,
			  HsCountedRowCount(value), f->values, f->nulls);
	return true;
}

/* Collects the query's result rows as canonical bytes, to be sorted. */
typedef struct ResultReceiver
{
	DestReceiver pub;
	RecomputeExec *r;
	MemoryContext cxt;			/* where the rows are kept (the query's own
								 * memory ends with its run) */
	MinimalTuple *rows;
	int64		nrows;
	int64		cap;
	int64		max_rows;
} ResultReceiver;

static bool
result_receive(TupleTableSlot *slot, DestReceiver *self)
{
	ResultReceiver *rr = (ResultReceiver *) self;
	TupleDesc	out = rr->r->exec.out_desc;
	MemoryContext old;

	if (rr->nrows >= rr->max_rows)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a recursive query of a streaming materialized view returned more than %lld rows",
						(long long) rr->max_rows),
				 errdetail("A recursive UNION ALL over data with a cycle never ends."),
				 errhint("Use UNION to stop at rows already found, or raise hummock_stream.recompute_max_rows.")));
	old = MemoryContextSwitchTo(rr->cxt);
	slot_getallattrs(slot);
	if (slot->tts_tupleDescriptor->natts < out->natts)
		elog(ERROR, "recomputed query returned %d columns, expected %d",
			 slot->tts_tupleDescriptor->natts, out->natts);
	if (rr->nrows == rr->cap)
	{
		rr->cap = rr->cap * 2;
		rr->rows = repalloc_huge(rr->rows, sizeof(MinimalTuple) * rr->cap);
	}
	rr->rows[rr->nrows++] = HsCanonicalTuple(out, slot->tts_values, slot->tts_isnull);
	MemoryContextSwitchTo(old);
	return true;
}

/* Bytewise, shorter prefix first: the order of state-table keys. */
static int
bytes_cmp(const char *a, int alen, const char *b, int blen)
{
	return HsSliceCompare(HsSliceMake(a, alen), HsSliceMake(b, blen));
}

static int
row_cmp(const void *a, const void *b)
{
	MinimalTuple x = *(const MinimalTuple *) a;
	MinimalTuple y = *(const MinimalTuple *) b;

	return bytes_cmp((const char *) x, x->t_len, (const char *) y, y->t_len);
}

/* A difference between what the query returns and what was shown. */
typedef struct RowChange
{
	const char *data;
	int			len;
	int64		count;			/* > 0: inserted copies; < 0: deleted */
} RowChange;

/*
 * The merge of the sorted result (runs of equal rows counted) with shown,
 * scanned in key order: the changes, collected (the scan must not write
 * shown).
 */
typedef struct MergeState
{
	MinimalTuple *rows;
	int64		nrows;
	int64		next;			/* the first result row not merged yet */
	int64		run;			/* how many rows from next are equal to it */
	List	   *changes;		/* RowChange * */
} MergeState;

static void
add_change(MergeState *m, const char *data, int len, int64 count)
{
	RowChange  *c = palloc(sizeof(RowChange));

	c->data = data;
	c->len = len;
	c->count = count;
	m->changes = lappend(m->changes, c);
}

/* Move past the current run of equal result rows, and count the next. */
static void
next_run(MergeState *m)
{
	m->next += m->run;
	m->run = m->next < m->nrows ? 1 : 0;
	while (m->next + m->run < m->nrows &&
		   row_cmp(&m->rows[m->next], &m->rows[m->next + m->run]) == 0)
		m->run++;
}

static bool
merge_shown(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	MergeState *m = arg;
	int64		was = HsCountedRowCount(value);

	/* result rows before this one are new */
	while (m->run > 0)
	{
		MinimalTuple first = m->rows[m->next];
		int64		n = m->run;
		int			c = bytes_cmp((const char *) first, first->t_len, key, keylen);

		if (c > 0)
			break;
		next_run(m);
		if (c < 0)
			add_change(m, (const char *) first, first->t_len, n);
		else
		{
			if (n != was)
				add_change(m, (const char *) first, first->t_len, n - was);
			return true;
		}
	}
	/* a row no longer returned (a copy of its bytes: the scan reuses them) */
	{
		char	   *copy = palloc(keylen);

		memcpy(copy, key, keylen);
		add_change(m, copy, keylen, -was);
	}
	return true;
}

static void
recompute_flush(HsExec *self)
{
	RecomputeExec *r = (RecomputeExec *) self;
	MemoryContext cxt;
	MemoryContext old;
	FillState	f;
	ResultReceiver rr;
	MergeState	m;
	ListCell   *lc;

	/* (a backfill's chunk: the last one computes the query once) */
	if (r->rows->store->more_to_come)
	{
		HsExecFlush(self->downstream);
		return;
	}
	if (!pending_changes(r))
	{
		if (hash_get_num_entries(r->pending) > 0)
			forget_pending(r);	/* (pushes that cancelled out) */
		HsExecFlush(self->downstream);
		return;
	}
	cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream recompute",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);

	/*
	 * every kept row, as many times as it is counted (in memory up to
	 * maintenance_work_mem, as the capture reader's keys: a relation the
	 * query scans once per recursion step should not be read from disk)
	 */
	memset(&f, 0, sizeof(f));
	f.r = r;
	f.ts = tuplestore_begin_heap(false, false, Max(work_mem, maintenance_work_mem));
	f.values = palloc(sizeof(Datum) * r->enr_desc->natts);
	f.nulls = palloc(sizeof(bool) * r->enr_desc->natts);
	HsStateTableScanPrefix(r->rows, NULL, 0, fill_row, &f);

	/* the query's result, sorted */
	memset(&rr, 0, sizeof(rr));
	HsRowsReceiverInit(&rr.pub, result_receive);
	rr.r = r;
	rr.cxt = cxt;
	rr.cap = 1024;
	rr.rows = palloc(sizeof(MinimalTuple) * rr.cap);
	rr.max_rows = hs_recompute_max_rows;
	HsRowsQueryRun(r->plan, "hummock_stream: recompute a query", HS_KEPT_ROWS_ENR,
				   r->enr_desc, f.ts, &rr.pub);
	tuplestore_end(f.ts);
	qsort(rr.rows, rr.nrows, sizeof(MinimalTuple), row_cmp);

	/* against what it showed */
	memset(&m, 0, sizeof(m));
	m.rows = rr.rows;
	m.nrows = rr.nrows;
	next_run(&m);
	HsStateTableScanPrefix(r->shown, NULL, 0, merge_shown, &m);
	while (m.run > 0)
	{
		MinimalTuple first = m.rows[m.next];
		int64		n = m.run;

		next_run(&m);
		add_change(&m, (const char *) first, first->t_len, n);
	}

	/* deletes first, then inserts; shown follows */
	foreach(lc, m.changes)
	{
		RowChange  *c = lfirst(lc);

		if (c->count < 0)
			HsRowsEmitBytes(&r->exec, c->data, c->len, -c->count, -1);
	}
	foreach(lc, m.changes)
	{
		RowChange  *c = lfirst(lc);

		if (c->count > 0)
			HsRowsEmitBytes(&r->exec, c->data, c->len, c->count, +1);
		HsRowsCountAdd(r->shown, c->data, c->len, c->count, "recomputed query");
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);

	forget_pending(r);
	HsExecFlush(self->downstream);
}

static void
recompute_reset(HsExec *self)
{
	forget_pending((RecomputeExec *) self);
}

static const HsExecMethods recompute_methods = {
	.name = "RecomputeQuery",
	.push = recompute_push,
	.flush = recompute_flush,
	.reset = recompute_reset,
	.out_ops = &TTSOpsVirtual,
	.row_context = "hummock_stream recompute row",
};

RangeTblEntry *
HsExecKeptRowsRte(TupleDesc in_desc)
{
	TupleDesc	enr_desc = HsRowsOrdinalDesc(in_desc);

	return linitial(HsRowsQuery(HS_KEPT_ROWS_ENR, enr_desc)->rtable);
}

HsExec *
HsExecRecomputeQueryCreate(TupleDesc in_desc, Query *query,
						   HsStateTable *rows, HsStateTable *shown)
{
	TupleDesc	out = ExecCleanTypeFromTL(query->targetList);
	RecomputeExec *r = HsExecCreate(sizeof(RecomputeExec), &recompute_methods, out);

	r->in_desc = in_desc;
	r->enr_desc = HsRowsOrdinalDesc(in_desc);
	r->rows = rows;
	r->shown = shown;
	r->plan = pg_plan_query(copyObject(query), "hummock_stream: recompute a query", 0, NULL);
	r->pending_cxt = AllocSetContextCreate(CurrentMemoryContext,
										   "hummock_stream recompute pending rows",
										   ALLOCSET_SMALL_SIZES);
	forget_pending(r);
	return &r->exec;
}
