/*-------------------------------------------------------------------------
 *
 * stream_job.c
 *	  A running streaming job (see stream_job.h).
 *
 * A job reads each of its inputs (an occurrence of a source table in the
 * view's query) two ways: once, at creation, every row of the table in
 * the creation snapshot (backfill, as inserts: stream_ddl.c); then, epoch
 * by epoch, the table's capture log between two barrier snapshots
 * (capture.c explains why that is exactly the epoch's input).  Either way
 * the rows go through the same executors into the same state tables, one
 * input after the other.
 *
 * src/stream/stream_job.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/readfuncs.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/row/row_shape.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/capture_marks.h"
#include "hummock_stream/stream/capture_reader.h"
#include "hummock_stream/stream/log_consolidation.h"
#include "hummock_stream/stream/stream_job.h"
#include "hummock_stream/stream/view_settings.h"
#include "hummock_stream/stream/view_source.h"

/* Rows fetched from the capture log at a time. */
#define LOG_FETCH_ROWS 1000

/* Rows pushed between two looks at the memtables' size. */
#define SPLIT_CHECK_ROWS 256

static void flush_and_seal(HsStreamJob *job, HsEpoch seal_as);
static void table_full(HsStateTable *t, void *arg);

/* ---------------------------------------------------------------------
 * Whose rights a job runs with
 * ---------------------------------------------------------------------
 */

Oid
HsStreamJobOwner(Oid job_id)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(job_id));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("the relation of streaming job %u does not exist", job_id)));
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}


/*
 * HsStreamJobCreate; backfills: the job will backfill its tables (else it
 * goes on from their committed state, and its plan skips computing the
 * rows of constant inputs, which only a backfill pushes).
 */
static HsStreamJob *
job_create(Oid job_id, Query *query, const Oid *state_tables, int n_state_tables,
		   List *state_roles, HsStreamStore *store, bool change_log, MemoryContext parent,
		   bool backfills)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "hummock_stream job",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	HsStreamJob *job = palloc0(sizeof(HsStreamJob));
	Relation	view;
	List	   *leaves;
	ListCell   *lc;
	int			i;

	job->job_id = job_id;
	job->cxt = cxt;
	job->store = *store;
	job->store.more_to_come = false;
	job->store.memtable_full = table_full;
	job->store.memtable_full_arg = job;
	job->store.memtable_full_bytes = 0;
	job->plan = backfills ? HsStreamPlanCreateAs(copyObject(query), state_roles) :
		HsStreamPlanCreateForLoad(copyObject(query), state_roles);
	job->reads = HsViewReadsOf(job->plan->query);
	if (job->plan->n_state_tables != n_state_tables)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("streaming materialized view \"%s\" is planned differently now than when it was created",
						get_rel_name(job_id)),
				 errdetail("It has %d state tables; planned now (by another version of hummock_stream, or over sources changed since), its query needs %d.",
						   n_state_tables, job->plan->n_state_tables),
				 errhint("Drop the view and create it again.")));

	/* the view keeps old values while it keeps a change log */
	HsStateTableInit(&job->view, &job->store, (HsTableId) job_id, change_log);
	job->n_states = n_state_tables;
	job->states = palloc0(sizeof(HsStateTable) * Max(n_state_tables, 1));
	for (i = 0; i < n_state_tables; i++)
		HsStateTableInit(&job->states[i], &job->store, (HsTableId) state_tables[i], false);
	view = table_open(job_id, AccessShareLock);
	leaves = HsStreamPlanBuild(job->plan, CreateTupleDescCopy(RelationGetDescr(view)),
							   &job->view, job->states);
	table_close(view, AccessShareLock);

	job->n_inputs = list_length(leaves);
	job->inputs = palloc0(sizeof(HsStreamJobInput) * job->n_inputs);
	i = 0;
	foreach(lc, leaves)
	{
		HsStreamJobInput *in = &job->inputs[i++];
		Relation	src;

		in->leaf = lfirst(lc);
		if (HsStreamLeafIsConstant(in->leaf))
		{
			/* pushed by the backfill only (its rows are MinimalTuples) */
			in->desc = in->leaf->const_desc;
			in->slot = MakeSingleTupleTableSlot(in->desc, &TTSOpsMinimalTuple);
			continue;
		}
		src = table_open(in->leaf->relid, AccessShareLock);
		in->desc = CreateTupleDescCopyConstr(RelationGetDescr(src));
		/* an upstream view's rows are MinimalTuples (view_source.c) */
		in->is_view = HsAmIsHummock(src->rd_rel->relam);
		in->slot = MakeSingleTupleTableSlot(in->desc, in->is_view ? &TTSOpsMinimalTuple :
											&TTSOpsHeapTuple);
		if (in->is_view)
			job->n_view_inputs++;
		table_close(src, AccessShareLock);
	}
	MemoryContextSwitchTo(old);
	return job;
}

