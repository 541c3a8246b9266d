/*-------------------------------------------------------------------------
 *
 * plan_functions.c
 *	  SQL functions that test the streaming planner, and whole plans, in
 *	  isolation: no view relation, no job, no barrier loop.
 *
 *	plan_describe(query)	what HsStreamPlanCreate makes of a query over
 *							real tables: its columns, key columns,
 *							sources, operators and state-table roles (what
 *							hummock_stream.fragments and state_tables show
 *							of a view), or the refusal with its SQLSTATE
 *	plan_run(query, script, evict)
 *							the plan's executors (HsStreamPlanBuild over
 *							in-memory state tables, exec_harness.c) fed
 *							as a job feeds them: epoch 0 is the backfill
 *							(the tables' rows now, as inserts), then each
 *							epoch of the script, input by input; after
 *							every epoch the view is compared with what
 *							Postgres computes for the query over the
 *							tables as the script changed them
 *
 * plan_run mirrors every change of its script into the table it names
 * (INSERT, or DELETE of one matching row) inside a subtransaction that it
 * rolls back at the end, so the tables are as they were afterwards and a
 * change that the table refuses (a duplicate primary key, a row that is
 * not there) is an error of the script.
 *
 * test/modules/hummock_stream_test/plan_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "nodes/nodeFuncs.h"
#include "parser/analyze.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/stream/stream_plan.h"

#include "exec_harness.h"

PG_FUNCTION_INFO_V1(hummock_stream_test_plan_describe);
PG_FUNCTION_INFO_V1(hummock_stream_test_plan_run);

/* The analyzed query of a SELECT statement, as create_materialized_view parses it. */
static Query *
analyze_query(const char *sql)
{
	List	   *raw = pg_parse_query(sql);
	RawStmt    *rs;

	if (list_length(raw) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a streaming materialized view is defined by exactly one SELECT statement")));
	rs = linitial_node(RawStmt, raw);
	if (!IsA(rs->stmt, SelectStmt))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a streaming materialized view is defined by a SELECT statement")));
	return parse_analyze_fixedparams(rs, sql, NULL, 0, NULL);
}

/* =====================================================================
 * plan_describe(query text) returns table(item text, value text)
 * =====================================================================
 */

static void
put_item(ReturnSetInfo *rsinfo, const char *item, const char *value)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};

	values[0] = CStringGetTextDatum(item);
	values[1] = CStringGetTextDatum(value);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

Datum
hummock_stream_test_plan_describe(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	MemoryContext cxt;
	ResourceOwner owner = CurrentResourceOwner;
	HsStreamPlan *volatile plan = NULL;
	ErrorData  *volatile edata = NULL;
	StringInfoData buf;
	ListCell   *lc;
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	cxt = CurrentMemoryContext;

	/* plan in a subtransaction: a refusal is a result, not an error */
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		plan = HsStreamPlanCreate(analyze_query(sql));
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_END_TRY();

	if (edata)
	{
		put_item(rsinfo, "refused", psprintf("%s: %s", unpack_sql_state(edata->sqlerrcode),
											 edata->message));
		return (Datum) 0;
	}

	initStringInfo(&buf);
	foreach(lc, plan->view_tlist)
	{
		TargetEntry *tle = lfirst(lc);

		appendStringInfo(&buf, "%s%s %s", buf.len ? ", " : "",
						 tle->resname ? tle->resname : "?column?",
						 format_type_with_typemod(exprType((Node *) tle->expr),
												  exprTypmod((Node *) tle->expr)));
	}
	put_item(rsinfo, "columns", buf.data);

	resetStringInfo(&buf);
	foreach(lc, plan->key_columns)
	{
		TargetEntry *tle = list_nth(plan->view_tlist, lfirst_int(lc) - 1);

		appendStringInfo(&buf, "%s%s", buf.len ? ", " : "",
						 tle->resname ? tle->resname : "?column?");
	}
	put_item(rsinfo, "key columns", buf.len ? buf.data : "(none shown)");

	resetStringInfo(&buf);
	foreach(lc, plan->sources)
		appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", get_rel_name(lfirst_oid(lc)));
	put_item(rsinfo, "sources", buf.data);

	i = 0;
	foreach(lc, plan->operators)
		put_item(rsinfo, psprintf("operator %d", ++i), lfirst(lc));
	i = 0;
	foreach(lc, plan->state_roles)
		put_item(rsinfo, psprintf("state table %d", ++i), lfirst(lc));
	if (plan->n_state_tables != list_length(plan->state_roles))
		put_item(rsinfo, "MISMATCH",
				 psprintf("%d state tables, %d roles", plan->n_state_tables,
						  list_length(plan->state_roles)));
	return (Datum) 0;
}

