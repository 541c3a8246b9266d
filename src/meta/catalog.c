/*-------------------------------------------------------------------------
 *
 * catalog.c
 *	  The catalog of streaming jobs (see catalog.h).
 *
 * The tables (sql/hummock_stream--*.sql):
 *
 *	stream_jobs (job_id oid PRIMARY KEY, definition text, query_tree text,
 *				 state_tables oid[], state text, position pg_snapshot,
 *				 first_epoch bigint, key_columns int2[], operators text[],
 *				 state_table_roles text[], created_at timestamptz)
 *	stream_sources (job_id oid REFERENCES stream_jobs ON DELETE CASCADE,
 *				 relid oid, PRIMARY KEY (job_id, relid))
 *	capture_logs (relid oid PRIMARY KEY, log_relid oid)
 *
 * Nobody but the extension's owner may read them; every statement here
 * runs as that owner (security-restricted, search_path pinned), is fixed
 * text with its values as parameters, and names its tables
 * schema-qualified.
 *
 * src/meta/catalog.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "commands/defrem.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/xid8.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/kept_statement.h"
#include "hummock_stream/storage/compaction.h"

/* The name of the table access method (sql: CREATE ACCESS METHOD hummock). */

/* ---------------------------------------------------------------------
 * Running statements
 * ---------------------------------------------------------------------
 */

typedef struct CatalogStatement
{
	HsUserContext owner;
	MemoryContext caller;		/* where results go */
} CatalogStatement;

static void
begin(CatalogStatement *cs)
{
	cs->caller = CurrentMemoryContext;
	HsBecomeExtensionOwner(&cs->owner);
	SPI_connect();
}

static void
end(CatalogStatement *cs)
{
	SPI_finish();
	HsRestoreUser(&cs->owner);
}

/* Run sql with nargs Oid/text/... arguments; fail unless it returns expected. */
static void
run(const char *sql, int nargs, Oid *types, Datum *args, const char *nulls,
	int expected)
{
	Snapshot	snap = HsCatalogStatementSnapshot();
	int			rc;

	if (snap == InvalidSnapshot)
		rc = SPI_execute_with_args(sql, nargs, types, args, nulls, false, 0);
	else
	{
		SPIPlanPtr	plan = SPI_prepare(sql, nargs, types);

		if (plan == NULL)
			elog(ERROR, "hummock_stream catalog statement failed to prepare (%s): %s",
				 SPI_result_code_string(SPI_result), sql);
		rc = SPI_execute_snapshot(plan, args, nulls, snap, InvalidSnapshot, false, true, 0);
		SPI_freeplan(plan);
	}

	if (rc != expected)
		elog(ERROR, "hummock_stream catalog statement failed (%s): %s",
			 SPI_result_code_string(rc), sql);
}

/* run() for a statement of every commit round: planned once (plan: the caller's static) */
static void
run_kept(SPIPlanPtr *plan, const char *sql, int nargs, Oid *types, Datum *args,
		 const char *nulls, int expected)
{
	int			rc = HsKeptStatementRun(plan, sql, nargs, types, args, nulls);

	if (rc != expected)
		elog(ERROR, "hummock_stream catalog statement failed (%s): %s",
			 SPI_result_code_string(rc), sql);
}

static Datum
column(int row, int col, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, isnull);
}

/* The Oids of an oid[] datum, in the caller's context. */
static Oid *
oid_array(Datum d, MemoryContext cxt, int *n)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Datum	   *elems;
	Oid		   *out;

	deconstruct_array(DatumGetArrayTypeP(d), OIDOID, sizeof(Oid), true, TYPALIGN_INT,
					  &elems, NULL, n);
	out = palloc(sizeof(Oid) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		out[i] = DatumGetObjectId(elems[i]);
	MemoryContextSwitchTo(old);
	return out;
}

/* A text[] datum of a List of strings. */
static Datum
text_array(List *strings)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(list_length(strings), 1));
	int			n = 0;
	ListCell   *lc;

	foreach(lc, strings)
		d[n++] = CStringGetTextDatum((char *) lfirst(lc));
	return PointerGetDatum(construct_array(d, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* The strings of a text[] datum, as a List in the current memory context. */
static List *
text_list(Datum d)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	List	   *out = NIL;

	deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			out = lappend(out, TextDatumGetCString(elems[i]));
	return out;
}

/* The first column of every row, as a List of Oid in the caller's context. */
static List *
oid_column(MemoryContext cxt)
{
	List	   *out = NIL;

	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Oid			o = DatumGetObjectId(column((int) i, 1, &isnull));
		MemoryContext old = MemoryContextSwitchTo(cxt);

		out = lappend_oid(out, o);
		MemoryContextSwitchTo(old);
	}
	return out;
}

