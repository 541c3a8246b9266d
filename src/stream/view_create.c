/*-------------------------------------------------------------------------
 *
 * view_create.c
 *	  create_materialized_view: a view's relation, its capture, its first
 *	  state, its job.
 *
 * Two protocols, one sequence of steps:
 *
 *	1. parse and analyze the definition (Postgres's parser) and check it
 *	   (src/stream/plan/) and the caller's privileges, in the caller's
 *	   session (so errors come at once, and names resolve with its
 *	   search_path);
 *	2. set up: lock the source tables in SHARE ROW EXCLUSIVE mode, in OID
 *	   order (it waits for every writer of them), make sure they are
 *	   captured (capture.c); create the view's relation USING hummock,
 *	   owned by the caller, with its dependencies; streaming views among
 *	   the sources are neither locked nor captured;
 *	3. take a fresh snapshot S0 and backfill (backfill.c): the view's
 *	   first state is its query over its tables at S0 and its upstream
 *	   views at one epoch, committed at its first epoch with positions S0
 *	   and that epoch; the barrier manager then maintains it.
 *
 * From autocommit (no transaction block), the call is **concurrent**: a
 * creator background worker does steps 2 and 3 in transactions of its
 * own, as CREATE INDEX CONCURRENTLY does.  It commits step 2 at once (the
 * job in state 'creating'), so writers of the sources wait only for the
 * capture triggers to be created, and none waits for the backfill, which
 * runs in a second transaction with S0 taken after that commit.  A writer
 * either held its lock when the triggers were created (then creating them
 * waited for it, and it committed before S0: its rows are in the
 * backfill) or took it after they were committed (then its rows reach the
 * capture log, and those S0 does not see are consumed after it); so no
 * change is missed or doubled around S0.  Existing views never wait for a
 * creation: it takes the version head lock only to commit the first
 * epoch, as any commit does, and global reads ignore it (it has no
 * committed epoch until then; reading it before is 55000).  The caller
 * waits for the view to be created (read your DDL), or not, with wait =>
 * false; a cancel of the caller, a drop of the view, or an error cleans
 * the half-created view up completely, and a view left 'creating' by a
 * crash is dropped when its database's barrier manager starts (with a
 * LOG line).  hummock_stream.create_progress shows each creation's phase
 * and rows read.
 *
 * Inside a transaction block the call is **transactional**: steps 2 and 3
 * run in the caller's transaction, holding the source locks until it ends
 * (writers wait for the whole backfill), and the view appears with its
 * commit, or never.
 *
 * src/stream/view_create.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/reloptions.h"

#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "commands/matview.h"
#include "commands/tablecmds.h"
#include "commands/view.h"
#include "access/tableam.h"
#include "utils/ruleutils.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/readfuncs.h"
#include "parser/analyze.h"
#include "parser/scansup.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/barrier_msg.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/pg/user_context.h"
#include "hummock_stream/stream/backfill.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/compute_worker.h"
#include "hummock_stream/stream/stream_ddl.h"
#include "hummock_stream/stream/stream_job.h"
#include "hummock_stream/stream/view_create.h"
#include "hummock_stream/stream/view_options.h"
#include "hummock_stream/stream/view_settings.h"

PG_FUNCTION_INFO_V1(hummock_stream_create_materialized_view);
PG_FUNCTION_INFO_V1(hummock_stream_create_progress);

/* How often a caller waiting for its creator looks again (ms). */
#define CREATOR_POLL_MS 10

/* ---------------------------------------------------------------------
 * Reading the arguments
 * ---------------------------------------------------------------------
 */

/*
 * The definition analyzed: the view's query as written (what the
 * materialized view's rule keeps: *as_written, if not NULL), and with the
 * Postgres views it reads expanded (what is planned; returned).
 */
/*
 * An error of the definition's parse or analysis points into the
 * definition (psql prints it under QUERY:), not into the statement that
 * passed it, as errors inside a SQL function's body do.
 */
static void
definition_error_position(void *arg)
{
	int			pos = geterrposition();

	if (pos > 0)
	{
		errposition(0);
		internalerrposition(pos);
		internalerrquery((const char *) arg);
	}
}

Query *
HsAnalyzeViewDefinition(const char *sql, Query **as_written)
{
	List	   *raw;
	RawStmt    *rs;
	Query	   *q;
	ErrorContextCallback errcb = {error_context_stack, definition_error_position,
								  (void *) sql};

	error_context_stack = &errcb;
	raw = pg_parse_query(sql);

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
	q = parse_analyze_fixedparams(rs, sql, NULL, 0, NULL);
	error_context_stack = errcb.previous;
	if (as_written)
		*as_written = copyObject(q);
	HsStreamPlanExpandViews(q);
	return q;
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

/*
 * The view's relation: a materialized view USING hummock, as CREATE
 * MATERIALIZED VIEW ... WITH NO DATA makes it (its columns from the plan's
 * target list, its rule the query as written, so that Postgres records
 * what it depends on and pg_dump dumps it as a materialized view); it is
 * marked populated when the backfill commits.
 */
static Oid
create_view_relation(RangeVar *rv, HsStreamPlan *plan, Query *as_written)
{
	CreateStmt *create = makeNode(CreateStmt);
	ObjectAddress addr;
	ListCell   *lc;
	Query	   *rule = copyObject(as_written);

	create->relation = rv;
	foreach(lc, plan->view_tlist)
	{
		TargetEntry *tle = lfirst(lc);
		Node	   *e = (Node *) tle->expr;
		ColumnDef  *col = makeColumnDef(tle->resname ? tle->resname : "?column?",
										exprType(e), exprTypmod(e), exprCollation(e));

		/* (DefineRelation would take the type's default, as CREATE TABLE AS checks) */
		if (!OidIsValid(col->collOid) && type_is_collatable(exprType(e)))
			ereport(ERROR,
					(errcode(ERRCODE_INDETERMINATE_COLLATION),
					 errmsg("no collation was derived for column \"%s\" with collatable type %s",
							col->colname, format_type_be(exprType(e))),
					 errhint("Use the COLLATE clause to set the collation explicitly.")));
		create->tableElts = lappend(create->tableElts, col);
	}
	create->oncommit = ONCOMMIT_NOOP;
	create->accessMethod = pstrdup(HS_TABLEAM_NAME);
	create->if_not_exists = false;
	addr = DefineRelation(create, RELKIND_MATVIEW, InvalidOid, NULL, NULL);
	CommandCounterIncrement();
	/* the rule's output columns are the relation's (an alias list renames them) */
	{
		ListCell   *lt = list_head(plan->view_tlist);

		foreach(lc, rule->targetList)
		{
			TargetEntry *tle = lfirst(lc);

			if (tle->resjunk || lt == NULL)
				continue;
			tle->resname = pstrdup(((TargetEntry *) lfirst(lt))->resname);
			lt = lnext(plan->view_tlist, lt);
		}
	}
	StoreViewQuery(addr.objectId, rule, false);
	CommandCounterIncrement();
	return addr.objectId;
}

/*
 * Refuse to create a view in a transaction that already wrote to its
 * source while the source was captured: those rows are in the capture log
 * under our xid (which the job will consume) and also visible to the
 * backfill.
 */
void
HsCheckNoOwnCapturedWrites(Oid source)
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

/* ---------------------------------------------------------------------
 * The steps
 * ---------------------------------------------------------------------
 */

/* What steps 2 and 3 need and make. */
typedef struct Creation
{
	RangeVar   *rv;				/* the view's name (schema-qualified) */
	char	   *definition;
	Query	   *query;			/* with Postgres views expanded */
	Query	   *as_written;		/* the materialized view's rule */
	bool		attach;			/* view: an existing materialized view */
	Oid			owner;			/* the view's: the caller, or the existing
								 * relation's owner */
	HsStreamPlan *plan;
	Oid			view;
	Oid		   *state_tables;
	int			progress_slot;	/* in HsDbState.creations, or -1 */
	HsCreationStatus progress;
	bool		change_log;		/* the caller asked for a change log */
	List	   *settings;		/* the caller's, as 'name=value' */
} Creation;

static void
set_phase(Creation *c, HsCreationPhase phase)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);

	if (c->progress_slot < 0 || db == NULL)
		return;
	c->progress.phase = (uint8) phase;
	c->progress.view = c->view;
	c->progress.phase_at = GetCurrentTimestamp();
	HsDbStateCreationSet(db, c->progress_slot, &c->progress);
}

