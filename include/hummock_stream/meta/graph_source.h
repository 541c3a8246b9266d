/*-------------------------------------------------------------------------
 *
 * graph_source.h
 *	  Graph sources: callbacks that give the barrier manager partial graphs
 *	  besides the views' jobs.
 *
 * The barrier manager builds its graphs from the catalog of views (one
 * graph and one streaming-job actor per view, catalog.h) and from every
 * registered graph source.  A source is a callback that a library in
 * shared_preload_libraries registers from its _PG_init (the test module's
 * reads its tables test_actors and test_graphs); the manager calls each
 * source whenever it rereads its graphs: at its start and after a backend
 * asked it to (HsWakeManagerOnCommit, db_state.h).  What a source returns
 * replaces what it returned before: actors that appear ride on the next
 * barrier of their graph as an Add mutation, actors whose param changed as
 * an Update, actors that are gone as a Stop, and the pause state of a
 * graph as Pause or Resume.  A source whose input changes must wake the
 * manager itself (a trigger calling HsWakeManagerOnCommit).
 *
 * The callback runs in the barrier manager process, inside the manager's
 * transaction (a snapshot is active; SPI is not connected), as the
 * bootstrap superuser with search_path pinned.  It returns its lists
 * allocated in CurrentMemoryContext at the call.  An ERROR ends the
 * manager (it is restarted after 1 s), so a source should rather leave out
 * what it cannot read, e.g. when its extension is not installed in the
 * database.
 *
 * include/hummock_stream/meta/graph_source.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_GRAPH_SOURCE_H
#define HS_META_GRAPH_SOURCE_H

#include "nodes/pg_list.h"

#include "hummock_stream/meta/barrier_msg.h"

/* An actor of a partial graph, as a source gives it. */
typedef struct HsSourceActor
{
	uint32		graph_id;		/* > 0; a view's graph id is its OID */
	HsActorSpec spec;			/* actor_id unique in the database; kind one
								 * the compute workers know (actor.h) */
} HsSourceActor;

/* The pause state a source asks for a graph (any graph of the database). */
typedef struct HsSourceGraph
{
	uint32		graph_id;
	bool		paused;
} HsSourceGraph;

/*
 * Append HsSourceActor * to *actors and HsSourceGraph * to *graphs.  A
 * graph no source mentions in *graphs is not paused.
 */
typedef void (*HsGraphSourceFn) (List **actors, List **graphs);

/* Register a source (from _PG_init of a library in shared_preload_libraries). */
extern void HsGraphSourceRegister(HsGraphSourceFn fn);

/* Call every source, in the order of registration (the barrier manager). */
extern void HsGraphSourcesCollect(List **actors, List **graphs);

#endif							/* HS_META_GRAPH_SOURCE_H */
