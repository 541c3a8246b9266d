/*-------------------------------------------------------------------------
 *
 * memtable.h
 *	  The write buffer of one state table for one epoch, with old values.
 *
 * A state table writes its changes of an epoch to an HsMemtable; each user
 * key holds one operation that carries the old value as well as the new:
 *
 *		Insert(new)		the key did not exist before the epoch
 *		Delete(old)		the key existed with value old and is gone
 *		Update(old, new)
 *
 * Within the epoch, a second write to a key merges with the first exactly
 * as RisingWave's memtable does with consistent old values:
 *
 *		existing		then			result
 *		--------		----			------
 *		(none)			Insert(n)		Insert(n)
 *		(none)			Delete(o)		Delete(o)
 *		(none)			Update(o, n)	Update(o, n)
 *		Insert(a)		Delete(a)		nothing (the key is known absent)
 *		Insert(a)		Update(a, b)	Insert(b)
 *		Delete(o)		Insert(n)		Update(o, n)
 *		Update(o, a)	Update(a, b)	Update(o, b)
 *		Update(o, a)	Delete(a)		Delete(o)
 *		nothing			Insert(n)		Insert(n)
 *
 * Every other sequence is inconsistent and fails with HS_INVALID_ARGUMENT
 * leaving the memtable unchanged: a double insert (Insert or Update then
 * Insert), a delete or update of a key that is known absent (Delete then
 * Delete/Update, nothing then Delete/Update).  With check_old_value set,
 * the old value given to Delete/Update must also equal the buffered new
 * value byte for byte.
 *
 * Keys are opaque user-key bytes (the table id and epoch are the
 * memtable's).  The memtable is a skip list with a hash index: writes and
 * gets are O(1), new keys are linked in sorted batches at the next ordered
 * access, nodes are never unlinked (a cancelled key stays as "nothing"),
 * so an iterator stays valid, and sees every earlier write, while the
 * owner keeps writing.
 *
 * Iterators present the memtable as full-key entries (table id | user key
 * | ~epoch), so they merge with SST iterators:
 *	- HS_MEMTABLE_NEW_VALUES: Insert/Update -> PUT new value, Delete ->
 *	  DELETE tombstone; "nothing" is skipped;
 *	- HS_MEMTABLE_OLD_VALUES: Delete/Update -> PUT old value; Insert and
 *	  "nothing" are skipped.
 * They copy the current key and value, so a later write that replaces a
 * value never leaves them pointing at freed memory.
 *
 * include/hummock_stream/storage/memtable.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_MEMTABLE_H
#define HS_STORAGE_MEMTABLE_H

#include "hummock_stream/storage/iterator.h"

typedef enum HsKeyOpKind
{
	HS_KEY_OP_NONE = 0,			/* inserted and deleted in this epoch */
	HS_KEY_OP_INSERT,
	HS_KEY_OP_DELETE,
	HS_KEY_OP_UPDATE
} HsKeyOpKind;

/* A borrowed view of one key's operation. */
typedef struct HsKeyOp
{
	HsKeyOpKind kind;
	HsSlice		old_value;		/* Delete, Update */
	HsSlice		new_value;		/* Insert, Update */
} HsKeyOp;

typedef enum HsMemtableIterKind
{
	HS_MEMTABLE_NEW_VALUES,
	HS_MEMTABLE_OLD_VALUES
} HsMemtableIterKind;

typedef struct HsMemtable HsMemtable;

/*
 * A memtable of table_id at epoch.  log_old_values says whether the table's
 * change log is enabled (sync then writes old-value SSTs for it); old
 * values are kept either way, since the merge rules need them.
 */
extern HsMemtable *HsMemtableCreate(HsEnv *env, HsTableId table_id,
									HsEpoch epoch, bool log_old_values,
									bool check_old_value);
extern void HsMemtableDestroy(HsMemtable *mt);

extern bool HsMemtableInsert(HsMemtable *mt, HsSlice user_key,
							 HsSlice new_value, HsStatus *st);
extern bool HsMemtableDelete(HsMemtable *mt, HsSlice user_key,
							 HsSlice old_value, HsStatus *st);
extern bool HsMemtableUpdate(HsMemtable *mt, HsSlice user_key,
							 HsSlice old_value, HsSlice new_value,
							 HsStatus *st);

/*
 * Apply any operation (Insert/Delete/Update); the generic entry point the
 * three functions above use.
 */
extern bool HsMemtableApply(HsMemtable *mt, HsSlice user_key,
							const HsKeyOp *op, HsStatus *st);

/* The buffered operation of user_key; false if the key was not written. */
extern bool HsMemtableGet(HsMemtable *mt, HsSlice user_key, HsKeyOp *op);

/*
 * No more writes: report a write that contradicted an earlier one but
 * could not be told when it was made, an insert of a key already
 * inserted while the memtable had no index yet (see memtable.c;
 * HS_INVALID_ARGUMENT, as the write itself would have been).  Its memory
 * usage does not change afterwards.
 */
extern bool HsMemtableFinish(HsMemtable *mt, HsStatus *st);

extern HsTableId HsMemtableTableId(const HsMemtable *mt);
extern HsEpoch HsMemtableEpoch(const HsMemtable *mt);

/*
 * Give an unsealed memtable another epoch (no iterator may be open on it):
 * its entries are the writes of that epoch instead.
 */
extern void HsMemtableSetEpoch(HsMemtable *mt, HsEpoch epoch);
extern bool HsMemtableLogsOldValues(const HsMemtable *mt);
/* Keys written (including cancelled ones). */
extern size_t HsMemtableKeyCount(const HsMemtable *mt);
/* Bytes of memory held (keys, values, nodes). */
extern size_t HsMemtableMemoryUsage(const HsMemtable *mt);

/* Calls fn(arg, key) for every user key written (cancelled ones too). */
extern void HsMemtableForEachKey(HsMemtable *mt,
								 void (*fn) (void *arg, HsSlice user_key),
								 void *arg);

/* An iterator over the memtable as full-key entries (see above). */
extern HsIterator *HsMemtableNewIterator(HsMemtable *mt,
										 HsMemtableIterKind kind);

extern const char *HsKeyOpKindName(HsKeyOpKind kind);

#endif							/* HS_STORAGE_MEMTABLE_H */
