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

#endif							/* HS_STREAM_VIEW_DEPENDENTS_H */
