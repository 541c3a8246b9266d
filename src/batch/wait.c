/*-------------------------------------------------------------------------
 *
 * wait.c
 *	  hummock_stream.wait(): read your writes through streaming views.
 *
 * A view committed at epoch E contains every transaction visible in the
 * snapshot of the barrier that ended E, which the barrier manager took
 * when it injected that barrier, after reading the clock for its epoch.
 * So once the epoch a read of a view would use was ended by a barrier
 * whose epoch has a millisecond later than the one wait() was called in,
 * everything committed before the call is in it (epoch_covers_call: the
 * database's ring of recent barriers says which checkpoint barrier
 * committed the view's epoch; when it does not, the epoch's own
 * millisecond must be later).
 *
 * What is waited for:
 *	- wait(NULL): every streaming view the caller may SELECT from that
 *	  exists when wait() is called (a view dropped meanwhile is done); with
 *	  no such view it returns at once;
 *	- wait(view): that view;
 *	- wait(rel) for another relation USING hummock (one the test module's
 *	  test_load filled): nothing, it returns at once: no stream writes such
 *	  a relation, and test_load commits in its caller's transaction.
 *
 * Which epoch a read of a view uses follows hummock_stream.query_consistency
 * as scans decide it (tableam.c): with 'per_table' its committed epoch;
 * with 'global' the global read epoch (the oldest committed epoch of the
 * relations USING hummock that committed within the retention), or its
 * own when it is behind that (or its first epoch, if it was created after).
 *
 * wait() reads the newest version the catalog has, not only the published
 * one: a committer publishes after its transaction became visible, and a
 * view whose creation committed in between would otherwise look dropped.
 *
 * wait() sleeps on the database's version condition variable, which the
 * committer of each new version broadcasts, and so does the barrier
 * manager when a graph fails or heals; it rechecks at least every second.
 * A view whose graph is failed (reset and waiting to retry, see
 * barrier_manager.c) is asked to start again soon (a second after its
 * reset, not after its whole delay, which grows to 30 s), and waited for
 * through that one start: if the cause was fixed meanwhile (a bad row
 * deleted, a privilege granted), the view heals and wait() returns as for
 * any view; if it fails again, wait() fails with SQLSTATE 55000 naming the
 * view and its last error, as it does at once for a view that waits for a
 * compute worker without a slot, and for a database whose barrier manager
 * has no background worker slot.  A view still failing at the timeout is
 * reported so too, not as a timeout (57014).  A single loss of its compute
 * worker (terminated, or an error outside the view's own work) is not a
 * failure here: the graph recovers from it by itself within a second.
 * wait() fails at once on a standby (recovery is in progress), which
 * maintains nothing.
 * wait() also fails at once for a view that reads a table this
 * transaction holds an ACCESS EXCLUSIVE lock on (a TRUNCATE not yet
 * committed): its maintenance cannot read the table before the
 * transaction ends.
 *
 * src/batch/wait.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/condition_variable.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "storage/sinvaladt.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "hummock_stream/batch/read_epoch.h"
#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/meta/partial_graph.h"
#include "hummock_stream/pg/user_context.h"

/* wait() rechecks at least this often, even if nothing wakes it */
#define WAIT_RECHECK_MS 1000

/* A view wait() waits for. */
typedef struct WaitView
{
	Oid			relid;
	HsEpoch		first_epoch;	/* stream_jobs.first_epoch */
	char	   *creating;		/* being created: its name; else NULL */
	bool		done;
	int64		resets_seen;	/* failed: its graph's resets when a retry
								 * was asked (-1: none asked) */
} WaitView;

PG_FUNCTION_INFO_V1(hummock_stream_wait);
PG_FUNCTION_INFO_V1(hummock_stream_estimated_rows);
PG_FUNCTION_INFO_V1(hummock_stream_estimated_size);

/*
 * The SST statistics of relid in the newest version (HsVersionTableSize);
 * false if relid is not a relation USING hummock.
 */
