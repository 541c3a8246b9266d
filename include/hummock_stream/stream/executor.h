/*-------------------------------------------------------------------------
 *
 * executor.h
 *	  Streaming executors: operators that turn changes into changes.
 *
 * A job's executors form a tree whose leaves read the sources: each receives
 * rows with a sign (+1 insert, -1 delete) through push, and at the end of
 * every epoch flush emits what it buffered, writes its state tables for
 * the epoch, and flushes its downstream.  An update is a delete of the old
 * row followed by an insert of the new one.  An executor with several
 * inputs (join, union) has one port per input and flushes its downstream
 * once all its ports are flushed, so the job flushes every leaf once per
 * epoch and each executor is flushed once.
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
#include "nodes/primnodes.h"
#include "nodes/pg_list.h"

#include "hummock_stream/stream/state_table.h"

typedef struct HsExec HsExec;

typedef void (*HsExecPushFunc) (HsExec *self, TupleTableSlot *row, int sign);
typedef void (*HsExecFlushFunc) (HsExec *self);
typedef void (*HsExecResetFunc) (HsExec *self);

struct HsExec
{
	const char *name;
	TupleDesc	out_desc;		/* rows this executor emits */
	HsExec	   *downstream;
	HsExecPushFunc push;
	HsExecFlushFunc flush;
	/* drop cached state (after an error or when the job stops) */
	HsExecResetFunc reset;
	TupleTableSlot *out;		/* the slot it emits rows in, or NULL */
	MemoryContext row_cxt;		/* reset per pushed row, or NULL */

	/*
	 * Statistics (job_stats): rows pushed in and emitted.  A port (an input
	 * of a join or union) counts its rows in its executor's rows_in: its
	 * counter points there (HsExecCountInto), and its downstream is that
	 * executor, so a walk from the leaves meets every executor.
	 */
	uint64	   *rows_in_counter;	/* &rows_in, or the owner's */
	uint64		rows_in;
	uint64		rows_out;
};

/*
 * What a kind of executor (or of input port) is: one static const table
 * per kind, which HsExecInit copies into each HsExec (the callbacks stay
 * direct fields: a push costs one indirect call).
 */
typedef struct HsExecMethods
{
	const char *name;
	HsExecPushFunc push;
	HsExecFlushFunc flush;
	HsExecResetFunc reset;		/* NULL: nothing to drop */
	const TupleTableSlotOps *out_ops;	/* kind of the out slot; NULL: none */
	const char *row_context;	/* name of row_cxt, a string constant (the
								 * context keeps the pointer); NULL: none */
} HsExecMethods;

/*
 * Set up e (zeroed, or embedded in a zeroed executor, as a port is) as an
 * executor of kind m emitting rows of out_desc: its name, callbacks, and
 * the out slot and row context m asks for, in the current memory context.
 */
extern void HsExecInit(HsExec *e, const HsExecMethods *m, TupleDesc out_desc);

/*
 * A new executor: size zeroed bytes (a struct that begins with its HsExec)
 * set up by HsExecInit.
 */
extern void *HsExecCreate(Size size, const HsExecMethods *m, TupleDesc out_desc);

/* Pushes since the last check for interrupts (HsExecPush). */
extern uint32 hs_exec_pushes;

/* Every this many pushes, HsExecPush checks for interrupts. */
#define HS_EXEC_PUSHES_PER_CHECK 1024

/*
 * CHECK_FOR_INTERRUPTS, and exit if the postmaster died: a long epoch (a
 * join whose one change fans out to many rows, a backfill) must notice a
 * cancel or a terminate, and a postmaster killed with -9 cannot restart
 * the server while one of its children still runs.
 */
extern void HsExecCheckInterrupts(void);

/* hummock_stream.view_memory_limit (MB; -1: a quarter of RAM; 0: none) */
extern int	hs_view_memory_limit_mb;

/*
 * ERROR (out of memory) if the process's memory contexts hold more than
 * hummock_stream.view_memory_limit; HsExecCheckInterrupts calls it now and
 * then.
 */