/*
 * The tables sources (relation OIDs) are read from, in OID order: each
 * table, and every table of a partitioned source's tree or below a source
 * in its inheritance tree (streaming views among the sources are left out).
 */
static List *
source_tables(List *sources)
{
	List	   *rels = NIL;
	ListCell   *lc;

	foreach(lc, sources)
	{
		Oid			relid = lfirst_oid(lc);

		if (HsRelidIsHummock(relid))
			continue;
		if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE || has_subclass(relid))
			rels = list_concat_unique_oid(rels, find_all_inheritors(relid, NoLock, NULL));
		else
			rels = list_append_unique_oid(rels, relid);
	}
	list_sort(rels, list_oid_cmp);
	return rels;
}

/*
 * Lock the tables sources (relation OIDs) are read from against writers,
 * for capture to be set up: SHARE ROW EXCLUSIVE on each table, and on
 * every table of a partitioned source's tree (creating its triggers locks
 * them all).  First wait for their writers without queueing for the lock
 * (a writer that runs long then holds up only the creation, not the
 * writers that come after it, which would queue behind our request).
 * Then take all the locks without waiting, in OID order, or none: a
 * writer's transaction writes tables in any order, so waiting for one
 * lock while holding another could deadlock with it.  When one is busy,
 * the ones taken are given back and the busy one is waited for alone,
 * queued, so that its new writers wait behind us and we are not starved.
 */
void
HsViewLockSources(List *sources)
{
	List	   *rels = source_tables(sources);
	List	   *ours = NIL;		/* the locks taken here, in this round */
	ListCell   *lc;

	foreach(lc, rels)
	{
		LOCKTAG		tag;

		SET_LOCKTAG_RELATION(tag, MyDatabaseId, lfirst_oid(lc));
		WaitForLockers(tag, ShareRowExclusiveLock, false);
	}
	for (;;)
	{
		Oid			busy = InvalidOid;
		LOCKTAG		tag;

		foreach(lc, rels)
		{
			Oid			relid = lfirst_oid(lc);

			if (list_member_oid(ours, relid))
				continue;
			SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
			if (LockHeldByMe(&tag, ShareRowExclusiveLock))
				continue;		/* (held before: not ours to give back) */
			if (!ConditionalLockRelationOid(relid, ShareRowExclusiveLock))
			{
				busy = relid;
				break;
			}
			ours = lappend_oid(ours, relid);
		}
		if (!OidIsValid(busy))
			break;

		/*
		 * Give back all we took, then queue for the busy one alone (its new
		 * writers wait behind us, so we are not starved) and go round again
		 * holding it.
		 */
		foreach(lc, ours)
			UnlockRelationOid(lfirst_oid(lc), ShareRowExclusiveLock);
		list_free(ours);
		ours = NIL;
		CHECK_FOR_INTERRUPTS();
		LockRelationOid(busy, ShareRowExclusiveLock);
		ours = list_make1_oid(busy);
	}
	list_free(ours);
}

/*
 * Lock the tables sources are read from, and every table of a partitioned
 * source's tree, in ACCESS SHARE mode (in OID order), as a query reading
 * them would: writers go on, TRUNCATE and ALTER TABLE wait.
 */
void
HsViewLockSourcesShared(List *sources)
{
	List	   *rels = source_tables(sources);
	ListCell   *lc;

	foreach(lc, rels)
		LockRelationOid(lfirst_oid(lc), AccessShareLock);
	list_free(rels);
}

/* Step 2: capture and the view's relation, in the current transaction. */
static void
create_setup(Creation *c)
{
	ListCell   *lc;
	ObjectAddress view_addr,
				src_addr;
	int			n = 0;

	/*
	 * Wait for the transactions writing the sources first, without
	 * queueing for the lock: a writer that runs long then holds up only
	 * the creation, not the writers that come after it (they would queue
	 * behind our lock request).  Only the writers that begin meanwhile are
	 * waited for under the lock.
	 */
	set_phase(c, HS_CREATION_WAITING_WRITERS);
	HsViewLockSources(c->plan->sources);
	set_phase(c, HS_CREATION_SETTING_UP);
	foreach(lc, c->plan->sources)
	{
		if (HsRelidIsHummock(lfirst_oid(lc)))
			continue;
		(void) HsCaptureEnsure(lfirst_oid(lc));
		HsCheckNoOwnCapturedWrites(lfirst_oid(lc));
	}
	if (!c->attach)
		c->view = create_view_relation(c->rv, c->plan, c->as_written);

	/*
	 * What it is computed with (all of the settings it records, a restored
	 * view's among them) and whether it keeps a change log, as its storage
	 * parameters: shown by \d+, dumped with the view.
	 */
	{
		List	   *ours = list_make1(makeDefElem("settings",
												  (Node *) makeString(HsViewSettingsToText(c->settings)),
												  -1));

		if (c->change_log)
			ours = lappend(ours, makeDefElem("change_log", (Node *) makeString("true"), -1));
		HsViewSetStorageParameters(c->view, ours, false);
	}
	c->state_tables = palloc(sizeof(Oid) * Max(c->plan->n_state_tables, 1));
	for (int i = 0; i < c->plan->n_state_tables; i++)
		c->state_tables[i] = GetNewObjectId();
	ObjectAddressSet(view_addr, RelationRelationId, c->view);
	foreach(lc, c->plan->sources)
	{
		ObjectAddressSet(src_addr, RelationRelationId, lfirst_oid(lc));
		recordDependencyOn(&view_addr, &src_addr, DEPENDENCY_NORMAL);
		if (n < HS_CREATION_MAX_INPUTS)
		{
			c->progress.input[n] = lfirst_oid(lc);
			c->progress.rows_estimate[n] = HsRelationRowEstimate(lfirst_oid(lc));
			n++;
		}
	}
	c->progress.n_inputs = n;
	/*
	 * ... on the primary key of each source table it keeps rows of by that
	 * key (its state and capture key them so): Postgres refuses to drop
	 * the key while the view stands, and pg_dump puts the view after the
	 * key (so pg_restore --clean drops it first)
	 */
	foreach(lc, c->plan->sources)
	{
		Relation	rel;
		Oid			pk;

		if (HsRelidIsHummock(lfirst_oid(lc)) || HsStreamPlanSourceKey(lfirst_oid(lc)) == NIL)
			continue;
		rel = table_open(lfirst_oid(lc), AccessShareLock);
		pk = RelationGetPrimaryKeyIndex(rel);
		table_close(rel, AccessShareLock);
		if (OidIsValid(pk) && OidIsValid(get_index_constraint(pk)))
		{
			ObjectAddressSet(src_addr, ConstraintRelationId, get_index_constraint(pk));
			recordDependencyOn(&view_addr, &src_addr, DEPENDENCY_NORMAL);
		}
	}
	/* ... on the unique indexes (or their constraints) its plan relies on */
	foreach(lc, c->plan->relied_indexes)
	{
		Oid			constraint = get_index_constraint(lfirst_oid(lc));

		if (OidIsValid(constraint))
			ObjectAddressSet(src_addr, ConstraintRelationId, constraint);
		else
			ObjectAddressSet(src_addr, RelationRelationId, lfirst_oid(lc));
		recordDependencyOn(&view_addr, &src_addr, DEPENDENCY_NORMAL);
	}

	/*
	 * ... and on everything its query uses, as a view's rule does: the
	 * source columns (so that dropping one, or changing its type, stops at
	 * the view), functions, operators, types and collations.
	 */
	recordDependencyOnExpr(&view_addr, (Node *) c->query, NIL, DEPENDENCY_NORMAL);
	CommandCounterIncrement();
}

