/*-------------------------------------------------------------------------
 *
 * launcher.c
 *	  The launcher: starts one barrier manager per database that uses
 *	  hummock_stream.
 *
 * The launcher is a static background worker (restarted by the postmaster
 * if it exits).  It connects to no database, only to the shared catalogs.
 * On start it reads pg_database and starts a manager for every database
 * that accepts connections and is not a template; each manager checks
 * from inside its database whether the extension is installed and exits
 * with code 0 (never restarted) if not.  Afterwards the launcher starts
 * managers when asked (CREATE EXTENSION hummock_stream records a start
 * request for its database when its transaction commits and sets the
 * launcher's latch) and, every few seconds, for the databases that appeared
 * since it last read pg_database (created from a template that holds the
 * extension and its views, or made connectable).
 *
 * Managers are dynamic workers with a restart interval, so a manager that
 * fails (ERROR) is restarted by the postmaster after 1 s and recovers from
 * the committed state (crash-only).  DROP DATABASE asks the manager to
 * stop first (see utility_hook.c); a stopping manager exits with code 0.
 *
 * A manager that cannot be registered (no background worker slot is free:
 * max_worker_processes) is logged, recorded in shared memory (so
 * hummock_stream.jobs, wait() and create_materialized_view say why views
 * do not advance) and tried again every few seconds, as is one that found
 * all hummock_stream.max_databases slots taken.  Every few seconds, and at
 * start, the launcher also frees the shared slots of databases that no
 * longer exist (db_state.c).
 *
 * src/meta/launcher.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/launcher.h"

/*
 * How often the launcher tries again to start managers that could not
 * start, and frees the slots of databases that no longer exist.
 */
#define LAUNCHER_RETRY_MS 5000

void
HsLauncherRegister(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, HS_EXTENSION_NAME);
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "HsLauncherMain");
	snprintf(worker.bgw_name, BGW_MAXLEN, "hummock_stream launcher");
	snprintf(worker.bgw_type, BGW_MAXLEN, "hummock_stream launcher");
	RegisterBackgroundWorker(&worker);
}

/*
 * Start the manager of one database (a dynamic worker).  A manager that is
 * already running refuses to attach and exits quietly.  If no background
 * worker slot is free, say so in the log and in shared memory; the launcher
 * tries again later.
 */
static void
start_manager(Oid dboid)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, HS_EXTENSION_NAME);
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "HsBarrierManagerMain");
	snprintf(worker.bgw_name, BGW_MAXLEN, "hummock_stream barrier manager for database %u", dboid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "hummock_stream barrier manager");
	worker.bgw_main_arg = ObjectIdGetDatum(dboid);
	worker.bgw_notify_pid = 0;

	/* before registering: the manager may attach before we return */
	HsDbStateManagerStarting(dboid, true);
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		HsDbStateManagerStarting(dboid, false);
		HsDbStateSetManagerProblem(dboid, HS_MANAGER_NO_WORKER_SLOT);
		ereport(LOG,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the hummock_stream barrier manager of database %u: no background worker slot is free",
						dboid),
				 errhint("Raise max_worker_processes (now %d); the launcher tries again every %d seconds.",
						 max_worker_processes, LAUNCHER_RETRY_MS / 1000)));
		return;
	}
	HsDbStateSetManagerProblem(dboid, HS_MANAGER_OK);
}

/* The OIDs of every database in pg_database (connectable ones if asked). */
static List *
list_databases(bool connectable_only)
{
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	List	   *dbs = NIL;
	MemoryContext outer = CurrentMemoryContext;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);

		/* the list outlives the transaction */
		if (!connectable_only || (db->datallowconn && !db->datistemplate))
		{
			MemoryContext xact = MemoryContextSwitchTo(outer);

			dbs = lappend_oid(dbs, db->oid);
			MemoryContextSwitchTo(xact);
		}
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	PopActiveSnapshot();
	CommitTransactionCommand();
	return dbs;
}

/*
 * The connectable, non-template databases the launcher has started a
 * manager for (or found starting one), in the launcher's memory.
 */
static List *seen_databases = NIL;

/*
 * Start a manager for every connectable, non-template database not seen
 * before: all of them at start; later, those created (CREATE DATABASE from
 * a template holding the extension, database_commands.c) or made
 * connectable since.
 */
static void
start_new_managers(void)
{
	List	   *dbs = list_databases(true);
	ListCell   *lc;
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	foreach(lc, dbs)
	{
		Oid			dboid = lfirst_oid(lc);

		if (list_member_oid(seen_databases, dboid))
			continue;
		if (!HsDbStateStopRequested(dboid))
			start_manager(dboid);
	}
	list_free(seen_databases);
	seen_databases = list_copy(dbs);
	MemoryContextSwitchTo(old);
	list_free(dbs);
}

/*
 * Free the shared slots (and forget the manager problems) of databases
 * that no longer exist.  The slots are listed before pg_database is read,
 * so a database that took its slot meanwhile is not among them.
 */
static void
sweep_dropped_databases(void)
{
	Oid			held[256];
	Oid			gone[256];
	int			n = HsDbStateSlotDatabases(held, lengthof(held));
	int			ngone = 0;
	List	   *dbs;

	if (n == 0)
		return;
	dbs = list_databases(false);
	for (int i = 0; i < n; i++)
		if (!list_member_oid(dbs, held[i]))
			gone[ngone++] = held[i];
	list_free(dbs);
	if (ngone > 0)
		HsDbStateForgetDatabases(gone, ngone);
}

/* Try again to start the managers that could not start. */
static void
retry_failed_managers(void)
{
	Oid			dboids[64];
	int			n = HsDbStateManagerProblems(dboids, lengthof(dboids));

	for (int i = 0; i < n; i++)
		if (!HsDbStateStopRequested(dboids[i]))
			start_manager(dboids[i]);
}

static void
launcher_exit(int code, Datum arg)
{
	HsLauncherUnregisterSelf();
}

void
HsLauncherMain(Datum main_arg)
{
	TimestampTz next_retry;

	/*
	 * The launcher reads no setting, so it ignores SIGHUP: reloading the
	 * configuration in this process (connected to no database) crashed
	 * inside ProcessConfigFile under load in testing.
	 */
	pqsignal(SIGHUP, SIG_IGN);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(InvalidOid, InvalidOid, 0);
	pgstat_report_appname("hummock_stream launcher");

	HsLauncherRegisterSelf();
	before_shmem_exit(launcher_exit, (Datum) 0);

	sweep_dropped_databases();
	start_new_managers();
	next_retry = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), LAUNCHER_RETRY_MS);

	for (;;)
	{
		Oid			dboids[64];
		int			n;
		long		wait_ms;

		CHECK_FOR_INTERRUPTS();

		n = HsDbStateTakeStartRequests(dboids, lengthof(dboids));
		for (int i = 0; i < n; i++)
			start_manager(dboids[i]);
		/* (woken by a CREATE DATABASE that copied a store, or every few seconds) */
		start_new_managers();

		if (GetCurrentTimestamp() >= next_retry)
		{
			sweep_dropped_databases();
			retry_failed_managers();
			next_retry = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), LAUNCHER_RETRY_MS);
		}

		wait_ms = (long) TimestampDifferenceMilliseconds(GetCurrentTimestamp(), next_retry);
		(void) WaitLatch(MyLatch,
						 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Max(wait_ms, 1), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
