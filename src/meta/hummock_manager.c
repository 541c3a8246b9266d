/*-------------------------------------------------------------------------
 *
 * hummock_manager.c
 *	  Hummock versions inside PostgreSQL: catalog, per-process cache and
 *	  transactional commits.
 *
 * The source of truth is the catalog of the extension in each database:
 *
 *	version_head(version_id)			one row; committers lock it
 *	version_delta(version_id, prev_id, kind, delta bytea, committed_at)
 *	version_checkpoint(version_id, version bytea)	every 64 deltas
 *
 * A commit is part of the caller's transaction (so the streaming layer can
 * advance its source positions in the same transaction): it locks the head
 * row (SELECT ... FOR UPDATE, which serializes committers), brings the
 * process's cached version to the head, applies the delta to it (which
 * checks the invariants: prev id, committed epochs only grow, a commit only
 * adds to L0, change logs append in epoch order), inserts the delta and
 * moves the head.  When the transaction commits, an xact callback installs
 * the new version in the cache and publishes its id in shared memory
 * (HsDbState.version_id), waking waiters.  If the transaction aborts, the
 * delta never happened; SST objects it wrote are garbage for GC.
 *
 * Inside a transaction block, a view's creation commits its backfill's
 * delta at pre-commit instead (HsHummockCommitDeltaAtCommit): taking the
 * head's lock at once would stop every view of the database from
 * committing for as long as the transaction stays open.  Until then the
 * transaction reads its deferred deltas through a private version, the
 * cached one with them applied (rebuilt whenever the cache moves, with
 * the cached version's id, so pins and waits go by committed versions);
 * at pre-commit they are committed as above, on top of the head of then
 * (they add only the new views' tables).  A subtransaction that aborts
 * takes its deferred deltas back; anything else in the transaction that
 * takes the head's lock commits them first, in order.
 *
 * Every process keeps one cached HsVersion for its database, in
 * HummockVersionContext.  Before a read, the cache is brought up to the
 * published id by reading the deltas after it with a fresh snapshot
 * (deltas are immutable once committed, so the reader's own transaction
 * snapshot does not matter, which keeps REPEATABLE READ readers correct).
 * A process that starts with an empty cache loads the newest checkpoint
 * and the deltas after it.
 *
 * src/meta/hummock_manager.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_extension.h"

#include <dirent.h>
#include <sys/stat.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "commands/extension.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "storage/fd.h"
#include "storage/lmgr.h"
#include "utils/snapmgr.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/pg/iter_owner.h"
#include "hummock_stream/pg/kept_statement.h"
#include "hummock_stream/pg/shared_block_cache.h"
#include "hummock_stream/pg/user_context.h"
#include "hummock_stream/pg/wal_files.h"
#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/version_apply.h"

/* The cached version of MyDatabaseId, and the context that holds it. */
static MemoryContext HummockVersionContext = NULL;
static HsVersion *cached_version = NULL;

/*
 * The newest version this transaction committed (0: none).  The cache holds
 * it already, so the transaction reads its own commits; it is published
 * when the transaction commits, and the cache is dropped if it aborts.
 */
static uint64 xact_last_version_id = 0;

/* This transaction took the version head's lock (lock_head_object). */
static bool xact_locked_head = false;

/* Deltas this transaction commits at pre-commit, and its private version. */
typedef struct DeferredDelta
{
	SubTransactionId subid;
	HsVersionDelta *delta;		/* decoded copy in version_context() */
} DeferredDelta;
static List *deferred_deltas = NIL;

/*
 * Deferred deltas committed before pre-commit (something in the
 * transaction took the head's lock), with the subtransaction that
 * committed them in flushed_subid: if that one aborts, their catalog rows
 * go with it, while a delta deferred by a subtransaction still alive must
 * be committed all the same, so it is deferred again.
 */
typedef struct FlushedDelta
{
	DeferredDelta d;
	SubTransactionId flushed_subid;
} FlushedDelta;
static List *flushed_deltas = NIL;
static HsVersion *private_version = NULL;	/* cached_version + deferred */
static HsVersion *private_base = NULL;	/* the cached_version it was built on */
static bool flushing_deferred = false;
static void flush_deferred(void);
static bool xact_callback_registered = false;

static HsObjectStore *object_store = NULL;	/* reads: untracked files */
static void check_incarnation(void);
static HsObjectStore *write_store = NULL;	/* writes: files tracked */
static HsSstCache *sst_cache = NULL;
static HsBlockCache *block_cache = NULL;	/* per process, outlives caches */

int			hs_block_cache_size_kb = 64 * 1024;
int			hs_sst_reader_cache_size_kb = 256 * 1024;

/* Open SST readers kept per process (and hs_sst_reader_cache_size_kb). */
#define HS_SST_CACHE_CAPACITY 512

HsEnv *
HsHummockEnv(void)
{
	return HsEnvPgTransient();
}

static MemoryContext
version_context(void)
{
	if (HummockVersionContext == NULL)
		HummockVersionContext = AllocSetContextCreate(TopMemoryContext,
													  "hummock versions",
													  ALLOCSET_DEFAULT_SIZES);
	return HummockVersionContext;
}

static Oid
catalog_relid(const char *name)
{
	Oid			nsp = get_namespace_oid(HS_SCHEMA_NAME, false);
	Oid			relid = get_relname_relid(name, nsp);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("hummock_stream catalog table \"%s\" is missing", name),
				 errhint("Is the extension hummock_stream installed in this database?")));
	return relid;
}

/*
 * Read the bytea of column attno of every row of a catalog table whose
 * version_id (column 1) is > after_id, in version_id order, with a fresh
 * snapshot, and call fn for each.
 */
