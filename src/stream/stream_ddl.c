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
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/timestamp.h"
#include "nodes/readfuncs.h"
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
#include "hummock_stream/stream/backfill.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/compute_worker.h"
#include "hummock_stream/stream/stream_ddl.h"
#include "hummock_stream/stream/stream_job.h"
#include "hummock_stream/stream/view_source.h"

PG_FUNCTION_INFO_V1(hummock_stream_create_materialized_view);
PG_FUNCTION_INFO_V1(hummock_stream_drop_materialized_view);
PG_FUNCTION_INFO_V1(hummock_stream_rebuild);

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
	position = HsBackfillSnapshotText(s0);

	memset(&store, 0, sizeof(store));
	store.env = HsEnvPgForContext(CurrentMemoryContext);	/* outlives rows */
	store.shared_buffer = HsSharedBufferCreate(store.env,
											   (size_t) hs_shared_buffer_size_kb * 1024);
	store.version = HsHummockPinnedVersion(HS_EPOCH_MAX);
	view_epoch = HsBackfillUpstreamEpoch(plan->sources, &store.version);
	store.cache = HsHummockSstCache();
	store.epoch = HsEpochNow();
	HsSwitchToUser(GetUserId(), &as_owner);
	job = HsStreamJobCreate(view, q, state_tables, plan->n_state_tables, &store,
							CurrentMemoryContext);
	first_epoch = HsBackfillAndCommit(job, s0, view_epoch, false);
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

/* How long rebuild() waits for the view's graph to stop. */
#define REBUILD_STOP_TIMEOUT_MS 60000

/*
 * Wait until the partial graph of view runs no actor and has no barrier in
 * flight: its tables then hold what it committed, and nothing else will
 * write them.
 */
static void
wait_graph_stopped(Oid view)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   REBUILD_STOP_TIMEOUT_MS);

	for (;;)
	{
		HsGraphStatus gs;

		if (db == NULL || !HsDbStateGraphStatus(db, view, &gs) ||
			(gs.n_actors == 0 && gs.inflight == 0))
			return;
		if (GetCurrentTimestamp() >= deadline)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("streaming materialized view \"%s\" did not stop within %d s",
							get_rel_name(view), REBUILD_STOP_TIMEOUT_MS / 1000),
					 errdetail("It is left in state 'rebuilding' (not maintained, readable at its last epoch)."),
					 errhint("Call hummock_stream.rebuild() again once its barrier manager runs.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * CALL hummock_stream.rebuild(view): compute the view again from what its
 * inputs hold now, in place (same relation, same downstreams), and go on
 * maintaining it from there.  This heals a view whose input once raised
 * an error (a division by zero, a failed cast) that its change replay
 * keeps raising although the offending rows are gone.
 *
 * It commits twice, as CREATE INDEX CONCURRENTLY does: first the job goes
 * to 'rebuilding', which stops its graph (the barrier manager no longer
 * runs it); once the graph has stopped, the new state is backfilled (a
 * snapshot S0 of its tables under a SHARE ROW EXCLUSIVE lock, its upstream
 * views at one epoch, as at creation) and committed over the old one,
 * every old row deleted, with the new positions and the job 'created'
 * again.  Downstream views see the difference in the view's change log.
 * So it cannot run inside a transaction block.
 */
Datum
hummock_stream_rebuild(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	bool		nonatomic = fcinfo->context && IsA(fcinfo->context, CallContext) &&
		!castNode(CallContext, fcinfo->context)->atomic;
	HsJobRow	row;
	List	   *sources;
	ListCell   *lc;
	Snapshot	s0;
	HsStreamStore store;
	HsStreamJob *job;
	HsEpoch		view_epoch;
	HsEpoch		epoch;
	HsUserContext as_owner;
	char	   *position;
	char	   *name = get_rel_name(view);

	if (!nonatomic)
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("hummock_stream.rebuild() cannot run inside a transaction block"),
				 errhint("CALL it on its own.")));
	if (!HsCatalogReadJob(view, &row))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a streaming materialized view", name ? name : "?")));
	if (!pg_class_ownercheck(view, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, name);
	if (strcmp(row.state, "creating") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("streaming materialized view \"%s\" is being created", name)));

	/* 1. stop the view's graph */
	SPI_connect_ext(SPI_OPT_NONATOMIC);
	HsCatalogSetState(view, "rebuilding");
	HsWakeManagerOnCommit();
	SPI_commit();
	wait_graph_stopped(view);

	/* 2. the new state, over the old one */
	if (!HsCatalogReadJob(view, &row))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("streaming materialized view \"%s\" was dropped", name)));
	sources = HsCatalogJobSources(view);
	foreach(lc, sources)
		if (!HsRelidIsHummock(lfirst_oid(lc)))
			LockRelationOid(lfirst_oid(lc), ShareRowExclusiveLock);
	foreach(lc, sources)
		if (!HsRelidIsHummock(lfirst_oid(lc)))
			check_no_own_captured_writes(lfirst_oid(lc));
	s0 = RegisterSnapshot(GetLatestSnapshot());
	position = HsBackfillSnapshotText(s0);

	memset(&store, 0, sizeof(store));
	store.env = HsEnvPgForContext(CurrentMemoryContext);
	store.shared_buffer = HsSharedBufferCreate(store.env,
											   (size_t) hs_shared_buffer_size_kb * 1024);
	store.version = HsHummockPinnedVersion(HS_EPOCH_MAX);
	view_epoch = HsBackfillUpstreamEpoch(sources, &store.version);
	store.cache = HsHummockSstCache();
	store.epoch = HsEpochNow();
	{
		HsEpoch		committed;

		/* above everything the view committed */
		if (HsVersionCommittedEpoch(store.version, (HsTableId) view, &committed) &&
			store.epoch <= committed)
			store.epoch = committed + 1;
	}
	HsSwitchToUser(HsStreamJobOwner(view), &as_owner);
	HsViewCheckPrivileges(HsViewReadsOf((Query *) stringToNode(row.query_tree)), name, false);
	job = HsStreamJobCreate(view, (Query *) stringToNode(row.query_tree), row.state_tables,
							row.n_state_tables, &store, CurrentMemoryContext);
	epoch = HsBackfillAndCommit(job, s0, view_epoch, true);
	HsRestoreUser(&as_owner);
	UnregisterSnapshot(s0);
	HsVersionUnref(store.version);
	HsStreamJobFree(job);
	HsSharedBufferDestroy(store.shared_buffer);

	HsCatalogSetPosition(view, position, view_epoch);
	HsCatalogSetState(view, "created");
	HsWakeManagerOnCommit();
	ereport(NOTICE,
			(errmsg("streaming materialized view \"%s\" was rebuilt at epoch " UINT64_FORMAT,
					name, (uint64) epoch)));
	SPI_commit();
	SPI_finish();
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
