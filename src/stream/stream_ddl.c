/*-------------------------------------------------------------------------
 *
 * stream_ddl.c
 *	  create_materialized_view, drop_materialized_view, and what happens
 *	  when a view's relation is dropped.
 *
 * Creating a view happens in the caller's transaction:
 *
 *	1. parse and analyze the definition (Postgres's parser) and check it
 *	   (stream_plan.c);
 *	2. lock the sources (every table the query reads) in SHARE ROW
 *	   EXCLUSIVE mode, in OID order (it conflicts with every writer) and
 *	   make sure they are captured (capture.c);
 *	3. create the view's relation USING hummock, owned by the caller, and
 *	   record that it depends on the sources;
 *	4. take a fresh snapshot S0.  Every writer of a source has finished
 *	   (the lock waited for it), so each transaction either committed
 *	   before S0 (it is in S0, and in the backfill) or will write the
 *	   source after we commit (its rows reach the capture log, with a txid
 *	   S0 does not see);
 *	5. backfill: run every row of the sources in S0 through the executors,
 *	   input after input,
 *	   in chunks of epochs E0, E0+1, ... (the shared buffer may spill);
 *	   sync and commit the view's and the state tables' data at the last
 *	   epoch in this transaction;
 *	6. record the job with position S0; the barrier manager picks it up
 *	   when we commit.
 *
 * So when the call's transaction commits, the view is readable at its
 * first epoch, which is its query at S0.
 *
 * src/stream/stream_ddl.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/analyze.h"
#include "parser/scansup.h"
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
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/compute_worker.h"
#include "hummock_stream/stream/stream_ddl.h"
#include "hummock_stream/stream/stream_job.h"
#include "hummock_stream/stream/view_source.h"

PG_FUNCTION_INFO_V1(hummock_stream_create_materialized_view);
PG_FUNCTION_INFO_V1(hummock_stream_drop_materialized_view);

/* Source rows per backfill epoch. */
#define BACKFILL_CHUNK_ROWS 100000

static Query *
analyze_definition(const char *sql)
{
	List	   *raw = pg_parse_query(sql);
	RawStmt    *rs;

	if (list_length(raw) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a streaming materialized view is defined by exactly one SELECT statement"),
				 errdetail("The definition has %d statements.", list_length(raw))));
	rs = linitial_node(RawStmt, raw);
	if (!IsA(rs->stmt, SelectStmt))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("a streaming materialized view is defined by a SELECT statement")));
	return parse_analyze_fixedparams(rs, sql, NULL, 0, NULL);
}

/* CREATE TABLE name (columns of plan's view) USING hummock; its OID. */
static Oid
create_view_relation(RangeVar *rv, HsStreamPlan *plan)
{
	StringInfoData sql;
	ListCell   *lc;
	bool		first = true;

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE TABLE %s (",
					 quote_qualified_identifier(rv->schemaname, rv->relname));
	foreach(lc, plan->view_tlist)
	{
		TargetEntry *tle = lfirst(lc);
		Node	   *e = (Node *) tle->expr;
		Oid			coll = exprCollation(e);

		appendStringInfo(&sql, "%s%s %s", first ? "" : ", ",
						 quote_identifier(tle->resname ? tle->resname : "?column?"),
						 format_type_with_typemod(exprType(e), exprTypmod(e)));
		if (OidIsValid(coll) && coll != get_typcollation(exprType(e)))
			appendStringInfo(&sql, " COLLATE %s", generate_collation_name(coll));
		first = false;
	}
	appendStringInfoString(&sql, ") USING hummock");
	SPI_connect();
	if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create the view's relation");
	SPI_finish();
	CommandCounterIncrement();
	pfree(sql.data);
	return RangeVarGetRelid(rv, NoLock, false);
}

/*
 * The pg_snapshot text of snapshot, with the current transaction (if it
 * has an xid) counted as running: the backfill sees this transaction's
 * earlier writes through its own visibility, and its later writes reach
 * the capture log under its xid, which the job must then consume.
 */
static char *
snapshot_text(Snapshot snap)
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

/*
 * Refuse to create a view in a transaction that already wrote to its
 * source while the source was captured: those rows are in the capture log
 * under our xid (which the job will consume) and also visible to the
 * backfill.
 */
static void
check_no_own_captured_writes(Oid source)
{
	FullTransactionId own = GetTopFullTransactionIdIfAny();
	Oid			log = HsCatalogCaptureLogOf(source);
	char		sql[256];
	bool		wrote;
	HsUserContext owner;

	if (!FullTransactionIdIsValid(own) || !OidIsValid(log))
		return;
	snprintf(sql, sizeof(sql), "SELECT 1 FROM hummock_stream.%s WHERE txid = '" UINT64_FORMAT "' LIMIT 1",
			 quote_identifier(get_rel_name(log)), U64FromFullTransactionId(own));
	HsBecomeExtensionOwner(&owner);
	SPI_connect();
	if (SPI_execute(sql, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the capture log of \"%s\"", get_rel_name(source));
	wrote = SPI_processed > 0;
	SPI_finish();
	HsRestoreUser(&owner);
	if (wrote)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot create a streaming materialized view over \"%s\" in a transaction that has written to it",
						get_rel_name(source)),
				 errhint("Create the view in its own transaction, or before the writes.")));
}

