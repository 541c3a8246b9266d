/*-------------------------------------------------------------------------
 *
 * sst_writer.h
 *	  Writing a sorted stream of entries as SST objects of a target size.
 *
 * The shared buffer (sync and spill) and compaction produce entries in
 * full-key order and need them stored as committed objects with their
 * HsSstInfo.  HsSstWriter does that: it allocates an object id, builds the
 * SST into the object store's staging file, cuts a new SST once the
 * current one reaches the target size, and commits each finished object
 * (fsync, durable rename, directory fsync) before reporting it.
 *
 * Cuts happen only between different table keys, so that all versions of
 * a user key land in one SST: the levels L1+ rely on that to stay
 * disjoint in table-key range.
 *
 * If a write fails, the objects already committed stay in the store
 * unreferenced; GC removes them (their ids are below the in-flight bound
 * once the writer is gone).
 *
 * include/hummock_stream/storage/sst_writer.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_SST_WRITER_H
#define HS_STORAGE_SST_WRITER_H

#include "hummock_stream/storage/iterator.h"
#include "hummock_stream/storage/object_store.h"
#include "hummock_stream/storage/sst_builder.h"
#include "hummock_stream/storage/sst_info.h"

/* Hands out a fresh, never used object id. */
typedef bool (*HsObjectIdAllocFn) (void *arg, uint64_t *object_id,
								   HsStatus *st);

/* Where and how new SSTs are written. */
typedef struct HsSstWriteContext
{
	HsObjectStore *store;
	HsObjectIdAllocFn alloc_id;
	void	   *alloc_arg;
	HsSstBuilderOptions sst;		/* block size, compression, bloom */
	uint64_t	target_file_size;	/* cut SSTs at about this size */
} HsSstWriteContext;

/* Defaults: HsSstBuilderOptionsInit and 32 MiB SSTs; store and alloc unset. */
extern void HsSstWriteContextInit(HsSstWriteContext *ctx);

typedef struct HsSstWriter HsSstWriter;

extern HsSstWriter *HsSstWriterCreate(HsEnv *env,
									  const HsSstWriteContext *ctx);

/* Add an entry; keys strictly increasing in HsFullKeyCompare order. */
extern bool HsSstWriterAdd(HsSstWriter *w, HsSlice full_key, HsSlice value,
						   HsStatus *st);

/* Add every entry of it (from its current position to the end). */
extern bool HsSstWriterAddAll(HsSstWriter *w, HsIterator *it, HsStatus *st);

/*
 * Finish the last SST and hand over the infos of every SST written (one
 * reference each, in key order; *ssts allocated from the env, NULL when
 * none; release them with HsSstInfoArrayFree).  Frees the writer, also on
 * failure.
 */
extern bool HsSstWriterFinish(HsSstWriter *w, HsSstInfo ***ssts, int *n,
							  HsStatus *st);

/* Give up: remove the SST in progress, drop the finished infos. */
extern void HsSstWriterAbandon(HsSstWriter *w);

#endif							/* HS_STORAGE_SST_WRITER_H */