/* =====================================================================
 * plan_run(query text, script text[], evict bool)
 *		returns table(epoch int, line text)
 * =====================================================================
 */

/* A source table of the plan: its leaves, its mirror, the epoch's changes. */
typedef struct Source
{
	Oid			relid;
	char	   *name;
	TupleDesc	desc;
	TupleTableSlot *slot;
	List	   *changes;		/* Change, of the epoch */
	SPIPlanPtr	insert;
	SPIPlanPtr	delete;
	int			nparams;
	Oid		   *types;
} Source;

typedef struct Change
{
	int			sign;
	int64		copies;
	Datum	   *values;
	bool	   *isnull;
} Change;

typedef struct PlanRun
{
	HstHarness *h;
	HsStreamPlan *plan;
	const char *sql;
	TupleDesc	view_desc;
	HsStateTable *view;
	List	   *leaves;			/* HsStreamLeaf */
	int			nsources;
	Source	   *sources;
	MemoryContext epoch_cxt;	/* the epoch's changes */
} PlanRun;

static Source *
source_of(PlanRun *r, Oid relid)
{
	for (int i = 0; i < r->nsources; i++)
		if (r->sources[i].relid == relid)
			return &r->sources[i];
	return NULL;
}

/* Prepare the statements that mirror changes into s's table. */
static void
prepare_mirror(Source *s)
{
	StringInfoData ins;
	StringInfoData del;
	StringInfoData cols;
	StringInfoData params;
	char	   *qname = quote_qualified_identifier(get_namespace_name(get_rel_namespace(s->relid)),
												   s->name);

	initStringInfo(&cols);
	initStringInfo(&params);
	s->types = palloc(sizeof(Oid) * Max(s->desc->natts, 1));
	s->nparams = 0;
	for (int i = 0; i < s->desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(s->desc, i);

		if (att->attisdropped)
			continue;
		s->types[s->nparams++] = att->atttypid;
		appendStringInfo(&cols, "%s%s", cols.len ? ", " : "", quote_identifier(NameStr(att->attname)));
		appendStringInfo(&params, "%s$%d", params.len ? ", " : "", s->nparams);
	}
	initStringInfo(&ins);
	appendStringInfo(&ins, "INSERT INTO %s (%s) VALUES (%s)", qname, cols.data, params.data);
	initStringInfo(&del);
	appendStringInfo(&del,
					 "DELETE FROM %s WHERE ctid = (SELECT ctid FROM %s t WHERE ROW(%s) IS NOT DISTINCT FROM ROW(%s) LIMIT 1)",
					 qname, qname, cols.data, params.data);
	s->insert = SPI_prepare(ins.data, s->nparams, s->types);
	s->delete = SPI_prepare(del.data, s->nparams, s->types);
	if (s->insert == NULL || s->delete == NULL)
		elog(ERROR, "could not prepare the mirror of table \"%s\": %s", s->name,
			 SPI_result_code_string(SPI_result));
}

/* Apply one change to s's table (an error if the table refuses it). */
static void
mirror(Source *s, Change *c, const char *line)
{
	Datum	   *args = palloc(sizeof(Datum) * Max(s->nparams, 1));
	char	   *nulls = palloc(Max(s->nparams, 1) + 1);
	int			k = 0;

	for (int i = 0; i < s->desc->natts; i++)
	{
		if (TupleDescAttr(s->desc, i)->attisdropped)
			continue;
		args[k] = c->values[i];
		nulls[k] = c->isnull[i] ? 'n' : ' ';
		k++;
	}
	nulls[k] = '\0';
	for (int64 i = 0; i < c->copies; i++)
	{
		int			rc = SPI_execute_plan(c->sign > 0 ? s->insert : s->delete, args, nulls,
										  false, 0);

		if (rc != (c->sign > 0 ? SPI_OK_INSERT : SPI_OK_DELETE))
			elog(ERROR, "mirroring \"%s\" failed: %s", line, SPI_result_code_string(rc));
		if (c->sign < 0 && SPI_processed != 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the script deletes a row that table \"%s\" does not have: \"%s\"",
							s->name, line)));
	}
}

static int
cmp_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static bool
count_entry(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	(*(int64 *) arg)++;
	return true;
}

typedef struct ViewRows
{
	PlanRun    *r;
	List	   *rows;			/* text */
} ViewRows;

