/*-------------------------------------------------------------------------
 *
 * exec_functions.c
 *	  SQL functions that test one streaming executor in isolation: build
 *	  it over given input columns (exec_harness.c: state tables in memory,
 *	  a sink after it), feed it a script of changes epoch by epoch, and
 *	  return what came out, and the state tables where the script asks.
 *
 *	exec_project(input, script, targets, filter)
 *	exec_hash_agg(input, group_keys, aggs, script, evict)
 *	exec_hash_join(kind, left_input, right_input, left_keys, right_keys,
 *				   script, filter, left_ukey, right_ukey, evict)
 *	exec_top_n(input, order_by, script, row_limit, row_offset, with_ties,
 *			   partition_by, ukey, row_number)
 *	exec_union(input, inputs, script)
 *	exec_materialize(input, script, key, counted, view_columns)
 *
 * Each returns TABLE(epoch int, line text); the module's README documents
 * the arguments, the script and the lines.  State dumps decode every
 * entry's value and check its key against the value: a key that is not
 * what the executor's documented format makes of the value is shown as
 * BAD KEY with both encodings.
 *
 * test/modules/hummock_stream_test/exec_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"

#include "exec_harness.h"

PG_FUNCTION_INFO_V1(hummock_stream_test_exec_project);
PG_FUNCTION_INFO_V1(hummock_stream_test_exec_hash_agg);
PG_FUNCTION_INFO_V1(hummock_stream_test_exec_hash_join);
PG_FUNCTION_INFO_V1(hummock_stream_test_exec_top_n);
PG_FUNCTION_INFO_V1(hummock_stream_test_exec_union);
PG_FUNCTION_INFO_V1(hummock_stream_test_exec_materialize);

static char *
text_arg(FunctionCallInfo fcinfo, int i, const char *what)
{
	if (PG_ARGISNULL(i))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what)));
	return text_to_cstring(PG_GETARG_TEXT_PP(i));
}

static char *
text_arg_or_null(FunctionCallInfo fcinfo, int i)
{
	return PG_ARGISNULL(i) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(i));
}

static ArrayType *
script_arg(FunctionCallInfo fcinfo, int i)
{
	if (PG_ARGISNULL(i))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the script must not be NULL")));
	return PG_GETARG_ARRAYTYPE_P(i);
}

/* A TupleDesc of the first n columns of d. */
static TupleDesc
leading_columns(TupleDesc d, int n)
{
	TupleDesc	out = CreateTemplateTupleDesc(n);

	for (int i = 0; i < n; i++)
		TupleDescCopyEntry(out, i + 1, d, i + 1);
	return out;
}

/* A row's identity in join and Top-N state: unique key, or canonical bytes. */
static void
append_identity(StringInfo key, TupleDesc desc, Datum *values, bool *isnull,
				const int *ukey, int nukey)
{
	if (ukey)
		HstEncodeCols(key, desc, values, isnull, ukey, NULL, nukey);
	else
	{
		MinimalTuple mt = HsCanonicalTuple(desc, values, isnull);

		appendBinaryStringInfo(key, (char *) mt, mt->t_len);
	}
}

/* "role: " plus BAD KEY and both encodings if key is not expected. */
static char *
key_check(const char *role, const char *key, int keylen, StringInfo expected)
{
	if (expected->len == keylen && memcmp(expected->data, key, keylen) == 0)
		return psprintf("%s: ", role);
	return psprintf("%s: BAD KEY %s (expected %s) ", role, HstHex(key, keylen),
					HstHex(expected->data, expected->len));
}

/* A scan of a whole state table into a list of (key, value) copies. */
typedef struct Entry
{
	char	   *key;
	int			keylen;
	char	   *value;
	int			vlen;
} Entry;

static bool
collect_entry(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	List	  **l = arg;
	Entry	   *e = palloc(sizeof(Entry));

	e->key = palloc(keylen + 1);
	memcpy(e->key, key, keylen);
	e->keylen = keylen;
	e->value = palloc(vlen + 1);
	memcpy(e->value, value, vlen);
	e->vlen = vlen;
	*l = lappend(*l, e);
	return true;
}

static List *
scan_table(HsStateTable *t)
{
	List	   *l = NIL;

	HsStateTableScanPrefix(t, "", 0, collect_entry, &l);
	return l;
}

/* "count x row" of a counted row of desc; *values gets the row. */
static char *
format_counted(TupleDesc desc, Entry *e, Datum **values, bool **isnull, int64 *count)
{
	*values = NULL;
	if (e->vlen < HS_COUNTED_ROW_HEADER)
		return psprintf("BAD COUNTED ROW (%d bytes)", e->vlen);
	*count = HsCountedRowCount(e->value);
	return psprintf("%lld x %s", (long long) *count,
					HstFormatStoredRow(desc, HsCountedRowTuple(e->value),
									   HsCountedRowTupleLen(e->vlen), values, isnull));
}

/* =====================================================================
 * exec_project(input text, script text[], targets text, filter text)
 * =====================================================================
 */