/* The job's row, with state and positions. */
static void
fill_row(Creation *c, HsJobRow *row, const char *state, const char *position,
		 HsEpoch first_epoch, HsEpoch view_epoch)
{
	ListCell   *lc;

	memset(row, 0, sizeof(*row));
	row->job_id = c->view;
	row->definition = c->definition;
	row->query_tree = nodeToString(c->query);
	row->state_tables = c->state_tables;
	row->n_state_tables = c->plan->n_state_tables;
	row->position = (char *) position;
	row->view_position = view_epoch;
	row->first_epoch = first_epoch;
	row->state = (char *) state;
	row->key_columns = palloc(sizeof(int16) * Max(list_length(c->plan->key_columns), 1));
	foreach(lc, c->plan->key_columns)
		row->key_columns[row->n_key_columns++] = (int16) lfirst_int(lc);
	row->operators = c->plan->operators;
	row->state_roles = c->plan->state_roles;
	row->sources = c->plan->sources;
	row->change_log = c->change_log;
	row->settings = c->settings;
}

/*
 * Step 3: S0, the backfill, the first epoch committed in the current
 * transaction.  Returns the job's positions and first epoch.
 */
static void
create_backfill(Creation *c, char **position, HsEpoch *first_epoch, HsEpoch *view_epoch)
{
	Snapshot	s0;
	HsStreamStore store;
	HsStreamJob *job;
	HsUserContext as_owner;

	memset(&store, 0, sizeof(store));
	store.env = HsEnvPgForContext(CurrentMemoryContext);	/* outlives rows */
	store.shared_buffer = HsSharedBufferCreate(store.env,
											   (size_t) hs_shared_buffer_size_kb * 1024);
	store.version = HsHummockPinnedVersion(HS_EPOCH_MAX);
	set_phase(c, HS_CREATION_WAITING);
	*view_epoch = HsBackfillUpstreamEpoch(c->plan->sources, &store.version);

	/*
	 * The tables are read at S0 by the backfill, which may open one long
	 * after S0: a TRUNCATE committed in between would show it empty to S0
	 * (TRUNCATE is not MVCC-safe) while the log has its deletes after S0.
	 * So every table is locked against TRUNCATE (and other rewrites) before
	 * S0 is taken, until the creation commits; writers are not held up.
	 * (After the wait for the upstream views: a TRUNCATE queued behind
	 * these locks holds up the upstreams' workers too.)
	 */
	HsViewLockSourcesShared(c->plan->sources);
	s0 = RegisterSnapshot(GetLatestSnapshot());
	*position = HsBackfillSnapshotText(s0);
	store.cache = HsHummockSstCache();
	store.epoch = HsEpochNow();
	set_phase(c, HS_CREATION_BACKFILLING);
	HsSwitchToUser(c->owner, &as_owner);
	HsViewSettingsApply(c->settings);
	job = HsStreamJobCreate(c->view, c->query, c->state_tables, c->plan->n_state_tables,
							c->plan->state_roles, &store, c->change_log, CurrentMemoryContext);
	if (c->progress_slot >= 0)
		HsBackfillSetProgress(HsDbStateGet(MyDatabaseId, false), c->progress_slot,
							  &c->progress);
	*first_epoch = HsBackfillAndCommit(job, s0, *view_epoch, false);
	HsBackfillSetProgress(NULL, -1, NULL);
	HsRestoreUser(&as_owner);
	/* readable from the commit on (before, Postgres says "not populated") */
	{
		Relation	rel = table_open(c->view, ShareUpdateExclusiveLock);

		SetMatViewPopulatedState(rel, true);
		table_close(rel, NoLock);
	}
	set_phase(c, HS_CREATION_COMMITTING);
	UnregisterSnapshot(s0);
	HsVersionUnref(store.version);
	HsStreamJobFree(job);
	HsSharedBufferDestroy(store.shared_buffer);
}

/* ---------------------------------------------------------------------
 * The concurrent protocol: the creator worker
 * ---------------------------------------------------------------------
 */

/*
 * What a caller hands its creator and gets back, in a DSM segment:
 * the header, then the query tree and the definition (NUL-terminated).
 */
typedef enum CreatorState
{
	CREATOR_STARTING = 0,
	CREATOR_SET_UP,				/* step 2 committed: view is known */
	CREATOR_DONE,				/* created */
	CREATOR_FAILED				/* error: sqlerrcode, message... */
} CreatorState;

typedef struct CreatorShared
{
	Oid			dboid;
	Oid			userid;
	char		schema[NAMEDATALEN];
	char		relname[NAMEDATALEN];
	pid_t		caller_pid;
	int			backfill_rate_limit;	/* the caller's setting */
	int			lock_timeout;	/* the caller's, in ms: its lock waits
								 * are the creator's (as CREATE INDEX
								 * CONCURRENTLY's waits are its caller's) */
	bool		change_log;		/* the caller's change_log argument */
	/* written by the creator */
	volatile sig_atomic_t state;
	Oid			view;
	int			sqlerrcode;
	char		message[1024];
	char		detail[1024];
	char		hint[512];
	Size		query_len;		/* bytes of query tree text, then the rule's
								 * tree text, the definition, the settings
								 * ('name=value' lines), each NUL-ended */
	Size		rule_len;
	Size		definition_len;
	char		data[FLEXIBLE_ARRAY_MEMBER];
} CreatorShared;

