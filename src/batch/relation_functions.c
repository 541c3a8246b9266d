/*-------------------------------------------------------------------------
 *
 * relation_functions.c
 *	  SQL functions over relations USING hummock: change_log() and
 *	  committed_epochs().
 *
 * (test_load, which writes such a relation directly, is the test
 * module's: test/modules/hummock_stream_test.)
 *
 * src/batch/relation_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/objectaddress.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_type.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/timestamp.h"

#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/change_log.h"
#include "hummock_stream/storage/memtable.h"
#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/storage/version_read.h"

PG_FUNCTION_INFO_V1(hummock_stream_change_log);
PG_FUNCTION_INFO_V1(hummock_stream_committed_epochs);

/* The op names users of change logs know (RisingWave's). */
static const char *
change_op_name(HsChangeOp op)
{
	switch (op)
	{
		case HS_CHANGE_INSERT:
			return "Insert";
		case HS_CHANGE_DELETE:
			return "Delete";
		case HS_CHANGE_UPDATE_DELETE:
			return "UpdateDelete";
		case HS_CHANGE_UPDATE_INSERT:
			return "UpdateInsert";
	}
	return "unknown";
}

/*
 * hummock_stream.change_log(rel anyelement, from_epoch, to_epoch,
 *							 OUT op text, OUT epoch bigint, OUT "row" anyelement)
 *
 * The changes of a relation USING hummock over epochs (from, to], called
 * with a value of the relation's row type (NULL::rel).  Read one
 * checkpoint of the change log at a time, so each change carries the epoch
 * it was committed in; within a checkpoint it is the net change per key
 * (Insert, Delete, or UpdateDelete immediately followed by UpdateInsert).
 */
