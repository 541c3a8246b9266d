/*-------------------------------------------------------------------------
 *
 * source_alter.c
 *	  ALTER TABLE of a table that streaming views read (a "source").
 *
 * A view depends on the source columns its query uses (stream_ddl.c
 * records them, as Postgres does for a view), and its job's leaf also
 * keeps the source's primary key columns (stream_plan.c: rows are keyed
 * by them in the view's and the executors' state).  So, on a captured
 * table and its inheritors:
 *
 *	- ADD COLUMN (with any default), DROP COLUMN and RENAME of columns no
 *	  view uses, and RENAME of any column, work: the capture log's images
 *	  stay readable (capture.c) and the jobs build their executors again
 *	  at their next epoch (stream_job.c);
 *	- ALTER COLUMN TYPE of a column no view uses works: the log's images
 *	  are re-formed in the same transaction (HsCaptureReshapeLog);
 *	- ALTER COLUMN TYPE of a column a view uses, or of a primary key
 *	  column, is refused in Postgres's words for views; DROP COLUMN of a
 *	  used column stops at the view's dependency (Postgres's own check),
 *	  and of a primary key column here, with the same words;
 *	- SET NOT NULL and DROP NOT NULL of a column a view uses are refused:
 *	  the planner relies on the column's nullability (NOT IN, IN as a
 *	  value, outer joins), and a job planned again after a restart would
 *	  not find its state; so is DROP NOT NULL of that column (by name) in
 *	  a table below the source when the view reads the source with its
 *	  children and the source's column is NOT NULL: the view reads the
 *	  child's rows as the source's, which it took never to be NULL there
 *	  (Postgres refuses it for a partition, not for an inheritance child);
 *	- SET UNLOGGED is refused (a crash would empty the table unseen);
 *	- DROP CONSTRAINT of the primary key the views key rows by, and adding
 *	  one where there is none, are refused: either would change how the
 *	  views key their rows (a job built again after a restart would not
 *	  find its state).
 *
 * A table a view reads with its inheritance children (not FROM ONLY) has
 * their rows captured into its log (capture.c).  Its view keys its rows
 * by its primary key only if it had no children when the view was
 * created: then it may get none while the view reads it
 * (HsSourceCheckNewChild).  Nor may a table read with its children
 * (partitioned tables always are) get one that is not an ordinary
 * permanent table, by any statement, nor may one of them become
 * unlogged: the tree is checked after each statement that could change
 * it (HsSourceCheckTree).
 *
 * A view's stored definition (hummock_stream.jobs.definition, the text
 * its query was created from) names the source's columns and the source;
 * after a RENAME or SET SCHEMA of either it is deparsed again from the
 * view's rule, as pg_matviews would show it (HsSourceRenamed).
 *
 * src/stream/source_alter.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/index.h"
#include "catalog/indexing.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_inherits.h"
#include "commands/extension.h"
#include "nodes/bitmapset.h"
#include "nodes/nodeFuncs.h"
#include "nodes/readfuncs.h"
#include "parser/parsetree.h"
#include "storage/lmgr.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
#include "rewrite/rewriteHandler.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/pg/inheritance.h"
#include "hummock_stream/stream/capture.h"
#include "hummock_stream/stream/source_alter.h"
#include "hummock_stream/stream/stream_plan.h"
#include "hummock_stream/stream/view_dependents.h"

/* A captured table whose column types an ALTER TABLE may change. */
typedef struct ReshapeTarget
{
	Oid			relid;
	TupleDesc	before;			/* with its missing values */
} ReshapeTarget;

/*
 * A relation USING hummock (a streaming view) that depends on column
 * attnum of relid (0: on relid itself, as every view of it does), or
 * InvalidOid: the oldest one (lowest OID), so the message does not depend
 * on where pg_depend's rows happen to lie.
 */
static Oid
view_depending_on(Oid relid, AttrNumber attnum)
{
	return HsViewDependingOn(RelationRelationId, relid, (int32) attnum);
}

