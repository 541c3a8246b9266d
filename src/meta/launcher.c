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
 * managers only when asked: CREATE EXTENSION hummock_stream records a start
 * request for its database when its transaction commits and sets the
 * launcher's latch.
 *
 * Managers are dynamic workers with a restart interval, so a manager that
 * fails (ERROR) is restarted by the postmaster after 1 s and recovers from
 * the committed state (crash-only).  DROP DATABASE asks the manager to
 * stop first (see utility_hook.c); a stopping manager exits with code 0.
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

/* How often the launcher looks for managers that failed to start. */
#define LAUNCHER_NAP_MS 10000

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
 * already running refuses to attach and exits quietly.
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

	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		ereport(WARNING,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the hummock_stream barrier manager for database %u", dboid),
				 errhint("Raise max_worker_processes.")));
}

/* Start a manager for every connectable, non-template database. */
static void
start_all_managers(void)
{
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	List	   *dbs = NIL;
	ListCell   *lc;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);

		if (db->datallowconn && !db->datistemplate)
			dbs = lappend_oid(dbs, db->oid);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	PopActiveSnapshot();
	CommitTransactionCommand();

	foreach(lc, dbs)
	{
		Oid			dboid = lfirst_oid(lc);

		if (!HsDbStateStopRequested(dboid))
			start_manager(dboid);
	}
	list_free(dbs);
}

static void
launcher_exit(int code, Datum arg)
{
	HsLauncherUnregisterSelf();
}

void
HsLauncherMain(Datum main_arg)
{
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

	start_all_managers();

	for (;;)
	{
		Oid			dboids[64];
		int			n;

		CHECK_FOR_INTERRUPTS();

		n = HsDbStateTakeStartRequests(dboids, lengthof(dboids));
		for (int i = 0; i < n; i++)
			start_manager(dboids[i]);

		(void) WaitLatch(MyLatch,
						 WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 LAUNCHER_NAP_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
