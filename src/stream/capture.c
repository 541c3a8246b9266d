/*-------------------------------------------------------------------------
 *
 * capture.c
 *	  Change capture on ordinary tables that streaming views read.
 *
 * Protocol.  A table that some streaming job reads (a "source") gets three
 * statement-level AFTER triggers (INSERT, UPDATE, DELETE) with transition
 * tables, and a capture log, an ordinary heap table
 *
 *	hummock_stream.capture_<source oid> (
 *		txid  xid8,		-- top-level transaction id of the writer
 *		stmt  bigint,	-- the WAL insert position when the statement's
 *						   trigger ran
 *		ord   integer,	-- position within the statement
 *		op    "char",	-- 'I' insert, 'D' delete
 *		r     bytea)	-- the row: a composite datum of the source's
 *						   row type as the trigger formed it
 *
 * An UPDATE is captured as the Delete of each old row followed by the
 * Insert of each new row (ord orders them).  The triggers append to the log
 * in the writer's transaction, so a log row exists exactly when its write
 * committed.  A statement's number is the WAL insert position when its
 * trigger runs: a statement that depends on another's result saw that
 * transaction's commit record, which was written after the other
 * statement's trigger ran, so it always has a larger number; and the
 * statements of one transaction get increasing numbers (each trigger
 * writes WAL).  Ordering by (stmt, ord) replays causally related changes
 * in order; unrelated ones commute.
 *
 * Every barrier carries a Postgres snapshot taken by the barrier manager
 * when it injects the barrier.  The input of epoch E of a job is exactly
 * the log rows whose txid is visible in the snapshot of the barrier that
 * ends E and not visible in the snapshot of the barrier that began it (for
 * the first epoch after creation: the creation snapshot).  The position of
 * a job (the snapshot its committed epoch ends with) commits in the same
 * transaction as the version delta of that epoch, so after a crash the
 * job resumes exactly after what its committed state contains.
 *
 * The log is trimmed behind the oldest position of the jobs reading it
 * (rows with txid below that snapshot's xmin are consumed by every job).
 * An index on txid lets each barrier read only the rows of transactions
 * from its position's xmin on, whatever the log's size.
 *
 * TRUNCATE of a source is captured by a BEFORE TRUNCATE trigger as the
 * Delete of every row the table holds (capture_rows), so views follow
 * it as they follow a DELETE of all rows, at the cost of one.  A creation
 * locks its tables before its snapshot S0 (view_create.c), since a
 * TRUNCATE committed after S0 would show the backfill an empty table.
 *
 * Partitioned tables and partitions.  A statement's triggers fire on the
 * table it names: one naming a partition never reaches its parent's
 * statement triggers, and rows routed through a parent never reach a
 * partition's.  So a source that is a partitioned table or a partition is
 * captured by row-level AFTER triggers instead, which fire on the
 * partition that holds the row whatever the statement named: Postgres
 * clones a partitioned table's row triggers to every partition, present
 * and future.  Their names end with the source's OID (a partition may
 * hold the clones of an ancestor's triggers beside its own), and the
 * trigger function finds its source from the trigger itself (the top of
 * its tgparentid chain; a trigger named after another OID, as a restored
 * dump's are, does nothing), converts the partition's row to the source's row
 * type, and appends it with its own WAL position as the statement number
 * (an UPDATE as Delete then Insert; an UPDATE that moves a row to another
 * partition fires Delete there and Insert here).  Rows that enter or
 * leave a partitioned source without DML, with a partition that is
 * attached, detached, dropped or truncated, are captured before the
 * command runs (utility_hook.c, HsCapturePartitionMove: Inserts or Deletes
 * of every row the partition holds, into the log of every captured table
 * above it); DETACH ... CONCURRENTLY of one that holds rows is refused.
 * A partition pending detach (the first transaction of a DETACH ...
 * CONCURRENTLY committed; the second may have failed) is out of the tree
 * for queries of the tables above it, and so for capture: rows written
 * into it are not theirs (row_trigger), nor are its rows taken from
 * them when it is dropped, truncated or its detach finalized.
 *
 * Inheritance.  An UPDATE or DELETE naming an inheritance parent reaches
 * its children's rows: their row triggers fire, their statement triggers
 * do not, and the parent's statement triggers see them in the transition
 * tables, not told apart from the parent's own.  So a source in an
 * inheritance tree (with a child or a parent) is captured by row triggers
 * as well, enabled ALWAYS and named as a partitioned source's: a view
 * over ONLY the parent gets no child's row, and a view over a child sees
 * the writes made through its parent.  A source captured by statement
 * triggers that gets a child or a parent (CREATE TABLE ... INHERITS,
 * ALTER TABLE ... INHERIT) switches in the same transaction
 * (switch_to_rows: its statement triggers go, its row triggers fire
 * always), under SHARE ROW EXCLUSIVE as CREATE TRIGGER.
 *
 * A view may read a source with its children, so every table below a
 * source carries the source's triggers too (row triggers and a BEFORE
 * TRUNCATE trigger, enabled ALWAYS, named with the source's OID as its
 * own row triggers are).  They log its rows, converted to the source's
 * row type, with the ops 'i' and 'd' instead of 'I' and 'D': a reader
 * of the source with its children takes them as inserts and deletes, a
 * reader of FROM ONLY the source skips them (stream_job.c).  A trigger
 * named after another table than its own, and not a partition's clone,
 * is a source's when that table is above its own in the tree (else a
 * restored dump's, and does nothing).  Which tables carry a source's
 * triggers is what pg_trigger says; after every statement that changes
 * a tree (CREATE TABLE ... INHERITS, ALTER TABLE ... [NO] INHERIT) the
 * tables below each captured table of it are made to carry its triggers
 * and no others (follow_tree), and the rows of those that came or went
 * are captured as a child's inserts or deletes, as a partition's are at
 * ATTACH and DETACH.  DROP TABLE of a table below a source captures its
 * rows, and those of the tables below it, as deleted first
 * (HsCaptureInheritanceDrop); TRUNCATE of one is captured by its own
 * trigger.  The first table below a source marks its log (a comment):
 * the views that read it with its children then key its rows without
 * its primary key, which holds in the table alone, for as long as the
 * log exists, however its children come and go (stream_plan.c).
 *
 * Replicas of the rows.  Under session_replication_role = replica only
 * triggers enabled REPLICA or ALWAYS fire, and logical replication's apply
 * workers run so and fire no statement triggers at all.  So an ordinary
 * source also has row triggers (named as a partitioned source's), enabled
 * REPLICA: in a session in origin mode its statement triggers capture, in
 * replica mode (a subscriber's apply worker) its row triggers do, never
 * both.  A partitioned or partition source's row triggers are enabled
 * ALWAYS, as is every source's TRUNCATE trigger.  Disabling or dropping a
 * capture trigger is refused (utility_hook.c), so capture cannot be
 * switched off while views read the table.
 *
 * The trigger writes the log with heap_insert directly: no planning, no
 * name lookups, no permission checks, so it does not depend on the
 * writer's search_path or privileges.  It is therefore not SECURITY
 * DEFINER (running as another role would change nothing, and the definer
 * wrapper costs every captured statement a catalog lookup).  The log is
 * owned by the extension's owner and nobody else may read it.
 *
 * Nothing on the source names an OID: the triggers take no arguments and
 * find the log of the table they fire on in hummock_stream.capture_logs
 * (relid -> log), cached per backend and forgotten on every relcache
 * invalidation of the table (setting capture up or down changes its
 * triggers, which invalidates it).  A table with triggers but no log, such
 * as a former source restored from a dump, is not captured: the triggers
 * do nothing.  The logs are members of the extension,
 * so pg_dump leaves them and their rows out; a log does not depend on its
 * source at all (a member's dependency would turn a drop of the source
 * into a drop of the extension), and goes when its source stops being
 * captured (HsCaptureRemoveIfUnused).
 *
 * Schema changes of a source.  The row column is bytea, not the source's
 * row type, so ALTER TABLE of the source is not refused for it (a column
 * of a table's row type freezes the table's columns).  It holds exactly
 * the bytes of the composite datum (a varlena whose header is the tuple
 * header), formed with the source's descriptor of the writer's statement.
 * ADD COLUMN, DROP COLUMN and RENAME leave those images readable with the
 * new descriptor (a shorter image reads the added columns as missing; a
 * dropped column keeps its storage).  ALTER COLUMN TYPE of a column no
 * view uses (utility_hook.c refuses the others) changes the storage: in
 * the same transaction HsCaptureReshapeLog re-forms every image of the log
 * with the new descriptor, the altered columns set to NULL (no view reads
 * them).  Readers lock the source before they read the log (stream_job.c),
 * so they see either the old descriptor and the old images or the new and
 * the new.  Logs made before this format (row column of the row type)
 * keep working, and keep the old restriction until their source stops
 * being captured.
 *
 * Capture stops when the last view of a source goes.  A view's relation
 * may be dropped in the middle of a larger deletion (DROP TABLE, DROP
 * SCHEMA ... CASCADE, DROP OWNED), where dropping another table's
 * triggers could delete objects the deletion still has on its list, so
 * HsCaptureRemoveAtCommit defers that to the transaction's pre-commit.
 * Removal never waits in the source's lock queue (HsCaptureRemoveIfUnused
 * in capture.h says why): capture it cannot lock now is left to the
 * barrier manager's next round (HsCaptureRemoveUnread).
 *
 * src/stream/capture.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/tupconvert.h"
#include "access/stratnum.h"
#include "catalog/index.h"
#include "catalog/indexing.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_inherits.h"
#include "commands/comment.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "catalog/pg_class.h"
#include "commands/extension.h"
#include "access/xlog.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"
#include "utils/xid8.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/inheritance.h"
#include "hummock_stream/row/row_shape.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/capture_marks.h"

PG_FUNCTION_INFO_V1(hummock_stream_capture);
PG_FUNCTION_INFO_V1(hummock_stream_capture_truncate);

/* Columns of a capture log; the source's row is the last. */
#define Natts_capture_log	5

