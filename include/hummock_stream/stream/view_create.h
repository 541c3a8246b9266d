/*-------------------------------------------------------------------------
 *
 * view_create.h
 *	  create_materialized_view (view_create.c): the transactional and the
 *	  concurrent protocol, and the creator worker.
 *
 * include/hummock_stream/stream/view_create.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_VIEW_CREATE_H
#define HS_STREAM_VIEW_CREATE_H

#include "nodes/pg_list.h"

#include "fmgr.h"

/*
 * Refuse to create a view in a transaction that already wrote to its
 * source while the source was captured (those rows would be both in the
 * backfill and in the capture log under our xid).
 */
extern void HsCheckNoOwnCapturedWrites(Oid source);

/*
 * Lock the tables of sources (relation OIDs; streaming views among them
 * are skipped) against writers, SHARE ROW EXCLUSIVE, with every table of
 * a partitioned source's tree: all at once or, while one is busy, none
 * (waiting for its writers in between), so as never to deadlock with a
 * writer that writes them in another order.
 */
extern void HsViewLockSources(List *sources);

/*
 * The caller, who owns view, is dropping it: if it is being created in the
 * background, cancel its creator (which holds a lock the DROP waits for,
 * until the backfill ends).  True if a creator was told to stop: it then
 * drops the view itself unless the caller locks the view first.
 */
extern bool HsViewCreationCancel(Oid view);

/* The creator background worker of a concurrent creation. */
extern PGDLLEXPORT void HsViewCreatorMain(Datum main_arg);

#endif							/* HS_STREAM_VIEW_CREATE_H */
