/*-------------------------------------------------------------------------
 *
 * capture.h
 *	  Change capture on ordinary tables that streaming views read.
 *
 * See src/stream/capture.c for the protocol.
 *
 * include/hummock_stream/stream/capture.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_CAPTURE_H
#define HS_STREAM_CAPTURE_H

#include "access/tupdesc.h"

/* Op codes stored in a capture log's "op" column. */
#define HS_CAPTURE_INSERT	'I'
#define HS_CAPTURE_DELETE	'D'
/* the same for a row of a table below the source in its inheritance tree */
#define HS_CAPTURE_CHILD_INSERT	'i'
#define HS_CAPTURE_CHILD_DELETE	'd'
#define HsCaptureOpIsChild(op)	((op) == HS_CAPTURE_CHILD_INSERT || (op) == HS_CAPTURE_CHILD_DELETE)
#define HsCaptureOpIsInsert(op)	((op) == HS_CAPTURE_INSERT || (op) == HS_CAPTURE_CHILD_INSERT)

/*
 * Make sure relid has capture triggers and a capture log; returns the
 * log's OID.  Caller must hold ShareRowExclusiveLock on relid.
 */
extern Oid	HsCaptureEnsure(Oid relid);

/*
 * After a statement that changed the inheritance tree of relid (gave it a
 * child or a parent, or took one away): for relid and every captured table
 * above it, capture by row triggers from now on, put its triggers on the
 * tables now below it and take them from those no longer below it,
 * capturing their rows as a child's Inserts and Deletes (capture.c,
 * "Inheritance").
 */
extern void HsCaptureFollowInheritance(Oid relid);

/*
 * The tables dropped (OIDs a DROP TABLE names) are about to go with the
 * tables below them: capture their rows as a child's Deletes into the log
 * of every captured table above them.  Locks them ACCESS EXCLUSIVE.
 */
extern void HsCaptureInheritanceDrop(List *dropped);

/*
 * Has captured table relid had tables below it in its inheritance tree
 * (its log holds or held their rows)?  Views reading it with its children
 * then key its rows without its primary key.
 */
extern bool HsCaptureTracksChildren(Oid relid);

/*
 * Drop relid's triggers and log if no streaming job reads relid any more
 * (relid may have been dropped: then its log goes).  It needs
 * AccessExclusiveLock on relid, the tables below it that carry its
 * triggers and the log, and never waits in their lock queues: it asks
 * for them up to tries times, 10 ms apart, and if one stays busy leaves
 * the capture in place and returns false.  Waiting in the queue would
 * stall every reader and writer of the source behind a long reader of
 * it, and deadlock with a concurrent creation: its caller holds a lock on
 * the source (from parsing the definition) while it waits for its
 * creator, which the lock manager cannot see, and the creator's own locks
 * would queue behind ours.  The barrier manager removes the capture left
 * in place about every second (HsCaptureRemoveUnread).
 */
#define HS_CAPTURE_REMOVAL_TRIES 100
extern bool HsCaptureRemoveIfUnused(Oid relid, int tries);

/*
 * Remove the capture that no view reads and that removals left in place,
 * trying each table once, in a transaction of its own (the barrier
 * manager's chore, launcher.h; called outside a transaction).
 */
extern void HsCaptureRemoveUnread(void);

/*
 * The same at the pre-commit of this transaction: safe to call in the
 * middle of a deletion (the object-access hook of a dropped view).
 */
extern void HsCaptureRemoveAtCommit(Oid relid);

/*
 * Take back the removals this transaction deferred to its pre-commit (a
 * List of OIDs, in the current memory context), to do them later with
 * HsCaptureRemoveIfUnused: removing capture locks the source against
 * readers, so a process that must not wait for them now defers it.
 */
extern List *HsCaptureTakeRemovalsAtCommit(void);

/*
 * The captured table at or above parent in its partition tree (parent
 * itself, or an ancestor), or InvalidOid.
 */
extern Oid	HsCaptureSourceAbove(Oid parent);

/*
 * After ALTER TABLE changed the storage of relid's columns (old_desc: its
 * descriptor before, with its missing values): re-form the rows of its
 * capture log with the new descriptor (capture.c, "Schema changes").  The
 * caller holds ACCESS EXCLUSIVE on relid.
 */
extern void HsCaptureReshapeLog(Oid relid, TupleDesc old_desc);

/* Is capture being set up now (its own trigger DDL is running)? */
extern bool HsCaptureSettingUp(void);

/*
 * Refuse a change that makes the rows of part enter or leave the
 * partitions of parent (verb: "detach concurrently", which moves them in
 * a transaction of its own) when a captured table is at or above parent
 * and part holds rows.  Locks part's tables.
 */
extern void HsCaptureCheckPartitionMove(Oid parent, Oid part, const char *verb);

/*
 * The rows of part are about to enter (attach) or leave (detach, drop,
 * truncate) the partitions of parent: capture them as Inserts or Deletes
 * of every captured table at or above parent, so that its views follow.
 * Locks parent in parent_lock (the mode the command takes on it) and
 * part's tables in ACCESS EXCLUSIVE (as the command does).
 */
extern void HsCapturePartitionMove(Oid parent, LOCKMODE parent_lock, Oid part, bool entering);

/*
 * Is tgname, a trigger on relid, a capture row trigger a restored dump
 * brought: named after a table OID of the dumped database, which no
 * captured table here has?  It does nothing, and may be dropped.
 */
extern bool HsCaptureTriggerIsStale(Oid relid, const char *tgname);

#endif							/* HS_STREAM_CAPTURE_H */
