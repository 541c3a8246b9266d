/*-------------------------------------------------------------------------
 *
 * read_epoch.c
 *	  Which epoch a read of a relation USING hummock sees.
 *
 * A scan reads its relation at one epoch, decided when the scan starts
 * (and pinned, with the version, until the transaction ends, so that
 * compaction keeps what it reads):
 *
 *	- hummock_stream.query_epoch, if set (time travel): a relation that has
 *	  not committed that epoch yet is waited for, up to
 *	  hummock_stream.wait_timeout (woken by commits); then, or for an epoch
 *	  older than the relation's safe epoch, an error names the relation;
 *	- with query_consistency = 'global', one epoch per statement for every
 *	  relation: the newest aligned epoch (partial_graph.c) at or below the
 *	  oldest committed epoch of the relations USING hummock that committed
 *	  within time_travel_retention and whose graphs advance (a stalled or
 *	  failing relation is read at its own epoch instead of dragging every
 *	  read below it), and a view created after that epoch at its first
 *	  epoch;
 *	- with 'per_table', each relation at its own committed epoch.
 *
 * REPEATABLE READ and SERIALIZABLE transactions keep the epoch of each
 * relation's first scan until they end, and with 'global' one global epoch
 * for the whole transaction (relations first read in later statements are
 * read at it too).
 *
 * src/batch/read_epoch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/tsmapi.h"

#include "access/heapam.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "catalog/storage.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "optimizer/plancat.h"
#include "pgstat.h"
#include "parser/parsetree.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/smgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "hummock_stream/batch/parallel_scan.h"
#include "hummock_stream/batch/read_epoch.h"
#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/compactor.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/user_iter.h"
#include "hummock_stream/storage/version_read.h"

uint64		hs_query_epoch = 0;
char	   *hs_query_epoch_string = NULL;
int			hs_query_consistency = HS_CONSISTENCY_GLOBAL;

/* hummock_stream.query_epoch: a uint64, or 0/empty for "unset" */
bool
HsQueryEpochCheck(char **newval, void **extra, GucSource source)
{
	char	   *end;
	unsigned long long v;

	if (*newval == NULL || (*newval)[0] == '\0')
		v = 0;
	else
	{
		errno = 0;
		v = strtoull(*newval, &end, 10);
		if (errno != 0 || *end != '\0' || (*newval)[0] == '-')
		{
			GUC_check_errdetail("An epoch is a non-negative 64-bit integer; 0 means unset.");
			return false;
		}
	}
	*extra = malloc(sizeof(uint64));
	if (*extra == NULL)
		return false;
	*(uint64 *) *extra = (uint64) v;
	return true;
}

void
HsQueryEpochAssign(const char *newval, void *extra)
{
	hs_query_epoch = extra ? *(uint64 *) extra : 0;
}


/*
 * Epochs chosen in this transaction, by relation: REPEATABLE READ and
 * SERIALIZABLE transactions read each relation at the epoch of its first
 * scan until they end.  Lives in TopTransactionContext.
 */
typedef struct XactEpoch
{
	Oid			relid;			/* hash key */
	HsEpoch		epoch;
} XactEpoch;

static HTAB *xact_epochs = NULL;

static void
forget_xact_epochs(void *arg)
{
	xact_epochs = NULL;
}