static volatile sig_atomic_t creator_cancel = false;

static void
creator_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	/* an ERROR at the next CHECK_FOR_INTERRUPTS, which cleans up */
	creator_cancel = true;
	InterruptPending = true;
	QueryCancelPending = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/*
 * Drop a half-created view's relation and job for good, unless a DROP of
 * it runs (it holds the view's lock: then the view goes with it).  Returns
 * the sources whose capture may go now (HsCaptureRemoveIfUnused), in the
 * current memory context: not here, since removing capture locks the
 * sources against readers, and the caller still holds its lock on them
 * from parsing the definition until it has our error.  So the caller sees
 * no view left once it has the error.  A view we cannot lock within a
 * second is left to the DROP that holds it, or to the barrier manager,
 * which drops views left 'creating' by a creator that is gone.
 */
/* Tries (10 ms apart) to lock a half-created view to drop it. */
#define DROP_LOCK_TRIES 100

static List *
drop_half_created(Oid view)
{
	MemoryContext cxt = CurrentMemoryContext;
	List	   *sources = NIL;
	ObjectAddress addr;

	bool		locked = false;

	StartTransactionCommand();
	/* (a reader may hold it for a moment; a DROP until it commits) */
	for (int i = 0; OidIsValid(view) && !locked && i < DROP_LOCK_TRIES; i++)
	{
		locked = ConditionalLockRelationOid(view, AccessExclusiveLock);
		if (!locked)
			pg_usleep(10 * 1000L);
	}
	if (locked)
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)))
		{
			ObjectAddressSet(addr, RelationRelationId, view);
			performDeletion(&addr, DROP_CASCADE, PERFORM_DELETION_INTERNAL);
		}
		MemoryContextSwitchTo(cxt);
		sources = HsCaptureTakeRemovalsAtCommit();
		PopActiveSnapshot();
	}
	CommitTransactionCommand();
	MemoryContextSwitchTo(cxt);
	return sources;
}

/* Stop capturing sources that no view reads any more (after the caller). */
static void
remove_unused_capture(List *sources)
{
	ListCell   *lc;

	if (sources == NIL)
		return;
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	foreach(lc, sources)
		(void) HsCaptureRemoveIfUnused(lfirst_oid(lc), HS_CAPTURE_REMOVAL_TRIES);
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/* The creator's progress slot, until it is given back (-1). */
static int	held_creation_slot = -1;

/*
 * Give the progress slot back: once the view is created (so that a DROP
 * right after it does not take the exiting creator for a creation to
 * cancel), or at exit.
 */
static void
creation_slot_release(int code, Datum arg)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);

	if (db != NULL && held_creation_slot >= 0)
		HsDbStateCreationEnd(db, held_creation_slot);
	held_creation_slot = -1;
}