/* The triggers of a source, by event (the names end with the event). */
static const char *const capture_trigger_names[] = {
	"hummock_stream_capture_insert", "hummock_stream_capture_update",
	"hummock_stream_capture_delete", "hummock_stream_capture_truncate"
};

/* The events of the row and statement triggers, in that order. */
static const char *const capture_events[] = {"INSERT", "UPDATE", "DELETE"};

/* relid -> its capture log (InvalidOid: none), for the triggers. */
typedef struct CaptureLogCacheEntry
{
	Oid			relid;			/* hash key */
	Oid			log_relid;
} CaptureLogCacheEntry;

static HTAB *capture_log_cache = NULL;

/*
 * A row trigger (one of a partitioned or partition source's, or a clone of
 * one on a partition) -> its source and how a row of the table it fires on
 * becomes a row of the source.  Forgotten on relcache invalidations of
 * either table.
 */
typedef struct RowTriggerEntry
{
	Oid			tgoid;			/* hash key */
	Oid			relid;			/* the table it fires on */
	Oid			source;
	TupleDesc	source_desc;	/* in TopMemoryContext */
	TupleConversionMap *map;	/* relid's rows -> source's; NULL: the same */
	bool		stale;			/* named after another source's OID */
	bool		descendant;		/* relid is an inheritance descendant of
								 * source: its rows are logged as a child's */
	bool		detached;		/* a partition between relid and source
								 * (relid too) is pending detach: relid's
								 * rows are not source's */
	List	   *between;		/* the partitions above relid, below source
								 * (in TopMemoryContext) */
} RowTriggerEntry;

static HTAB *row_trigger_cache = NULL;

static bool tracks_descendants(Oid relid);
static void spi_exec(const char *sql, int expected);
static void follow_tree(Oid source, Oid log_oid, bool moves);
static void switch_to_rows(Oid relid);

/* HsCaptureEnsure is making triggers (its own DDL must pass the hook). */
static bool setting_up = false;

bool
HsCaptureSettingUp(void)
{
	return setting_up;
}

/* How long a removal of capture waits between its tries for the locks. */
#define CAPTURE_REMOVAL_RETRY_MS 10

/* Sources whose capture goes at pre-commit unless a view reads them. */
static List *pending_removals = NIL;
static bool xact_callback_registered = false;

/* The log and its txid index, open for one statement's rows. */
typedef struct CaptureLog
{
	Relation	rel;
	Relation	txid_index;		/* NULL if the log has none */
	IndexInfo  *index_info;
} CaptureLog;

/*
 * Append one captured row (a composite datum of the source's row type) to
 * the log (and its txid to the index).
 */
static void
append_row(CaptureLog *log, FullTransactionId fxid, int64 stmt, int32 ord,
		   char op, Datum row)
{
	Datum		values[Natts_capture_log];
	bool		nulls[Natts_capture_log] = {false};
	HeapTuple	tup;

	values[0] = FullTransactionIdGetDatum(fxid);
	values[1] = Int64GetDatum(stmt);
	values[2] = Int32GetDatum(ord);
	values[3] = CharGetDatum(op);
	values[4] = row;
	tup = heap_form_tuple(RelationGetDescr(log->rel), values, nulls);
	simple_heap_insert(log->rel, tup);
	if (log->txid_index)
		index_insert(log->txid_index, values, nulls, &tup->t_self, log->rel,
					 UNIQUE_CHECK_NO, false, log->index_info);
	heap_freetuple(tup);
}

/* Append every row of a transition table; returns the next ord. */
static int32
append_all(CaptureLog *log, FullTransactionId fxid, int64 stmt, int32 ord,
		   char op, Tuplestorestate *ts, TupleTableSlot *slot)
{
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
		append_row(log, fxid, stmt, ord++, op, ExecFetchSlotHeapTupleDatum(slot));
	return ord;
}

/* Open the log and its index on txid (the log's only index, on column 1). */
static void
open_log(CaptureLog *log, Oid log_oid)
{
	List	   *indexes;

	log->rel = table_open(log_oid, RowExclusiveLock);
	log->txid_index = NULL;
	log->index_info = NULL;
	indexes = RelationGetIndexList(log->rel);
	if (indexes != NIL)
	{
		log->txid_index = index_open(linitial_oid(indexes), RowExclusiveLock);
		log->index_info = BuildIndexInfo(log->txid_index);
		if (log->index_info->ii_NumIndexAttrs != 1 ||
			log->index_info->ii_IndexAttrNumbers[0] != 1)
			elog(ERROR, "unexpected index on hummock_stream capture log %u", log_oid);
	}
	list_free(indexes);
}

static void
close_log(CaptureLog *log)
{
	if (log->txid_index)
		index_close(log->txid_index, NoLock);
	table_close(log->rel, NoLock);
}

/* Forget the cached capture log of relid (of every table if InvalidOid). */
static void
capture_log_cache_invalidate(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	CaptureLogCacheEntry *e;

	if (row_trigger_cache != NULL)
	{
		RowTriggerEntry *r;

		/* (the map and descriptor leak: invalidations are rare) */
		hash_seq_init(&status, row_trigger_cache);
		while ((r = hash_seq_search(&status)) != NULL)
			if (!OidIsValid(relid) || r->relid == relid || r->source == relid ||
				list_member_oid(r->between, relid))
			{
				list_free(r->between);
				(void) hash_search(row_trigger_cache, &r->tgoid, HASH_REMOVE, NULL);
			}
	}
	if (capture_log_cache == NULL)
		return;
	if (OidIsValid(relid))
	{
		(void) hash_search(capture_log_cache, &relid, HASH_REMOVE, NULL);
		return;
	}
	hash_seq_init(&status, capture_log_cache);
	while ((e = hash_seq_search(&status)) != NULL)
		(void) hash_search(capture_log_cache, &e->relid, HASH_REMOVE, NULL);
}