extern void HsExecCheckMemory(void);

static inline void
HsExecPush(HsExec *e, TupleTableSlot *row, int sign)
{
	if (unlikely(++hs_exec_pushes >= HS_EXEC_PUSHES_PER_CHECK))
		HsExecCheckInterrupts();
	(*e->rows_in_counter)++;
	e->push(e, row, sign);
}

/* Emit a row of self's downstream (what every executor does with a result). */
static inline void
HsExecEmit(HsExec *self, TupleTableSlot *row, int sign)
{
	self->rows_out++;
	HsExecPush(self->downstream, row, sign);
}

/* A port of owner: its rows count as owner's, and a walk goes on to owner. */
static inline void
HsExecCountInto(HsExec *port, HsExec *owner)
{
	port->rows_in_counter = &owner->rows_in;
	port->downstream = owner;
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
	HS_AGG_BOOL_OR,
	HS_AGG_RECOMPUTE,			/* any other: recomputed per touched group */
	HS_AGG_MOVING				/* with moving-aggregate support: its
								 * transition and inverse transition
								 * functions, recomputed only when the
								 * inverse cannot take a row out */
} HsAggKind;

/* Calls per aggregation: one byte numbers them in state keys, 0xFF is taken. */
#define HS_AGG_MAX_CALLS 254

typedef struct HsAggCall
{
	HsAggKind	kind;
	int			arg;			/* input column (0-based), -1 for count(*) */
	int			filter;			/* input column (bool) of its FILTER, or -1:
								 * rows where it is not true are left out */
	bool		distinct;		/* over the distinct non-NULL values */
	Oid			argtype;
	Oid			restype;		/* as Postgres's aggregate returns it */
	struct Aggref *aggref;		/* RECOMPUTE, MOVING: the call over the kept
								 * rows (HsAggKeptRows: Var varno 1, attno
								 * 2 .. ncols + 1; attno 1 is taken) */
	Oid			statetype;		/* MOVING: its moving state type, resolved */
	bool		exact_float_sum;	/* SUM, AVG of float4/float8: kept exact
									 * (views planned before keep a float) */
} HsAggCall;

/*
 * The input columns a group keeps of each of its rows, as a multiset, for
 * its RECOMPUTE and MOVING calls (none: ncols = 0).
 */
typedef struct HsAggKeptRows
{
	int			ncols;
	int		   *cols;			/* input columns (0-based) */
} HsAggKeptRows;

/* Can the streaming aggregation compute kind over argtype? */
extern bool HsAggSupported(HsAggKind kind, Oid argtype);

/* hummock_stream.agg_cache_groups */
extern int	hs_agg_cache_groups;

/* hummock_stream.join_cache_size (kB, per join side) */
extern int	hs_join_cache_kb;

/*
 * Hash aggregation with retractable state.  Input rows are [group key
 * columns 0..nkeys-1, aggregate arguments...]; output rows are [group key
 * columns, one column per call].  state: per group (memcmp key of the
 * group) the group's accumulators; minmax (needed if any call is min or
 * max, DISTINCT or RECOMPUTE): per group, call and value, how many input
 * rows have that value, and per group the multiset of kept rows.
 * RECOMPUTE calls are computed again for every group an epoch touches, by
 * Postgres's own aggregation over the group's kept rows.
 * Without group keys (nkeys = 0) there is always exactly one output row,
 * as Postgres returns for an aggregate over no rows.
 */
extern HsExec *HsExecHashAggCreate(TupleDesc in_desc, int nkeys,
								   HsAggCall *calls, int ncalls,
								   const HsAggKeptRows *kept,
								   HsStateTable *state, HsStateTable *minmax,
								   bool always_one_group);

/*
 * Group by the identity of the key columns, not their equality: rows
 * whose columns print differently (numeric 1.0 and 1.00) are counted as
 * different groups (the row counts of a view without a key).
 */
extern void HsExecHashAggIdentifyRows(HsExec *agg);