Datum
hummock_stream_test_exec_project(PG_FUNCTION_ARGS)
{
	HstHarness	h;
	MemoryContext old;
	TupleDesc	in;
	HstInput	input;
	List	   *exprs;
	List	   *qual;
	List	   *tl = NIL;
	ListCell   *lc;
	HsExec	   *p;
	HstPort		port;

	HstBegin(&h, fcinfo, 1);
	old = MemoryContextSwitchTo(h.cxt);
	in = HstParseColumns(text_arg(fcinfo, 0, "the input"));
	input.alias = "input";
	input.desc = in;
	exprs = HstParseExprs(&input, 1, PG_ARGISNULL(2) ? "*" : text_arg(fcinfo, 2, "targets"),
						  text_arg_or_null(fcinfo, 3), &qual, false);
	foreach(lc, exprs)
		tl = lappend(tl, makeTargetEntry(lfirst(lc), list_length(tl) + 1, NULL, false));
	p = HsExecProjectCreate(in, qual, tl);
	p->downstream = HstSinkCreate(&h, p->out_desc);
	memset(&port, 0, sizeof(port));
	port.name = "input";
	port.exec = p;
	port.desc = in;
	HstRunScript(&h, script_arg(fcinfo, 1), &port, 1, true, NULL, NULL);
	MemoryContextSwitchTo(old);
	HstEnd(&h);
	return (Datum) 0;
}

/* =====================================================================
 * exec_hash_agg(input text, group_keys int, aggs text, script text[],
 *				 evict bool)
 * =====================================================================
 */

typedef struct AggRun
{
	TupleDesc	in;
	int			nkeys;
	HsAggCall  *calls;
	char	  **names;			/* "sum(v)", "count(DISTINCT v)" */
	int			ncalls;
	TupleDesc	state_desc;
	HsStateTable *groups;
	HsStateTable *values;		/* NULL without min/max, DISTINCT and RECOMPUTE */
	HsAggKeptRows kept;			/* RECOMPUTE calls: every input column */
} AggRun;

/*
 * The type of a sum or avg call's running sum (agg_accumulators.c,
 * AggSumOpsFor): the second state-row column of each call.
 */
static Oid
agg_sum_type(const HsAggCall *c)
{
	if (c->kind != HS_AGG_SUM && c->kind != HS_AGG_AVG)
		return INT8OID;
	switch (c->argtype)
	{
		case INT2OID:
		case INT4OID:
			return c->kind == HS_AGG_AVG ? NUMERICOID : INT8OID;
		case INT8OID:
		case NUMERICOID:
			return NUMERICOID;
		case FLOAT4OID:
			return c->kind == HS_AGG_AVG ? FLOAT8OID : FLOAT4OID;
		case FLOAT8OID:
			return FLOAT8OID;
		case INTERVALOID:
			return INTERVALOID;
		case CASHOID:
			return CASHOID;
	}
	elog(ERROR, "no sum type for type %u", c->argtype);
	return InvalidOid;
}

/*
 * The state row of a group as exec_hash_agg.c and agg_accumulators.c
 * document it: the group key columns, the row count, then per call its
 * non-NULL count, sum, current extreme, true count and special counts.
 */
static TupleDesc
agg_state_desc(AggRun *r)
{
	TupleDesc	d = CreateTemplateTupleDesc(r->nkeys + 1 + 5 * r->ncalls);
	int			c;

	for (int k = 0; k < r->nkeys; k++)
		TupleDescCopyEntry(d, k + 1, r->in, k + 1);
	c = r->nkeys + 1;
	TupleDescInitEntry(d, c++, "rows", INT8OID, -1, 0);
	for (int i = 0; i < r->ncalls; i++)
	{
		HsAggCall  *call = &r->calls[i];

		TupleDescInitEntry(d, c++, "count", INT8OID, -1, 0);
		TupleDescInitEntry(d, c++, "sum", agg_sum_type(call), -1, 0);
		TupleDescInitEntry(d, c++, "extreme",
						   (call->kind == HS_AGG_MIN || call->kind == HS_AGG_MAX) ?
						   call->argtype :
						   call->kind == HS_AGG_RECOMPUTE ? call->restype : INT8OID, -1, 0);
		TupleDescInitEntry(d, c++, "true", INT8OID, -1, 0);
		TupleDescInitEntry(d, c++, "special", INT8ARRAYOID, -1, 0);
	}
	return d;
}

/* Shift every Var of an aggregate call one column right (recompute query). */
static bool
shift_vars_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		((Var *) node)->varattno++;
		return false;
	}
	return expression_tree_walker(node, shift_vars_walker, arg);
}

/*
 * The calls of aggs (aggregate calls over input columns), as the planner
 * makes them (plan_agg.c): DISTINCT kept for count, sum and avg only; a
 * FILTER over an input column; any other aggregate (or form) is
 * RECOMPUTE over kept rows of every input column.
 */