static XactEpoch *
xact_epoch_entry(Oid relid, bool *found)
{
	if (xact_epochs == NULL)
	{
		HASHCTL		ctl;
		MemoryContextCallback *cb;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(XactEpoch);
		ctl.hcxt = TopTransactionContext;
		xact_epochs = hash_create("hummock transaction epochs", 16, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		cb = MemoryContextAlloc(TopTransactionContext, sizeof(*cb));
		cb->func = forget_xact_epochs;
		cb->arg = NULL;
		MemoryContextRegisterResetCallback(TopTransactionContext, cb);
	}
	return hash_search(xact_epochs, &relid, HASH_ENTER, found);
}

static HsEpoch scan_epoch_now(Relation rel, const HsVersion *v);

/*
 * The epoch a scan of rel reads at: decided at the first scan of the
 * relation in a REPEATABLE READ or SERIALIZABLE transaction and kept for
 * the transaction; decided per scan otherwise.
 */
static HsEpoch
scan_epoch(Relation rel, const HsVersion *v)
{
	XactEpoch  *e;
	bool		found;

	if (!IsolationUsesXactSnapshot())
		return scan_epoch_now(rel, v);
	e = xact_epoch_entry(RelationGetRelid(rel), &found);
	if (!found)
		e->epoch = scan_epoch_now(rel, v);
	return e->epoch;
}

/*
 * Add to the n views of ids (room for max) the views that read one of
 * them, transitively; returns how many there are now.
 */
static int
add_readers(uint32 *ids, int n, int max)
{
	for (int i = 0; i < n; i++)
	{
		List	   *readers = HsCatalogReaders((Oid) ids[i]);
		ListCell   *lc;

		foreach(lc, readers)
		{
			uint32		r = (uint32) lfirst_oid(lc);
			bool		known = false;

			for (int k = 0; k < n && !known; k++)
				known = ids[k] == r;
			if (!known && n < max)
				ids[n++] = r;
		}
		list_free(readers);
	}
	return n;
}

/*
 * The global epoch: the oldest committed epoch of the database's relations
 * USING hummock, so that every relation read at it is mutually consistent;
 * for the views, the newest aligned epoch at or below it (partial_graph.c:
 * a view read at an epoch whose round it skipped shows an older snapshot).
 * Tables of the store that are not relations (test tables, state tables of
 * jobs still being created later) do not hold it back, and neither does a
 * relation that has not committed within hummock_stream.time_travel_retention
 * (it is read at its own committed epoch instead): a stalled relation must
 * not drag every read below what compaction keeps.  A view whose graph
 * failed since its last commit is such a stalled relation at once (the
 * barrier manager retries it, maybe for long): a failing view never holds
 * back the reads of the others.  Nor do the views that read a stalled one,
 * directly or through others: they wait for its next commit, and would
 * hold back every read as long as it fails (any role can make its own view
 * fail).  A view the barrier manager runs no graph for is stalled too: its
 * job is being rebuilt (REFRESH of a large view would hold back every
 * read for as long as it backfills), or not picked up yet.
 *
 * And the global epoch never goes back: a relation that stalled while the
 * others went on (left out as above, or a new view whose backfill began
 * before the global epoch of now) would take it back, behind what a read or
 * a wait() of the session has seen, when it commits again.  So a relation
 * whose committed epoch is below the highest global epoch computed so far
 * (the floor, kept in shared memory with the version it was computed from)
 * is read at its own committed epoch until it catches up.
 */
uint64
HsGlobalReadEpoch(const HsVersion *v)
{
	HsEpoch		min_view = 0;	/* of the views the manager runs a graph of */
	HsEpoch		min_other = 0;	/* of the other relations */
	bool		any_view = false;
	bool		any_other = false;
	HsEpoch		min;
	HsEpoch		horizon = HsEpochMsAgo(hs_time_travel_retention_ms);
	uint32		failed[HS_MAX_GRAPH_STATUS];
	int			nfailed = 0;
	uint32		running[HS_MAX_GRAPH_STATUS];
	int			nrunning = -1;
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	HsEpoch		floor = 0;

	if (db != NULL)
	{
		nfailed = HsDbStateStalledGraphs(db, failed, lengthof(failed));
		floor = HsDbStateGlobalFloor(db, v->id);
		/* streaming views without a graph (being rebuilt) are stalled too */
		nrunning = HsDbStateRunningGraphs(db, running, lengthof(running));
		if (nrunning > 0)
			qsort(running, nrunning, sizeof(uint32), oid_cmp);
		for (int i = 0; nrunning >= 0 && i < v->n_tables && nfailed < (int) lengthof(failed); i++)
		{
			uint32		id = (uint32) v->tables[i].table_id;
			bool		runs = nrunning > 0 &&
				bsearch(&id, running, nrunning, sizeof(uint32), oid_cmp) != NULL;

			if (!runs && v->tables[i].committed_epoch >= horizon &&
				get_rel_relkind((Oid) v->tables[i].table_id) == RELKIND_MATVIEW &&
				HsRelidIsHummock((Oid) v->tables[i].table_id))
				failed[nfailed++] = v->tables[i].table_id;
		}
	}
	if (nfailed > 0 && !IsInParallelMode())
		nfailed = add_readers(failed, nfailed, lengthof(failed));
	for (int i = 0; i < v->n_tables; i++)
	{
		bool		is_failed = false;
		HsEpoch		c = v->tables[i].committed_epoch;
		uint32		id = (uint32) v->tables[i].table_id;

		if (c < horizon || c < floor || !HsRelidIsHummock((Oid) id))
			continue;
		for (int k = 0; k < nfailed && !is_failed; k++)
			is_failed = (failed[k] == id);
		if (is_failed)
			continue;
		if (nrunning > 0 && bsearch(&id, running, nrunning, sizeof(uint32), oid_cmp) != NULL)
		{
			if (!any_view || c < min_view)
				min_view = c;
			any_view = true;
		}
		else
		{
			if (!any_other || c < min_other)
				min_other = c;
			any_other = true;
		}
	}
	if (any_view && db != NULL)
	{
		/*
		 * The views: the newest aligned epoch at or below their oldest
		 * committed one, where each of them holds one round's snapshot
		 * exactly (HsGlobalEpochOf reads one that does not at its own
		 * epoch).  None in the ring: their oldest committed epoch, as good
		 * as it gets.  The other relations (the test module's tables) are
		 * committed when they are loaded, not by barriers.
		 */
		HsEpoch		aligned = HsDbStateAlignedAtOrBelow(db, min_view);

		if (aligned != 0)
			min_view = aligned;
	}
	if (any_view && any_other)
		min = Min(min_view, min_other);
	else
		min = any_view ? min_view : min_other;
	if ((any_view || any_other) && db != NULL)
		HsDbStateRaiseGlobalFloor(db, v->id, min);
	return min;
}

/*
 * A relation left out of g (stalled, below it) reads at its own epoch; a
 * view created after g at its first epoch (its state at creation) rather
 * than as empty; a view that does not hold g's snapshot exactly (it
 * started over, or began taking every aligned round only after g) at its
 * own epoch too, rather than at its older state; anything else at g.
 */
uint64
HsGlobalEpochOf(Oid relid, uint64 committed, uint64 first, uint64 g)
{
	HsDbState  *db;

	if (g == 0 || committed < g)
		return committed;
	if (first > g)
		return Min(first, committed);
	if (first != 0 && committed > g && (db = HsDbStateGet(MyDatabaseId, false)) != NULL &&
		!HsDbStateGraphExactAt(db, (uint32) relid, g))
		return committed;
	return g;
}

/*
 * The statement's global epoch, computed once per snapshot a statement
 * reads with (each query of a function or DO block takes its own under
 * READ COMMITTED, as each statement does), and once per transaction in a
 * REPEATABLE READ or SERIALIZABLE one: every relation the statement (the
 * transaction) reads is read at it, whatever versions are published
 * between its scans' starts (the epoch stays readable in them: each scan
 * pins its version until the transaction ends).  A snapshot is known by
 * the count of transactions completed when it was taken and its xmin and
 * xmax: a new version comes with such a completion, so a later snapshot
 * that equals an earlier one in these may keep its epoch.  The epochs of
 * the last few snapshots are kept, the statement's own and those of the
 * queries of functions it calls, so that its scans after such a call still
 * read at its epoch.  Recomputed while it is 0 (nothing committed yet).
 */
typedef struct SnapshotEpoch
{
	uint64		completions;	/* the snapshot's snapXactCompletionCount */
	TransactionId xmin;
	TransactionId xmax;
	HsEpoch		epoch;
} SnapshotEpoch;

/* (a statement's own, and those of the queries of functions it calls) */
#define SNAPSHOT_EPOCHS 8

static HsEpoch
statement_global_epoch(const HsVersion *v)
{
	static LocalTransactionId lxid = InvalidLocalTransactionId;
	static SnapshotEpoch known[SNAPSHOT_EPOCHS];
	static int	n_known = 0;
	static int	next = 0;
	Snapshot	snap = ActiveSnapshotSet() ? GetActiveSnapshot() : NULL;
	SnapshotEpoch *e;

	if (lxid != MyProc->lxid)
	{
		lxid = MyProc->lxid;
		n_known = 0;
		next = 0;
	}
	if (snap == NULL)
		return HsGlobalReadEpoch(v);
	if (IsolationUsesXactSnapshot() && n_known > 0 && known[0].epoch != 0)
		return known[0].epoch;	/* (one for the transaction) */
	for (int i = 0; i < n_known; i++)
	{
		e = &known[i];
		if (e->completions == snap->snapXactCompletionCount && e->xmin == snap->xmin &&
			e->xmax == snap->xmax && e->epoch != 0)
			return e->epoch;
	}
	e = &known[IsolationUsesXactSnapshot() ? 0 : next];
	if (!IsolationUsesXactSnapshot())
	{
		next = (next + 1) % SNAPSHOT_EPOCHS;
		n_known = Min(n_known + 1, SNAPSHOT_EPOCHS);
	}
	else
		n_known = 1;
	e->completions = snap->snapXactCompletionCount;
	e->xmin = snap->xmin;
	e->xmax = snap->xmax;
	e->epoch = HsGlobalReadEpoch(v);
	return e->epoch;
}

/*
 * What the catalog says of a streaming view (stream_jobs): its first epoch
 * and its key columns; first_epoch 0 if rel is not a view.  Neither ever
 * changes, so it is cached for the session (by relid and relfilenode,
 * which a reused OID would not share, and whether rel is populated: an
 * unpopulated materialized view has no job until REFRESH attaches one).
 */
const HsViewInfo *
HsViewInfoOf(Relation rel)
{
	static HTAB *cache = NULL;
	HsViewInfo *e;
	bool		found;
	Oid			relid = RelationGetRelid(rel);

	if (cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(HsViewInfo);
		cache = hash_create("hummock_stream view info", 64, &ctl,
							HASH_ELEM | HASH_BLOBS);
	}
	e = hash_search(cache, &relid, HASH_ENTER, &found);
	if (found && e->relfilenode == rel->rd_node.relNode &&
		e->populated == RelationIsPopulated(rel))
		return e;
	e->relfilenode = rel->rd_node.relNode;
	/* REFRESH of a materialized view made WITH NO DATA makes it a view */
	e->populated = RelationIsPopulated(rel);
	e->first_epoch = 0;
	e->creating = false;
	e->n_key_columns = 0;
	{
		MemoryContext old = MemoryContextSwitchTo(CurrentMemoryContext);
		HsJobRow	job;

		if (HsCatalogReadJob(relid, &job))
		{
			e->first_epoch = job.first_epoch;
			/* its first epoch is still to come: ask again next time */
			if (strcmp(job.state, "creating") == 0)
			{
				e->creating = true;
				e->relfilenode = InvalidOid;
			}
			for (int i = 0; i < job.n_key_columns && i < HS_VIEW_MAX_KEY_COLUMNS; i++)
				e->key_columns[e->n_key_columns++] = job.key_columns[i];
		}
		MemoryContextSwitchTo(old);
	}
	return e;
}

/* Scans recorded for EXPLAIN ANALYZE (HsScanRecordingStart). */
#define RECORDED_SCANS 64
typedef struct RecordedScan
{
	Oid			relid;
	uint64		epoch;
} RecordedScan;
static bool recording = false;
static int	n_recorded = 0;
static RecordedScan recorded[RECORDED_SCANS];
static void record_scan(Oid relid, uint64 epoch);

/* Raise the error of reading a view whose creation has not finished. */
void
HsRejectReadOfCreatingView(Relation rel)
{
	if (HsViewInfoOf(rel)->creating)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("streaming materialized view \"%s\" is being created",
						RelationGetRelationName(rel)),
				 errhint("Wait for it with hummock_stream.wait('%s'), or watch hummock_stream.create_progress.",
						 RelationGetRelationName(rel))));
}