static bool
relation_size_estimate(Oid relid, double *keys, uint64 *bytes)
{
	HsVersion  *v;

	if (!HsRelidIsHummock(relid))
		return false;
	v = HsHummockCurrentVersion();
	HsVersionTableSize(v, (HsTableId) relid, keys, bytes);
	HsVersionUnref(v);
	return true;
}

/*
 * hummock_stream.estimated_rows(rel): keys of a relation USING hummock in
 * the newest version's SSTs (data still in compute workers' buffers is
 * not counted; older versions of a key not yet compacted away are).
 */
Datum
hummock_stream_estimated_rows(PG_FUNCTION_ARGS)
{
	double		keys;
	uint64		bytes;

	if (!relation_size_estimate(PG_GETARG_OID(0), &keys, &bytes))
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) keys);
}

/*
 * hummock_stream.estimated_size(rel): bytes of the newest version's SST
 * files that hold a relation USING hummock (an SST shared by several
 * tables counts for each a share by its table count).  pg_relation_size
 * reads the relation's own files, which stay empty.
 */
Datum
hummock_stream_estimated_size(PG_FUNCTION_ARGS)
{
	double		keys;
	uint64		bytes;

	if (!relation_size_estimate(PG_GETARG_OID(0), &keys, &bytes))
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) bytes);
}

/*
 * The views wait(NULL) waits for: every streaming view the caller may
 * SELECT from, with its first epoch.
 */
/*
 * Was relid created by this transaction?  Such a view is maintained only
 * once the transaction commits: waiting for it inside would never end.
 */
static bool
created_in_this_transaction(Oid relid)
{
	Relation	rel;
	bool		created;

	/*
	 * (Locked against us, by a DROP in another open transaction: not ours,
	 * and wait() must not queue behind that lock.)
	 */
	if (!ConditionalLockRelationOid(relid, AccessShareLock))
		return false;
	rel = try_relation_open(relid, NoLock);
	if (rel == NULL)
	{
		UnlockRelationOid(relid, AccessShareLock);
		return false;
	}
	created = rel->rd_createSubid != InvalidSubTransactionId;
	relation_close(rel, NoLock);
	UnlockRelationOid(relid, AccessShareLock);
	return created;
}

static List *
all_views(void)
{
	List	   *views = NIL;
	ListCell   *lc;

	/* the catalog is the extension owner's; the caller's privileges filter */
	foreach(lc, HsCatalogJobs())
	{
		HsJobRow   *job = lfirst(lc);
		WaitView   *w;

		if (pg_class_aclcheck(job->job_id, GetUserId(), ACL_SELECT) != ACLCHECK_OK ||
			created_in_this_transaction(job->job_id))
			continue;
		w = palloc(sizeof(WaitView));
		w->relid = job->job_id;
		w->first_epoch = job->first_epoch;
		w->creating = strcmp(job->state, "creating") == 0 ? get_rel_name(job->job_id) : NULL;
		w->done = false;
		w->resets_seen = -1;
		views = lappend(views, w);
	}
	return views;
}

/*
 * The epoch a read of view w would use in version v (g: the global read
 * epoch), as the table AM's scan decides it; false if the view is gone.
 */
static bool
view_read_epoch(const HsVersion *v, HsEpoch g, const WaitView *w, HsEpoch *epoch)
{
	HsEpoch		c;

	if (!HsVersionCommittedEpoch(v, (HsTableId) w->relid, &c))
		return false;			/* dropped */
	if (hs_query_consistency != HS_CONSISTENCY_GLOBAL)
		*epoch = c;
	else
		*epoch = HsGlobalEpochOf(w->relid, c, w->first_epoch, g);
	return true;
}

/*
 * Does a read of view w at epoch e see every transaction committed before
 * wait() was called (in epoch `called`)?  Yes if e began after that
 * millisecond.  And yes if e is the view's committed epoch and the
 * checkpoint barrier that committed it has a later millisecond: the view
 * then holds every transaction visible in that barrier's snapshot, which
 * the manager takes after it reads the clock for the barrier's epoch.
 * That second test saves the caller a barrier interval; it does not hold
 * for an epoch a backfill committed (creation, rebuild), whose snapshot
 * is older than the barriers around it, and the ring of barriers tells
 * those apart.
 */
