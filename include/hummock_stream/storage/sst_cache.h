/*-------------------------------------------------------------------------
 *
 * sst_cache.h
 *	  A bounded cache of open SST readers, keyed by object id.
 *
 * Every read of a version (point get, table scan, change log, compaction)
 * opens the SSTs it touches through this cache, so that the footer, index,
 * filter and properties of a hot SST are read and validated once.
 *
 * Design notes:
 *	- Entries are reference counted.  A reader handed out (directly or
 *	  inside an iterator) stays open until released, even if it has been
 *	  evicted meanwhile; eviction only drops the cache's own reference.
 *	- At most `capacity` readers are kept open while unused (LRU), and,
 *	  with a byte capacity set, idle readers are closed (LRU first) while
 *	  the open ones hold more memory than it (HsSstReaderMemory: a big
 *	  SST's filter and index take megabytes, and every compaction makes
 *	  new SSTs, so a count alone let a process keep hundreds of dead
 *	  readers' filters).  Readers in use are never closed, so a wide scan
 *	  may briefly hold more.
 *	- An object the version references but that cannot be opened is
 *	  reported as HS_CORRUPTION naming the object and its path (a missing
 *	  file is corruption of the version/store pair, not a user error);
 *	  HS_IO_ERROR passes through.
 *	- Single-threaded, like the readers themselves.
 *
 * include/hummock_stream/storage/sst_cache.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_SST_CACHE_H
#define HS_STORAGE_SST_CACHE_H

#include "hummock_stream/storage/object_store.h"
#include "hummock_stream/storage/sst_reader.h"

typedef struct HsSstCache HsSstCache;
typedef struct HsSstCacheHandle HsSstCacheHandle;

/*
 * Create a cache over store keeping up to capacity idle readers open;
 * block_cache (may be NULL) is passed to every reader.
 */
extern HsSstCache *HsSstCacheCreate(HsEnv *env, HsObjectStore *store,
									int capacity, HsBlockCache *block_cache);

/*
 * Bound the memory of open readers to bytes (0: only the count bounds
 * them, the default); idle readers beyond it are closed at once.
 */
extern void HsSstCacheSetByteCapacity(HsSstCache *cache, size_t bytes);

/* Memory the open readers hold (HsSstReaderMemory), as last charged. */
extern size_t HsSstCacheOpenBytes(const HsSstCache *cache);

/* Close every idle reader and free the cache (all handles released). */
extern void HsSstCacheDestroy(HsSstCache *cache);

/*
 * Readers opened from now on also use this secondary cache of blocks
 * (sst_reader.h), keyed by their object ids; NULL for none.  The cache
 * must outlive the readers.
 */
extern void HsSstCacheSetSecondary(HsSstCache *cache,
								   const HsSecondaryCache *secondary);

/*
 * Hooks told about every iterator HsSstCacheNewIterator makes, from its
 * creation to its destruction, so that the embedding can destroy the ones
 * an error abandoned (each holds a reader and its buffers); PostgreSQL
 * does at abort (src/pg/iter_owner.c).  opened returns a token (may be
 * NULL) that closed gets back.
 */
typedef struct HsSstIterHooks
{
	void	   *(*opened) (void *arg, HsIterator *it);
	void		(*closed) (void *arg, void *token);
	void	   *arg;
} HsSstIterHooks;

/* Iterators made from now on are reported to hooks (NULL: none). */
extern void HsSstCacheSetIterHooks(HsSstCache *cache,
								   const HsSstIterHooks *hooks);

/* Open (or find) the reader of object_id; release the handle after use. */
extern bool HsSstCacheGet(HsSstCache *cache, uint64_t object_id,
						  HsSstCacheHandle **handle, HsStatus *st);
extern HsSstReader *HsSstCacheReader(HsSstCacheHandle *handle);
extern void HsSstCacheRelease(HsSstCache *cache, HsSstCacheHandle *handle);

/*
 * An iterator over every entry of object_id; destroying it releases the
 * reader.
 */
extern bool HsSstCacheNewIterator(HsSstCache *cache, uint64_t object_id,
								  HsIterator **out, HsStatus *st);

/*
 * Point read of object_id's SST: HsSstReaderGetVersion through a reader of
 * the cache, which is released before it returns.
 */
extern bool HsSstCacheGetVersion(HsSstCache *cache, uint64_t object_id,
								 HsSlice table_key, HsEpoch read_epoch,
								 bool *found, HsEpoch *epoch, HsBuf *value,
								 HsStatus *st);

/* Forget object_id (after GC deleted it); in-use readers stay open. */
extern void HsSstCacheEvict(HsSstCache *cache, uint64_t object_id);

/* Readers currently open (idle and in use). */
extern int	HsSstCacheOpenCount(const HsSstCache *cache);

#endif							/* HS_STORAGE_SST_CACHE_H */