/* The epoch to read rel at now; raises the errors of time travel. */
static HsEpoch
scan_epoch_now(Relation rel, const HsVersion *v)
{
	HsTableId	t = (HsTableId) RelationGetRelid(rel);
	HsEpoch		committed = 0;
	HsStatus	st;

	if (!HsVersionCommittedEpoch(v, t, &committed))
	{
		HsRejectReadOfCreatingView(rel);
		return 0;				/* never committed: empty */
	}
	if (hs_query_epoch == 0)
	{
		if (hs_query_consistency == HS_CONSISTENCY_GLOBAL)
		{
			HsEpoch		g = statement_global_epoch(v);

			if (g == 0 || committed < g)
				return committed;
			return HsGlobalEpochOf(RelationGetRelid(rel), committed,
								   HsViewInfoOf(rel)->first_epoch, g);
		}
		return committed;
	}
	{
		HsEpoch		e = (HsEpoch) hs_query_epoch;

		if (e > committed)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("relation \"%s\" is not committed at epoch %llu",
							RelationGetRelationName(rel), (unsigned long long) e),
					 errdetail("Its committed epoch is %llu (after waiting hummock_stream.wait_timeout, %d ms).",
							   (unsigned long long) committed, hs_wait_timeout_ms)));
		if (!HsVersionCheckReadEpoch(v, t, e, &st))
			ereport(ERROR,
					(errcode(ERRCODE_SNAPSHOT_TOO_OLD),
					 errmsg("relation \"%s\" cannot be read at epoch %llu",
							RelationGetRelationName(rel), (unsigned long long) e),
					 errdetail("%s", st.msg)));
		return e;
	}
}

