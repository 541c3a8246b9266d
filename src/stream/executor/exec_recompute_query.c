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
 * A pushed row updates its count at once and marks the executor touched.
 * At the flush of a touched epoch every kept row goes into an ephemeral
 * named relation (HS_KEPT_ROWS_ENR: ord int4, always 0, then the input
 * columns; rows_query.c), the query (planned once when the executor is
 * built, by pg_plan_query) runs over it, and its result rows are compared
 * with shown: the rows it showed and no longer returns are emitted as
 * deletes, then the new ones as inserts, and shown follows.  A backfill
 * computes the query once, at its last chunk.
 *
 * Cost per touched epoch: a scan of every kept row and of shown, the
 * query, and the result and shown in memory (two hash tables of the
 * result's rows).  An untouched epoch costs nothing.
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
	bool		touched;		/* rows changed since the last computation */
} RecomputeExec;

int			hs_recompute_max_rows = 10000000;

/* A row's canonical bytes and how many copies of it. */
typedef struct CountEntry
{
	HsBytesKey	key;			/* (hash key: must be first) */
	int64		count;
} CountEntry;

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
	r->touched = true;
	MemoryContextSwitchTo(old);
}

/* Scan state: the kept rows into the relation, or shown into counts. */
typedef struct Visit
{
	RecomputeExec *r;
	Tuplestorestate *ts;
	Datum	   *values;
	bool	   *nulls;
	HTAB	   *counts;
} Visit;

static bool
visit_row(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	Visit	   *v = arg;

	HsRowsPut(v->ts, v->r->enr_desc, 0, v->r->in_desc, key, keylen,
			  HsCountedRowCount(value), v->values, v->nulls);
	return true;
}

static bool
visit_shown(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	Visit	   *v = arg;
	HsBytesKey	k;
	CountEntry *e;
	bool		found;

	k.data = palloc(keylen);
	memcpy(k.data, key, keylen);
	k.len = keylen;
	e = hash_search(v->counts, &k, HASH_ENTER, &found);
	if (!found)
		e->count = 0;
	e->count += HsCountedRowCount(value);
	return true;
}

/* Collects the query's result rows as canonical bytes -> count. */
typedef struct ResultReceiver
{
	DestReceiver pub;
	RecomputeExec *r;
	HTAB	   *counts;
	MemoryContext cxt;			/* where the rows' bytes are kept (the
								 * query's own memory ends with its run) */
	int64		nrows;
	int64		max_rows;
} ResultReceiver;

static bool
result_receive(TupleTableSlot *slot, DestReceiver *self)
{
	ResultReceiver *rr = (ResultReceiver *) self;
	TupleDesc	out = rr->r->exec.out_desc;
	MinimalTuple mt;
	HsBytesKey	k;
	CountEntry *e;
	bool		found;
	MemoryContext old;

	if (++rr->nrows > rr->max_rows)
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
	mt = HsCanonicalTuple(out, slot->tts_values, slot->tts_isnull);
	k.data = (char *) mt;
	k.len = mt->t_len;
	e = hash_search(rr->counts, &k, HASH_ENTER, &found);
	if (!found)
		e->count = 0;
	else
		pfree(mt);
	e->count++;
	MemoryContextSwitchTo(old);
	return true;
}

static void
recompute_flush(HsExec *self)
{
	RecomputeExec *r = (RecomputeExec *) self;
	MemoryContext cxt;
	MemoryContext old;
	Visit		v;
	ResultReceiver rr;
	HTAB	   *fresh;
	HTAB	   *shown;
	HASH_SEQ_STATUS status;
	CountEntry *e;

	/* (a backfill's chunk: the last one computes the query once) */
	if (!r->touched || r->rows->store->more_to_come)
	{
		HsExecFlush(self->downstream);
		return;
	}
	cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream recompute",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);

	/* every kept row, as many times as it is counted */
	memset(&v, 0, sizeof(v));
	v.r = r;
	v.ts = tuplestore_begin_heap(false, false, work_mem);
	v.values = palloc(sizeof(Datum) * r->enr_desc->natts);
	v.nulls = palloc(sizeof(bool) * r->enr_desc->natts);
	HsStateTableScanPrefix(r->rows, NULL, 0, visit_row, &v);

	/* the query's result */
	fresh = HsBytesKeyHashCreate("hummock_stream recomputed rows", sizeof(CountEntry), 1024,
								 cxt);
	memset(&rr, 0, sizeof(rr));
	HsRowsReceiverInit(&rr.pub, result_receive);
	rr.r = r;
	rr.counts = fresh;
	rr.cxt = cxt;
	rr.max_rows = hs_recompute_max_rows;
	HsRowsQueryRun(r->plan, "hummock_stream: recompute a query", HS_KEPT_ROWS_ENR,
				   r->enr_desc, v.ts, &rr.pub);
	tuplestore_end(v.ts);

	/* what it showed against what it returns now: deletes first */
	shown = HsBytesKeyHashCreate("hummock_stream recomputed shown", sizeof(CountEntry), 1024,
								 cxt);
	v.counts = shown;
	HsStateTableScanPrefix(r->shown, NULL, 0, visit_shown, &v);
	hash_seq_init(&status, shown);
	while ((e = hash_seq_search(&status)) != NULL)
	{
		CountEntry *f = hash_search(fresh, &e->key, HASH_FIND, NULL);
		int64		gone = e->count - (f ? f->count : 0);

		if (gone > 0)
		{
			HsRowsEmitBytes(&r->exec, e->key.data, e->key.len, gone, -1);
			HsRowsCountAdd(r->shown, e->key.data, e->key.len, -gone, "recomputed query");
		}
	}
	hash_seq_init(&status, fresh);
	while ((e = hash_seq_search(&status)) != NULL)
	{
		CountEntry *o = hash_search(shown, &e->key, HASH_FIND, NULL);
		int64		added = e->count - (o ? o->count : 0);

		if (added > 0)
		{
			HsRowsEmitBytes(&r->exec, e->key.data, e->key.len, added, +1);
			HsRowsCountAdd(r->shown, e->key.data, e->key.len, added, "recomputed query");
		}
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);

	r->touched = false;
	HsExecFlush(self->downstream);
}

static const HsExecMethods recompute_methods = {
	.name = "RecomputeQuery",
	.push = recompute_push,
	.flush = recompute_flush,
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
	r->touched = false;
	return &r->exec;
}