typedef void (*CatalogRowFn) (uint64 version_id, HsSlice data, void *arg);

static void
scan_catalog_after(const char *table, const char *index, int attno,
				   uint64 after_id, bool newest_only, CatalogRowFn fn, void *arg)
{
	Relation	rel = table_open(catalog_relid(table), AccessShareLock);
	Relation	idx = index_open(catalog_relid(index), AccessShareLock);
	Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	ScanKeyInit(&key, 1, BTGreaterStrategyNumber, F_INT8GT,
				Int64GetDatum((int64) after_id));
	scan = systable_beginscan_ordered(rel, idx, snap, 1, &key);
	while ((tup = systable_getnext_ordered(scan, newest_only ?
										   BackwardScanDirection :
										   ForwardScanDirection)) != NULL)
	{
		bool		isnull;
		Datum		id = heap_getattr(tup, 1, RelationGetDescr(rel), &isnull);
		Datum		d = heap_getattr(tup, attno, RelationGetDescr(rel), &isnull);
		bytea	   *b = DatumGetByteaPP(d);

		fn((uint64) DatumGetInt64(id),
		   HsSliceMake(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b)), arg);
		if (newest_only)
			break;
	}
	systable_endscan_ordered(scan);
	UnregisterSnapshot(snap);
	index_close(idx, AccessShareLock);
	table_close(rel, AccessShareLock);
}

static void
load_checkpoint_row(uint64 version_id, HsSlice data, void *arg)
{
	HsVersion **out = (HsVersion **) arg;
	HsStatus	st;
	MemoryContext old = MemoryContextSwitchTo(version_context());

	HS_CHECK(HsVersionDecode(HsHummockEnv(), data, out, &st), &st);
	MemoryContextSwitchTo(old);
	if ((*out)->id != version_id)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("hummock version checkpoint %llu holds version %llu",
						(unsigned long long) version_id,
						(unsigned long long) (*out)->id)));
}

/* State of a catch-up: the version, and whether a delta was missing. */
typedef struct CatchUp
{
	HsVersion  *v;
	bool		gap;
} CatchUp;

static void
apply_delta_row(uint64 version_id, HsSlice data, void *arg)
{
	CatchUp    *cu = (CatchUp *) arg;
	HsVersion **cur = &cu->v;
	HsVersionDelta *delta;
	HsVersion  *next;
	HsStatus	st;
	MemoryContext old;

	if (cu->gap)
		return;
	if (version_id != (*cur)->id + 1)
	{
		/* the deltas we need were trimmed: reload from a checkpoint */
		cu->gap = true;
		return;
	}
	old = MemoryContextSwitchTo(version_context());
	HS_CHECK(HsVersionDeltaDecode(HsHummockEnv(), data, &delta, &st), &st);
	if (delta->id != version_id)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("hummock version delta row %llu holds delta %llu",
						(unsigned long long) version_id,
						(unsigned long long) delta->id)));
	if (!HsVersionApplyDelta(HsHummockEnv(), *cur, delta, &next, &st))
	{
		HsVersionDeltaFree(delta);
		st.code = HS_CORRUPTION;	/* a stored delta must apply */
		HsStatusReport(ERROR, &st);
	}
	HsVersionDeltaFree(delta);
	HsVersionUnref(*cur);
	*cur = next;
	MemoryContextSwitchTo(old);
}

/*
 * Bring the cache to the newest committed version (at least want).  The
 * cache is dropped first and rebuilt on error, so a failure never leaves a
 * half-applied version behind.
 */
static void
refresh_cache(uint64 want)
{
	HsVersion  *v = cached_version;
	CatchUp		cu;

	if (v != NULL && v->id >= want)
		return;
	cached_version = NULL;
	if (v != NULL)
	{
		/* roll forward from the cached version if the deltas are there */
		cu.v = v;
		cu.gap = false;
		scan_catalog_after("version_delta", "version_delta_pkey", 4, v->id, false,
						   apply_delta_row, &cu);
		if (!cu.gap)
		{
			cached_version = cu.v;
			return;
		}
		HsVersionUnref(cu.v);
		v = NULL;
	}
	{
		scan_catalog_after("version_checkpoint", "version_checkpoint_pkey", 2,
						   0, true, load_checkpoint_row, &v);
		if (v == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(version_context());

			v = HsVersionCreateEmpty(HsHummockEnv());
			MemoryContextSwitchTo(old);
		}
	}
	cu.v = v;
	cu.gap = false;
	scan_catalog_after("version_delta", "version_delta_pkey", 4, v->id, false,
					   apply_delta_row, &cu);
	if (cu.gap)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("hummock version delta %llu is missing",
						(unsigned long long) (cu.v->id + 1)),
				 errdetail("The newest version checkpoint is %llu and the deltas after it are not contiguous.",
						   (unsigned long long) v->id)));
	cached_version = cu.v;
}

/*
 * Roll the cache forward over every delta the catalog has now (a fresh
 * snapshot), and publish what it found (so pins and waits see it), unless
 * the cache holds this transaction's own, uncommitted, versions.  On a
 * standby nothing commits versions, so nothing publishes them: readers
 * catch up this way over the deltas the WAL replayed into the catalog.
 */
static void
catch_up_with_catalog(void)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, true);

	check_incarnation();
	refresh_cache(cached_version ? cached_version->id + 1 : 1);
	if (cached_version->id > pg_atomic_read_u64(&db->version_id) &&
		xact_last_version_id == 0)
		HsDbStatePublishVersion(db, cached_version->id);
}