static void
parse_agg_calls(AggRun *r, const char *aggs)
{
	HstInput	input = {"input", r->in};
	List	   *exprs = aggs ? HstParseExprs(&input, 1, aggs, NULL, NULL, true) : NIL;
	ListCell   *lc;
	int			i = 0;

	r->ncalls = list_length(exprs);
	r->calls = palloc0(sizeof(HsAggCall) * Max(r->ncalls, 1));
	r->names = palloc0(sizeof(char *) * Max(r->ncalls, 1));
	foreach(lc, exprs)
	{
		Aggref	   *a = lfirst(lc);
		HsAggCall  *c = &r->calls[i];
		char	   *name;
		Var		   *arg = NULL;

		if (!IsA(a, Aggref))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("aggs must be aggregate calls")));
		name = get_func_name(a->aggfnoid);
		c->filter = -1;
		if (a->aggfilter && !IsA(a->aggfilter, Var))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a FILTER must be an input column")));
		if (get_func_namespace(a->aggfnoid) != PG_CATALOG_NAMESPACE || a->aggorder ||
			a->aggkind != AGGKIND_NORMAL || list_length(a->args) > 1 ||
			(strcmp(name, "count") != 0 && strcmp(name, "sum") != 0 &&
			 strcmp(name, "avg") != 0 && strcmp(name, "min") != 0 &&
			 strcmp(name, "max") != 0 && strcmp(name, "bool_and") != 0 &&
			 strcmp(name, "every") != 0 && strcmp(name, "bool_or") != 0))
		{
			Aggref	   *na = copyObject(a);

			(void) shift_vars_walker((Node *) na->args, NULL);
			(void) shift_vars_walker((Node *) na->aggfilter, NULL);
			c->kind = HS_AGG_RECOMPUTE;
			c->restype = a->aggtype;
			c->arg = -1;
			c->aggref = na;
			r->names[i] = psprintf("recompute %s", name);
			if (r->kept.ncols == 0)
			{
				r->kept.ncols = r->in->natts;
				r->kept.cols = palloc(sizeof(int) * r->in->natts);
				for (int k = 0; k < r->in->natts; k++)
					r->kept.cols[k] = k;
			}
			i++;
			continue;
		}
		if (a->aggfilter)
			c->filter = ((Var *) a->aggfilter)->varattno - 1;
		if (a->args)
		{
			arg = (Var *) linitial_node(TargetEntry, a->args)->expr;
			if (!IsA(arg, Var))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("aggregate arguments must be input columns")));
		}
		if (strcmp(name, "count") == 0)
			c->kind = arg == NULL ? HS_AGG_COUNT_STAR : HS_AGG_COUNT;
		else if (strcmp(name, "sum") == 0)
			c->kind = HS_AGG_SUM;
		else if (strcmp(name, "avg") == 0)
			c->kind = HS_AGG_AVG;
		else if (strcmp(name, "min") == 0)
			c->kind = HS_AGG_MIN;
		else if (strcmp(name, "max") == 0)
			c->kind = HS_AGG_MAX;
		else if (strcmp(name, "bool_and") == 0 || strcmp(name, "every") == 0)
			c->kind = HS_AGG_BOOL_AND;
		else if (strcmp(name, "bool_or") == 0)
			c->kind = HS_AGG_BOOL_OR;
		else
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the streaming aggregation has no call %s", name)));
		c->restype = a->aggtype;
		c->arg = arg ? arg->varattno - 1 : -1;
		c->argtype = arg ? arg->vartype : InvalidOid;
		c->distinct = a->aggdistinct != NIL &&
			(c->kind == HS_AGG_COUNT || c->kind == HS_AGG_SUM || c->kind == HS_AGG_AVG);
		if (arg && c->kind != HS_AGG_COUNT && !HsAggSupported(c->kind, c->argtype))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the streaming aggregation does not compute %s(%s)", name,
							format_type_be(c->argtype))));
		r->names[i] = arg == NULL ? psprintf("%s(*)", name) :
			psprintf("%s(%s%s)", name, c->distinct ? "DISTINCT " : "",
					 NameStr(TupleDescAttr(r->in, c->arg)->attname));
		i++;
	}
}

typedef struct GroupKey
{
	char	   *key;
	int			keylen;
	char	   *text;
} GroupKey;

