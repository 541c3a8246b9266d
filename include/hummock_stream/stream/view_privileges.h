/*-------------------------------------------------------------------------
 *
 * view_privileges.h
 *	  What a streaming view's query reads and calls, and whether a role
 *	  may: the privilege check of creation and of every epoch.
 *
 * A view never shows a row its owner could not read with a plain SELECT
 * of its query: the owner needs SELECT on every column of every relation
 * the query reads (as the executor checks a query's range table), EXECUTE
 * on every function, operator and aggregate it calls (as ExecInitExpr and
 * the aggregate node check), and no row-level security policy may apply
 * to it on a source (a streaming view cannot enforce policies).  These are
 * checked when the view is created and, by the compute worker, at every
 * epoch, so a REVOKE or a policy that starts applying stops the view.
 *
 * include/hummock_stream/stream/view_privileges.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_VIEW_PRIVILEGES_H
#define HS_STREAM_VIEW_PRIVILEGES_H

#include "nodes/parsenodes.h"

typedef struct HsViewReads
{
	List	   *relations;		/* RTE_RELATION entries of every level,
								 * with the columns each uses */
	List	   *functions;		/* Oids of the functions called (operators'
								 * functions and aggregates included) */
} HsViewReads;

/* What query (an analyzed view definition) reads and calls. */
extern HsViewReads *HsViewReadsOf(Query *query);

/*
 * Raise an error unless the current user may read and call everything in
 * reads, naming view_name: 42501 for a missing privilege, 0A000 if
 * row-level security applies to it on a relation.  maintaining: the view
 * exists and is being maintained (the error says it stops advancing).
 */
extern void HsViewCheckPrivileges(const HsViewReads *reads, const char *view_name,
								  bool maintaining);

#endif							/* HS_STREAM_VIEW_PRIVILEGES_H */