/* Create the caches of the triggers (once per backend). */
static void
init_trigger_caches(void)
{
	HASHCTL		ctl;

	if (capture_log_cache != NULL)
		return;
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(CaptureLogCacheEntry);
	ctl.hcxt = TopMemoryContext;
	capture_log_cache = hash_create("hummock_stream capture logs", 64, &ctl,
									HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	ctl.entrysize = sizeof(RowTriggerEntry);
	row_trigger_cache = hash_create("hummock_stream capture row triggers", 64, &ctl,
									HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	CacheRegisterRelcacheCallback(capture_log_cache_invalidate, (Datum) 0);
}

/* The capture log a trigger on relid writes, or InvalidOid (cached). */
static Oid
trigger_capture_log(Oid relid)
{
	CaptureLogCacheEntry *e;
	Oid			log_oid;

	init_trigger_caches();
	e = hash_search(capture_log_cache, &relid, HASH_FIND, NULL);
	if (e != NULL)
		return e->log_relid;
	/* the read may process invalidations: enter the entry only after it */
	log_oid = HsCatalogCaptureLogRead(relid);
	e = hash_search(capture_log_cache, &relid, HASH_ENTER, NULL);
	e->log_relid = log_oid;
	return log_oid;
}

/* The table of the trigger a clone comes from (the top of tgparentid). */
static Oid
trigger_source(Oid tgoid)
{
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	Oid			relid = InvalidOid;

	for (int depth = 0; OidIsValid(tgoid) && depth < 1000; depth++)
	{
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tup;
		Form_pg_trigger t;

		ScanKeyInit(&key, Anum_pg_trigger_oid, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(tgoid));
		scan = systable_beginscan(tgrel, TriggerOidIndexId, true, NULL, 1, &key);
		tup = systable_getnext(scan);
		if (!HeapTupleIsValid(tup))
		{
			systable_endscan(scan);
			break;
		}
		t = (Form_pg_trigger) GETSTRUCT(tup);
		relid = t->tgrelid;
		tgoid = t->tgparentid;
		systable_endscan(scan);
	}
	table_close(tgrel, AccessShareLock);
	return relid;
}

/* The source OID a trigger's name ends with ("..._<oid>"), or InvalidOid. */
static Oid
trigger_named_source(const char *tgname)
{
	const char *suffix = strrchr(tgname, '_');
	char	   *end;
	unsigned long oid;

	if (suffix == NULL || suffix[1] < '0' || suffix[1] > '9')
		return InvalidOid;
	oid = strtoul(suffix + 1, &end, 10);
	return *end == '\0' ? (Oid) oid : InvalidOid;
}

bool
HsCaptureTriggerIsStale(Oid relid, const char *tgname)
{
	Oid			named = trigger_named_source(tgname);

	return strncmp(tgname, "hummock_stream_capture_", 23) == 0 && OidIsValid(named) &&
		named != relid && !OidIsValid(HsCatalogCaptureLogOf(named));
}

/*
 * Drop relid's row triggers that a restored dump brought, named after
 * their source's OID in the dumped database (they do nothing, but each
 * fires per row, and every dump and restore added a set).  Clones on
 * partitions go with theirs.  Inside HsCaptureEnsure's setting up.
 */
static void
drop_stale_triggers(Oid relid, const char *rel_name)
{
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *stale = NIL;
	ListCell   *lc;

	ScanKeyInit(&key, Anum_pg_trigger_tgrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(tgrel, TriggerRelidNameIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_trigger t = (Form_pg_trigger) GETSTRUCT(tup);

		if (!OidIsValid(t->tgparentid) && HsCaptureTriggerIsStale(relid, NameStr(t->tgname)))
			stale = lappend(stale, pstrdup(NameStr(t->tgname)));
	}
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
	foreach(lc, stale)
	{
		char	   *sql = psprintf("DROP TRIGGER %s ON %s", quote_identifier(lfirst(lc)), rel_name);

		spi_exec(sql, SPI_OK_UTILITY);
		pfree(sql);
	}
	list_free_deep(stale);
}

/* Is relid below ancestor in an inheritance tree? */
static bool
inherits_from(Oid relid, Oid ancestor)
{
	List	   *above = HsInheritanceClosure(relid, true, NULL);
	bool		found = list_member_oid(above, ancestor) && ancestor != relid;

	list_free(above);
	return found;
}

/* The source of row trigger tg on rel, and the conversion of rel's rows. */
static RowTriggerEntry *
row_trigger(Trigger *tg, Relation rel)
{
	RowTriggerEntry *e;
	Oid			source;
	Relation	src;
	TupleDesc	source_desc;
	TupleDesc	rel_desc;
	TupleConversionMap *map = NULL;
	MemoryContext old;

	Oid			named;
	bool		descendant = false;
	bool		detached = false;
	List	   *between = NIL;

	init_trigger_caches();
	e = hash_search(row_trigger_cache, &tg->tgoid, HASH_FIND, NULL);
	if (e != NULL)
		return e;
	source = trigger_source(tg->tgoid);
	named = trigger_named_source(tg->tgname);
	/* a source's trigger on a table below it in its inheritance tree */
	if (source == RelationGetRelid(rel) && OidIsValid(named) && named != source &&
		inherits_from(source, named))
	{
		source = named;
		descendant = true;
	}

	/*
	 * A clone on a partition below source: its rows are source's only
	 * while no partition on the way up is pending detach (a DETACH ...
	 * CONCURRENTLY that committed its first transaction, also one that
	 * then failed): queries of source no longer see them, and they were
	 * not captured when the detach began (it is refused for a partition
	 * that holds rows).  The entry is forgotten on an invalidation of any
	 * of those partitions (a detach invalidates the parent's relcache).
	 */
	if (!descendant && source != RelationGetRelid(rel))
	{
		Oid			p = RelationGetRelid(rel);

		for (int depth = 0; p != source && depth < 1000 && get_rel_relispartition(p); depth++)
		{
			detached |= HsInheritanceDetachPending(p);
			p = get_partition_parent(p, true);
			if (p != source)
				between = lappend_oid(between, p);
		}
	}
	src = relation_open(source, AccessShareLock);
	old = MemoryContextSwitchTo(TopMemoryContext);
	between = list_copy(between);
	source_desc = CreateTupleDescCopy(RelationGetDescr(src));
	if (source != RelationGetRelid(rel))
	{
		rel_desc = CreateTupleDescCopy(RelationGetDescr(rel));
		map = convert_tuples_by_name(rel_desc, source_desc);
	}
	MemoryContextSwitchTo(old);
	relation_close(src, AccessShareLock);
	/* the lookups may process invalidations: enter the entry only after */
	e = hash_search(row_trigger_cache, &tg->tgoid, HASH_ENTER, NULL);
	e->relid = RelationGetRelid(rel);
	e->source = source;
	e->source_desc = source_desc;
	e->map = map;
	e->descendant = descendant;
	e->detached = detached;
	e->between = between;
	/* a restored dump's trigger, named after its source's old OID */
	e->stale = named != source;
	return e;
}

/* Append a row of the table a row trigger fires on, as the source's row. */
static void
append_tuple(CaptureLog *log, RowTriggerEntry *rt, FullTransactionId fxid, int64 stmt,
			 int32 ord, char op, HeapTuple tup)
{
	HeapTuple	converted = rt->map ? execute_attr_map_tuple(tup, rt->map) : tup;

	append_row(log, fxid, stmt, ord, op, heap_copy_tuple_as_datum(converted, rt->source_desc));
	if (converted != tup)
		heap_freetuple(converted);
}

/*
 * A row trigger of a partitioned or partition source (or its clone on a
 * partition): the row, as a row of the source, with its WAL position as
 * the statement number.
 */
static Datum
capture_row(TriggerData *trig)
{
	RowTriggerEntry *rt = row_trigger(trig->tg_trigger, trig->tg_relation);
	Oid			log_oid = rt->stale || rt->detached ? InvalidOid :
		trigger_capture_log(rt->source);
	FullTransactionId fxid;
	int64		stmt;
	CaptureLog	log;
	char		ins = rt->descendant ? HS_CAPTURE_CHILD_INSERT : HS_CAPTURE_INSERT;
	char		del = rt->descendant ? HS_CAPTURE_CHILD_DELETE : HS_CAPTURE_DELETE;

	if (!OidIsValid(log_oid))
		return PointerGetDatum(NULL);	/* not captured (a restored table, or
										 * a partition pending detach) */
	fxid = GetTopFullTransactionId();
	stmt = (int64) GetXLogInsertRecPtr();
	HsCaptureMarkWrite(rt->source, fxid);
	open_log(&log, log_oid);
	if (TRIGGER_FIRED_BY_INSERT(trig->tg_event))
		append_tuple(&log, rt, fxid, stmt, 0, ins, trig->tg_trigtuple);
	else if (TRIGGER_FIRED_BY_DELETE(trig->tg_event))
		append_tuple(&log, rt, fxid, stmt, 0, del, trig->tg_trigtuple);
	else if (TRIGGER_FIRED_BY_UPDATE(trig->tg_event))
	{
		append_tuple(&log, rt, fxid, stmt, 0, del, trig->tg_trigtuple);
		append_tuple(&log, rt, fxid, stmt, 1, ins, trig->tg_newtuple);
	}
	close_log(&log);
	return PointerGetDatum(NULL);
}

/*
 * The capture trigger: hummock_stream._capture(), a statement-level AFTER
 * trigger with transition tables, or (partitioned and partition sources)
 * an AFTER ... FOR EACH ROW trigger.  Arguments are ignored (triggers made
 * by earlier versions name the log's OID; the log is looked up instead).
 */
Datum
hummock_stream_capture(PG_FUNCTION_ARGS)
{
	TriggerData *trig = (TriggerData *) fcinfo->context;
	Oid			log_oid;
	CaptureLog	log;
	TupleTableSlot *slot;
	FullTransactionId fxid;
	int64		stmt;
	int32		ord = 0;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(trig->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("hummock_stream._capture() must be an AFTER trigger")));
	if (TRIGGER_FIRED_FOR_ROW(trig->tg_event))
		return capture_row(trig);
	if (trig->tg_oldtable == NULL && trig->tg_newtable == NULL)
		return PointerGetDatum(NULL);

	log_oid = trigger_capture_log(RelationGetRelid(trig->tg_relation));
	if (!OidIsValid(log_oid))
		return PointerGetDatum(NULL);	/* not captured (a restored table) */
	fxid = GetTopFullTransactionId();
	stmt = (int64) GetXLogInsertRecPtr();
	/* before any row: readers skip the log only below every marked writer */
	HsCaptureMarkWrite(RelationGetRelid(trig->tg_relation), fxid);

	open_log(&log, log_oid);
	slot = MakeSingleTupleTableSlot(RelationGetDescr(trig->tg_relation),
									&TTSOpsMinimalTuple);
	if (trig->tg_oldtable)
		ord = append_all(&log, fxid, stmt, ord, HS_CAPTURE_DELETE,
						 trig->tg_oldtable, slot);
	if (trig->tg_newtable)
		ord = append_all(&log, fxid, stmt, ord, HS_CAPTURE_INSERT,
						 trig->tg_newtable, slot);
	ExecDropSingleTupleTableSlot(slot);
	close_log(&log);
	return PointerGetDatum(NULL);
}

/*
 * Append every row of table rows_of (a partitioned table: of each of its
 * leaf partitions) to source's log as op, converted to source's row type
 * (rows_of is source, or a partition under it).  The caller holds ACCESS
 * EXCLUSIVE on rows_of and its partitions: every other writer of them has
 * ended, so a fresh snapshot shows exactly the rows they hold (committed
 * by anyone, or written earlier in this transaction), and the WAL
 * position taken now, the statement's number, comes after the commit of
 * every one of them (as a later statement's would).  This costs the log
 * what a DELETE (INSERT) of every row costs.
 */
static void
capture_rows(Oid rows_of, Relation source, Oid log_oid, char op)
{
	TupleDesc	source_desc = RelationGetDescr(source);
	FullTransactionId fxid = GetTopFullTransactionId();
	int64		stmt = (int64) GetXLogInsertRecPtr();
	Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
	MemoryContext row_cxt = AllocSetContextCreate(CurrentMemoryContext,
												  "hummock_stream rows capture",
												  ALLOCSET_DEFAULT_SIZES);
	List	   *tables;
	ListCell   *lc;
	int32		ord = 0;
	CaptureLog	log;

	/* (locked; partitions pending detach hold no rows of the tree) */
	if (get_rel_relkind(rows_of) == RELKIND_PARTITIONED_TABLE)
		tables = HsInheritanceClosure(rows_of, false, NULL);
	else
		tables = list_make1_oid(rows_of);
	HsCaptureMarkWrite(RelationGetRelid(source), fxid);
	open_log(&log, log_oid);
	foreach(lc, tables)
	{
		Relation	table;
		TupleConversionMap *map = NULL;
		TupleTableSlot *slot;
		TableScanDesc scan;

		if (get_rel_relkind(lfirst_oid(lc)) != RELKIND_RELATION)
			continue;			/* (a partitioned table holds no rows) */
		table = lfirst_oid(lc) == RelationGetRelid(source) ? source :
			table_open(lfirst_oid(lc), NoLock);
		if (table != source)
			map = convert_tuples_by_name(RelationGetDescr(table), source_desc);
		slot = table_slot_create(table, NULL);
		scan = table_beginscan(table, snap, 0, NULL);
		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			MemoryContext old = MemoryContextSwitchTo(row_cxt);
			HeapTuple	tup = ExecFetchSlotHeapTuple(slot, false, NULL);

			if (map)
				tup = execute_attr_map_tuple(tup, map);
			append_row(&log, fxid, stmt, ord++, op, heap_copy_tuple_as_datum(tup, source_desc));
			MemoryContextSwitchTo(old);
			MemoryContextReset(row_cxt);
			CHECK_FOR_INTERRUPTS();
		}
		table_endscan(scan);
		ExecDropSingleTupleTableSlot(slot);
		if (map)
			free_conversion_map(map);
		if (table != source)
			table_close(table, NoLock);
	}
	close_log(&log);
	UnregisterSnapshot(snap);
	MemoryContextDelete(row_cxt);
}

/* BEFORE TRUNCATE on a source: its rows, captured as deleted. */
Datum
hummock_stream_capture_truncate(PG_FUNCTION_ARGS)
{
	TriggerData *trig = (TriggerData *) fcinfo->context;
	Oid			log_oid;
	Oid			named;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BY_TRUNCATE(trig->tg_event) ||
		!TRIGGER_FIRED_BEFORE(trig->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("hummock_stream._capture_truncate() must be a BEFORE TRUNCATE trigger")));
	named = trigger_named_source(trig->tg_trigger->tgname);
	if (OidIsValid(named))
	{
		Relation	source;

		/* a source's trigger on a table below it: a child's rows go */
		if (named == RelationGetRelid(trig->tg_relation) ||
			!inherits_from(RelationGetRelid(trig->tg_relation), named))
			return PointerGetDatum(NULL);	/* (a restored dump's) */
		log_oid = trigger_capture_log(named);
		if (!OidIsValid(log_oid))
			return PointerGetDatum(NULL);
		source = table_open(named, AccessShareLock);
		capture_rows(RelationGetRelid(trig->tg_relation), source, log_oid,
					 HS_CAPTURE_CHILD_DELETE);
		table_close(source, AccessShareLock);
		return PointerGetDatum(NULL);
	}
	log_oid = trigger_capture_log(RelationGetRelid(trig->tg_relation));
	if (OidIsValid(log_oid))
	{
		/*
		 * TRUNCATE holds ACCESS EXCLUSIVE on the table (on a partitioned
		 * table's whole tree) when BEFORE TRUNCATE triggers fire.
		 */
		capture_rows(RelationGetRelid(trig->tg_relation), trig->tg_relation,
					 log_oid, HS_CAPTURE_DELETE);
	}
	return PointerGetDatum(NULL);
}

