/*-------------------------------------------------------------------------
 *
 * capture.c
 *	  Change capture on ordinary tables that streaming views read.
 *
 * Protocol.  A table that some streaming job reads (a "source") gets three
 * statement-level AFTER triggers (INSERT, UPDATE, DELETE) with transition
 * tables, and a capture log, an ordinary heap table
 *
 *	hummock_stream.capture_<source oid> (
 *		txid  xid8,		-- top-level transaction id of the writer
 *		stmt  bigint,	-- the WAL insert position when the statement's
 *						   trigger ran
 *		ord   integer,	-- position within the statement
 *		op    "char",	-- 'I' insert, 'D' delete
 *		r     <the source's row type>)
 *
 * An UPDATE is captured as the Delete of each old row followed by the
 * Insert of each new row (ord orders them).  The triggers append to the log
 * in the writer's transaction, so a log row exists exactly when its write
 * committed.  A statement's number is the WAL insert position when its
 * trigger runs: a statement that depends on another's result saw that
 * transaction's commit record, which was written after the other
 * statement's trigger ran, so it always has a larger number; and the
 * statements of one transaction get increasing numbers (each trigger
 * writes WAL).  Ordering by (stmt, ord) replays causally related changes
 * in order; unrelated ones commute.
 *
 * Every barrier carries a Postgres snapshot taken by the barrier manager
 * when it injects the barrier.  The input of epoch E of a job is exactly
 * the log rows whose txid is visible in the snapshot of the barrier that
 * ends E and not visible in the snapshot of the barrier that began it (for
 * the first epoch after creation: the creation snapshot).  The position of
 * a job (the snapshot its committed epoch ends with) commits in the same
 * transaction as the version delta of that epoch, so after a crash the
 * job resumes exactly after what its committed state contains.
 *
 * The log is trimmed behind the oldest position of the jobs reading it
 * (rows with txid below that snapshot's xmin are consumed by every job).
 * An index on txid lets each barrier read only the rows of transactions
 * from its position's xmin on, whatever the log's size.
 *
 * TRUNCATE of a source is rejected by a BEFORE TRUNCATE trigger (a
 * truncate is not row changes; capturing it as a reset is future work).
 *
 * The trigger writes the log with heap_insert directly: no planning, no
 * name lookups, no permission checks, so it does not depend on the
 * writer's search_path or privileges.  It is therefore not SECURITY
 * DEFINER (running as another role would change nothing, and the definer
 * wrapper costs every captured statement a catalog lookup).  The log is
 * owned by the extension's owner and nobody else may read it.
 *
 * src/stream/capture.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "catalog/index.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "access/xlog.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/regproc.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"
#include "utils/xid8.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/stream/capture.h"

PG_FUNCTION_INFO_V1(hummock_stream_capture);
PG_FUNCTION_INFO_V1(hummock_stream_capture_truncate);

/* Columns of a capture log. */
#define Natts_capture_log	5

/* The log and its txid index, open for one statement's rows. */
typedef struct CaptureLog
{
	Relation	rel;
	Relation	txid_index;		/* NULL if the log has none */
	IndexInfo  *index_info;
} CaptureLog;

/* Append one captured row to the log (and its txid to the index). */
static void
append_row(CaptureLog *log, FullTransactionId fxid, int64 stmt, int32 ord,
		   char op, TupleTableSlot *slot)
{
	Datum		values[Natts_capture_log];
	bool		nulls[Natts_capture_log] = {false};
	HeapTuple	tup;

	values[0] = FullTransactionIdGetDatum(fxid);
	values[1] = Int64GetDatum(stmt);
	values[2] = Int32GetDatum(ord);
	values[3] = CharGetDatum(op);
	values[4] = ExecFetchSlotHeapTupleDatum(slot);
	tup = heap_form_tuple(RelationGetDescr(log->rel), values, nulls);
	simple_heap_insert(log->rel, tup);
	if (log->txid_index)
		index_insert(log->txid_index, values, nulls, &tup->t_self, log->rel,
					 UNIQUE_CHECK_NO, false, log->index_info);
	heap_freetuple(tup);
}

/* Append every row of a transition table; returns the next ord. */
static int32
append_all(CaptureLog *log, FullTransactionId fxid, int64 stmt, int32 ord,
		   char op, Tuplestorestate *ts, TupleTableSlot *slot)
{
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
		append_row(log, fxid, stmt, ord++, op, slot);
	return ord;
}

