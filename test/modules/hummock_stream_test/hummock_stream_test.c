/*-------------------------------------------------------------------------
 *
 * hummock_stream_test.c
 *	  The test module of hummock_stream: _PG_init.
 *
 * A separate extension, installed only by the test command (as
 * PostgreSQL keeps src/test/modules): test actors of the barrier loop
 * (kinds counter, sleep and error, test_actors.c), the tables that make
 * test graphs of them (test_actors and test_graphs, read by a graph
 * source of every barrier manager, test_graphs.c), SQL functions that
 * drive the hummock store directly (store_functions.c, sst_build.c),
 * injected faults of views (faults.c), and SQL functions that test the
 * streaming executors and planner in isolation, over in-memory state
 * tables (exec_harness.c, exec_functions.c, plan_functions.c).
 *
 * It must be in shared_preload_libraries after hummock_stream: its
 * undefined Hs* symbols resolve against the hummock_stream.so loaded
 * before it, and the compute workers and barrier managers, forked from
 * the postmaster, inherit the actor kinds and the graph source registered
 * here.
 *
 * test/modules/hummock_stream_test/hummock_stream_test.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "hummock_stream_test.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	if (IsBinaryUpgrade)
		return;

	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("hummock_stream_test must be loaded via shared_preload_libraries"),
				 errhint("Add hummock_stream_test after hummock_stream to shared_preload_libraries and restart the server.")));

	HstRegisterActorKinds();
	HstRegisterGraphSource();
	HstInstallUtilityHook();
	HstInstallFaults();
}
