/*-------------------------------------------------------------------------
 *
 * type_alter.c
 *	  ALTER TYPE of a composite type whose values streaming views keep,
 *	  and ALTER TABLE of a table whose row type they keep.
 *
 * A streaming view keeps values of the types its query computes in its
 * state and its rows: group and DISTINCT keys are encoded in the shape
 * their composite type had when they were encoded (memcmp_key.c), and
 * to_jsonb() or a cast to text of a row value spells its attributes' names.
 * ALTER TYPE ... ADD ATTRIBUTE, DROP ATTRIBUTE, ALTER ATTRIBUTE ... TYPE or
 * RENAME ATTRIBUTE would make the values computed after it differ from
 * those kept before for the same rows: a group split in two, a retraction
 * of a value never added.  Postgres lets these through when no table
 * column holds the type (a row built in the query, `(a, b)::pair`, is
 * nowhere stored by Postgres), so they are refused here while a streaming
 * view depends on the type, or on a type built on it: its array type, a
 * domain over it, a composite type with an attribute of it, and so on
 * (found through pg_depend, where the view's dependencies on everything
 * its query uses are recorded, view_create.c), or on an aggregate whose
 * transition state is of such a type (a moving state is kept in the
 * view's state, agg_moving.c; the query names only the aggregate, and
 * pg_depend ties an aggregate to its functions, not to its state type).
 *
 * A table's row type is such a type too: ALTER TABLE ... ADD, DROP or
 * ALTER COLUMN ... TYPE and RENAME COLUMN change it, and Postgres lets the
 * first and the last through although another table has a column of the
 * row type (its stored values are read in the new shape).  They are
 * refused while a streaming view uses the row type: in its query (a cast,
 * jsonb_populate_record(NULL::t, ...)), or through such a column of a
 * table it reads (whose values it keeps as group keys, or spells with
 * to_jsonb()).  The view's own sources are not concerned: their columns
 * are checked where they are altered (source_alter.c).
 *
 * ALTER TYPE ... RENAME VALUE of an enum changes how its values spell
 * (m::text, to_jsonb(m)), while a view keeps the old spelling: refused in
 * the same cases.  ADD VALUE keeps the labels that exist and their
 * positions (pg_enum.enumsortorder), which a view ordering by the enum
 * keeps in its sort keys (memcmp_key.c), unless it renumbers them all
 * (ADD VALUE BEFORE/AFTER with no room left between two neighbours): a
 * renumbering ADD VALUE is refused in the same cases, after the fact
 * (HsEnumAddValueBegin/Done compare the positions).
 *
 * src/stream/type_alter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_enum.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "access/xact.h"
#include "commands/extension.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/stream/type_alter.h"
#include "hummock_stream/stream/view_dependents.h"

/*
 * The oldest streaming view (lowest OID) that depends on type typ or on a
 * type built on it; InvalidOid if none.
 */
