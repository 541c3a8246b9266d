/*-------------------------------------------------------------------------
 *
 * type_alter.h
 *	  ALTER TYPE of a composite type whose values streaming views keep,
 *	  ALTER TABLE of a table whose row type they keep, and ALTER TYPE ...
 *	  RENAME VALUE or a renumbering ADD VALUE of an enum type they keep.
 *
 * src/stream/type_alter.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_TYPE_ALTER_H
#define HS_STREAM_TYPE_ALTER_H

#include "nodes/pg_list.h"

/*
 * Before ALTER TYPE ... ADD/DROP/ALTER/RENAME ATTRIBUTE of the composite
 * type whose relation is relid, or ALTER TABLE ... ADD/DROP/ALTER COLUMN
 * ... TYPE or RENAME COLUMN of the table relid: refuses if a streaming
 * view uses the (row) type, or a type built on it.
 */
extern void HsTypeAlterCheck(Oid relid);

/*
 * Before ALTER TYPE ... RENAME VALUE of the enum type typ: refuses if a
 * streaming view uses the type (a value's label, spelled by a cast to
 * text, changes; a view keeps the old spelling).
 */
extern void HsEnumRenameCheck(Oid typ);

/*
 * Around ALTER TYPE ... ADD VALUE of the enum type typ: Begin (before)
 * returns the positions of its labels if a streaming view uses the type,
 * else NIL; Done (after) refuses the statement if it renumbered them.
 */
extern List *HsEnumAddValueBegin(Oid typ);
extern void HsEnumAddValueDone(Oid typ, List *positions);

#endif							/* HS_STREAM_TYPE_ALTER_H */