/* ---------------------------------------------------------------------
 * Jobs
 * ---------------------------------------------------------------------
 */

bool
HsCatalogExists(void)
{
	Oid			nsp = get_namespace_oid(HS_SCHEMA_NAME, true);

	return OidIsValid(nsp) &&
		OidIsValid(get_relname_relid("stream_jobs", nsp)) &&
		OidIsValid(get_relname_relid("stream_sources", nsp)) &&
		OidIsValid(get_relname_relid("capture_logs", nsp));
}

void
HsCatalogInsertJob(const HsJobRow *job)
{
	CatalogStatement cs;
	Datum		args[13];
	Oid			types[13] = {OIDOID, TEXTOID, TEXTOID, OIDARRAYOID, TEXTOID, INT8OID,
	INT2ARRAYOID, TEXTARRAYOID, TEXTARRAYOID, INT8OID, TEXTOID, BOOLOID, TEXTARRAYOID};
	char		nulls[13] = "             ";
	Datum	   *ids = palloc(sizeof(Datum) * Max(job->n_state_tables, 1));
	ListCell   *lc;

	for (int i = 0; i < job->n_state_tables; i++)
		ids[i] = ObjectIdGetDatum(job->state_tables[i]);
	args[0] = ObjectIdGetDatum(job->job_id);
	args[1] = CStringGetTextDatum(job->definition);
	args[2] = CStringGetTextDatum(job->query_tree);
	args[3] = PointerGetDatum(construct_array(ids, job->n_state_tables, OIDOID,
											  sizeof(Oid), true, TYPALIGN_INT));
	args[4] = CStringGetTextDatum(job->position);
	args[5] = Int64GetDatum((int64) job->first_epoch);
	if (job->n_key_columns == 0)
		nulls[6] = 'n';
	else
	{
		Datum	   *k = palloc(sizeof(Datum) * job->n_key_columns);

		for (int i = 0; i < job->n_key_columns; i++)
			k[i] = Int16GetDatum(job->key_columns[i]);
		args[6] = PointerGetDatum(construct_array(k, job->n_key_columns, INT2OID, 2,
												  true, TYPALIGN_SHORT));
	}
	args[7] = text_array(job->operators);
	args[8] = text_array(job->state_roles);
	args[9] = Int64GetDatum((int64) job->view_position);
	args[10] = CStringGetTextDatum(job->state ? job->state : "created");
	args[11] = BoolGetDatum(job->change_log);
	args[12] = text_array(job->settings);

	begin(&cs);
	run("INSERT INTO hummock_stream.stream_jobs"
		" (job_id, definition, query_tree, state_tables, position,"
		"  first_epoch, key_columns, operators, state_table_roles, view_position, state,"
		"  change_log, settings)"
		" VALUES ($1, $2, $3, $4, $5::pg_catalog.pg_snapshot, $6, $7, $8, $9, $10, $11, $12, $13)",
		13, types, args, nulls, SPI_OK_INSERT);
	types[1] = OIDOID;
	foreach(lc, job->sources)
	{
		args[1] = ObjectIdGetDatum(lfirst_oid(lc));
		run("INSERT INTO hummock_stream.stream_sources (job_id, relid) VALUES ($1, $2)",
			2, types, args, NULL, SPI_OK_INSERT);
	}
	end(&cs);
}