/*
 * Keep the values of the min/max calls (not DISTINCT) by row: input
 * columns rowkey_cols[0..nrowkey-1] are a unique key of the input rows,
 * and each row's value is a state row of its own under (group, call,
 * value, memcmp(row key)), written without reading the table
 * (agg_ordered_state.c).  Without it they are counted per value.
 */
extern void HsExecHashAggKeepValuesByRow(HsExec *agg, int nrowkey, const int *rowkey_cols);

/*
 * Materialize into the view's table: the stored row is input columns
 * 0..nview-1 (nview = view_desc->natts), under the memcmp key of input
 * columns key_cols[0..nkey-1].  With has_count (no unique key), input
 * column nview is how many copies of the row exist (the input is a
 * count(*) aggregation over the view columns) and copy i is stored under
 * memcmp(view columns) | identity tails | BE64(i) (memcmp_key.c: rows
 * whose columns print differently are stored apart, as the HashAgg of
 * HsExecHashAggIdentifyRows counts them).
 */
extern HsExec *HsExecMaterializeCreate(TupleDesc in_desc, TupleDesc view_desc,
									   const int *key_cols, int nkey,
									   bool has_count, HsStateTable *view);

typedef enum HsJoinKind
{
	HS_JOIN_INNER,
	HS_JOIN_LEFT,				/* left rows without a match: right NULL */
	HS_JOIN_FULL,
	HS_JOIN_SEMI,				/* left rows with a match (once each) */
	HS_JOIN_ANTI				/* left rows without a match */
} HsJoinKind;

/*
 * Equi-join of two inputs (exec_hash_join.c).  left_keys and right_keys
 * are Exprs over each side's row (Var varno 1), pairwise of one type;
 * filter (implicitly ANDed Exprs over the left row's columns followed by
 * the right row's, or NIL) is part of the join condition.  *_ukey: the
 * columns of a unique key of that side, or NULL.  null_safe_keys: per key
 * pair, whether NULL matches NULL (IS NOT DISTINCT FROM), or NULL for
 * none (a NULL key matches nothing).  Upstream executors push
 * into *left_port and *right_port.  Output: left ++ right columns (INNER,
 * LEFT), the same and a bool saying whether the row has a left row (FULL),
 * or the left columns (SEMI, ANTI).
 */
extern HsExec *HsExecHashJoinCreate(HsJoinKind kind,
									TupleDesc left_desc, List *left_keys,
									const int *left_ukey, int left_nukey,
									TupleDesc right_desc, List *right_keys,
									const int *right_ukey, int right_nukey,
									List *filter, const bool *null_safe_keys,
									HsStateTable *left_state,
									HsStateTable *right_state,
									HsExec **left_port, HsExec **right_port);

/*
 * Consolidation (exec_consolidate.c): rows of desc pass through with the
 * inserts and deletes of equal rows within a chunk cancelled (net deletes
 * of a chunk first, then net inserts).
 */
extern HsExec *HsExecConsolidateCreate(TupleDesc desc);

/*
 * Set-returning functions of a select list (exec_project_set.c): funcs
 * are Exprs over the input row that return sets; output rows are [input
 * columns, one column per function, the row's position (int8, 1..n)
 * among those its input row made].  keep_empty: an input row for which
 * no function returns a row makes one row, NULL in the function columns
 * and the position (a LEFT JOIN LATERAL to a function in FROM).
 * row_types: NIL, or per function the blessed descriptor of the rows a
 * function returning record makes (its column definition list), NULL for
 * the others.
 */
extern HsExec *HsExecProjectSetCreate(TupleDesc in_desc, List *funcs,
									  List *row_types, bool keep_empty);

/*
 * A temporal filter (exec_dynamic_filter.c): the rows for which "key op
 * bound" holds, key an expression of the row (of key_type, whose memcmp
 * encoding is ordered), op the btree strategy (< <= > >=), bound an
 * expression of parameter 1 (timestamptz: the epoch's time).  rows keeps
 * every row by its key; rows pass from one side to the other as epochs
 * move the bound.  bypass (or NULL): a condition of the row, free of the
 * time, under which it passes anyway (and is not kept).
 */
