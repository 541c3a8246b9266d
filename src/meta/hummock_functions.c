/*-------------------------------------------------------------------------
 *
 * hummock_functions.c
 *	  SQL functions that drive the hummock store directly: write rows of a
 *	  table at an epoch and commit it, read a table at any retained epoch,
 *	  read its change log, compact.
 *
 * They exist for tests and for operators; the streaming engine uses the
 * same C calls.  Table ids here are plain numbers (relations USING hummock
 * use their OID).  Keys and rows are text, stored as their bytes.
 *
 * test_write goes through the real write path: a memtable that records
 * each key's old value (read from the committed state), sealed into a
 * shared buffer and synced into SSTs (new values into L0; old values too
 * when the change log is on), committed as one version delta in the
 * caller's transaction.
 *
 * src/meta/hummock_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "hummock_stream/meta/compactor.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/change_log.h"
#include "hummock_stream/storage/compaction.h"
#include "hummock_stream/storage/memtable.h"
#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/storage/version_read.h"

PG_FUNCTION_INFO_V1(hummock_stream_test_write);
PG_FUNCTION_INFO_V1(hummock_stream_test_scan);
PG_FUNCTION_INFO_V1(hummock_stream_test_get);
PG_FUNCTION_INFO_V1(hummock_stream_test_iter_log);
PG_FUNCTION_INFO_V1(hummock_stream_compact);


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
 * hummock_stream.test_write(table_id, epoch, keys text[], vals text[],
 *							  change_log bool) returns bigint
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
	HsSharedBuffer *sb;
	HsSyncResult *res;
	HsSstWriteContext ctx;
	HsVersionDelta *delta;
	const HsSyncTable *t;
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
	HsVersionUnref(v);
	PG_RETURN_INT64((int64) id);
}

/*
 * hummock_stream.test_scan(table_id, epoch default committed) returns
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
 * hummock_stream.test_get(table_id, key, epoch default committed)
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
 * hummock_stream.test_iter_log(table_id, from_epoch, to_epoch) returns
 * setof (op text, key text, value text): the net change of each key over
 * epochs (from_epoch, to_epoch].
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

/*
 * hummock_stream.compact(l0_only bool default false) returns record: run
 * one compaction task if one is due (or, with force, of all of L0) and
 * commit it; reports what it did.
 */
Datum
hummock_stream_compact(PG_FUNCTION_ARGS)
{
	bool		force = PG_GETARG_BOOL(0);
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {0};
	int			in,
				out,
				n;
	uint64		vid;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (!HsCompactOnce(force, &in, &out, &n, &vid))
	{
		values[0] = BoolGetDatum(false);
		nulls[1] = nulls[2] = nulls[3] = nulls[4] = true;
	}
	else
	{
		values[0] = BoolGetDatum(true);
		values[1] = Int32GetDatum(in);
		values[2] = Int32GetDatum(out);
		values[3] = Int32GetDatum(n);
		values[4] = Int64GetDatum((int64) vid);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
