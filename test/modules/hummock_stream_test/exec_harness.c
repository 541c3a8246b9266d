/*-------------------------------------------------------------------------
 *
 * exec_harness.c
 *	  The harness of the executor and planner tests (see exec_harness.h).
 *
 * The store.  State tables live in an in-memory store of their own: a
 * private shared buffer (HsSharedBufferCreate, never spilled or synced)
 * over an empty version (HsVersionCreateEmpty), so a run neither reads
 * nor writes anything of the database's hummock tables.  A state table
 * reads as in a compute worker: its current memtable, then what the
 * shared buffer holds (every sealed epoch), then the (empty) version.
 * Table ids are 1, 2, ... in the order the tables are made; the store's
 * epochs 1, 2, ... advance at every end of an epoch, when every table is
 * sealed (HsStateTableSeal), as HsStreamJobFlush does.
 *
 * The sink.  An executor kind of this module ("Sink") that formats each
 * row pushed into it, with its sign, as an output line of the current
 * epoch, and counts the flushes that reach it: a script run checks that
 * the executor flushes its downstream exactly once per epoch, once its
 * last input is flushed (barrier alignment).
 *
 * Scripts.  A text[] of lines: changes ("+1|a|3": sign and copies, then
 * a value per column, NULL for a NULL), optionally prefixed by the input
 * they go to ("l:", "r:", "1:"), "flush" (every input; "l:flush" one
 * input; an epoch ends once every input is flushed), "state" (dump the
 * state tables) and comments ("#...").  Rows are pushed, and executors
 * flushed, in the run's memory context, which lives as long as the run,
 * as a job pushes in its own (HsStreamJobPush); the values of a line live
 * in a context reset after it.
 *
 * test/modules/hummock_stream_test/exec_harness.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parse_type.h"
#include "parser/parser.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/varlena.h"

#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/storage/version.h"

#include "exec_harness.h"

/* ---------------------------------------------------------------------
 * The run: store, tables, output
 * ---------------------------------------------------------------------
 */

void
HstBegin(HstHarness *h, FunctionCallInfo fcinfo, int first_epoch)
{
	memset(h, 0, sizeof(*h));
	InitMaterializedSRF(fcinfo, 0);
	h->rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	h->cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream_test run",
								   ALLOCSET_DEFAULT_SIZES);
	h->store.env = HsEnvPgForContext(h->cxt);
	/* never spilled (nothing calls HsSharedBufferMaybeSpill) nor synced */
	h->store.shared_buffer = HsSharedBufferCreate(h->store.env, (size_t) 1 << 30);
	h->store.cache = HsHummockSstCache();
	h->store.version = HsVersionCreateEmpty(h->store.env);
	h->store.epoch = 1;
	h->epoch = first_epoch;
}

void
HstEnd(HstHarness *h)
{
	for (int i = 0; i < h->ntables; i++)
		HsStateTableDiscard(&h->tables[i]);
	HsSharedBufferDestroy(h->store.shared_buffer);
	HsVersionUnref(h->store.version);
	MemoryContextDelete(h->cxt);
}

HsStateTable *
HstTable(HstHarness *h, const char *role, bool log_old_values)
{
	HsStateTable *t;

	if (h->ntables >= HST_MAX_TABLES)
		elog(ERROR, "too many state tables in one run");
	t = &h->tables[h->ntables];
	h->roles[h->ntables] = MemoryContextStrdup(h->cxt, role);
	h->ntables++;
	HsStateTableInit(t, &h->store, (HsTableId) h->ntables, log_old_values);
	return t;
}

void
HstEmit(HstHarness *h, const char *line)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};

	values[0] = Int32GetDatum(h->epoch);
	values[1] = CStringGetTextDatum(line);
	tuplestore_putvalues(h->rsinfo->setResult, h->rsinfo->setDesc, values, nulls);
	pfree(DatumGetPointer(values[1]));
	h->lines++;
}

