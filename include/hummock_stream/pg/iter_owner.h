/*-------------------------------------------------------------------------
 *
 * iter_owner.h
 *	  Destroying the SST iterators that an aborted query abandoned.
 *
 * An error or a cancel in the middle of a scan unwinds past the code that
 * would destroy its iterators.  The SST iterators (each holding an open
 * reader, a pinned or copied block and a readahead window) live in the
 * process's SST cache, not in the query's memory, so nothing would free
 * them: the hooks below remember each one with the resource owner current
 * when it was made, and the abort that releases that owner destroys the
 * ones still alive, as Postgres releases a failed query's buffer pins.
 *
 * include/hummock_stream/pg/iter_owner.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_PG_ITER_OWNER_H
#define HS_PG_ITER_OWNER_H

#include "hummock_stream/storage/sst_cache.h"

/* The hooks for the process's SST cache (HsSstCacheSetIterHooks). */
extern const HsSstIterHooks *HsIterOwnerHooks(void);

#endif							/* HS_PG_ITER_OWNER_H */
