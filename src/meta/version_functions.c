/*-------------------------------------------------------------------------
 *
 * version_functions.c
 *	  SQL introspection of hummock versions: levels, SSTs, committed
 *	  epochs per table, change logs.
 *
 * All of them read the newest committed version of the current database
 * (the process's cache, brought up to the published id).
 *
 * src/meta/version_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"

PG_FUNCTION_INFO_V1(hummock_stream_version_levels);
PG_FUNCTION_INFO_V1(hummock_stream_sstables);
PG_FUNCTION_INFO_V1(hummock_stream_table_epochs);
PG_FUNCTION_INFO_V1(hummock_stream_change_log_entries);
PG_FUNCTION_INFO_V1(hummock_stream_current_version_id);
PG_FUNCTION_INFO_V1(hummock_stream_epoch_to_timestamp);

PG_FUNCTION_INFO_V1(hummock_stream_epoch_at);

/* hummock_stream.epoch_to_timestamp(epoch): the wall-clock time of an epoch */
Datum
hummock_stream_epoch_to_timestamp(PG_FUNCTION_ARGS)
{
	int64		e = PG_GETARG_INT64(0);

	if (e < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epoch %lld is not valid", (long long) e)));
	PG_RETURN_TIMESTAMPTZ(HsEpochToTimestamp((HsEpoch) e));
}

/* hummock_stream.epoch_at(timestamptz): the first epoch of that millisecond */
Datum
hummock_stream_epoch_at(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	int64		unix_ms;

	if (TIMESTAMP_NOT_FINITE(ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("infinite timestamps have no epoch")));
	/* (an epoch is a non-negative int64: its milliseconds have 47 bits) */
	if (ts >= (HS_EPOCH_UNIX_MS_BASE + (INT64_C(1) << (63 - HS_EPOCH_SEQ_BITS))) * 1000 -
		((POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range for an epoch"),
				 errdetail("Epochs count milliseconds from 2025-01-01 in 47 bits, up to the year 6484.")));
	unix_ms = HsTimestampToUnixMs(ts);
	if (unix_ms < HS_EPOCH_UNIX_MS_BASE)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamps before 2025-01-01 have no epoch")));
	PG_RETURN_INT64((int64) HsEpochFromUnixMs(unix_ms, 0));
}

/* The epoch's wall-clock time as a timestamptz. */
static Datum
epoch_time_datum(HsEpoch e)
{
	return TimestampTzGetDatum(HsEpochToTimestamp(e));
}

static Datum
hex_datum(const uint8_t *p, size_t len)
{
	StringInfoData s;

	initStringInfo(&s);
	for (size_t i = 0; i < len; i++)
		appendStringInfo(&s, "%02x", p[i]);
	return CStringGetTextDatum(s.data);
}

static Datum
table_ids_datum(const HsSstInfo *sst)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(sst->table_count, 1));

	for (uint32 i = 0; i < sst->table_count; i++)
		d[i] = Int64GetDatum((int64) sst->table_ids[i]);
	return PointerGetDatum(construct_array(d, sst->table_count, INT8OID,
										   8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

Datum
hummock_stream_current_version_id(PG_FUNCTION_ARGS)
{
	HsVersion  *v = HsHummockCurrentVersion();
	int64		id = (int64) v->id;

	HsVersionUnref(v);
	PG_RETURN_INT64(id);
}

/*
 * hummock_stream.version_levels(): one row per L0 sub-level and per
 * non-empty level.
 */
Datum
hummock_stream_version_levels(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsVersion  *v;
	HsLevelSummary *sums;
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	v = HsHummockCurrentVersion();
	HsVersionLevelSummaries(v, &sums, &n);
	for (int i = 0; i < n; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {0};

		values[0] = Int64GetDatum((int64) v->id);
		values[1] = Int32GetDatum(sums[i].level);
		if (sums[i].level == 0)
			values[2] = Int64GetDatum((int64) sums[i].sub_level_id);
		else
			nulls[2] = true;
		values[3] = Int32GetDatum(sums[i].n_ssts);
		values[4] = Int64GetDatum((int64) sums[i].total_file_size);
		values[5] = Int64GetDatum((int64) sums[i].total_entries);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	HsVersionUnref(v);
	return (Datum) 0;
}

static void
put_sst(ReturnSetInfo *rsinfo, const char *where, int level,
		int64 sub_level, const HsSstInfo *sst)
{
	Datum		values[11];
	bool		nulls[11] = {0};

	values[0] = CStringGetTextDatum(where);
	values[1] = Int32GetDatum(level);
	if (sub_level >= 0)
		values[2] = Int64GetDatum(sub_level);
	else
		nulls[2] = true;
	values[3] = Int64GetDatum((int64) sst->object_id);
	values[4] = Int64GetDatum((int64) sst->file_size);
	values[5] = Int64GetDatum((int64) sst->entry_count);
	values[6] = table_ids_datum(sst);
	values[7] = Int64GetDatum((int64) sst->min_epoch);
	values[8] = Int64GetDatum((int64) sst->max_epoch);
	values[9] = hex_datum(sst->smallest_key, sst->smallest_key_len);
	values[10] = hex_datum(sst->largest_key, sst->largest_key_len);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * hummock_stream.sstables(): every SST the version references, in levels
 * and in change logs.
 */
Datum
hummock_stream_sstables(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsVersion  *v;

	InitMaterializedSRF(fcinfo, 0);

	/*
	 * Pin the published version for the transaction, as a scan does: GC
	 * then keeps every object listed here (they are in that version or a
	 * newer one) until the transaction ends, so that the caller may look
	 * at their files.
	 */
	(void) HsPinPublishedVersion(MyDatabaseId, HS_EPOCH_MAX);
	v = HsHummockCurrentVersion();
	for (int i = v->n_sub_levels - 1; i >= 0; i--)
		for (int j = 0; j < v->sub_levels[i].n_ssts; j++)
			put_sst(rsinfo, "level", 0, (int64) v->sub_levels[i].sub_level_id,
					v->sub_levels[i].ssts[j]);
	for (int l = 0; l < HS_MAX_LEVEL; l++)
		for (int j = 0; j < v->levels[l].n_ssts; j++)
			put_sst(rsinfo, "level", l + 1, -1, v->levels[l].ssts[j]);
	for (int t = 0; t < v->n_change_logs; t++)
	{
		const HsTableChangeLog *log = &v->change_logs[t];

		for (int e = 0; e < log->n_entries; e++)
		{
			for (int j = 0; j < log->entries[e]->n_new; j++)
				put_sst(rsinfo, "change log (new values)", -1, -1,
						log->entries[e]->new_ssts[j]);
			for (int j = 0; j < log->entries[e]->n_old; j++)
				put_sst(rsinfo, "change log (old values)", -1, -1,
						log->entries[e]->old_ssts[j]);
		}
	}
	HsVersionUnref(v);
	return (Datum) 0;
}

/*
 * hummock_stream.table_epochs(): committed (and safe) epoch of every table
 * in the version, with the relation if the table id is a relation's OID.
 */
Datum
hummock_stream_table_epochs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsVersion  *v;

	InitMaterializedSRF(fcinfo, 0);
	v = HsHummockCurrentVersion();
	for (int i = 0; i < v->n_tables; i++)
	{
		const HsTableInfo *t = &v->tables[i];
		Datum		values[5];
		bool		nulls[5] = {0};
		char	   *relname = get_rel_name((Oid) t->table_id);

		values[0] = Int64GetDatum((int64) t->table_id);
		if (relname)
			values[1] = ObjectIdGetDatum((Oid) t->table_id);
		else
			nulls[1] = true;
		values[2] = Int64GetDatum((int64) t->committed_epoch);
		values[3] = epoch_time_datum(t->committed_epoch);
		values[4] = Int64GetDatum((int64) t->safe_epoch);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	HsVersionUnref(v);
	return (Datum) 0;
}

/*
 * hummock_stream.change_log_entries(): every change-log entry of every
 * table: its epochs and how many SSTs hold new and old values.
 */
Datum
hummock_stream_change_log_entries(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsVersion  *v;

	InitMaterializedSRF(fcinfo, 0);
	v = HsHummockCurrentVersion();
	for (int t = 0; t < v->n_change_logs; t++)
	{
		const HsTableChangeLog *log = &v->change_logs[t];

		for (int e = 0; e < log->n_entries; e++)
		{
			const HsChangeLogEntry *ent = log->entries[e];
			Datum		values[5];
			bool		nulls[5] = {0};
			Datum	   *eps = palloc(sizeof(Datum) * ent->n_epochs);

			for (int k = 0; k < ent->n_epochs; k++)
				eps[k] = Int64GetDatum((int64) ent->epochs[k]);
			values[0] = Int64GetDatum((int64) log->table_id);
			values[1] = Int64GetDatum((int64) HsChangeLogEntryCheckpointEpoch(ent));
			values[2] = PointerGetDatum(construct_array(eps, ent->n_epochs, INT8OID,
														8, FLOAT8PASSBYVAL,
														TYPALIGN_DOUBLE));
			values[3] = Int32GetDatum(ent->n_new);
			values[4] = Int32GetDatum(ent->n_old);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	HsVersionUnref(v);
	return (Datum) 0;
}