/* Open the log and its index on txid (the log's only index, on column 1). */
static void
open_log(CaptureLog *log, Oid log_oid)
{
	List	   *indexes;

	log->rel = table_open(log_oid, RowExclusiveLock);
	log->txid_index = NULL;
	log->index_info = NULL;
	indexes = RelationGetIndexList(log->rel);
	if (indexes != NIL)
	{
		log->txid_index = index_open(linitial_oid(indexes), RowExclusiveLock);
		log->index_info = BuildIndexInfo(log->txid_index);
		if (log->index_info->ii_NumIndexAttrs != 1 ||
			log->index_info->ii_IndexAttrNumbers[0] != 1)
			elog(ERROR, "unexpected index on hummock_stream capture log %u", log_oid);
	}
	list_free(indexes);
}

static void
close_log(CaptureLog *log)
{
	if (log->txid_index)
		index_close(log->txid_index, NoLock);
	table_close(log->rel, NoLock);
}

/*
 * The capture trigger: hummock_stream._capture(log oid), a statement-level
 * AFTER trigger with transition tables.
 */
Datum
hummock_stream_capture(PG_FUNCTION_ARGS)
{
	TriggerData *trig = (TriggerData *) fcinfo->context;
	Oid			log_oid;
	CaptureLog	log;
	TupleTableSlot *slot;
	FullTransactionId fxid;
	int64		stmt;
	int32		ord = 0;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_AFTER(trig->tg_event) ||
		!TRIGGER_FIRED_FOR_STATEMENT(trig->tg_event) ||
		trig->tg_trigger->tgnargs != 1)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("hummock_stream._capture() must be an AFTER ... FOR EACH STATEMENT trigger with one argument")));
	if (trig->tg_oldtable == NULL && trig->tg_newtable == NULL)
		return PointerGetDatum(NULL);

	log_oid = (Oid) strtoul(trig->tg_trigger->tgargs[0], NULL, 10);
	fxid = GetTopFullTransactionId();
	stmt = (int64) GetXLogInsertRecPtr();

	open_log(&log, log_oid);
	slot = MakeSingleTupleTableSlot(RelationGetDescr(trig->tg_relation),
									&TTSOpsMinimalTuple);
	if (trig->tg_oldtable)
		ord = append_all(&log, fxid, stmt, ord, HS_CAPTURE_DELETE,
						 trig->tg_oldtable, slot);
	if (trig->tg_newtable)
		ord = append_all(&log, fxid, stmt, ord, HS_CAPTURE_INSERT,
						 trig->tg_newtable, slot);
	ExecDropSingleTupleTableSlot(slot);
	close_log(&log);
	return PointerGetDatum(NULL);
}

/* BEFORE TRUNCATE on a source: refuse. */
Datum
hummock_stream_capture_truncate(PG_FUNCTION_ARGS)
{
	TriggerData *trig = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("hummock_stream._capture_truncate() must be called as a trigger")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot truncate table \"%s\" because streaming materialized views read it",
					RelationGetRelationName(trig->tg_relation)),
			 errhint("Delete its rows with DELETE, or drop the views first (see hummock_stream.jobs).")));
	return PointerGetDatum(NULL);
}

/* ---------------------------------------------------------------------
 * Setting capture up and tearing it down (SPI, as the extension's owner)
 * ---------------------------------------------------------------------
 */

static void
spi_exec(const char *sql, int expected)
{
	int			rc = SPI_execute(sql, false, 0);

	if (rc != expected)
		elog(ERROR, "hummock_stream: \"%s\" failed: %s", sql, SPI_result_code_string(rc));
}