static bool
epoch_covers_call(HsDbState *db, const HsVersion *v, const WaitView *w, HsEpoch e,
				  HsEpoch called)
{
	HsEpoch		c;
	HsEpoch		by;

	if ((e >> HS_EPOCH_SEQ_BITS) > (called >> HS_EPOCH_SEQ_BITS))
		return true;
	if (!HsVersionCommittedEpoch(v, (HsTableId) w->relid, &c) || c != e)
		return false;
	by = HsDbStateCommittedBy(db, (uint32) w->relid, e);
	return by != 0 && (by >> HS_EPOCH_SEQ_BITS) > (called >> HS_EPOCH_SEQ_BITS);
}

/*
 * Is view w, being created when wait() began, created now (it has a
 * committed epoch in version v)?  Then it is waited for as any other, from
 * its first epoch.  A creation that failed or was canceled dropped the
 * view: an error for a wait for it (named), and for a wait for every view
 * one view fewer to wait for (w->done; after a crash the barrier manager
 * drops the views left half-created).
 */
static bool
creation_finished(const HsVersion *v, WaitView *w, bool named)
{
	HsEpoch		c;
	HsJobRow	job;

	if (!HsVersionCommittedEpoch(v, (HsTableId) w->relid, &c))
	{
		AcceptInvalidationMessages();
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(w->relid)) && !named)
		{
			w->done = true;
			return false;
		}
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(w->relid)))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("streaming materialized view \"%s\" was dropped before its creation finished",
							w->creating),
					 errdetail("Its creation failed or was canceled, or the view was dropped.")));
		return false;
	}
	/*
	 * The version may show the view's table committed before its creation
	 * ends (the backfill commits its first epoch before the creator's
	 * transaction marks the view populated and created): the creation has
	 * ended once the job's row says so (each catalog read takes a new
	 * snapshot).  Postgres then sends the transaction's catalog
	 * invalidations after it became visible, before it releases its locks:
	 * wait for the creator's ShareUpdateExclusiveLock on the view and take
	 * them in; and drop this process's relcache entry of the view (an
	 * invalidation of our own, applied at once), so that the caller's next
	 * read does not use an entry built while the view was being created
	 * ("has not been populated", seen about once in a hundred creations
	 * with wait => false followed by wait()).
	 */
	if (!HsCatalogReadJob(w->relid, &job) || strcmp(job.state, "creating") == 0)
		return false;
	{
		LOCKTAG		tag;

		SET_LOCKTAG_RELATION(tag, MyDatabaseId, w->relid);
		WaitForLockers(tag, ShareUpdateExclusiveLock, false);
		AcceptInvalidationMessages();
		CacheInvalidateRelcacheByRelid(w->relid);
		CommandCounterIncrement();
	}
	/* (a snapshot that predates the creation's commit still says 0) */
	w->first_epoch = job.first_epoch != 0 ? job.first_epoch : c;
	w->creating = NULL;
	return true;
}

/*
 * The relation USING hummock that holds the global epoch g back (the
 * oldest committed epoch not below g), for messages.
 */
static const char *
global_epoch_holder(const HsVersion *v, HsEpoch g)
{
	const char *holder = "?";
	HsEpoch		oldest = HS_EPOCH_MAX;

	for (int i = 0; i < v->n_tables; i++)
	{
		Oid			relid = (Oid) v->tables[i].table_id;
		char	   *name;

		if (v->tables[i].committed_epoch >= g && v->tables[i].committed_epoch < oldest &&
			HsRelidIsHummock(relid) && (name = get_rel_name(relid)) != NULL)
		{
			holder = name;
			oldest = v->tables[i].committed_epoch;
		}
	}
	return holder;
}

