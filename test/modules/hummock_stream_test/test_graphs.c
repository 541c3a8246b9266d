/*-------------------------------------------------------------------------
 *
 * test_graphs.c
 *	  Test graphs: the tables test_actors and test_graphs as a graph
 *	  source of the barrier manager (graph_source.h).
 *
 * Every barrier manager calls the source when it rereads its graphs.  In
 * a database without this extension it adds nothing; otherwise each row
 * of test_actors is an actor of its graph (kinds by name: counter, sleep,
 * error; any other name is kind 0, which no library registers, so the
 * compute worker fails the graph naming it), and each row of test_graphs
 * the pause state of a graph.  The tables are locked before they are read
 * (RangeVarGetRelidExtended, missing_ok), so a concurrent DROP EXTENSION
 * either waits for the manager or has removed them, and the source never
 * raises an error that would end the manager.
 *
 * Writes to the tables wake the manager through a statement trigger
 * (HsWakeManagerOnCommit); so does DROP EXTENSION hummock_stream_test
 * (through a ProcessUtility hook), so the test actors stop with it.
 *
 * test/modules/hummock_stream_test/test_graphs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/builtins.h"

#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/graph_source.h"

#include "hummock_stream_test.h"

PG_FUNCTION_INFO_V1(hummock_stream_test_graphs_changed);

static ProcessUtility_hook_type prev_utility_hook = NULL;

/* The table's OID, locked in AccessShareLock, or InvalidOid if it is gone. */
static Oid
lock_table(const char *name)
{
	return RangeVarGetRelidExtended(makeRangeVar(HST_SCHEMA, (char *) name, -1),
									AccessShareLock, RVR_MISSING_OK, NULL, NULL);
}

/* The actor kind of a test_actors.kind name; 0 (unknown) for any other. */
static uint32
kind_from_name(const char *name)
{
	if (strcmp(name, "counter") == 0)
		return HST_ACTOR_COUNTER;
	if (strcmp(name, "sleep") == 0)
		return HST_ACTOR_SLEEP;
	if (strcmp(name, "error") == 0)
		return HST_ACTOR_ERROR;
	return 0;
}

/* The graph source: test actors and the pause state of test graphs. */
static void
test_graph_source(List **actors, List **graphs)
{
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext oldcxt;

	if (!OidIsValid(get_extension_oid(HST_EXTENSION_NAME, true)) ||
		!OidIsValid(lock_table("test_actors")) ||
		!OidIsValid(lock_table("test_graphs")))
		return;

	SPI_connect();
	if (SPI_execute("SELECT actor_id, graph_id, kind, param, coalesce(table_id, 0)"
					"  FROM hummock_stream_test.test_actors ORDER BY actor_id",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read hummock_stream_test.test_actors");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	td = SPI_tuptable->tupdesc;
		bool		isnull;
		HsSourceActor *sa = MemoryContextAllocZero(caller, sizeof(HsSourceActor));

		sa->spec.actor_id = DatumGetInt32(SPI_getbinval(tup, td, 1, &isnull));
		sa->graph_id = DatumGetInt32(SPI_getbinval(tup, td, 2, &isnull));
		sa->spec.kind = kind_from_name(SPI_getvalue(tup, td, 3));
		sa->spec.param = DatumGetInt32(SPI_getbinval(tup, td, 4, &isnull));
		sa->spec.table_id = (uint32) DatumGetInt64(SPI_getbinval(tup, td, 5, &isnull));
		oldcxt = MemoryContextSwitchTo(caller);
		*actors = lappend(*actors, sa);
		MemoryContextSwitchTo(oldcxt);
	}

	if (SPI_execute("SELECT graph_id, paused FROM hummock_stream_test.test_graphs",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read hummock_stream_test.test_graphs");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	td = SPI_tuptable->tupdesc;
		bool		isnull;
		HsSourceGraph *sg = MemoryContextAllocZero(caller, sizeof(HsSourceGraph));

		sg->graph_id = DatumGetInt32(SPI_getbinval(tup, td, 1, &isnull));
		sg->paused = DatumGetBool(SPI_getbinval(tup, td, 2, &isnull));
		oldcxt = MemoryContextSwitchTo(caller);
		*graphs = lappend(*graphs, sg);
		MemoryContextSwitchTo(oldcxt);
	}
	SPI_finish();
}

void
HstRegisterGraphSource(void)
{
	HsGraphSourceRegister(test_graph_source);
}

/*
 * hummock_stream_test._graphs_changed(): statement trigger on test_actors
 * and test_graphs; the manager rereads its graphs once the transaction
 * commits.
 */
Datum
hummock_stream_test_graphs_changed(PG_FUNCTION_ARGS)
{
	if (!CALLED_AS_TRIGGER(fcinfo))
		elog(ERROR, "hummock_stream_test._graphs_changed() must be called as a trigger");
	HsWakeManagerOnCommit();
	return PointerGetDatum(NULL);
}

/* DROP EXTENSION hummock_stream_test: the manager stops the test actors. */
static void
hst_process_utility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if (IsA(parsetree, DropStmt) &&
		((DropStmt *) parsetree)->removeType == OBJECT_EXTENSION)
	{
		ListCell   *lc;

		foreach(lc, ((DropStmt *) parsetree)->objects)
			if (strcmp(strVal(lfirst(lc)), HST_EXTENSION_NAME) == 0)
				HsWakeManagerOnCommit();
	}
	if (prev_utility_hook)
		prev_utility_hook(pstmt, queryString, readOnlyTree, context, params,
						  queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

void
HstInstallUtilityHook(void)
{
	prev_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = hst_process_utility;
}
