/*-------------------------------------------------------------------------
 *
 * agg_internal.h
 *	  What the streaming hash aggregation's files share: the accumulators
 *	  of a call in a group (agg_accumulators.c) and the ordered state of
 *	  min/max and DISTINCT calls (agg_ordered_state.c), used by the
 *	  executor (exec_hash_agg.c).
 *
 * src/stream/executor/agg_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_EXECUTOR_AGG_INTERNAL_H
#define HS_STREAM_EXECUTOR_AGG_INTERNAL_H

#include "fmgr.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"

#include "hummock_stream/stream/bytes_key_hash.h"
#include "hummock_stream/stream/executor.h"

/* The accumulators of one aggregate call in one group. */
typedef struct AggAcc
{
	int64		count;			/* non-NULL inputs */
	Datum		sum;
	bool		sum_null;
	Datum		val;			/* min/max: current extreme */
	bool		val_null;
	char	   *val_key;		/* its memcmp encoding */
	int			val_key_len;
	bool		rescan;			/* min/max: the extreme went away */
	int64		ntrue;
	/* numeric sum/avg: inputs per display scale; numeric and float: special inputs */
	int			n_scales;
	int32	   *scales;			/* >= 0, or a special class (agg_accumulators.c) */
	int64	   *scale_counts;
} AggAcc;

/* How a sum or avg call accumulates. */
typedef struct AggSumOps
{
	Oid			sumtype;
	int16		sumlen;			/* its typlen and typbyval */
	bool		sumbyval;
	bool		numeric_input;	/* track scales and special values */
	bool		float_input;	/* track special values and -0 */
	bool		exact_float;	/* float input summed exactly: the sum is a
								 * bytea (exact_float_sum.h's encoding) */
	PGFunction	conv;			/* argument -> sum type, or NULL */
	PGFunction	add;
	PGFunction	sub;
} AggSumOps;

/* Columns of one call's accumulators in the state row. */
#define AGG_STATE_COLS_PER_CALL 5

/*
 * A copy of d, a value of type typid, in the current memory context (a
 * syscache lookup: per group, not per row; per row copy with the
 * attribute's attlen/attbyval, see copy_att_datum).
 */
static inline Datum
copy_datum(Datum d, Oid typid)
{
	int16		typlen;
	bool		typbyval;

	get_typlenbyval(typid, &typlen, &typbyval);
	return datumCopy(d, typbyval, typlen);
}

/* A copy of d, a value of attribute att, in the current memory context. */
static inline Datum
copy_att_datum(Datum d, Form_pg_attribute att)
{
	return datumCopy(d, att->attbyval, att->attlen);
}

/* ---- agg_accumulators.c ---- */

/* How sum(argtype) or avg(argtype) accumulates, in *ops; false: unsupported. */
extern bool AggSumOpsFor(HsAggKind kind, Oid argtype, bool exact_float, AggSumOps *ops);

/* A group's accumulators before any input. */
extern void AggAccInit(AggAcc *acc);

/*
 * Add (sign > 0) or take out (sign < 0) the non-NULL input v of a sum or
 * avg call over argtype, once acc->count counts the change; the running
 * sum and the scale counts live in group_cxt.
 */
extern void AggAccAddSum(AggAcc *acc, const AggSumOps *ops, Oid argtype, Datum v,
						 int sign, MemoryContext group_cxt);

/* The value the call shows for a group of rows rows with accumulators acc. */
extern Datum AggAccResult(const HsAggCall *call, const AggSumOps *ops,
						  const AggAcc *acc, int64 rows, bool *isnull);

/* Describe the call's state-row columns, from attno first on. */
extern void AggAccDescribe(TupleDesc state_desc, AttrNumber first, const HsAggCall *call,
						   const AggSumOps *ops);

/* acc as the call's state-row columns, values/nulls[0..COLS_PER_CALL-1]. */
extern void AggAccEncode(const AggAcc *acc, Datum *values, bool *nulls);

/*
 * acc (as AggAccInit leaves it) from the call's state-row columns, its
 * values copied into group_cxt; identity_send: the min/max value counts'
 * (AggValueCounts), whose keys the extreme's encoding matches.
 */