void
HsViewCreatorMain(Datum main_arg)
{
	dsm_segment *seg;
	CreatorShared *sh;
	Creation	c;
	HsDbState  *db;
	volatile bool set_up = false;
	MemoryContext cxt;

	pqsignal(SIGTERM, creator_sigterm);
	BackgroundWorkerUnblockSignals();
	HsKeepFreedMemory();
	seg = dsm_attach(DatumGetUInt32(main_arg));
	if (seg == NULL)
		proc_exit(0);			/* the caller is gone before we began */
	sh = dsm_segment_address(seg);
	/*
	 * Connect as the bootstrap superuser, then become the caller for the
	 * session (as SET SESSION AUTHORIZATION does): connecting as the caller
	 * would refuse a NOLOGIN role, which may own views.
	 */
	BackgroundWorkerInitializeConnectionByOid(sh->dboid, InvalidOid, 0);
	StartTransactionCommand();
	SetSessionAuthorization(sh->userid, superuser_arg(sh->userid));
	CommitTransactionCommand();
	pgstat_report_appname("hummock_stream view creator");
	{
		/*
		 * The caller's backfill and lock_timeout settings, as if it ran the
		 * creation itself.
		 */
		char		limit[16];

		snprintf(limit, sizeof(limit), "%d", sh->backfill_rate_limit);
		SetConfigOption("hummock_stream.backfill_rate_limit", limit, PGC_USERSET, PGC_S_SESSION);
		snprintf(limit, sizeof(limit), "%d", sh->lock_timeout);
		SetConfigOption("lock_timeout", limit, PGC_USERSET, PGC_S_SESSION);
	}
	HsPinWorkerSettings();
	cxt = AllocSetContextCreate(TopMemoryContext, "hummock_stream creator", ALLOCSET_DEFAULT_SIZES);
	db = HsDbStateGet(MyDatabaseId, true);

	memset(&c, 0, sizeof(c));
	c.progress_slot = HsDbStateCreationBegin(db, sh->userid);
	if (c.progress_slot >= 0)
	{
		held_creation_slot = c.progress_slot;
		before_shmem_exit(creation_slot_release, (Datum) 0);
	}
	c.progress.phase = HS_CREATION_WAITING_WRITERS;
	c.progress.pid = MyProcPid;
	c.progress.userid = sh->userid;
	c.progress.started_at = c.progress.phase_at = GetCurrentTimestamp();
	PG_TRY();
	{
		char	   *tree;
		HsUserContext as_owner;
		HsJobRow	row;
		char	   *position;
		HsEpoch		first_epoch;
		HsEpoch		view_epoch;

		/*
		 * The slot says the view's creator is alive: without one, the
		 * barrier manager would take a view left 'creating' for a crash's.
		 */
		if (c.progress_slot < 0)
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("too many streaming materialized views are being created in this database"),
					 errdetail("At most %d are created concurrently.", HS_MAX_CREATIONS),
					 errhint("Wait for one to finish, or create the view inside a transaction block.")));

		/* step 2, committed at once */
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		MemoryContextSwitchTo(cxt);
		tree = pnstrdup(sh->data, sh->query_len);
		c.as_written = (Query *) stringToNode(pstrdup(sh->data + sh->query_len + 1));
		c.definition = pstrdup(sh->data + sh->query_len + 1 + sh->rule_len + 1);
		{
			char	   *lines = pstrdup(sh->data + sh->query_len + 1 + sh->rule_len + 1 +
										sh->definition_len + 1);
			char	   *line;
			char	   *save = NULL;

			for (line = strtok_r(lines, "\n", &save); line != NULL;
				 line = strtok_r(NULL, "\n", &save))
				c.settings = lappend(c.settings, pstrdup(line));
		}
		c.query = (Query *) stringToNode(tree);
		c.rv = makeRangeVar(pstrdup(sh->schema), pstrdup(sh->relname), -1);
		c.change_log = sh->change_log;
		c.owner = GetUserId();
		HsSwitchToUser(GetUserId(), &as_owner);
		HsViewSettingsApply(c.settings);	/* (constants are computed planning) */
		c.plan = HsStreamPlanCreate(c.query);
		HsRestoreUser(&as_owner);
		create_setup(&c);
		fill_row(&c, &row, "creating", HsBackfillSnapshotText(GetActiveSnapshot()), 0, 0);
		HsCatalogInsertJob(&row);
		set_phase(&c, HS_CREATION_SETTING_UP);
		PopActiveSnapshot();
		CommitTransactionCommand();
		set_up = true;
		sh->view = c.view;
		pg_write_barrier();
		sh->state = CREATOR_SET_UP;

		/* step 3, with S0 after that commit */
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		MemoryContextSwitchTo(cxt);
		create_backfill(&c, &position, &first_epoch, &view_epoch);
		HsCatalogSetPosition(c.view, position, view_epoch);
		HsCatalogFinishCreation(c.view, first_epoch);
		HsWakeManagerOnCommit();
		PopActiveSnapshot();
		CommitTransactionCommand();
		creation_slot_release(0, (Datum) 0);
		pg_write_barrier();
		sh->state = CREATOR_DONE;
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		List	   *dropped_sources = NIL;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		AbortOutOfAnyTransaction();
		QueryCancelPending = false;
		/* (the lock waits of the clean-up are not the caller's) */
		SetConfigOption("lock_timeout", "0", PGC_USERSET, PGC_S_SESSION);
		sh->sqlerrcode = creator_cancel ? ERRCODE_QUERY_CANCELED : edata->sqlerrcode;
		strlcpy(sh->message, edata->message ? edata->message : "", sizeof(sh->message));
		strlcpy(sh->detail, edata->detail ? edata->detail : "", sizeof(sh->detail));
		strlcpy(sh->hint, edata->hint ? edata->hint : "", sizeof(sh->hint));
		if (creator_cancel && c.progress_slot >= 0)
		{
			pid_t		by = HsDbStateCreationCanceledBy(db, c.progress_slot);

			/* (a DROP of the view, not the caller's cancel: say so) */
			if (by != 0)
			{
				snprintf(sh->message, sizeof(sh->message),
						 "streaming materialized view \"%s.%s\" was dropped during its creation",
						 sh->schema, sh->relname);
				snprintf(sh->detail, sizeof(sh->detail),
						 "Process %d dropped it, which canceled its creation.", (int) by);
				sh->hint[0] = '\0';
			}
			else
			{
				/*
				 * A SIGTERM from elsewhere than the caller (whose own cancel
				 * it sees itself): pg_terminate_backend, DROP DATABASE.
				 */
				sh->sqlerrcode = ERRCODE_ADMIN_SHUTDOWN;
				snprintf(sh->message, sizeof(sh->message),
						 "the creation of streaming materialized view \"%s.%s\" was canceled: its creator was terminated",
						 sh->schema, sh->relname);
				snprintf(sh->detail, sizeof(sh->detail),
						 "Process %d, the background worker creating the view, received SIGTERM (pg_terminate_backend, DROP DATABASE or a shutdown).",
						 (int) MyProcPid);
				snprintf(sh->hint, sizeof(sh->hint), "Create the view again.");
			}
		}

		/*
		 * The view and its job go before the caller has our error; the
		 * capture of its sources after: stopping it locks the sources, and
		 * the caller's transaction holds a lock on them (from parsing the
		 * definition) until it ends with our error.
		 */
		if (set_up)
			dropped_sources = drop_half_created(c.view);
		pg_write_barrier();
		sh->state = CREATOR_FAILED;
		if (set_up)
		{
			remove_unused_capture(dropped_sources);
			ereport(LOG,
					(errmsg("hummock_stream dropped streaming materialized view \"%s.%s\", whose creation %s",
							sh->schema, sh->relname,
							creator_cancel ? "was canceled" : "failed"),
					 errdetail("%s", edata->message)));
		}
	}
	PG_END_TRY();
	dsm_detach(seg);
	proc_exit(0);					/* frees the slot */
}

bool
HsViewCreationCancel(Oid view)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	pid_t		pid;

	if (db == NULL || !pg_class_ownercheck(view, GetUserId()) ||
		!HsDbStateCreationCancelBy(db, view, &pid))
		return false;
	ereport(NOTICE,
			(errmsg("canceling the creation of streaming materialized view \"%s\"",
					get_rel_name(view))));
	(void) kill(pid, SIGTERM);
	return true;
}

/*
 * After a cancel: wait until the creator has finished cleaning up (it
 * drops the view, then stops capturing the sources no view reads, then
 * exits and frees its slot), so the DROP that canceled it leaves nothing.
 * At most CREATOR_EXIT_WAIT_MS: the caller may hold a lock on a source
 * that the clean-up needs (then the capture goes when the caller's
 * transaction ends and the creator gets its lock).
 */
#define CREATOR_EXIT_WAIT_MS 5000

void
HsViewCreationAwaitExit(Oid view)
{
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   CREATOR_EXIT_WAIT_MS);

	while (db != NULL && HsDbStateCreating(db, view, NULL) &&
		   GetCurrentTimestamp() < deadline)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Re-raise the creator's error in the caller. */
static void
raise_creator_error(CreatorShared *sh)
{
	ereport(ERROR,
			(errcode(sh->sqlerrcode ? sh->sqlerrcode : ERRCODE_INTERNAL_ERROR),
			 errmsg("%s", sh->message),
			 sh->detail[0] ? errdetail("%s", sh->detail) : 0,
			 sh->hint[0] ? errhint("%s", sh->hint) : 0));
}

/* The processes pg_blocking_pids() says block pid (palloc'd), how many. */
static int
blocking_pids(pid_t pid, Datum **pids)
{
	ArrayType  *a = DatumGetArrayTypeP(DirectFunctionCall1(pg_blocking_pids,
														   Int32GetDatum(pid)));
	bool	   *nulls;
	int			n;

	deconstruct_array(a, INT4OID, sizeof(int32), true, TYPALIGN_INT, pids, &nulls, &n);
	return n;
}

/*
 * Does the creator (creator_pid) wait for a process that waits for this
 * session, or for this session itself?  The caller holds its sources'
 * AccessShareLocks (from analyzing the definition) while it waits for the
 * creator, through a latch the deadlock detector does not see: a TRUNCATE
 * (or any exclusive lock) of a source queued behind them, and the creator's
 * lock request queued behind the TRUNCATE, would wait for ever.  *other is
 * the process in between (or the creator).
 */
static bool
creator_waits_for_us(pid_t creator_pid, int *other)
{
	Datum	   *pids;
	int			n = blocking_pids(creator_pid, &pids);

	for (int i = 0; i < n; i++)
	{
		int			p = DatumGetInt32(pids[i]);
		Datum	   *second;
		int			m;

		if (p == MyProcPid)
		{
			*other = creator_pid;
			return true;
		}
		m = blocking_pids(p, &second);
		for (int j = 0; j < m; j++)
			if (DatumGetInt32(second[j]) == MyProcPid)
			{
				*other = p;
				return true;
			}
	}
	return false;
}

