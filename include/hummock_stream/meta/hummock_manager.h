/*-------------------------------------------------------------------------
 *
 * hummock_manager.h
 *	  Hummock versions inside PostgreSQL: catalog, cache, commits.
 *
 * include/hummock_stream/meta/hummock_manager.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_HUMMOCK_MANAGER_H
#define HS_META_HUMMOCK_MANAGER_H

#include "hummock_stream/pg/user_context.h"
#include "hummock_stream/storage/object_store.h"
#include "hummock_stream/storage/sst_cache.h"
#include "hummock_stream/storage/sst_writer.h"
#include "hummock_stream/storage/version.h"
#include "hummock_stream/storage/version_delta.h"

/* Deltas between two full checkpoints in the catalog. */
#define HS_VERSION_CHECKPOINT_INTERVAL 64

/* Deltas kept before the newest checkpoint, for processes catching up. */
#define HS_VERSION_DELTA_KEEP 1024

/*
 * The newest version of this database that this process knows, brought up
 * to at least the published version id.  Returns a new reference; the
 * caller unrefs it (HsVersionUnref) when done.
 */
extern HsVersion *HsHummockCurrentVersion(void);

/*
 * Like HsHummockCurrentVersion, but brought up to every delta committed
 * now, published or not.  A committer publishes its version only after its
 * transaction became visible, so a process that saw a commit's catalog
 * rows (a view 'created') may not see its version yet: it asks this one
 * (one catalog index scan) where a missing commit would mislead it.
 */
extern HsVersion *HsHummockNewestVersion(void);

/*
 * Like HsHummockCurrentVersion, for reading objects: first pins the
 * published version (and epoch) for the rest of the transaction, so GC
 * keeps every object the returned version references.
 */
extern HsVersion *HsHummockPinnedVersion(HsEpoch epoch);

/*
 * Commit a delta as part of the current transaction: lock the version
 * head, fill in ids, validate it against the newest version, store it, and
 * publish the new version when the transaction commits.  Returns the new
 * version id.  The delta's kind and contents are the caller's.
 */
extern uint64 HsHummockCommitDelta(HsVersionDelta *delta);

/*
 * Commit delta when this transaction commits (at pre-commit), without
 * taking the head's lock before: until then the transaction reads it
 * through a private version.  For a creation inside a transaction block,
 * so an open transaction stops no other view (hummock_manager.c).
 */
extern void HsHummockCommitDeltaAtCommit(HsVersionDelta *delta);

/*
 * Lock the version head row as HsHummockCommitDelta does, until the end of
 * the transaction.  A transaction that commits a delta and also writes
 * rows the barrier manager's commits write (stream_jobs) locks the head
 * first, in the manager's order, so the two cannot deadlock.
 */
extern void HsHummockLockVersionHead(void);

/*
 * Does this transaction hold the version head's lock (it committed a delta
 * or locked the head)?  Then no other process commits a version of this
 * database, the barrier manager's epochs included, until it ends.
 */
extern bool HsHummockXactHoldsHead(void);

/*
 * The object store of this database ($PGDATA/pg_hummock/<db oid>/), for
 * reads (files stay open in the SST cache) and for writes (files belong to
 * the current resource owner: an ERROR closes and removes a half-written
 * object).
 */
extern HsObjectStore *HsHummockObjectStore(void);
extern HsObjectStore *HsHummockObjectStoreForWrite(void);

/* The object directory of one incarnation of the extension. */
extern void HsHummockObjectDir(Oid dboid, Oid extoid, char *dir, size_t len);

/* CREATE or DROP EXTENSION ran in this transaction: recheck the extension. */
extern void HsHummockForgetIncarnation(void);

/* Remove object directories of dropped incarnations (manager start). */
extern void HsHummockRemoveOldIncarnations(void);

/* hummock_stream.block_cache_size: decompressed blocks kept per process */
extern int	hs_block_cache_size_kb;

/*
 * hummock_stream.sst_reader_cache_size: memory of the SST readers (index,
 * filter) kept open per process
 */
extern int	hs_sst_reader_cache_size_kb;

/* This process's cache of open SST readers (with its block cache). */
extern HsSstCache *HsHummockSstCache(void);

/*
 * hummock_stream.wait_timeout (ms): how long a read waits for a relation
 * to commit the epoch it needs (time travel, a new view over views)
 */
extern int	hs_wait_timeout_ms;

/* hummock_stream.sst_* */
extern int	hs_sst_block_size_kb;
extern int	hs_sst_compression;		/* an HsCompression value */
extern int	hs_sst_zstd_level;
extern int	hs_sst_bloom_bits_per_key;

/* How to write SSTs now: store, id allocator, hummock_stream.sst_* settings. */
extern void HsHummockWriteContext(HsSstWriteContext *ctx);

/*
 * A fresh object id.  It is also recorded as in flight for this process
 * until HsPinClearInflightObjects(), so GC leaves the object alone until it
 * is committed or abandoned.
 */
extern uint64 HsHummockAllocObjectId(void);

/*
 * Catalog work as the extension's owner: the extension's tables are not
 * the caller's (a view's owner may be an ordinary role).  It runs as a
 * security-restricted operation with search_path pinned (user_context.h);
 * HsRestoreUser ends it, and an ERROR in between is undone with the
 * (sub)transaction.
 */
extern Oid	HsExtensionOwner(void);
extern void HsBecomeExtensionOwner(HsUserContext *c);

/*
 * The version catalog as GC sees it (gc.c): the highest object id handed
 * out so far, the stale objects (an object a delta stopped referencing,
 * with that delta's version id), forgetting one once its file is gone,
 * and trimming deltas and checkpoints no process needs any more (returns
 * the deltas deleted).
 */
typedef struct HsStaleObject
{
	uint64		object_id;
	uint64		stale_since;
	TransactionId stale_xid;	/* the transaction that made it stale */
} HsStaleObject;
extern uint64 HsHummockObjectIdHighWater(void);
extern int	HsHummockStaleObjects(HsStaleObject **out);
extern void HsHummockForgetStaleObject(uint64 object_id);
extern uint64 HsHummockTrimDeltas(void);

/* The env of hummock memory: CurrentMemoryContext, files tracked. */
extern HsEnv *HsHummockEnv(void);

/* Hits and misses of this process's block cache since it started. */
extern void HsHummockBlockCacheStats(uint64 *hits, uint64 *misses);

#endif							/* HS_META_HUMMOCK_MANAGER_H */