/* Spill the job's sealed data if the shared buffer is over its limit. */
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
 * committed E or later (waited for, up to hummock_stream.wait_timeout:
 * usually a barrier interval).  Each upstream is then read at E, where
 * its state is final (it commits only above its committed epoch), and the
 * view consumes their change logs from E on.  *v (pinned) is replaced by
 * the newest version; E is pinned for this transaction, so that
 * compaction keeps what the backfill reads.
 */
static HsEpoch
upstream_read_epoch(List *sources, HsVersion **v)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   hs_wait_timeout_ms);
	HsDbState  *db = HsDbStateGet(MyDatabaseId, true);
	HsEpoch		target = 0;
	ListCell   *lc;

	foreach(lc, sources)
	{
		HsEpoch		c;

		if (!HsRelidIsHummock(lfirst_oid(lc)))
			continue;
		if (!HsVersionCommittedEpoch(*v, (HsTableId) lfirst_oid(lc), &c))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("streaming materialized view \"%s\" has no committed epoch to read",
							get_rel_name(lfirst_oid(lc)))));
		target = Max(target, c);
	}
	if (target == 0)
		return 0;
	for (;;)
	{
		Oid			behind = InvalidOid;
		HsEpoch		c = 0;
		long		left;

		foreach(lc, sources)
		{
			if (HsRelidIsHummock(lfirst_oid(lc)) &&
				(!HsVersionCommittedEpoch(*v, (HsTableId) lfirst_oid(lc), &c) || c < target))
			{
				behind = lfirst_oid(lc);
				break;
			}
		}
		if (!OidIsValid(behind))
			break;
		left = (long) TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
		if (left <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("streaming materialized view \"%s\" has not committed epoch " UINT64_FORMAT " yet",
							get_rel_name(behind), (uint64) target),
					 errdetail("A view over several streaming views reads them all at the newest of their committed epochs; \"%s\" is at " UINT64_FORMAT ".",
							   get_rel_name(behind), (uint64) c),
					 errhint("See hummock_stream.jobs for a view that is failing or slow, or raise hummock_stream.wait_timeout.")));
		/* woken when a newer version is published (a commit) */
		(void) HsDbStateWaitVersion(db, (*v)->id + 1, left);
		CHECK_FOR_INTERRUPTS();
		HsVersionUnref(*v);
		*v = HsHummockPinnedVersion(HS_EPOCH_MAX);
	}
	HsPinVersion(MyDatabaseId, (*v)->id, target);
	return target;
}

/*
 * Backfill job (its tables at snapshot, its upstream views at view_epoch)
 * from epoch job->store.epoch on and commit its tables at the last epoch
 * used, in this transaction.  Returns that epoch.
 */
static HsEpoch
backfill_and_commit(HsStreamJob *job, Snapshot snapshot, HsEpoch view_epoch)
{
	int64		in_chunk = 0;
	HsTableId  *tables;
	int			ntables = HsStreamJobTables(job, &tables);
	HsSstWriteContext ctx;
	HsSyncResult *res;
	HsVersionDelta *delta;
	HsStatus	st;

	/* input by input, as epochs are consumed (see exec_hash_join.c) */
	for (int i = 0; i < job->n_inputs; i++)
	{
		Relation	src = NULL;
		TableScanDesc scan = NULL;
		HsViewScan *vscan = NULL;
		TupleTableSlot *slot = NULL;

		if (job->inputs[i].is_view)
			vscan = HsViewScanBegin(job, i, job->store.version, view_epoch);
		else
		{
			src = table_open(job->inputs[i].leaf->relid, AccessShareLock);
			scan = table_beginscan(src, snapshot, 0, NULL);
			slot = table_slot_create(src, NULL);
		}
		for (;;)
		{
			TupleTableSlot *row;

			CHECK_FOR_INTERRUPTS();
			if (vscan)
				row = HsViewScanNext(vscan);
			else
				row = table_scan_getnextslot(scan, ForwardScanDirection, slot) ? slot : NULL;
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
			if (++in_chunk >= BACKFILL_CHUNK_ROWS)
			{
				/* end this chunk's epoch: bounded memtables, maybe a spill */
				HsStreamJobFlush(job);
				maybe_spill(job);
			}
		}
		if (vscan)
			HsViewScanEnd(vscan);
		else
		{
			ExecDropSingleTupleTableSlot(slot);
			table_endscan(scan);
			table_close(src, AccessShareLock);
		}
	}
	HsStreamJobFlush(job);

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
			HS_CHECK(HsVersionDeltaAddChangeLog(delta, t->table_id, t->epochs, t->n_epochs,
												t->new_ssts, t->n_new, t->old_ssts, t->n_old,
												&st), &st);
	}
	(void) HsHummockCommitDelta(delta);
	HsVersionDeltaFree(delta);
	HsSyncResultFree(res);
	return job->store.epoch;
}


