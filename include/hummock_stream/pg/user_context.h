/*-------------------------------------------------------------------------
 *
 * user_context.h
 *	  Running code on behalf of a role: the role's rights, a
 *	  security-restricted operation, a pinned search_path.
 *
 * Everything hummock_stream evaluates for someone (a view's expressions
 * for its owner, catalog SQL for the extension) runs the way REFRESH
 * MATERIALIZED VIEW runs a matview's query: as that role, inside a
 * security-restricted operation (no SET ROLE, no temporary objects), with
 * GUC changes local to the operation and search_path pinned to
 * "pg_catalog, pg_temp", so that no caller-controlled search_path can
 * resolve an operator or function of ours to someone else's code.
 *
 * include/hummock_stream/pg/user_context.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_PG_USER_CONTEXT_H
#define HS_PG_USER_CONTEXT_H

/* The search_path everything runs with on someone's behalf. */
#define HS_PINNED_SEARCH_PATH "pg_catalog, pg_temp"

/* What HsSwitchToUser saved, for HsRestoreUser. */
typedef struct HsUserContext
{
	Oid			save_userid;
	int			save_sec;
	int			save_nestlevel;
} HsUserContext;

/*
 * Become role (security-restricted, search_path pinned) until
 * HsRestoreUser.  Caller must be in a transaction; an error in between
 * is undone by the (sub)transaction's abort, as for a SECURITY DEFINER
 * function.
 */
extern void HsSwitchToUser(Oid role, HsUserContext *c);
extern void HsRestoreUser(const HsUserContext *c);

/*
 * Pin the settings a background worker's own statements depend on, for
 * the whole process, over ALTER DATABASE/ROLE ... SET and
 * postgresql.conf: search_path, and read committed as the isolation
 * level (as autovacuum does): every statement the workers run takes a
 * new snapshot, which their rechecks under a lock rely on (the capture
 * log trim), and serializable would add predicate locks to the users'
 * transactions' conflicts.
 */
extern void HsPinWorkerSettings(void);

/*
 * May the current user see the monitoring rows of relation relid (a
 * view's job, graph, barriers)?  As pg_stat_activity shows a session's
 * details: members of pg_monitor see everything, others the rows of
 * relations whose owner's privileges they have.  A relid that is not a
 * relation (a test graph) is for pg_monitor only.
 */
extern bool HsMayMonitor(Oid relid);

#endif							/* HS_PG_USER_CONTEXT_H */
