/*-------------------------------------------------------------------------
 *
 * rows_query.c
 *	  Running a Postgres plan over rows an executor holds.
 *
 * Some results are not kept incrementally: an aggregate without a
 * retractable accumulator, a window function.  The executors that compute
 * them keep the input rows (per group, per partition) in a state table
 * and, for what an epoch touches, let Postgres's own executor compute the
 * result from those rows: the rows go into a tuplestore registered as an
 * ephemeral named relation (as a trigger's transition table is), a Query
 * over it (built once, planned once by pg_plan_query) computes the
 * result, and a DestReceiver takes the rows it returns.  The result is
 * then exactly Postgres's, whatever the function.
 *
 * src/stream/executor/rows_query.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "utils/queryenvironment.h"
#include "utils/snapmgr.h"

#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/stream/executor.h"
#include "hummock_stream/stream/state_table.h"

#include "rows_query.h"

Query *
HsRowsQuery(const char *enrname, TupleDesc desc)
{
	Query	   *q = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *rtr = makeNode(RangeTblRef);
	List	   *colnames = NIL;

	rte->rtekind = RTE_NAMEDTUPLESTORE;
	rte->enrname = pstrdup(enrname);
	rte->enrtuples = 1000;		/* (the planner's guess; plans do not vary) */
	rte->inFromCl = true;
	rte->relid = InvalidOid;
	for (int c = 0; c < desc->natts; c++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, c);

		colnames = lappend(colnames, makeString(pstrdup(NameStr(att->attname))));
		rte->coltypes = lappend_oid(rte->coltypes, att->atttypid);
		rte->coltypmods = lappend_int(rte->coltypmods, att->atttypmod);
		rte->colcollations = lappend_oid(rte->colcollations, att->attcollation);
	}
	rte->eref = makeAlias(enrname, colnames);

	q->commandType = CMD_SELECT;
	q->querySource = QSRC_ORIGINAL;
	q->canSetTag = true;
	q->rtable = list_make1(rte);
	rtr->rtindex = 1;
	q->jointree = makeFromExpr(list_make1(rtr), NULL);
	return q;
}

TupleDesc
HsRowsOrdinalDesc(TupleDesc desc)
{
	TupleDesc	out = CreateTemplateTupleDesc(desc->natts + 1);

	TupleDescInitEntry(out, 1, "ord", INT4OID, -1, 0);
	for (int c = 0; c < desc->natts; c++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, c);
		char		name[32];

		snprintf(name, sizeof(name), "c%d", c + 1);
		TupleDescInitEntry(out, c + 2, name, att->atttypid, att->atttypmod, 0);
		TupleDescInitEntryCollation(out, c + 2, att->attcollation);
	}
	return out;
}

void
HsRowsPut(Tuplestorestate *rows, TupleDesc enr_desc, int32 ord, TupleDesc row_desc,
		  const char *row, int len, int64 count, Datum *values, bool *nulls)
{
	MinimalTuple copy = HsStoredRowCopyDeform(row_desc, row, len, values + 1, nulls + 1);

	values[0] = Int32GetDatum(ord);
	nulls[0] = false;
	for (int64 i = 0; i < count; i++)
		tuplestore_putvalues(rows, enr_desc, values, nulls);
	pfree(copy);
}

SortGroupClause *
HsRowsByOrdinal(Index ref)
{
	SortGroupClause *sgc = makeNode(SortGroupClause);

	sgc->tleSortGroupRef = ref;
	sgc->eqop = Int4EqualOperator;
	sgc->sortop = Int4LessOperator;
	sgc->nulls_first = false;
	sgc->hashable = true;
	return sgc;
}

static void
rows_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
rows_shutdown(DestReceiver *self)
{
}

static void
rows_destroy(DestReceiver *self)
{
}

void
HsRowsReceiverInit(DestReceiver *dest,
				   bool (*receive) (TupleTableSlot *slot, DestReceiver *self))
{
	dest->receiveSlot = receive;
	dest->rStartup = rows_startup;
	dest->rShutdown = rows_shutdown;
	dest->rDestroy = rows_destroy;
	dest->mydest = DestNone;
}

void
HsRowsQueryRun(PlannedStmt *plan, const char *what, const char *enrname,
			   TupleDesc desc, Tuplestorestate *rows, DestReceiver *dest)
{
	QueryEnvironment *env = create_queryEnv();
	EphemeralNamedRelation enr = palloc0(sizeof(EphemeralNamedRelationData));
	QueryDesc  *qd;

	enr->md.name = pstrdup(enrname);
	enr->md.reliddesc = InvalidOid;
	enr->md.tupdesc = desc;
	enr->md.enrtype = ENR_NAMED_TUPLESTORE;
	enr->md.enrtuples = (double) tuplestore_tuple_count(rows);
	enr->reldata = rows;
	register_ENR(env, enr);

	qd = CreateQueryDesc(plan, what,
						 ActiveSnapshotSet() ? GetActiveSnapshot() : InvalidSnapshot,
						 InvalidSnapshot, dest, NULL, env, 0);
	ExecutorStart(qd, 0);
	ExecutorRun(qd, ForwardScanDirection, 0, true);
	ExecutorFinish(qd);
	ExecutorEnd(qd);
	FreeQueryDesc(qd);
}

void
HsRowsCountAdd(HsStateTable *table, const char *key, int keylen, int64 delta,
			   const char *what)
{
	StringInfoData old;
	int64		count = 0;
	int64		now;

	initStringInfo(&old);
	if (HsStateTableGet(table, key, keylen, &old))
		count = HsCountedRowCount(old.data);
	now = count + delta;
	if (now < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a streaming %s was asked to remove a row it does not hold", what)));
	if (now == 0)
		HsStateTableDelete(table, key, keylen, old.data, old.len);
	else
		HsStateTablePut(table, key, keylen, count > 0 ? old.data : NULL, old.len,
						(const char *) &now, (int) sizeof(now));
	pfree(old.data);
}

void
HsRowsEmitBytes(HsExec *e, const char *data, int len, int64 count, int sign)
{
	TupleTableSlot *out = e->out;
	MinimalTuple copy;

	ExecClearTuple(out);
	copy = HsStoredRowCopyDeform(e->out_desc, data, len, out->tts_values, out->tts_isnull);
	ExecStoreVirtualTuple(out);
	for (int64 i = 0; i < count; i++)
		HsExecEmit(e, out, sign);
	pfree(copy);
}
