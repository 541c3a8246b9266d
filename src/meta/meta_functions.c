/*-------------------------------------------------------------------------
 *
 * meta_functions.c
 *	  SQL functions that show the barrier loop of the current database.
 *
 * src/meta/meta_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "hummock_stream/meta/db_state.h"

PG_FUNCTION_INFO_V1(hummock_stream_barriers);
PG_FUNCTION_INFO_V1(hummock_stream_manager_pid);

/*
 * hummock_stream.barriers(): the recent barriers of this database, oldest
 * first.
 */
Datum
hummock_stream_barriers(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	HsBarrierRecord ring[HS_BARRIER_RING];
	int			next;

	InitMaterializedSRF(fcinfo, 0);
	if (db == NULL)
		return (Datum) 0;

	SpinLockAcquire(&db->barrier_mutex);
	memcpy(ring, db->ring, sizeof(ring));
	next = db->ring_next;
	SpinLockRelease(&db->barrier_mutex);

	for (int k = 0; k < HS_BARRIER_RING; k++)
	{
		HsBarrierRecord *r = &ring[(next + k) % HS_BARRIER_RING];
		Datum		values[6];
		bool		nulls[6] = {0};

		if (r->curr_epoch == 0)
			continue;
		values[0] = Int64GetDatum((int64) r->prev_epoch);
		values[1] = Int64GetDatum((int64) r->curr_epoch);
		values[2] = CStringGetTextDatum(r->checkpoint ? "checkpoint" : "barrier");
		values[3] = TimestampTzGetDatum(r->injected_at);
		if (r->collected_at)
		{
			values[4] = TimestampTzGetDatum(r->collected_at);
			values[5] = Float8GetDatum((r->collected_at - r->injected_at) / 1000.0);
		}
		else
			nulls[4] = nulls[5] = true;
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