extern void AggAccDecode(AggAcc *acc, const HsAggCall *call, const AggSumOps *ops,
						 FmgrInfo *identity_send, Datum *values, bool *nulls,
						 MemoryContext group_cxt);

/* ---- agg_ordered_state.c ---- */

/*
 * The (group, call, value) -> count rows of one min/max or DISTINCT call,
 * in the aggregation's min/max state table.
 */
typedef struct AggValueCounts
{
	HsStateTable *table;
	TupleDesc	desc;			/* a stored value: (value, count int8) */
	uint8		callno;
	Oid			argtype;
	bool		descending;		/* max: values encoded descending */
	bool		distinct;		/* a DISTINCT call (else min/max) */
	bool		by_row;			/* min/max keyed by row, not counted per
								 * value (HsExecHashAggKeepValuesByRow) */
	FmgrInfo   *identity_send;	/* min/max of a type whose encoding folds
								 * values that print differently: the send
								 * function of its identity tail; else NULL */
} AggValueCounts;

/*
 * The value-count changes of an aggregation not yet applied to its table
 * (agg_ordered_state.c): every input pushed since the last apply, with
 * its key (group, call, value) and sign.
 */
typedef struct AggPendingCounts
{
	MemoryContext cxt;			/* the changes, emptied by each apply */
	struct PendingChange *changes;	/* in push order */
	uint32		n;
	uint32		cap;
	char	   *keys;			/* their keys, one after another */
	Size		keys_len;
	Size		keys_cap;
	StringInfoData scratch;
	StringInfoData scratch2;
} AggPendingCounts;

extern void AggValueCountsInit(AggValueCounts *vc, HsStateTable *table, int callno,
							   const HsAggCall *call, bool by_row);

extern void AggPendingInit(AggPendingCounts *p, MemoryContext parent);

/*
 * A min/max or DISTINCT call vc: count one more (sign > 0) or one fewer
 * input with value v in the group whose key is group, acc its
 * accumulators there (which must stay where they are until the apply);
 * rowkey: the memcmp encoding of the input row's unique key, for a call
 * kept by row (else unused).  A min/max input below the extreme becomes
 * the extreme (copied into group_cxt).
 */
extern void AggValueCountsAdd(AggPendingCounts *p, const AggValueCounts *vc,
							  const HsBytesKey *group, AggAcc *acc, Datum v, int sign,
							  HsSlice rowkey, MemoryContext group_cxt);

/* Do the pending changes hold enough memory to be applied now? */
extern bool AggPendingFull(const AggPendingCounts *p);

/*
 * A DISTINCT call's set of values changed: value v of call callno joined
 * (sign > 0) or left (sign < 0) the group whose accumulators are acc.
 */
typedef void (*AggDistinctChanged) (void *arg, int callno, AggAcc *acc, Datum v, int sign);

/*
 * Apply the pending changes to the table (see agg_ordered_state.c):
 * DISTINCT set changes go to changed, a min/max extreme whose last input
 * went is marked for rescan (AggMinMaxRescanAll, after the last apply of the
 * epoch), and one that stays is set to the value as stored (in group_cxt).
 */
extern void AggPendingApply(AggPendingCounts *p, AggDistinctChanged changed, void *arg,
							MemoryContext group_cxt);

/* Forget the pending changes (error recovery). */
extern void AggPendingDiscard(AggPendingCounts *p);

/* A min/max call's extreme to find again: its call, group and accumulators. */
typedef struct AggRescan
{
	const AggValueCounts *vc;
	const HsBytesKey *group;
	AggAcc	   *acc;
} AggRescan;

/*
 * Find the extremes of rescans[0..n) again from their state table (one
 * table: the calls of one aggregation), in one forward pass.
 */
extern void AggMinMaxRescanAll(AggRescan *rescans, int n, MemoryContext group_cxt);

/*
 * A DISTINCT call: count one more (sign > 0) or one fewer input with value
 * *v in the group.  Returns whether the set of distinct values changed;
 * then *v is the value to add or take out.
 */
extern bool AggDistinctApply(const AggValueCounts *vc, const HsBytesKey *group, Datum *v,
							 int sign);

/* ---- agg_recompute.c ---- */