static void
drop_private_version(void)
{
	if (private_version)
		HsVersionUnref(private_version);
	if (private_base)
		HsVersionUnref(private_base);
	private_version = NULL;
	private_base = NULL;
}

/*
 * What this transaction reads: the cached version, or with deferred deltas
 * the private version built on it (again if the cache moved).
 */
static HsVersion *
visible_version(void)
{
	HsVersion  *v;
	ListCell   *lc;

	if (deferred_deltas == NIL)
		return cached_version;
	if (private_version != NULL && private_base == cached_version)
		return private_version;
	drop_private_version();
	v = HsVersionRef(cached_version);
	foreach(lc, deferred_deltas)
	{
		HsVersionDelta *d = ((DeferredDelta *) lfirst(lc))->delta;
		HsVersion  *next;
		HsStatus	st;
		MemoryContext old = MemoryContextSwitchTo(version_context());
		bool		ok;

		d->prev_id = v->id;
		d->id = v->id + 1;
		ok = HsVersionApplyDelta(HsHummockEnv(), v, d, &next, &st);
		MemoryContextSwitchTo(old);
		if (!ok)
		{
			HsVersionUnref(v);
			HsStatusReport(ERROR, &st);
		}
		HsVersionUnref(v);
		v = next;
	}
	/* (pins and waits go by the committed version it stands on) */
	v->id = cached_version->id;
	private_version = v;
	private_base = HsVersionRef(cached_version);
	return private_version;
}

HsVersion *
HsHummockNewestVersion(void)
{
	catch_up_with_catalog();
	return HsVersionRef(visible_version());
}

HsVersion *
HsHummockCurrentVersion(void)
{
	HsDbState  *db;
	uint64		published;

	if (RecoveryInProgress())
		catch_up_with_catalog();
	db = HsDbStateGet(MyDatabaseId, true);
	published = pg_atomic_read_u64(&db->version_id);

	check_incarnation();
	refresh_cache(published);
	/*
	 * After a restart the published id starts at 0: make it catch up (but
	 * never publish this transaction's own, uncommitted, versions).
	 */
	if (cached_version->id > published && xact_last_version_id == 0)
		HsDbStatePublishVersion(db, cached_version->id);
	return HsVersionRef(visible_version());
}

HsVersion *
HsHummockPinnedVersion(HsEpoch epoch)
{
	uint64		pinned;

	if (RecoveryInProgress())
		catch_up_with_catalog();
	pinned = HsPinPublishedVersion(MyDatabaseId, epoch);

	check_incarnation();
	refresh_cache(pinned);
	return HsVersionRef(visible_version());
}

int			hs_wait_timeout_ms = 10000;

/* hummock_stream.sst_* settings (defined in guc.c), read by HsHummockWriteContext */
int			hs_sst_block_size_kb = 16;
int			hs_sst_compression = 1;	/* lz4 */
int			hs_sst_zstd_level = 3;
int			hs_sst_bloom_bits_per_key = 10;

/* ---------------------------------------------------------------------
 * Commits
 * ---------------------------------------------------------------------
 */

/*
 * The versions this transaction committed, with the subtransaction of
 * each: a ROLLBACK TO SAVEPOINT takes back those of the subtransactions
 * it aborts (their deltas leave the catalog with them), so the cache must
 * not keep them, and the transaction's last version is the one before.
 */
typedef struct SubxactVersion
{
	SubTransactionId subid;
	uint64		version_id;
} SubxactVersion;

static SubxactVersion *xact_versions;
static int	n_xact_versions;
static int	xact_versions_cap;

static void
remember_xact_version(uint64 version_id)
{
	if (n_xact_versions == xact_versions_cap)
	{
		xact_versions_cap = Max(8, xact_versions_cap * 2);
		xact_versions = xact_versions ?
			repalloc(xact_versions, sizeof(SubxactVersion) * xact_versions_cap) :
			MemoryContextAlloc(TopMemoryContext, sizeof(SubxactVersion) * xact_versions_cap);
	}
	xact_versions[n_xact_versions].subid = GetCurrentSubTransactionId();
	xact_versions[n_xact_versions].version_id = version_id;
	n_xact_versions++;
}

/*
 * A subtransaction aborts: the versions it (or a subtransaction within it,
 * whose ids are greater) committed never happened.  Those of
 * subtransactions that committed into it are taken back with it, since
 * every such subtransaction began after it.
 */
static void
hummock_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	int			keep = n_xact_versions;

	if (deferred_deltas != NIL)
	{
		ListCell   *lc;

		foreach(lc, deferred_deltas)
		{
			DeferredDelta *dd = lfirst(lc);

			if (dd->subid < mySubid)
				continue;
			if (event == SUBXACT_EVENT_COMMIT_SUB && dd->subid == mySubid)
				dd->subid = parentSubid;
			else if (event == SUBXACT_EVENT_ABORT_SUB)
			{
				HsVersionDeltaFree(dd->delta);
				pfree(dd);
				deferred_deltas = foreach_delete_current(deferred_deltas, lc);
			}
		}
		if (event == SUBXACT_EVENT_ABORT_SUB)
			drop_private_version();
	}
	if (flushed_deltas != NIL)
	{
		ListCell   *lc;
		List	   *again = NIL;

		foreach(lc, flushed_deltas)
		{
			FlushedDelta *fd = lfirst(lc);

			if (event == SUBXACT_EVENT_COMMIT_SUB)
			{
				if (fd->flushed_subid == mySubid)
					fd->flushed_subid = parentSubid;
				if (fd->d.subid == mySubid)
					fd->d.subid = parentSubid;
				continue;
			}
			if (event != SUBXACT_EVENT_ABORT_SUB || fd->flushed_subid < mySubid)
				continue;
			/* its commit is undone: deferred again, unless it is undone too */
			if (fd->d.subid < mySubid)
			{
				DeferredDelta *dd = MemoryContextAlloc(version_context(), sizeof(DeferredDelta));

				MemoryContext old = MemoryContextSwitchTo(version_context());

				*dd = fd->d;
				again = lappend(again, dd);
				MemoryContextSwitchTo(old);
			}
			else
				HsVersionDeltaFree(fd->d.delta);
			pfree(fd);
			flushed_deltas = foreach_delete_current(flushed_deltas, lc);
		}
		if (again != NIL)
		{
			/* (before those deferred since, in the order they came) */
			deferred_deltas = list_concat(again, deferred_deltas);
			drop_private_version();
		}
	}
	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	while (keep > 0 && xact_versions[keep - 1].subid >= mySubid)
		keep--;
	if (keep == n_xact_versions)
		return;
	n_xact_versions = keep;
	xact_last_version_id = keep > 0 ? xact_versions[keep - 1].version_id : 0;
	if (cached_version)
		HsVersionUnref(cached_version);
	cached_version = NULL;
}