/* ---------------------------------------------------------------------
 * Setting capture up and tearing it down (SPI, as the extension's owner)
 * ---------------------------------------------------------------------
 */

static void
spi_exec(const char *sql, int expected)
{
	int			rc = SPI_execute(sql, false, 0);

	if (rc != expected)
		elog(ERROR, "hummock_stream: \"%s\" failed: %s", sql, SPI_result_code_string(rc));
}


/*
 * Is relid captured by row triggers: a partitioned table or a partition,
 * or a table in an inheritance tree?  A statement naming an inheritance
 * parent fires neither statement triggers of the children it reaches nor
 * lets the parent's tell their rows from its own (its transition tables
 * hold both), while row triggers fire on the table that holds the row.
 * (relhassubclass may stay set after the last child went: row capture
 * is then merely what it was.)
 */
static bool
captured_by_rows(Oid relid)
{
	return get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE || get_rel_relispartition(relid) ||
		has_subclass(relid) || has_superclass(relid);
}

/* The name of the row trigger of source relid for event i (in buf). */
static void
row_trigger_name(StringInfo buf, int i, Oid relid)
{
	resetStringInfo(buf);
	appendStringInfo(buf, "%s_%u", capture_trigger_names[i], relid);
}

Oid
HsCaptureEnsure(Oid relid)
{
	Oid			log_oid = HsCatalogCaptureLogOf(relid);
	HsUserContext owner;
	char	   *rel_name;
	StringInfoData sql;
	ObjectAddress log_addr,
				ext_addr;
	static const char *const referencing[] = {
		"NEW TABLE AS hs_new", "OLD TABLE AS hs_old NEW TABLE AS hs_new", "OLD TABLE AS hs_old"
	};

	if (OidIsValid(log_oid))
	{
		/*
		 * Made by a version that captured inheritance trees by statement
		 * and not their children: no view read them with its children.
		 */
		switch_to_rows(relid);
		if (tracks_descendants(relid))
			follow_tree(relid, log_oid, false);
		return log_oid;
	}

	rel_name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
										  get_rel_name(relid));

	initStringInfo(&sql);		/* in our context: it outlives each SPI_finish */
	HsBecomeExtensionOwner(&owner);
	SPI_connect();
	appendStringInfo(&sql,
					 "CREATE TABLE hummock_stream.capture_%u ("
					 " txid xid8 NOT NULL, stmt bigint NOT NULL, ord integer NOT NULL,"
					 " op \"char\" NOT NULL, r bytea NOT NULL) USING heap", relid);
	spi_exec(sql.data, SPI_OK_UTILITY);
	resetStringInfo(&sql);
	appendStringInfo(&sql, "REVOKE ALL ON hummock_stream.capture_%u FROM PUBLIC", relid);
	spi_exec(sql.data, SPI_OK_UTILITY);
	/* jobs read the rows of transactions at or after their position's xmin */
	resetStringInfo(&sql);
	appendStringInfo(&sql, "CREATE INDEX ON hummock_stream.capture_%u (txid)", relid);
	spi_exec(sql.data, SPI_OK_UTILITY);

	resetStringInfo(&sql);
	appendStringInfo(&sql, "hummock_stream.capture_%u", relid);
	log_oid = RangeVarGetRelid(makeRangeVarFromNameList(stringToQualifiedNameList(sql.data)),
							   NoLock, false);
	/*
	 * The triggers too: a view's owner needs SELECT on the source, not the
	 * right to put triggers on it.  OR REPLACE: a table restored from a
	 * dump may have them already (doing nothing without a log).  Row
	 * triggers for every source: fired always for partitioned tables and
	 * partitions, and for ordinary tables only where their statement
	 * triggers are not, under session_replication_role = replica (logical
	 * replication's apply workers run so, and fire no statement triggers).
	 */
	setting_up = true;
	PG_TRY();
	{
		drop_stale_triggers(relid, rel_name);
		for (int i = 0; i < 3; i++)
		{
			StringInfoData name;

			if (!captured_by_rows(relid))
			{
				resetStringInfo(&sql);
				appendStringInfo(&sql,
								 "CREATE OR REPLACE TRIGGER %s AFTER %s ON %s"
								 " REFERENCING %s FOR EACH STATEMENT"
								 " EXECUTE FUNCTION hummock_stream._capture()",
								 capture_trigger_names[i], capture_events[i], rel_name, referencing[i]);
				spi_exec(sql.data, SPI_OK_UTILITY);
			}
			initStringInfo(&name);
			row_trigger_name(&name, i, relid);
			resetStringInfo(&sql);
			appendStringInfo(&sql,
							 "CREATE OR REPLACE TRIGGER %s AFTER %s ON %s FOR EACH ROW"
							 " EXECUTE FUNCTION hummock_stream._capture()",
							 quote_identifier(name.data), capture_events[i], rel_name);
			spi_exec(sql.data, SPI_OK_UTILITY);
			resetStringInfo(&sql);
			appendStringInfo(&sql, "ALTER TABLE %s ENABLE %s TRIGGER %s", rel_name,
							 captured_by_rows(relid) ? "ALWAYS" : "REPLICA",
							 quote_identifier(name.data));
			spi_exec(sql.data, SPI_OK_UTILITY);
			pfree(name.data);
		}
		/* TRUNCATE is captured in replica mode too (an apply worker's) */
		resetStringInfo(&sql);
		appendStringInfo(&sql,
						 "CREATE OR REPLACE TRIGGER %s BEFORE TRUNCATE ON %s"
						 " FOR EACH STATEMENT EXECUTE FUNCTION hummock_stream._capture_truncate()",
						 capture_trigger_names[3], rel_name);
		spi_exec(sql.data, SPI_OK_UTILITY);
		resetStringInfo(&sql);
		appendStringInfo(&sql, "ALTER TABLE %s ENABLE ALWAYS TRIGGER %s", rel_name,
						 capture_trigger_names[3]);
		spi_exec(sql.data, SPI_OK_UTILITY);
	}
	PG_FINALLY();
	{
		setting_up = false;
	}
	PG_END_TRY();
	SPI_finish();
	HsCatalogAddCaptureLog(relid, log_oid);

	/*
	 * The log is a member of the extension (pg_dump leaves it out), with
	 * its privileges as the extension's initial ones (so none are dumped
	 * either).  It depends on nothing else: a dependency on the source
	 * would turn a drop of the source into a drop of the extension, whose
	 * member the log is.
	 */
	ObjectAddressSet(log_addr, RelationRelationId, log_oid);
	ObjectAddressSet(ext_addr, ExtensionRelationId, get_extension_oid(HS_EXTENSION_NAME, false));
	recordDependencyOn(&log_addr, &ext_addr, DEPENDENCY_EXTENSION);
	recordExtObjInitPriv(log_oid, RelationRelationId);
	HsRestoreUser(&owner);

	/* backends forget what their triggers knew of relid's log */
	CacheInvalidateRelcacheByRelid(relid);
	CommandCounterIncrement();
	/* the tables below it (locked with it: HsViewLockSources) */
	if (tracks_descendants(relid))
		follow_tree(relid, log_oid, false);
	pfree(sql.data);
	return log_oid;
}