static void
agg_dump(HstHarness *h, void *arg)
{
	AggRun	   *r = arg;
	List	   *groups = scan_table(r->groups);
	List	   *known = NIL;
	ListCell   *lc;
	int		   *keycols = palloc(sizeof(int) * Max(r->nkeys, 1));

	for (int k = 0; k < r->nkeys; k++)
		keycols[k] = k;
	foreach(lc, groups)
	{
		Entry	   *e = lfirst(lc);
		Datum	   *v;
		bool	   *n;
		char	   *row = HstFormatStoredRow(r->state_desc, e->value, e->vlen, &v, &n);
		StringInfoData expected;
		StringInfoData line;
		GroupKey   *g = palloc(sizeof(GroupKey));
		int			c;

		if (v == NULL)
		{
			HstEmitf(h, "groups: %s => %s", HstHex(e->key, e->keylen), row);
			continue;
		}
		initStringInfo(&expected);
		HstEncodeCols(&expected, r->state_desc, v, n, keycols, NULL, r->nkeys);
		g->key = e->key;
		g->keylen = e->keylen;
		g->text = r->nkeys > 0 ? HstFormatValues(r->state_desc, v, n, 0, r->nkeys) : "()";
		known = lappend(known, g);
		initStringInfo(&line);
		appendStringInfo(&line, "%s%s => rows %s", key_check("groups", e->key, e->keylen, &expected),
						 g->text, HstFormatValues(r->state_desc, v, n, r->nkeys, r->nkeys + 1));
		c = r->nkeys + 1;
		for (int i = 0; i < r->ncalls; i++, c += 5)
		{
			/* the accumulators that are not at their initial values */
			HsAggCall  *call = &r->calls[i];
			bool		is_bool = call->kind == HS_AGG_BOOL_AND || call->kind == HS_AGG_BOOL_OR;
			StringInfoData acc;

			initStringInfo(&acc);
			if (call->kind != HS_AGG_COUNT_STAR || DatumGetInt64(v[c]) != 0)
				appendStringInfo(&acc, " count %s", HstFormatValues(r->state_desc, v, n, c, c + 1));
			if (!n[c + 1])
				appendStringInfo(&acc, " sum %s", HstFormatValues(r->state_desc, v, n, c + 1, c + 2));
			if (!n[c + 2])
				appendStringInfo(&acc, " extreme %s", HstFormatValues(r->state_desc, v, n, c + 2, c + 3));
			if (is_bool || n[c + 3] || DatumGetInt64(v[c + 3]) != 0)
				appendStringInfo(&acc, " true %s", HstFormatValues(r->state_desc, v, n, c + 3, c + 4));
			if (!n[c + 4])
				appendStringInfo(&acc, " special %s", HstFormatValues(r->state_desc, v, n, c + 4, c + 5));
			if (acc.len > 0)
				appendStringInfo(&line, "; %s:%s", r->names[i], acc.data);
		}
		HstEmit(h, line.data);
	}
	if (r->values == NULL)
		return;
	foreach(lc, scan_table(r->values))
	{
		Entry	   *e = lfirst(lc);
		GroupKey   *g = NULL;
		ListCell   *lc2;
		int			callno;
		HsAggCall  *call;
		TupleDesc	vd;
		Datum	   *v;
		bool	   *n;
		char	   *row;
		StringInfoData expected;

		foreach(lc2, known)
		{
			GroupKey   *k = lfirst(lc2);

			if (k->keylen < e->keylen && memcmp(k->key, e->key, k->keylen) == 0)
				g = k;
		}
		if (g != NULL && (unsigned char) e->key[g->keylen] == 0xFF)
		{
			/* a kept row: its bytes are the key's rest, its count the value */
			TupleDesc	kd = CreateTemplateTupleDesc(r->in->natts);
			int64		count;

			for (int k = 0; k < r->in->natts; k++)
				TupleDescCopyEntry(kd, k + 1, r->in, k + 1);
			row = HstFormatStoredRow(kd, e->key + g->keylen + 1, e->keylen - g->keylen - 1,
									 &v, &n);
			memcpy(&count, e->value, sizeof(count));
			HstEmitf(h, "kept rows: %s|%s => %lld", g->text, row, (long long) count);
			continue;
		}
		if (g == NULL || (callno = (unsigned char) e->key[g->keylen]) >= r->ncalls)
		{
			HstEmitf(h, "values: BAD KEY %s (no group of it) => %s", HstHex(e->key, e->keylen),
					 HstHex(e->value, e->vlen));
			continue;
		}
		call = &r->calls[callno];
		vd = CreateTemplateTupleDesc(2);
		TupleDescInitEntry(vd, 1, "value", call->argtype, -1, 0);
		TupleDescInitEntry(vd, 2, "count", INT8OID, -1, 0);
		row = HstFormatStoredRow(vd, e->value, e->vlen, &v, &n);
		if (v == NULL)
		{
			HstEmitf(h, "values: %s|%s => %s", g->text, r->names[callno], row);
			continue;
		}
		initStringInfo(&expected);
		appendBinaryStringInfo(&expected, g->key, g->keylen);
		appendStringInfoChar(&expected, (char) callno);
		HsMemcmpEncode(&expected, v[0], n[0], call->argtype, call->kind == HS_AGG_MAX);
		if (!call->distinct)
		{
			/* min/max of a folding type: each printed form apart */
			FmgrInfo   *send = HsMemcmpIdentitySends(vd, 1);

			if (send)
				HsMemcmpAppendIdentity(&expected, v[0], n[0], send);
		}
		HstEmitf(h, "%s%s|%s|%s => %s", key_check("values", e->key, e->keylen, &expected),
				 g->text, r->names[callno], HstFormatValues(vd, v, n, 0, 1),
				 HstFormatValues(vd, v, n, 1, 2));
	}
}

