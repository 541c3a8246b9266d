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
 * now).  Takes no lock on the tables.
 */
extern List *HsInheritanceClosure(Oid relid, bool up, Snapshot snapshot);

#endif							/* HS_PG_INHERITANCE_H */