Datum
hummock_stream_change_log(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			rowtype = get_fn_expr_argtype(fcinfo->flinfo, 0);
	Oid			relid = typeidTypeRelid(rowtype);
	int64		from = PG_GETARG_INT64(1);
	int64		to = PG_GETARG_INT64(2);
	Relation	rel;
	HsVersion  *v;
	const HsTableChangeLog *log;
	HsEpoch		committed = 0;
	HsStatus	st;
	HsEpoch		prev;
	TupleDesc	rowdesc;
	TupleTableSlot *rowslot;
	HsJobRow	job;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the epochs of change_log cannot be null"),
				 errhint("hummock_stream.committed_epochs() shows the epochs a view's change log holds.")));
	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("change_log needs a row of a relation USING hummock, such as NULL::my_view")));
	rel = table_open(relid, AccessShareLock);
	if (!HsRelationIsHummock(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a relation USING hummock",
						RelationGetRelationName(rel))));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(rel->rd_rel->relkind),
					   RelationGetRelationName(rel));
	/* the log has every row: it cannot apply policies as a scan does */
	if (check_enable_rls(relid, InvalidOid, false) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("change_log cannot read \"%s\": row-level security applies to it",
						RelationGetRelationName(rel)),
				 errhint("Read the relation with SELECT, which applies its policies.")));
	if (from < 0 || to <= from)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the epoch range (%lld, %lld] is empty",
						(long long) from, (long long) to)));

	InitMaterializedSRF(fcinfo, 0);
	v = HsHummockPinnedVersion((HsEpoch) from);
	if (!HsVersionCommittedEpoch(v, (HsTableId) relid, &committed) ||
		(HsEpoch) to > committed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("relation \"%s\" is not committed at epoch %lld",
						RelationGetRelationName(rel), (long long) to)));
	log = HsVersionChangeLog(v, (HsTableId) relid);
	if (log == NULL && HsCatalogReadJob(relid, &job))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("streaming materialized view \"%s\" keeps no change log",
						RelationGetRelationName(rel)),
				 errdetail("A view keeps one while views read it, or when its owner asks for one."),
				 errhint("Call hummock_stream.set_change_log('%s', true), or create the view with change_log => true; the log starts within two checkpoints.",
						 RelationGetRelationName(rel))));
	if (log == NULL || log->start_epoch > (HsEpoch) from)
		ereport(ERROR,
				(errcode(ERRCODE_SNAPSHOT_TOO_OLD),
				 errmsg("the change log of relation \"%s\" does not reach back to epoch %lld",
						RelationGetRelationName(rel), (long long) from),
				 log ? errdetail("It starts after epoch %llu.",
								 (unsigned long long) log->start_epoch) : 0));

	rowdesc = CreateTupleDescCopy(RelationGetDescr(rel));
	rowdesc->tdtypeid = rowtype;
	rowdesc->tdtypmod = -1;
	rowslot = MakeSingleTupleTableSlot(rowdesc, &TTSOpsMinimalTuple);
	prev = (HsEpoch) from;
	for (int i = 0; i < log->n_entries; i++)
	{
		HsEpoch		ckpt = HsChangeLogEntryCheckpointEpoch(log->entries[i]);
		HsEpoch		upto = Min(ckpt, (HsEpoch) to);
		HsChangeLogIter *it;

		if (ckpt <= prev)
			continue;
		HS_CHECK(HsIterLog(v, HsHummockSstCache(), (HsTableId) relid, prev, upto,
						   NULL, NULL, &it, &st), &st);
		for (; HsChangeLogIterValid(it); HsChangeLogIterNext(it))
		{
			HsSlice		r = HsChangeLogIterRow(it);
			MinimalTuple mt = palloc(Max(r.len, MINIMAL_TUPLE_DATA_OFFSET));
			HeapTuple	ht;
			Datum		values[3];
			bool		nulls[3] = {0};

			memcpy(mt, r.data, r.len);
			mt->t_len = (uint32) r.len;
			/* a composite datum of the relation's row type */
			ExecStoreMinimalTuple(mt, rowslot, true);
			ht = ExecCopySlotHeapTuple(rowslot);
			values[0] = CStringGetTextDatum(change_op_name(HsChangeLogIterOp(it)));
			values[1] = Int64GetDatum((int64) upto);
			values[2] = heap_copy_tuple_as_datum(ht, rowdesc);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		if (!HsChangeLogIterStatus(it, &st))
		{
			HsChangeLogIterDestroy(it);
			HsStatusReport(ERROR, &st);
		}
		HsChangeLogIterDestroy(it);
		prev = upto;
		if (prev >= (HsEpoch) to)
			break;
	}
	ExecDropSingleTupleTableSlot(rowslot);
	HsVersionUnref(v);
	table_close(rel, AccessShareLock);
	return (Datum) 0;
}

/*
 * hummock_stream.committed_epochs(): the committed epoch of each relation
 * USING hummock that the caller may read (SELECT) or monitor (it has the
 * privileges of its owner, or of pg_monitor).  Unlike table_epochs(), it
 * shows no internal state tables and nothing of others' relations.  Also
 * the epoch each one's change log starts after (NULL: it keeps none), the
 * first from_epoch change_log() accepts.
 */
Datum
hummock_stream_committed_epochs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsVersion  *v;

	InitMaterializedSRF(fcinfo, 0);
	v = HsHummockCurrentVersion();
	for (int i = 0; i < v->n_tables; i++)
	{
		const HsTableInfo *t = &v->tables[i];
		Oid			relid = (Oid) t->table_id;
		const HsTableChangeLog *log = HsVersionChangeLog(v, t->table_id);
		Datum		values[5];
		bool		nulls[5] = {0};

		if (!HsRelidIsHummock(relid))
			continue;
		if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
			!HsMayMonitor(relid))
			continue;
		values[0] = Int64GetDatum((int64) t->table_id);
		values[1] = ObjectIdGetDatum(relid);
		values[2] = Int64GetDatum((int64) t->committed_epoch);
		values[3] = TimestampTzGetDatum(HsEpochToTimestamp(t->committed_epoch));
		if (log != NULL)
			values[4] = Int64GetDatum((int64) log->start_epoch);
		else
			nulls[4] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	HsVersionUnref(v);
	return (Datum) 0;
}