/*
 * The concurrent protocol in the caller: start a creator for the checked
 * definition and wait for it (until the view is set up, or created).  If
 * no creator can start, *no_worker (and nothing was done).
 */
static Oid
create_concurrently(RangeVar *rv, const char *definition, Query *q, Query *as_written,
					bool wait, bool change_log, List *settings, bool *no_worker)
{
	char	   *tree = nodeToString(q);
	Size		tlen = strlen(tree);
	char	   *rule = nodeToString(as_written);
	Size		rlen = strlen(rule);
	Size		dlen = strlen(definition);
	StringInfoData set;
	ListCell   *lc;
	dsm_segment *seg;
	CreatorShared *sh;
	BackgroundWorker bw;
	BackgroundWorkerHandle *handle;
	pid_t		pid;
	Oid			nsp;
	Oid			view = InvalidOid;

	/* the schema as CREATE TABLE will pick it, checked now */
	nsp = RangeVarGetCreationNamespace(rv);
	{
		AclResult	acl = pg_namespace_aclcheck(nsp, GetUserId(), ACL_CREATE);

		if (acl != ACLCHECK_OK)
			aclcheck_error(acl, OBJECT_SCHEMA, get_namespace_name(nsp));
	}
	if (OidIsValid(get_relname_relid(rv->relname, nsp)))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" already exists", rv->relname)));

	initStringInfo(&set);
	foreach(lc, settings)
		appendStringInfo(&set, "%s\n", (char *) lfirst(lc));
	seg = dsm_create(offsetof(CreatorShared, data) + tlen + rlen + dlen + set.len + 4, 0);
	sh = dsm_segment_address(seg);
	memset(sh, 0, offsetof(CreatorShared, data));
	sh->dboid = MyDatabaseId;
	sh->userid = GetUserId();
	strlcpy(sh->schema, get_namespace_name(nsp), NAMEDATALEN);
	strlcpy(sh->relname, rv->relname, NAMEDATALEN);
	sh->caller_pid = MyProcPid;
	sh->backfill_rate_limit = hs_backfill_rate_limit;
	sh->lock_timeout = LockTimeout;
	sh->change_log = change_log;
	sh->query_len = tlen;
	sh->rule_len = rlen;
	sh->definition_len = dlen;
	memcpy(sh->data, tree, tlen + 1);
	memcpy(sh->data + tlen + 1, rule, rlen + 1);
	memcpy(sh->data + tlen + 1 + rlen + 1, definition, dlen + 1);
	memcpy(sh->data + tlen + 1 + rlen + 1 + dlen + 1, set.data, set.len + 1);

	memset(&bw, 0, sizeof(bw));
	bw.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	bw.bgw_start_time = BgWorkerStart_RecoveryFinished;
	bw.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(bw.bgw_library_name, BGW_MAXLEN, HS_EXTENSION_NAME);
	snprintf(bw.bgw_function_name, BGW_MAXLEN, "HsViewCreatorMain");
	snprintf(bw.bgw_name, BGW_MAXLEN, "hummock_stream view creator for %s", rv->relname);
	snprintf(bw.bgw_type, BGW_MAXLEN, "hummock_stream view creator");
	bw.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	bw.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&bw, &handle) ||
		(WaitForBackgroundWorkerStartup(handle, &pid) == BGWH_STOPPED &&
		 sh->state == CREATOR_STARTING))
	{
		/* (it never ran: nothing to clean up) */
		dsm_detach(seg);
		*no_worker = true;
		return InvalidOid;
	}

	PG_TRY();
	{
		TimestampTz next_check = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
															 DeadlockTimeout);

		for (;;)
		{
			int			state = sh->state;
			pid_t		p;
			int			other;

			pg_read_barrier();
			if (state == CREATOR_FAILED)
				raise_creator_error(sh);
			if (state == CREATOR_DONE || (state == CREATOR_SET_UP && !wait))
			{
				view = sh->view;
				break;
			}
			if (GetBackgroundWorkerPid(handle, &p) == BGWH_STOPPED)
			{
				/* it may have finished between our looks */
				pg_read_barrier();
				if (sh->state == CREATOR_DONE || sh->state == CREATOR_SET_UP)
				{
					view = sh->view;
					break;
				}
				if (sh->state == CREATOR_FAILED)
					raise_creator_error(sh);
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("the background worker creating streaming materialized view \"%s\" exited",
								rv->relname)));
			}
			/* as often as the deadlock detector would look */
			if (GetCurrentTimestamp() >= next_check)
			{
				if (creator_waits_for_us(pid, &other))
					ereport(ERROR,
							(errcode(ERRCODE_T_R_DEADLOCK_DETECTED),
							 errmsg("deadlock detected while creating streaming materialized view \"%s\"",
									rv->relname),
							 errdetail("Its creator (process %d) waits for process %d, which waits for this session's lock on a source of the view.",
									   (int) pid, other),
							 errhint("Retry the creation once the statement that locks the source (TRUNCATE, ALTER TABLE, VACUUM FULL, LOCK TABLE) is done.")));
				next_check = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
														 DeadlockTimeout);
			}
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 CREATOR_POLL_MS, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
	PG_CATCH();
	{
		/*
		 * A cancel (or an error) of the caller cancels the creation.  The
		 * creator drops the view and its job first, and only then stops
		 * capturing the sources, which waits for our locks on them (they go
		 * with our transaction): we wait for the first part, so that the
		 * name is free again when the caller has the error (a retry at once
		 * would find the relation otherwise), not for the second.
		 */
		if (sh->state != CREATOR_DONE && sh->state != CREATOR_FAILED)
		{
			TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
															   CREATOR_EXIT_WAIT_MS);
			pid_t		p;

			TerminateBackgroundWorker(handle);
			HOLD_INTERRUPTS();
			for (;;)
			{
				pg_read_barrier();
				if (sh->state == CREATOR_DONE || sh->state == CREATOR_FAILED ||
					GetBackgroundWorkerPid(handle, &p) == BGWH_STOPPED ||
					GetCurrentTimestamp() >= deadline)
					break;
				(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
								 CREATOR_POLL_MS, PG_WAIT_EXTENSION);
				ResetLatch(MyLatch);
			}
			RESUME_INTERRUPTS();
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	dsm_detach(seg);

	/*
	 * See what the creator committed: a catalog snapshot taken before it
	 * did (planning the query looks things up) would not show the view,
	 * and the regclass returned would print as a number.
	 */
	AcceptInvalidationMessages();
	InvalidateCatalogSnapshot();
	return view;
}

/* ---------------------------------------------------------------------
 * create_materialized_view
 * ---------------------------------------------------------------------
 */

/*
 * Would the creator wait for the caller?  It locks the sources against
 * writes, so a caller that has written (or holds a lock that conflicts,
 * as a data-modifying CTE of the same statement does) creates the view in
 * its own transaction instead.
 */
