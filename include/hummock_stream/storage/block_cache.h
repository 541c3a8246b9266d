/*-------------------------------------------------------------------------
 *
 * block_cache.h
 *	  A small LRU cache of decompressed SST blocks, shared by readers.
 *
 * Entries are keyed by (cache id, block offset): every HsSstReader opened
 * with a cache takes a fresh id from it (HsBlockCacheNewId), so a reader
 * never sees another file's blocks, and erases its entries on close.
 * Values are verified, decompressed block contents.
 *
 * A lookup or insert returns a pinned handle: the contents stay valid and
 * unchanged until HsBlockCacheRelease, even if the entry is evicted or
 * erased meanwhile.  Eviction (least recently used first) frees only
 * unpinned entries, so the cache may exceed its capacity while many
 * handles are held.
 *
 * The cache is not thread-safe: one cache per process (or per thread).
 * Inside PostgreSQL each backend or worker has its own.
 *
 * include/hummock_stream/storage/block_cache.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_BLOCK_CACHE_H
#define HS_STORAGE_BLOCK_CACHE_H

#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/key.h"

typedef struct HsBlockCache HsBlockCache;
typedef struct HsBlockCacheEntry HsBlockCacheEntry;

/* A cache holding up to capacity bytes of blocks (plus pinned ones). */
extern HsBlockCache *HsBlockCacheCreate(HsEnv *env, size_t capacity);

/* Free the cache; every handle must have been released. */
extern void HsBlockCacheDestroy(HsBlockCache *cache);

/* A fresh id for one opened file. */
extern uint64_t HsBlockCacheNewId(HsBlockCache *cache);

/* The pinned entry for (id, offset), or NULL. */
extern HsBlockCacheEntry *HsBlockCacheLookup(HsBlockCache *cache, uint64_t id,
											 uint64_t offset);

/*
 * Insert a block, taking ownership of data (allocated from the cache's
 * env; charge is the bytes it occupies, at least len).  Replaces an entry
 * with the same key.  Returns the new entry, pinned.
 */
extern HsBlockCacheEntry *HsBlockCacheInsert(HsBlockCache *cache, uint64_t id,
											 uint64_t offset, uint8_t *data,
											 size_t len, size_t charge);

/* Unpin a handle from Lookup or Insert. */
extern void HsBlockCacheRelease(HsBlockCache *cache, HsBlockCacheEntry *e);

/* The contents of a pinned entry. */
extern HsSlice HsBlockCacheValue(const HsBlockCacheEntry *e);

/* Drop every entry of one id (pinned ones go when released). */
extern void HsBlockCacheEraseId(HsBlockCache *cache, uint64_t id);

/* Bytes charged by the entries currently in the cache. */
extern size_t HsBlockCacheUsage(const HsBlockCache *cache);

/* Lookups that found / did not find their block, since creation. */
extern void HsBlockCacheStats(const HsBlockCache *cache, uint64_t *hits,
							  uint64_t *misses);

#endif							/* HS_STORAGE_BLOCK_CACHE_H */