Oid
HsCaptureLogOf(Oid relid)
{
	Oid			result = InvalidOid;
	char		sql[256];
	HsUserContext owner;

	HsBecomeExtensionOwner(&owner);
	SPI_connect();
	snprintf(sql, sizeof(sql),
			 "SELECT l.log_relid FROM hummock_stream.capture_logs l"
			 " JOIN pg_catalog.pg_class c ON c.oid = l.log_relid WHERE l.relid = %u", relid);
	if (SPI_execute(sql, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read hummock_stream.capture_logs");
	if (SPI_processed == 1)
	{
		bool		isnull;

		result = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
												SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	HsRestoreUser(&owner);
	return result;
}

Oid
HsCaptureEnsure(Oid relid)
{
	Oid			log_oid = HsCaptureLogOf(relid);
	HsUserContext owner;
	char	   *rel_name;
	char	   *row_type;
	StringInfoData sql;
	ObjectAddress log_addr,
				rel_addr,
				ext_addr;
	static const char *const events[] = {"INSERT", "UPDATE", "DELETE"};
	static const char *const referencing[] = {
		"NEW TABLE AS hs_new", "OLD TABLE AS hs_old NEW TABLE AS hs_new", "OLD TABLE AS hs_old"
	};

	if (OidIsValid(log_oid))
		return log_oid;

	rel_name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
										  get_rel_name(relid));
	row_type = format_type_be_qualified(get_rel_type_id(relid));

	initStringInfo(&sql);		/* in our context: it outlives each SPI_finish */
	HsBecomeExtensionOwner(&owner);
	SPI_connect();
	appendStringInfo(&sql,
					 "CREATE TABLE hummock_stream.capture_%u ("
					 " txid xid8 NOT NULL, stmt bigint NOT NULL, ord integer NOT NULL,"
					 " op \"char\" NOT NULL, r %s NOT NULL)", relid, row_type);
	spi_exec(sql.data, SPI_OK_UTILITY);
	resetStringInfo(&sql);
	appendStringInfo(&sql, "REVOKE ALL ON hummock_stream.capture_%u FROM PUBLIC", relid);
	spi_exec(sql.data, SPI_OK_UTILITY);
	/* jobs read the rows of transactions at or after their position's xmin */
	resetStringInfo(&sql);
	appendStringInfo(&sql, "CREATE INDEX ON hummock_stream.capture_%u (txid)", relid);
	spi_exec(sql.data, SPI_OK_UTILITY);

	resetStringInfo(&sql);
	appendStringInfo(&sql, "hummock_stream.capture_%u", relid);
	log_oid = RangeVarGetRelid(makeRangeVarFromNameList(stringToQualifiedNameList(sql.data)),
							   NoLock, false);
	/*
	 * The triggers too: a view's owner needs SELECT on the source, not the
	 * right to put triggers on it.
	 */
	for (int i = 0; i < 3; i++)
	{
		resetStringInfo(&sql);
		appendStringInfo(&sql,
						 "CREATE TRIGGER hummock_stream_capture_%s AFTER %s ON %s"
						 " REFERENCING %s FOR EACH STATEMENT"
						 " EXECUTE FUNCTION hummock_stream._capture('%u')",
						 events[i], events[i], rel_name, referencing[i], log_oid);
		spi_exec(sql.data, SPI_OK_UTILITY);
	}
	resetStringInfo(&sql);
	appendStringInfo(&sql,
					 "CREATE TRIGGER hummock_stream_capture_truncate BEFORE TRUNCATE ON %s"
					 " FOR EACH STATEMENT EXECUTE FUNCTION hummock_stream._capture_truncate()",
					 rel_name);
	spi_exec(sql.data, SPI_OK_UTILITY);
	resetStringInfo(&sql);
	appendStringInfo(&sql,
					 "INSERT INTO hummock_stream.capture_logs (relid, log_relid) VALUES (%u, %u)",
					 relid, log_oid);
	spi_exec(sql.data, SPI_OK_INSERT);
	SPI_finish();
	HsRestoreUser(&owner);

	/* the log goes with its source, and with the extension */
	ObjectAddressSet(log_addr, RelationRelationId, log_oid);
	ObjectAddressSet(rel_addr, RelationRelationId, relid);
	ObjectAddressSet(ext_addr, ExtensionRelationId, get_extension_oid(HS_EXTENSION_NAME, false));
	recordDependencyOn(&log_addr, &rel_addr, DEPENDENCY_AUTO);
	recordDependencyOn(&log_addr, &ext_addr, DEPENDENCY_NORMAL);
	CommandCounterIncrement();
	pfree(sql.data);
	return log_oid;
}

void
HsCaptureRemoveIfUnused(Oid relid)
{
	Oid			log_oid = HsCaptureLogOf(relid);
	bool		used;
	char		sql[256];
	HsUserContext owner;

	if (!OidIsValid(log_oid))
		return;
	HsBecomeExtensionOwner(&owner);
	SPI_connect();
	snprintf(sql, sizeof(sql),
			 "SELECT 1 FROM hummock_stream.stream_sources WHERE relid = %u", relid);
	if (SPI_execute(sql, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read hummock_stream.stream_sources");
	used = SPI_processed > 0;
	SPI_finish();
	if (used || !OidIsValid(get_rel_namespace(relid)))
	{
		HsRestoreUser(&owner);
		return;
	}

	SPI_connect();
	{
		const char *names[] = {"INSERT", "UPDATE", "DELETE", "truncate"};
		char	   *rel_name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
														  get_rel_name(relid));

		for (int i = 0; i < 4; i++)
		{
			snprintf(sql, sizeof(sql), "DROP TRIGGER IF EXISTS hummock_stream_capture_%s ON %s",
					 names[i], rel_name);
			spi_exec(sql, SPI_OK_UTILITY);
		}
	}
	snprintf(sql, sizeof(sql), "DELETE FROM hummock_stream.capture_logs WHERE relid = %u", relid);
	spi_exec(sql, SPI_OK_DELETE);
	SPI_finish();
	{
		ObjectAddress addr;

		ObjectAddressSet(addr, RelationRelationId, log_oid);
		performDeletion(&addr, DROP_RESTRICT, PERFORM_DELETION_INTERNAL);
	}
	HsRestoreUser(&owner);
}