static void
hummock_xact_callback(XactEvent event, void *arg)
{
	/*
	 * A prepared transaction would keep the version head locked, stopping
	 * every view of the database until it is committed, and its version
	 * (whose objects only its own process knows are in flight) would be
	 * published by nobody: refused, as Postgres refuses to prepare a
	 * transaction that used temporary objects.
	 */
	if (event == XACT_EVENT_PRE_COMMIT && deferred_deltas != NIL)
		flush_deferred();
	if (event == XACT_EVENT_PRE_PREPARE &&
		(xact_locked_head || xact_last_version_id != 0 || deferred_deltas != NIL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot PREPARE a transaction that has created, changed or dropped streaming materialized views")));
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE)
	{
		n_xact_versions = 0;
		xact_locked_head = false;
		/* (memory of version_context: freed with each delta) */
		if (deferred_deltas != NIL)
		{
			ListCell   *lc;

			foreach(lc, deferred_deltas)
				HsVersionDeltaFree(((DeferredDelta *) lfirst(lc))->delta);
			list_free_deep(deferred_deltas);
			deferred_deltas = NIL;
		}
		if (flushed_deltas != NIL)
		{
			ListCell   *lc;

			foreach(lc, flushed_deltas)
				HsVersionDeltaFree(((FlushedDelta *) lfirst(lc))->d.delta);
			list_free_deep(flushed_deltas);
			flushed_deltas = NIL;
		}
		drop_private_version();
		flushing_deferred = false;
	}
	if (xact_last_version_id == 0)
		return;
	if (event == XACT_EVENT_COMMIT)
	{
		HsDbState  *db = HsDbStateGet(MyDatabaseId, true);

		HsDbStatePublishVersion(db, xact_last_version_id);
		/* the objects this transaction wrote are referenced now */
		HsPinClearInflightObjects();
		xact_last_version_id = 0;
	}
	else if (event == XACT_EVENT_ABORT)
	{
		/* the cache holds versions that never happened: drop it */
		if (cached_version)
			HsVersionUnref(cached_version);
		cached_version = NULL;
		xact_last_version_id = 0;
	}
}

/*
 * The sorted object ids of the version this process's last commit made,
 * and that version (referenced, so no other version takes its address):
 * the next commit's old version is that one unless another process
 * committed in between, and its ids are not collected and sorted again
 * (a tenth of an idle barrier manager's time with many views).
 */
static HsVersion *ids_version;
static uint64_t *ids_of_version;
static size_t n_ids_of_version;

/*
 * Record the objects the old version references and the new one does not:
 * GC deletes them once no reader pins a version older than the new one.
 * Runs inside the committer's SPI connection and transaction.
 */
static void
record_stale_objects(const HsVersion *old, HsVersion *new)
{
	uint64_t   *a,
			   *b;
	size_t		na,
				nb,
				j = 0;
	Oid			argtypes[2] = {INT8OID, INT8OID};
	Datum		args[2];
	MemoryContext mcxt;

	if (ids_version == old)
	{
		a = ids_of_version;
		na = n_ids_of_version;
	}
	else
		HsVersionObjectIds(old, &a, &na);
	/* kept past this transaction (the environment pallocs where it runs) */
	mcxt = MemoryContextSwitchTo(version_context());
	HsVersionObjectIds(new, &b, &nb);
	MemoryContextSwitchTo(mcxt);
	args[1] = Int64GetDatum((int64) new->id);
	for (size_t i = 0; i < na; i++)
	{
		while (j < nb && b[j] < a[i])
			j++;
		if (j < nb && b[j] == a[i])
			continue;
		args[0] = Int64GetDatum((int64) a[i]);
		if (SPI_execute_with_args("INSERT INTO hummock_stream.stale_objects"
								  " (object_id, stale_since) VALUES ($1, $2)"
								  " ON CONFLICT (object_id) DO NOTHING",
								  2, argtypes, args, NULL, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not record a stale hummock object");
	}
	if (ids_of_version && ids_of_version != a)
		HsFree(HsHummockEnv(), ids_of_version);
	if (a)
		HsFree(HsHummockEnv(), a);
	HsVersionUnref(ids_version);
	ids_version = HsVersionRef(new);
	ids_of_version = b;
	n_ids_of_version = nb;
}

/* The version head's one row, locked: every commit serializes on it. */
#define LOCK_HEAD_SQL "SELECT version_id FROM hummock_stream.version_head FOR UPDATE"
static SPIPlanPtr lock_head_plan;

/*
 * Before the head row, every committer (and HsHummockLockVersionHead)
 * takes ExclusiveLock on an object named after the head's table, which
 * alone serializes them.  It comes first so that the row is never locked
 * by another committer when a REPEATABLE READ or SERIALIZABLE
 * transaction locks it with the latest snapshot
 * (HsCatalogStatementSnapshot): waiting for that row lock and finding the
 * row updated would be a serialization error.  (A relation lock on the
 * table would also wait for autovacuum, which vacuums this one-row table
 * every few seconds.)
 */
static void
lock_head_object(void)
{
	if (!xact_callback_registered)
	{
		RegisterXactCallback(hummock_xact_callback, NULL);
		RegisterSubXactCallback(hummock_subxact_callback, NULL);
		xact_callback_registered = true;
	}
	LockDatabaseObject(catalog_relid("version_head"), 0, 0, ExclusiveLock);
	xact_locked_head = true;
	/* (whatever this transaction does with the head comes after them) */
	if (deferred_deltas != NIL && !flushing_deferred)
		flush_deferred();
}

/* Does the catalog exist (in this transaction: DROP EXTENSION drops it)? */
static bool
catalog_exists(void)
{
	Oid			nsp = get_namespace_oid("hummock_stream", true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid("version_head", nsp));
}

void
HsHummockLockVersionHead(void)
{
	HsUserContext owner;

	/* (DROP EXTENSION drops the catalog too, in an order of its own) */
	if (!catalog_exists())
		return;
	lock_head_object();
	HsBecomeExtensionOwner(&owner);
	SPI_connect();
	if (HsKeptStatementRun(&lock_head_plan, LOCK_HEAD_SQL, 0, NULL, NULL, NULL) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not lock the hummock version head");
	SPI_finish();
	HsRestoreUser(&owner);
}

bool
HsHummockXactHoldsHead(void)
{
	return xact_locked_head;
}

uint64
HsHummockCommitDelta(HsVersionDelta *delta)
{
	uint64		head;
	HsVersion  *next;
	HsStatus	st;
	HsBuf		buf;
	MemoryContext old;
	Datum		args[4];
	Oid			argtypes[4] = {INT8OID, INT8OID, TEXTOID, BYTEAOID};
	bytea	   *b;
	int			rc;
	HsUserContext owner;
	static SPIPlanPtr insert_delta_plan;
	static SPIPlanPtr move_head_plan;

	check_incarnation();

	/* the catalog is the extension's, whoever commits */
	lock_head_object();
	HsBecomeExtensionOwner(&owner);
	SPI_connect();
	rc = HsKeptStatementRun(&lock_head_plan, LOCK_HEAD_SQL, 0, NULL, NULL, NULL);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not lock the hummock version head");
	{
		bool		isnull;

		head = (uint64) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
													SPI_tuptable->tupdesc, 1,
													&isnull));
	}

	refresh_cache(head);
	if (cached_version->id != head)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize the hummock commit"),
				 errdetail("The version head is %llu but version %llu was read.",
						   (unsigned long long) head,
						   (unsigned long long) cached_version->id)));

	delta->prev_id = head;
	delta->id = head + 1;

	/*
	 * Encode the delta for the catalog, and apply a decoded copy: the
	 * caller's delta (and the SST infos it references) live in the
	 * caller's memory, while the cached version must own everything it
	 * points to.  This also proves that what we store can be read back.
	 */
	HsBufInit(&buf, HsHummockEnv());
	HsVersionDeltaEncode(delta, &buf);
	old = MemoryContextSwitchTo(version_context());
	{
		HsVersionDelta *copy;

		if (!HsVersionDeltaDecode(HsHummockEnv(), HsSliceMake(buf.data, buf.len),
								  &copy, &st))
		{
			MemoryContextSwitchTo(old);
			HsStatusReport(ERROR, &st);
		}
		if (!HsVersionApplyDelta(HsHummockEnv(), cached_version, copy, &next, &st))
		{
			HsVersionDeltaFree(copy);
			MemoryContextSwitchTo(old);
			HsStatusReport(ERROR, &st);
		}
		HsVersionDeltaFree(copy);
	}
	MemoryContextSwitchTo(old);

	b = (bytea *) palloc(VARHDRSZ + buf.len);
	SET_VARSIZE(b, VARHDRSZ + buf.len);
	memcpy(VARDATA(b), buf.data, buf.len);
	HsBufFree(&buf);

	args[0] = Int64GetDatum((int64) delta->id);
	args[1] = Int64GetDatum((int64) delta->prev_id);
	args[2] = CStringGetTextDatum(HsDeltaKindName(delta->kind));
	args[3] = PointerGetDatum(b);
	rc = HsKeptStatementRun(&insert_delta_plan, "INSERT INTO hummock_stream.version_delta"
							" (version_id, prev_id, kind, delta)"
							" VALUES ($1, $2, $3, $4)",
							4, argtypes, args, NULL);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "could not insert hummock version delta");
	rc = HsKeptStatementRun(&move_head_plan, "UPDATE hummock_stream.version_head SET version_id = $1",
							1, argtypes, args, NULL);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "could not move the hummock version head");

	record_stale_objects(cached_version, next);

	if (delta->id % HS_VERSION_CHECKPOINT_INTERVAL == 0)
	{
		HsBufInit(&buf, HsHummockEnv());
		HsVersionEncode(next, &buf);
		b = (bytea *) palloc(VARHDRSZ + buf.len);
		SET_VARSIZE(b, VARHDRSZ + buf.len);
		memcpy(VARDATA(b), buf.data, buf.len);
		HsBufFree(&buf);
		args[1] = PointerGetDatum(b);
		argtypes[1] = BYTEAOID;
		rc = SPI_execute_with_args("INSERT INTO hummock_stream.version_checkpoint"
								   " (version_id, version) VALUES ($1, $2)",
								   2, argtypes, args, NULL, false, 0);
		if (rc != SPI_OK_INSERT)
			elog(ERROR, "could not insert hummock version checkpoint");
	}
	SPI_finish();
	HsRestoreUser(&owner);

	/* from here on this transaction reads its own commit */
	HsVersionUnref(cached_version);
	cached_version = next;
	xact_last_version_id = next->id;
	remember_xact_version(next->id);
	return delta->id;
}

