/*-------------------------------------------------------------------------
 *
 * store_functions.c
 *	  SQL functions that drive the hummock store directly, for tests:
 *	  write rows of a table at an epoch and commit it (test_write), make a
 *	  relation USING hummock hold a query's rows (test_load), read a table
 *	  at any retained epoch (test_scan, test_get) and its change log
 *	  (test_iter_log).
 *
 * Table ids here are plain numbers (relations USING hummock use their
 * OID).  For test_write, keys and rows are text, stored as their bytes;
 * test_load stores row i of its query (in the query's order) under the
 * 8-byte big-endian key i, as a MinimalTuple of the relation's row type.
 *
 * Both writers go through the real write path, the one the compute
 * workers take: a memtable that records each key's old value (read from
 * the committed state), so changes become Inserts, Updates and Deletes;
 * then commit_memtable: sealed into a shared buffer, synced into SSTs (new
 * values into L0; old values too when the change log is on), committed as
 * one version delta in the caller's transaction.
 *
 * test/modules/hummock_stream_test/store_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/rel.h"

#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/change_log.h"
#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/memtable.h"
#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/storage/version_read.h"

PG_FUNCTION_INFO_V1(hummock_stream_test_write);
PG_FUNCTION_INFO_V1(hummock_stream_test_scan);
PG_FUNCTION_INFO_V1(hummock_stream_test_get);
PG_FUNCTION_INFO_V1(hummock_stream_test_iter_log);
PG_FUNCTION_INFO_V1(hummock_stream_test_load);

static HsTableId
table_id_arg(int64 v)
{
	if (v <= 0 || v > (int64) PG_UINT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table id %lld is out of range", (long long) v),
				 errhint("Table ids are between 1 and 4294967295.")));
	return (HsTableId) v;
}

static HsEpoch
epoch_arg(int64 v)
{
	if (v <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epoch %lld is not valid", (long long) v),
				 errhint("Epochs are positive.")));
	return (HsEpoch) v;
}

/* The epoch to read table t at: the given one, or its committed epoch. */
static HsEpoch
read_epoch(const HsVersion *v, HsTableId t, bool given, int64 arg)
{
	HsEpoch		e;
	HsEpoch		committed = 0;
	HsStatus	st;

	if (!HsVersionCommittedEpoch(v, t, &committed))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("hummock table %u has no committed epoch", t)));
	if (!given)
		return committed;
	e = epoch_arg(arg);
	if (e > committed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epoch %llu of hummock table %u is not committed",
						(unsigned long long) e, t),
				 errdetail("The table's committed epoch is %llu.",
						   (unsigned long long) committed)));
	HS_CHECK(HsVersionCheckReadEpoch(v, t, e, &st), &st);
	return e;
}

