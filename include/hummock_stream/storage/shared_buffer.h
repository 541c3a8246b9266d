/*-------------------------------------------------------------------------
 *
 * shared_buffer.h
 *	  Sealed memtables of many tables and epochs, awaiting sync.
 *
 * The write path of a compute worker: each state table writes an epoch's
 * changes into an HsMemtable; the barrier that ends the epoch seals it
 * into the shared buffer (HsSharedBufferSeal).  A checkpoint barrier then
 * syncs: HsSharedBufferSync(epoch, tables) writes SSTs for exactly those
 * tables and their sealed epochs <= epoch, and returns what the commit
 * needs:
 *
 *	- new-value SSTs, full key (table | user key | ~epoch) -> PUT new value
 *	  or DELETE tombstone, every version kept, for the new L0 sub-level.
 *	  Tables whose change log is enabled get SSTs of their own, so a change
 *	  log pins only objects of its table; the other tables share SSTs;
 *	- for tables whose change log is enabled (every synced memtable of the
 *	  table was created with log_old_values), old-value SSTs: same full
 *	  key -> PUT old value, for Delete and Update operations only.
 *
 * Spilling: when the memory held by sealed memtables passes the limit,
 * HsSharedBufferMaybeSpill writes the largest sealed memtables to SSTs
 * early, each (table, epoch) on its own (new values, and old values if
 * logged), independent of epoch order.  Because a sealed memtable is
 * complete for its epoch, a spilled SST never shares a full key with any
 * other data and never mixes data of two future syncs.  The spilled SSTs
 * are returned by the next sync that covers their table and epoch.
 *
 * Reads of data not yet in a committed version: HsSharedBufferNewIterator
 * gives the raw full-key entries of one table that the buffer still holds
 * (sealed memtables, spilled SSTs, and SSTs synced but not yet
 * acknowledged as committed); merge it with the version's raw iterator
 * (and the table's own unsealed memtable) under a user iterator.  After the
 * commit is applied, HsSharedBufferAckCommitted drops what the version now
 * serves.
 *
 * Epochs of one table must be sealed in increasing order.
 *
 * include/hummock_stream/storage/shared_buffer.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_SHARED_BUFFER_H
#define HS_STORAGE_SHARED_BUFFER_H

#include "hummock_stream/storage/memtable.h"
#include "hummock_stream/storage/sst_cache.h"
#include "hummock_stream/storage/sst_writer.h"
#include "hummock_stream/storage/version_delta.h"

typedef struct HsSharedBuffer HsSharedBuffer;

/* What a sync produced for one table. */
typedef struct HsSyncTable
{
	HsTableId	table_id;
	bool		log_enabled;	/* old values were written */
	int			n_epochs;
	HsEpoch    *epochs;			/* sealed epochs synced, ascending */
	int			n_new;
	HsSstInfo **new_ssts;		/* change log: this table's new values */
	int			n_old;
	HsSstInfo **old_ssts;		/* change log: this table's old values */
} HsSyncTable;

typedef struct HsSyncResult
{
	HsEpoch		epoch;
	int			n_ssts;
	HsSstInfo **ssts;			/* every new-value SST: the L0 sub-level */
	int			n_tables;
	HsSyncTable *tables;		/* one per requested table, same order */
	uint64_t	bytes_written;	/* file sizes of the new SSTs (not spills) */

	/* private */
	HsEnv	   *env;
} HsSyncResult;

extern void HsSyncResultFree(HsSyncResult *r);

/* The sync result of table_id, or NULL. */
extern const HsSyncTable *HsSyncResultTable(const HsSyncResult *r,
											HsTableId table_id);

/*
 * Fill a COMMIT delta from the syncs of one checkpoint (one result per
 * compute worker): every new-value SST goes into the new L0 sub-level,
 * every table of the results is committed at epoch, and each table of
 * log_tables gets one change-log entry with log_epochs (the checkpoint's
 * non-checkpoint epochs, ascending, then epoch; NULL: the epochs the
 * results synced for that table) and its new- and old-value SSTs from all
 * results.  A logged table whose sync wrote no old values is
 * HS_INVALID_ARGUMENT (its memtables were not created with
 * log_old_values).
 */
extern bool HsVersionDeltaAddSyncResults(HsVersionDelta *d,
										 HsSyncResult *const *results,
										 int n_results, HsEpoch epoch,
										 const HsTableId *log_tables,
										 int n_log_tables,
										 const HsEpoch *log_epochs,
										 int n_log_epochs, HsStatus *st);

