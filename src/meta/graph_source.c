/*-------------------------------------------------------------------------
 *
 * graph_source.c
 *	  The registered graph sources of the barrier manager (graph_source.h).
 *
 * Sources are registered while shared_preload_libraries are loaded, so
 * every barrier manager, forked from the postmaster, has the same list;
 * it never changes afterwards.
 *
 * src/meta/graph_source.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "hummock_stream/meta/graph_source.h"

#define HS_MAX_GRAPH_SOURCES 8

static HsGraphSourceFn graph_sources[HS_MAX_GRAPH_SOURCES];
static int	n_graph_sources = 0;

void
HsGraphSourceRegister(HsGraphSourceFn fn)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("hummock_stream graph sources can only be registered by a library in shared_preload_libraries"),
				 errhint("Add the library after hummock_stream to shared_preload_libraries and restart the server.")));
	if (fn == NULL)
		elog(ERROR, "a hummock_stream graph source needs a callback");
	if (n_graph_sources >= HS_MAX_GRAPH_SOURCES)
		elog(ERROR, "too many hummock_stream graph sources (at most %d)",
			 HS_MAX_GRAPH_SOURCES);
	graph_sources[n_graph_sources++] = fn;
}

void
HsGraphSourcesCollect(List **actors, List **graphs)
{
	for (int i = 0; i < n_graph_sources; i++)
		graph_sources[i] (actors, graphs);
}