HsStreamJob *
HsStreamJobCreate(Oid job_id, Query *query, const Oid *state_tables,
				  int n_state_tables, List *state_roles, HsStreamStore *store,
				  bool change_log, MemoryContext parent)
{
	return job_create(job_id, query, state_tables, n_state_tables, state_roles, store,
					  change_log, parent, true);
}

/*
 * The plan this binary makes of a view's query must keep its state as the
 * plan that created it did: after an upgrade that plans the query
 * otherwise, the state tables would be read in another layout.  The roles
 * of the state tables (recorded at creation and at every rebuild) tell.
 */
static void
check_planned_alike(Oid job_id, List *recorded_roles, HsStreamPlan *plan)
{
	ListCell   *lr;
	ListCell   *lp;
	int			n = 0;

	if (recorded_roles == NIL)
		return;					/* (recorded by no older version) */
	forboth(lr, recorded_roles, lp, plan->state_roles)
	{
		n++;
		if (strcmp(lfirst(lr), lfirst(lp)) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("streaming materialized view \"%s\" is planned differently now than when it was created",
							get_rel_name(job_id)),
					 errdetail("Its state table %d holds %s; planned now (by another version of hummock_stream, or over sources changed since), its query keeps %s there.",
							   n, (char *) lfirst(lr), (char *) lfirst(lp)),
					 errhint("CALL hummock_stream.rebuild(view) computes it again with this version.")));
	}
}

HsStreamJob *
HsStreamJobLoad(Oid job_id, HsStreamStore *store, MemoryContext parent)
{
	HsJobRow	row;
	HsStreamJob *job;
	MemoryContext old = MemoryContextSwitchTo(parent);
	bool		found = HsCatalogReadJob(job_id, &row);

	MemoryContextSwitchTo(old);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("streaming job %u does not exist", job_id)));
	/*
	 * Planning computes the constants of the query (constant WITH queries,
	 * folded sublinks) with the settings in force: the creator's, as at
	 * creation (they stay until the worker's transaction ends).
	 */
	HsViewSettingsApply(row.settings);
	/* the worker says at every barrier whether the view keeps a log */
	job = job_create(job_id, (Query *) stringToNode(row.query_tree),
					 row.state_tables, row.n_state_tables, row.state_roles, store,
					 false, parent, false);
	check_planned_alike(job_id, row.state_roles, job->plan);
	job->position = MemoryContextStrdup(job->cxt, row.position);
	job->consolidate_next = true;
	job->views_consumed = row.view_position;
	{
		ListCell   *lc;

		old = MemoryContextSwitchTo(job->cxt);
		foreach(lc, row.settings)
			job->settings = lappend(job->settings, pstrdup((char *) lfirst(lc)));
		MemoryContextSwitchTo(old);
	}
	return job;
}

void
HsStreamJobSetChangeLog(HsStreamJob *job, bool change_log)
{
	Assert(job->view.memtable == NULL || job->view.log_old_values == change_log);
	job->view.log_old_values = change_log;
}

/* ---------------------------------------------------------------------
 * Sub-epochs
 *
 * An epoch's input has no bound (a transaction of a billion rows, or the
 * backlog of a view that was down), but the memtables of one epoch live in
 * memory until it is sealed.  So an epoch whose memtables outgrow
 * split_bytes is cut: its writes so far are sealed as the next sub-epoch,
 * like the chunks of a backfill, and the shared buffer spills what
 * outgrows it.  Epochs count 2^16 per millisecond, and the sub-epochs of
 * epoch E are the millisecond before E's, sequence 1, 2, ... (above F, the
 * newest epoch the tables sealed or committed before): no epoch a time
 * (a time-travel read, hummock_stream.epoch_of) or a commit names is
 * among them, so a read at any of those sees all of E or none of it.
 * Any prefix of the epoch's input (input by input, each in replay order)
 * leaves every input in a valid state (each delete removes a row that
 * exists: capture.c), as the chunks of a backfill do, so the state the
 * executors flush at a cut is the query over such inputs,
 * and what comes after is applied on top; readers see none of it before
 * the tables commit at the epoch itself.
 * ---------------------------------------------------------------------
 */