/* Commit this transaction's deferred deltas, in order (the head locked). */
static void
flush_deferred(void)
{
	List	   *deltas = deferred_deltas;
	ListCell   *lc;
	bool		pushed = false;
	MemoryContext old;

	flushing_deferred = true;
	deferred_deltas = NIL;
	drop_private_version();
	/* (DROP EXTENSION: the catalog and the store go, versions with them) */
	if (!catalog_exists())
	{
		foreach(lc, deltas)
			HsVersionDeltaFree(((DeferredDelta *) lfirst(lc))->delta);
		list_free_deep(deltas);
		flushing_deferred = false;
		return;
	}
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed = true;
	}
	foreach(lc, deltas)
	{
		DeferredDelta *dd = lfirst(lc);
		FlushedDelta *fd;

		(void) HsHummockCommitDelta(dd->delta);
		/* (kept: an abort of this subtransaction defers it again) */
		old = MemoryContextSwitchTo(version_context());
		fd = palloc(sizeof(FlushedDelta));
		fd->d = *dd;
		fd->flushed_subid = GetCurrentSubTransactionId();
		flushed_deltas = lappend(flushed_deltas, fd);
		MemoryContextSwitchTo(old);
	}
	if (pushed)
		PopActiveSnapshot();
	list_free_deep(deltas);
	flushing_deferred = false;
}