void
HstEmitf(HstHarness *h, const char *fmt,...)
{
	va_list		ap;
	StringInfoData buf;

	initStringInfo(&buf);
	for (;;)
	{
		int			needed;

		va_start(ap, fmt);
		needed = appendStringInfoVA(&buf, fmt, ap);
		va_end(ap);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	HstEmit(h, buf.data);
	pfree(buf.data);
}

void
HstStartLine(HstHarness *h)
{
	if (h->epoch_ended)
	{
		h->epoch++;
		h->epoch_ended = false;
	}
}

void
HstEndEpoch(HstHarness *h)
{
	for (int i = 0; i < h->ntables; i++)
		HsStateTableSeal(&h->tables[i]);
	h->store.epoch++;
	h->epoch_ended = true;
}

/* ---------------------------------------------------------------------
 * The sink
 * ---------------------------------------------------------------------
 */

typedef struct SinkExec
{
	HsExec		exec;
	HstHarness *h;
} SinkExec;

static void
sink_push(HsExec *self, TupleTableSlot *row, int sign)
{
	SinkExec   *s = (SinkExec *) self;
	MemoryContext old;

	MemoryContextReset(self->row_cxt);
	old = MemoryContextSwitchTo(self->row_cxt);
	HstEmitf(s->h, "%+d|%s", sign, HstFormatSlot(row));
	MemoryContextSwitchTo(old);
}

static void
sink_flush(HsExec *self)
{
	((SinkExec *) self)->h->sink_flushes++;
}

static const HsExecMethods sink_methods = {
	.name = "Sink",
	.push = sink_push,
	.flush = sink_flush,
	.row_context = "hummock_stream_test sink row",
};

HsExec *
HstSinkCreate(HstHarness *h, TupleDesc desc)
{
	SinkExec   *s = HsExecCreate(sizeof(SinkExec), &sink_methods, desc);

	s->h = h;
	return &s->exec;
}

/* ---------------------------------------------------------------------
 * Scripts
 * ---------------------------------------------------------------------
 */

char	  **
HstScriptLines(ArrayType *script, int *n)
{
	Datum	   *d;
	bool	   *nulls;
	char	  **lines;

	deconstruct_array(script, TEXTOID, -1, false, TYPALIGN_INT, &d, &nulls, n);
	lines = palloc(sizeof(char *) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("line %d of the script is NULL", i + 1)));
		lines[i] = TextDatumGetCString(d[i]);
	}
	return lines;
}

static char *
trim(char *s)
{
	char	   *e;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

bool
HstParseChange(const char *line, int *sign, int64 *copies, const char **fields)
{
	const char *p = line;
	int64		n = 0;
	bool		digits = false;

	if (*p != '+' && *p != '-')
		return false;
	*sign = *p == '+' ? +1 : -1;
	p++;
	while (*p >= '0' && *p <= '9')
	{
		n = n * 10 + (*p - '0');
		if (n > 1000000)
			return false;
		digits = true;
		p++;
	}
	if (*p != '|')
		return false;
	*copies = digits ? n : 1;
	*fields = p + 1;
	return true;
}

/* Split "port: rest" when the part before ':' names a port. */
static HstPort *
line_port(char **line, HstPort *ports, int nports)
{
	char	   *colon = strchr(*line, ':');
	char	   *bar = strchr(*line, '|');
	char	   *name;

	if (colon == NULL || (bar != NULL && bar < colon))
		return NULL;
	name = pnstrdup(*line, colon - *line);
	name = trim(name);
	for (int i = 0; i < nports; i++)
		if (strcmp(ports[i].name, name) == 0)
		{
			*line = trim(colon + 1);
			return &ports[i];
		}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the script names input \"%s\", which this executor does not have", name)));
	return NULL;
}

typedef struct ScriptState
{
	HstHarness *h;
	HstPort    *ports;
	int			nports;
	bool		check_sink;
	int64		sink_at_start;	/* sink flushes when the epoch began */
	bool		pending;		/* a change or a flush since the epoch began */
} ScriptState;

static void
flush_port(ScriptState *s, HstPort *p)
{
	HstHarness *h = s->h;
	bool		all = true;

	if (p->flushed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("input \"%s\" is flushed twice in epoch %d", p->name, h->epoch)));
	p->flushed = true;
	HsExecFlush(p->exec);
	for (int i = 0; i < s->nports; i++)
		all &= s->ports[i].flushed;
	if (!all)
	{
		s->pending = true;
		if (s->check_sink && h->sink_flushes != s->sink_at_start)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("the executor flushed its downstream in epoch %d before all its inputs were flushed",
							h->epoch)));
		return;
	}
	if (s->check_sink && h->sink_flushes != s->sink_at_start + 1)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("the executor flushed its downstream %lld times in epoch %d, not once",
						(long long) (h->sink_flushes - s->sink_at_start), h->epoch)));
	HstEndEpoch(h);
	for (int i = 0; i < s->nports; i++)
		s->ports[i].flushed = false;
	s->sink_at_start = h->sink_flushes;
	s->pending = false;
}

static void
flush_all(ScriptState *s)
{
	for (int i = 0; i < s->nports; i++)
		if (!s->ports[i].flushed)
			flush_port(s, &s->ports[i]);
}

