/*-------------------------------------------------------------------------
 *
 * gc.c
 *	  Deleting hummock objects that no version, reader or writer can reach.
 *
 * An object may be deleted only when nothing can reach it (invariant 2):
 *
 *	- a *stale* object (recorded in hummock_stream.stale_objects by the
 *	  commit of the version that stopped referencing it, in the same
 *	  transaction) is deleted once no process pins a version older than
 *	  stale_since: every pinned version is then at least as new as the
 *	  version that dropped it, and so does not reference it either;
 *	- any other object that the newest version does not reference is an
 *	  *orphan*: written by a sync whose commit never happened (an aborted
 *	  transaction, a crash).  It is deleted only if its id is at most the
 *	  sequence value read at the start of the pass and below every
 *	  process's in-flight floor (db_state.c), so an object being written
 *	  right now is never taken for an orphan.
 *
 * The order matters: the sequence is read before the pins, the pins before
 * the version, and the directory last.
 *
 * Deleting a file is not transactional; deleting its stale_objects row is.
 * A crash between the two leaves either a row for a missing file (the
 * next pass deletes the row, ignoring "not found") or a file without row,
 * which is then an orphan.  Either way nothing reachable is deleted.
 *
 * src/meta/gc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/gc.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/pg/wal_files.h"

typedef struct OrphanScan
{
	HTAB	   *referenced;		/* object ids the version references */
	uint64		max_id;			/* delete only ids <= this */
	uint64		inflight_floor; /* and < this */
	HTAB	   *stale;			/* ids still pending in stale_objects */
	List	   *doomed;			/* HsObjectEntry * to delete */
	HsGcResult *result;
} OrphanScan;

static void
add_ids(HTAB *set, HsSstInfo *const *ssts, int n)
{
	for (int i = 0; i < n; i++)
		hash_search(set, &ssts[i]->object_id, HASH_ENTER, NULL);
}

/* Every object id v references (levels and change logs), as a set. */
static HTAB *
referenced_objects(const HsVersion *v)
{
	HASHCTL		ctl;
	HTAB	   *set;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(uint64);
	ctl.entrysize = sizeof(uint64);
	set = hash_create("hummock referenced objects", 1024, &ctl, HASH_ELEM | HASH_BLOBS);
	for (int i = 0; i < v->n_sub_levels; i++)
		add_ids(set, v->sub_levels[i].ssts, v->sub_levels[i].n_ssts);
	for (int i = 0; i < HS_MAX_LEVEL; i++)
		add_ids(set, v->levels[i].ssts, v->levels[i].n_ssts);
	for (int i = 0; i < v->n_change_logs; i++)
		for (int j = 0; j < v->change_logs[i].n_entries; j++)
		{
			const HsChangeLogEntry *e = v->change_logs[i].entries[j];

			add_ids(set, e->new_ssts, e->n_new);
			add_ids(set, e->old_ssts, e->n_old);
		}
	return set;
}

static bool
orphan_candidate(void *arg, const HsObjectEntry *e)
{
	OrphanScan *scan = (OrphanScan *) arg;
	bool		found;

	if (!e->temporary)
	{
		hash_search(scan->referenced, &e->object_id, HASH_FIND, &found);
		if (found)
			return true;
	}
	hash_search(scan->stale, &e->object_id, HASH_FIND, &found);
	if (found)
		return true;			/* handled by the stale rule */
	if (e->object_id > scan->max_id || e->object_id >= scan->inflight_floor)
	{
		scan->result->inflight_kept++;
		return true;
	}
	scan->doomed = lappend(scan->doomed, memcpy(palloc(sizeof(HsObjectEntry)),
												e, sizeof(HsObjectEntry)));
	return true;
}

static void
remove_object(HsObjectStore *store, uint64 id, bool temporary)
{
	HsStatus	st;

	if (!HsObjectStoreRemove(store, id, temporary, &st) && st.code != HS_NOT_FOUND)
		HsStatusReport(WARNING, &st);
}

void
HsHummockCollectGarbage(HsGcResult *result)
{
	HsObjectStore *store = HsHummockObjectStore();
	HsPinSummary pins;
	HsVersion  *version;
	uint64		max_id;
	uint64		keep_since;
	OrphanScan	scan;
	HASHCTL		ctl;
	HsStatus	st;
	bool		found;
	ListCell   *lc;
	HsStaleObject *stale;
	int			nstale;

	memset(result, 0, sizeof(*result));

	/* 1. the sequence: ids allocated after this point are not touched */
	max_id = HsHummockObjectIdHighWater();

	/* 2. pins: versions in use and objects being written */
	HsPinSummarize(MyDatabaseId, &pins);

	/*
	 * 3. the newest version.  A reader that pins after the summary pins a
	 * version at least as new as the one published then, so stale objects
	 * up to that id are out of its reach.
	 */
	version = HsHummockCurrentVersion();
	keep_since = Min(pins.min_version_id, pins.published_version_id);
	scan.referenced = referenced_objects(version);

	/* stale objects that no pinned version can reach */
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(uint64);
	ctl.entrysize = sizeof(uint64);
	scan.stale = hash_create("hummock stale objects", 64, &ctl, HASH_ELEM | HASH_BLOBS);
	nstale = HsHummockStaleObjects(&stale);
	for (int i = 0; i < nstale; i++)
	{
		uint64		id = stale[i].object_id;

		hash_search(scan.referenced, &id, HASH_FIND, &found);
		if (stale[i].stale_since <= keep_since && !found)
		{
			/* standby queries older than the staleness conflict (wal_files.c) */
			HsWalSetRemoveConflict(stale[i].stale_xid);
			remove_object(store, id, false);
			HsWalSetRemoveConflict(InvalidTransactionId);
			HsHummockForgetStaleObject(id);
			result->stale_deleted++;
		}
		else
		{
			hash_search(scan.stale, &id, HASH_ENTER, NULL);
			result->stale_kept++;
		}
	}

	/* 4. orphans: whatever else the directory holds */
	scan.max_id = max_id;
	scan.inflight_floor = pins.min_inflight_object_id;
	scan.doomed = NIL;
	scan.result = result;
	HS_CHECK(HsObjectStoreList(store, orphan_candidate, &scan, &st), &st);
	foreach(lc, scan.doomed)
	{
		HsObjectEntry *e = (HsObjectEntry *) lfirst(lc);

		remove_object(store, e->object_id, e->temporary);
		result->orphans_deleted++;
		result->bytes_deleted += e->size;
	}

	hash_destroy(scan.stale);
	HsVersionUnref(version);

	/* 5. the catalog: deltas and checkpoints no process needs any more */
	result->deltas_trimmed = HsHummockTrimDeltas();
}

PG_FUNCTION_INFO_V1(hummock_stream_gc);

/*
 * hummock_stream.gc(): one GC pass, with what it did.
 */
Datum
hummock_stream_gc(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	HsGcResult	r;
	Datum		values[6];
	bool		nulls[6] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	HsHummockCollectGarbage(&r);
	values[0] = Int64GetDatum(r.stale_deleted);
	values[1] = Int64GetDatum(r.stale_kept);
	values[2] = Int64GetDatum(r.orphans_deleted);
	values[3] = Int64GetDatum(r.inflight_kept);
	values[4] = Int64GetDatum(r.bytes_deleted);
	values[5] = Int64GetDatum(r.deltas_trimmed);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
