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

typedef struct HsStreamPlan
{
	Query	   *query;
	List	   *sources;		/* the tables read (Oid), each once, ascending */
	/*
	 * The unique indexes (Oid) of sources whose uniqueness the plan relies
	 * on (a scalar subquery looking one row up by their keys): the view
	 * depends on them.
	 */
	List	   *relied_indexes;
	List	   *view_tlist;		/* output columns (TargetEntry, resno 1..n) */
	/*
	 * The view columns (attnums, int) whose memcmp encodings, in this order,
	 * begin every key of the view's table: the leading columns of its
	 * unique key that the view shows; NIL if the first is not shown (a
	 * group key or primary key that is not selected).
	 */
	List	   *key_columns;
	int			n_state_tables; /* internal state tables of the executors */
	List	   *operators;		/* text: its stateful executors, leaves first */
	List	   *state_roles;	/* text: what each state table holds */
	/*
	 * The roles a job's state tables were created with (NIL: a new job):
	 * where this version could keep a state otherwise, it keeps it as
	 * recorded (an upgrade does not change the layout of existing state).
	 */
	List	   *recorded_roles;
	bool		new_job;		/* planned for a view being created */
	bool		constant_rows;	/* its constant inputs' rows are computed
								 * (else their shape only: a job loaded
								 * from its committed state never pushes
								 * them) */
} HsStreamPlan;

/*
 * Where a job feeds the rows of one occurrence of a source table, or of a
 * constant input: a FROM item that reads no table on the preserved side
 * of an outer join (relid InvalidOid).  A constant input's rows are
 * computed when the view is planned; the backfill pushes them once, as
 * inserts, and no epoch has any change of them.
 */
typedef struct HsStreamLeaf
{
	Oid			relid;			/* InvalidOid: a constant input */
	HsExec	   *entry;			/* push rows of the table's row type here */
	bool		with_children;	/* read with its inheritance children: the
								 * log's rows of tables below it are its */
	TupleDesc	const_desc;		/* a constant input's row type */
	int			n_const_rows;
	MinimalTuple *const_rows;	/* its rows, in the order they are pushed */
} HsStreamLeaf;

static inline bool
HsStreamLeafIsConstant(const HsStreamLeaf *leaf)
{
	return !OidIsValid(leaf->relid);
}

/*
 * Check that query can be maintained as a streaming view and describe how;
 * any unsupported construct is an error (0A000) naming it.
 */
extern HsStreamPlan *HsStreamPlanCreate(Query *query);

/* HsStreamPlanCreate for a job whose state tables hold recorded_roles. */
extern HsStreamPlan *HsStreamPlanCreateAs(Query *query, List *recorded_roles);

/*
 * HsStreamPlanCreateAs for a job that goes on from its committed state
 * (a worker's): the rows of its constant inputs are not computed, since
 * only a backfill pushes them.
 */
extern HsStreamPlan *HsStreamPlanCreateForLoad(Query *query, List *recorded_roles);

/*
 * The columns (attnums) a job's leaf keys the rows of source table relid
 * by: its primary key when every column of it has a key encoding, else
 * NIL (rows are kept as a multiset).  ALTER TABLE may not change them
 * while views read relid (source_alter.c).
 */
extern List *HsStreamPlanSourceKey(Oid relid);

/*
 * Refuse (0A000) reading table relid with its partitions or inheritance
 * children unless every table below it is an ordinary permanent (or a
 * partitioned) table: at a view's creation (reader InvalidOid), or after
 * DDL changed relid's tree, which view reader reads with its children.
 */
extern void HsStreamPlanCheckChildren(Oid relid, Oid reader);

/*
 * Does a view that reads plain table relid with its inheritance children
 * key its rows without its primary key?  Yes once it has had children
 * while captured, or has some now: the key is unique in the table alone.
 */
extern bool HsStreamPlanKeylessTree(Oid relid);

/*
 * Expand the Postgres views query reads into the subqueries they are (in
 * place), as the rewriter does, before the query is planned and stored:
 * the streaming view keeps this expansion (plan_views.c).
 */
extern void HsStreamPlanExpandViews(Query *query);

/*
 * Build the executors of plan, writing view (the view's table, whose rows
 * have view_desc) and states[0..plan->n_state_tables-1].  Returns the
 * leaves (HsStreamLeaf *) in the order the job feeds them.
 */
extern List *HsStreamPlanBuild(HsStreamPlan *plan, TupleDesc view_desc,
							   HsStateTable *view, HsStateTable *states);

#endif							/* HS_STREAM_STREAM_PLAN_H */
