/*-------------------------------------------------------------------------
 *
 * inheritance.c
 *	  Walking pg_inherits up or down from a table.
 *
 * Postgres's find_all_inheritors walks down as the catalog stands now and
 * locks what it finds; capture needs the tables above a table (to find
 * the captured sources a child's rows belong to) and the backfill the
 * tables below a source as they stood at its snapshot (a table attached
 * after it brings its rows through the capture log instead).  Both read
 * pg_inherits through one of its indexes: (inhrelid, inhseqno) going up,
 * (inhparent) going down.
 *
 * A partition whose DETACH ... CONCURRENTLY committed its first
 * transaction (inhdetachpending, also when the second failed or was
 * canceled) is no longer in its parent's tree for a query: Postgres omits
 * it from the parent's partitions for every snapshot that sees the
 * pending flag, and routes no row into it.  So the walks leave such a
 * link out, as it stands at their snapshot, and capture does not count a
 * row written into such a partition as a row of the tables above it
 * (HsInheritanceDetachPending).
 *
 * src/pg/inheritance.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_inherits.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"

#include "hummock_stream/pg/inheritance.h"

List *
HsInheritanceClosure(Oid relid, bool up, Snapshot snapshot)
{
	List	   *out = list_make1_oid(relid);
	Relation	inh = table_open(InheritsRelationId, AccessShareLock);

	for (int i = 0; i < list_length(out); i++)
	{
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tup;

		ScanKeyInit(&key, up ? Anum_pg_inherits_inhrelid : Anum_pg_inherits_inhparent,
					BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(list_nth_oid(out, i)));
		scan = systable_beginscan(inh, up ? InheritsRelidSeqnoIndexId : InheritsParentIndexId,
								  true, snapshot, 1, &key);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			Form_pg_inherits f = (Form_pg_inherits) GETSTRUCT(tup);

			if (f->inhdetachpending)
				continue;		/* (out of the tree for queries) */
			out = list_append_unique_oid(out, up ? f->inhparent : f->inhrelid);
		}
		systable_endscan(scan);
	}
	table_close(inh, AccessShareLock);
	return out;
}

bool
HsInheritanceDetachPending(Oid relid)
{
	Relation	inh = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		pending = false;

	ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(inh, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
		pending |= ((Form_pg_inherits) GETSTRUCT(tup))->inhdetachpending;
	systable_endscan(scan);
	table_close(inh, AccessShareLock);
	return pending;
}
