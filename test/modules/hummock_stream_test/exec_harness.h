/*-------------------------------------------------------------------------
 *
 * exec_harness.h
 *	  The harness of the executor and planner tests: an in-memory store for
 *	  state tables, a sink executor that records what reaches it, rows
 *	  from and to text, expressions from SQL text, and the change scripts
 *	  that drive executors epoch by epoch (exec_harness.c).
 *
 * The test functions (exec_functions.c, plan_functions.c) build real
 * executors of hummock_stream over this store and return what came out,
 * one (epoch, line) row per line; the README of the module documents the
 * script and output formats.
 *
 * test/modules/hummock_stream_test/exec_harness.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HST_EXEC_HARNESS_H
#define HST_EXEC_HARNESS_H

#include "fmgr.h"
#include "nodes/execnodes.h"
#include "utils/array.h"

#include "hummock_stream/stream/executor.h"

/* State tables of one run (a plan has at most 32, and its view). */
#define HST_MAX_TABLES 40

typedef struct HstHarness HstHarness;

/* Dump the state tables of a run (the script's 'state' lines). */
typedef void (*HstDumpFunc) (HstHarness *h, void *arg);

struct HstHarness
{
	MemoryContext cxt;			/* everything of the run */
	HsStreamStore store;		/* empty version, private shared buffer */
	int			ntables;
	HsStateTable tables[HST_MAX_TABLES];
	const char *roles[HST_MAX_TABLES];

	/* output: (epoch, line) rows */
	ReturnSetInfo *rsinfo;
	int			epoch;			/* label of the lines now */
	bool		epoch_ended;	/* the next change or flush starts epoch + 1 */
	int64		sink_flushes;	/* flushes that reached the sink */
	int64		lines;			/* output lines so far */
};

/* An input of the executor a script drives: where its lines are pushed. */
typedef struct HstPort
{
	const char *name;			/* the line prefix ("l", "r", "1", ...) */
	HsExec	   *exec;
	TupleDesc	desc;			/* its rows */
	TupleTableSlot *slot;
	bool		flushed;		/* in this epoch */
} HstPort;

/* Set up a run of an SQL function returning TABLE(epoch int, line text). */
extern void HstBegin(HstHarness *h, FunctionCallInfo fcinfo, int first_epoch);
extern void HstEnd(HstHarness *h);

/* A new state table of the run, holding role (in the order they are made). */
extern HsStateTable *HstTable(HstHarness *h, const char *role, bool log_old_values);

/* One output line of the current epoch. */
extern void HstEmit(HstHarness *h, const char *line);
extern void HstEmitf(HstHarness *h, const char *fmt,...) pg_attribute_printf(2, 3);

/* A change or a flush is about to happen: an ended epoch is followed by the next. */
extern void HstStartLine(HstHarness *h);

/* End of an epoch: seal every state table, write the next store epoch. */
extern void HstEndEpoch(HstHarness *h);

/* A sink executor for rows of desc: each push is an output line. */
extern HsExec *HstSinkCreate(HstHarness *h, TupleDesc desc);

/*
 * Drive ports with script (a text[] of lines, see the README), dumping the
 * state with dump at 'state' lines.  sink: the executor's sink (checked
 * to be flushed once per epoch, when the last port is), or NULL.
 */
extern void HstRunScript(HstHarness *h, ArrayType *script, HstPort *ports, int nports,
						 bool check_sink, HstDumpFunc dump, void *dump_arg);

/* The lines of a text[] (NULL elements are errors). */
extern char **HstScriptLines(ArrayType *script, int *n);

/* A change line "+N|f1|f2..." or "-N|...": its sign, copies and fields. */
extern bool HstParseChange(const char *line, int *sign, int64 *copies, const char **fields);

/* ---- rows and columns ---- */

/* The columns of a column definition list ("k text, v numeric(10,2)"). */
extern TupleDesc HstParseColumns(const char *spec);

/* "v1|v2|...": a value per (not dropped) column of desc; NULL is a NULL. */
extern void HstParseRow(TupleDesc desc, const char *fields, Datum *values, bool *isnull);

/* Values as "v1|v2|..." (columns from .. to-1 of desc). */
extern char *HstFormatValues(TupleDesc desc, Datum *values, bool *isnull, int from, int to);
extern char *HstFormatSlot(TupleTableSlot *slot);

/*
 * A stored row (MinimalTuple bytes at any alignment) of desc, as text;
 * *values_out and *isnull_out (if not NULL) get its values, or NULL if
 * the bytes are not a row of desc (then the text says BAD ROW).
 */
extern char *HstFormatStoredRow(TupleDesc desc, const char *data, int len,
								Datum **values_out, bool **isnull_out);

/* Column indexes (0-based) of a list of column names ("a, b"); *n gets how many. */
extern int *HstColumnList(TupleDesc desc, const char *names, int *n);

/* The index of column name in desc, or an error. */
extern int	HstColumnIndex(TupleDesc desc, const char *name);

/* Bytes as \x... */
extern char *HstHex(const char *data, int len);

/* ---- expressions ---- */

/* An input of expressions: an alias and its columns. */
typedef struct HstInput
{
	const char *alias;
	TupleDesc	desc;
} HstInput;

/*
 * Parse "SELECT targets FROM inputs WHERE filter" (targets or filter may
 * be NULL) and return the target expressions (planned, with the columns
 * of input i as Vars of varno 1 after those of inputs 0..i-1, the
 * executors' convention) and, in *qual, the filter's conjuncts.  With
 * raw_aggs, targets are returned as analyzed (aggregate calls), unplanned.
 */
extern List *HstParseExprs(HstInput *inputs, int ninputs, const char *targets,
						   const char *filter, List **qual, bool raw_aggs);

/* ---- the memcmp key encoding ---- */

/* memcmp encodings of values[cols[0..n-1]] (types of desc) appended to buf. */
extern void HstEncodeCols(StringInfo buf, TupleDesc desc, Datum *values, bool *isnull,
						  const int *cols, const bool *descending, int n);

/* ---- evict caches (hummock_stream.agg_cache_groups, join_cache_size) ---- */

/*
 * While set, executors empty their caches after every epoch (the settings
 * are set to 0 for the call, below their minimum: every group and join key
 * is read back from its state table when it changes again).
 */
extern void HstEvictBegin(bool evict, int *saved_agg, int *saved_join);
extern void HstEvictEnd(bool evict, int saved_agg, int saved_join);

#endif							/* HST_EXEC_HARNESS_H */