void
HsStreamJobAllowSplit(HsStreamJob *job, HsEpoch floor, size_t bytes)
{
	HsEpoch		e = job->store.epoch;
	HsEpoch		first = ((e >> HS_EPOCH_SEQ_BITS) - 1) << HS_EPOCH_SEQ_BITS | 1;

	first = Max(first, floor + 1);
	job->split_next = first < e ? first : 0;
	job->split_bytes = bytes;
	job->split_unchecked = 0;
	job->store.memtable_full_bytes = job->split_next != 0 ? bytes : 0;
}

HsEpoch
HsStreamJobMaxSealed(HsStreamJob *job)
{
	HsEpoch		e = HsSharedBufferMaxSealed(job->store.shared_buffer, job->view.table_id);

	for (int i = 0; i < job->n_states; i++)
		e = Max(e, HsSharedBufferMaxSealed(job->store.shared_buffer, job->states[i].table_id));
	return e;
}

/*
 * After writes were sealed as sub-epoch split_next: the next one (none
 * left: no more splits this epoch, never in practice), and the shared
 * buffer spills what it holds over its size.
 */
static void
sealed_sub_epoch(HsStreamJob *job)
{
	HsSstWriteContext ctx;
	HsStatus	st;

	job->splits++;
	job->split_next++;
	if (job->split_next >= job->store.epoch)
	{
		job->split_next = 0;
		job->store.memtable_full_bytes = 0;
	}
	HsHummockWriteContext(&ctx);
	HS_CHECK(HsSharedBufferMaybeSpill(job->store.shared_buffer, &ctx, &st), &st);
}

/*
 * A table whose memtable alone reached split_bytes within the epoch (an
 * executor writing many rows for few input rows, where maybe_split does not
 * look: a join's fan-out emitted at its flush): its writes so far are
 * sealed as the next sub-epoch, without flushing the executors (they are
 * in the middle of writing), and the shared buffer spills what it holds
 * over its size.  The table's later writes of the epoch go to a new
 * memtable, above; reads see both.
 */
static void
table_full(HsStateTable *t, void *arg)
{
	HsStreamJob *job = arg;

	if (job->split_next == 0)
		return;
	HsStateTableSealAs(t, job->split_next);
	sealed_sub_epoch(job);
}

static void
maybe_split(HsStreamJob *job)
{
	size_t		used = HsStateTableUnsealedBytes(&job->view);

	for (int i = 0; i < job->n_states; i++)
		used += HsStateTableUnsealedBytes(&job->states[i]);
	if (used < job->split_bytes)
		return;
	if (!job->split_indexing)
	{
		/* what spills keeps a key index: gets of new keys skip the pieces */
		job->split_index_before = HsSharedBufferSetIndexAtSpill(job->store.shared_buffer, true);
		job->split_indexing = true;
	}
	flush_and_seal(job, job->split_next);
	sealed_sub_epoch(job);
}

void
HsStreamJobPush(HsStreamJob *job, int i, TupleTableSlot *row, int sign)
{
	HsStreamJobInput *in = &job->inputs[i];
	MemoryContext old;
	HeapTuple	flat = NULL;

	if (TTS_IS_HEAPTUPLE(row) || TTS_IS_BUFFERTUPLE(row))
	{
		bool		should_free;
		HeapTuple	t = ExecFetchSlotHeapTuple(row, false, &should_free);

		if (HeapTupleHasExternal(t))
		{
			flat = toast_flatten_tuple(t, in->desc);
			ExecStoreHeapTuple(flat, in->slot, false);
			row = in->slot;
		}
	}
	old = MemoryContextSwitchTo(job->cxt);
	HsExecPush(in->leaf->entry, row, sign);
	MemoryContextSwitchTo(old);
	if (flat)
	{
		ExecClearTuple(in->slot);
		heap_freetuple(flat);
	}
	job->rows_in++;
	if (job->split_next != 0 && ++job->split_unchecked >= SPLIT_CHECK_ROWS)
	{
		job->split_unchecked = 0;
		maybe_split(job);
	}
}

