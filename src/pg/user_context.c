/*-------------------------------------------------------------------------
 *
 * user_context.c
 *	  Running code on behalf of a role (see user_context.h).
 *
 * src/pg/user_context.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/syscache.h"

#include "hummock_stream/pg/user_context.h"

void
HsSwitchToUser(Oid role, HsUserContext *c)
{
	GetUserIdAndSecContext(&c->save_userid, &c->save_sec);
	SetUserIdAndSecContext(role, c->save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	c->save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", HS_PINNED_SEARCH_PATH,
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
}

void
HsRestoreUser(const HsUserContext *c)
{
	AtEOXact_GUC(false, c->save_nestlevel);
	SetUserIdAndSecContext(c->save_userid, c->save_sec);
}

void
HsPinWorkerSettings(void)
{
	SetConfigOption("search_path", HS_PINNED_SEARCH_PATH, PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("default_transaction_isolation", "read committed",
					PGC_SUSET, PGC_S_OVERRIDE);
}

bool
HsMayMonitor(Oid relid)
{
	HeapTuple	tup;
	Oid			owner;

	if (has_privs_of_role(GetUserId(), ROLE_PG_MONITOR))
		return true;
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		return false;
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return has_privs_of_role(GetUserId(), owner);
}