extern HsExec *HsExecDynamicFilterCreate(TupleDesc in_desc, Expr *key, Oid key_type,
										 int strategy, Expr *bound, Expr *bypass,
										 HsStateTable *rows);

/*
 * Window functions (exec_over_window.c): input rows are partitioned by
 * partition_exprs (Exprs over the input row); every partition an epoch
 * touches is computed again by Postgres.  funcs are WindowFuncs, windows
 * their WindowClauses (whose PARTITION BY the executor replaces) and
 * order_exprs the sort expressions their ORDER BY clauses name (refs
 * 1..n), all over the rows of a relation whose column 1 is the partition
 * and 2.. the input columns.  Output rows: the input columns, then one
 * column per function.  rows keeps the input rows, shown what was
 * emitted.
 */
extern HsExec *HsExecOverWindowCreate(TupleDesc in_desc, List *partition_exprs,
									  List *funcs, List *windows, List *order_exprs,
									  HsStateTable *rows, HsStateTable *shown);

/*
 * The ORDER BY the windows of an OverWindow share and how far their
 * functions read from the current row, when every function reads a
 * bounded number of rows around it (lag/lead by a constant, a ROWS frame
 * with constant offsets): then a change computes again only the rows
 * around it (HsExecOverWindowRangedCreate).
 */
typedef struct HsWindowRanges
{
	int			nkeys;
	List	   *key_exprs;		/* the ORDER BY expressions over the input row */
	bool	   *desc;
	bool	   *nulls_first;
	Oid		   *colls;			/* InvalidOid: no collated sort key */
	int64		before;			/* a row's functions read rows up to before */
	int64		after;			/* ... and after positions around it */
	/*
	 * Functions of the whole prefix of the partition up to the row (its
	 * row_number, a running sum, ...): a change reaches every row after
	 * it.  Per function (NULL: none such), what its result over the rows
	 * from a peer group on is added to: the result over the rows before.
	 */
	struct HsWindowPrefix *prefix;
	/*
	 * Per function (NULL: none such), its RANGE frame with offsets, which
	 * reaches rows by their ORDER BY value (one key) rather than position.
	 */
	struct HsWindowValueFrame *value_frames;
	bool	   *shares_peers;	/* per function: results peers share (rank,
								 * RANGE frames): no tie order by position */
} HsWindowRanges;

/* A bound of a RANGE frame. */
typedef enum HsWindowBound
{
	HS_BOUND_NONE = 0,			/* (not a RANGE frame with offsets) */
	HS_BOUND_CURRENT,			/* CURRENT ROW: the current row's peers */
	HS_BOUND_PRECEDING,			/* offset PRECEDING */
	HS_BOUND_FOLLOWING			/* offset FOLLOWING */
} HsWindowBound;

/*
 * A RANGE frame with offsets: its rows are those whose ORDER BY value
 * in_range() (the window's support functions, as nodeWindowAgg.c calls
 * them) places between the bounds.
 */
typedef struct HsWindowValueFrame
{
	HsWindowBound start;
	HsWindowBound end;
	Datum		start_offset;
	Datum		end_offset;
	Oid			start_fn;		/* in_range functions */
	Oid			end_fn;
	Oid			collation;
	bool		asc;
	int16		offset_len[2];	/* typlen and typbyval of the offsets */
	bool		offset_byval[2];
} HsWindowValueFrame;

/* How a prefix function's result over rows R follows from one over P, P R. */
typedef enum HsWindowPrefixKind
{
	HS_PREFIX_NONE = 0,			/* reads a bounded number of rows */
	HS_PREFIX_ROW_NUMBER,		/* + the rows of P */
	HS_PREFIX_RANK,				/* + the rows of P */
	HS_PREFIX_DENSE_RANK,		/* + the peer groups of P */
	HS_PREFIX_COUNT,			/* + the count of P */
	HS_PREFIX_SUM,				/* addfn(sum of P, sum of R), NULLs skipped */
	HS_PREFIX_EXTREME			/* min/max-like (an aggsortop): the first
								 * by sortfn of the two, R's on a tie */
} HsWindowPrefixKind;

