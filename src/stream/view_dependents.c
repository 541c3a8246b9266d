/*-------------------------------------------------------------------------
 *
 * view_dependents.c
 *	  The streaming views that depend on an object, as pg_depend says.
 *
 * A streaming view records, as Postgres does for a view's rule, a
 * dependency on every source column, function, operator, type and
 * collation its query uses (view_create.c); DDL that would change one of
 * them under a view looks its views up here.
 *
 * src/stream/view_dependents.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "utils/fmgroids.h"

#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/stream/view_dependents.h"

Oid
HsViewDependingOn(Oid refclassid, Oid refobjid, int32 refobjsubid)
{
	return HsViewDependingOnWhere(refclassid, refobjid, refobjsubid, NULL, NULL);
}

Oid
HsViewDependingOnWhere(Oid refclassid, Oid refobjid, int32 refobjsubid,
					   HsViewFilter accept, void *arg)
{
	Relation	dep = table_open(DependRelationId, AccessShareLock);
	ScanKeyData key[3];
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			found = InvalidOid;

	ScanKeyInit(&key[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(refclassid));
	ScanKeyInit(&key[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(refobjid));
	ScanKeyInit(&key[2], Anum_pg_depend_refobjsubid, BTEqualStrategyNumber,
				F_INT4EQ, Int32GetDatum(refobjsubid));
	scan = systable_beginscan(dep, DependReferenceIndexId, true, NULL, 3, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_depend d = (Form_pg_depend) GETSTRUCT(tup);

		if (d->classid == RelationRelationId &&
			(!OidIsValid(found) || d->objid < found) && HsRelidIsHummock(d->objid) &&
			(accept == NULL || accept(d->objid, arg)))
			found = d->objid;
	}
	systable_endscan(scan);
	table_close(dep, AccessShareLock);
	return found;
}