static bool
collect_view_row(const char *key, int keylen, const char *value, int vlen, void *arg)
{
	ViewRows   *vr = arg;

	vr->rows = lappend(vr->rows, HstFormatStoredRow(vr->r->view_desc, value, vlen, NULL, NULL));
	return true;
}

static List *
view_rows(PlanRun *r)
{
	ViewRows	vr = {r, NIL};

	HsStateTableScanPrefix(r->view, "", 0, collect_view_row, &vr);
	return vr.rows;
}

/* Compare the view with the query run by Postgres over the tables now. */
static void
check_view(PlanRun *r)
{
	List	   *mine = view_rows(r);
	int			nv = list_length(mine);
	char	  **v = palloc(sizeof(char *) * Max(nv, 1));
	char	  **q;
	int			nq;
	int			rc;
	int			i = 0,
				j = 0;
	bool		same = true;
	ListCell   *lc;

	foreach(lc, mine)
		v[i++] = lfirst(lc);
	rc = SPI_execute(r->sql, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "the query failed: %s", SPI_result_code_string(rc));
	nq = (int) SPI_processed;
	q = palloc(sizeof(char *) * Max(nq, 1));
	for (int k = 0; k < nq; k++)
	{
		TupleDesc	d = SPI_tuptable->tupdesc;
		Datum	   *vals = palloc(sizeof(Datum) * d->natts);
		bool	   *nulls = palloc(sizeof(bool) * d->natts);

		heap_deform_tuple(SPI_tuptable->vals[k], d, vals, nulls);
		q[k] = HstFormatValues(d, vals, nulls, 0, d->natts);
	}
	SPI_freetuptable(SPI_tuptable);
	qsort(v, nv, sizeof(char *), cmp_strings);
	qsort(q, nq, sizeof(char *), cmp_strings);
	i = j = 0;
	while (i < nv || j < nq)
	{
		int			c = i >= nv ? 1 : j >= nq ? -1 : strcmp(v[i], q[j]);

		if (c == 0)
		{
			i++;
			j++;
			continue;
		}
		if (same)
			HstEmitf(r->h, "check: MISMATCH (view: %d, query: %d rows)", nv, nq);
		same = false;
		if (c < 0)
			HstEmitf(r->h, "extra: %s", v[i++]);
		else
			HstEmitf(r->h, "missing: %s", q[j++]);
	}
	if (same)
		HstEmitf(r->h, "check: ok (%d row%s)", nv, nv == 1 ? "" : "s");
}

/* End the epoch: every leaf flushed, tables sealed, the view checked. */
static void
end_epoch(PlanRun *r)
{
	ListCell   *lc;
	MemoryContext old = MemoryContextSwitchTo(r->h->cxt);

	foreach(lc, r->leaves)
		HsExecFlush(((HsStreamLeaf *) lfirst(lc))->entry);
	HstEndEpoch(r->h);
	check_view(r);
	MemoryContextSwitchTo(old);
}

/* Feed the epoch's changes input by input, as a job consumes an epoch. */
static void
feed_epoch(PlanRun *r)
{
	ListCell   *lc;
	MemoryContext old = MemoryContextSwitchTo(r->h->cxt);	/* as a job's */

	foreach(lc, r->leaves)
	{
		HsStreamLeaf *leaf = lfirst(lc);
		Source	   *s;
		ListCell   *lc2;

		if (HsStreamLeafIsConstant(leaf))
			continue;			/* (no change after the backfill) */
		s = source_of(r, leaf->relid);
		foreach(lc2, s->changes)
		{
			Change	   *c = lfirst(lc2);

			ExecClearTuple(s->slot);
			memcpy(s->slot->tts_values, c->values, sizeof(Datum) * s->desc->natts);
			memcpy(s->slot->tts_isnull, c->isnull, sizeof(bool) * s->desc->natts);
			ExecStoreVirtualTuple(s->slot);
			for (int64 k = 0; k < c->copies; k++)
				HsExecPush(leaf->entry, s->slot, c->sign);
			ExecClearTuple(s->slot);
		}
	}
	for (int i = 0; i < r->nsources; i++)
		r->sources[i].changes = NIL;
	end_epoch(r);
	MemoryContextReset(r->epoch_cxt);
	MemoryContextSwitchTo(old);
}