static bool reads_with_children(Node *node, void *relid);

/* Does view read relid (*arg) with its children (not FROM ONLY)? */
static bool
view_reads_with_children(Oid view, void *arg)
{
	HsJobRow	row;

	return HsCatalogReadJob(view, &row) && row.query_tree != NULL &&
		reads_with_children((Node *) stringToNode(row.query_tree), arg);
}

/*
 * The oldest view (lowest OID) that depends on column attnum of relid and
 * reads relid with its children (not FROM ONLY), or InvalidOid.
 */
static Oid
view_reading_column_with_children(Oid relid, AttrNumber attnum)
{
	return HsViewDependingOnWhere(RelationRelationId, relid, (int32) attnum,
								  view_reads_with_children, &relid);
}

/* Is column attnum of relid declared NOT NULL? */
static bool
column_not_null(Oid relid, AttrNumber attnum)
{
	HeapTuple	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(attnum));
	bool		result = false;

	if (HeapTupleIsValid(tup))
	{
		result = ((Form_pg_attribute) GETSTRUCT(tup))->attnotnull;
		ReleaseSysCache(tup);
	}
	return result;
}

/* "materialized view v", as Postgres's dependency messages name it. */
static char *
describe(Oid view)
{
	ObjectAddress addr;

	ObjectAddressSet(addr, RelationRelationId, view);
	return getObjectDescription(&addr, false);
}

/*
 * The primary key's columns of relid (attnums), its constraint, and
 * whether the views key relid's rows by it (the key has an encoding).
 */
static Bitmapset *
primary_key_columns(Oid relid, Oid *constraint, bool *keys_rows)
{
	Relation	rel = table_open(relid, AccessShareLock);
	Oid			pk = RelationGetPrimaryKeyIndex(rel);
	Bitmapset  *offset = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_PRIMARY_KEY);
	Bitmapset  *cols = NULL;
	int			a = -1;

	table_close(rel, AccessShareLock);
	while ((a = bms_next_member(offset, a)) >= 0)
		cols = bms_add_member(cols, a + FirstLowInvalidHeapAttributeNumber);
	*constraint = OidIsValid(pk) ? get_index_constraint(pk) : InvalidOid;
	*keys_rows = HsStreamPlanSourceKey(relid) != NIL;
	return cols;
}

/* Does cmd add a primary key (ADD PRIMARY KEY, ADD COLUMN ... PRIMARY KEY)? */
static bool
adds_primary_key(AlterTableCmd *cmd)
{
	ListCell   *lc;

	switch (cmd->subtype)
	{
		case AT_AddConstraint:
		case AT_AddConstraintRecurse:
			return IsA(cmd->def, Constraint) &&
				((Constraint *) cmd->def)->contype == CONSTR_PRIMARY;
		case AT_AddIndex:
		case AT_AddIndexConstraint:
			return IsA(cmd->def, IndexStmt) && ((IndexStmt *) cmd->def)->primary;
		case AT_AddColumn:
		case AT_AddColumnRecurse:
			if (!IsA(cmd->def, ColumnDef))
				return false;
			foreach(lc, ((ColumnDef *) cmd->def)->constraints)
				if (IsA(lfirst(lc), Constraint) &&
					((Constraint *) lfirst(lc))->contype == CONSTR_PRIMARY)
					return true;
			return false;
		default:
			return false;
	}
}

/*
 * DROP NOT NULL of a column of table c, below captured tables in its tree:
 * refused when a view reads one of them with its children and was planned
 * for its column of that name being NOT NULL (as it is declared there).
 * The view reads c's rows as that table's, and a NULL among them would
 * make it compute NOT IN (an anti join over a column never NULL), IN as a
 * value and outer joins otherwise than the query does.  The views record
 * the columns they use as dependencies on the table they name, not on its
 * children, so the tables above c are asked.
 */