/* ---------------------------------------------------------------------
 * Inheritance trees (see "Inheritance" above)
 * ---------------------------------------------------------------------
 */

/* Does source capture the rows of the tables below it (inheritance)? */
static bool
tracks_descendants(Oid relid)
{
	return get_rel_relkind(relid) == RELKIND_RELATION && !get_rel_relispartition(relid);
}

/*
 * The tables other than source that carry source's triggers (those below
 * it in its tree when it was last followed).
 */
static List *
covered_tables(Oid source)
{
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	StringInfoData name;
	NameData	tgname;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *out = NIL;

	initStringInfo(&name);
	row_trigger_name(&name, 0, source);
	namestrcpy(&tgname, name.data);
	ScanKeyInit(&key, Anum_pg_trigger_tgname, BTEqualStrategyNumber, F_NAMEEQ,
				NameGetDatum(&tgname));
	scan = systable_beginscan(tgrel, InvalidOid, false, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_trigger t = (Form_pg_trigger) GETSTRUCT(tup);

		if (t->tgrelid != source && !OidIsValid(t->tgparentid))
			out = list_append_unique_oid(out, t->tgrelid);
	}
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
	pfree(name.data);
	return out;
}

/*
 * Create source's triggers on table, a table below it, or drop them (SPI
 * connected, as the extension's owner, setting_up): its rows go to
 * source's log as a child's.
 */