/*
 * The RECOMPUTE calls of an aggregation: the kept rows of its groups, in
 * the min/max state table, and the query that aggregates them again.
 */
typedef struct AggRecompute
{
	HsStateTable *table;
	bool		grouped;		/* the aggregation has group keys */
	int			ncols;			/* kept columns: input columns cols[] */
	int		   *cols;
	TupleDesc	kept_desc;		/* a kept row */
	TupleDesc	enr_desc;		/* (ord int4, kept columns...) */
	int			ncalls;			/* RECOMPUTE calls: callno[] among all calls */
	int		   *callno;
	struct PlannedStmt *plan;	/* NULL without RECOMPUTE calls */
	TupleTableSlot *rows_slot;	/* a row of enr_desc, for MOVING calls */
	StringInfoData key;			/* scratch */
} AggRecompute;

/* Plan the recompute query (in a transaction, in a long-lived context). */
extern void AggRecomputeInit(AggRecompute *r, HsStateTable *table, TupleDesc in_desc,
							 const HsAggKeptRows *kept, const HsAggCall *calls,
							 int ncalls, bool grouped);

/* Count one more (sign > 0) or one fewer kept row of input row in group. */
extern void AggRecomputeApply(AggRecompute *r, const HsBytesKey *group,
							  TupleTableSlot *row, int sign);

/*
 * Aggregate the kept rows of groups[0..ngroups) again: the value of the
 * k-th RECOMPUTE call of group g goes to results/nulls[g * r->ncalls + k],
 * copied into the current memory context.  Without group keys, ngroups
 * is 1.
 */
extern void AggRecomputeRun(AggRecompute *r, const HsBytesKey *const *groups,
							int ngroups, Datum *results, bool *nulls);

/* r->rows_slot as the kept row of input row (ord 0). */
extern TupleTableSlot *AggRecomputeRowSlot(AggRecompute *r, TupleTableSlot *row);

/*
 * Call fn with r->rows_slot holding each kept row of group in turn, and
 * how many input rows have it.
 */
typedef void (*AggKeptRowFn) (void *arg, TupleTableSlot *rows_slot, int64 count);
extern void AggRecomputeScanGroup(AggRecompute *r, const HsBytesKey *group,
								  AggKeptRowFn fn, void *arg);

/* ---- agg_moving.c ---- */

/* A MOVING call: its functions, its arguments over a kept row. */
typedef struct AggMoving
{
	Oid			statetype;
	int16		statelen;
	bool		statebyval;
	Datum		init;			/* the initial state */
	bool		init_null;
	Oid			collation;
	char		finalmodify;
	int			nargs;
	struct ExprState **args;	/* over a row of (ord, kept columns...) */
	struct ExprState *filter;	/* or NULL */
	struct ExprContext *econtext;
	FmgrInfo	transfn;
	FmgrInfo	invfn;
	FmgrInfo	finalfn;
	int			nfinalargs;		/* 0: no final function */
	FunctionCallInfo fcinfo;
	FunctionCallInfo final_fcinfo;
	MemoryContext call_cxt;		/* a transition call's result, until copied */
} AggMoving;

/*
 * Look the call's moving functions up and check who may run them, as
 * Postgres's Agg node does (in a long-lived context).
 */
extern void AggMovingInit(AggMoving *m, const HsAggCall *call);

/* acc holds the initial state, of no rows. */
extern void AggMovingReset(const AggMoving *m, AggAcc *acc, MemoryContext group_cxt);

/*
 * Add (sign > 0) or take out the row in rows_slot; an inverse that cannot
 * take it out sets acc->rescan: the state is then rebuilt (AggMovingReset,
 * then AggMovingAddKept per kept row) before it is shown.
 */
extern void AggMovingApply(AggMoving *m, AggAcc *acc, TupleTableSlot *rows_slot,
						   int sign, MemoryContext group_cxt);
extern void AggMovingAddKept(AggMoving *m, AggAcc *acc, TupleTableSlot *rows_slot,
							 int64 count, MemoryContext group_cxt);

/* The call's value for the state in acc (in the current memory context). */
extern Datum AggMovingResult(AggMoving *m, const AggAcc *acc, bool *isnull);

#endif							/* HS_STREAM_EXECUTOR_AGG_INTERNAL_H */