static void
check_child_not_null(Oid c, AlterTableCmd *cmd)
{
	ListCell   *la;

	if (cmd->subtype != AT_DropNotNull || cmd->name == NULL)
		return;
	foreach(la, HsInheritanceClosure(c, true, NULL))
	{
		Oid			above = lfirst_oid(la);
		AttrNumber	attnum;
		Oid			view;

		if (above == c || !OidIsValid(HsCatalogCaptureLogOf(above)))
			continue;
		attnum = get_attnum(above, cmd->name);
		if (attnum == InvalidAttrNumber || !column_not_null(above, attnum))
			continue;
		view = view_reading_column_with_children(above, attnum);
		if (!OidIsValid(view))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot drop NOT NULL of column \"%s\" of table \"%s\" because a streaming materialized view uses it",
						cmd->name, get_rel_name(c)),
				 errdetail("%s reads \"%s\" with its children and was planned for its column \"%s\" as it is, never NULL: whether it can be NULL decides how NOT IN, IN and outer joins over it are computed.",
						   describe(view), get_rel_name(above), cmd->name),
				 errhint("Drop the view, change the column, and create the view again.")));
	}
}

/* Check one command against captured table c (read by view reader). */
static void
check_command(Oid c, Oid reader, AlterTableCmd *cmd, bool is_target)
{
	Oid			pk_constraint;
	bool		keys_rows;
	Bitmapset  *pk = primary_key_columns(c, &pk_constraint, &keys_rows);
	AttrNumber	attnum = cmd->name ? get_attnum(c, cmd->name) : InvalidAttrNumber;
	Oid			view;

	switch (cmd->subtype)
	{
		case AT_SetUnLogged:
			/* a crash would empty it without a change the views can follow */
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot make table \"%s\" unlogged because %s reads it",
							get_rel_name(c), describe(reader)),
					 errdetail("A crash empties an unlogged table without a change the view can follow.")));
			break;
		case AT_AlterColumnType:
			if (attnum == InvalidAttrNumber)
				break;			/* ALTER TABLE reports it */
			view = view_depending_on(c, attnum);
			if (OidIsValid(view) || bms_is_member(attnum, pk))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot alter type of a column used by a view or rule"),
						 errdetail("%s depends on column \"%s\"",
								   describe(OidIsValid(view) ? view : reader), cmd->name),
						 OidIsValid(view) ? 0 :
						 errhint("The view keeps its rows of \"%s\" by its primary key.",
								 get_rel_name(c))));
			break;
		case AT_SetNotNull:
		case AT_DropNotNull:
			if (attnum == InvalidAttrNumber)
				break;			/* ALTER TABLE reports it */
			view = view_depending_on(c, attnum);
			if (OidIsValid(view))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot %s NOT NULL of column \"%s\" of table \"%s\" because a streaming materialized view uses it",
								cmd->subtype == AT_SetNotNull ? "set" : "drop",
								cmd->name, get_rel_name(c)),
						 errdetail("%s was planned for the column as it is: whether it can be NULL decides how NOT IN, IN and outer joins over it are computed.",
								   describe(view)),
						 errhint("Drop the view, change the column, and create the view again.")));
			break;
		case AT_DropColumn:
		case AT_DropColumnRecurse:
			/* a column a view uses stops at the view's dependency */
			if (attnum != InvalidAttrNumber && bms_is_member(attnum, pk))
				ereport(ERROR,
						(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
						 errmsg("cannot drop column %s of table %s because other objects depend on it",
								cmd->name, get_rel_name(c)),
						 errdetail("%s depends on column %s of table %s",
								   describe(reader), cmd->name, get_rel_name(c)),
						 errhint("The view keeps its rows of \"%s\" by its primary key: drop the view first.",
								 get_rel_name(c))));
			break;
		case AT_DropConstraint:
		case AT_DropConstraintRecurse:
			if (is_target && keys_rows && cmd->name &&
				get_relation_constraint_oid(c, cmd->name, true) == pk_constraint)
				ereport(ERROR,
						(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
						 errmsg("cannot drop constraint %s on table %s because other objects depend on it",
								cmd->name, get_rel_name(c)),
						 errdetail("%s depends on constraint %s on table %s",
								   describe(reader), cmd->name, get_rel_name(c)),
						 errhint("The view keeps its rows of \"%s\" by its primary key: drop the view first.",
								 get_rel_name(c))));
			break;
		default:
			if (!OidIsValid(pk_constraint) && adds_primary_key(cmd))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot add a primary key to table \"%s\" while streaming materialized views read it",
								get_rel_name(c)),
						 errdetail("%s keeps its rows of \"%s\" without a key; with one it would key them differently.",
								   describe(reader), get_rel_name(c)),
						 errhint("Drop the views, add the key, and create the views again.")));
			break;
	}
	bms_free(pk);
}