/*
 * The identifiers of a (possibly qualified) name, as the SQL parser reads
 * them: unquoted ones folded to lower case, quoted ones as written ("" is
 * a quote), each truncated to NAMEDATALEN - 1 bytes with the parser's
 * NOTICE.  Refuses an empty name, an empty part and stray characters.
 */
static List *
parse_view_name(const char *name)
{
	List	   *parts = NIL;
	const char *p = name;

	for (;;)
	{
		StringInfoData part;
		bool		quoted = false;

		initStringInfo(&part);
		while (scanner_isspace(*p))
			p++;
		if (*p == '"')
		{
			quoted = true;
			for (p++;; p++)
			{
				if (*p == '\0')
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_NAME),
							 errmsg("invalid streaming materialized view name \"%s\"", name),
							 errdetail("A quoted identifier is not closed.")));
				if (*p == '"')
				{
					if (p[1] != '"')
						break;
					p++;
				}
				appendStringInfoChar(&part, *p);
			}
			p++;
		}
		else
		{
			while (*p != '\0' && *p != '.' && !scanner_isspace(*p))
			{
				if (*p == '"')
					break;
				appendStringInfoChar(&part, *p);
				p++;
			}
		}
		while (scanner_isspace(*p))
			p++;
		if (part.len == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_NAME),
					 errmsg("invalid streaming materialized view name \"%s\"", name),
					 errdetail(*name == '\0' ? "The name is empty." :
							   "The name has an empty identifier."),
					 errhint("Name the view with an identifier, optionally qualified by its schema (schema.name).")));
		if (*p != '\0' && *p != '.')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_NAME),
					 errmsg("invalid streaming materialized view name \"%s\"", name),
					 errdetail("Identifiers with spaces or quotes must be quoted with double quotes."),
					 errhint("Name the view with an identifier, optionally qualified by its schema (schema.name).")));
		if (quoted)
			truncate_identifier(part.data, part.len, true);
		else
			part.data = downcase_truncate_identifier(part.data, part.len, true);
		parts = lappend(parts, makeString(part.data));
		if (*p == '\0')
			return parts;
		p++;					/* past the '.' */
	}
}