/*
 * A read at hummock_stream.query_epoch of a relation that has not committed
 * that epoch yet waits for it, up to hummock_stream.wait_timeout, and
 * returns the newest version then (scan_epoch reports a relation still
 * behind).  v is the pinned version to start from; the pin of the oldest
 * one stays for the transaction.
 */
static HsVersion *
wait_for_query_epoch(Relation rel, HsVersion *v)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   hs_wait_timeout_ms);
	HsEpoch		committed;
	HsDbState  *db = HsDbStateGet(MyDatabaseId, true);

	for (;;)
	{
		long		left;

		if (!HsVersionCommittedEpoch(v, (HsTableId) RelationGetRelid(rel), &committed) ||
			committed >= (HsEpoch) hs_query_epoch)
			return v;
		left = (long) TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
		if (left <= 0)
			return v;
		/* woken when a newer version is published (a commit) */
		(void) HsDbStateWaitVersion(db, v->id + 1, left);
		CHECK_FOR_INTERRUPTS();
		HsVersionUnref(v);
		v = HsHummockPinnedVersion(HS_EPOCH_MAX);
	}
}

/*
 * The version (referenced) and epoch a new scan of rel reads; pins the
 * epoch so that compaction keeps what it reads until the transaction ends.
 */
void
HsScanResolve(Relation rel, struct HsVersion **version, uint64 *epoch)
{
	HsEpoch		committed;

	*version = HsHummockPinnedVersion(HS_EPOCH_MAX);
	if (!HsVersionCommittedEpoch(*version, (HsTableId) RelationGetRelid(rel), &committed))
	{
		/*
		 * Never committed, as far as the published version says: a view
		 * whose creation committed after the last publish would read as
		 * empty.  The newest version has it (the pin above keeps older
		 * objects; this one's newer objects are referenced).
		 */
		HsVersionUnref(*version);
		*version = HsHummockNewestVersion();
	}
	if (hs_query_epoch != 0)
		*version = wait_for_query_epoch(rel, *version);
	*epoch = scan_epoch(rel, *version);
	if (*epoch != 0)
		HsPinVersion(MyDatabaseId, (*version)->id, *epoch);
	if (recording)
		record_scan(RelationGetRelid(rel), *epoch);
}

/*
 * The epochs scans read while a recording is on (EXPLAIN ANALYZE shows
 * them): the first one of each relation, up to RECORDED_SCANS relations.
 */
static void
record_scan(Oid relid, uint64 epoch)
{
	for (int i = 0; i < n_recorded; i++)
		if (recorded[i].relid == relid)
			return;
	if (n_recorded < RECORDED_SCANS)
	{
		recorded[n_recorded].relid = relid;
		recorded[n_recorded].epoch = epoch;
		n_recorded++;
	}
}

void
HsScanRecordingStart(void)
{
	recording = true;
	n_recorded = 0;
}

bool
HsScanRecorded(Oid relid, uint64 *epoch)
{
	for (int i = 0; i < n_recorded; i++)
		if (recorded[i].relid == relid)
		{
			*epoch = recorded[i].epoch;
			return true;
		}
	return false;
}

void
HsScanRecordingStop(void)
{
	recording = false;
}

