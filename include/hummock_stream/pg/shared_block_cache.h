/*-------------------------------------------------------------------------
 *
 * shared_block_cache.h
 *	  Decompressed SST blocks in shared memory, for every process.
 *
 * The shared block cache is the secondary cache (sst_reader.h) of every
 * backend and worker: a block one process read and decompressed is copied
 * out by the next process that needs it, instead of being read, checked
 * and decompressed again.  It is what shared_buffers is to heap pages:
 * sessions that connect, read a view and disconnect start warm.
 * Sequential scans read cached blocks in place under a pin instead of
 * copying them; an abort releases the pins taken under the resource owners
 * it releases.  Its size is hummock_stream.shared_block_cache_size (0
 * turns it off).
 *
 * include/hummock_stream/pg/shared_block_cache.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_PG_SHARED_BLOCK_CACHE_H
#define HS_PG_SHARED_BLOCK_CACHE_H

#include "hummock_stream/storage/sst_reader.h"

extern int	hs_shared_block_cache_size_kb;

/* Shared-memory area (shmem.c registry). */
extern Size HsSharedBlockCacheShmemSize(void);
extern void HsSharedBlockCacheShmemInit(void *ptr, bool found);

/*
 * The secondary cache for the SSTs of one extension incarnation of one
 * database (their object ids are unique within it), or NULL if the shared
 * cache is off.  The returned struct lives as long as the process.
 */
extern const HsSecondaryCache *HsSharedBlockCacheFor(Oid dboid, Oid ext_oid);

#endif							/* HS_PG_SHARED_BLOCK_CACHE_H */
