/*-------------------------------------------------------------------------
 *
 * view_options.c
 *	  The storage parameters of a streaming view.
 *
 * A streaming view (a materialized view USING hummock) takes three
 * storage parameters: parallel_workers, heap's, which its parallel scans
 * use, and two of ours:
 *	- change_log: keep the view's change log for change_log() even when no
 *	  view reads it (what maintenance reads is the job's row,
 *	  stream_jobs.change_log; this is the same setting as the user sees it);
 *	- settings: the values of the settings its expressions may depend on
 *	  that it is evaluated with (view_settings.c; stream_jobs.settings),
 *	  a text array of 'name=value', recorded at its creation.  Changing
 *	  them would change rows already computed: refused once it streams.
 *
 * All live in pg_class.reloptions, so that \d+ shows them and pg_dump
 * writes them into the view's CREATE MATERIALIZED VIEW ... WITH (...):
 * a restored view keeps its change log and is computed with its
 * creator's settings, not the restoring session's (REFRESH, which makes
 * it streaming again, reads them), as pg_upgrade's dump does.  Postgres's
 * reloption parser knows heap's parameters only: reading pg_class it
 * ignores ours (relcache builds parse without validating), but a
 * statement that sets parameters validates the whole new list, and would
 * refuse them.  So every statement that sets a streaming view's
 * parameters comes here (CREATE ... WITH, ALTER ... SET/RESET,
 * set_change_log(), a creation): the list without ours is validated by
 * Postgres's parser, and the whole is stored here, as ALTER TABLE ... SET
 * stores it.
 *
 * src/stream/view_options.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/reloptions.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/stream/view_options.h"
#include "hummock_stream/stream/view_settings.h"

#define CHANGE_LOG_PARAMETER "change_log"
#define SETTINGS_PARAMETER "settings"

static bool
is_change_log(const DefElem *d)
{
	return d->defnamespace == NULL && strcmp(d->defname, CHANGE_LOG_PARAMETER) == 0;
}

static bool
is_settings(const DefElem *d)
{
	return d->defnamespace == NULL && strcmp(d->defname, SETTINGS_PARAMETER) == 0;
}

static bool
is_ours(const DefElem *d)
{
	return is_change_log(d) || is_settings(d);
}

/* The boolean value of change_log (no value: true), as Postgres parses one. */
static bool
change_log_value(const DefElem *d)
{
	bool		keep;
	char	   *value;

	if (d->arg == NULL)
		return true;
	value = defGetString((DefElem *) d);
	if (!parse_bool(value, &keep))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for boolean option \"%s\": %s",
						CHANGE_LOG_PARAMETER, value)));
	return keep;
}

void
HsViewCheckStorageParameters(List *defs, const char *relname, bool is_reset)
{
	ListCell   *lc;

	foreach(lc, defs)
	{
		DefElem    *d = lfirst(lc);

		if (is_change_log(d))
		{
			if (!is_reset)
				(void) change_log_value(d);
			continue;
		}
		if (is_settings(d))
		{
			if (!is_reset)
				(void) HsViewSettingsFromText(d->arg ? defGetString(d) : "");
			continue;
		}
		if (d->defnamespace == NULL && strcmp(d->defname, "parallel_workers") == 0)
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("storage parameter \"%s%s%s\" is not supported for streaming materialized views",
						d->defnamespace ? d->defnamespace : "", d->defnamespace ? "." : "",
						d->defname),
				 errdetail("The streaming engine stores the rows of \"%s\" in hummock storage, not in heap pages; only parallel_workers (for its parallel scans), change_log and settings apply.",
						   relname)));
	}
}

bool
HsViewChangeLogParameter(List *defs, bool *keep)
{
	ListCell   *lc;
	bool		found = false;

	/* (the last one counts, as for Postgres's parameters) */
	foreach(lc, defs)
		if (is_change_log(lfirst(lc)))
		{
			found = true;
			if (keep)
				*keep = change_log_value(lfirst(lc));
		}
	return found;
}

bool
HsViewSettingsParameter(List *defs, List **settings)
{
	ListCell   *lc;
	bool		found = false;

	foreach(lc, defs)
		if (is_settings(lfirst(lc)))
		{
			DefElem    *d = lfirst(lc);

			found = true;
			if (settings)
				*settings = HsViewSettingsFromText(d->arg ? defGetString(d) : "");
		}
	return found;
}

/* The elements of defs that are ours (or not): a new list. */
static List *
parameters_of(List *defs, bool ours)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, defs)
		if (is_ours(lfirst(lc)) == ours)
			out = lappend(out, lfirst(lc));
	return out;
}