HsStreamJobSources
HsStreamJobLockSources(HsStreamJob *job)
{
	HsStreamJobSources result = HS_SOURCES_UNCHANGED;

	for (int i = 0; i < job->n_inputs; i++)
	{
		HsStreamJobInput *in = &job->inputs[i];
		Relation	src;

		if (in->is_view || HsStreamLeafIsConstant(in->leaf))
			continue;
		if (!ConditionalLockRelationOid(in->leaf->relid, AccessShareLock))
			return HS_SOURCES_BUSY;
		src = try_relation_open(in->leaf->relid, NoLock);
		if (src == NULL)
			continue;			/* dropped: the view goes with it */
		if (!HsRowShapeEqual(in->desc, RelationGetDescr(src)))
			result = HS_SOURCES_CHANGED;
		relation_close(src, NoLock);
	}
	return result;
}

HsStreamJob *
HsStreamJobRebuild(HsStreamJob *old, MemoryContext parent)
{
	HsStreamJob *job = HsStreamJobLoad(old->job_id, &old->store, parent);

	/* where the old one got to, not the committed position */
	pfree(job->position);
	job->position = MemoryContextStrdup(job->cxt, old->position);
	job->views_consumed = old->views_consumed;
	job->rows_in = old->rows_in;
	job->log_reads_skipped = old->log_reads_skipped;
	HsStreamJobFree(old);
	return job;
}

