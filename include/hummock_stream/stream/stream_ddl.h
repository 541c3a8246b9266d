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

#include "nodes/pg_list.h"

/*
 * A relation USING hummock is being dropped: forget its streaming job, if
 * it is a view.  Returns the job's state table ids (Oid list) to remove
 * from the version with it.
 */
extern List *HsStreamJobDropped(Oid relid);

#endif							/* HS_STREAM_STREAM_DDL_H */
