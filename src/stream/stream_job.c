/*-------------------------------------------------------------------------
 *
 * stream_job.c
 *	  A running streaming job (see stream_job.h).
 *
 * A job reads its source two ways: once, at creation, every row of the
 * source in the creation snapshot (backfill, as inserts: stream_ddl.c);
 * then, epoch by epoch, the source's capture log between two barrier
 * snapshots (capture.c explains why that is exactly the epoch's input).
 * Either way the rows go through the same executors into the same state
 * tables.
 *
 * src/stream/stream_job.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "nodes/readfuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/stream_job.h"

/* Rows fetched from the capture log at a time. */
#define LOG_FETCH_ROWS 1000

HsStreamJob *
HsStreamJobCreate(Oid job_id, Query *query, const Oid *state_tables,
				  HsStreamStore *store, MemoryContext parent)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "hummock_stream job",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	HsStreamJob *job = palloc0(sizeof(HsStreamJob));
	Relation	src;
	Relation	view;

	job->job_id = job_id;
	job->cxt = cxt;
	job->store = *store;
	job->plan = HsStreamPlanCreate(copyObject(query));

	src = table_open(job->plan->source_relid, AccessShareLock);
	job->source_desc = CreateTupleDescCopy(RelationGetDescr(src));
	table_close(src, AccessShareLock);
	job->source_slot = MakeSingleTupleTableSlot(job->source_desc, &TTSOpsHeapTuple);
	view = table_open(job_id, AccessShareLock);

	/* the view keeps a change log (old values) for change_log() and its readers */
	HsStateTableInit(&job->view, &job->store, (HsTableId) job_id, true);
	for (int i = 0; i < HS_N_STATE_TABLES; i++)
		HsStateTableInit(&job->states[i], &job->store, (HsTableId) state_tables[i], false);
	job->head = HsStreamPlanBuild(job->plan, job->source_desc,
								  CreateTupleDescCopy(RelationGetDescr(view)),
								  &job->view, job->states);
	table_close(view, AccessShareLock);
	MemoryContextSwitchTo(old);
	return job;
}

HsStreamJob *
HsStreamJobLoad(Oid job_id, HsStreamStore *store, MemoryContext parent)
{
	Datum		arg = ObjectIdGetDatum(job_id);
	Oid			argtype = OIDOID;
	bool		isnull;
	char	   *tree;
	char	   *position;
	Datum	   *ids;
	int			n;
	Oid			state_tables[HS_N_STATE_TABLES];
	HsStreamJob *job;
	MemoryContext old;

	SPI_connect();
	if (SPI_execute_with_args("SELECT query_tree, state_tables, position::text"
							  "  FROM hummock_stream.stream_jobs WHERE job_id = $1",
							  1, &argtype, &arg, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read hummock_stream.stream_jobs");
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("streaming job %u does not exist", job_id)));
	old = MemoryContextSwitchTo(parent);
	tree = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	position = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
	deconstruct_array(DatumGetArrayTypeP(SPI_getbinval(SPI_tuptable->vals[0],
													   SPI_tuptable->tupdesc, 2, &isnull)),
					  OIDOID, sizeof(Oid), true, TYPALIGN_INT, &ids, NULL, &n);
	if (n != HS_N_STATE_TABLES)
		elog(ERROR, "streaming job %u has %d state tables, expected %d",
			 job_id, n, HS_N_STATE_TABLES);
	for (int i = 0; i < n; i++)
		state_tables[i] = DatumGetObjectId(ids[i]);
	MemoryContextSwitchTo(old);
	SPI_finish();

	job = HsStreamJobCreate(job_id, (Query *) stringToNode(tree), state_tables,
							store, parent);
	job->position = MemoryContextStrdup(job->cxt, position);
	return job;
}