static HsSlice
text_slice(text *t)
{
	return HsSliceMake(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

/*
 * The tail of the write path, for the writes of table at epoch in mt:
 * seal mt into a private shared buffer, sync the table into SSTs, and
 * commit it at epoch (its new SSTs in L0 and, with log, its change-log
 * entry) as one version delta in the caller's transaction.  Takes mt;
 * returns the new version id.
 */
static uint64
commit_memtable(HsMemtable *mt, HsTableId table, HsEpoch epoch, bool log)
{
	HsEnv	   *env = HsHummockEnv();
	HsSharedBuffer *sb;
	HsSyncResult *res;
	HsSstWriteContext ctx;
	HsVersionDelta *delta;
	const HsSyncTable *t;
	HsStatus	st;
	uint64		id;

	sb = HsSharedBufferCreate(env, (size_t) 1 << 30);
	HS_CHECK(HsSharedBufferSeal(sb, mt, &st), &st);
	HsHummockWriteContext(&ctx);
	HS_CHECK(HsSharedBufferSync(sb, epoch, &table, 1, &ctx, &res, &st), &st);

	delta = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, 0);
	HsVersionDeltaAddCommit(delta, table, epoch);
	HsVersionDeltaAddL0Ssts(delta, res->ssts, res->n_ssts);
	t = HsSyncResultTable(res, table);
	if (log && t != NULL && t->n_epochs > 0)
		HS_CHECK(HsVersionDeltaAddChangeLog(delta, table, t->epochs, t->n_epochs,
											t->new_ssts, t->n_new,
											t->old_ssts, t->n_old, &st), &st);
	id = HsHummockCommitDelta(delta);

	HsVersionDeltaFree(delta);
	HsSyncResultFree(res);
	HsSharedBufferDestroy(sb);
	return id;
}

/*
 * hummock_stream_test.test_write(table_id, epoch, keys text[], vals text[],
 *								   change_log bool) returns bigint
 *
 * A NULL value deletes the key.  Commits the table at epoch; returns the
 * new version id.
 */
Datum
hummock_stream_test_write(PG_FUNCTION_ARGS)
{
	HsTableId	table = table_id_arg(PG_GETARG_INT64(0));
	HsEpoch		epoch = epoch_arg(PG_GETARG_INT64(1));
	ArrayType  *keys = PG_GETARG_ARRAYTYPE_P(2);
	ArrayType  *vals = PG_GETARG_ARRAYTYPE_P(3);
	bool		log = PG_GETARG_BOOL(4);
	HsEnv	   *env = HsHummockEnv();
	Datum	   *kd,
			   *vd;
	bool	   *kn,
			   *vn;
	int			nk,
				nv;
	HsVersion  *v;
	HsMemtable *mt;
	HsStatus	st;
	HsBuf		old;
	uint64		id;

	deconstruct_array(keys, TEXTOID, -1, false, TYPALIGN_INT, &kd, &kn, &nk);
	deconstruct_array(vals, TEXTOID, -1, false, TYPALIGN_INT, &vd, &vn, &nv);
	if (nk != nv)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("keys and values must have the same length")));

	v = HsHummockPinnedVersion(HS_EPOCH_MAX);
	mt = HsMemtableCreate(env, table, epoch, log, true);
	HsBufInit(&old, env);
	for (int i = 0; i < nk; i++)
	{
		HsSlice		key;
		HsKeyOp		op;
		bool		had_old;
		HsSlice		old_value = {0};
		bool		ok;

		if (kn[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("keys must not be null")));
		key = text_slice(DatumGetTextPP(kd[i]));

		/* the current value: this call's earlier write, else the committed one */
		if (HsMemtableGet(mt, key, &op))
		{
			/* copy: the memtable may replace these bytes on the next write */
			had_old = (op.kind == HS_KEY_OP_INSERT || op.kind == HS_KEY_OP_UPDATE);
			HsBufAssign(&old, op.new_value.data, had_old ? op.new_value.len : 0);
			old_value = HsSliceMake(old.data, old.len);
		}
		else
		{
			HS_CHECK(HsVersionGet(v, HsHummockSstCache(), table, key, HS_EPOCH_MAX,
								  &had_old, &old, &st), &st);
			old_value = HsSliceMake(old.data, old.len);
		}

		if (vn[i])
			ok = !had_old || HsMemtableDelete(mt, key, old_value, &st);
		else if (had_old)
			ok = HsMemtableUpdate(mt, key, old_value,
								  text_slice(DatumGetTextPP(vd[i])), &st);
		else
			ok = HsMemtableInsert(mt, key, text_slice(DatumGetTextPP(vd[i])), &st);
		if (!ok)
		{
			HsMemtableDestroy(mt);
			HsStatusReport(ERROR, &st);
		}
	}
	HsBufFree(&old);

	id = commit_memtable(mt, table, epoch, log);
	HsVersionUnref(v);
	PG_RETURN_INT64((int64) id);
}

/*
 * hummock_stream_test.test_scan(table_id, epoch default committed) returns
 * setof (key text, value text), in key order.
 */
Datum
hummock_stream_test_scan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsTableId	table = table_id_arg(PG_GETARG_INT64(0));
	HsVersion  *v;
	HsEpoch		e;
	HsIterator *it;
	HsStatus	st;

	InitMaterializedSRF(fcinfo, 0);
	v = HsHummockPinnedVersion(PG_ARGISNULL(1) ? HS_EPOCH_MAX : (HsEpoch) PG_GETARG_INT64(1));
	e = read_epoch(v, table, !PG_ARGISNULL(1), PG_ARGISNULL(1) ? 0 : PG_GETARG_INT64(1));
	HS_CHECK(HsVersionTableIterator(v, HsHummockSstCache(), table, e, NULL, NULL,
									NULL, &it, &st), &st);
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
	{
		HsSlice		k = HsFullKeyUserKey(HsIterKey(it));
		HsSlice		val = HsIterValue(it);
		Datum		values[2];
		bool		nulls[2] = {0};

		values[0] = PointerGetDatum(cstring_to_text_with_len((const char *) k.data, k.len));
		values[1] = PointerGetDatum(cstring_to_text_with_len((const char *) val.data + 1,
															 val.len - 1));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (!HsIterStatus(it, &st))
	{
		HsIterDestroy(it);
		HsStatusReport(ERROR, &st);
	}
	HsIterDestroy(it);
	HsVersionUnref(v);
	return (Datum) 0;
}

