/*-------------------------------------------------------------------------
 *
 * stream_ddl.h
 *	  Creating and dropping streaming materialized views.
 *
 * include/hummock_stream/stream/stream_ddl.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_STREAM_DDL_H
#define HS_STREAM_STREAM_DDL_H

#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"

/*
 * A relation USING hummock is being dropped: forget its streaming job, if
 * it is a view.  Returns the job's state table ids (Oid list) to remove
 * from the version with it.
 */
extern List *HsStreamJobDropped(Oid relid);

/*
 * Compute view again from what its inputs hold now, in place, and go on
 * maintaining it (hummock_stream.rebuild()); notice: say at which epoch.
 * Commits twice (SPI, non atomic): the caller runs outside a transaction
 * block.
 */
extern void HsRebuildView(Oid view, bool notice);

/*
 * REFRESH MATERIALIZED VIEW of a relation USING hummock: rebuild a
 * streaming view, or make an unpopulated one (as a dump restores it)
 * streaming.  False if the relation is not USING hummock.
 */
extern bool HsRefreshMaterializedView(RefreshMatViewStmt *stmt, bool is_top_level);

#endif							/* HS_STREAM_STREAM_DDL_H */