void
HsHummockCommitDeltaAtCommit(HsVersionDelta *delta)
{
	DeferredDelta *dd;
	HsBuf		buf;
	HsStatus	st;
	MemoryContext old;

	if (!xact_callback_registered)
	{
		RegisterXactCallback(hummock_xact_callback, NULL);
		RegisterSubXactCallback(hummock_subxact_callback, NULL);
		xact_callback_registered = true;
	}
	/* (once the head is this transaction's, as before) */
	if (xact_locked_head)
	{
		(void) HsHummockCommitDelta(delta);
		return;
	}
	HsBufInit(&buf, HsHummockEnv());
	HsVersionDeltaEncode(delta, &buf);
	old = MemoryContextSwitchTo(version_context());
	dd = palloc(sizeof(DeferredDelta));
	dd->subid = GetCurrentSubTransactionId();
	if (!HsVersionDeltaDecode(HsHummockEnv(), HsSliceMake(buf.data, buf.len), &dd->delta, &st))
	{
		MemoryContextSwitchTo(old);
		HsStatusReport(ERROR, &st);
	}
	deferred_deltas = lappend(deferred_deltas, dd);
	MemoryContextSwitchTo(old);
	HsBufFree(&buf);
	/* this transaction reads it from now on (an error here takes it back) */
	drop_private_version();
	HsVersionUnref(HsHummockCurrentVersion());
}

/* ---------------------------------------------------------------------
 * Acting as the extension's owner
 * ---------------------------------------------------------------------
 */

Oid
HsExtensionOwner(void)
{
	Oid			extoid = get_extension_oid(HS_EXTENSION_NAME, false);
	Oid			owner = InvalidOid;
	HeapTuple	tup;
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		owner = ((Form_pg_extension) GETSTRUCT(tup))->extowner;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (!OidIsValid(owner))
		elog(ERROR, "extension %s has no owner", HS_EXTENSION_NAME);
	return owner;
}

void
HsBecomeExtensionOwner(HsUserContext *c)
{
	HsSwitchToUser(HsExtensionOwner(), c);
}

/* ---------------------------------------------------------------------
 * Objects
 * ---------------------------------------------------------------------
 */

/*
 * Objects live in $PGDATA/pg_hummock/<database oid>/<extension oid>/: the
 * extension's OID names one incarnation of the store, so objects of a
 * dropped and re-created extension (whose object id sequence starts over)
 * never share a name, and no process keeps reading an old object through a
 * cache.
 */
static Oid	cached_ext_oid = InvalidOid;

void
HsHummockObjectDir(Oid dboid, Oid extoid, char *dir, size_t len)
{
	snprintf(dir, len, "%s/%u/%u", HS_DATA_DIR, dboid, extoid);
}

static void
object_dir(char *dir, size_t len)
{
	HsHummockObjectDir(MyDatabaseId, cached_ext_oid, dir, len);
}

/*
 * Make sure the process's caches belong to the installed extension; drop
 * them if the extension was re-created since they were filled.
 */
static uint64 cached_incarnation = 0;

void
HsHummockForgetIncarnation(void)
{
	cached_incarnation = PG_UINT64_MAX;	/* look the extension up again */
}

