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

#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"

#include "fmgr.h"

/*
 * Parse and analyze a view's definition (one SELECT): the query to plan
 * (Postgres views it reads expanded), and in *as_written (if not NULL) the
 * query as written, the rule of the view's materialized view.
 */
extern Query *HsAnalyzeViewDefinition(const char *sql, Query **as_written);

/*
 * Create streaming view rv from query and as_written (as
 * HsAnalyzeViewDefinition gives them) and its definition text: from
 * autocommit in the background (concurrent protocol), else in this
 * transaction; wait: return once it is created (else once it is set up).
 * existing: make that unpopulated materialized view USING hummock (a
 * restored one) streaming instead of creating a relation, in this
 * transaction.  settings: values ('name=value') of recorded settings it
 * is evaluated with instead of this session's (NIL: none).  Returns the
 * view's OID.
 */
extern Oid	HsCreateStreamingView(RangeVar *rv, const char *definition, Query *query,
								  Query *as_written, Oid existing, bool wait, bool change_log,
								  List *settings);

/*
 * CREATE MATERIALIZED VIEW ... USING hummock (or with hummock as
 * default_table_access_method): create it as a streaming view (true,
 * done), or, WITH NO DATA, check its query and let Postgres create it
 * unpopulated (false, as for any other statement).
 */
extern bool HsCreateMaterializedViewStmt(CreateTableAsStmt *stmt);

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
 * Lock the tables sources are read from (and every table of a partitioned
 * source's tree) in ACCESS SHARE mode, as a query reading them would:
 * writers go on, TRUNCATE and ALTER TABLE wait.
 */
extern void HsViewLockSourcesShared(List *sources);

/*
 * The caller, who owns view, is dropping it: if it is being created in the
 * background, cancel its creator (which holds a lock the DROP waits for,
 * until the backfill ends).  True if a creator was told to stop: it then
 * drops the view itself unless the caller locks the view first.
 */
extern bool HsViewCreationCancel(Oid view);

/* After a cancel, wait until the creator has cleaned up and exited. */
extern void HsViewCreationAwaitExit(Oid view);

/* The creator background worker of a concurrent creation. */
extern PGDLLEXPORT void HsViewCreatorMain(Datum main_arg);

#endif							/* HS_STREAM_VIEW_CREATE_H */
