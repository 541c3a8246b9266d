/*-------------------------------------------------------------------------
 *
 * executor.h
 *	  Streaming executors: operators that turn changes into changes.
 *
 * A job's executors form a chain (a tree once joins arrive): each receives
 * rows with a sign (+1 insert, -1 delete) through push, and at the end of
 * every epoch flush emits what it buffered, writes its state tables for
 * the epoch, and flushes its downstream.  An update is a delete of the old
 * row followed by an insert of the new one.
 *
 * Rows travel in TupleTableSlots; a pushed slot is valid only during the
 * call (an executor copies what it keeps).  Expressions are evaluated by
 * Postgres's own executor (ExecInitExpr/ExecProject), with the input row
 * as the scan tuple (Var varno 1).
 *
 * include/hummock_stream/stream/executor.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_EXECUTOR_H
#define HS_STREAM_EXECUTOR_H

#include "executor/tuptable.h"
#include "nodes/pg_list.h"

#include "hummock_stream/stream/state_table.h"

typedef struct HsExec HsExec;

struct HsExec
{
	const char *name;
	TupleDesc	out_desc;		/* rows this executor emits */
	HsExec	   *downstream;
	void		(*push) (HsExec *self, TupleTableSlot *row, int sign);
	void		(*flush) (HsExec *self);
	/* drop cached state (after an error or when the job stops) */
	void		(*reset) (HsExec *self);
};

static inline void
HsExecPush(HsExec *e, TupleTableSlot *row, int sign)
{
	e->push(e, row, sign);
}

static inline void
HsExecFlush(HsExec *e)
{
	e->flush(e);
}

/*
 * Filter and project: rows for which qual (a List of boolean Exprs over the
 * input, implicitly ANDed; NIL: all) holds become targetlist (a List of
 * TargetEntry over the input, resno 1..n) rows.
 */
extern HsExec *HsExecProjectCreate(TupleDesc in_desc, List *qual,
								   List *targetlist);

/* What an aggregate call computes. */
typedef enum HsAggKind
{
	HS_AGG_COUNT_STAR,
	HS_AGG_COUNT,
	HS_AGG_SUM,
	HS_AGG_AVG,
	HS_AGG_MIN,
	HS_AGG_MAX,
	HS_AGG_BOOL_AND,
	HS_AGG_BOOL_OR
} HsAggKind;

typedef struct HsAggCall
{
	HsAggKind	kind;
	int			arg;			/* input column (0-based), -1 for count(*) */
	Oid			argtype;
	Oid			restype;		/* as Postgres's aggregate returns it */
} HsAggCall;

/* Can the streaming aggregation compute kind over argtype? */
extern bool HsAggSupported(HsAggKind kind, Oid argtype);

/* hummock_stream.agg_cache_groups */
extern int	hs_agg_cache_groups;

/*
 * Hash aggregation with retractable state.  Input rows are [group key
 * columns 0..nkeys-1, aggregate arguments...]; output rows are [group key
 * columns, one column per call].  state: per group (memcmp key of the
 * group) the group's accumulators; minmax (needed if any call is min or
 * max): per group, call and value, how many input rows have that value.
 * Without group keys (nkeys = 0) there is always exactly one output row,
 * as Postgres returns for an aggregate over no rows.
 */
extern HsExec *HsExecHashAggCreate(TupleDesc in_desc, int nkeys,
								   HsAggCall *calls, int ncalls,
								   HsStateTable *state, HsStateTable *minmax,
								   bool always_one_group);

/*
 * Materialize into the view's table: input rows are [view columns
 * 0..nview-1, key columns nview..nview+nkey-1, (multiplicity)]; the row
 * stored is the view columns, under the memcmp key of the key columns.
 * With has_count (no unique key), the last input column is how many copies
 * of the row exist (the input is a count(*) aggregation over the view
 * columns) and copy i is stored under memcmp(view columns) | BE64(i).
 */
extern HsExec *HsExecMaterializeCreate(TupleDesc in_desc, TupleDesc view_desc,
									   int nkey, bool has_count,
									   HsStateTable *view);

#endif							/* HS_STREAM_EXECUTOR_H */