static void
check_incarnation(void)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	uint64		incarnation = db ? pg_atomic_read_u64(&db->incarnation) : 0;
	Oid			ext;

	/*
	 * The catalog lookup only when CREATE or DROP EXTENSION committed since
	 * (on a standby, where replayed DDL tells no one, every time).
	 */
	if (db && OidIsValid(cached_ext_oid) && incarnation == cached_incarnation &&
		!RecoveryInProgress())
		return;
	cached_incarnation = incarnation;
	ext = get_extension_oid(HS_EXTENSION_NAME, true);

	if (!OidIsValid(ext))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"%s\" is not installed in this database",
						HS_EXTENSION_NAME)));
	if (ext == cached_ext_oid)
		return;
	if (cached_version)
		HsVersionUnref(cached_version);
	cached_version = NULL;
	if (sst_cache)
		HsSstCacheDestroy(sst_cache);
	sst_cache = NULL;
	if (object_store)
		object_store->ops->close(object_store);
	object_store = NULL;
	if (write_store)
		write_store->ops->close(write_store);
	write_store = NULL;
	cached_ext_oid = ext;
}

/*
 * Has this incarnation's store ever allocated an object id?  (Its catalog
 * says so: object_id_seq has been called.)
 */
static bool
store_allocated_objects(void)
{
	HsUserContext owner;
	bool		isnull;
	bool		called;

	HsBecomeExtensionOwner(&owner);
	SPI_connect();
	if (SPI_execute("SELECT is_called FROM hummock_stream.object_id_seq", true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the hummock object id sequence");
	called = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	HsRestoreUser(&owner);
	return called;
}

/*
 * pg_upgrade keeps a database's OID and the extension's catalog (versions,
 * object id sequence) but gives the extension a new OID, and copies nothing
 * under pg_hummock.  Once the old data directory's pg_hummock is copied
 * into the new one (README, Operations), the store sits under the old
 * extension OID: if this incarnation's directory is missing although its
 * catalog has allocated objects, and exactly one other incarnation's
 * directory is there, that is the store, and it is renamed.  (A freshly
 * created extension allocates its first object id just before its
 * directory is made, so a directory a crash left behind after DROP
 * EXTENSION is not taken for it.)  Caller must be in a transaction.
 */
static void
adopt_upgraded_store(void)
{
	char		base[MAXPGPATH];
	char		dir[MAXPGPATH];
	char	   *found = NULL;
	int			n = 0;
	struct stat sb;
	DIR		   *d;
	struct dirent *de;

	object_dir(dir, sizeof(dir));
	if (stat(dir, &sb) == 0 || RecoveryInProgress())
		return;
	snprintf(base, sizeof(base), "%s/%u", HS_DATA_DIR, MyDatabaseId);
	d = AllocateDir(base);
	if (d == NULL)
		return;
	while ((de = ReadDirExtended(d, base, LOG)) != NULL)
	{
		if (de->d_name[0] == '\0' || strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		found = psprintf("%s/%s", base, de->d_name);
		n++;
	}
	FreeDir(d);
	if (n != 1 || !store_allocated_objects())
		return;
	if (rename(found, dir) != 0)
	{
		/* another process may have adopted it meanwhile */
		if (stat(dir, &sb) == 0)
			return;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rename \"%s\" to \"%s\": %m", found, dir)));
	}
	fsync_fname(base, true);
	ereport(LOG,
			(errmsg("hummock_stream store \"%s\" taken over as \"%s\"", found, dir),
			 errdetail("The extension's catalog refers to objects and its own directory was missing, as after pg_upgrade.")));
}

/*
 * Remove the object directories of earlier incarnations of the extension
 * in this database (left behind by a crash between DROP EXTENSION's commit
 * and its cleanup).  Caller must be in a transaction.
 */
void
HsHummockRemoveOldIncarnations(void)
{
	char		base[MAXPGPATH];
	DIR		   *d;
	struct dirent *de;
	List	   *doomed = NIL;
	ListCell   *lc;

	check_incarnation();
	adopt_upgraded_store();
	snprintf(base, sizeof(base), "%s/%u", HS_DATA_DIR, MyDatabaseId);
	d = AllocateDir(base);
	if (d == NULL)
		return;					/* nothing written yet */
	while ((de = ReadDirExtended(d, base, LOG)) != NULL)
	{
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name) ||
			de->d_name[0] == '\0')
			continue;
		if (strtoul(de->d_name, NULL, 10) != cached_ext_oid)
			doomed = lappend(doomed, psprintf("%s/%s", base, de->d_name));
	}
	FreeDir(d);
	foreach(lc, doomed)
	{
		ereport(LOG,
				(errmsg("removing objects of a dropped hummock_stream store in \"%s\"",
						(char *) lfirst(lc))));
		HsWalLogRemoveTree((char *) lfirst(lc));
		if (!rmtree((char *) lfirst(lc), true))
			ereport(WARNING,
					(errmsg("could not remove \"%s\"", (char *) lfirst(lc))));
	}
}

/* Open the object directory through env, once per process and incarnation. */
static HsObjectStore *
open_store(HsObjectStore **store, HsEnv *env)
{
	check_incarnation();
	if (*store == NULL)
		adopt_upgraded_store();
	if (*store == NULL)
	{
		char		dir[MAXPGPATH];
		HsStatus	st;
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
		bool		ok;

		object_dir(dir, sizeof(dir));
		ok = HsObjectStoreOpen(env, dir, store, &st);
		MemoryContextSwitchTo(old);
		HS_CHECK(ok, &st);
	}
	return *store;
}

HsObjectStore *
HsHummockObjectStore(void)
{
	return open_store(&object_store, HsEnvPgSession());
}

HsObjectStore *
HsHummockObjectStoreForWrite(void)
{
	return open_store(&write_store, HsEnvPgTransient());
}