Datum
hummock_stream_test_exec_hash_agg(PG_FUNCTION_ARGS)
{
	HstHarness	h;
	MemoryContext old;
	AggRun		r;
	bool		need_values = false;
	HsExec	   *a;
	HstPort		port;
	bool		evict = !PG_ARGISNULL(4) && PG_GETARG_BOOL(4);
	int			saved_agg,
				saved_join;

	HstBegin(&h, fcinfo, 1);
	old = MemoryContextSwitchTo(h.cxt);
	memset(&r, 0, sizeof(r));
	r.in = HstParseColumns(text_arg(fcinfo, 0, "the input"));
	r.nkeys = PG_ARGISNULL(1) ? 0 : PG_GETARG_INT32(1);
	if (r.nkeys < 0 || r.nkeys > r.in->natts)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("group_keys must be between 0 and the number of input columns")));
	parse_agg_calls(&r, text_arg_or_null(fcinfo, 2));
	for (int i = 0; i < r.ncalls; i++)
		if (r.calls[i].kind == HS_AGG_MIN || r.calls[i].kind == HS_AGG_MAX || r.calls[i].distinct ||
			r.calls[i].kind == HS_AGG_RECOMPUTE)
			need_values = true;
	r.state_desc = agg_state_desc(&r);
	r.groups = HstTable(&h, "groups", false);
	r.values = need_values ? HstTable(&h, "values", false) : NULL;
	/* as the planner: without group keys the one row always exists */
	a = HsExecHashAggCreate(r.in, r.nkeys, r.calls, r.ncalls, &r.kept, r.groups, r.values,
							r.nkeys == 0);
	a->downstream = HstSinkCreate(&h, a->out_desc);
	memset(&port, 0, sizeof(port));
	port.name = "input";
	port.exec = a;
	port.desc = r.in;
	HstEvictBegin(evict, &saved_agg, &saved_join);
	PG_TRY();
	{
		HstRunScript(&h, script_arg(fcinfo, 3), &port, 1, true, agg_dump, &r);
	}
	PG_FINALLY();
	{
		HstEvictEnd(evict, saved_agg, saved_join);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	HstEnd(&h);
	return (Datum) 0;
}

/* =====================================================================
 * exec_hash_join(kind text, left_input text, right_input text,
 *				  left_keys text, right_keys text, script text[],
 *				  filter text, left_ukey text, right_ukey text,
 *				  evict bool)
 * =====================================================================
 */

typedef struct JoinSideRun
{
	const char *role;
	TupleDesc	desc;
	List	   *keys;			/* Expr over the side */
	List	   *key_states;
	int		   *ukey;
	int			nukey;
	HsStateTable *state;
} JoinSideRun;

typedef struct JoinRun
{
	JoinSideRun side[2];
	ExprContext *econtext;
} JoinRun;

static void
join_dump(HstHarness *h, void *arg)
{
	JoinRun    *r = arg;

	for (int s = 0; s < 2; s++)
	{
		JoinSideRun *side = &r->side[s];
		TupleTableSlot *slot = MakeSingleTupleTableSlot(side->desc, &TTSOpsVirtual);
		ListCell   *lc;

		foreach(lc, scan_table(side->state))
		{
			Entry	   *e = lfirst(lc);
			Datum	   *v;
			bool	   *n;
			int64		count;
			char	   *row = format_counted(side->desc, e, &v, &n, &count);
			StringInfoData expected;
			StringInfoData jkey;
			ListCell   *lk;
			bool		first = true;

			if (v == NULL)
			{
				HstEmitf(h, "%s: %s => %s", side->role, HstHex(e->key, e->keylen), row);
				continue;
			}
			ExecClearTuple(slot);
			memcpy(slot->tts_values, v, sizeof(Datum) * side->desc->natts);
			memcpy(slot->tts_isnull, n, sizeof(bool) * side->desc->natts);
			ExecStoreVirtualTuple(slot);
			r->econtext->ecxt_scantuple = slot;
			initStringInfo(&expected);
			initStringInfo(&jkey);
			foreach(lk, side->key_states)
			{
				bool		isnull;
				Datum		d = ExecEvalExpr(lfirst(lk), r->econtext, &isnull);
				Oid			t = exprType(list_nth(side->keys, foreach_current_index(lk)));

				HsMemcmpEncode(&expected, d, isnull, t, false);
				if (!first)
					appendStringInfoChar(&jkey, '|');
				first = false;
				if (isnull)
					appendStringInfoString(&jkey, "NULL");
				else
				{
					Oid			out;
					bool		varlena;

					getTypeOutputInfo(t, &out, &varlena);
					appendStringInfoString(&jkey, OidOutputFunctionCall(out, d));
				}
			}
			append_identity(&expected, side->desc, v, n, side->ukey, side->nukey);
			HstEmitf(h, "%s%s => %s", key_check(side->role, e->key, e->keylen, &expected),
					 jkey.data, row);
		}
		ExecDropSingleTupleTableSlot(slot);
	}
}

static HsJoinKind
join_kind(const char *k)
{
	if (pg_strcasecmp(k, "inner") == 0)
		return HS_JOIN_INNER;
	if (pg_strcasecmp(k, "left") == 0)
		return HS_JOIN_LEFT;
	if (pg_strcasecmp(k, "full") == 0)
		return HS_JOIN_FULL;
	if (pg_strcasecmp(k, "semi") == 0)
		return HS_JOIN_SEMI;
	if (pg_strcasecmp(k, "anti") == 0)
		return HS_JOIN_ANTI;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("join kind must be inner, left, full, semi or anti, not \"%s\"", k)));
	return HS_JOIN_INNER;
}

