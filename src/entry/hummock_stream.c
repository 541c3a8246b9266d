/*-------------------------------------------------------------------------
 *
 * hummock_stream.c
 *	  Extension entry point: _PG_init and the version function.
 *
 * _PG_init only checks how it is loaded and calls each module's init
 * function; modules own their GUCs, shared memory and workers.
 *
 * hummock_stream must be loaded through shared_preload_libraries: it
 * needs shared memory and background workers, which can only be set up
 * while the postmaster starts.  Loading it any other way (for example by
 * CREATE EXTENSION in a server that does not preload it) is an error with
 * a hint that says what to change.
 *
 * src/entry/hummock_stream.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "hummock_stream/batch/explain.h"
#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/entry/guc.h"
#include "hummock_stream/entry/shmem.h"
#include "hummock_stream/entry/utility_hook.h"
#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/launcher.h"
#include "hummock_stream/pg/wal_files.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/stream_ddl.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	if (IsBinaryUpgrade)
	{
		HsUtilityHookInstallForUpgrade();
		return;
	}

	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("hummock_stream must be loaded via shared_preload_libraries"),
				 errhint("Add hummock_stream to shared_preload_libraries in postgresql.conf and restart the server.")));

	HsGucDefine();
	HsWalRegister();			/* before any WAL is replayed */
	HsShmemInstallHooks();
	HsUtilityHookInstall();
	HsTableAmInstallHooks(HsStreamJobDropped);	/* a view's job goes with it */
	HsKeyScanInstall();
	HsBackwardScanInstall();
	HsExplainInstall();
	HsLauncherRegister();
	HsBarrierManagerSetChore(HsCaptureRemoveUnread);
}

PG_FUNCTION_INFO_V1(hummock_stream_version);

/*
 * hummock_stream.version(): the version of the loaded library.
 */
Datum
hummock_stream_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(HS_EXTENSION_VERSION));
}
