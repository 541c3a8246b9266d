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

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/coding.h"

/* The cached version of MyDatabaseId, and the context that holds it. */
static MemoryContext HummockVersionContext = NULL;
static HsVersion *cached_version = NULL;

/* A version committed by this transaction, installed at commit. */
static HsVersion *pending_version = NULL;
static bool xact_callback_registered = false;

static HsObjectStore *object_store = NULL;

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

static void
apply_delta_row(uint64 version_id, HsSlice data, void *arg)
{
	HsVersion **cur = (HsVersion **) arg;
	HsVersionDelta *delta;
	HsVersion  *next;
	HsStatus	st;
	MemoryContext old = MemoryContextSwitchTo(version_context());

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

	if (v != NULL && v->id >= want)
		return;
	cached_version = NULL;
	if (v == NULL)
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
	scan_catalog_after("version_delta", "version_delta_pkey", 4, v->id, false,
					   apply_delta_row, &v);
	cached_version = v;
}

HsVersion *
HsHummockCurrentVersion(void)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, true);
	uint64		published = pg_atomic_read_u64(&db->version_id);

	refresh_cache(published);
	/* after a restart the published id starts at 0: make it catch up */
	if (cached_version->id > published)
		HsDbStatePublishVersion(db, cached_version->id);
	return HsVersionRef(cached_version);
}

HsVersion *
HsHummockPinnedVersion(HsEpoch epoch)
{
	uint64		pinned = HsPinPublishedVersion(MyDatabaseId, epoch);

	refresh_cache(pinned);
	return HsVersionRef(cached_version);
}

/* ---------------------------------------------------------------------
 * Commits
 * ---------------------------------------------------------------------
 */

static void
hummock_xact_callback(XactEvent event, void *arg)
{
	if (pending_version == NULL)
		return;
	if (event == XACT_EVENT_COMMIT)
	{
		HsDbState  *db = HsDbStateGet(MyDatabaseId, true);
		uint64		id = pending_version->id;

		if (cached_version == NULL || cached_version->id < id)
		{
			if (cached_version)
				HsVersionUnref(cached_version);
			cached_version = pending_version;
		}
		else
			HsVersionUnref(pending_version);
		pending_version = NULL;
		HsDbStatePublishVersion(db, id);
		/* the objects this transaction wrote are referenced now */
		HsPinClearInflightObjects();
	}
	else if (event == XACT_EVENT_ABORT)
	{
		HsVersionUnref(pending_version);
		pending_version = NULL;
	}
}

/*
 * Record the objects the old version references and the new one does not:
 * GC deletes them once no reader pins a version older than the new one.
 * Runs inside the committer's SPI connection and transaction.
 */
static void
record_stale_objects(const HsVersion *old, const HsVersion *new)
{
	uint64_t   *a,
			   *b;
	size_t		na,
				nb,
				j = 0;
	Oid			argtypes[2] = {INT8OID, INT8OID};
	Datum		args[2];

	HsVersionObjectIds(old, &a, &na);
	HsVersionObjectIds(new, &b, &nb);
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
	if (a)
		HsFree(HsHummockEnv(), a);
	if (b)
		HsFree(HsHummockEnv(), b);
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

	if (pending_version != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a transaction can commit only one hummock version delta")));
	if (!xact_callback_registered)
	{
		RegisterXactCallback(hummock_xact_callback, NULL);
		xact_callback_registered = true;
	}

	SPI_connect();
	rc = SPI_execute("SELECT version_id FROM hummock_stream.version_head FOR UPDATE",
					 false, 1);
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
	old = MemoryContextSwitchTo(version_context());
	if (!HsVersionApplyDelta(HsHummockEnv(), cached_version, delta, &next, &st))
	{
		MemoryContextSwitchTo(old);
		HsStatusReport(ERROR, &st);
	}
	MemoryContextSwitchTo(old);
	pending_version = next;

	HsBufInit(&buf, HsHummockEnv());
	HsVersionDeltaEncode(delta, &buf);
	b = (bytea *) palloc(VARHDRSZ + buf.len);
	SET_VARSIZE(b, VARHDRSZ + buf.len);
	memcpy(VARDATA(b), buf.data, buf.len);
	HsBufFree(&buf);

	args[0] = Int64GetDatum((int64) delta->id);
	args[1] = Int64GetDatum((int64) delta->prev_id);
	args[2] = CStringGetTextDatum(HsDeltaKindName(delta->kind));
	args[3] = PointerGetDatum(b);
	rc = SPI_execute_with_args("INSERT INTO hummock_stream.version_delta"
							   " (version_id, prev_id, kind, delta)"
							   " VALUES ($1, $2, $3, $4)",
							   4, argtypes, args, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "could not insert hummock version delta");
	rc = SPI_execute_with_args("UPDATE hummock_stream.version_head SET version_id = $1",
							   1, argtypes, args, NULL, false, 0);
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
	return delta->id;
}

/* ---------------------------------------------------------------------
 * Objects
 * ---------------------------------------------------------------------
 */

HsObjectStore *
HsHummockObjectStore(void)
{
	if (object_store == NULL)
	{
		char		dir[MAXPGPATH];
		HsStatus	st;
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
		bool		ok;

		snprintf(dir, sizeof(dir), "%s/%u", HS_DATA_DIR, MyDatabaseId);
		ok = HsObjectStoreOpen(HsEnvPgSession(), dir, &object_store, &st);
		MemoryContextSwitchTo(old);
		HS_CHECK(ok, &st);
	}
	return object_store;
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

	if (floor == PG_UINT64_MAX)
		HsPinInflightObjects(MyDatabaseId, 0);
	id = (uint64) DatumGetInt64(DirectFunctionCall1(nextval_oid,
													ObjectIdGetDatum(seq)));
	HsPinSetInflightObjects(MyDatabaseId, Min(floor, id));
	return id;
}