Datum
hummock_stream_test_exec_hash_join(PG_FUNCTION_ARGS)
{
	HstHarness	h;
	MemoryContext old;
	JoinRun		r;
	HsJoinKind	kind;
	HstInput	inputs[2];
	List	   *filter = NIL;
	HsExec	   *j;
	HsExec	   *lport;
	HsExec	   *rport;
	HstPort		ports[2];
	bool		evict = !PG_ARGISNULL(9) && PG_GETARG_BOOL(9);
	int			saved_agg,
				saved_join;
	ListCell   *l1,
			   *l2;

	HstBegin(&h, fcinfo, 1);
	old = MemoryContextSwitchTo(h.cxt);
	memset(&r, 0, sizeof(r));
	kind = join_kind(text_arg(fcinfo, 0, "the join kind"));
	r.side[0].role = "left";
	r.side[1].role = "right";
	r.side[0].desc = HstParseColumns(text_arg(fcinfo, 1, "left_input"));
	r.side[1].desc = HstParseColumns(text_arg(fcinfo, 2, "right_input"));
	inputs[0].alias = "l";
	inputs[0].desc = r.side[0].desc;
	inputs[1].alias = "r";
	inputs[1].desc = r.side[1].desc;
	r.side[0].keys = HstParseExprs(&inputs[0], 1, text_arg(fcinfo, 3, "left_keys"), NULL, NULL, false);
	r.side[1].keys = HstParseExprs(&inputs[1], 1, text_arg(fcinfo, 4, "right_keys"), NULL, NULL, false);
	if (list_length(r.side[0].keys) != list_length(r.side[1].keys))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("left_keys and right_keys must have as many expressions")));
	forboth(l1, r.side[0].keys, l2, r.side[1].keys)
		if (exprType(lfirst(l1)) != exprType(lfirst(l2)))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("join key %d is of type %s on the left and %s on the right",
							foreach_current_index(l1) + 1, format_type_be(exprType(lfirst(l1))),
							format_type_be(exprType(lfirst(l2)))),
					 errhint("Cast one of them, as the planner casts integers to bigint.")));
	if (!PG_ARGISNULL(6))
		(void) HstParseExprs(inputs, 2, NULL, text_arg(fcinfo, 6, "filter"), &filter, false);
	for (int s = 0; s < 2; s++)
	{
		JoinSideRun *side = &r.side[s];
		ListCell   *lc;

		if (!PG_ARGISNULL(7 + s))
			side->ukey = HstColumnList(side->desc, text_arg(fcinfo, 7 + s, "ukey"), &side->nukey);
		foreach(lc, side->keys)
			side->key_states = lappend(side->key_states, ExecInitExpr(lfirst(lc), NULL));
		side->state = HstTable(&h, side->role, false);
	}
	r.econtext = CreateStandaloneExprContext();
	j = HsExecHashJoinCreate(kind, r.side[0].desc, r.side[0].keys, r.side[0].ukey, r.side[0].nukey,
							 r.side[1].desc, r.side[1].keys, r.side[1].ukey, r.side[1].nukey,
							 filter, NULL, r.side[0].state, r.side[1].state, &lport, &rport);
	j->downstream = HstSinkCreate(&h, j->out_desc);
	memset(ports, 0, sizeof(ports));
	ports[0].name = "l";
	ports[0].exec = lport;
	ports[0].desc = r.side[0].desc;
	ports[1].name = "r";
	ports[1].exec = rport;
	ports[1].desc = r.side[1].desc;
	HstEvictBegin(evict, &saved_agg, &saved_join);
	PG_TRY();
	{
		HstRunScript(&h, script_arg(fcinfo, 5), ports, 2, true, join_dump, &r);
	}
	PG_FINALLY();
	{
		HstEvictEnd(evict, saved_agg, saved_join);
	}
	PG_END_TRY();
	FreeExprContext(r.econtext, true);
	MemoryContextSwitchTo(old);
	HstEnd(&h);
	return (Datum) 0;
}

/* =====================================================================
 * exec_top_n(input text, order_by text, script text[], row_limit bigint,
 *			  row_offset bigint, with_ties bool, partition_by text,
 *			  ukey text, row_number bool)
 * =====================================================================
 */

typedef struct TopNRun
{
	TupleDesc	in;
	TupleDesc	out;
	int		   *group;
	int			ngroup;
	int		   *sort;
	bool	   *desc;
	int			nsort;
	int		   *ukey;
	int			nukey;
	HsStateTable *rows;
	HsStateTable *shown;
} TopNRun;

static char *
trim_spaces(char *s)
{
	char	   *e = s + strlen(s);

	while (e > s && e[-1] == ' ')
		*--e = '\0';
	return s;
}

/* "a DESC, b": columns and directions. */
static void
parse_order_by(TopNRun *r, const char *spec)
{
	char	   *s = pstrdup(spec);
	char	   *item;
	char	   *save;
	int			cap = 8;

	r->sort = palloc(sizeof(int) * cap);
	r->desc = palloc(sizeof(bool) * cap);
	r->nsort = 0;
	for (item = strtok_r(s, ",", &save); item; item = strtok_r(NULL, ",", &save))
	{
		char	   *name = item;
		char	   *sp;
		bool		d = false;
		int			n;
		int		   *one;

		while (*name == ' ')
			name++;
		sp = strchr(name, ' ');
		if (sp)
		{
			char	   *dir = sp;

			*sp = '\0';
			while (*++dir == ' ')
				;
			if (pg_strcasecmp(trim_spaces(dir), "desc") == 0)
				d = true;
			else if (*dir != '\0' && pg_strcasecmp(dir, "asc") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("order_by items are a column and ASC or DESC, not \"%s\"", item)));
		}
		one = HstColumnList(r->in, name, &n);
		if (r->nsort == cap)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("at most %d sort columns", cap)));
		r->sort[r->nsort] = one[0];
		r->desc[r->nsort] = d;
		r->nsort++;
	}
}