bool
HsCatalogReadJob(Oid job_id, HsJobRow *job)
{
	CatalogStatement cs;
	Datum		arg = ObjectIdGetDatum(job_id);
	Oid			argtype = OIDOID;
	bool		found;

	memset(job, 0, sizeof(*job));
	begin(&cs);
	run("SELECT definition, query_tree, state_tables, position::pg_catalog.text,"
		"       first_epoch, key_columns, state, view_position, change_log,"
		"       change_log OR EXISTS (SELECT FROM hummock_stream.stream_sources s"
		"                              WHERE s.relid = j.job_id),"
		"       settings, state_table_roles"
		"  FROM hummock_stream.stream_jobs j WHERE job_id = $1",
		1, &argtype, &arg, NULL, SPI_OK_SELECT);
	found = SPI_processed == 1;
	if (found)
	{
		MemoryContext old = MemoryContextSwitchTo(cs.caller);
		bool		isnull;
		Datum		keys;

		job->job_id = job_id;
		job->definition = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		job->query_tree = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
		job->state_tables = oid_array(column(0, 3, &isnull), cs.caller, &job->n_state_tables);
		job->position = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4);
		job->first_epoch = (HsEpoch) DatumGetInt64(column(0, 5, &isnull));
		keys = column(0, 6, &isnull);
		if (!isnull)
		{
			Datum	   *d;
			int			n;

			deconstruct_array(DatumGetArrayTypeP(keys), INT2OID, 2, true,
							  TYPALIGN_SHORT, &d, NULL, &n);
			job->key_columns = palloc(sizeof(int16) * Max(n, 1));
			for (int i = 0; i < n; i++)
				job->key_columns[i] = DatumGetInt16(d[i]);
			job->n_key_columns = n;
		}
		job->state = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 7);
		job->view_position = (HsEpoch) DatumGetInt64(column(0, 8, &isnull));
		job->change_log = DatumGetBool(column(0, 9, &isnull));
		job->keeps_log = DatumGetBool(column(0, 10, &isnull));
		job->settings = text_list(column(0, 11, &isnull));
		{
			Datum		roles = column(0, 12, &isnull);

			job->state_roles = isnull ? NIL : text_list(roles);
		}
		MemoryContextSwitchTo(old);
	}
	end(&cs);
	return found;
}

List *
HsCatalogJobs(void)
{
	CatalogStatement cs;
	List	   *jobs = NIL;

	begin(&cs);
	run("SELECT job_id, state_tables, first_epoch, state,"
		"       change_log OR EXISTS (SELECT FROM hummock_stream.stream_sources s"
		"                              WHERE s.relid = j.job_id)"
		"  FROM hummock_stream.stream_jobs j ORDER BY job_id",
		0, NULL, NULL, NULL, SPI_OK_SELECT);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		MemoryContext old = MemoryContextSwitchTo(cs.caller);
		HsJobRow   *job = palloc0(sizeof(HsJobRow));
		bool		isnull;

		job->job_id = DatumGetObjectId(column((int) i, 1, &isnull));
		job->state_tables = oid_array(column((int) i, 2, &isnull), cs.caller,
									  &job->n_state_tables);
		job->first_epoch = (HsEpoch) DatumGetInt64(column((int) i, 3, &isnull));
		job->state = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 4);
		job->keeps_log = DatumGetBool(column((int) i, 5, &isnull));
		jobs = lappend(jobs, job);
		MemoryContextSwitchTo(old);
	}
	end(&cs);
	return jobs;
}

void
HsCatalogSetChangeLog(Oid job_id, bool change_log)
{
	CatalogStatement cs;
	Datum		args[2];
	Oid			types[2] = {BOOLOID, OIDOID};

	args[0] = BoolGetDatum(change_log);
	args[1] = ObjectIdGetDatum(job_id);
	begin(&cs);
	run("UPDATE hummock_stream.stream_jobs SET change_log = $1 WHERE job_id = $2",
		2, types, args, NULL, SPI_OK_UPDATE);
	end(&cs);
}

bool
HsCatalogJobIsNew(Oid job_id)
{
	CatalogStatement cs;
	Datum		arg = ObjectIdGetDatum(job_id);
	Oid			argtype = OIDOID;
	bool		isnew = false;

	begin(&cs);
	run("SELECT xmin FROM hummock_stream.stream_jobs WHERE job_id = $1",
		1, &argtype, &arg, NULL, SPI_OK_SELECT);
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = column(0, 1, &isnull);

		isnew = !isnull && TransactionIdIsCurrentTransactionId(DatumGetTransactionId(d));
	}
	end(&cs);
	return isnew;
}

List *
HsCatalogJobSources(Oid job_id)
{
	CatalogStatement cs;
	Datum		arg = ObjectIdGetDatum(job_id);
	Oid			argtype = OIDOID;
	List	   *sources;

	begin(&cs);
	run("SELECT relid FROM hummock_stream.stream_sources WHERE job_id = $1 ORDER BY relid",
		1, &argtype, &arg, NULL, SPI_OK_SELECT);
	sources = oid_column(cs.caller);
	end(&cs);
	return sources;
}