HsSstCache *
HsHummockSstCache(void)
{
	if (sst_cache == NULL)
	{
		MemoryContext cxt = AllocSetContextCreate(TopMemoryContext,
												  "hummock sst cache",
												  ALLOCSET_DEFAULT_SIZES);

		HsEnv	   *env = HsEnvPgForContext(cxt);

		if (block_cache == NULL && hs_block_cache_size_kb > 0)
			block_cache = HsBlockCacheCreate(env, (size_t) hs_block_cache_size_kb * 1024);
		sst_cache = HsSstCacheCreate(env, HsHummockObjectStore(),
									 HS_SST_CACHE_CAPACITY, block_cache);
		HsSstCacheSetByteCapacity(sst_cache,
								  (size_t) hs_sst_reader_cache_size_kb * 1024);
		/* the object store above set cached_ext_oid */
		HsSstCacheSetSecondary(sst_cache,
							   HsSharedBlockCacheFor(MyDatabaseId, cached_ext_oid));
		/* iterators an error abandons are destroyed at abort */
		HsSstCacheSetIterHooks(sst_cache, HsIterOwnerHooks());
	}
	return sst_cache;
}

static bool
alloc_object_id(void *arg, uint64_t *object_id, HsStatus *st)
{
	*object_id = HsHummockAllocObjectId();
	return true;
}

void
HsHummockWriteContext(HsSstWriteContext *ctx)
{
	HsSstWriteContextInit(ctx);
	ctx->store = HsHummockObjectStoreForWrite();
	ctx->alloc_id = alloc_object_id;
	ctx->alloc_arg = NULL;
	ctx->sst.block_size = (uint32) hs_sst_block_size_kb * 1024;
	ctx->sst.compression = (HsCompression) hs_sst_compression;
	ctx->sst.zstd_level = hs_sst_zstd_level;
	ctx->sst.bloom_bits_per_key = (uint32) hs_sst_bloom_bits_per_key;
}

uint64
HsHummockAllocObjectId(void)
{
	Oid			seq = catalog_relid("object_id_seq");
	uint64		id;

	/*
	 * While the id is being allocated, protect every object (floor 0); then
	 * lower the floor to the first id this process holds in flight.  GC reads
	 * the sequence before the pins and deletes only ids at or below what it
	 * read, so an id allocated after that is safe too.
	 */
	uint64		floor = HsPinInflightFloor();
	HsUserContext owner;

	if (floor == PG_UINT64_MAX)
		HsPinInflightObjects(MyDatabaseId, 0);
	HsBecomeExtensionOwner(&owner);
	id = (uint64) DatumGetInt64(DirectFunctionCall1(nextval_oid,
													ObjectIdGetDatum(seq)));
	HsRestoreUser(&owner);
	HsPinSetInflightObjects(MyDatabaseId, Min(floor, id));
	return id;
}

/* ---------------------------------------------------------------------
 * The version catalog for GC
 * ---------------------------------------------------------------------
 */

uint64
HsHummockObjectIdHighWater(void)
{
	bool		isnull;
	uint64		id;

	SPI_connect();
	if (SPI_execute("SELECT last_value FROM hummock_stream.object_id_seq", true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the hummock object id sequence");
	id = (uint64) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											  SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return id;
}

int
HsHummockStaleObjects(HsStaleObject **out)
{
	MemoryContext caller = CurrentMemoryContext;
	int			n;

	SPI_connect();
	if (SPI_execute("SELECT object_id, stale_since, xmin::text::bigint FROM hummock_stream.stale_objects",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read hummock stale objects");
	n = (int) SPI_processed;
	*out = MemoryContextAlloc(caller, sizeof(HsStaleObject) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		(*out)[i].object_id = (uint64) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
																   SPI_tuptable->tupdesc, 1, &isnull));
		(*out)[i].stale_since = (uint64) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
																	 SPI_tuptable->tupdesc, 2, &isnull));
		/* the transaction that made it stale (it inserted the row) */
		(*out)[i].stale_xid = (TransactionId) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
																		  SPI_tuptable->tupdesc, 3, &isnull));
	}
	SPI_finish();
	return n;
}

void
HsHummockForgetStaleObject(uint64 object_id)
{
	Datum		arg = Int64GetDatum((int64) object_id);
	Oid			argtype = INT8OID;

	SPI_connect();
	if (SPI_execute_with_args("DELETE FROM hummock_stream.stale_objects WHERE object_id = $1",
							  1, &argtype, &arg, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not delete a hummock stale object row");
	SPI_finish();
}

/*
 * Deltas older than the newest checkpoint are needed only by processes
 * whose cache is older still: keep a margin of HS_VERSION_DELTA_KEEP for
 * them (a process further behind reloads the checkpoint), and the
 * checkpoints of the last HS_VERSION_CHECKPOINT_INTERVAL versions.
 */
uint64
HsHummockTrimDeltas(void)
{
	uint64		n;

	SPI_connect();
	if (SPI_execute("DELETE FROM hummock_stream.version_delta"
					" WHERE version_id <= (SELECT max(version_id) FROM hummock_stream.version_checkpoint) - "
					CppAsString2(HS_VERSION_DELTA_KEEP),
					false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not trim hummock version deltas");
	n = SPI_processed;
	if (SPI_execute("DELETE FROM hummock_stream.version_checkpoint"
					" WHERE version_id < (SELECT max(version_id) FROM hummock_stream.version_checkpoint) - "
					CppAsString2(HS_VERSION_CHECKPOINT_INTERVAL),
					false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not trim hummock version checkpoints");
	SPI_finish();
	return n;
}

/* Hits and misses of this process's block cache since it started. */
void
HsHummockBlockCacheStats(uint64 *hits, uint64 *misses)
{
	uint64_t	h = 0,
				m = 0;

	if (block_cache != NULL)
		HsBlockCacheStats(block_cache, &h, &m);
	*hits = h;
	*misses = m;
}