static Oid
capture_log_of(Oid relid)
{
	Oid			log_relid = HsCatalogCaptureLogOf(relid);

	if (!OidIsValid(log_relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has no capture log", get_rel_name(relid))));
	return log_relid;
}

/* Prepare the query that reads input i's capture log between two snapshots. */
static void
prepare_log_plan(HsStreamJob *job, int i)
{
	HsStreamJobInput *in = &job->inputs[i];
	Oid			relid = in->leaf->relid;
	Oid			log_relid;
	char		sql[512];
	Oid			types[2] = {PG_SNAPSHOTOID, PG_SNAPSHOTOID};

	if (in->log_plan)
		return;
	if (!OidIsValid(in->log_relid))
		in->log_relid = capture_log_of(relid);
	log_relid = in->log_relid;
	snprintf(sql, sizeof(sql),
			 "SELECT op, r FROM hummock_stream.%s"
			 " WHERE txid >= pg_snapshot_xmin($1)"
			 "   AND txid < pg_snapshot_xmax($2)"
			 "   AND pg_visible_in_snapshot(txid, $2)"
			 "   AND NOT pg_visible_in_snapshot(txid, $1)"
			 " ORDER BY stmt, ord",
			 quote_identifier(get_rel_name(log_relid)));
	in->log_plan = SPI_prepare(sql, 2, types);
	if (in->log_plan == NULL)
		elog(ERROR, "could not prepare the capture log query: %s",
			 SPI_result_code_string(SPI_result));
	SPI_keepplan(in->log_plan);
}

/* Push the row image row into input i's leaf with sign. */
static void
push_image(HsStreamJob *job, int i, HeapTupleHeader row, int sign)
{
	HsStreamJobInput *in = &job->inputs[i];
	HeapTupleData tmp;

	tmp.t_len = HeapTupleHeaderGetDatumLength(row);
	tmp.t_data = row;
	ItemPointerSetInvalid(&tmp.t_self);
	tmp.t_tableOid = InvalidOid;
	ExecStoreHeapTuple(&tmp, in->slot, false);
	HsStreamJobPush(job, i, in->slot, sign);
	ExecClearTuple(in->slot);
}

typedef struct LogRowTarget
{
	HsStreamJob *job;
	int			input;
} LogRowTarget;

static void
push_net_row_cb(void *arg, HeapTupleHeader row, int sign)
{
	LogRowTarget *target = arg;

	push_image(target->job, target->input, row, sign);
}

/* Push one captured row into input i's leaf (or count it, consolidating). */
static void
push_log_row(HsStreamJob *job, int i, char op, HeapTupleHeader row)
{
	HsStreamJobInput *in = &job->inputs[i];
	int			sign = HsCaptureOpIsInsert(op) ? +1 : -1;

	/* a row of a table below the source: only a reader of its tree's */
	if (HsCaptureOpIsChild(op) && !in->leaf->with_children)
		return;
	if (job->consolidation == NULL)
	{
		push_image(job, i, row, sign);
		return;
	}
	HsLogConsolidationAdd(job->consolidation, row, sign);
	if (HsLogConsolidationFull(job->consolidation))
	{
		LogRowTarget target = {job, i};

		HsLogConsolidationDrain(job->consolidation, push_net_row_cb, &target);
	}
}

static void
push_log_row_cb(void *arg, char op, HeapTupleHeader row)
{
	LogRowTarget *target = arg;

	push_log_row(target->job, target->input, op, row);
}

/*
 * Read input i's log with the query (args: the position and the snapshot
 * as pg_snapshot values), when the direct reader cannot.  The sort by
 * (stmt, ord) may use maintenance_work_mem, as other maintenance work
 * does, instead of work_mem: a large transaction's changes then sort in
 * memory rather than on temporary files.
 */
static void
consume_input_by_query(HsStreamJob *job, int i, Datum *args)
{
	HsStreamJobInput *in = &job->inputs[i];
	Portal		portal;
	MemoryContext batch_cxt;
	int			nest;
	char		mem[32];
	HsUserContext ext;

	nest = NewGUCNestLevel();
	snprintf(mem, sizeof(mem), "%d", Max(work_mem, maintenance_work_mem));
	(void) set_config_option("work_mem", mem, PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);

	/*
	 * The log is the extension's: it is read as the extension's owner, and
	 * its rows are pushed as the job's (the caller's user).
	 */
	HsBecomeExtensionOwner(&ext);
	prepare_log_plan(job, i);
	portal = SPI_cursor_open(NULL, in->log_plan, args, NULL, true);
	HsRestoreUser(&ext);
	/* (a short row image is detoasted into a copy: freed batch by batch) */
	batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream log batch",
									  ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		MemoryContext old;

		HsBecomeExtensionOwner(&ext);
		SPI_cursor_fetch(portal, true, LOG_FETCH_ROWS);
		HsRestoreUser(&ext);
		if (SPI_processed == 0)
			break;
		old = MemoryContextSwitchTo(batch_cxt);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	t = SPI_tuptable->vals[r];
			bool		isnull;
			char		op = DatumGetChar(SPI_getbinval(t, SPI_tuptable->tupdesc, 1, &isnull));

			push_log_row(job, i, op,
						 DatumGetHeapTupleHeader(SPI_getbinval(t, SPI_tuptable->tupdesc, 2, &isnull)));
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(batch_cxt);
		SPI_freetuptable(SPI_tuptable);
	}
	MemoryContextDelete(batch_cxt);
	SPI_cursor_close(portal);
	AtEOXact_GUC(true, nest);
}

/*
 * Feed input i the changes of its table between the position and snapshot:
 * straight from the log (capture_reader.c), or with the query when the
 * epoch is too large for that.  The direct read checks no privilege: the
 * log is the extension's, and only its jobs read it here.
 */
static void
consume_input(HsStreamJob *job, int i, const char *snapshot, Datum *args)
{
	HsStreamJobInput *in = &job->inputs[i];
	LogRowTarget target = {job, i};

	/*
	 * Nobody wrote the log since the position's xmin: every row it has is
	 * visible in the position, and the query would return nothing.
	 */
	if (HsCaptureUnwrittenSince(in->leaf->relid, strtou64(job->position, NULL, 10)))
	{
		job->log_reads_skipped++;
		return;
	}
	if (!OidIsValid(in->log_relid))
		in->log_relid = capture_log_of(in->leaf->relid);
	if (!HsCaptureReadBetween(in->log_relid, job->position, snapshot, push_log_row_cb, &target))
		consume_input_by_query(job, i, args);
	if (job->consolidation != NULL)
		HsLogConsolidationDrain(job->consolidation, push_net_row_cb, &target);
}

bool
HsStreamJobReady(HsStreamJob *job, const HsVersion *v, HsEpoch epoch, Oid *waiting_for)
{
	for (int i = 0; i < job->n_inputs; i++)
	{
		HsEpoch		committed;

		if (job->inputs[i].is_view &&
			!HsViewSourceReady(job->inputs[i].leaf->relid, v, epoch, &committed))
		{
			if (waiting_for)
				*waiting_for = job->inputs[i].leaf->relid;
			return false;
		}
	}
	return true;
}

void
HsStreamJobConsume(HsStreamJob *job, const char *snapshot)
{
	Datum		args[2];
	bool		tables_moved;
	HsEpoch		to = job->store.epoch;

	if (job->position == NULL)
		elog(ERROR, "streaming job %u has no position", job->job_id);
	tables_moved = strcmp(job->position, snapshot) != 0;

	if (tables_moved)
	{
		SPI_connect();

		/*
		 * A snapshot taken now, after HsStreamJobLockSources: the log rows
		 * are in the shape of the descriptors the job was built with (an
		 * ALTER TABLE that reshaped them committed before, capture.c).
		 */
		PushActiveSnapshot(GetLatestSnapshot());
		args[0] = DirectFunctionCall1(pg_snapshot_in, CStringGetDatum(job->position));
		args[1] = DirectFunctionCall1(pg_snapshot_in, CStringGetDatum(snapshot));
	}
	/*
	 * The first epoch after a load (the replay of a reset after a failure,
	 * or after a restart) pushes its tables' net changes: a row that made
	 * the view fail and was fixed since is not evaluated again
	 * (log_consolidation.c).  Upstream views give net changes already.
	 */
	if (job->consolidation != NULL)
	{
		/* left by an epoch that failed */
		HsLogConsolidationEnd(job->consolidation);
		job->consolidation = NULL;
	}
	if (tables_moved && job->consolidate_next)
		job->consolidation = HsLogConsolidationBegin(job->cxt);
	job->consolidate_next = false;
	/* input by input: see exec_hash_join.c for why that is a valid order */
	for (int i = 0; i < job->n_inputs; i++)
	{
		if (job->inputs[i].is_view)
			HsViewSourceConsume(job, i, job->store.version, job->views_consumed, to);
		else if (tables_moved && !HsStreamLeafIsConstant(job->inputs[i].leaf))
			consume_input(job, i, snapshot, args);
	}
	if (job->consolidation != NULL)
	{
		HsLogConsolidationEnd(job->consolidation);
		job->consolidation = NULL;
	}
	if (job->n_view_inputs > 0 && to > job->views_consumed)
		job->views_consumed = to;
	if (!tables_moved)
		return;
	PopActiveSnapshot();
	SPI_finish();
	elog(DEBUG1, "hummock_stream job %u consumed (%s, %s]: %lld rows so far, %lld capture-log reads skipped",
		 job->job_id, job->position, snapshot, (long long) job->rows_in,
		 (long long) job->log_reads_skipped);
	{
		char	   *p = MemoryContextStrdup(job->cxt, snapshot);

		pfree(job->position);
		job->position = p;
	}
}

/*
 * Flush the executors and seal the tables' memtables, as epoch seal_as (a
 * sub-epoch) or, if 0, as the store's epoch.
 */
static void
flush_and_seal(HsStreamJob *job, HsEpoch seal_as)
{
	MemoryContext old = MemoryContextSwitchTo(job->cxt);

	/* each leaf once: executors with several inputs wait for all of them */
	for (int i = 0; i < job->n_inputs; i++)
		HsExecFlush(job->inputs[i].leaf->entry);
	if (seal_as != 0)
	{
		HsStateTableSealAs(&job->view, seal_as);
		for (int i = 0; i < job->n_states; i++)
			HsStateTableSealAs(&job->states[i], seal_as);
	}
	else
	{
		HsStateTableSeal(&job->view);
		for (int i = 0; i < job->n_states; i++)
			HsStateTableSeal(&job->states[i]);
	}
	MemoryContextSwitchTo(old);
}

void
HsStreamJobFlush(HsStreamJob *job)
{
	flush_and_seal(job, 0);
	job->split_next = 0;
	job->store.memtable_full_bytes = 0;
	if (job->split_indexing)
	{
		(void) HsSharedBufferSetIndexAtSpill(job->store.shared_buffer, job->split_index_before);
		job->split_indexing = false;
	}
}

int
HsStreamJobTables(HsStreamJob *job, HsTableId **out)
{
	HsTableId  *t = palloc(sizeof(HsTableId) * (job->n_states + 1));

	t[0] = job->view.table_id;
	for (int i = 0; i < job->n_states; i++)
		t[i + 1] = job->states[i].table_id;
	*out = t;
	return job->n_states + 1;
}

void
HsStreamJobFree(HsStreamJob *job)
{
	HsStateTableDiscard(&job->view);
	for (int i = 0; i < job->n_states; i++)
		HsStateTableDiscard(&job->states[i]);
	for (int i = 0; i < job->n_inputs; i++)
		if (job->inputs[i].log_plan)
			SPI_freeplan(job->inputs[i].log_plan);
	MemoryContextDelete(job->cxt);
}