static bool
caller_blocks_creator(List *sources)
{
	ListCell   *lc;

	if (FullTransactionIdIsValid(GetTopFullTransactionIdIfAny()))
		return true;
	foreach(lc, sources)
	{
		LOCKTAG		tag;

		SET_LOCKTAG_RELATION(tag, MyDatabaseId, lfirst_oid(lc));
		for (LOCKMODE m = RowExclusiveLock; m <= AccessExclusiveLock; m++)
			if (LockHeldByMe(&tag, m))
				return true;
	}
	return false;
}

Datum
hummock_stream_create_materialized_view(PG_FUNCTION_ARGS)
{
	char	   *name;
	char	   *definition;
	bool		wait;
	List	   *names;
	RangeVar   *rv;
	Query	   *query;
	Query	   *as_written;

	/* not STRICT: a NULL argument is an error, not a NULL view */
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the name of a streaming materialized view cannot be null")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the query of a streaming materialized view cannot be null")));
	if (PG_NARGS() > 2 && PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("wait cannot be null"),
				 errhint("Pass true to return once the view is created, false to return once it is being created.")));
	wait = PG_NARGS() > 2 ? PG_GETARG_BOOL(2) : true;
	if (PG_NARGS() > 3 && PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("change_log cannot be null"),
				 errhint("Pass true to keep the view's change log for hummock_stream.change_log(), false to keep one only while views read it.")));
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

	/* step 1, in the caller's session */
	query = HsAnalyzeViewDefinition(definition, &as_written);
	PG_RETURN_OID(HsCreateStreamingView(rv, definition, query, as_written, InvalidOid, wait,
										PG_NARGS() > 3 ? PG_GETARG_BOOL(3) : false, NIL));
}

/* Does node read a relation USING hummock that is not a streaming view (yet)? */
static bool
reads_unstreamed_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;
		HsJobRow	job;

		return rte->rtekind == RTE_RELATION && HsRelidIsHummock(rte->relid) &&
			!HsCatalogReadJob(rte->relid, &job);
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, reads_unstreamed_walker, arg,
								 QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(node, reads_unstreamed_walker, arg);
}

bool
HsCreateMaterializedViewStmt(CreateTableAsStmt *stmt)
{
	IntoClause *into = stmt->into;
	const char *am = into->accessMethod ? into->accessMethod : default_table_access_method;
	Query	   *as_written;
	Query	   *query;
	Oid			view;
	ListCell   *lc;
	ListCell   *ln;
	bool		change_log = false;
	List	   *settings = NIL;

	if (stmt->objtype != OBJECT_MATVIEW || am == NULL || strcmp(am, HS_TABLEAM_NAME) != 0)
		return false;
	HsViewCheckStorageParameters(into->options, into->rel->relname, false);
	/* (their values too, before anything is created: set after the creation) */
	if (into->options != NIL)
		(void) heap_reloptions(RELKIND_MATVIEW,
							   transformRelOptions((Datum) 0, HsViewHeapParameters(into->options),
												   NULL, NULL, false, false),
							   true);
	(void) HsViewChangeLogParameter(into->options, &change_log);
	(void) HsViewSettingsParameter(into->options, &settings);
	if (into->tableSpaceName != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("tablespaces are not supported for streaming materialized views"),
				 errdetail("Their rows live in the hummock store under $PGDATA/%s.", HS_DATA_DIR)));
	if (stmt->if_not_exists)
	{
		Oid			nsp = RangeVarGetCreationNamespace(into->rel);

		if (OidIsValid(get_relname_relid(into->rel->relname, nsp)))
		{
			ereport(NOTICE,
					(errcode(ERRCODE_DUPLICATE_TABLE),
					 errmsg("relation \"%s\" already exists, skipping", into->rel->relname)));
			return true;
		}
	}

	/* CREATE MATERIALIZED VIEW v (a, b) AS ...: the output columns renamed */
	as_written = copyObject(castNode(Query, stmt->query));
	ln = list_head(into->colNames);
	foreach(lc, as_written->targetList)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle->resjunk || ln == NULL)
			continue;
		tle->resname = pstrdup(strVal(lfirst(ln)));
		ln = lnext(into->colNames, ln);
	}
	if (ln != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("too many column names were specified")));
	query = copyObject(as_written);
	HsStreamPlanExpandViews(query);

	if (into->skipData)
	{
		HsUserContext as_owner;

		/*
		 * WITH NO DATA (as pg_dump's script creates it): Postgres makes the
		 * materialized view, unpopulated; REFRESH makes it streaming.  Its
		 * query is checked now, so that a view that cannot stream is
		 * refused at once (unless it reads a materialized view USING
		 * hummock that is not streaming yet either: then at REFRESH).
		 */
		if (!reads_unstreamed_walker((Node *) query, NULL))
		{
			HsSwitchToUser(GetUserId(), &as_owner);
			(void) HsStreamPlanCreate(query);
			HsRestoreUser(&as_owner);
		}
		return false;
	}
	view = HsCreateStreamingView(into->rel, pg_get_querydef(as_written, false), query,
								 as_written, InvalidOid, true, change_log, settings);
	/* heap's (ours were stored with the relation; WITH NO DATA: see utility_hook.c) */
	if (HsViewHeapParameters(into->options) != NIL)
	{
		LockRelationOid(view, ShareUpdateExclusiveLock);
		HsViewSetStorageParameters(view, HsViewHeapParameters(into->options), false);
	}
	return true;
}

/*
 * Create a streaming view named rv from query (Postgres views expanded)
 * and as_written (the same before the expansion: the rule of its
 * materialized view), analyzed in this session; definition is its text.
 * existing: instead of creating the relation, make the (unpopulated)
 * materialized view USING hummock of that OID streaming, in this
 * transaction.  Returns the view's OID.
 */