void
HstRunScript(HstHarness *h, ArrayType *script, HstPort *ports, int nports,
			 bool check_sink, HstDumpFunc dump, void *dump_arg)
{
	ScriptState s;
	int			n;
	char	  **lines = HstScriptLines(script, &n);
	MemoryContext line_cxt = AllocSetContextCreate(h->cxt, "hummock_stream_test script line",
												   ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(h->cxt);

	memset(&s, 0, sizeof(s));
	s.h = h;
	s.ports = ports;
	s.nports = nports;
	s.check_sink = check_sink;
	s.sink_at_start = h->sink_flushes;
	for (int i = 0; i < nports; i++)
	{
		ports[i].flushed = false;
		if (ports[i].slot == NULL)
			ports[i].slot = MakeSingleTupleTableSlot(ports[i].desc, &TTSOpsVirtual);
	}

	for (int i = 0; i < n; i++)
	{
		char	   *line = trim(lines[i]);
		HstPort    *port;
		int			sign;
		int64		copies;
		const char *fields;

		MemoryContextReset(line_cxt);
		if (*line == '\0' || *line == '#')
			continue;
		if (strcmp(line, "state") == 0)
		{
			int64		before = h->lines;

			if (dump == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("this function has no state to show")));
			MemoryContextSwitchTo(line_cxt);
			dump(h, dump_arg);
			if (h->lines == before)
				HstEmit(h, "state: (empty)");
			MemoryContextSwitchTo(h->cxt);
			continue;
		}
		port = line_port(&line, ports, nports);
		if (strcmp(line, "flush") == 0)
		{
			HstStartLine(h);
			if (port)
				flush_port(&s, port);
			else
				flush_all(&s);
			continue;
		}
		if (!HstParseChange(line, &sign, &copies, &fields))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("line %d of the script is not a change, flush or state: \"%s\"",
							i + 1, lines[i]),
					 errhint("A change is +N|v1|v2|... or -N|v1|v2|... (N copies, 1 if omitted).")));
		if (port == NULL)
		{
			if (nports != 1)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("line %d of the script does not say which input it goes to: \"%s\"",
								i + 1, lines[i]),
						 errhint("Prefix it with the input's name and a colon, as in \"%s: +1|...\".",
								 ports[0].name)));
			port = &ports[0];
		}
		if (port->flushed)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("line %d pushes into input \"%s\", which epoch %d already flushed",
							i + 1, port->name, h->epoch)));
		HstStartLine(h);
		MemoryContextSwitchTo(line_cxt);
		ExecClearTuple(port->slot);
		HstParseRow(port->desc, fields, port->slot->tts_values, port->slot->tts_isnull);
		ExecStoreVirtualTuple(port->slot);
		MemoryContextSwitchTo(h->cxt);
		for (int64 c = 0; c < copies; c++)
			HsExecPush(port->exec, port->slot, sign);
		ExecClearTuple(port->slot);
		s.pending = true;
	}
	/* a script may leave its last flush out */
	if (s.pending)
	{
		HstStartLine(h);
		flush_all(&s);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(line_cxt);
}

/* ---------------------------------------------------------------------
 * Rows and columns
 * ---------------------------------------------------------------------
 */

TupleDesc
HstParseColumns(const char *spec)
{
	char	   *sql = psprintf("CREATE TABLE hst (%s)", spec);
	List	   *raw = raw_parser(sql, RAW_PARSE_DEFAULT);
	CreateStmt *cs;
	TupleDesc	desc;
	ListCell   *lc;
	int			i = 0;

	if (list_length(raw) != 1 || !IsA(linitial_node(RawStmt, raw)->stmt, CreateStmt))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" is not a list of column definitions", spec)));
	cs = (CreateStmt *) linitial_node(RawStmt, raw)->stmt;
	foreach(lc, cs->tableElts)
		if (!IsA(lfirst(lc), ColumnDef))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"%s\" is not a list of column definitions", spec)));
	if (cs->tableElts == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an input needs at least one column")));
	desc = CreateTemplateTupleDesc(list_length(cs->tableElts));
	foreach(lc, cs->tableElts)
	{
		ColumnDef  *def = lfirst(lc);
		Oid			typid;
		int32		typmod;
		Oid			coll;

		typenameTypeIdAndMod(NULL, def->typeName, &typid, &typmod);
		coll = def->collClause ?
			get_collation_oid(def->collClause->collname, false) : get_typcollation(typid);
		i++;
		TupleDescInitEntry(desc, i, def->colname, typid, typmod, 0);
		TupleDescInitEntryCollation(desc, i, coll);
	}
	return desc;
}

