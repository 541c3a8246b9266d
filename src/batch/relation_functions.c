/*-------------------------------------------------------------------------
 *
 * relation_functions.c
 *	  SQL functions that write a relation USING hummock directly, for tests
 *	  and operators (the streaming engine is the normal writer).
 *
 * test_load(rel, epoch, query, change_log) makes the relation's rows at epoch exactly
 * the rows of query: row i (in the query's order) is stored under the
 * 8-byte big-endian key i, as a MinimalTuple of the relation's row type;
 * rows that change become Updates, extra old rows Deletes, through the real
 * write path (memtable with old values, shared buffer, sync, commit of the
 * relation's table at epoch in the caller's transaction).
 *
 * src/batch/relation_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/table.h"
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

PG_FUNCTION_INFO_V1(hummock_stream_test_load);
PG_FUNCTION_INFO_V1(hummock_stream_change_log);
PG_FUNCTION_INFO_V1(hummock_stream_committed_epochs);

static HsSlice
ordinal_key(uint8 *buf, uint64 i)
{
	HsPutBE64(buf, i);
	return HsSliceMake(buf, 8);
}

Datum
hummock_stream_test_load(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int64		epoch_arg = PG_GETARG_INT64(1);
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(2));
	bool		log = PG_GETARG_BOOL(3);
	HsEnv	   *env = HsHummockEnv();
	Relation	rel;
	TupleDesc	td;
	HsVersion  *v;
	HsMemtable *mt;
	HsSharedBuffer *sb;
	HsSyncResult *res;
	HsSstWriteContext ctx;
	HsVersionDelta *delta;
	HsStatus	st;
	HsBuf		old;
	uint64		n;
	uint64		id;
	uint8		kbuf[8];
	HsEpoch		epoch;
	MemoryContext fn_cxt;

	if (epoch_arg <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epoch %lld is not valid", (long long) epoch_arg)));
	epoch = (HsEpoch) epoch_arg;
	rel = table_open(relid, AccessShareLock);
	if (!HsRelationIsHummock(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a relation USING hummock",
						RelationGetRelationName(rel))));
	td = RelationGetDescr(rel);

	/* memtable and version objects must outlive SPI_finish: keep them here */
	fn_cxt = CurrentMemoryContext;
	SPI_connect();
	if (SPI_execute(query, true, 0) != SPI_OK_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the query must be a SELECT")));
	if (SPI_tuptable->tupdesc->natts != td->natts)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the query returns %d columns, relation \"%s\" has %d",
						SPI_tuptable->tupdesc->natts, RelationGetRelationName(rel),
						td->natts)));
	for (int i = 0; i < td->natts; i++)
		if (TupleDescAttr(SPI_tuptable->tupdesc, i)->atttypid != TupleDescAttr(td, i)->atttypid)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column %d of the query is of type %s, column \"%s\" of \"%s\" is of type %s",
							i + 1,
							format_type_be(TupleDescAttr(SPI_tuptable->tupdesc, i)->atttypid),
							NameStr(TupleDescAttr(td, i)->attname),
							RelationGetRelationName(rel),
							format_type_be(TupleDescAttr(td, i)->atttypid))));

	MemoryContextSwitchTo(fn_cxt);
	v = HsHummockPinnedVersion(HS_EPOCH_MAX);
	/* with old values when the relation keeps a change log (change_log()) */
	mt = HsMemtableCreate(env, (HsTableId) relid, epoch, log, true);
	HsBufInit(&old, env);
	n = SPI_processed;
	for (uint64 i = 0; i < n; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		MinimalTuple mtup;
		HsSlice		key = ordinal_key(kbuf, i + 1);
		HsSlice		row;
		bool		had;
		bool		ok;

		/* values stored out of line in a source table come in whole */
		if (HeapTupleHasExternal(tup))
			tup = toast_flatten_tuple(tup, SPI_tuptable->tupdesc);
		mtup = minimal_tuple_from_heap_tuple(tup);
		row = HsSliceMake(mtup, mtup->t_len);

		HS_CHECK(HsVersionGet(v, HsHummockSstCache(), (HsTableId) relid, key,
							  HS_EPOCH_MAX, &had, &old, &st), &st);
		if (!had)
			ok = HsMemtableInsert(mt, key, row, &st);
		else if (old.len == row.len && memcmp(old.data, row.data, row.len) == 0)
			ok = true;
		else
			ok = HsMemtableUpdate(mt, key, HsSliceMake(old.data, old.len), row, &st);
		if (!ok)
		{
			HsMemtableDestroy(mt);
			HsStatusReport(ERROR, &st);
		}
		pfree(mtup);
	}
	/* old rows past the new ones go */
	for (uint64 i = n + 1;; i++)
	{
		HsSlice		key = ordinal_key(kbuf, i);
		bool		had;

		HS_CHECK(HsVersionGet(v, HsHummockSstCache(), (HsTableId) relid, key,
							  HS_EPOCH_MAX, &had, &old, &st), &st);
		if (!had)
			break;
		if (!HsMemtableDelete(mt, key, HsSliceMake(old.data, old.len), &st))
		{
			HsMemtableDestroy(mt);
			HsStatusReport(ERROR, &st);
		}
	}
	HsBufFree(&old);

	sb = HsSharedBufferCreate(env, (size_t) 1 << 30);
	HS_CHECK(HsSharedBufferSeal(sb, mt, &st), &st);
	HsHummockWriteContext(&ctx);
	HS_CHECK(HsSharedBufferSync(sb, epoch, (HsTableId *) &relid, 1, &ctx, &res, &st), &st);
	delta = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, 0);
	HsVersionDeltaAddCommit(delta, (HsTableId) relid, epoch);
	HsVersionDeltaAddL0Ssts(delta, res->ssts, res->n_ssts);
	{
		const HsSyncTable *t = HsSyncResultTable(res, (HsTableId) relid);

		if (log && t != NULL && t->n_epochs > 0)
			HS_CHECK(HsVersionDeltaAddChangeLog(delta, (HsTableId) relid, t->epochs,
												t->n_epochs, t->new_ssts, t->n_new,
												t->old_ssts, t->n_old, &st), &st);
	}
	id = HsHummockCommitDelta(delta);
	HsVersionDeltaFree(delta);
	HsSyncResultFree(res);
	HsSharedBufferDestroy(sb);
	HsVersionUnref(v);
	SPI_finish();
	table_close(rel, AccessShareLock);
	PG_RETURN_INT64((int64) id);
}

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
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, RelationGetRelationName(rel));
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
 * shows no internal state tables and nothing of others' relations.
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
		Datum		values[4];
		bool		nulls[4] = {0};

		if (!HsRelidIsHummock(relid))
			continue;
		if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
			!HsMayMonitor(relid))
			continue;
		values[0] = Int64GetDatum((int64) t->table_id);
		values[1] = ObjectIdGetDatum(relid);
		values[2] = Int64GetDatum((int64) t->committed_epoch);
		values[3] = TimestampTzGetDatum(HsEpochToTimestamp(t->committed_epoch));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	HsVersionUnref(v);
	return (Datum) 0;
}
