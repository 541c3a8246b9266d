/*-------------------------------------------------------------------------
 *
 * rows_query.h
 *	  Running a Postgres plan over rows an executor holds
 *	  (rows_query.c), for the executors that let Postgres compute what
 *	  they cannot keep incrementally: recomputed aggregates
 *	  (agg_recompute.c), window functions (exec_over_window.c) and whole
 *	  queries (exec_recompute_query.c); and the counted rows they keep.
 *
 * src/stream/executor/rows_query.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_EXECUTOR_ROWS_QUERY_H
#define HS_STREAM_EXECUTOR_ROWS_QUERY_H

#include "nodes/parsenodes.h"
#include "tcop/dest.h"
#include "utils/tuplestore.h"

/*
 * "SELECT ... FROM <enrname>": a Query over an ephemeral named relation
 * of rows shaped desc (range table entry 1); the caller adds the target
 * list, grouping and windows, and plans it with pg_plan_query.
 */
extern Query *HsRowsQuery(const char *enrname, TupleDesc desc);

/* (ord int4, then desc's columns named c1, c2, ...): a run's relation. */
extern TupleDesc HsRowsOrdinalDesc(TupleDesc desc);

/*
 * Put count copies of a stored row (row_desc; its bytes at row, len) into
 * rows as (ordinal ord, the row's columns), rows shaped enr_desc;
 * values/nulls: scratch of enr_desc->natts.
 */
extern void HsRowsPut(Tuplestorestate *rows, TupleDesc enr_desc, int32 ord,
					  TupleDesc row_desc, const char *row, int len, int64 count,
					  Datum *values, bool *nulls);

/*
 * GROUP BY / PARTITION BY of the int4 column (target entry with
 * ressortgroupref ref) that numbers the groups or partitions of a run.
 */
extern SortGroupClause *HsRowsByOrdinal(Index ref);

/* A DestReceiver that hands every row to receive (the rest do nothing). */
extern void HsRowsReceiverInit(DestReceiver *dest,
							   bool (*receive) (TupleTableSlot *slot, DestReceiver *self));

/*
 * Run plan (made from an HsRowsQuery over enrname, desc) with rows as the
 * relation's rows, every result row sent to dest; what names the run.
 */
extern void HsRowsQueryRun(PlannedStmt *plan, const char *what, const char *enrname,
						   TupleDesc desc, Tuplestorestate *rows, DestReceiver *dest);

/*
 * Kept rows are counted rows: key -> int64 count.  Add delta to the count
 * of key in table (the entry goes at 0); below 0 is corruption, reported
 * as "a streaming <what> was asked to remove a row it does not hold".
 */
extern void HsRowsCountAdd(struct HsStateTable *table, const char *key, int keylen,
						   int64 delta, const char *what);

/*
 * Emit count copies, with sign, of the row whose canonical bytes
 * (HsCanonicalTuple of e's out_desc) are data[0..len), through e's out slot.
 */
extern void HsRowsEmitBytes(struct HsExec *e, const char *data, int len, int64 count,
							int sign);

#endif							/* HS_STREAM_EXECUTOR_ROWS_QUERY_H */