/*
 * hummock_stream_test.test_get(table_id, key, epoch default committed)
 * returns text (NULL if the key has no value at that epoch).
 */
Datum
hummock_stream_test_get(PG_FUNCTION_ARGS)
{
	HsTableId	table = table_id_arg(PG_GETARG_INT64(0));
	HsSlice		key = text_slice(PG_GETARG_TEXT_PP(1));
	HsVersion  *v;
	HsEpoch		e;
	HsStatus	st;
	HsBuf		row;
	bool		found;
	text	   *result = NULL;

	v = HsHummockPinnedVersion(PG_ARGISNULL(2) ? HS_EPOCH_MAX : (HsEpoch) PG_GETARG_INT64(2));
	e = read_epoch(v, table, !PG_ARGISNULL(2), PG_ARGISNULL(2) ? 0 : PG_GETARG_INT64(2));
	HsBufInit(&row, HsHummockEnv());
	HS_CHECK(HsVersionGet(v, HsHummockSstCache(), table, key, e, &found, &row, &st), &st);
	if (found)
		result = cstring_to_text_with_len((const char *) row.data, row.len);
	HsBufFree(&row);
	HsVersionUnref(v);
	if (!result)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(result);
}

/*
 * hummock_stream_test.test_iter_log(table_id, from_epoch, to_epoch)
 * returns setof (op text, key text, value text): the net change of each
 * key over epochs (from_epoch, to_epoch].
 */
Datum
hummock_stream_test_iter_log(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsTableId	table = table_id_arg(PG_GETARG_INT64(0));
	int64		e1 = PG_GETARG_INT64(1);
	HsEpoch		e2 = epoch_arg(PG_GETARG_INT64(2));
	HsVersion  *v;
	HsChangeLogIter *it;
	HsStatus	st;

	if (e1 < 0 || (HsEpoch) e1 >= e2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the epoch range (%lld, %llu] is empty",
						(long long) e1, (unsigned long long) e2)));
	InitMaterializedSRF(fcinfo, 0);
	v = HsHummockPinnedVersion((HsEpoch) e1);
	(void) read_epoch(v, table, true, (int64) e2);
	HS_CHECK(HsIterLog(v, HsHummockSstCache(), table, (HsEpoch) e1, e2, NULL, NULL,
					   &it, &st), &st);
	for (; HsChangeLogIterValid(it); HsChangeLogIterNext(it))
	{
		HsSlice		k = HsChangeLogIterUserKey(it);
		HsSlice		r = HsChangeLogIterRow(it);
		Datum		values[3];
		bool		nulls[3] = {0};

		values[0] = CStringGetTextDatum(HsChangeOpName(HsChangeLogIterOp(it)));
		values[1] = PointerGetDatum(cstring_to_text_with_len((const char *) k.data, k.len));
		values[2] = PointerGetDatum(cstring_to_text_with_len((const char *) r.data, r.len));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (!HsChangeLogIterStatus(it, &st))
	{
		HsChangeLogIterDestroy(it);
		HsStatusReport(ERROR, &st);
	}
	HsChangeLogIterDestroy(it);
	HsVersionUnref(v);
	return (Datum) 0;
}

static HsSlice
ordinal_key(uint8 *buf, uint64 i)
{
	HsPutBE64(buf, i);
	return HsSliceMake(buf, 8);
}

/*
 * hummock_stream_test.test_load(rel, epoch, query, change_log) returns
 * bigint: make the rows of relation rel USING hummock at epoch exactly the
 * rows of query (rows that change become Updates, extra old rows Deletes)
 * and commit it; returns the new version id.
 */
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

	id = commit_memtable(mt, (HsTableId) relid, epoch, log);
	HsVersionUnref(v);
	SPI_finish();
	table_close(rel, AccessShareLock);
	PG_RETURN_INT64((int64) id);
}
