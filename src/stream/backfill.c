/*-------------------------------------------------------------------------
 *
 * backfill.c
 *	  A streaming view's first state: its query over its inputs, computed
 *	  by pushing every input row through the view's executors, committed
 *	  at its first epoch.
 *
 * Tables are read at a snapshot S0 (the view's capture position: the job
 * then consumes their capture logs from S0 on), upstream streaming views
 * at one epoch E (its view position: it consumes their change logs from E
 * on), the newest of their committed epochs once all have committed it.
 * Rows go input after input, smallest input first (a join's big side
 * then probes the small side's state and its output follows the big
 * side's order), in chunks of BACKFILL_CHUNK_ROWS per epoch (E0, E0 + 1,
 * ...: memtables stay bounded and the shared buffer may spill), and every
 * table of the job commits at the last epoch in the caller's transaction,
 * the view's change log getting the backfill as inserts.  A rebuild
 * (replace) first deletes every row the job's tables hold, so the commit
 * replaces the old state and the view's log shows the difference.
 *
 * hummock_stream.backfill_rate_limit (the creating session's) caps the
 * source rows read per second: the backfill sleeps on its latch whenever
 * it is ahead, publishing its progress first.
 *
 * src/stream/backfill.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/tupconvert.h"
#include "catalog/pg_inherits.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/plancat.h"
#include "parser/analyze.h"
#include "parser/scansup.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/regproc.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"

#include "hummock_stream/meta/barrier_msg.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/pg/inheritance.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/meta/launcher.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/user_iter.h"
#include "hummock_stream/storage/version_read.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/compute_worker.h"
#include "hummock_stream/stream/backfill.h"
#include "hummock_stream/stream/stream_job.h"
#include "hummock_stream/stream/view_source.h"

/* Source rows per backfill epoch. */
#define BACKFILL_CHUNK_ROWS 100000

int			hs_backfill_rate_limit = 0;

/* Rows between two checks of the rate limit. */
#define RATE_CHECK_EVERY 256

/* Where the backfill reports its progress (HsBackfillSetProgress). */
static HsDbState *progress_db = NULL;
static int	progress_slot = -1;
static HsCreationStatus *progress = NULL;

/* Rows between two progress reports. */
#define PROGRESS_EVERY 4096

void
HsBackfillSetProgress(HsDbState *db, int slot, HsCreationStatus *status)
{
	progress_db = db;
	progress_slot = slot;
	progress = status;
}

/* The progress counter of source relid (-1: none). */
static int
progress_input(Oid relid)
{
	if (progress == NULL)
		return -1;
	for (int k = 0; k < progress->n_inputs; k++)
		if (progress->input[k] == relid)
			return k;
	return -1;
}

/* Count one row read of progress input k; report every PROGRESS_EVERY. */
static inline void
count_row(int k)
{
	if (k < 0)
		return;
	if (++progress->rows_read[k] % PROGRESS_EVERY == 0)
		HsDbStateCreationSet(progress_db, progress_slot, progress);
}

/*
 * Sleep while the backfill, having read rows since started, is ahead of
 * hummock_stream.backfill_rate_limit (on the latch: interrupts and
 * postmaster death end the wait).
 */
static void
throttle(int64 rows, TimestampTz started)
{
	int64		due_us;
	int64		spent_us;

	if (hs_backfill_rate_limit <= 0)
		return;
	due_us = rows * 1000000 / hs_backfill_rate_limit;
	spent_us = GetCurrentTimestamp() - started;
	if (spent_us < due_us && progress != NULL)
		HsDbStateCreationSet(progress_db, progress_slot, progress);	/* before a pause */
	while (spent_us < due_us)
	{
		long		ms = Min((due_us - spent_us + 999) / 1000, 1000);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		spent_us = GetCurrentTimestamp() - started;
	}
}

/* Delete every row t has in its store's version (in t's memtable). */
static void
delete_all_rows(HsStateTable *t)
{
	HsStreamStore *s = t->store;
	HsIterator *it;
	HsStatus	st;
	int64		n = 0;

	HS_CHECK(HsVersionTableIterator(s->version, s->cache, t->table_id, HS_EPOCH_MAX,
									NULL, NULL, NULL, &it, &st), &st);
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
	{
		HsSlice		user_key = HsFullKeyUserKey(HsIterKey(it));
		HsSlice		row = HsUserIterRow(it);

		if (++n % 1024 == 0)
			CHECK_FOR_INTERRUPTS();
		HsStateTableDelete(t, (const char *) user_key.data, (int) user_key.len,
						   (const char *) row.data, (int) row.len);
	}
	if (!HsIterStatus(it, &st))
	{
		HsIterDestroy(it);
		HsStatusReport(ERROR, &st);
	}
	HsIterDestroy(it);
}

