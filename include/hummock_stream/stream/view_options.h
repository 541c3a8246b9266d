/*-------------------------------------------------------------------------
 *
 * view_options.h
 *	  The storage parameters of a streaming view (view_options.c):
 *	  parallel_workers, which Postgres knows, change_log and settings,
 *	  ours.
 *
 * include/hummock_stream/stream/view_options.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_VIEW_OPTIONS_H
#define HS_STREAM_VIEW_OPTIONS_H

#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"

/*
 * Whether a streaming view may have the storage parameters defs (of
 * WITH (...), or of ALTER ... SET/RESET (...)): parallel_workers, which
 * its parallel scans use, change_log (a boolean) and settings (a text
 * array of 'name=value'); the others are heap's.  Raises the error
 * otherwise, and for a value that is not a boolean, a valid settings array
 * or an integer in range.
 */
extern void HsViewCheckStorageParameters(List *defs, const char *relname, bool is_reset);

/* Does defs name change_log?  *keep (if not NULL): its value. */
extern bool HsViewChangeLogParameter(List *defs, bool *keep);

/* Does defs name settings?  *settings (if not NULL): its 'name=value' list. */
extern bool HsViewSettingsParameter(List *defs, List **settings);

/* defs without ours, and ours only (new lists; the elements are shared). */
extern List *HsViewHeapParameters(List *defs);
extern List *HsViewOurParameters(List *defs);

/* The change_log and settings parameters stored for relid (false, NIL if none). */
extern bool HsViewStoredChangeLog(Oid relid);
extern List *HsViewStoredSettings(Oid relid);

/*
 * SET (defs), or RESET (defs) if is_reset, the storage parameters of the
 * materialized view USING hummock relid, which the caller has locked; a
 * change_log among them also tells its job (if it is streaming); settings
 * are refused once it streams.
 */
extern void HsViewSetStorageParameters(Oid relid, List *defs, bool is_reset);

#endif							/* HS_STREAM_VIEW_OPTIONS_H */