/*
 * A table that view relid reads (directly, or through the views it reads)
 * on which this transaction holds an ACCESS EXCLUSIVE lock (TRUNCATE,
 * ALTER TABLE, LOCK TABLE, ...), or InvalidOid.  The view's maintenance
 * reads its tables under ACCESS SHARE locks that it does not wait for: it
 * cannot advance until this transaction ends, so a wait() for it here
 * would wait for itself.  depth bounds the walk up a chain of views.
 */
static Oid
source_locked_by_me(Oid relid, int depth)
{
	ListCell   *lc;

	if (depth > 64)
		return InvalidOid;
	foreach(lc, HsCatalogJobSources(relid))
	{
		Oid			src = lfirst_oid(lc);
		LOCKTAG		tag;
		Oid			up;

		SET_LOCKTAG_RELATION(tag, MyDatabaseId, src);
		if (LockHeldByMe(&tag, AccessExclusiveLock))
			return src;
		/* (only a streaming view, a relation USING hummock, has sources) */
		if (src != relid && get_rel_relkind(src) == RELKIND_MATVIEW &&
			OidIsValid(up = source_locked_by_me(src, depth + 1)))
			return up;
	}
	return InvalidOid;
}

static void
check_not_locked_by_me(const WaitView *w)
{
	Oid			src = source_locked_by_me(w->relid, 0);

	if (!OidIsValid(src))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot wait for streaming materialized view \"%s\" while this transaction holds an ACCESS EXCLUSIVE lock on \"%s\"",
					get_rel_name(w->relid), get_rel_name(src)),
			 errdetail("The view reads \"%s\"; it is maintained past this transaction's lock only once the transaction ends (TRUNCATE, ALTER TABLE and LOCK TABLE take that lock).",
					   get_rel_name(src)),
			 errhint("Commit or roll back first, then wait.")));
}

/*
 * Fail if view w cannot advance: its graph is failed (reset, and waiting to
 * start again) by an error of its own or by the loss of a compute worker
 * for the second time in a row, and failed again after the retry this
 * wait asked for (or at the timeout); its compute worker cannot start; or
 * no barrier manager can run for the database.  A view whose worker merely
 * exited once is waited for: its graph starts again on a new worker within
 * a second.
 */
static void
check_view_failing(HsDbState *db, WaitView *w, bool timed_out)
{
	HsGraphStatus st;
	bool		failed = HsDbStateGraphStatus(db, (uint32) w->relid, &st) && st.failed;
	const char *why = NULL;

	if (failed && (st.state == HS_GRAPH_FAILED || st.state == HS_GRAPH_RESETTING) &&
		!(st.worker_lost && st.failures <= 1))
	{
		if (!timed_out && !st.waits_for_worker)
		{
			/* ask for one retry soon, and wait for it */
			if (w->resets_seen < 0 && HsDbStateRetryRequest(db, (uint32) w->relid))
				w->resets_seen = st.resets;
			if (w->resets_seen == st.resets)
				return;
		}
		why = pstrdup(st.last_error);
	}
	else if (timed_out && failed)
		why = pstrdup(st.last_error);	/* its retry is under way */
	else if (db->manager_pid == 0 &&
			 HsDbStateManagerProblem(MyDatabaseId) == HS_MANAGER_NO_WORKER_SLOT)
		why = HS_NO_MANAGER_SLOT_MSG;
	if (why == NULL)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("streaming materialized view \"%s\" is failing",
					get_rel_name(w->relid)),
			 errdetail("Its last error: %s.", why),
			 errhint("It starts again by itself after a delay that grows with each failure (up to %d s); hummock_stream.jobs shows its state.",
					 HS_GRAPH_BACKOFF_MAX_MS / 1000)));
}

/* A process that the barrier manager of db waits for a lock of (0: none). */
static int
manager_blocker(HsDbState *db)
{
	pid_t		pid = db->manager_pid;
	Datum	   *pids;
	int			n;

	if (pid == 0)
		return 0;
	deconstruct_array(DatumGetArrayTypeP(DirectFunctionCall1(pg_blocking_pids,
															 Int32GetDatum((int32) pid))),
					  INT4OID, sizeof(int32), true, TYPALIGN_INT, &pids, NULL, &n);
	return n > 0 ? DatumGetInt32(pids[0]) : 0;
}