/*
 * The pg_snapshot text of snapshot, with the current transaction (if it
 * has an xid) counted as running: the backfill sees this transaction's
 * earlier writes through its own visibility, and its later writes reach
 * the capture log under its xid, which the job must then consume.
 */
char *
HsBackfillSnapshotText(Snapshot snap)
{
	Datum		d;
	char	   *text;
	FullTransactionId own = GetTopFullTransactionIdIfAny();
	uint64		xmin,
				xmax,
				me;
	char	   *p;
	StringInfoData out;
	bool		placed = false;

	PushActiveSnapshot(snap);
	d = OidFunctionCall0Coll(F_PG_CURRENT_SNAPSHOT, InvalidOid);
	PopActiveSnapshot();
	text = DatumGetCString(DirectFunctionCall1(pg_snapshot_out, d));
	if (!FullTransactionIdIsValid(own))
		return text;

	/* "xmin:xmax:xip,xip,..." with own xid added to xip if it is below xmax */
	me = U64FromFullTransactionId(own);
	xmin = strtoull(text, &p, 10);
	xmax = strtoull(p + 1, &p, 10);
	p++;						/* past the second ':' */
	if (me >= xmax)
		return text;
	initStringInfo(&out);
	appendStringInfo(&out, UINT64_FORMAT ":" UINT64_FORMAT ":", Min(xmin, me), xmax);
	while (*p)
	{
		uint64		x = strtoull(p, &p, 10);

		if (!placed && me <= x)
		{
			if (me < x)
				appendStringInfo(&out, UINT64_FORMAT ",", me);
			placed = true;
		}
		appendStringInfo(&out, UINT64_FORMAT ",", x);
		if (*p == ',')
			p++;
	}
	if (!placed)
		appendStringInfo(&out, UINT64_FORMAT ",", me);
	out.data[--out.len] = '\0';	/* the last comma */
	return out.data;
}

static void
maybe_spill(HsStreamJob *job)
{
	HsSstWriteContext ctx;
	HsStatus	st;

	HsHummockWriteContext(&ctx);
	HS_CHECK(HsSharedBufferMaybeSpill(job->store.shared_buffer, &ctx, &st), &st);
}

/*
 * The epoch a new view reads its upstream views at (0 if it reads none):
 * the newest of their committed epochs E, once every one of them has
 * committed E or later and keeps a change log that goes on from E (it is
 * asked for here: HsViewSourcesRequestLogs; an upstream that kept none
 * starts one within two checkpoints).  Each upstream is then read at E,
 * where its state is final (it commits only above its committed epoch),
 * and the view consumes their change logs from E on.  Waited for up to
 * hummock_stream.wait_timeout, plus three checkpoint intervals for a log
 * to start.  *v (pinned) is replaced by the newest version; E is pinned
 * for this transaction, so that compaction keeps what the backfill reads.
 */