/* Split s at '|' (no escapes). */
static List *
split_fields(const char *s)
{
	List	   *out = NIL;
	const char *p = s;

	for (;;)
	{
		const char *bar = strchr(p, '|');

		if (bar == NULL)
		{
			out = lappend(out, pstrdup(p));
			break;
		}
		out = lappend(out, pnstrdup(p, bar - p));
		p = bar + 1;
	}
	return out;
}

void
HstParseRow(TupleDesc desc, const char *fields, Datum *values, bool *isnull)
{
	List	   *f = split_fields(fields);
	int			live = 0;
	ListCell   *lc;

	for (int i = 0; i < desc->natts; i++)
		if (!TupleDescAttr(desc, i)->attisdropped)
			live++;
	if (list_length(f) != live)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the row \"%s\" has %d values, its input %d columns",
						fields, list_length(f), live)));
	lc = list_head(f);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		char	   *v;
		Oid			in;
		Oid			ioparam;

		if (att->attisdropped)
		{
			values[i] = (Datum) 0;
			isnull[i] = true;
			continue;
		}
		v = lfirst(lc);
		lc = lnext(f, lc);
		if (strcmp(v, "NULL") == 0)
		{
			values[i] = (Datum) 0;
			isnull[i] = true;
			continue;
		}
		getTypeInputInfo(att->atttypid, &in, &ioparam);
		values[i] = OidInputFunctionCall(in, v, ioparam, att->atttypmod);
		isnull[i] = false;
	}
}

char *
HstFormatValues(TupleDesc desc, Datum *values, bool *isnull, int from, int to)
{
	StringInfoData buf;
	bool		first = true;

	initStringInfo(&buf);
	for (int i = from; i < to; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		if (!first)
			appendStringInfoChar(&buf, '|');
		first = false;
		if (isnull[i])
			appendStringInfoString(&buf, "NULL");
		else
		{
			Oid			out;
			bool		varlena;

			getTypeOutputInfo(att->atttypid, &out, &varlena);
			appendStringInfoString(&buf, OidOutputFunctionCall(out, values[i]));
		}
	}
	return buf.data;
}

char *
HstFormatSlot(TupleTableSlot *slot)
{
	slot_getallattrs(slot);
	return HstFormatValues(slot->tts_tupleDescriptor, slot->tts_values, slot->tts_isnull,
						   0, slot->tts_tupleDescriptor->natts);
}

char *
HstFormatStoredRow(TupleDesc desc, const char *data, int len, Datum **values_out,
				   bool **isnull_out)
{
	Datum	   *values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	bool	   *isnull = palloc(sizeof(bool) * Max(desc->natts, 1));
	MinimalTuple mt;

	if (values_out)
		*values_out = NULL;
	if (isnull_out)
		*isnull_out = NULL;
	if (len < (int) SizeofMinimalTupleHeader)
		return psprintf("BAD ROW (%d bytes)", len);
	mt = HsStoredRowCopyDeform(desc, data, len, values, isnull);
	if ((int) mt->t_len != len || HeapTupleHeaderGetNatts(mt) != desc->natts)
		return psprintf("BAD ROW (%d bytes, %d columns, expected %d)", len,
						(int) HeapTupleHeaderGetNatts(mt), desc->natts);
	if (values_out)
		*values_out = values;
	if (isnull_out)
		*isnull_out = isnull;
	return HstFormatValues(desc, values, isnull, 0, desc->natts);
}

int
HstColumnIndex(TupleDesc desc, const char *name)
{
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
			return i;
	}
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_COLUMN),
			 errmsg("the input has no column \"%s\"", name)));
	return -1;
}

int *
HstColumnList(TupleDesc desc, const char *names, int *n)
{
	List	   *list;
	ListCell   *lc;
	int		   *cols;
	int			i = 0;

	if (!SplitIdentifierString(pstrdup(names), ',', &list))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" is not a list of column names", names)));
	cols = palloc(sizeof(int) * Max(list_length(list), 1));
	foreach(lc, list)
		cols[i++] = HstColumnIndex(desc, lfirst(lc));
	*n = i;
	return cols;
}

char *
HstHex(const char *data, int len)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "\\x");
	for (int i = 0; i < len; i++)
		appendStringInfo(&buf, "%02x", (unsigned char) data[i]);
	return buf.data;
}