typedef struct WholeRowContext
{
	Oid			relid;
	List	   *levels;			/* the query levels walked, innermost first */
} WholeRowContext;

/* Does the query tree use a whole row (to_jsonb(t)) of table relid? */
static bool
reads_whole_row(Node *node, WholeRowContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varattno == 0 &&
		((Var *) node)->varlevelsup < (Index) list_length(ctx->levels))
	{
		Var		   *v = (Var *) node;
		Query	   *q = list_nth(ctx->levels, v->varlevelsup);
		RangeTblEntry *rte = rt_fetch(v->varno, q->rtable);

		return rte->rtekind == RTE_RELATION && rte->relid == ctx->relid;
	}
	if (IsA(node, Query))
	{
		bool		r;

		ctx->levels = lcons(node, ctx->levels);
		r = query_tree_walker((Query *) node, reads_whole_row, ctx, 0);
		ctx->levels = list_delete_first(ctx->levels);
		return r;
	}
	return expression_tree_walker(node, reads_whole_row, ctx);
}

/*
 * Refuse a change of table c's columns (what: "add a column to", ...)
 * when a view reads its whole rows: every row of the view would change
 * (to_jsonb(t) gains a key), which the view cannot follow without
 * computing itself again.
 */
static void
check_whole_row_readers(Oid c, const char *what)
{
	ListCell   *lc;

	foreach(lc, HsCatalogReaders(c))
	{
		Oid			job = lfirst_oid(lc);
		HsJobRow	row;
		WholeRowContext ctx = {c, NIL};

		if (!HsCatalogReadJob(job, &row) || row.query_tree == NULL ||
			!reads_whole_row((Node *) stringToNode(row.query_tree), &ctx))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot %s table \"%s\" because %s reads its whole rows",
						what, get_rel_name(c), describe(job)),
				 errdetail("The view's rows hold the table's rows as values of its row type."),
				 errhint("Drop the view, alter the table, and create the view again.")));
	}
}

void
HsSourceCheckColumnRename(Oid relid)
{
	ListCell   *lc;

	if (!OidIsValid(relid) || !OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) ||
		!HsCatalogExists())
		return;
	foreach(lc, find_all_inheritors(relid, NoLock, NULL))
		if (OidIsValid(HsCatalogCaptureLogOf(lfirst_oid(lc))))
			check_whole_row_readers(lfirst_oid(lc), "rename a column of");
}