HsEpoch
HsBackfillUpstreamEpoch(List *sources, HsVersion **v)
{
	TimestampTz deadline;
	HsDbState  *db = HsDbStateGet(MyDatabaseId, true);
	HsEpoch		target = 0;
	ListCell   *lc;
	bool		any = false;

	foreach(lc, sources)
		any = any || HsRelidIsHummock(lfirst_oid(lc));
	if (!any)
		return 0;
	HsViewSourcesRequestLogs(sources);
	deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
										   (int64) hs_wait_timeout_ms +
										   3 * (int64) hs_barrier_interval_ms *
										   hs_checkpoint_frequency);
	for (;;)
	{
		Oid			behind = InvalidOid;
		const char *why = NULL;
		HsEpoch		c = 0;
		long		left;

		/* first: a change log that goes on; then: all at one epoch */
		foreach(lc, sources)
		{
			Oid			relid = lfirst_oid(lc);

			if (!HsRelidIsHummock(relid))
				continue;
			if (!HsVersionCommittedEpoch(*v, (HsTableId) relid, &c))
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("streaming materialized view \"%s\" has no committed epoch to read",
								get_rel_name(relid))));
			if (!HsViewSourceLogReady(relid, *v, &why))
			{
				behind = relid;
				break;
			}
			target = Max(target, c);
		}
		if (!OidIsValid(behind))
		{
			foreach(lc, sources)
			{
				/*
				 * (An upstream created in this transaction commits nothing
				 * more before it ends: its state at its one epoch is its
				 * state at any later one until then.  This is how a dump
				 * restored in one transaction creates a view over two
				 * views it restored.)
				 */
				if (HsRelidIsHummock(lfirst_oid(lc)) &&
					(!HsVersionCommittedEpoch(*v, (HsTableId) lfirst_oid(lc), &c) || c < target) &&
					!HsCatalogJobIsNew(lfirst_oid(lc)))
				{
					behind = lfirst_oid(lc);
					break;
				}
			}
			if (!OidIsValid(behind))
				break;
		}

		/*
		 * Waiting for a commit is waiting for ourselves when this
		 * transaction holds the version head (it committed a view's data
		 * before, outside a transaction block: in a function, a DO
		 * block): no epoch commits until it ends.
		 */
		if (HsHummockXactHoldsHead())
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("streaming materialized view \"%s\" cannot commit the epoch this view must read it at in this transaction",
							get_rel_name(behind)),
					 errdetail("This transaction committed the data of a streaming materialized view before (created in a function or a DO block), and holds the lock every commit of a view takes until it ends; a view over several streaming views reads them at one epoch, and a view over one kept from before reads its change log, which starts at a commit."),
					 errhint("Create the view in a transaction of its own (or from autocommit).")));
		left = (long) TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
		if (left <= 0)
		{
			if (why != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("the change log of streaming materialized view \"%s\" is not ready to be read",
								get_rel_name(behind)),
						 errdetail("A view over a streaming view reads its change log, which it starts when asked; %s.", why),
						 errhint("See hummock_stream.jobs for a view that is failing or slow, or raise hummock_stream.wait_timeout.")));
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("streaming materialized view \"%s\" has not committed epoch " UINT64_FORMAT " yet",
							get_rel_name(behind), (uint64) target),
					 errdetail("A view over several streaming views reads them all at the newest of their committed epochs; \"%s\" is at " UINT64_FORMAT ".",
							   get_rel_name(behind), (uint64) c),
					 errhint("See hummock_stream.jobs for a view that is failing or slow, or raise hummock_stream.wait_timeout.")));
		}
		/* woken when a newer version is published (a commit) */
		(void) HsDbStateWaitVersion(db, (*v)->id + 1, Min(left, 100));
		CHECK_FOR_INTERRUPTS();
		HsVersionUnref(*v);
		*v = HsHummockPinnedVersion(HS_EPOCH_MAX);
	}
	HsPinVersion(MyDatabaseId, (*v)->id, target);
	return target;
}

int64
HsRelationRowEstimate(Oid relid)
{
	Relation	rel = try_relation_open(relid, AccessShareLock);
	BlockNumber pages;
	double		tuples = -1;
	double		allvisfrac;

	if (rel == NULL)
		return -1;
	if (rel->rd_rel->relkind == RELKIND_RELATION || rel->rd_rel->relkind == RELKIND_MATVIEW)
		estimate_rel_size(rel, NULL, &pages, &tuples, &allvisfrac);
	else if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
	{
		/* the sum over its partitions that hold rows */
		ListCell   *lc;

		tuples = 0;
		foreach(lc, find_all_inheritors(relid, AccessShareLock, NULL))
		{
			int64		n;

			if (lfirst_oid(lc) == relid ||
				get_rel_relkind(lfirst_oid(lc)) != RELKIND_RELATION)
				continue;
			n = HsRelationRowEstimate(lfirst_oid(lc));
			if (n > 0)
				tuples += (double) n;
		}
	}
	relation_close(rel, AccessShareLock);
	return (int64) tuples;
}

/*
 * A scan of a source table at a snapshot: its rows, or for a partitioned
 * table the rows of every partition that holds rows, or for a table read
 * with its inheritance children its rows and theirs, each as a row of the
 * table (a heap tuple, so the job flattens its TOAST values).
 */
typedef struct SourceScan
{
	Relation	root;
	Snapshot	snapshot;
	List	   *leaves;			/* Oid: the tables to read */
	ListCell   *next;			/* the next of them */
	Relation	cur;			/* the one being read, or NULL */
	TableScanDesc scan;
	TupleTableSlot *cur_slot;
	TupleConversionMap *map;	/* cur's rows -> root's; NULL: the same */
	TupleTableSlot *root_slot;	/* converted rows */
} SourceScan;