/* Epoch 0: every row of every input's table now, input by input. */
static void
backfill(PlanRun *r)
{
	ListCell   *lc;
	MemoryContext old = MemoryContextSwitchTo(r->h->cxt);	/* as a job's */

	foreach(lc, r->leaves)
	{
		HsStreamLeaf *leaf = lfirst(lc);
		Relation	rel;
		TupleTableSlot *slot;
		TupleTableSlot *flat_slot;
		TableScanDesc scan;

		if (HsStreamLeafIsConstant(leaf))
		{
			slot = MakeSingleTupleTableSlot(leaf->const_desc, &TTSOpsMinimalTuple);
			for (int k = 0; k < leaf->n_const_rows; k++)
				HsExecPush(leaf->entry,
						   ExecStoreMinimalTuple(leaf->const_rows[k], slot, false), +1);
			ExecDropSingleTupleTableSlot(slot);
			continue;
		}
		rel = table_open(leaf->relid, AccessShareLock);
		slot = table_slot_create(rel, NULL);
		flat_slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
		scan = table_beginscan(rel, GetActiveSnapshot(), 0, NULL);
		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			bool		should_free;
			HeapTuple	t = ExecFetchSlotHeapTuple(slot, false, &should_free);

			/* as HsStreamJobPush: state must not point into TOAST */
			if (HeapTupleHasExternal(t))
			{
				HeapTuple	flat = toast_flatten_tuple(t, RelationGetDescr(rel));

				ExecStoreHeapTuple(flat, flat_slot, true);
				HsExecPush(leaf->entry, flat_slot, +1);
				ExecClearTuple(flat_slot);
			}
			else
				HsExecPush(leaf->entry, slot, +1);
			if (should_free)
				heap_freetuple(t);
		}
		table_endscan(scan);
		ExecDropSingleTupleTableSlot(flat_slot);
		ExecDropSingleTupleTableSlot(slot);
		table_close(rel, AccessShareLock);
	}
	end_epoch(r);
	MemoryContextSwitchTo(old);
}

static void
dump_view(PlanRun *r)
{
	ListCell   *lc;

	foreach(lc, view_rows(r))
		HstEmitf(r->h, "view: %s", (char *) lfirst(lc));
}

static void
dump_counts(PlanRun *r)
{
	HstHarness *h = r->h;

	for (int i = 0; i < h->ntables; i++)
	{
		int64		n = 0;

		HsStateTableScanPrefix(&h->tables[i], "", 0, count_entry, &n);
		if (i == 0)
			HstEmitf(h, "state: view: %lld row%s", (long long) n, n == 1 ? "" : "s");
		else
			HstEmitf(h, "state: %d %s: %lld entr%s", i, h->roles[i], (long long) n,
					 n == 1 ? "y" : "ies");
	}
}

/* Run the script (in the subtransaction, connected to SPI). */
static void
run_script(PlanRun *r, ArrayType *script)
{
	HstHarness *h = r->h;
	int			n;
	char	  **lines = HstScriptLines(script, &n);
	bool		pending = false;

	backfill(r);
	for (int i = 0; i < n; i++)
	{
		char	   *line = lines[i];
		char	   *colon;
		char	   *name;
		Source	   *s = NULL;
		int			sign;
		int64		copies;
		const char *fields;
		Change	   *c;
		MemoryContext old;

		while (*line == ' ')
			line++;
		if (*line == '\0' || *line == '#')
			continue;
		if (strcmp(line, "flush") == 0)
		{
			HstStartLine(h);
			feed_epoch(r);
			pending = false;
			continue;
		}
		if (strcmp(line, "state") == 0)
		{
			dump_counts(r);
			continue;
		}
		if (strcmp(line, "view") == 0)
		{
			dump_view(r);
			continue;
		}
		colon = strchr(line, ':');
		if (colon == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("line %d of the script is not \"table: change\", flush, state or view: \"%s\"",
							i + 1, lines[i])));
		name = pnstrdup(line, colon - line);
		for (int k = 0; k < r->nsources; k++)
			if (strcmp(r->sources[k].name, name) == 0)
				s = &r->sources[k];
		if (s == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the query does not read a table \"%s\"", name)));
		line = colon + 1;
		while (*line == ' ')
			line++;
		if (!HstParseChange(line, &sign, &copies, &fields))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("line %d of the script is not a change: \"%s\"", i + 1, lines[i]),
					 errhint("A change is table: +N|v1|v2|... or table: -N|v1|v2|... (N copies, 1 if omitted).")));
		HstStartLine(h);
		old = MemoryContextSwitchTo(r->epoch_cxt);
		c = palloc(sizeof(Change));
		c->sign = sign;
		c->copies = copies;
		c->values = palloc(sizeof(Datum) * s->desc->natts);
		c->isnull = palloc(sizeof(bool) * s->desc->natts);
		HstParseRow(s->desc, fields, c->values, c->isnull);
		s->changes = lappend(s->changes, c);
		MemoryContextSwitchTo(old);
		mirror(s, c, lines[i]);
		pending = true;
	}
	if (pending)
	{
		HstStartLine(h);
		feed_epoch(r);
	}
}