static void
descendant_triggers(Oid source, Oid table, bool create)
{
	char	   *rel_name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(table)),
													  get_rel_name(table));
	StringInfoData name;
	StringInfoData sql;

	initStringInfo(&name);
	initStringInfo(&sql);
	for (int i = 0; i < 4; i++)
	{
		row_trigger_name(&name, i, source);
		resetStringInfo(&sql);
		if (!create)
			appendStringInfo(&sql, "DROP TRIGGER IF EXISTS %s ON %s",
							 quote_identifier(name.data), rel_name);
		else if (i < 3)
			appendStringInfo(&sql,
							 "CREATE OR REPLACE TRIGGER %s AFTER %s ON %s FOR EACH ROW"
							 " EXECUTE FUNCTION hummock_stream._capture()",
							 quote_identifier(name.data), capture_events[i], rel_name);
		else
			appendStringInfo(&sql,
							 "CREATE OR REPLACE TRIGGER %s BEFORE TRUNCATE ON %s"
							 " FOR EACH STATEMENT EXECUTE FUNCTION hummock_stream._capture_truncate()",
							 quote_identifier(name.data), rel_name);
		spi_exec(sql.data, SPI_OK_UTILITY);
		if (!create)
			continue;
		resetStringInfo(&sql);
		appendStringInfo(&sql, "ALTER TABLE %s ENABLE ALWAYS TRIGGER %s", rel_name,
						 quote_identifier(name.data));
		spi_exec(sql.data, SPI_OK_UTILITY);
	}
	pfree(name.data);
	pfree(sql.data);
}

/*
 * The comment of a log whose source has had tables below it: views that
 * read it with its children key its rows without its primary key from
 * then on (HsCaptureTracksChildren), whatever children come and go.
 */
#define TREE_MARK "hummock_stream: holds the rows of inheritance children"

bool
HsCaptureTracksChildren(Oid relid)
{
	Oid			log_oid;
	char	   *comment;

	if (!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) || !HsCatalogExists())
		return false;
	log_oid = HsCatalogCaptureLogOf(relid);
	if (!OidIsValid(log_oid))
		return false;
	comment = GetComment(log_oid, RelationRelationId, 0);
	return comment != NULL && strcmp(comment, TREE_MARK) == 0;
}

/*
 * Give the tables below source in its inheritance tree its triggers, and
 * take them from those no longer below it; with moves, capture the rows
 * of the tables that came (as a child's Inserts) and went (Deletes), as
 * ATTACH and DETACH of a partition are.  The caller holds what the
 * command that moved them holds; the tables that move are locked ACCESS
 * EXCLUSIVE here (their writers have ended: a fresh snapshot shows their
 * rows).
 */
static void
follow_tree(Oid source, Oid log_oid, bool moves)
{
	List	   *want = find_all_inheritors(source, NoLock, NULL);
	List	   *have = covered_tables(source);
	List	   *entering = NIL;
	List	   *leaving = NIL;
	ListCell   *lc;
	HsUserContext owner;

	want = list_delete_oid(want, source);
	foreach(lc, want)
		if (!list_member_oid(have, lfirst_oid(lc)) &&
			get_rel_relkind(lfirst_oid(lc)) == RELKIND_RELATION)
			entering = lappend_oid(entering, lfirst_oid(lc));
	foreach(lc, have)
		if (!list_member_oid(want, lfirst_oid(lc)) &&
			OidIsValid(get_rel_namespace(lfirst_oid(lc))))
			leaving = lappend_oid(leaving, lfirst_oid(lc));
	if (entering == NIL && leaving == NIL)
		return;
	if (moves)
	{
		Relation	rel = table_open(source, AccessShareLock);

		foreach(lc, leaving)
		{
			LockRelationOid(lfirst_oid(lc), AccessExclusiveLock);
			capture_rows(lfirst_oid(lc), rel, log_oid, HS_CAPTURE_CHILD_DELETE);
		}
		foreach(lc, entering)
		{
			LockRelationOid(lfirst_oid(lc), AccessExclusiveLock);
			capture_rows(lfirst_oid(lc), rel, log_oid, HS_CAPTURE_CHILD_INSERT);
		}
		table_close(rel, AccessShareLock);
	}
	HsBecomeExtensionOwner(&owner);
	SPI_connect();
	setting_up = true;
	PG_TRY();
	{
		foreach(lc, leaving)
			descendant_triggers(source, lfirst_oid(lc), false);
		foreach(lc, entering)
			descendant_triggers(source, lfirst_oid(lc), true);
	}
	PG_FINALLY();
	{
		setting_up = false;
	}
	PG_END_TRY();
	SPI_finish();
	if (entering != NIL && !HsCaptureTracksChildren(source))
		CreateComments(log_oid, RelationRelationId, 0, TREE_MARK);
	HsRestoreUser(&owner);
	CommandCounterIncrement();
}

/*
 * Capture relid by row triggers from now on, if it is captured by
 * statement triggers and is in an inheritance tree.
 */
static void
switch_to_rows(Oid relid)
{
	HsUserContext owner;
	char	   *rel_name;
	StringInfoData sql;
	StringInfoData name;

	if (!captured_by_rows(relid) ||
		!OidIsValid(get_trigger_oid(relid, capture_trigger_names[0], true)))
		return;

	/*
	 * As CREATE TRIGGER would: no writer of relid is in the middle of a
	 * statement, so each is captured wholly by one kind of trigger.
	 */
	LockRelationOid(relid, ShareRowExclusiveLock);
	rel_name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
										  get_rel_name(relid));
	initStringInfo(&sql);
	initStringInfo(&name);
	HsBecomeExtensionOwner(&owner);
	SPI_connect();
	setting_up = true;
	PG_TRY();
	{
		for (int i = 0; i < 3; i++)
		{
			resetStringInfo(&sql);
			appendStringInfo(&sql, "DROP TRIGGER %s ON %s", capture_trigger_names[i], rel_name);
			spi_exec(sql.data, SPI_OK_UTILITY);
			row_trigger_name(&name, i, relid);
			resetStringInfo(&sql);
			appendStringInfo(&sql, "ALTER TABLE %s ENABLE ALWAYS TRIGGER %s", rel_name,
							 quote_identifier(name.data));
			spi_exec(sql.data, SPI_OK_UTILITY);
		}
	}
	PG_FINALLY();
	{
		setting_up = false;
	}
	PG_END_TRY();
	SPI_finish();
	HsRestoreUser(&owner);
	CommandCounterIncrement();
	pfree(sql.data);
	pfree(name.data);
}

void
HsCaptureFollowInheritance(Oid relid)
{
	ListCell   *lc;

	if (!OidIsValid(relid) || !OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) ||
		!HsCatalogExists() || !OidIsValid(get_rel_namespace(relid)))
		return;
	foreach(lc, HsInheritanceClosure(relid, true, NULL))
	{
		Oid			source = lfirst_oid(lc);
		Oid			log_oid;

		if (!tracks_descendants(source))
			continue;
		log_oid = HsCatalogCaptureLogOf(source);
		if (!OidIsValid(log_oid))
			continue;
		switch_to_rows(source);
		follow_tree(source, log_oid, true);
	}
}