static SourceScan *
source_scan_begin(Oid relid, bool with_children, Snapshot snapshot)
{
	SourceScan *s = palloc0(sizeof(SourceScan));

	s->root = table_open(relid, AccessShareLock);
	s->snapshot = snapshot;
	if (s->root->rd_rel->relkind == RELKIND_PARTITIONED_TABLE || with_children)
	{
		ListCell   *lc;

		/*
		 * The tree as it stood at the snapshot: a table attached or made a
		 * child after it brings its rows through the capture log (Inserts
		 * after the snapshot), so scanning it too would count them twice;
		 * one detached after it still holds the rows the snapshot shows,
		 * and the log has their Deletes.
		 */
		foreach(lc, HsInheritanceClosure(relid, false, snapshot))
			if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_RELATION)
				s->leaves = lappend_oid(s->leaves, lfirst_oid(lc));
	}
	else
		s->leaves = list_make1_oid(relid);
	s->next = list_head(s->leaves);
	s->root_slot = MakeSingleTupleTableSlot(RelationGetDescr(s->root), &TTSOpsHeapTuple);
	return s;
}

/* Close the table being read, if any. */
static void
source_scan_close_cur(SourceScan *s)
{
	if (s->cur == NULL)
		return;
	ExecDropSingleTupleTableSlot(s->cur_slot);
	table_endscan(s->scan);
	if (s->map)
		free_conversion_map(s->map);
	if (s->cur != s->root)
		table_close(s->cur, AccessShareLock);
	s->cur = NULL;
	s->map = NULL;
}

/* The next row (a slot valid until the next call), or NULL at the end. */
static TupleTableSlot *
source_scan_next(SourceScan *s)
{
	for (;;)
	{
		if (s->cur == NULL)
		{
			Oid			relid;

			if (s->next == NULL)
				return NULL;
			relid = lfirst_oid(s->next);
			s->next = lnext(s->leaves, s->next);
			s->cur = relid == RelationGetRelid(s->root) ? s->root :
				table_open(relid, AccessShareLock);
			s->scan = table_beginscan(s->cur, s->snapshot, 0, NULL);
			s->cur_slot = table_slot_create(s->cur, NULL);
			if (s->cur != s->root)
				s->map = convert_tuples_by_name(RelationGetDescr(s->cur),
												RelationGetDescr(s->root));
		}
		if (table_scan_getnextslot(s->scan, ForwardScanDirection, s->cur_slot))
		{
			bool		should_free;
			HeapTuple	tup;

			if (s->cur == s->root)
				return s->cur_slot;
			tup = ExecFetchSlotHeapTuple(s->cur_slot, false, &should_free);
			if (s->map)
			{
				HeapTuple	conv = execute_attr_map_tuple(tup, s->map);

				if (should_free)
					heap_freetuple(tup);
				tup = conv;
				should_free = true;
			}
			else if (!should_free)
				tup = heap_copytuple(tup);
			ExecStoreHeapTuple(tup, s->root_slot, true);
			return s->root_slot;
		}
		source_scan_close_cur(s);
	}
}

static void
source_scan_end(SourceScan *s)
{
	source_scan_close_cur(s);
	ExecDropSingleTupleTableSlot(s->root_slot);
	table_close(s->root, AccessShareLock);
	pfree(s);
}

