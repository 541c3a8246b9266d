/*-------------------------------------------------------------------------
 *
 * gc.h
 *	  Deleting hummock objects that nothing can reach.
 *
 * include/hummock_stream/meta/gc.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_GC_H
#define HS_META_GC_H

typedef struct HsGcResult
{
	int64		stale_deleted;	/* removed by a version, unpinned: deleted */
	int64		stale_kept;		/* removed by a version still pinned */
	int64		orphans_deleted;	/* never referenced: deleted */
	int64		inflight_kept;	/* not referenced, maybe being written */
	int64		bytes_deleted;
	int64		deltas_trimmed; /* catalog rows of old version deltas */
} HsGcResult;

/* Run one GC pass over this database's objects (in a transaction). */
extern void HsHummockCollectGarbage(HsGcResult *result);

#endif							/* HS_META_GC_H */
