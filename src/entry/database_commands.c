/*-------------------------------------------------------------------------
 *
 * database_commands.c
 *	  The database commands Postgres runs only on a database nobody is
 *	  connected to, on a database whose streaming views are maintained.
 *
 * A database that uses hummock_stream has connections of its own: its
 * barrier manager, compute workers and compactor.  CREATE DATABASE ...
 * TEMPLATE t and ALTER DATABASE d RENAME TO ... refuse a database with
 * other connections ("being accessed by
 * other users").  So, when the caller may run the command (as Postgres
 * will check: CREATEDB and a template or one's own database to copy; the
 * database's owner to rename it), the database's manager is
 * stopped before it runs (its workers stop with it) and asked for again
 * when its transaction ends, committed or not (utility_hook.c): not
 * before, while the command's catalog changes are not committed.
 *
 * ALTER DATABASE ... SET TABLESPACE is not among them: a manager started
 * again after it failed to open the moved database's catalog files in
 * testing (not understood yet), so it stays refused while the database's
 * processes run (stop them with ALLOW_CONNECTIONS false first).
 *
 * CREATE DATABASE then copies the template's hummock store into the new
 * database (store_copy.c; Postgres copied the catalog, which names the
 * store's files), also when the template's manager was not running (the
 * launcher starts none in template databases).  The new database's manager
 * is started by the launcher, which starts one for every database that
 * appears (launcher.c); it finds the views and their state as they were
 * in the template, and catches up with the template's capture logs, copied
 * with its tables.
 *
 * src/entry/database_commands.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_database.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/syscache.h"

#include "hummock_stream/entry/database_commands.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/pg/store_copy.h"

/* How long a command waits for a database's manager to stop (ms). */
#define STOP_TIMEOUT_MS 10000

static const char *
option_string(List *options, const char *name, const char *otherwise)
{
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *opt = lfirst(lc);

		if (strcmp(opt->defname, name) == 0 && opt->arg != NULL)
			return defGetString(opt);
	}
	return otherwise;
}

/* CREATEDB, as createdb() checks it */
static bool
may_create_databases(void)
{
	HeapTuple	tup;
	bool		result;

	if (superuser())
		return true;
	tup = SearchSysCache1(AUTHOID, ObjectIdGetDatum(GetUserId()));
	if (!HeapTupleIsValid(tup))
		return false;
	result = ((Form_pg_authid) GETSTRUCT(tup))->rolcreatedb;
	ReleaseSysCache(tup);
	return result;
}

/* The template CREATE DATABASE copies, if the caller may copy it. */
static Oid
copied_template(CreatedbStmt *stmt)
{
	Oid			dboid = get_database_oid(option_string(stmt->options, "template", "template1"),
										 true);
	HeapTuple	tup;
	bool		is_template;

	if (!OidIsValid(dboid) || dboid == MyDatabaseId || !may_create_databases())
		return InvalidOid;
	tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(dboid));
	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	is_template = ((Form_pg_database) GETSTRUCT(tup))->datistemplate;
	ReleaseSysCache(tup);
	return is_template || pg_database_ownercheck(dboid, GetUserId()) ? dboid : InvalidOid;
}

/* The database a RENAME changes, if the caller owns it. */
static Oid
changed_database(const char *name)
{
	Oid			dboid = get_database_oid(name, true);

	if (!OidIsValid(dboid) || dboid == MyDatabaseId ||
		!pg_database_ownercheck(dboid, GetUserId()))
		return InvalidOid;
	return dboid;
}

Oid
HsDatabaseCommandBegin(Node *parsetree)
{
	Oid			dboid = InvalidOid;

	if (IsA(parsetree, CreatedbStmt))
		dboid = copied_template((CreatedbStmt *) parsetree);
	else if (IsA(parsetree, RenameStmt) &&
			 ((RenameStmt *) parsetree)->renameType == OBJECT_DATABASE)
		dboid = changed_database(((RenameStmt *) parsetree)->subname);
	if (OidIsValid(dboid))
		HsDbStateStopManager(dboid, STOP_TIMEOUT_MS);
	return dboid;
}

bool
HsDatabaseCommandDone(Node *parsetree, Oid dboid)
{
	if (OidIsValid(dboid) && IsA(parsetree, CreatedbStmt))
		return HsStoreCopyDatabase(dboid,
								   get_database_oid(((CreatedbStmt *) parsetree)->dbname, false));
	return false;
}