List *
HsCatalogDeleteJob(Oid job_id, List **sources, bool *existed)
{
	CatalogStatement cs;
	Datum		arg = ObjectIdGetDatum(job_id);
	Oid			argtype = OIDOID;
	List	   *tables = NIL;

	begin(&cs);
	if (sources)
	{
		/* (before the job's row: deleting it cascades to its sources) */
		run("SELECT relid FROM hummock_stream.stream_sources WHERE job_id = $1 ORDER BY relid",
			1, &argtype, &arg, NULL, SPI_OK_SELECT);
		*sources = oid_column(cs.caller);
	}
	run("DELETE FROM hummock_stream.stream_jobs WHERE job_id = $1 RETURNING state_tables",
		1, &argtype, &arg, NULL, SPI_OK_DELETE_RETURNING);
	*existed = SPI_processed > 0;
	if (*existed)
	{
		bool		isnull;
		Datum		d = column(0, 1, &isnull);
		int			n = 0;
		Oid		   *ids = isnull ? NULL : oid_array(d, cs.caller, &n);
		MemoryContext old = MemoryContextSwitchTo(cs.caller);

		for (int i = 0; i < n; i++)
			tables = lappend_oid(tables, ids[i]);
		MemoryContextSwitchTo(old);
	}
	run("DELETE FROM hummock_stream.stream_sources WHERE job_id = $1",
		1, &argtype, &arg, NULL, SPI_OK_DELETE);
	end(&cs);
	return tables;
}

void
HsCatalogSetPosition(Oid job_id, const char *snapshot, HsEpoch view_position)
{
	HsCatalogSetPositions(1, &job_id, &snapshot, &view_position, NULL);
}