/* The job's inputs, smallest first (ties in input order). */
static int *
inputs_by_size(HsStreamJob *job)
{
	int		   *order = palloc(sizeof(int) * job->n_inputs);
	double	   *rows = palloc(sizeof(double) * job->n_inputs);

	for (int i = 0; i < job->n_inputs; i++)
	{
		int			k = i;

		const HsStreamLeaf *leaf = job->inputs[i].leaf;

		rows[i] = HsStreamLeafIsConstant(leaf) ? (double) leaf->n_const_rows :
			(double) HsRelationRowEstimate(leaf->relid);
		while (k > 0 && rows[order[k - 1]] > rows[i])
		{
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	pfree(rows);
	return order;
}

/*
 * Backfill job (its tables at snapshot, its upstream views at view_epoch)
 * from epoch job->store.epoch on and commit its tables at the last epoch
 * used, in this transaction.  Returns that epoch.
 */
HsEpoch
HsBackfillAndCommit(HsStreamJob *job, Snapshot snapshot, HsEpoch view_epoch,
					bool replace)
{
	int64		in_chunk = 0;
	int64		rows_read = 0;
	TimestampTz started = GetCurrentTimestamp();
	int		   *order;
	HsTableId  *tables;
	int			ntables = HsStreamJobTables(job, &tables);
	HsSstWriteContext ctx;
	HsSyncResult *res;
	HsVersionDelta *delta;
	HsStatus	st;
	bool		index_at_spill;

	/* many epochs before one sync: index what spills (multi-gets probe it) */
	index_at_spill = HsSharedBufferSetIndexAtSpill(job->store.shared_buffer, true);

	/*
	 * A rebuild replaces the job's state: every row its tables have now
	 * is deleted in the first epoch (the view's change log shows the
	 * deletes with their old rows, which its downstreams consume), and the
	 * backfill writes the new state from the next epoch on.
	 */
	if (replace)
	{
		for (int i = 0; i < ntables; i++)
			delete_all_rows(i == 0 ? &job->view : &job->states[i - 1]);
		HsStreamJobFlush(job);
		job->store.epoch++;
	}

	/* input by input, as epochs are consumed (see exec_hash_join.c) */
	order = inputs_by_size(job);
	for (int o = 0; o < job->n_inputs; o++)
	{
		int			i = order[o];
		const HsStreamLeaf *leaf = job->inputs[i].leaf;
		SourceScan *scan = NULL;
		HsViewScan *vscan = NULL;
		int			next_const = 0;
		int			counter = HsStreamLeafIsConstant(leaf) ? -1 : progress_input(leaf->relid);

		if (job->inputs[i].is_view)
			vscan = HsViewScanBegin(job, i, job->store.version, view_epoch);
		else if (!HsStreamLeafIsConstant(leaf))
			scan = source_scan_begin(leaf->relid, leaf->with_children, snapshot);
		for (;;)
		{
			TupleTableSlot *row;

			CHECK_FOR_INTERRUPTS();
			if (vscan)
				row = HsViewScanNext(vscan);
			else if (scan)
				row = source_scan_next(scan);
			else if (next_const < leaf->n_const_rows)
				row = ExecStoreMinimalTuple(leaf->const_rows[next_const++],
											job->inputs[i].slot, false);
			else
				row = NULL;
			if (row == NULL)
				break;
			if (in_chunk >= BACKFILL_CHUNK_ROWS)
			{
				/*
				 * The next row starts a new epoch.  (Not sooner: the last
				 * epoch must hold data, or the view's change log would end
				 * before the epoch its tables commit at.)
				 */
				job->store.epoch++;
				in_chunk = 0;
			}
			HsStreamJobPush(job, i, row, +1);
			count_row(counter);
			if (++rows_read % RATE_CHECK_EVERY == 0)
				throttle(rows_read, started);
			if (++in_chunk >= BACKFILL_CHUNK_ROWS)
			{
				/* end this chunk's epoch: bounded memtables, maybe a spill */
				job->store.more_to_come = true;
				HsStreamJobFlush(job);
				job->store.more_to_come = false;
				maybe_spill(job);
			}
		}
		if (vscan)
			HsViewScanEnd(vscan);
		else if (scan)
			source_scan_end(scan);
	}
	pfree(order);
	HsStreamJobFlush(job);

	(void) HsSharedBufferSetIndexAtSpill(job->store.shared_buffer, index_at_spill);
	HsHummockWriteContext(&ctx);
	HS_CHECK(HsSharedBufferSync(job->store.shared_buffer, job->store.epoch, tables,
								ntables, &ctx, &res, &st), &st);
	delta = HsVersionDeltaCreate(HsHummockEnv(), HS_DELTA_COMMIT, 0);
	for (int i = 0; i < ntables; i++)
		HsVersionDeltaAddCommit(delta, tables[i], job->store.epoch);
	if (res->n_ssts > 0)
		HsVersionDeltaAddL0Ssts(delta, res->ssts, res->n_ssts);
	{
		/* the view's first change-log entry: its backfill, as inserts */
		const HsSyncTable *t = HsSyncResultTable(res, job->view.table_id);

		if (t != NULL && t->log_enabled && t->n_epochs > 0)
		{
			/*
			 * The entry ends at the commit epoch even when the view's last
			 * rows came in an earlier chunk (a DISTINCT whose later chunks
			 * only repeat groups).
			 */
			HsEpoch    *epochs = palloc(sizeof(HsEpoch) * (t->n_epochs + 1));
			int			n = t->n_epochs;

			memcpy(epochs, t->epochs, sizeof(HsEpoch) * n);
			if (epochs[n - 1] != job->store.epoch)
				epochs[n++] = job->store.epoch;
			HS_CHECK(HsVersionDeltaAddChangeLog(delta, t->table_id, epochs, n,
												t->new_ssts, t->n_new, t->old_ssts, t->n_old,
												&st), &st);
			pfree(epochs);
		}
	}
	/*
	 * In a transaction block, at its commit: the head's lock, taken now,
	 * would stop every view of the database while the transaction stays
	 * open (hummock_manager.c).
	 */
	if (IsTransactionBlock())
		HsHummockCommitDeltaAtCommit(delta);
	else
		(void) HsHummockCommitDelta(delta);
	HsVersionDeltaFree(delta);
	HsSyncResultFree(res);
	return job->store.epoch;
}
