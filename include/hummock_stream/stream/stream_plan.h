/*-------------------------------------------------------------------------
 *
 * stream_plan.h
 *	  From a view's analyzed query to its streaming executors.
 *
 * include/hummock_stream/stream/stream_plan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_STREAM_PLAN_H
#define HS_STREAM_STREAM_PLAN_H

#include "nodes/parsenodes.h"

#include "hummock_stream/stream/executor.h"

/* State tables of a job, in the order the catalog lists them. */
typedef enum HsStateTableRole
{
	HS_STATE_AGG = 0,			/* the aggregation's groups */
	HS_STATE_MINMAX = 1,		/* its min/max values */
	HS_STATE_DISTINCT = 2,		/* row counts of DISTINCT or of a multiset */
	HS_N_STATE_TABLES = 3
} HsStateTableRole;

typedef struct HsStreamPlan
{
	Query	   *query;
	Oid			source_relid;
	List	   *view_tlist;		/* output columns (TargetEntry, resno 1..n) */
	/* what the executors do, decided by HsStreamPlanCreate */
	bool		has_agg;
	bool		distinct;		/* a count per distinct output row */
	bool		keep_count;		/* ... stored as that many copies */
	List	   *pk_attnums;		/* keyed by these source columns (int) */
	/*
	 * The view columns (attnums, int) whose memcmp encodings, in this order,
	 * begin every key of the view's table; NIL if the key is not made of
	 * view columns (a group key or primary key that is not selected).
	 */
	List	   *key_columns;
} HsStreamPlan;

/*
 * Is collation coll's order the byte order of UTF-8 text (C, POSIX,
 * C.UTF-8), the order of text keys (memcmp_key.c)?
 */
extern bool HsCollationIsBytewise(Oid coll);

/*
 * Check that query can be maintained as a streaming view and describe how;
 * any unsupported construct is an error (0A000) naming it.
 */
extern HsStreamPlan *HsStreamPlanCreate(Query *query);

/*
 * Build the executors of plan reading rows of the source relation (its
 * tuple descriptor src_desc) and writing view (the view's table, whose rows
 * have view_desc) and states[HS_N_STATE_TABLES].  Returns the head.
 */
extern HsExec *HsStreamPlanBuild(HsStreamPlan *plan, TupleDesc src_desc,
								 TupleDesc view_desc, HsStateTable *view,
								 HsStateTable *states);

#endif							/* HS_STREAM_STREAM_PLAN_H */
