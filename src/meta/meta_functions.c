/*-------------------------------------------------------------------------
 *
 * meta_functions.c
 *	  SQL functions that show and drive the barrier loop of the current
 *	  database.
 *
 * src/meta/meta_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "hummock_stream/meta/barrier_msg.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/partial_graph.h"
#include "hummock_stream/pg/user_context.h"

PG_FUNCTION_INFO_V1(hummock_stream_barriers);
PG_FUNCTION_INFO_V1(hummock_stream_partial_graphs);
PG_FUNCTION_INFO_V1(hummock_stream_graph_failures);
PG_FUNCTION_INFO_V1(hummock_stream_workers);
PG_FUNCTION_INFO_V1(hummock_stream_manager_pid);

static const char *
barrier_kind_name(uint8 kind)
{
	switch ((HsBarrierKind) kind)
	{
		case HS_BARRIER_INITIAL:
			return "initial";
		case HS_BARRIER_REGULAR:
			return "barrier";
		case HS_BARRIER_CHECKPOINT:
			return "checkpoint";
	}
	return "unknown";
}

static Datum
ms_between(TimestampTz a, TimestampTz b)
{
	return Float8GetDatum((b - a) / 1000.0);
}

/*
 * hummock_stream.barriers(): the recent barriers of this database, oldest
 * first: graph 0 is the database's own barrier (when it was injected);
 * other rows are the barriers each partial graph completed.
 */