/* memory_limit: bytes of sealed memtables before MaybeSpill spills. */
extern HsSharedBuffer *HsSharedBufferCreate(HsEnv *env, size_t memory_limit);
extern void HsSharedBufferDestroy(HsSharedBuffer *buf);

/*
 * Hand a memtable over (always: on failure it is destroyed).  Its epoch
 * must be newer than every epoch of its table sealed before.
 */
extern bool HsSharedBufferSeal(HsSharedBuffer *buf, HsMemtable *mt,
							   HsStatus *st);

/*
 * Write SSTs for the sealed data of tables[0..n) with epoch <= epoch (see
 * above).  On failure the buffer is unchanged (SSTs already written are
 * left for GC).
 */
extern bool HsSharedBufferSync(HsSharedBuffer *buf, HsEpoch epoch,
							   const HsTableId *tables, int n,
							   const HsSstWriteContext *ctx,
							   HsSyncResult **out, HsStatus *st);

/* Spill the largest sealed memtables until at most target bytes remain. */
extern bool HsSharedBufferSpill(HsSharedBuffer *buf, size_t target,
								const HsSstWriteContext *ctx, HsStatus *st);

/* Spill down to half the limit if the memory limit is exceeded. */
extern bool HsSharedBufferMaybeSpill(HsSharedBuffer *buf,
									 const HsSstWriteContext *ctx,
									 HsStatus *st);

/* Forget synced data of table_id at or below committed_epoch. */
extern void HsSharedBufferAckCommitted(HsSharedBuffer *buf,
									   HsTableId table_id,
									   HsEpoch committed_epoch);

/* Drop everything buffered for table_id (reset of a failed job). */
extern void HsSharedBufferDropTable(HsSharedBuffer *buf, HsTableId table_id);

/*
 * Raw full-key entries of table_id buffered here with epoch <= read_epoch
 * (synced SSTs are included whole; the user iterator filters epochs).
 * lower/upper (user keys, NULL: unbounded) leave out the SSTs that hold
 * no key of [lower, upper); the caller still bounds what it reads.
 */
extern bool HsSharedBufferNewIterator(HsSharedBuffer *buf, HsSstCache *cache,
									  HsTableId table_id, HsEpoch read_epoch,
									  const HsSlice *lower, const HsSlice *upper,
									  HsIterator **out, HsStatus *st);

/*
 * Point read of user_key of table_id in what the buffer holds, newest
 * first, with epoch <= read_epoch (synced SSTs count whole).  *resolved
 * says whether the buffer knows the key (then *found says whether it
 * exists, and value holds it); if not, read the version.
 */
extern bool HsSharedBufferGet(HsSharedBuffer *buf, HsSstCache *cache,
							  HsTableId table_id, HsSlice user_key,
							  HsEpoch read_epoch, bool *resolved, bool *found,
							  HsBuf *value, HsStatus *st);

/*
 * Whether a table's first seal or spill starts its key index (else only
 * its third unsynced piece does): for a buffer that takes many epochs of
 * a table before a sync, as a backfill's.  Either way only for a table a
 * point read (get, may-hold) has asked about; another gets its index at
 * the first such read, built from its memtables and spilled SSTs.
 * Returns the previous setting.
 */
extern bool HsSharedBufferSetIndexAtSpill(HsSharedBuffer *buf, bool on);

/*
 * For keys[0..n) of table_id: maybe[i] false if the buffer certainly holds
 * no version of keys[i] (HsSharedBufferGet would leave it unresolved), by
 * the table's key filter, probed for all keys in one pass.
 */
extern void HsSharedBufferMayHold(HsSharedBuffer *buf, HsSstCache *cache,
								  HsTableId table_id, const HsSlice *keys,
								  size_t n, bool *maybe);

/* The newest epoch of table_id sealed in the buffer (0 if none). */
extern HsEpoch HsSharedBufferMaxSealed(HsSharedBuffer *buf, HsTableId table_id);

/* Bytes held by sealed memtables. */
extern size_t HsSharedBufferMemoryUsage(const HsSharedBuffer *buf);

/* Object ids of spilled and synced-unacknowledged SSTs (for GC bounds). */
extern uint64_t HsSharedBufferMinObjectId(const HsSharedBuffer *buf);

/* Counters: spills done and SSTs they wrote. */
extern uint64_t HsSharedBufferSpillCount(const HsSharedBuffer *buf);

/* Point gets the key index answered alone (the key in no unsynced piece). */
extern uint64_t HsSharedBufferIndexMisses(const HsSharedBuffer *buf);

#endif							/* HS_STORAGE_SHARED_BUFFER_H */