void *
HsSourceAlterBegin(Oid relid, AlterTableStmt *stmt)
{
	List	   *tree;
	List	   *reshape = NIL;
	bool		alters_types = false;
	ListCell   *lc;
	ListCell   *lc2;

	if (!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) || !HsCatalogExists())
		return NULL;
	foreach(lc, stmt->cmds)
		alters_types |= ((AlterTableCmd *) lfirst(lc))->subtype == AT_AlterColumnType;

	/* the statement reaches relid and (unless ONLY) its inheritors */
	tree = stmt->relation->inh ? find_all_inheritors(relid, NoLock, NULL) : list_make1_oid(relid);
	foreach(lc, tree)
	{
		Oid			c = lfirst_oid(lc);
		Oid			reader;

		/* a column of a table below a source, read as the source's */
		if (has_superclass(c))
			foreach(lc2, stmt->cmds)
				check_child_not_null(c, lfirst(lc2));
		if (!OidIsValid(HsCatalogCaptureLogOf(c)))
			continue;
		reader = view_depending_on(c, 0);
		if (!OidIsValid(reader))
			continue;
		foreach(lc2, stmt->cmds)
		{
			AlterTableCmd *cmd = lfirst(lc2);

			check_command(c, reader, cmd, c == relid);
			if (cmd->subtype == AT_AddColumn || cmd->subtype == AT_AddColumnRecurse)
				check_whole_row_readers(c, "add a column to");
			else if (cmd->subtype == AT_DropColumn || cmd->subtype == AT_DropColumnRecurse)
				check_whole_row_readers(c, "drop a column of");
			else if (cmd->subtype == AT_AlterColumnType)
				check_whole_row_readers(c, "alter a column type of");
		}
		if (alters_types)
		{
			ReshapeTarget *t = palloc(sizeof(ReshapeTarget));
			Relation	rel;

			/*
			 * The ALTER takes these locks too (the named table first, as it
			 * does); the descriptor is final once they are held.
			 */
			LockRelationOid(relid, AccessExclusiveLock);
			LockRelationOid(c, AccessExclusiveLock);
			rel = table_open(c, NoLock);
			t->relid = c;
			t->before = CreateTupleDescCopyConstr(RelationGetDescr(rel));
			table_close(rel, NoLock);
			reshape = lappend(reshape, t);
		}
	}
	return reshape;
}

void
HsSourceAlterDone(void *state)
{
	ListCell   *lc;

	foreach(lc, (List *) state)
	{
		ReshapeTarget *t = lfirst(lc);

		HsCaptureReshapeLog(t->relid, t->before);
	}
}

/* Deparse job's definition again from its rule (the query as written). */
static void
redescribe(Oid job)
{
	Relation	view = table_open(job, AccessShareLock);

	/*
	 * The view's rule holds its query as written, by OIDs and attnums;
	 * deparsed from a copy (deparsing edits the tree it is given).
	 */
	HsCatalogSetDefinition(job, pg_get_querydef(copyObject(get_view_query(view)), false));
	table_close(view, AccessShareLock);
}

void
HsSourceRenamed(Oid relid)
{
	ListCell   *lc;

	if (!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) || !HsCatalogExists())
		return;
	if (!OidIsValid(relid))
	{
		/* (a schema, a Postgres view or a function: any view may name it) */
		foreach(lc, HsCatalogJobs())
		{
			HsJobRow   *job = lfirst(lc);

			if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(job->job_id)))
				redescribe(job->job_id);
		}
		return;
	}
	foreach(lc, HsCatalogReaders(relid))
		redescribe(lfirst_oid(lc));
}

/*
 * The oldest view (lowest OID) reading captured table source with its
 * children, or InvalidOid (also when source is not captured).
 */
static Oid
oldest_reader_with_children(Oid source)
{
	Oid			reader = InvalidOid;
	ListCell   *lc;

	if (!OidIsValid(HsCatalogCaptureLogOf(source)))
		return InvalidOid;
	foreach(lc, HsCatalogReaders(source))
	{
		Oid			job = lfirst_oid(lc);

		if ((!OidIsValid(reader) || job < reader) &&
			view_reads_with_children(job, &source))
			reader = job;
	}
	return reader;
}

/* Does the query tree read table *relid with its inheritance children? */
static bool
reads_with_children(Node *node, void *relid)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		return rte->rtekind == RTE_RELATION && rte->relid == *(Oid *) relid && rte->inh;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, reads_with_children, relid,
								 QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(node, reads_with_children, relid);
}

