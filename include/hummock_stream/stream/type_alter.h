/*-------------------------------------------------------------------------
 *
 * type_alter.h
 *	  ALTER TYPE of a composite type whose values streaming views keep.
 *
 * src/stream/type_alter.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_TYPE_ALTER_H
#define HS_STREAM_TYPE_ALTER_H

/*
 * Before ALTER TYPE ... ADD/DROP/ALTER/RENAME ATTRIBUTE of the composite
 * type whose relation is relid: refuses if a streaming view uses the type,
 * or a type built on it.
 */
extern void HsTypeAlterCheck(Oid relid);

#endif							/* HS_STREAM_TYPE_ALTER_H */