void
HsCatalogSetPositions(int n, const Oid *job_ids, const char *const *snapshots,
					  const HsEpoch *view_positions, bool *saved)
{
	static SPIPlanPtr plan;
	static SPIPlanPtr skipping_plan;
	static SPIPlanPtr existing_plan;
	CatalogStatement cs;
	Datum		args[3];
	Oid			types[3] = {OIDARRAYOID, TEXTARRAYOID, INT8ARRAYOID};
	Datum	   *ids;
	Datum	   *snaps;
	Datum	   *views;

	if (n == 0)
		return;
	ids = palloc(sizeof(Datum) * n);
	snaps = palloc(sizeof(Datum) * n);
	views = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
	{
		ids[i] = ObjectIdGetDatum(job_ids[i]);
		snaps[i] = CStringGetTextDatum(snapshots[i]);
		views[i] = Int64GetDatum((int64) view_positions[i]);
	}
	args[0] = PointerGetDatum(construct_array(ids, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	args[1] = PointerGetDatum(construct_array(snaps, n, TEXTOID, -1, false, TYPALIGN_INT));
	args[2] = PointerGetDatum(construct_array(views, n, INT8OID, sizeof(int64),
											  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	/* one statement for every job a commit round moves */
	begin(&cs);
	if (saved == NULL)
		run_kept(&plan, "UPDATE hummock_stream.stream_jobs j"
			"   SET position = u.position::pg_catalog.pg_snapshot, view_position = u.view_position"
			"  FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3))"
			"       AS u(job_id, position, view_position)"
			" WHERE j.job_id = u.job_id", 3, types, args, NULL, SPI_OK_UPDATE);
	else
	{
		run_kept(&skipping_plan, "UPDATE hummock_stream.stream_jobs j"
			"   SET position = u.position::pg_catalog.pg_snapshot, view_position = u.view_position"
			"  FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3))"
			"       AS u(job_id, position, view_position)"
			" WHERE j.job_id = u.job_id"
			"   AND j.job_id IN (SELECT l.job_id FROM hummock_stream.stream_jobs l"
			"                     WHERE l.job_id = ANY ($1) FOR NO KEY UPDATE SKIP LOCKED)"
			" RETURNING j.job_id", 3, types, args, NULL, SPI_OK_UPDATE_RETURNING);
		for (int i = 0; i < n; i++)
			saved[i] = false;
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			bool		isnull;
			Oid			id = DatumGetObjectId(column((int) r, 1, &isnull));

			for (int i = 0; i < n; i++)
				if (job_ids[i] == id)
					saved[i] = true;
		}

		/*
		 * A job whose row is gone (its view was dropped since the graph
		 * was loaded) has nothing to save: held back, its graph would keep
		 * its barriers in flight for good.  Only a row another transaction
		 * holds is held back.
		 */
		if (SPI_processed < (uint64) n)
		{
			run_kept(&existing_plan, "SELECT pg_catalog.array_agg(job_id) FROM hummock_stream.stream_jobs"
				" WHERE job_id = ANY ($1)", 1, types, args, NULL, SPI_OK_SELECT);
			{
				bool		isnull;
				Datum		found = column(0, 1, &isnull);
				Datum	   *f = NULL;
				int			nf = 0;

				if (!isnull)
					deconstruct_array(DatumGetArrayTypeP(found), OIDOID, sizeof(Oid), true,
									  TYPALIGN_INT, &f, NULL, &nf);
				for (int i = 0; i < n; i++)
				{
					bool		exists = false;

					for (int k = 0; k < nf && !exists; k++)
						exists = DatumGetObjectId(f[k]) == job_ids[i];
					if (!exists)
						saved[i] = true;
				}
			}
		}
	}
	end(&cs);
}

int
HsCatalogLogFloors(HsLogFloor **floors)
{
	CatalogStatement cs;
	int			n;

	begin(&cs);
	run("SELECT s.relid, pg_catalog.min(j.view_position)"
		"  FROM hummock_stream.stream_sources s"
		"  JOIN hummock_stream.stream_jobs j USING (job_id)"
		" WHERE s.relid IN (SELECT job_id FROM hummock_stream.stream_jobs)"
		" GROUP BY s.relid", 0, NULL, NULL, NULL, SPI_OK_SELECT);
	n = (int) SPI_processed;
	*floors = MemoryContextAlloc(cs.caller, sizeof(HsLogFloor) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		(*floors)[i].table_id = (HsTableId) DatumGetObjectId(column(i, 1, &isnull));
		(*floors)[i].epoch = (HsEpoch) DatumGetInt64(column(i, 2, &isnull));
	}
	end(&cs);
	return n;
}

int
HsCatalogStateTables(Oid **tables)
{
	CatalogStatement cs;
	int			n;

	begin(&cs);
	run("SELECT DISTINCT pg_catalog.unnest(state_tables) AS t"
		"  FROM hummock_stream.stream_jobs ORDER BY t",
		0, NULL, NULL, NULL, SPI_OK_SELECT);
	n = (int) SPI_processed;
	*tables = MemoryContextAlloc(cs.caller, sizeof(Oid) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		(*tables)[i] = DatumGetObjectId(column(i, 1, &isnull));
	}
	end(&cs);
	return n;
}

void
HsCatalogFinishCreation(Oid job_id, HsEpoch first_epoch)
{
	CatalogStatement cs;
	Datum		args[2];
	Oid			types[2] = {INT8OID, OIDOID};

	args[0] = Int64GetDatum((int64) first_epoch);
	args[1] = ObjectIdGetDatum(job_id);
	begin(&cs);
	run("UPDATE hummock_stream.stream_jobs SET state = 'created', first_epoch = $1"
		" WHERE job_id = $2", 2, types, args, NULL, SPI_OK_UPDATE);
	end(&cs);
}

void
HsCatalogSetState(Oid job_id, const char *state)
{
	CatalogStatement cs;
	Datum		args[2];
	Oid			types[2] = {TEXTOID, OIDOID};

	args[0] = CStringGetTextDatum(state);
	args[1] = ObjectIdGetDatum(job_id);
	begin(&cs);
	run("UPDATE hummock_stream.stream_jobs SET state = $1 WHERE job_id = $2",
		2, types, args, NULL, SPI_OK_UPDATE);
	end(&cs);
}

/* The tag of the lock a rebuild of job_id holds (an object of stream_jobs). */
static void
rebuild_locktag(LOCKTAG *tag, Oid job_id)
{
	Oid			jobs = get_relname_relid("stream_jobs", get_namespace_oid(HS_SCHEMA_NAME, false));

	SET_LOCKTAG_OBJECT(*tag, MyDatabaseId, jobs, job_id, 0);
}

void
HsCatalogRebuildBegin(Oid job_id)
{
	LOCKTAG		tag;

	rebuild_locktag(&tag, job_id);
	(void) LockAcquire(&tag, ExclusiveLock, true, false);
}

void
HsCatalogRebuildEnd(Oid job_id)
{
	LOCKTAG		tag;

	rebuild_locktag(&tag, job_id);
	(void) LockRelease(&tag, ExclusiveLock, true);
}

bool
HsCatalogRebuildAbandoned(Oid job_id)
{
	LOCKTAG		tag;

	rebuild_locktag(&tag, job_id);
	if (LockAcquire(&tag, ExclusiveLock, false, true) == LOCKACQUIRE_NOT_AVAIL)
		return false;
	(void) LockRelease(&tag, ExclusiveLock, false);
	return true;
}

void
HsCatalogSetPlanOutline(Oid job_id, List *operators, List *state_roles)
{
	CatalogStatement cs;
	Datum		args[3];
	Oid			types[3] = {TEXTARRAYOID, TEXTARRAYOID, OIDOID};

	args[0] = text_array(operators);
	args[1] = text_array(state_roles);
	args[2] = ObjectIdGetDatum(job_id);
	begin(&cs);
	run("UPDATE hummock_stream.stream_jobs SET operators = $1, state_table_roles = $2"
		" WHERE job_id = $3", 3, types, args, NULL, SPI_OK_UPDATE);
	end(&cs);
}

void
HsCatalogSetDefinition(Oid job_id, const char *definition)
{
	CatalogStatement cs;
	Datum		args[2];
	Oid			types[2] = {TEXTOID, OIDOID};

	args[0] = CStringGetTextDatum(definition);
	args[1] = ObjectIdGetDatum(job_id);
	begin(&cs);
	run("UPDATE hummock_stream.stream_jobs SET definition = $1 WHERE job_id = $2",
		2, types, args, NULL, SPI_OK_UPDATE);
	end(&cs);
}

List *
HsCatalogReaders(Oid relid)
{
	CatalogStatement cs;
	Datum		arg = ObjectIdGetDatum(relid);
	Oid			argtype = OIDOID;
	List	   *jobs;

	begin(&cs);
	run("SELECT DISTINCT job_id FROM hummock_stream.stream_sources WHERE relid = $1 ORDER BY job_id",
		1, &argtype, &arg, NULL, SPI_OK_SELECT);
	jobs = oid_column(cs.caller);
	end(&cs);
	return jobs;
}

bool
HsCatalogIsSource(Oid relid)
{
	CatalogStatement cs;
	Datum		arg = ObjectIdGetDatum(relid);
	Oid			argtype = OIDOID;
	SPIPlanPtr	plan;
	int			rc;
	bool		used;

	begin(&cs);
	plan = SPI_prepare("SELECT 1 FROM hummock_stream.stream_sources WHERE relid = $1 LIMIT 1",
					   1, &argtype);
	if (plan == NULL)
		elog(ERROR, "hummock_stream catalog statement failed to prepare (%s)",
			 SPI_result_code_string(SPI_result));
	/* with the latest snapshot, even in a REPEATABLE READ transaction */
	rc = SPI_execute_snapshot(plan, &arg, NULL, GetLatestSnapshot(), InvalidSnapshot,
							  true, false, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "hummock_stream catalog statement failed (%s)", SPI_result_code_string(rc));
	used = SPI_processed > 0;
	end(&cs);
	return used;
}

List *
HsCatalogUnreadCaptureLogs(void)
{
	CatalogStatement cs;
	List	   *out = NIL;

	begin(&cs);
	run("SELECT l.relid FROM hummock_stream.capture_logs l WHERE NOT EXISTS"
		" (SELECT FROM hummock_stream.stream_sources s WHERE s.relid = l.relid)",
		0, NULL, NULL, NULL, SPI_OK_SELECT);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		MemoryContext old = MemoryContextSwitchTo(cs.caller);

		out = lappend_oid(out, DatumGetObjectId(column(i, 1, &isnull)));
		MemoryContextSwitchTo(old);
	}
	end(&cs);
	return out;
}

/* ---------------------------------------------------------------------
 * Capture logs
 * ---------------------------------------------------------------------
 */

Oid
HsCatalogCaptureLogOf(Oid relid)
{
	CatalogStatement cs;
	Datum		arg = ObjectIdGetDatum(relid);
	Oid			argtype = OIDOID;
	Oid			log = InvalidOid;

	begin(&cs);
	run("SELECT l.log_relid FROM hummock_stream.capture_logs l"
		" JOIN pg_catalog.pg_class c ON c.oid = l.log_relid WHERE l.relid = $1",
		1, &argtype, &arg, NULL, SPI_OK_SELECT);
	if (SPI_processed == 1)
	{
		bool		isnull;

		log = DatumGetObjectId(column(0, 1, &isnull));
	}
	end(&cs);
	return log;
}

/*
 * Read relid's capture log from hummock_stream.capture_logs with a fresh
 * snapshot: a view created over relid has committed before a writer gets
 * its lock on relid, and the writer's statement snapshot may be older.
 */
Oid
HsCatalogCaptureLogRead(Oid relid)
{
	Oid			nsp = get_namespace_oid(HS_SCHEMA_NAME, true);
	Oid			registry = OidIsValid(nsp) ? get_relname_relid("capture_logs", nsp) : InvalidOid;
	Oid			result = InvalidOid;
	Relation	rel;
	Oid			index;
	Snapshot	snap;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	if (!OidIsValid(registry))
		return InvalidOid;
	rel = table_open(registry, AccessShareLock);
	index = RelationGetPrimaryKeyIndex(rel);
	snap = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, index, OidIsValid(index), snap, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, 2, RelationGetDescr(rel), &isnull);

		if (!isnull)
			result = DatumGetObjectId(d);
	}
	systable_endscan(scan);
	UnregisterSnapshot(snap);
	table_close(rel, AccessShareLock);
	return result;
}