void
HstEncodeCols(StringInfo buf, TupleDesc desc, Datum *values, bool *isnull,
			  const int *cols, const bool *descending, int n)
{
	for (int i = 0; i < n; i++)
	{
		int			c = cols[i];

		HsMemcmpEncode(buf, values[c], isnull[c], TupleDescAttr(desc, c)->atttypid,
					   descending ? descending[i] : false);
	}
}

/* ---------------------------------------------------------------------
 * Expressions
 * ---------------------------------------------------------------------
 */

typedef struct MapVarsCtx
{
	int		   *offsets;		/* per range table index - 1 */
	int			ninputs;
} MapVarsCtx;

static Node *
map_vars_mutator(Node *node, MapVarsCtx *ctx)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *v = (Var *) copyObject(node);

		if (v->varno < 1 || v->varno > ctx->ninputs || v->varattno <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("expressions may use the input columns only")));
		v->varattno += ctx->offsets[v->varno - 1];
		v->varno = 1;
		v->varnosyn = 0;
		v->varattnosyn = 0;
		return (Node *) v;
	}
	return expression_tree_mutator(node, map_vars_mutator, ctx);
}

List *
HstParseExprs(HstInput *inputs, int ninputs, const char *targets, const char *filter,
			  List **qual, bool raw_aggs)
{
	StringInfoData sql;
	List	   *raw;
	Query	   *q;
	List	   *out = NIL;
	ListCell   *lc;
	MapVarsCtx	ctx;

	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s FROM ", targets ? targets : "1");
	ctx.offsets = palloc(sizeof(int) * ninputs);
	ctx.ninputs = ninputs;
	for (int i = 0; i < ninputs; i++)
	{
		TupleDesc	d = inputs[i].desc;

		ctx.offsets[i] = i == 0 ? 0 : ctx.offsets[i - 1] + inputs[i - 1].desc->natts;
		appendStringInfoString(&sql, i == 0 ? "(SELECT " : ", (SELECT ");
		for (int c = 0; c < d->natts; c++)
		{
			Form_pg_attribute att = TupleDescAttr(d, c);

			appendStringInfo(&sql, "%sNULL::%s", c == 0 ? "" : ", ",
							 format_type_with_typemod(att->atttypid, att->atttypmod));
			if (OidIsValid(att->attcollation) &&
				att->attcollation != get_typcollation(att->atttypid))
				appendStringInfo(&sql, " COLLATE %s", generate_collation_name(att->attcollation));
			appendStringInfo(&sql, " AS %s", quote_identifier(NameStr(att->attname)));
		}
		appendStringInfo(&sql, ") AS %s", quote_identifier(inputs[i].alias));
	}
	if (filter)
		appendStringInfo(&sql, " WHERE %s", filter);

	raw = pg_parse_query(sql.data);
	if (list_length(raw) != 1 || !IsA(linitial_node(RawStmt, raw)->stmt, SelectStmt))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("expressions that are not one SELECT: %s", sql.data)));
	q = parse_analyze_fixedparams(linitial_node(RawStmt, raw), sql.data, NULL, 0, NULL);
	if (q->hasSubLinks || q->hasWindowFuncs || q->hasTargetSRFs ||
		(q->hasAggs && !raw_aggs) || q->groupClause || q->havingQual)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("expressions of executor tests must be plain expressions over the input columns%s",
						raw_aggs ? " (and aggregate calls)" : "")));
	if (targets)
	{
		foreach(lc, q->targetList)
		{
			TargetEntry *tle = lfirst(lc);
			Expr	   *e;

			if (tle->resjunk)
				continue;
			e = (Expr *) map_vars_mutator((Node *) tle->expr, &ctx);
			out = lappend(out, raw_aggs ? e : expression_planner(e));
		}
	}
	if (qual)
	{
		*qual = NIL;
		if (q->jointree->quals)
			*qual = make_ands_implicit(expression_planner((Expr *)
														  map_vars_mutator(q->jointree->quals, &ctx)));
	}
	return out;
}

/* ---------------------------------------------------------------------
 * Cache eviction
 * ---------------------------------------------------------------------
 */

void
HstEvictBegin(bool evict, int *saved_agg, int *saved_join)
{
	*saved_agg = hs_agg_cache_groups;
	*saved_join = hs_join_cache_kb;
	if (evict)
	{
		hs_agg_cache_groups = 0;
		hs_join_cache_kb = 0;
	}
}

void
HstEvictEnd(bool evict, int saved_agg, int saved_join)
{
	hs_agg_cache_groups = saved_agg;
	hs_join_cache_kb = saved_join;
}