Datum
hummock_stream_create_materialized_view(PG_FUNCTION_ARGS)
{
	char	   *name;
	char	   *definition;
	List	   *names;
	RangeVar   *rv;
	Query	   *q;
	HsStreamPlan *plan;
	Oid			view;
	Oid		   *state_tables;
	Snapshot	s0;
	ListCell   *lc;
	char	   *position;
	HsStreamStore store;
	HsStreamJob *job;
	HsEpoch		first_epoch;
	ObjectAddress view_addr,
				src_addr;
	HsUserContext as_owner;
	HsJobRow	row;
	HsEpoch		view_epoch;

	/* not STRICT: a NULL argument is an error, not a NULL view */
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the name of a streaming materialized view cannot be null")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the query of a streaming materialized view cannot be null")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	definition = text_to_cstring(PG_GETARG_TEXT_PP(1));
	names = parse_view_name(name);
	rv = makeRangeVarFromNameList(names);
	/* as Postgres's own name lookups: a database name must be this one's */
	if (rv->catalogname != NULL && strcmp(rv->catalogname, get_database_name(MyDatabaseId)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cross-database references are not implemented: %s",
						NameListToString(names))));

	q = analyze_definition(definition);

	/*
	 * From here on, what the query evaluates runs as the view's owner (the
	 * caller) as maintenance will: restricted, with a pinned search_path.
	 */
	HsSwitchToUser(GetUserId(), &as_owner);
	plan = HsStreamPlanCreate(q);
	HsRestoreUser(&as_owner);
	if (plan->n_state_tables > HS_ACTOR_MAX_STATE_TABLES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the view's query needs %d internal state tables; at most %d are supported",
						plan->n_state_tables, HS_ACTOR_MAX_STATE_TABLES),
				 errdetail("Each join needs two, each aggregation or DISTINCT one or two.")));

	/* the caller, who will own the view, may read all it reads (as SELECT) */
	HsViewCheckPrivileges(HsViewReadsOf(q), rv->relname, false);

	/*
	 * No writer of a source table runs from here until we commit (OID
	 * order); streaming views among the sources are read from their change
	 * logs, not captured (only the streaming engine writes them).
	 */
	foreach(lc, plan->sources)
		if (!HsRelidIsHummock(lfirst_oid(lc)))
			LockRelationOid(lfirst_oid(lc), ShareRowExclusiveLock);
	foreach(lc, plan->sources)
	{
		if (HsRelidIsHummock(lfirst_oid(lc)))
			continue;
		(void) HsCaptureEnsure(lfirst_oid(lc));
		check_no_own_captured_writes(lfirst_oid(lc));
	}

	view = create_view_relation(rv, plan);
	state_tables = palloc(sizeof(Oid) * Max(plan->n_state_tables, 1));
	for (int i = 0; i < plan->n_state_tables; i++)
		state_tables[i] = GetNewObjectId();
	ObjectAddressSet(view_addr, RelationRelationId, view);
	foreach(lc, plan->sources)
	{
		ObjectAddressSet(src_addr, RelationRelationId, lfirst_oid(lc));
		recordDependencyOn(&view_addr, &src_addr, DEPENDENCY_NORMAL);
	}

	/*
	 * ... and on everything its query uses, as a view's rule does: the
	 * source columns (so that dropping one, or changing its type, stops at
	 * the view), functions, operators, types and collations.
	 */
	recordDependencyOnExpr(&view_addr, (Node *) q, NIL, DEPENDENCY_NORMAL);
	CommandCounterIncrement();

	s0 = RegisterSnapshot(GetLatestSnapshot());
	position = snapshot_text(s0);

	memset(&store, 0, sizeof(store));
	store.env = HsEnvPgForContext(CurrentMemoryContext);	/* outlives rows */
	store.shared_buffer = HsSharedBufferCreate(store.env,
											   (size_t) hs_shared_buffer_size_kb * 1024);
	store.version = HsHummockPinnedVersion(HS_EPOCH_MAX);
	view_epoch = upstream_read_epoch(plan->sources, &store.version);
	store.cache = HsHummockSstCache();
	store.epoch = HsEpochNow();
	HsSwitchToUser(GetUserId(), &as_owner);
	job = HsStreamJobCreate(view, q, state_tables, plan->n_state_tables, &store,
							CurrentMemoryContext);
	first_epoch = backfill_and_commit(job, s0, view_epoch);
	HsRestoreUser(&as_owner);
	UnregisterSnapshot(s0);
	HsVersionUnref(store.version);
	HsStreamJobFree(job);
	HsSharedBufferDestroy(store.shared_buffer);

	memset(&row, 0, sizeof(row));
	row.job_id = view;
	row.definition = definition;
	row.query_tree = nodeToString(q);
	row.state_tables = state_tables;
	row.n_state_tables = plan->n_state_tables;
	row.position = position;
	row.view_position = view_epoch;
	row.first_epoch = first_epoch;
	row.key_columns = palloc(sizeof(int16) * Max(list_length(plan->key_columns), 1));
	foreach(lc, plan->key_columns)
		row.key_columns[row.n_key_columns++] = (int16) lfirst_int(lc);
	row.operators = plan->operators;
	row.state_roles = plan->state_roles;
	row.sources = plan->sources;
	HsCatalogInsertJob(&row);
	HsWakeManagerOnCommit();
	HsWarnIfNoWorkerSlots(view);
	PG_RETURN_OID(view);
}

Datum
hummock_stream_drop_materialized_view(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	List	   *sources = HsCatalogJobSources(view);
	ObjectAddress addr;
	ListCell   *lc;

	if (sources == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a streaming materialized view", get_rel_name(view))));
	if (!pg_class_ownercheck(view, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(view));

	ObjectAddressSet(addr, RelationRelationId, view);
	performDeletion(&addr, DROP_RESTRICT, 0);
	CommandCounterIncrement();
	foreach(lc, sources)
		HsCaptureRemoveIfUnused(lfirst_oid(lc));
	PG_RETURN_VOID();
}

/*
 * A relation USING hummock is being dropped: if it is a view, forget its
 * job, and stop capturing the sources no other view reads at pre-commit
 * (as drop_materialized_view does at once; here the deletion that drops
 * the relation is still under way).  Returns the job's state tables (to
 * remove from the version).
 */
List *
HsStreamJobDropped(Oid relid)
{
	List	   *sources;
	List	   *tables;
	ListCell   *lc;

	if (!HsCatalogExists())
		return NIL;				/* DROP EXTENSION: the catalog went first */
	tables = HsCatalogDeleteJob(relid, &sources);
	/* not now: we are inside the deletion of the view's relation */
	foreach(lc, sources)
		HsCaptureRemoveAtCommit(lfirst_oid(lc));
	if (tables != NIL)
		HsWakeManagerOnCommit();
	return tables;
}
