/*-------------------------------------------------------------------------
 *
 * vacuum_full.c
 *	  VACUUM FULL passes over relations of the hummock access method.
 *
 * VACUUM FULL rewrites a relation's files; a hummock relation's rows are
 * not in its files but in the hummock store, which compaction keeps
 * compact, and its table access method refuses the rewrite (tableam.c).
 * A database-wide VACUUM FULL (vacuumdb --all --full) would stop at the
 * first streaming view with that error and leave the relations after it
 * alone, so the statement runs without them:
 *
 *	VACUUM FULL					every relation VACUUM FULL would process
 *								(as get_all_vacuum_rels lists them: tables,
 *								materialized views, partitioned tables), by
 *								OID, but those of the hummock access method;
 *	VACUUM FULL a, b, ...		the listed ones, a WARNING for each hummock
 *								relation, as Postgres warns for a relation
 *								it skips; nothing runs if none is left.
 *
 * Permissions are Postgres's own: vacuum_rel checks each relation of the
 * list, as it checks those of an unqualified VACUUM.  Without hummock
 * relations, or without the access method (the extension is not in this
 * database), the statement runs as written.
 *
 * src/entry/vacuum_full.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "nodes/makefuncs.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "hummock_stream/entry/vacuum_full.h"

static bool
is_full(VacuumStmt *stmt)
{
	ListCell   *lc;

	if (!stmt->is_vacuumcmd)
		return false;
	foreach(lc, stmt->options)
	{
		DefElem    *opt = lfirst(lc);

		if (strcmp(opt->defname, "full") == 0)
			return defGetBoolean(opt);
	}
	return false;
}

/* Every relation an unqualified VACUUM FULL processes but hummock ones. */
static List *
all_but_hummock(Oid hummock_am, bool *skipped)
{
	Relation	rel = table_open(RelationRelationId, AccessShareLock);
	TableScanDesc scan = table_beginscan_catalog(rel, 0, NULL);
	HeapTuple	tuple;
	List	   *rels = NIL;

	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_class c = (Form_pg_class) GETSTRUCT(tuple);

		if (c->relkind != RELKIND_RELATION && c->relkind != RELKIND_MATVIEW &&
			c->relkind != RELKIND_PARTITIONED_TABLE)
			continue;
		if (c->relam == hummock_am)
		{
			*skipped = true;
			continue;
		}
		rels = lappend(rels, makeVacuumRelation(NULL, c->oid, NIL));
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	return rels;
}

VacuumStmt *
HsVacuumFullWithoutHummock(VacuumStmt *stmt)
{
	Oid			hummock_am;
	VacuumStmt *run;
	bool		skipped = false;
	ListCell   *lc;

	if (!is_full(stmt))
		return stmt;
	hummock_am = get_table_am_oid("hummock", true);
	if (!OidIsValid(hummock_am))
		return stmt;
	run = copyObject(stmt);
	if (stmt->rels == NIL)
	{
		run->rels = all_but_hummock(hummock_am, &skipped);
		return skipped ? run : stmt;
	}
	run->rels = NIL;
	foreach(lc, stmt->rels)
	{
		VacuumRelation *vrel = lfirst(lc);
		Oid			relid = OidIsValid(vrel->oid) ? vrel->oid :
			RangeVarGetRelid(vrel->relation, NoLock, true);
		HeapTuple	tuple = OidIsValid(relid) ?
			SearchSysCache1(RELOID, ObjectIdGetDatum(relid)) : NULL;
		bool		ours = false;

		if (HeapTupleIsValid(tuple))
		{
			ours = ((Form_pg_class) GETSTRUCT(tuple))->relam == hummock_am;
			ReleaseSysCache(tuple);
		}
		if (!ours)
		{
			run->rels = lappend(run->rels, vrel);
			continue;
		}
		ereport(WARNING,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("skipping \"%s\" --- VACUUM FULL does not rewrite relations of the hummock access method",
						get_rel_name(relid)),
				 errdetail("Its rows are in the hummock store, which compaction keeps compact.")));
	}
	return run->rels == NIL ? NULL : run;
}