/* The key in rows of an input row (values of in). */
static void
top_n_row_key(TopNRun *r, StringInfo key, Datum *v, bool *n)
{
	HstEncodeCols(key, r->in, v, n, r->group, NULL, r->ngroup);
	HstEncodeCols(key, r->in, v, n, r->sort, r->desc, r->nsort);
	append_identity(key, r->in, v, n, r->ukey, r->nukey);
}

static void
top_n_dump(HstHarness *h, void *arg)
{
	TopNRun    *r = arg;
	ListCell   *lc;

	foreach(lc, scan_table(r->rows))
	{
		Entry	   *e = lfirst(lc);
		Datum	   *v;
		bool	   *n;
		int64		count;
		char	   *row = format_counted(r->in, e, &v, &n, &count);
		StringInfoData expected;

		if (v == NULL)
		{
			HstEmitf(h, "rows: %s => %s", HstHex(e->key, e->keylen), row);
			continue;
		}
		initStringInfo(&expected);
		top_n_row_key(r, &expected, v, n);
		HstEmitf(h, "%s%s", key_check("rows", e->key, e->keylen, &expected), row);
	}
	foreach(lc, scan_table(r->shown))
	{
		Entry	   *e = lfirst(lc);
		Datum	   *v;
		bool	   *n;
		char	   *row = HstFormatStoredRow(r->out, e->value, e->vlen, &v, &n);
		StringInfoData expected;
		uint64		copy = 0;
		uint64		be;

		if (v == NULL || e->keylen < 8)
		{
			HstEmitf(h, "shown: %s => %s", HstHex(e->key, e->keylen), row);
			continue;
		}
		memcpy(&be, e->key + e->keylen - 8, 8);
		copy = pg_ntoh64(be);
		initStringInfo(&expected);
		top_n_row_key(r, &expected, v, n);
		be = pg_hton64(copy);
		appendBinaryStringInfo(&expected, (char *) &be, 8);
		if (copy > 0)
			HstEmitf(h, "%s%s #%llu", key_check("shown", e->key, e->keylen, &expected), row,
					 (unsigned long long) copy);
		else
			HstEmitf(h, "%s%s", key_check("shown", e->key, e->keylen, &expected), row);
	}
}