void
HsSourceCheckNewChild(Oid parent)
{
	ListCell   *la;

	if (!OidIsValid(parent) || get_rel_relkind(parent) != RELKIND_RELATION ||
		!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) || !HsCatalogExists())
		return;
	foreach(la, HsInheritanceClosure(parent, true, NULL))
	{
		Oid			source = lfirst_oid(la);
		Oid			reader = oldest_reader_with_children(source);

		if (OidIsValid(reader) &&
			!HsStreamPlanKeylessTree(source) && HsStreamPlanSourceKey(source) != NIL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot add an inheritance child to table \"%s\" because streaming materialized view \"%s\" reads it with its children",
							get_rel_name(source), get_rel_name(reader)),
					 errdetail("The view was created while \"%s\" had no children, and keys its rows by its primary key, which a child's rows need not keep.",
							   get_rel_name(source)),
					 errhint("Drop the view and create it again once \"%s\" has a child, or create it with FROM ONLY \"%s\".",
							 get_rel_name(source), get_rel_name(source))));
	}
}

/*
 * The tree of a source is checked after the statement, whatever it was:
 * a table may join it in many ways (CREATE TABLE ... PARTITION OF or
 * INHERITS, CREATE FOREIGN TABLE ..., ATTACH PARTITION, INHERIT, each
 * also with a partitioned table that brings its own partitions along) and
 * a member may change its persistence (SET UNLOGGED), and the outcome is
 * what matters: every table below each captured table above relid that a
 * view reads with its children is checked as at the view's creation.
 */
void
HsSourceCheckTree(Oid relid)
{
	ListCell   *la;

	/* (capture.c's own statements, setting capture up, change no tree) */
	if (!OidIsValid(relid) || HsCaptureSettingUp() || !OidIsValid(get_rel_namespace(relid)) ||
		!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)) || !HsCatalogExists())
		return;
	foreach(la, HsInheritanceClosure(relid, true, NULL))
	{
		Oid			source = lfirst_oid(la);
		Oid			reader = oldest_reader_with_children(source);

		if (OidIsValid(reader))
			HsStreamPlanCheckChildren(source, reader);
	}
}

/*
 * The streaming view (lowest OID) that reads Postgres view view, or
 * InvalidOid (also when view is not a view or the extension is absent).
 */
static Oid
reader_of_view(Oid view)
{
	if (!OidIsValid(view) || get_rel_relkind(view) != RELKIND_VIEW ||
		!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)))
		return InvalidOid;
	return view_depending_on(view, 0);
}

void
HsSourceCheckAlterView(Oid view, const char *what)
{
	Oid			reader = reader_of_view(view);

	if (OidIsValid(reader))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot %s view \"%s\" because %s reads it",
						what, get_rel_name(view), describe(reader)),
				 errdetail("A streaming materialized view reads the tables under a view with the rights its expansion had at its creation: those of the view's owner then, or, with security_invoker, its own."),
				 errhint("Drop the streaming materialized view, alter the view, then create it again.")));
}

void
HsSourceCheckReassignOwned(List *roles)
{
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *views = NIL;
	ListCell   *lc;

	if (roles == NIL || !OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)))
		return;
	rel = table_open(RelationRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_class c = (Form_pg_class) GETSTRUCT(tup);

		if (c->relkind == RELKIND_VIEW && list_member_oid(roles, c->relowner))
			views = lappend_oid(views, c->oid);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	foreach(lc, views)
		HsSourceCheckAlterView(lfirst_oid(lc), "reassign the owner of");
}

void
HsSourceCheckReplaceView(Oid view)
{
	Oid			reader = reader_of_view(view);

	if (OidIsValid(reader))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot replace view \"%s\" because %s reads it",
						get_rel_name(view), describe(reader)),
				 errdetail("A streaming materialized view keeps the expansion of the views it reads from its creation; it would no longer be the query over the view."),
				 errhint("Drop the streaming materialized view, replace the view, then create it again.")));
}
