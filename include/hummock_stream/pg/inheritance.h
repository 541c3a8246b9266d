/*-------------------------------------------------------------------------
 *
 * inheritance.h
 *	  Walking pg_inherits (partitions and inheritance children alike) up or
 *	  down from a table, as the catalog stands now or at a snapshot.
 *
 * include/hummock_stream/pg/inheritance.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_PG_INHERITANCE_H
#define HS_PG_INHERITANCE_H

#include "nodes/pg_list.h"
#include "utils/snapshot.h"

/*
 * relid first, then every table above it (up) or below it (down), each
 * once, breadth first; pg_inherits read with snapshot (NULL: as it stands
 * now).  A partition pending detach (DETACH ... CONCURRENTLY) is out of
 * the tree, as for a query.  Takes no lock on the tables.
 */
extern List *HsInheritanceClosure(Oid relid, bool up, Snapshot snapshot);

/*
 * Is partition relid pending detach from its parent (inhdetachpending, as
 * pg_inherits stands now)?
 */
extern bool HsInheritanceDetachPending(Oid relid);

#endif							/* HS_PG_INHERITANCE_H */