Oid
HsCreateStreamingView(RangeVar *rv, const char *definition, Query *query, Query *as_written,
					  Oid existing, bool wait, bool change_log, List *settings)
{
	Creation	c;
	HsUserContext as_owner;

	if (!OidIsValid(existing) &&
		(rv->relpersistence == RELPERSISTENCE_TEMP ||
		 (rv->schemaname != NULL && strcmp(rv->schemaname, "pg_temp") == 0) ||
		 (rv->schemaname != NULL &&
		  isAnyTempNamespace(get_namespace_oid(rv->schemaname, true))) ||
		 /* (pg_temp first in search_path) */
		 (rv->schemaname == NULL && isAnyTempNamespace(RangeVarGetCreationNamespace(rv)))))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("streaming materialized views cannot be temporary"),
				 errdetail("Background workers maintain their rows, and a session's temporary objects are its own.")));

	memset(&c, 0, sizeof(c));
	c.progress_slot = -1;
	c.definition = pstrdup(definition);
	c.change_log = change_log;
	c.settings = HsViewSettingsOverride(HsViewSettingsCapture(), settings);
	c.rv = rv;
	c.query = query;
	c.as_written = as_written;
	c.attach = OidIsValid(existing);
	c.view = existing;
	c.owner = c.attach ? HsStreamJobOwner(existing) : GetUserId();

	/*
	 * From here on, what the query evaluates runs as the view's owner (the
	 * caller, or a restored view's owner) as maintenance will: restricted,
	 * with a pinned search_path.
	 */
	HsSwitchToUser(c.owner, &as_owner);
	HsViewSettingsApply(c.settings);	/* (constants are computed planning) */
	c.plan = HsStreamPlanCreate(c.query);
	HsRestoreUser(&as_owner);
	/* the view's owner may read all it reads (as SELECT) */
	HsSwitchToUser(c.owner, &as_owner);
	HsViewCheckPrivileges(HsViewReadsOf(c.query), c.rv->relname, false);
	HsRestoreUser(&as_owner);

	/*
	 * (A view that reads no source, a constant, blocks no writer: created
	 * here unless asked to return at once.)
	 */
	if (!c.attach && !IsTransactionBlock() && (c.plan->sources != NIL || !wait) &&
		!caller_blocks_creator(c.plan->sources))
	{
		bool		no_worker = false;
		Oid			view = create_concurrently(c.rv, definition, c.query, c.as_written, wait,
											   c.change_log, c.settings, &no_worker);

		if (!no_worker)
		{
			HsWarnIfNoWorkerSlots(view);
			return view;
		}
		ereport(NOTICE,
				(errmsg("no background worker could start to create streaming materialized view \"%s\"; it is created in this transaction",
						c.rv->relname),
				 errdetail("Writers of its sources wait until the creation ends."),
				 errhint("Raise max_worker_processes to create views without blocking writers.")));
		wait = true;
	}

	/*
	 * From here on the creation runs in the caller's transaction, holding
	 * its sources against writers until it ends (a transaction block) or
	 * for the whole backfill (a REFRESH of an unpopulated view, a creation
	 * no worker could take): only a role that may lock them so may do that
	 * (LOCK TABLE ... IN SHARE ROW EXCLUSIVE MODE needs UPDATE, DELETE or
	 * TRUNCATE).  A role that may only read them creates the view from
	 * autocommit, concurrently.
	 */
	{
		ListCell   *lc;
		const char *holds;
		const char *hint;

		if (IsTransactionBlock())
		{
			holds = "Inside a transaction block the creation holds SHARE ROW EXCLUSIVE on its sources until the transaction ends";
			hint = "Create the view from autocommit: it is then created concurrently, without blocking writers.";
		}
		else if (c.attach)
		{
			holds = "REFRESH MATERIALIZED VIEW of an unpopulated streaming view holds SHARE ROW EXCLUSIVE on its sources for its backfill";
			hint = "Drop the view and create it with hummock_stream.create_materialized_view() from autocommit: it is then created concurrently, without blocking writers.";
		}
		else
		{
			holds = "With no background worker to create it concurrently, the creation holds SHARE ROW EXCLUSIVE on its sources for its backfill";
			hint = "Raise max_worker_processes to create views without blocking writers.";
		}
		foreach(lc, source_tables(c.plan->sources))
			if (pg_class_aclcheck(lfirst_oid(lc), GetUserId(),
								  ACL_UPDATE | ACL_DELETE | ACL_TRUNCATE) != ACLCHECK_OK)
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("permission denied to lock table \"%s\" against writers",
								get_rel_name(lfirst_oid(lc))),
						 errdetail("%s, which needs UPDATE, DELETE or TRUNCATE on them, as LOCK TABLE does.", holds),
						 errhint("%s", hint)));
	}

	/* the transactional protocol: steps 2 and 3 in the caller's transaction */
	if (!wait)
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("create_materialized_view with wait => false cannot run inside a transaction block"),
				 errhint("Inside a transaction block the view is created in the transaction; call it from autocommit to create it in the background.")));
	{
		char	   *position;
		HsEpoch		first_epoch;
		HsEpoch		view_epoch;
		HsJobRow	row;

		create_setup(&c);
		create_backfill(&c, &position, &first_epoch, &view_epoch);
		fill_row(&c, &row, "created", position, first_epoch, view_epoch);
		HsCatalogInsertJob(&row);
		HsWakeManagerOnCommit();
		HsWarnIfNoWorkerSlots(c.view);
		return c.view;
	}
}

/* ---------------------------------------------------------------------
 * hummock_stream.create_progress
 * ---------------------------------------------------------------------
 */

static const char *
phase_name(uint8 phase)
{
	switch ((HsCreationPhase) phase)
	{
		case HS_CREATION_FREE:
			return "done";
		case HS_CREATION_WAITING_WRITERS:
			return "waiting for older transactions";
		case HS_CREATION_SETTING_UP:
			return "setting up capture";
		case HS_CREATION_WAITING:
			return "waiting for upstream views";
		case HS_CREATION_BACKFILLING:
			return "backfilling";
		case HS_CREATION_COMMITTING:
			return "committing";
	}
	return "unknown";
}

/*
 * hummock_stream.create_progress(): one row per input of each view being
 * created in the background: the view, its creator's pid, the phase and
 * since when, the input, rows read and the input's estimated rows, the
 * rate and the elapsed time.  An ordinary role sees its own creations.
 */
Datum
hummock_stream_create_progress(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsDbState  *db = HsDbStateGet(MyDatabaseId, false);
	HsCreationStatus st[HS_MAX_CREATIONS];
	int			n;
	TimestampTz now = GetCurrentTimestamp();

	InitMaterializedSRF(fcinfo, 0);
	if (db == NULL)
		return (Datum) 0;
	n = HsDbStateCreations(db, st, HS_MAX_CREATIONS);
	for (int i = 0; i < n; i++)
	{
		if (!has_privs_of_role(GetUserId(), st[i].userid) &&
			!has_privs_of_role(GetUserId(), ROLE_PG_MONITOR))
			continue;
		for (int k = 0; k < Max(st[i].n_inputs, 1); k++)
		{
			Datum		values[9];
			bool		nulls[9] = {0};
			double		secs = (double) (now - st[i].started_at) / 1000000.0;

			if (OidIsValid(st[i].view))
				values[0] = ObjectIdGetDatum(st[i].view);
			else
				nulls[0] = true;
			values[1] = Int32GetDatum((int32) st[i].pid);
			values[2] = CStringGetTextDatum(phase_name(st[i].phase));
			values[3] = TimestampTzGetDatum(st[i].phase_at);
			if (st[i].n_inputs > 0)
			{
				values[4] = ObjectIdGetDatum(st[i].input[k]);
				values[5] = Int64GetDatum(st[i].rows_read[k]);
				values[6] = Int64GetDatum(st[i].rows_estimate[k]);
				nulls[6] = st[i].rows_estimate[k] < 0;	/* no estimate */
				values[7] = Float8GetDatum(secs > 0 ? st[i].rows_read[k] / secs : 0);
			}
			else
				nulls[4] = nulls[5] = nulls[6] = nulls[7] = true;
			values[8] = IntervalPGetDatum(DatumGetIntervalP(DirectFunctionCall2(timestamp_mi,
																			 TimestampTzGetDatum(now),
																			 TimestampTzGetDatum(st[i].started_at))));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}