/*
 * A process whose open transaction holds view relid in a mode a reader
 * conflicts with (a DROP of it not committed yet), 0 if none.
 */
static int
view_holder(Oid relid)
{
	LOCKTAG		tag;
	VirtualTransactionId *vxids;

	SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
	vxids = GetLockConflicts(&tag, AccessShareLock, NULL);
	for (; VirtualTransactionIdIsValid(*vxids); vxids++)
	{
		PGPROC	   *proc = BackendIdGetProc(vxids->backendId);

		if (proc != NULL && proc->pid != 0)
			return proc->pid;
	}
	return 0;
}

Datum
hummock_stream_wait(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_ARGISNULL(0) ? InvalidOid : PG_GETARG_OID(0);
	Interval   *timeout = PG_ARGISNULL(1) ? NULL : PG_GETARG_INTERVAL_P(1);
	HsEpoch		called = HsEpochNow();
	TimestampTz deadline = 0;
	List	   *views = NIL;
	HsDbState  *db;

	/*
	 * A standby maintains nothing: its views show what the primary
	 * committed once replay brings it, and a wait here would hold a
	 * snapshot that stops the replay of the very commits it waits for
	 * (the catalog's row versions the primary prunes) until the standby
	 * cancels it.
	 */
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("recovery is in progress"),
				 errdetail("A standby's streaming views show what the primary committed, as WAL replay brings it."),
				 errhint("Call hummock_stream.wait() on the primary, then wait for this standby to replay up to the primary's pg_current_wal_lsn() (pg_last_wal_replay_lsn()).")));

	/* NULL waits for every view; a number that names no relation is an error */
	if (!PG_ARGISNULL(0) && !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (OidIsValid(relid))
	{
		AclResult	acl = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT);

		if (acl != ACLCHECK_OK)
			aclcheck_error(acl, get_relkind_objtype(get_rel_relkind(relid)), get_rel_name(relid));
		if (!HsRelidIsHummock(relid))
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("\"%s\" is not a relation USING hummock", get_rel_name(relid))));
		if (created_in_this_transaction(relid))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot wait for \"%s\" in the transaction that created it",
							get_rel_name(relid)),
					 errdetail("It is maintained once the transaction commits; until then it holds what its creation computed."),
					 errhint("Commit first, then wait.")));
	}
	if (timeout)
	{
		int64		us = timeout->time +
			(int64) (timeout->day + timeout->month * 30) * USECS_PER_DAY;

		if (us < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("timeout must not be negative")));
		deadline = GetCurrentTimestamp() + us;
	}

	if (OidIsValid(relid))
	{
		Relation	rel = table_open(relid, AccessShareLock);
		const HsViewInfo *info = HsViewInfoOf(rel);
		HsEpoch		first = info->first_epoch;
		bool		creating = info->creating;

		table_close(rel, AccessShareLock);
		if (first != 0 || creating)
		{
			WaitView   *w = palloc(sizeof(WaitView));

			w->relid = relid;
			w->first_epoch = first;
			w->creating = creating ? get_rel_name(relid) : NULL;
			w->done = false;
			w->resets_seen = -1;
			views = list_make1(w);
		}
	}
	else
		views = all_views();
	if (views == NIL)
		PG_RETURN_VOID();		/* nothing streams into what we wait for */

	{
		ListCell   *lc;

		foreach(lc, views)
			check_not_locked_by_me(lfirst(lc));
	}
	db = HsDbStateGet(MyDatabaseId, true);
	ConditionVariablePrepareToSleep(&db->version_cv);
	for (;;)
	{
		/* (newest: a creation seen 'created' in the catalog is in it) */
		HsVersion  *v = HsHummockNewestVersion();
		HsEpoch		g = HsGlobalReadEpoch(v);
		WaitView   *laggard = NULL;
		HsEpoch		laggard_epoch = 0;
		bool		own_epoch_behind = false;
		bool		timed_out;
		const char *holder = NULL;
		ListCell   *lc;
		long		left = WAIT_RECHECK_MS;

		foreach(lc, views)
		{
			WaitView   *w = lfirst(lc);
			HsEpoch		e;

			if (w->done)
				continue;
			if (w->creating != NULL && !creation_finished(v, w, OidIsValid(relid)))
			{
				if (w->done)
					continue;
				if (laggard == NULL)
				{
					laggard = w;
					laggard_epoch = 0;
					own_epoch_behind = true;
				}
				continue;
			}
			if (!view_read_epoch(v, g, w, &e) || epoch_covers_call(db, v, w, e, called))
			{
				w->done = true;
				continue;
			}
			if (laggard == NULL)
			{
				HsEpoch		c = 0;

				laggard = w;
				laggard_epoch = e;
				(void) HsVersionCommittedEpoch(v, (HsTableId) w->relid, &c);
				own_epoch_behind = (c >> HS_EPOCH_SEQ_BITS) <= (called >> HS_EPOCH_SEQ_BITS);
			}
		}
		timed_out = laggard != NULL && deadline != 0 && GetCurrentTimestamp() >= deadline;
		if (timed_out && !own_epoch_behind)
			holder = global_epoch_holder(v, g);
		HsVersionUnref(v);
		if (laggard == NULL)
			break;
		foreach(lc, views)
		{
			WaitView   *w = lfirst(lc);

			if (!w->done)
				check_view_failing(db, w, timed_out);
		}
		if (timed_out)
		{
			const char *name = get_rel_name(laggard->relid);
			char	   *at = pstrdup(timestamptz_to_str(HsEpochToTimestamp(laggard_epoch)));
			char	   *call = pstrdup(timestamptz_to_str(HsEpochToTimestamp(called)));
			int			blocker = manager_blocker(db);
			HsGraphStatus gs;
			bool		held = HsDbStateGraphStatus(db, (uint32) laggard->relid, &gs) &&
				gs.commit_held;
			int			holder_pid = held ? view_holder(laggard->relid) : 0;

			if (laggard->creating != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_QUERY_CANCELED),
						 errmsg("timed out waiting for streaming materialized view \"%s\" to be created",
								laggard->creating),
						 errhint("hummock_stream.create_progress shows how far its backfill is.")));
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("timed out waiting for %s to catch up",
							OidIsValid(relid) ? name : "streaming views"),
					 own_epoch_behind ?
					 errdetail("View \"%s\" has committed up to %s; it must pass the call's time %s.",
							   name, at, call) :
					 errdetail("Reads use the global epoch %s, the committed epoch of \"%s\"; it must pass the call's time %s.",
							   at, holder, call),
					 held && holder_pid != 0 ?
					 errhint("Process %d holds view \"%s\" in an open transaction (a DROP of it not committed yet): its commits wait for that transaction to end, the other views go on.",
							 holder_pid, name) :
					 held ?
					 errhint("An open transaction holds the catalog row of view \"%s\" (a DROP or ALTER of it not committed yet): its commits wait for that transaction to end, the other views go on.",
							 name) :
					 blocker != 0 ?
					 errhint("The barrier manager of this database waits for a lock held by process %d (an open transaction that holds the lock every commit of a view takes stops every view's commits until it ends; see pg_stat_activity).",
							 blocker) :
					 errhint("See hummock_stream.jobs and hummock_stream.partial_graphs for a view that is failing or slow.")));
		}
		if (deadline != 0)
			left = Min(left, (long) TimestampDifferenceMilliseconds(GetCurrentTimestamp(),
																	 deadline));
		(void) ConditionVariableTimedSleep(&db->version_cv, Max(left, 1), PG_WAIT_EXTENSION);
		CHECK_FOR_INTERRUPTS();
	}
	ConditionVariableCancelSleep();
	PG_RETURN_VOID();
}