List *
HsViewHeapParameters(List *defs)
{
	return parameters_of(defs, false);
}

List *
HsViewOurParameters(List *defs)
{
	return parameters_of(defs, true);
}

/* The parameters stored for relid (NIL if none). */
static List *
stored_parameters(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	List	   *defs = NIL;
	bool		isnull;
	Datum		options;

	if (!HeapTupleIsValid(tup))
		return NIL;
	options = SysCacheGetAttr(RELOID, tup, Anum_pg_class_reloptions, &isnull);
	if (!isnull)
		defs = untransformRelOptions(options);
	ReleaseSysCache(tup);
	return defs;
}

List *
HsViewStoredSettings(Oid relid)
{
	List	   *settings = NIL;

	(void) HsViewSettingsParameter(stored_parameters(relid), &settings);
	return settings;
}

bool
HsViewStoredChangeLog(Oid relid)
{
	bool		keep = false;

	(void) HsViewChangeLogParameter(stored_parameters(relid), &keep);
	return keep;
}

void
HsViewSetStorageParameters(Oid relid, List *defs, bool is_reset)
{
	Relation	pg_class;
	HeapTuple	tup;
	HeapTuple	newtup;
	Datum		old;
	Datum		options;
	bool		isnull;
	bool		keep;
	bool		names_change_log;
	List	   *settings = NIL;
	bool		names_settings;
	List	   *rest = HsViewHeapParameters(defs);
	Datum		values[Natts_pg_class] = {0};
	bool		nulls[Natts_pg_class] = {0};
	bool		replace[Natts_pg_class] = {0};
	HsJobRow	job;

	HsViewCheckStorageParameters(defs, get_rel_name(relid), is_reset);
	names_change_log = HsViewChangeLogParameter(defs, &keep);
	if (names_change_log && is_reset)
		keep = false;
	else if (!names_change_log)
		keep = HsViewStoredChangeLog(relid);
	names_settings = HsViewSettingsParameter(defs, is_reset ? NULL : &settings);
	if (names_settings && !IsBinaryUpgrade && HsCatalogReadJob(relid, &job))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot change the settings of streaming materialized view \"%s\"",
						get_rel_name(relid)),
				 errdetail("Its rows were computed with them."),
				 errhint("Drop it and create it again WITH (settings = ...).")));
	if (!names_settings)
		settings = HsViewStoredSettings(relid);

	pg_class = table_open(RelationRelationId, RowExclusiveLock);
	tup = SearchSysCacheCopy1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	old = SysCacheGetAttr(RELOID, tup, Anum_pg_class_reloptions, &isnull);
	if (isnull)
		old = (Datum) 0;

	/* heap's parameters, checked by Postgres without ours among them */
	options = transformRelOptions(old,
								  list_make2(makeDefElem(CHANGE_LOG_PARAMETER, NULL, -1),
											 makeDefElem(SETTINGS_PARAMETER, NULL, -1)),
								  NULL, NULL, false, true);
	options = transformRelOptions(options, rest, NULL, NULL, false, is_reset);
	(void) heap_reloptions(RELKIND_MATVIEW, options, true);
	/* ... then ours (change_log only when it is on, off is the default) */
	if (keep)
		options = transformRelOptions(options,
									  list_make1(makeDefElem(CHANGE_LOG_PARAMETER,
															 (Node *) makeString("true"), -1)),
									  NULL, NULL, false, false);
	if (settings != NIL)
		options = transformRelOptions(options,
									  list_make1(makeDefElem(SETTINGS_PARAMETER,
															 (Node *) makeString(HsViewSettingsToText(settings)),
															 -1)),
									  NULL, NULL, false, false);

	if (options != (Datum) 0)
		values[Anum_pg_class_reloptions - 1] = options;
	else
		nulls[Anum_pg_class_reloptions - 1] = true;
	replace[Anum_pg_class_reloptions - 1] = true;
	newtup = heap_modify_tuple(tup, RelationGetDescr(pg_class), values, nulls, replace);
	CatalogTupleUpdate(pg_class, &newtup->t_self, newtup);
	InvokeObjectPostAlterHook(RelationRelationId, relid, 0);
	heap_freetuple(newtup);
	heap_freetuple(tup);
	table_close(pg_class, RowExclusiveLock);

	/* a streaming view keeps (or stops keeping) its log from now on */
	if (names_change_log && !IsBinaryUpgrade && HsCatalogReadJob(relid, &job) &&
		job.change_log != keep)
	{
		HsCatalogSetChangeLog(relid, keep);
		HsWakeManagerOnCommit();
	}
	CommandCounterIncrement();
}