void
HsCatalogAddCaptureLog(Oid relid, Oid log_relid)
{
	CatalogStatement cs;
	Datum		args[2];
	Oid			types[2] = {OIDOID, OIDOID};

	args[0] = ObjectIdGetDatum(relid);
	args[1] = ObjectIdGetDatum(log_relid);
	begin(&cs);
	run("INSERT INTO hummock_stream.capture_logs (relid, log_relid) VALUES ($1, $2)",
		2, types, args, NULL, SPI_OK_INSERT);
	end(&cs);
}

void
HsCatalogRemoveCaptureLog(Oid relid)
{
	CatalogStatement cs;
	Datum		arg = ObjectIdGetDatum(relid);
	Oid			argtype = OIDOID;

	begin(&cs);
	run("DELETE FROM hummock_stream.capture_logs WHERE relid = $1",
		1, &argtype, &arg, NULL, SPI_OK_DELETE);
	end(&cs);
}

/*
 * A capture log whose file has at least this many pages is truncated
 * rather than deleted from when all its rows may go.
 */
#define CAPTURE_LOG_TRUNCATE_PAGES 1024

/*
 * The txid of the oldest (desc: newest) row of capture log name; false if
 * it holds none.  An index probe.
 */
static bool
log_end_txid(const char *name, bool desc, FullTransactionId *txid)
{
	bool		isnull;

	run(psprintf("SELECT txid FROM %s ORDER BY txid %s LIMIT 1", name, desc ? "DESC" : "ASC"),
		0, NULL, NULL, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return false;
	*txid = DatumGetFullTransactionId(column(0, 1, &isnull));
	return true;
}

/*
 * The oldest position (xmin) of the jobs that read table relid: the
 * floor below which its capture log's rows are consumed by every view.
 */
#define CAPTURE_FLOOR_SQL \
	"SELECT pg_catalog.pg_snapshot_xmin(j.position) " \
	"  FROM hummock_stream.stream_jobs j " \
	"  JOIN hummock_stream.stream_sources s USING (job_id) " \
	" WHERE s.relid = $1 ORDER BY 1 LIMIT 1"

/*
 * Does a job read table relid (*floor: its oldest position)?  Read with a
 * new snapshot (the workers run read committed): a job committed before
 * the call is seen.
 */
static bool
capture_floor(Oid relid, FullTransactionId *floor)
{
	Oid			oidtype = OIDOID;
	Datum		arg = ObjectIdGetDatum(relid);
	bool		isnull;

	run(CAPTURE_FLOOR_SQL, 1, &oidtype, &arg, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return false;
	*floor = DatumGetFullTransactionId(column(0, 1, &isnull));
	return true;
}

/*
 * Truncate capture log (log, name) of table relid if its file is large,
 * its lock is free at once (no transaction that wrote to it is still
 * running: writers hold their lock until they end) and, checked again
 * under the lock with a new snapshot, every row is behind the oldest
 * position of the jobs that read the table, or none does.  Under the lock
 * no row can come; a job that starts reading the table after the check
 * takes its position later still, when every row there is visible to it
 * (it needs none of them), and a reader with an older position needs none
 * either, being past every one.
 */
static bool
truncate_if_behind(Oid log, Oid relid, const char *name)
{
	Oid			oidtype = OIDOID;
	Datum		arg = ObjectIdGetDatum(log);
	bool		isnull;
	FullTransactionId floor;
	FullTransactionId newest;

	run("SELECT pg_catalog.pg_relation_size($1)", 1, &oidtype, &arg, NULL, SPI_OK_SELECT);
	if (DatumGetInt64(column(0, 1, &isnull)) < (int64) CAPTURE_LOG_TRUNCATE_PAGES * BLCKSZ ||
		isnull)
		return false;
	if (!ConditionalLockRelationOid(log, AccessExclusiveLock))
		return false;
	if (capture_floor(relid, &floor) && log_end_txid(name, true, &newest) &&
		!FullTransactionIdPrecedes(newest, floor))
	{
		/* a row came meanwhile: writers may go on (nothing was written) */
		UnlockRelationOid(log, AccessExclusiveLock);
		return false;
	}
	run(psprintf("TRUNCATE %s", name), 0, NULL, NULL, NULL, SPI_OK_UTILITY);
	return true;
}

/*
 * Trim each capture log behind the oldest position of the views that read
 * its table (all of it when none does), as the install script's
 * _trim_capture_logs() did (kept: install scripts are never edited), but:
 *
 * - nothing is done when the log's oldest row (an index probe) is not
 *   behind that position: a DELETE planned as a sequential scan read the
 *   whole file every trim interval, after a large transaction mostly dead
 *   rows autovacuum had not reclaimed yet (a whole core of the barrier
 *   manager, a 2 GB log read every second);
 * - a large log all of whose rows may go is truncated when it can be
 *   (truncate_if_behind): no row deleted one by one, no dead rows left for
 *   a vacuum;
 * - a log whose lock is not free at once (a DROP of its views) waits for
 *   the next trim: the trim never waits for a lock while holding another.
 *
 * What decides which rows go is read in the statement that removes them
 * (the DELETE's floor is its subquery) or under the lock that keeps rows
 * out (the TRUNCATE's recheck), never from an earlier snapshot: a view
 * whose creation commits meanwhile has its position by then, and a
 * transaction committed after that position is one the statement's
 * snapshot cannot see either.
 */
void
HsCatalogTrimCaptureLogs(void)
{
	CatalogStatement cs;
	int			n;
	Oid		   *logs;
	Oid		   *tables;
	Oid			oidtype = OIDOID;

	begin(&cs);
	/* logs dropped with their table */
	run("DELETE FROM hummock_stream.capture_logs l "
		"WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class pc WHERE pc.oid = l.log_relid)",
		0, NULL, NULL, NULL, SPI_OK_DELETE);
	run("SELECT log_relid, relid FROM hummock_stream.capture_logs",
		0, NULL, NULL, NULL, SPI_OK_SELECT);
	n = (int) SPI_processed;
	logs = MemoryContextAlloc(cs.caller, sizeof(Oid) * Max(n, 1));
	tables = MemoryContextAlloc(cs.caller, sizeof(Oid) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		logs[i] = DatumGetObjectId(column(i, 1, &isnull));
		tables[i] = DatumGetObjectId(column(i, 2, &isnull));
	}
	for (int i = 0; i < n; i++)
	{
		char	   *relname;
		char	   *name;
		bool		read;
		FullTransactionId floor;
		FullTransactionId oldest;
		FullTransactionId newest;
		Datum		arg;

		/*
		 * Never wait for a log's lock: a DROP of views takes their logs one
		 * after the other, and a trim waiting for one while holding another
		 * would deadlock with it.  A log being dropped is skipped.
		 */
		if (!ConditionalLockRelationOid(logs[i], RowExclusiveLock))
			continue;
		relname = get_rel_name(logs[i]);
		if (relname == NULL)
			continue;			/* dropped meanwhile */
		name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(logs[i])),
										  relname);
		if (!log_end_txid(name, false, &oldest))
		{
			/* no row left: the file of a large log goes too */
			(void) truncate_if_behind(logs[i], tables[i], name);
			continue;
		}
		read = capture_floor(tables[i], &floor);
		if (read && !FullTransactionIdPrecedes(oldest, floor))
			continue;			/* nothing behind the views yet */
		if ((!read || (log_end_txid(name, true, &newest) &&
					   FullTransactionIdPrecedes(newest, floor))) &&
			truncate_if_behind(logs[i], tables[i], name))
			continue;
		/* every row below the floor as this statement sees it; all if none */
		arg = ObjectIdGetDatum(tables[i]);
		run(psprintf("DELETE FROM %s WHERE txid < COALESCE((" CAPTURE_FLOOR_SQL "), "
					 "'18446744073709551615'::pg_catalog.xid8)", name),
			1, &oidtype, &arg, NULL, SPI_OK_DELETE);
	}
	end(&cs);
}

/* ---------------------------------------------------------------------
 * Relations USING hummock
 * ---------------------------------------------------------------------
 */

bool
HsAmIsHummock(Oid amoid)
{
	char	   *am;

	if (!OidIsValid(amoid))
		return false;
	am = get_am_name(amoid);
	return am != NULL && strcmp(am, HS_TABLEAM_NAME) == 0;
}

bool
HsRelidIsHummock(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		result = false;

	if (HeapTupleIsValid(tup))
	{
		result = HsAmIsHummock(((Form_pg_class) GETSTRUCT(tup))->relam);
		ReleaseSysCache(tup);
	}
	return result;
}
