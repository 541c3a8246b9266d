/*-------------------------------------------------------------------------
 *
 * wait.c
 *	  hummock_stream.wait(): read your writes through streaming views.
 *
 * A view committed at epoch E contains every transaction visible in the
 * snapshot of the barrier that ended E, which the barrier manager took
 * when it injected the next barrier, after E's millisecond.  So once the
 * epoch a read would use has a millisecond later than the one wait() was
 * called in, everything committed before the call is in it.
 *
 * Which epoch a read uses depends on hummock_stream.query_consistency:
 * with 'global' (or without a relation) it is the global read epoch (the
 * oldest committed epoch of every relation USING hummock); with
 * 'per_table' and a relation, that relation's committed epoch.
 *
 * src/batch/wait.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"

PG_FUNCTION_INFO_V1(hummock_stream_wait);
PG_FUNCTION_INFO_V1(hummock_stream_estimated_rows);
PG_FUNCTION_INFO_V1(hummock_stream_estimated_size);

/*
 * The SST statistics of relid in the newest version (HsTableSizeEstimate);
 * false if relid is not a relation USING hummock.
 */
static bool
relation_size_estimate(Oid relid, double *keys, uint64 *bytes)
{
	HsVersion  *v;

	if (!HsRelidIsHummock(relid))
		return false;
	v = HsHummockCurrentVersion();
	HsTableSizeEstimate(v, (HsTableId) relid, keys, bytes);
	HsVersionUnref(v);
	return true;
}

/*
 * hummock_stream.estimated_rows(rel): keys of a relation USING hummock in
 * the newest version's SSTs (data still in compute workers' buffers is
 * not counted; older versions of a key not yet compacted away are).
 */
Datum
hummock_stream_estimated_rows(PG_FUNCTION_ARGS)
{
	double		keys;
	uint64		bytes;

	if (!relation_size_estimate(PG_GETARG_OID(0), &keys, &bytes))
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) keys);
}

/*
 * hummock_stream.estimated_size(rel): bytes of the newest version's SST
 * files that hold a relation USING hummock (an SST shared by several
 * tables counts for each a share by its table count).  pg_relation_size
 * reads the relation's own files, which stay empty.
 */
Datum
hummock_stream_estimated_size(PG_FUNCTION_ARGS)
{
	double		keys;
	uint64		bytes;

	if (!relation_size_estimate(PG_GETARG_OID(0), &keys, &bytes))
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) bytes);
}

/* The epoch a read of relid (InvalidOid: of everything) would use now. */
static HsEpoch
read_epoch(Oid relid)
{
	HsVersion  *v = HsHummockCurrentVersion();
	HsEpoch		e = 0;

	if (OidIsValid(relid))
	{
		(void) HsVersionCommittedEpoch(v, (HsTableId) relid, &e);
		if (hs_query_consistency == HS_CONSISTENCY_GLOBAL)
		{
			HsEpoch		g = HsGlobalReadEpoch(v);

			if (g != 0 && g < e)
				e = g;
		}
	}
	else
		e = HsGlobalReadEpoch(v);
	HsVersionUnref(v);
	return e;
}

Datum
hummock_stream_wait(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_ARGISNULL(0) ? InvalidOid : PG_GETARG_OID(0);
	Interval   *timeout = PG_ARGISNULL(1) ? NULL : PG_GETARG_INTERVAL_P(1);
	HsEpoch		called = HsEpochNow();
	TimestampTz deadline = 0;

	if (OidIsValid(relid))
	{
		AclResult	acl = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT);

		if (acl != ACLCHECK_OK)
			aclcheck_error(acl, OBJECT_TABLE, get_rel_name(relid));
		if (!HsRelidIsHummock(relid))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("\"%s\" is not a relation USING hummock", get_rel_name(relid))));
	}
	if (timeout)
	{
		int64		us = timeout->time +
			(int64) (timeout->day + timeout->month * 30) * USECS_PER_DAY;

		if (us < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("timeout must not be negative")));
		deadline = GetCurrentTimestamp() + us;
	}

	for (;;)
	{
		HsEpoch		e = read_epoch(relid);

		if ((e >> HS_EPOCH_SEQ_BITS) > (called >> HS_EPOCH_SEQ_BITS))
			break;
		if (deadline != 0 && GetCurrentTimestamp() >= deadline)
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("timed out waiting for %s to catch up",
							OidIsValid(relid) ? get_rel_name(relid) : "streaming views"),
					 errdetail("The epoch reads use is %s; it must pass the call's time %s.",
							   e ? timestamptz_to_str(HsEpochToTimestamp(e)) : "none",
							   timestamptz_to_str(HsEpochToTimestamp(called))),
					 errhint("See hummock_stream.jobs and hummock_stream.partial_graphs for a view that is failing or slow.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 5, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	PG_RETURN_VOID();
}
