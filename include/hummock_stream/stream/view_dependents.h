/*-------------------------------------------------------------------------
 *
 * view_dependents.h
 *	  The streaming views that depend on an object, as pg_depend says.
 *
 * src/stream/view_dependents.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_VIEW_DEPENDENTS_H
#define HS_STREAM_VIEW_DEPENDENTS_H

/*
 * The oldest streaming view (a relation USING hummock; lowest OID, so
 * that a message naming it does not depend on where pg_depend's rows
 * lie) depending on object refobjid of catalog refclassid, sub-object
 * refobjsubid (a column; 0: the object itself); InvalidOid if none.
 */
extern Oid	HsViewDependingOn(Oid refclassid, Oid refobjid, int32 refobjsubid);

/* Whether streaming view view counts for a lookup (arg: the caller's). */
typedef bool (*HsViewFilter) (Oid view, void *arg);

/*
 * HsViewDependingOn, counting only the views for which accept(view, arg)
 * holds (accept NULL: every view).
 */
extern Oid	HsViewDependingOnWhere(Oid refclassid, Oid refobjid, int32 refobjsubid,
								   HsViewFilter accept, void *arg);

#endif							/* HS_STREAM_VIEW_DEPENDENTS_H */
