/*-------------------------------------------------------------------------
 *
 * shmem.h
 *	  The registry of fixed shared-memory areas of hummock_stream.
 *
 * Every module that needs shared memory provides a pair of functions,
 * <module>_shmem_size() and <module>_shmem_init(ptr, found), and is listed
 * once in src/entry/shmem.c.  The registry sums the sizes in the PG15
 * shmem_request_hook (the only place RequestAddinShmemSpace may be called)
 * and carves one ShmemInitStruct into cache-line aligned slices in
 * shmem_startup_hook, under AddinShmemInitLock.
 *
 * include/hummock_stream/entry/shmem.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_ENTRY_SHMEM_H
#define HS_ENTRY_SHMEM_H

typedef struct HsShmemItem
{
	const char *name;
	Size		(*size) (void);
	/* Initialize the area; found is true if it already existed. */
	void		(*init) (void *ptr, bool found);
} HsShmemItem;

extern void HsShmemInstallHooks(void);

/* Each item's size and offset, for the hummock_stream.shmem_areas view. */
extern int	HsShmemItemCount(void);
extern const HsShmemItem *HsShmemItemAt(int i, Size *offset, Size *size);

/* ---- areas (one pair per module) ---- */
extern Size HsGlobalShmemSize(void);
extern void HsGlobalShmemInit(void *ptr, bool found);

#endif							/* HS_ENTRY_SHMEM_H */
