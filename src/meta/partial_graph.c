/*-------------------------------------------------------------------------
 *
 * partial_graph.c
 *	  Small helpers over partial graphs (see barrier_manager.c for their
 *	  life cycle).
 *
 * src/meta/partial_graph.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/timestamp.h"

#include "hummock_stream/meta/partial_graph.h"

const char *
HsGraphStateName(HsGraphState state)
{
	switch (state)
	{
		case HS_GRAPH_INITIALIZING:
			return "initializing";
		case HS_GRAPH_RUNNING:
			return "running";
		case HS_GRAPH_RESETTING:
			return "resetting";
		case HS_GRAPH_FAILED:
			return "failed";
	}
	return "unknown";
}

uint64
HsGraphWorkerMask(const HsGraph *g)
{
	uint64		mask = 0;
	ListCell   *lc;

	foreach(lc, g->actors)
		mask |= UINT64CONST(1) << ((HsPlacedActor *) lfirst(lc))->worker;
	foreach(lc, g->pending_add)
		mask |= UINT64CONST(1) << ((HsPlacedActor *) lfirst(lc))->worker;
	return mask;
}