typedef struct HsWindowPrefix
{
	HsWindowPrefixKind kind;
	bool		rows_frame;		/* a ROWS frame (else peers share results) */
	Oid			fn;				/* SUM: the + function; EXTREME: sortop's */
	Oid			collation;		/* EXTREME: of the comparison */
} HsWindowPrefix;

/*
 * HsExecOverWindowCreate computing only the rows a change can reach, as
 * ranges says: rows keeps the input rows in ORDER BY order, rows_rev the
 * same in reverse, shown what was emitted in ORDER BY order.
 */
extern HsExec *HsExecOverWindowRangedCreate(TupleDesc in_desc, List *partition_exprs,
											List *funcs, List *windows, List *order_exprs,
											const HsWindowRanges *ranges,
											HsStateTable *rows, HsStateTable *rows_rev,
											HsStateTable *shown);

/*
 * A query computed again whole from the rows it reads
 * (exec_recompute_query.c): input rows are kept (as a multiset); at the
 * flush of an epoch that changed them, query runs over them and the
 * difference between its result and what was emitted before is emitted
 * (deletes first).  query reads the rows as the ephemeral named relation
 * HS_KEPT_ROWS_ENR, whose range table entry HsExecKeptRowsRte makes:
 * columns (ord int4, always 0, then in_desc's columns c1, c2, ...).
 * Output rows: query's target list.  rows keeps the input rows, shown
 * what was emitted.  A run returning more than hs_recompute_max_rows rows
 * (hummock_stream.recompute_max_rows) fails.
 */
#define HS_KEPT_ROWS_ENR "hummock_stream_kept_rows"
extern int	hs_recompute_max_rows;
struct Query;
struct RangeTblEntry;
extern struct RangeTblEntry *HsExecKeptRowsRte(TupleDesc in_desc);
extern HsExec *HsExecRecomputeQueryCreate(TupleDesc in_desc, struct Query *query,
										  HsStateTable *rows, HsStateTable *shown);

/*
 * Counted rows to copies (exec_replicate.c): input rows are [columns...,
 * count int8]; each becomes count rows of the columns, with its sign.
 */
extern HsExec *HsExecReplicateCreate(TupleDesc in_desc);

/*
 * UNION ALL of ninputs inputs with the same row type (exec_union.c):
 * pushes into ports[i] pass through; flushed once every port is.
 */
extern HsExec *HsExecUnionCreate(TupleDesc desc, int ninputs, HsExec **ports);

/*
 * Top-N per group (exec_top_n.c): of the input rows of each group (equal
 * group_cols), the ones at positions offset+1 .. offset+limit in the
 * order of sort_cols (sort_desc: descending, else ascending; NULLs first
 * where sort_nulls_first says, or with NULL for it where the direction's
 * default puts them: last ascending, first descending), plus rows tying
 * with the last with with_ties.  sort_colls (or NULL): the collation of
 * each sort column; text under one whose order is not the byte order is
 * ordered by the collation's sort key (memcmp_key.c).  ukey: a
 * unique key of the input, or NULL.  With row_number the output has one
 * more column (int8): the row's position in its group.  rows keeps every
 * input row, shown what is emitted.
 */
extern HsExec *HsExecTopNCreate(TupleDesc in_desc, const int *group_cols, int ngroup,
								const int *sort_cols, const bool *sort_desc,
								const bool *sort_nulls_first, const Oid *sort_colls,
								int nsort,
								const int *ukey, int nukey, int64 limit, int64 offset,
								bool with_ties, bool row_number,
								HsStateTable *rows, HsStateTable *shown);

#endif							/* HS_STREAM_EXECUTOR_H */