void
HsCaptureInheritanceDrop(List *dropped)
{
	List	   *tables = NIL;
	List	   *sources = NIL;
	ListCell   *lc;

	if (!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) || !HsCatalogExists())
		return;
	foreach(lc, dropped)
	{
		Oid			relid = lfirst_oid(lc);
		ListCell   *la;

		if (!OidIsValid(relid) || !tracks_descendants(relid) || !has_superclass(relid))
			continue;
		foreach(la, HsInheritanceClosure(relid, true, NULL))
			if (lfirst_oid(la) != relid && tracks_descendants(lfirst_oid(la)) &&
				OidIsValid(HsCatalogCaptureLogOf(lfirst_oid(la))))
				sources = list_append_unique_oid(sources, lfirst_oid(la));
		/*
		 * It goes with the tables below it (CASCADE, or the drop fails),
		 * locked as the drop will (find_all_inheritors locks only those
		 * below): their writers have ended, a fresh snapshot shows their rows.
		 */
		LockRelationOid(relid, AccessExclusiveLock);
		tables = list_concat_unique_oid(tables,
										find_all_inheritors(relid, AccessExclusiveLock, NULL));
	}
	foreach(lc, sources)
	{
		Oid			source = lfirst_oid(lc);
		Oid			log_oid = HsCatalogCaptureLogOf(source);
		List	   *covered;
		Relation	rel;
		ListCell   *lt;

		if (list_member_oid(tables, source))
			continue;			/* dropped itself, with its views */
		covered = covered_tables(source);
		rel = table_open(source, AccessShareLock);
		foreach(lt, tables)
			if (list_member_oid(covered, lfirst_oid(lt)))
				capture_rows(lfirst_oid(lt), rel, log_oid, HS_CAPTURE_CHILD_DELETE);
		table_close(rel, AccessShareLock);
	}
}

/*
 * Add every capture trigger defined on relid to objs: ours and any a
 * restored dump brought (row triggers named after an old OID); a
 * partitioned table's go with their clones.
 */
static void
add_capture_triggers(Oid relid, Oid source, ObjectAddresses *objs)
{
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			capture_fn = LookupFuncName(list_make2(makeString(HS_SCHEMA_NAME),
													   makeString("_capture")),
											0, NULL, true);
	Oid			truncate_fn = LookupFuncName(list_make2(makeString(HS_SCHEMA_NAME),
														makeString("_capture_truncate")),
											 0, NULL, true);

	ScanKeyInit(&key, Anum_pg_trigger_tgrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(tgrel, TriggerRelidNameIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_trigger t = (Form_pg_trigger) GETSTRUCT(tup);
		ObjectAddress addr;

		Oid			named;

		if (OidIsValid(t->tgparentid) ||
			(t->tgfoid != capture_fn && t->tgfoid != truncate_fn))
			continue;
		named = trigger_named_source(NameStr(t->tgname));
		/* on a table below source: source's own; on source: not those of
		 * a source above it */
		if (relid != source ? named != source :
			(OidIsValid(named) && named != source &&
			 OidIsValid(HsCatalogCaptureLogOf(named)) && inherits_from(relid, named)))
			continue;
		ObjectAddressSet(addr, TriggerRelationId, t->oid);
		add_exact_object_address(&addr, objs);
	}
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
}

/*
 * Lock relid against everyone (AccessExclusiveLock) without joining its
 * lock queue; added to *taken when this call took it.
 */
static bool
lock_now(Oid relid, List **taken)
{
	if (!ConditionalLockRelationOid(relid, AccessExclusiveLock))
		return false;
	*taken = lappend_oid(*taken, relid);
	return true;
}

static void
unlock_all(List *taken)
{
	ListCell   *lc;

	foreach(lc, taken)
		UnlockRelationOid(lfirst_oid(lc), AccessExclusiveLock);
	list_free(taken);
}

bool
HsCaptureRemoveIfUnused(Oid relid, int tries)
{
	Oid			ext = get_extension_oid(HS_EXTENSION_NAME, true);
	Oid			log_oid;
	HsUserContext owner;
	ObjectAddresses *objs;
	ObjectAddress addr;
	bool		source_exists;
	List	   *covered = NIL;
	List	   *taken = NIL;

	/* a dropped extension took the logs and the triggers along */
	if (!OidIsValid(ext))
		return true;
	log_oid = HsCatalogCaptureLogOf(relid);
	if (!OidIsValid(log_oid) || HsCatalogIsSource(relid))
		return true;
	source_exists = OidIsValid(get_rel_namespace(relid));
	if (source_exists)
		covered = covered_tables(relid);

	/*
	 * Lock the source, the tables below it that carry its triggers, and
	 * the log, without waiting in their lock queues (the header says why);
	 * if one is busy, let go of what this attempt took and try again.
	 */
	for (int attempt = 0;; attempt++)
	{
		bool		all = true;
		ListCell   *lc;

		if (source_exists)
		{
			all = lock_now(relid, &taken);
			foreach(lc, covered)
				if (all && OidIsValid(get_rel_namespace(lfirst_oid(lc))))
					all = lock_now(lfirst_oid(lc), &taken);
		}
		if (all)
			all = lock_now(log_oid, &taken);
		if (all)
			break;
		unlock_all(taken);
		taken = NIL;
		if (attempt + 1 >= tries)
		{
			/* (and not again at this transaction's pre-commit) */
			pending_removals = list_delete_oid(pending_removals, relid);
			elog(DEBUG1, "hummock_stream: capture of relation %u stays until a later round (a lock on it is held)",
				 relid);
			return false;
		}
		pg_usleep(CAPTURE_REMOVAL_RETRY_MS * 1000L);
		CHECK_FOR_INTERRUPTS();
	}

	/*
	 * Again, now that nobody can set up a creation over relid (a creation
	 * whose set-up committed since the first look reads it now).
	 */
	if (HsCatalogIsSource(relid) ||
		!OidIsValid(log_oid = HsCatalogCaptureLogOf(relid)))
	{
		unlock_all(taken);
		return true;
	}
	list_free(taken);			/* (held until the transaction ends) */

	/*
	 * The triggers (if the source still exists: a source dropped with its
	 * views took them along) and the log, in one
	 * deletion of our own objects: no DDL statements, no event triggers.
	 */
	HsBecomeExtensionOwner(&owner);
	objs = new_object_addresses();
	if (source_exists)
	{
		ListCell   *lc;

		add_capture_triggers(relid, relid, objs);
		/* and those it has on the tables below it */
		foreach(lc, covered_tables(relid))
			add_capture_triggers(lfirst_oid(lc), relid, objs);
	}
	/* a member of the extension is dropped by leaving it first */
	(void) deleteDependencyRecordsForSpecific(RelationRelationId, log_oid, DEPENDENCY_EXTENSION,
											  ExtensionRelationId, ext);
	removeExtObjInitPriv(log_oid, RelationRelationId);
	CommandCounterIncrement();
	ObjectAddressSet(addr, RelationRelationId, log_oid);
	add_exact_object_address(&addr, objs);
	performMultipleDeletions(objs, DROP_RESTRICT, PERFORM_DELETION_INTERNAL);
	free_object_addresses(objs);

	HsRestoreUser(&owner);
	HsCatalogRemoveCaptureLog(relid);
	if (source_exists)
		CacheInvalidateRelcacheByRelid(relid);	/* (dropping it did) */
	CommandCounterIncrement();
	return true;
}

void
HsCaptureRemoveUnread(void)
{
	/* (each commit leaves CurrentMemoryContext in TopMemoryContext) */
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext cxt = AllocSetContextCreate(caller, "hummock_stream unread capture",
											  ALLOCSET_SMALL_SIZES);
	MemoryContext old;
	List	   *tables;
	ListCell   *lc;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	old = MemoryContextSwitchTo(cxt);
	tables = OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) ?
		HsCatalogUnreadCaptureLogs() : NIL;
	MemoryContextSwitchTo(old);
	PopActiveSnapshot();
	CommitTransactionCommand();

	/* one transaction each, trying once: a busy table waits a round */
	foreach(lc, tables)
	{
		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (HsCaptureRemoveIfUnused(lfirst_oid(lc), 1))
			elog(DEBUG1, "hummock_stream stopped capturing relation %u, which no view reads",
				 lfirst_oid(lc));
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	MemoryContextSwitchTo(caller);
	MemoryContextDelete(cxt);
}

Oid
HsCaptureSourceAbove(Oid parent)
{
	List	   *chain;
	ListCell   *lc;

	if (!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)))
		return InvalidOid;
	if (OidIsValid(HsCatalogCaptureLogOf(parent)))
		return parent;
	/* above a partition, or a table below a source in an inheritance tree */
	chain = get_rel_relispartition(parent) ? get_partition_ancestors(parent) :
		HsInheritanceClosure(parent, true, NULL);
	foreach(lc, chain)
		if (OidIsValid(HsCatalogCaptureLogOf(lfirst_oid(lc))))
			return lfirst_oid(lc);
	return InvalidOid;
}

