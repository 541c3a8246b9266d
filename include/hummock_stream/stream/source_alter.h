/*-------------------------------------------------------------------------
 *
 * source_alter.h
 *	  ALTER TABLE of a table that streaming views read.
 *
 * src/stream/source_alter.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_SOURCE_ALTER_H
#define HS_STREAM_SOURCE_ALTER_H

#include "nodes/parsenodes.h"

/*
 * Before ALTER TABLE relid runs: refuse what would change a column or the
 * primary key the views of relid (or of its inheritors) depend on.
 * Returns what HsSourceAlterDone needs after the statement (NULL: nothing).
 */
extern void *HsSourceAlterBegin(Oid relid, AlterTableStmt *stmt);

/* After the ALTER TABLE succeeded: reshape the capture logs it changed. */
extern void HsSourceAlterDone(void *state);

/*
 * After relid (a source table or a view's relation) or one of its columns
 * was renamed or moved to another schema: deparse the definitions of the
 * views that read it again.  InvalidOid: of every view (after a schema, a
 * Postgres view or a function was renamed or moved).
 */
extern void HsSourceRenamed(Oid relid);

/*
 * Before RENAME COLUMN of relid: refused when a view reads the whole rows
 * of relid or an inheritor (the field names of the rows it holds change).
 */
extern void HsSourceCheckColumnRename(Oid relid);

/*
 * Before a statement makes a table an inheritance child of parent (CREATE
 * TABLE ... INHERITS, ALTER TABLE ... INHERIT): refuse if a view reads
 * parent, or a table above it, with its children (not FROM ONLY) and keys
 * its rows by its primary key, which the child's rows need not keep.
 */
extern void HsSourceCheckNewChild(Oid parent);

/*
 * After a statement that may have changed the inheritance or partition
 * tree relid is in, or relid's persistence (CREATE TABLE, CREATE FOREIGN
 * TABLE, ALTER TABLE): refuse (0A000, as at a view's creation) if a table
 * below a source above relid that a view reads with its children is not
 * an ordinary permanent table.
 */
extern void HsSourceCheckTree(Oid relid);

/*
 * Before CREATE OR REPLACE VIEW view: refuse if a streaming view reads it
 * (it keeps the expansion of its creation).
 */
extern void HsSourceCheckReplaceView(Oid view);

/*
 * Before ALTER VIEW view OWNER TO, SET/RESET (security_invoker), or
 * REASSIGN OWNED of it: refuse if a streaming view reads it.  The tables
 * under a Postgres view are read with its owner's privileges (or, with
 * security_invoker, the reader's, and row-level security applies), and the
 * streaming view keeps the expansion of its creation, whose privilege
 * checks name that owner: it would go on reading as the old one.  what
 * is the verb phrase of the message ("change the owner of").
 */
extern void HsSourceCheckAlterView(Oid view, const char *what);

/* Before REASSIGN OWNED BY roles (OIDs): the same for each view they own. */
extern void HsSourceCheckReassignOwned(List *roles);

#endif							/* HS_STREAM_SOURCE_ALTER_H */