/* Prepare the query that reads the capture log between two snapshots. */
static void
prepare_log_plan(HsStreamJob *job)
{
	char		sql[512];
	Oid			types[2] = {TEXTOID, TEXTOID};

	if (job->log_plan)
		return;
	job->log_relid = HsCaptureLogOf(job->plan->source_relid);
	if (!OidIsValid(job->log_relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has no capture log",
						get_rel_name(job->plan->source_relid))));
	snprintf(sql, sizeof(sql),
			 "SELECT op, r FROM hummock_stream.%s"
			 " WHERE txid >= pg_snapshot_xmin($1::pg_snapshot)"
			 "   AND txid < pg_snapshot_xmax($2::pg_snapshot)"
			 "   AND pg_visible_in_snapshot(txid, $2::pg_snapshot)"
			 "   AND NOT pg_visible_in_snapshot(txid, $1::pg_snapshot)"
			 " ORDER BY stmt, ord",
			 quote_identifier(get_rel_name(job->log_relid)));
	job->log_plan = SPI_prepare(sql, 2, types);
	if (job->log_plan == NULL)
		elog(ERROR, "could not prepare the capture log query: %s",
			 SPI_result_code_string(SPI_result));
	SPI_keepplan(job->log_plan);
}

void
HsStreamJobConsume(HsStreamJob *job, const char *snapshot)
{
	Datum		args[2];
	Portal		portal;
	HeapTupleData tmp;

	if (job->position == NULL)
		elog(ERROR, "streaming job %u has no position", job->job_id);
	if (strcmp(job->position, snapshot) == 0)
		return;
	SPI_connect();
	prepare_log_plan(job);
	args[0] = CStringGetTextDatum(job->position);
	args[1] = CStringGetTextDatum(snapshot);
	portal = SPI_cursor_open(NULL, job->log_plan, args, NULL, true);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, LOG_FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			HeapTuple	t = SPI_tuptable->vals[i];
			bool		isnull;
			char		op = DatumGetChar(SPI_getbinval(t, SPI_tuptable->tupdesc, 1, &isnull));
			HeapTupleHeader th = DatumGetHeapTupleHeader(SPI_getbinval(t, SPI_tuptable->tupdesc,
																		2, &isnull));
			MemoryContext old;

			tmp.t_len = HeapTupleHeaderGetDatumLength(th);
			tmp.t_data = th;
			ItemPointerSetInvalid(&tmp.t_self);
			tmp.t_tableOid = InvalidOid;
			ExecStoreHeapTuple(&tmp, job->source_slot, false);
			old = MemoryContextSwitchTo(job->cxt);
			HsExecPush(job->head, job->source_slot, op == HS_CAPTURE_INSERT ? +1 : -1);
			MemoryContextSwitchTo(old);
			ExecClearTuple(job->source_slot);
			job->rows_in++;
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_finish();
	elog(DEBUG1, "hummock_stream job %u consumed (%s, %s]: %lld rows so far",
		 job->job_id, job->position, snapshot, (long long) job->rows_in);
	{
		char	   *p = MemoryContextStrdup(job->cxt, snapshot);

		pfree(job->position);
		job->position = p;
	}
}

void
HsStreamJobFlush(HsStreamJob *job)
{
	MemoryContext old = MemoryContextSwitchTo(job->cxt);

	HsExecFlush(job->head);
	HsStateTableSeal(&job->view);
	for (int i = 0; i < HS_N_STATE_TABLES; i++)
		HsStateTableSeal(&job->states[i]);
	MemoryContextSwitchTo(old);
}

int
HsStreamJobTables(HsStreamJob *job, HsTableId *out)
{
	out[0] = job->view.table_id;
	for (int i = 0; i < HS_N_STATE_TABLES; i++)
		out[i + 1] = job->states[i].table_id;
	return HS_N_STATE_TABLES + 1;
}

void
HsStreamJobFree(HsStreamJob *job)
{
	HsStateTableDiscard(&job->view);
	for (int i = 0; i < HS_N_STATE_TABLES; i++)
		HsStateTableDiscard(&job->states[i]);
	if (job->log_plan)
		SPI_freeplan(job->log_plan);
	MemoryContextDelete(job->cxt);
}