/* Does relid (a table, or a partitioned table's partitions) hold a row? */
static bool
holds_rows(Oid relid)
{
	bool		found = false;
	ListCell   *lc;

	foreach(lc, find_all_inheritors(relid, AccessExclusiveLock, NULL))
	{
		Relation	rel;
		TableScanDesc scan;
		TupleTableSlot *slot;
		Snapshot	snap;

		if (get_rel_relkind(lfirst_oid(lc)) != RELKIND_RELATION)
			continue;
		rel = table_open(lfirst_oid(lc), AccessExclusiveLock);
		snap = RegisterSnapshot(GetLatestSnapshot());
		scan = table_beginscan(rel, snap, 0, NULL);
		slot = table_slot_create(rel, NULL);
		found = table_scan_getnextslot(scan, ForwardScanDirection, slot);
		ExecDropSingleTupleTableSlot(slot);
		table_endscan(scan);
		UnregisterSnapshot(snap);
		table_close(rel, NoLock);
		if (found)
			break;
	}
	return found;
}

void
HsCaptureCheckPartitionMove(Oid parent, Oid part, const char *verb)
{
	Oid			source = HsCaptureSourceAbove(parent);

	if (!OidIsValid(source) || !holds_rows(part))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot %s \"%s\", which holds rows, because streaming materialized views read \"%s\"",
					verb, get_rel_name(part), get_rel_name(source)),
			 errdetail("Its rows would leave \"%s\" in a transaction of their own, which the views cannot follow.",
					   get_rel_name(source)),
			 errhint("Detach it without CONCURRENTLY: its rows are then captured as deleted.")));
}

void
HsCapturePartitionMove(Oid parent, LOCKMODE parent_lock, Oid part, bool entering)
{
	List	   *chain;
	ListCell   *lc;
	bool		locked = false;

	if (!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)))
		return;
	/*
	 * A partition pending detach (its DETACH ... CONCURRENTLY failed or
	 * was canceled) left the tree when the detach began: queries of the
	 * tables above no longer see its rows, nor were the rows written into
	 * it since captured.  Dropping or truncating it, or finalizing the
	 * detach, takes nothing from them.
	 */
	if (!entering && HsInheritanceDetachPending(part))
		return;
	chain = list_make1_oid(parent);
	if (get_rel_relispartition(parent))
		chain = list_concat(chain, get_partition_ancestors(parent));
	foreach(lc, chain)
	{
		Oid			source = lfirst_oid(lc);
		Oid			log_oid = HsCatalogCaptureLogOf(source);
		Relation	rel;

		if (!OidIsValid(log_oid))
			continue;
		if (!locked)
		{
			/* the parent first, as the command itself locks them */
			LockRelationOid(parent, parent_lock);
			LockRelationOid(part, AccessExclusiveLock);
			(void) find_all_inheritors(part, AccessExclusiveLock, NULL);
			locked = true;
		}
		rel = table_open(source, source == parent ? NoLock : AccessShareLock);
		capture_rows(part, rel, log_oid, entering ? HS_CAPTURE_INSERT : HS_CAPTURE_DELETE);
		table_close(rel, NoLock);
	}
	list_free(chain);
}

/*
 * Re-form image, a row of old, as a row of new: the columns whose storage
 * changed (and those new adds) become NULL.
 */
static Datum
reshape_image(Datum image, TupleDesc old, TupleDesc new)
{
	HeapTupleHeader th = (HeapTupleHeader) PG_DETOAST_DATUM(image);
	HeapTupleData row;
	Datum	   *ov = palloc(sizeof(Datum) * old->natts);
	bool	   *on = palloc(sizeof(bool) * old->natts);
	Datum	   *nv = palloc0(sizeof(Datum) * new->natts);
	bool	   *nn = palloc(sizeof(bool) * new->natts);
	HeapTuple	formed;

	row.t_len = HeapTupleHeaderGetDatumLength(th);
	row.t_data = th;
	ItemPointerSetInvalid(&row.t_self);
	row.t_tableOid = InvalidOid;
	heap_deform_tuple(&row, old, ov, on);
	for (int i = 0; i < new->natts; i++)
	{
		nn[i] = !HsRowColumnCarries(old, new, i) || on[i];
		if (!nn[i])
			nv[i] = ov[i];
	}
	formed = heap_form_tuple(new, nv, nn);
	return heap_copy_tuple_as_datum(formed, new);
}

void
HsCaptureReshapeLog(Oid relid, TupleDesc old_desc)
{
	Oid			log_oid = HsCatalogCaptureLogOf(relid);
	Relation	source;
	Relation	log;
	TupleDesc	new_desc;
	TupleDesc	log_desc;
	TableScanDesc scan;
	Snapshot	snap;
	HeapTuple	tup;
	MemoryContext per_row,
				old;
	int64		reshaped = 0;

	if (!OidIsValid(log_oid))
		return;
	source = table_open(relid, NoLock); /* the ALTER holds it */
	new_desc = CreateTupleDescCopy(RelationGetDescr(source));
	table_close(source, NoLock);
	if (HsRowImagesReadable(old_desc, new_desc))
		return;

	/* no trim (a DELETE) runs meanwhile; readers (ACCESS SHARE) may */
	log = table_open(log_oid, ExclusiveLock);
	log_desc = RelationGetDescr(log);
	if (TupleDescAttr(log_desc, Natts_capture_log - 1)->atttypid != BYTEAOID)
		elog(ERROR, "capture log of \"%s\" has no bytea row column", get_rel_name(relid));
	per_row = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream reshape",
									ALLOCSET_DEFAULT_SIZES);
	snap = RegisterSnapshot(GetLatestSnapshot());
	scan = table_beginscan(log, snap, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Datum		values[Natts_capture_log];
		bool		nulls[Natts_capture_log];
		HeapTuple	updated;

		old = MemoryContextSwitchTo(per_row);
		heap_deform_tuple(tup, log_desc, values, nulls);
		values[Natts_capture_log - 1] = reshape_image(values[Natts_capture_log - 1],
													  old_desc, new_desc);
		updated = heap_form_tuple(log_desc, values, nulls);
		/* (the updated versions are newer than snap: the scan skips them) */
		CatalogTupleUpdate(log, &tup->t_self, updated);
		MemoryContextSwitchTo(old);
		MemoryContextReset(per_row);
		reshaped++;
	}
	table_endscan(scan);
	UnregisterSnapshot(snap);
	MemoryContextDelete(per_row);
	table_close(log, NoLock);
	CommandCounterIncrement();
	elog(DEBUG1, "hummock_stream: reshaped %lld captured rows of \"%s\"",
		 (long long) reshaped, get_rel_name(relid));
}

/* At pre-commit: stop capturing the sources no view reads any more. */
static void
capture_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			if (pending_removals == NIL)
				break;
			/* the statements have ended: SPI needs a snapshot of its own */
			PushActiveSnapshot(GetTransactionSnapshot());
			while (pending_removals != NIL)
			{
				Oid			relid = linitial_oid(pending_removals);

				pending_removals = list_delete_first(pending_removals);
				(void) HsCaptureRemoveIfUnused(relid, HS_CAPTURE_REMOVAL_TRIES);
			}
			PopActiveSnapshot();
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
			list_free(pending_removals);
			pending_removals = NIL;
			break;
		default:
			break;
	}
}

List *
HsCaptureTakeRemovalsAtCommit(void)
{
	List	   *out = list_copy(pending_removals);

	list_free(pending_removals);
	pending_removals = NIL;
	return out;
}

void
HsCaptureRemoveAtCommit(Oid relid)
{
	MemoryContext old;

	if (!xact_callback_registered)
	{
		RegisterXactCallback(capture_xact_callback, NULL);
		xact_callback_registered = true;
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	pending_removals = list_append_unique_oid(pending_removals, relid);
	MemoryContextSwitchTo(old);
}
