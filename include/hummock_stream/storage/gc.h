/*-------------------------------------------------------------------------
 *
 * gc.h
 *	  Which objects of the store may be deleted.
 *
 * The reachability rule: an object may be deleted only if
 *	- the current version does not reference it (levels or change logs),
 *	- no pinned version references it (a reader may still open it), and
 *	- its id is below min_inflight_id: objects at or above it may be being
 *	  written by a sync, spill or compaction whose delta is not committed
 *	  yet (the caller passes the smallest id any writer may still commit:
 *	  the next id to allocate when the listing started, lowered by the
 *	  spilled SSTs workers still hold, HsSharedBufferMinObjectId).
 * Leftover <id>.sst.tmp files follow the same id rule: below the bound no
 * writer can still be producing them.
 *
 * include/hummock_stream/storage/gc.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_GC_H
#define HS_STORAGE_GC_H

#include "hummock_stream/storage/object_store.h"
#include "hummock_stream/storage/sst_cache.h"
#include "hummock_stream/storage/version.h"

/*
 * Filter objects[0..n) down to the deletable ones, written to *out
 * (allocated from env, HsFree; NULL when none).
 */
extern void HsGcCollect(HsEnv *env, const HsVersion *current,
						const HsVersion *const *pinned, int n_pinned,
						const HsObjectEntry *objects, size_t n_objects,
						uint64_t min_inflight_id, HsObjectEntry **out,
						size_t *n_out);

/*
 * List the store, collect as above, delete (evicting from cache if not
 * NULL); *n_deleted and *bytes_deleted report what went.  An object that
 * vanished meanwhile is not an error.
 */
extern bool HsGcRun(HsObjectStore *store, HsSstCache *cache,
					const HsVersion *current, const HsVersion *const *pinned,
					int n_pinned, uint64_t min_inflight_id,
					size_t *n_deleted, uint64_t *bytes_deleted, HsStatus *st);

#endif							/* HS_STORAGE_GC_H */
