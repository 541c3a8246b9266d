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

			out = list_append_unique_oid(out, up ? f->inhparent : f->inhrelid);
		}
		systable_endscan(scan);
	}
	table_close(inh, AccessShareLock);
	return out;
}