Datum
hummock_stream_barriers(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	HsBarrierRecord *ring;
	int			next;

	InitMaterializedSRF(fcinfo, 0);
	if (db == NULL)
		return (Datum) 0;

	ring = palloc(sizeof(HsBarrierRecord) * HS_BARRIER_RING);
	SpinLockAcquire(&db->barrier_mutex);
	memcpy(ring, db->ring, sizeof(HsBarrierRecord) * HS_BARRIER_RING);
	next = db->ring_next;
	SpinLockRelease(&db->barrier_mutex);

	for (int k = 0; k < HS_BARRIER_RING; k++)
	{
		HsBarrierRecord *r = &ring[(next + k) % HS_BARRIER_RING];
		Datum		values[9];
		bool		nulls[9] = {0};

		if (r->curr_epoch == 0)
			continue;
		/* the database's own barriers (graph 0) are anyone's to see */
		if (r->graph_id != 0 && !HsMayMonitor((Oid) r->graph_id))
			continue;
		values[0] = Int64GetDatum((int64) r->graph_id);
		values[1] = Int64GetDatum((int64) r->prev_epoch);
		values[2] = Int64GetDatum((int64) r->curr_epoch);
		values[3] = CStringGetTextDatum(barrier_kind_name(r->kind));
		values[4] = TimestampTzGetDatum(r->injected_at);
		if (r->collected_at)
		{
			values[5] = TimestampTzGetDatum(r->collected_at);
			values[7] = ms_between(r->injected_at, r->collected_at);
		}
		else
			nulls[5] = nulls[7] = true;
		if (r->committed_at)
		{
			values[6] = TimestampTzGetDatum(r->committed_at);
			values[8] = ms_between(r->injected_at, r->committed_at);
		}
		else
			nulls[6] = nulls[8] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * hummock_stream.partial_graphs(): state of each partial graph.
 */
Datum
hummock_stream_partial_graphs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	HsGraphStatus *st;
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	if (db == NULL)
		return (Datum) 0;
	st = palloc(sizeof(HsGraphStatus) * HS_MAX_GRAPH_STATUS);
	SpinLockAcquire(&db->barrier_mutex);
	n = db->n_graphs;
	memcpy(st, db->graphs, sizeof(HsGraphStatus) * n);
	SpinLockRelease(&db->barrier_mutex);

	for (int i = 0; i < n; i++)
	{
		Datum		values[12];
		bool		nulls[12] = {0};

		if (!HsMayMonitor((Oid) st[i].graph_id))
			continue;

		values[0] = Int64GetDatum((int64) st[i].graph_id);
		values[1] = CStringGetTextDatum(HsGraphStateName((HsGraphState) st[i].state));
		values[2] = BoolGetDatum(st[i].paused);
		values[3] = Int32GetDatum(st[i].n_actors);
		values[4] = Int64GetDatum((int64) st[i].committed_epoch);
		values[5] = Int64GetDatum((int64) st[i].last_injected);
		values[6] = Int32GetDatum(st[i].inflight);
		values[7] = Int64GetDatum(st[i].commits);
		values[8] = Int64GetDatum(st[i].resets);
		if (st[i].last_commit_at)
			values[9] = TimestampTzGetDatum(st[i].last_commit_at);
		else
			nulls[9] = true;
		if (st[i].last_error[0])
			values[10] = CStringGetTextDatum(st[i].last_error);
		else
			nulls[10] = true;
		if (st[i].retry_at)
			values[11] = TimestampTzGetDatum(st[i].retry_at);
		else
			nulls[11] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * hummock_stream._graph_failures(): the graphs of this database that failed
 * since their last commit, with their last error, for hummock_stream.jobs.
 * Graph 0 stands for every graph: the database has no barrier manager
 * because none could start (no background worker slot, or no shared slot
 * for the database).  An error may quote data, so last_error is NULL for
 * a caller who may not monitor the view (HsMayMonitor: the privileges of
 * its owner, or pg_monitor; test graphs: pg_monitor).
 */
Datum
hummock_stream_graph_failures(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	HsManagerProblem problem = HsDbStateManagerProblem(MyDatabaseId);
	HsGraphStatus *st;
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	if ((db == NULL || db->manager_pid == 0) && problem != HS_MANAGER_OK)
	{
		Datum		values[3];
		bool		nulls[3] = {0};

		values[0] = Int64GetDatum(0);
		nulls[2] = true;
		values[1] = CStringGetTextDatum(problem == HS_MANAGER_NO_WORKER_SLOT ?
										HS_NO_MANAGER_SLOT_MSG :
										"too many databases use hummock_stream; raise hummock_stream.max_databases");
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (db == NULL)
		return (Datum) 0;
	st = palloc(sizeof(HsGraphStatus) * HS_MAX_GRAPH_STATUS);
	SpinLockAcquire(&db->barrier_mutex);
	n = db->n_graphs;
	memcpy(st, db->graphs, sizeof(HsGraphStatus) * n);
	SpinLockRelease(&db->barrier_mutex);
	for (int i = 0; i < n; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {0};

		if (!st[i].failed)
			continue;
		values[0] = Int64GetDatum((int64) st[i].graph_id);
		values[2] = Int32GetDatum((int32) st[i].failures);
		/* an error may quote data: only for those who may monitor the view */
		if (HsMayMonitor((Oid) st[i].graph_id))
			values[1] = CStringGetTextDatum(st[i].last_error);
		else
			nulls[1] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * hummock_stream.workers(): the barrier manager and compute workers of
 * this database.
 */
Datum
hummock_stream_workers(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	HsWorkerStatus ws[HS_MAX_WORKER_STATUS];
	int			n;
	pid_t		manager;

	InitMaterializedSRF(fcinfo, 0);
	if (db == NULL)
		return (Datum) 0;
	SpinLockAcquire(&db->barrier_mutex);
	n = db->n_workers;
	memcpy(ws, db->workers, sizeof(HsWorkerStatus) * n);
	SpinLockRelease(&db->barrier_mutex);
	manager = db->manager_pid;

	if (manager != 0)
	{
		Datum		values[6];
		bool		nulls[6] = {0};

		values[0] = CStringGetTextDatum("barrier manager");
		nulls[1] = true;
		values[2] = Int32GetDatum((int32) manager);
		nulls[3] = nulls[4] = nulls[5] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	for (int i = 0; i < n; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {0};

		values[0] = CStringGetTextDatum("compute worker");
		values[1] = Int32GetDatum(i);
		if (ws[i].pid)
			values[2] = Int32GetDatum((int32) ws[i].pid);
		else
			nulls[2] = true;
		values[3] = Int32GetDatum(ws[i].n_graphs);
		values[4] = Int64GetDatum(ws[i].starts);
		if (ws[i].started_at)
			values[5] = TimestampTzGetDatum(ws[i].started_at);
		else
			nulls[5] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * hummock_stream.manager_pid(): pid of this database's barrier manager, or
 * NULL if none runs.
 */
Datum
hummock_stream_manager_pid(PG_FUNCTION_ARGS)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	pid_t		pid = 0;

	if (db != NULL)
		pid = db->manager_pid;
	if (pid == 0)
		PG_RETURN_NULL();
	PG_RETURN_INT32((int32) pid);
}

static bool wake_registered = false;
static bool wake_pending = false;

static void
wake_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT && wake_pending)
		HsDbStateWakeManager(MyDatabaseId);
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT)
		wake_pending = false;
}

void
HsWakeManagerOnCommit(void)
{
	if (!wake_registered)
	{
		RegisterXactCallback(wake_xact_callback, NULL);
		wake_registered = true;
	}
	wake_pending = true;
}