Datum
hummock_stream_test_plan_run(PG_FUNCTION_ARGS)
{
	HstHarness	h;
	PlanRun		r;
	MemoryContext old;
	MemoryContext cxt;
	ResourceOwner owner = CurrentResourceOwner;
	ArrayType  *script;
	bool		evict = !PG_ARGISNULL(2) && PG_GETARG_BOOL(2);
	int			saved_agg,
				saved_join;
	ListCell   *lc;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the query and the script must not be NULL")));
	script = PG_GETARG_ARRAYTYPE_P(1);
	HstBegin(&h, fcinfo, 0);
	old = MemoryContextSwitchTo(h.cxt);
	memset(&r, 0, sizeof(r));
	r.h = &h;
	r.sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (PG_ARGISNULL(3))
		r.plan = HsStreamPlanCreate(analyze_query(r.sql));
	else
	{
		List	   *recorded = NIL;
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		deconstruct_array(PG_GETARG_ARRAYTYPE_P(3), TEXTOID, -1, false, TYPALIGN_INT,
						  &elems, &nulls, &n);
		for (int i = 0; i < n; i++)
			if (!nulls[i])
				recorded = lappend(recorded, TextDatumGetCString(elems[i]));
		r.plan = HsStreamPlanCreateAs(analyze_query(r.sql), recorded);
		/* as a job's load checks it: the state is the one recorded */
		{
			ListCell   *la;
			ListCell   *lb;
			bool		same = list_length(recorded) == list_length(r.plan->state_roles);

			forboth(la, recorded, lb, r.plan->state_roles)
				same = same && strcmp(lfirst(la), lfirst(lb)) == 0;
			if (!same)
				ereport(ERROR,
						(errmsg("plan_run: the query is planned with other state tables than the recorded ones")));
		}
	}
	r.view_desc = ExecTypeFromTL(r.plan->view_tlist);
	/* the view's table first, then the plan's, contiguous (HstTable) */
	r.view = HstTable(&h, "view", true);
	foreach(lc, r.plan->state_roles)
		(void) HstTable(&h, lfirst(lc), false);
	r.leaves = HsStreamPlanBuild(r.plan, r.view_desc, r.view, &h.tables[1]);
	r.sources = palloc0(sizeof(Source) * Max(list_length(r.leaves), 1));
	foreach(lc, r.leaves)
	{
		HsStreamLeaf *leaf = lfirst(lc);
		Source	   *s;
		Relation	rel;

		if (HsStreamLeafIsConstant(leaf) || source_of(&r, leaf->relid))
			continue;
		if (HsRelidIsHummock(leaf->relid))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("plan_run reads ordinary tables only; \"%s\" is a streaming view",
							get_rel_name(leaf->relid))));
		s = &r.sources[r.nsources++];
		s->relid = leaf->relid;
		s->name = get_rel_name(leaf->relid);
		rel = table_open(leaf->relid, AccessShareLock);
		s->desc = CreateTupleDescCopy(RelationGetDescr(rel));
		table_close(rel, AccessShareLock);
		s->slot = MakeSingleTupleTableSlot(s->desc, &TTSOpsVirtual);
	}
	r.epoch_cxt = AllocSetContextCreate(h.cxt, "hummock_stream_test plan epoch",
										ALLOCSET_DEFAULT_SIZES);

	/* the script's changes reach the tables in a subtransaction, undone after */
	cxt = CurrentMemoryContext;
	HstEvictBegin(evict, &saved_agg, &saved_join);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		MemoryContextSwitchTo(cxt);
		for (int i = 0; i < r.nsources; i++)
			prepare_mirror(&r.sources[i]);
		run_script(&r, script);
		SPI_finish();
		MemoryContextSwitchTo(cxt);
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		HstEvictEnd(evict, saved_agg, saved_join);
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		ReThrowError(edata);
	}
	PG_END_TRY();
	HstEvictEnd(evict, saved_agg, saved_join);
	MemoryContextSwitchTo(old);
	HstEnd(&h);
	return (Datum) 0;
}