static Oid
view_using_type(Oid typ)
{
	Relation	dep = table_open(DependRelationId, AccessShareLock);
	List	   *types = list_make1_oid(typ);
	Oid			found = InvalidOid;
	Relation	agg;
	SysScanDesc agg_scan;
	HeapTuple	agg_tup;

	/* (types grows while it is walked: each type built on one in it) */
	for (int i = 0; i < list_length(types); i++)
	{
		ScanKeyData key[2];
		SysScanDesc scan;
		HeapTuple	tup;

		ScanKeyInit(&key[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(TypeRelationId));
		ScanKeyInit(&key[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(list_nth_oid(types, i)));
		scan = systable_beginscan(dep, DependReferenceIndexId, true, NULL, 2, key);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			Form_pg_depend d = (Form_pg_depend) GETSTRUCT(tup);

			if (d->classid == TypeRelationId)
				types = list_append_unique_oid(types, d->objid);	/* array, domain */
			else if (d->classid == RelationRelationId && d->objsubid > 0 &&
					 get_rel_relkind(d->objid) == RELKIND_COMPOSITE_TYPE)
				types = list_append_unique_oid(types, get_rel_type_id(d->objid));
			else if (d->classid == RelationRelationId && d->objsubid > 0 &&
					 !HsRelidIsHummock(d->objid))
			{
				/* a table's column of the type: the views that read it */
				Oid			view = HsViewDependingOn(RelationRelationId, d->objid, d->objsubid);

				if (OidIsValid(view) && (!OidIsValid(found) || view < found))
					found = view;
			}
			else if (d->classid == RelationRelationId && HsRelidIsHummock(d->objid) &&
					 (!OidIsValid(found) || d->objid < found))
				found = d->objid;
		}
		systable_endscan(scan);
	}
	table_close(dep, AccessShareLock);

	/*
	 * Aggregates whose transition state is of one of the types (pg_depend
	 * does not record it: an aggregate depends on its functions, which may
	 * be another type's), and the views that call them.
	 */
	agg = table_open(AggregateRelationId, AccessShareLock);
	agg_scan = systable_beginscan(agg, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(agg_tup = systable_getnext(agg_scan)))
	{
		Form_pg_aggregate a = (Form_pg_aggregate) GETSTRUCT(agg_tup);

		if (list_member_oid(types, a->aggtranstype) ||
			(OidIsValid(a->aggmtranstype) && list_member_oid(types, a->aggmtranstype)))
		{
			Oid			view = HsViewDependingOn(ProcedureRelationId, a->aggfnoid, 0);

			if (OidIsValid(view) && (!OidIsValid(found) || view < found))
				found = view;
		}
	}
	systable_endscan(agg_scan);
	table_close(agg, AccessShareLock);
	return found;
}

void
HsTypeAlterCheck(Oid relid)
{
	Oid			typ;
	Oid			view;
	ObjectAddress view_addr;
	char		relkind = OidIsValid(relid) ? get_rel_relkind(relid) : '\0';

	if ((relkind != RELKIND_COMPOSITE_TYPE && relkind != RELKIND_RELATION &&
		 relkind != RELKIND_PARTITIONED_TABLE && relkind != RELKIND_FOREIGN_TABLE) ||
		!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)))
		return;
	typ = get_rel_type_id(relid);
	view = OidIsValid(typ) ? view_using_type(typ) : InvalidOid;
	if (!OidIsValid(view))
		return;
	ObjectAddressSet(view_addr, RelationRelationId, view);
	if (relkind == RELKIND_COMPOSITE_TYPE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot alter type \"%s\" because %s uses it",
						format_type_be(typ), getObjectDescription(&view_addr, false)),
				 errdetail("A streaming materialized view keeps values of the type in the shape they were computed in; the values computed after the change would not match them."),
				 errhint("Drop the streaming materialized view, alter the type, then create the view again.")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot alter the columns of table \"%s\" because %s uses its row type",
					get_rel_name(relid), getObjectDescription(&view_addr, false)),
			 errdetail("A streaming materialized view keeps values of the row type in the shape they were computed in; the values computed after the change would not match them."),
			 errhint("Drop the streaming materialized view, alter the table, then create the view again.")));
}

void
HsEnumRenameCheck(Oid typ)
{
	Oid			view;
	ObjectAddress view_addr;

	if (!OidIsValid(typ) || !OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)))
		return;
	view = view_using_type(typ);
	if (!OidIsValid(view))
		return;
	ObjectAddressSet(view_addr, RelationRelationId, view);
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot rename a value of type \"%s\" because %s uses it",
					format_type_be(typ), getObjectDescription(&view_addr, false)),
			 errdetail("A streaming materialized view keeps values of the type, and their labels as text, as they were computed; the values computed after the change would not match them."),
			 errhint("Drop the streaming materialized view, rename the value, then create the view again.")));
}

/* A label of an enum and its position, as HsEnumAddValueBegin saw it. */
typedef struct EnumPosition
{
	Oid			label;
	float4		position;
} EnumPosition;

List *
HsEnumAddValueBegin(Oid typ)
{
	CatCList   *labels;
	List	   *positions = NIL;

	if (!OidIsValid(typ) || !OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) ||
		!type_is_enum(typ) || !OidIsValid(view_using_type(typ)))
		return NIL;
	labels = SearchSysCacheList1(ENUMTYPOIDNAME, ObjectIdGetDatum(typ));
	for (int i = 0; i < labels->n_members; i++)
	{
		Form_pg_enum e = (Form_pg_enum) GETSTRUCT(&labels->members[i]->tuple);
		EnumPosition *p = palloc(sizeof(EnumPosition));

		p->label = e->oid;
		p->position = e->enumsortorder;
		positions = lappend(positions, p);
	}
	ReleaseSysCacheList(labels);
	return positions;
}

void
HsEnumAddValueDone(Oid typ, List *positions)
{
	ListCell   *lc;
	Oid			view;
	ObjectAddress view_addr;

	if (positions == NIL)
		return;
	CommandCounterIncrement();
	foreach(lc, positions)
	{
		EnumPosition *p = lfirst(lc);
		HeapTuple	tup = SearchSysCache1(ENUMOID, ObjectIdGetDatum(p->label));
		bool		moved;

		if (!HeapTupleIsValid(tup))
			continue;
		moved = ((Form_pg_enum) GETSTRUCT(tup))->enumsortorder != p->position;
		ReleaseSysCache(tup);
		if (!moved)
			continue;
		view = view_using_type(typ);
		ObjectAddressSet(view_addr, RelationRelationId, view);
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot add this value to type \"%s\" because %s uses it",
						format_type_be(typ), getObjectDescription(&view_addr, false)),
				 errdetail("Adding the value there renumbers the positions of the type's values, which a streaming materialized view ordering by the type keeps."),
				 errhint("Add the value elsewhere (at the end always works), or drop the streaming materialized view, add the value, then create the view again.")));
	}
}