Datum
hummock_stream_test_exec_top_n(PG_FUNCTION_ARGS)
{
	HstHarness	h;
	MemoryContext old;
	TopNRun		r;
	int64		limit = PG_ARGISNULL(3) ? PG_INT64_MAX / 2 : PG_GETARG_INT64(3);
	int64		offset = PG_ARGISNULL(4) ? 0 : PG_GETARG_INT64(4);
	bool		with_ties = !PG_ARGISNULL(5) && PG_GETARG_BOOL(5);
	bool		row_number = !PG_ARGISNULL(8) && PG_GETARG_BOOL(8);
	HsExec	   *t;
	HstPort		port;

	if (limit < 0 || offset < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row_limit and row_offset must not be negative")));
	HstBegin(&h, fcinfo, 1);
	old = MemoryContextSwitchTo(h.cxt);
	memset(&r, 0, sizeof(r));
	r.in = HstParseColumns(text_arg(fcinfo, 0, "the input"));
	parse_order_by(&r, text_arg(fcinfo, 1, "order_by"));
	r.group = PG_ARGISNULL(6) ? palloc(sizeof(int)) :
		HstColumnList(r.in, text_arg(fcinfo, 6, "partition_by"), &r.ngroup);
	if (!PG_ARGISNULL(7))
		r.ukey = HstColumnList(r.in, text_arg(fcinfo, 7, "ukey"), &r.nukey);
	r.rows = HstTable(&h, "rows", false);
	r.shown = HstTable(&h, "shown", false);
	t = HsExecTopNCreate(r.in, r.group, r.ngroup, r.sort, r.desc, NULL, NULL, r.nsort, r.ukey, r.nukey,
						 Min(limit, PG_INT64_MAX / 2), Min(offset, PG_INT64_MAX / 2),
						 with_ties, row_number, r.rows, r.shown);
	r.out = t->out_desc;
	t->downstream = HstSinkCreate(&h, t->out_desc);
	memset(&port, 0, sizeof(port));
	port.name = "input";
	port.exec = t;
	port.desc = r.in;
	HstRunScript(&h, script_arg(fcinfo, 2), &port, 1, true, top_n_dump, &r);
	MemoryContextSwitchTo(old);
	HstEnd(&h);
	return (Datum) 0;
}

/* =====================================================================
 * exec_union(input text, inputs int, script text[])
 * =====================================================================
 */
Datum
hummock_stream_test_exec_union(PG_FUNCTION_ARGS)
{
	HstHarness	h;
	MemoryContext old;
	TupleDesc	in;
	int			n = PG_ARGISNULL(1) ? 2 : PG_GETARG_INT32(1);
	HsExec	  **execs;
	HstPort    *ports;
	HsExec	   *u;

	if (n < 1 || n > 16)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a union test has 1 to 16 inputs")));
	HstBegin(&h, fcinfo, 1);
	old = MemoryContextSwitchTo(h.cxt);
	in = HstParseColumns(text_arg(fcinfo, 0, "the input"));
	execs = palloc(sizeof(HsExec *) * n);
	ports = palloc0(sizeof(HstPort) * n);
	u = HsExecUnionCreate(in, n, execs);
	u->downstream = HstSinkCreate(&h, u->out_desc);
	for (int i = 0; i < n; i++)
	{
		ports[i].name = psprintf("%d", i + 1);
		ports[i].exec = execs[i];
		ports[i].desc = in;
	}
	HstRunScript(&h, script_arg(fcinfo, 2), ports, n, true, NULL, NULL);
	MemoryContextSwitchTo(old);
	HstEnd(&h);
	return (Datum) 0;
}

/* =====================================================================
 * exec_materialize(input text, script text[], key text, counted bool,
 *					view_columns int)
 * =====================================================================
 */

typedef struct MaterializeRun
{
	TupleDesc	in;
	TupleDesc	view;
	int		   *key;
	int			nkey;
	bool		counted;
	HsStateTable *table;
} MaterializeRun;

static void
materialize_dump(HstHarness *h, void *arg)
{
	MaterializeRun *r = arg;
	ListCell   *lc;
	int		   *all = palloc(sizeof(int) * r->view->natts);
	bool		key_shown = true;

	for (int i = 0; i < r->view->natts; i++)
		all[i] = i;
	for (int i = 0; i < r->nkey; i++)
		if (r->key[i] >= r->view->natts)
			key_shown = false;	/* a hidden key column: not in the stored row */
	foreach(lc, scan_table(r->table))
	{
		Entry	   *e = lfirst(lc);
		Datum	   *v;
		bool	   *n;
		char	   *row = HstFormatStoredRow(r->view, e->value, e->vlen, &v, &n);
		StringInfoData expected;

		if (v == NULL)
		{
			HstEmitf(h, "view: %s => %s", HstHex(e->key, e->keylen), row);
			continue;
		}
		initStringInfo(&expected);
		if (r->counted)
		{
			uint64		be;
			uint64		copy = 0;

			if (e->keylen >= 8)
			{
				memcpy(&be, e->key + e->keylen - 8, 8);
				copy = pg_ntoh64(be);
			}
			HstEncodeCols(&expected, r->view, v, n, all, NULL, r->view->natts);
			be = pg_hton64(copy);
			appendBinaryStringInfo(&expected, (char *) &be, 8);
			HstEmitf(h, "%s%s #%llu", key_check("view", e->key, e->keylen, &expected), row,
					 (unsigned long long) copy);
		}
		else if (key_shown)
		{
			HstEncodeCols(&expected, r->view, v, n, r->key, NULL, r->nkey);
			HstEmitf(h, "%s%s", key_check("view", e->key, e->keylen, &expected), row);
		}
		else
			HstEmitf(h, "view: %s => %s", HstHex(e->key, e->keylen), row);
	}
}

Datum
hummock_stream_test_exec_materialize(PG_FUNCTION_ARGS)
{
	HstHarness	h;
	MemoryContext old;
	MaterializeRun r;
	HsExec	   *m;
	HstPort		port;
	int			nview;

	HstBegin(&h, fcinfo, 1);
	old = MemoryContextSwitchTo(h.cxt);
	memset(&r, 0, sizeof(r));
	r.in = HstParseColumns(text_arg(fcinfo, 0, "the input"));
	r.counted = !PG_ARGISNULL(3) && PG_GETARG_BOOL(3);
	nview = r.in->natts - (r.counted ? 1 : 0);
	if (!PG_ARGISNULL(4))
		nview = PG_GETARG_INT32(4);
	if (nview < 1 || nview > r.in->natts - (r.counted ? 1 : 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("view_columns must be between 1 and the number of input columns%s",
						r.counted ? " before the count" : "")));
	if (r.counted)
	{
		if (!PG_ARGISNULL(2))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a counted (multiset) view is keyed by its rows, not by key")));
		if (nview != r.in->natts - 1 || TupleDescAttr(r.in, nview)->atttypid != INT8OID)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a counted input is the view's columns, then the count (bigint)")));
	}
	else
	{
		if (PG_ARGISNULL(2))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("a view that is not counted needs its key columns")));
		r.key = HstColumnList(r.in, text_arg(fcinfo, 2, "key"), &r.nkey);
	}
	r.view = leading_columns(r.in, nview);
	r.table = HstTable(&h, "view", true);
	m = HsExecMaterializeCreate(r.in, r.view, r.key, r.nkey, r.counted, r.table);
	memset(&port, 0, sizeof(port));
	port.name = "input";
	port.exec = m;
	port.desc = r.in;
	/* (Materialize is the last executor: it flushes nothing downstream) */
	HstRunScript(&h, script_arg(fcinfo, 1), &port, 1, false, materialize_dump, &r);
	MemoryContextSwitchTo(old);
	HstEnd(&h);
	return (Datum) 0;
}
