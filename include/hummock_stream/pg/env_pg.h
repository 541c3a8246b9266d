/*-------------------------------------------------------------------------
 *
 * env_pg.h
 *	  The storage core's HsEnv inside PostgreSQL, and status reporting.
 *
 * include/hummock_stream/pg/env_pg.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_PG_ENV_PG_H
#define HS_PG_ENV_PG_H

#include "utils/palloc.h"

#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/status.h"

/*
 * Env whose files belong to the current resource owner: they are closed
 * when it is released (end of transaction, or an ERROR), so an error never
 * leaks a descriptor.  A writable file that is still open at that point is
 * also removed, since nothing can refer to a half-written object.  Memory
 * comes from CurrentMemoryContext.
 */
extern HsEnv *HsEnvPgTransient(void);

/*
 * Env whose files stay open until closed explicitly (session-lived SST
 * readers, kept in a cache).  The VFD layer still bounds the number of
 * kernel descriptors.  Memory comes from CurrentMemoryContext.
 */
extern HsEnv *HsEnvPgSession(void);

/*
 * Keep memory this process frees for its next allocations instead of
 * giving it back to the kernel (a worker's memtables and per-epoch
 * buffers come and go every epoch: returned, each new one costs a page
 * fault per 4 kB, a fifth of a busy compute worker's time).  Its peak
 * RSS does not change; it stays at the peak instead of shrinking.
 */
extern void HsKeepFreedMemory(void);

/*
 * Env for objects that live in one memory context whatever is current
 * (caches): files are not tracked, memory comes from cxt.
 */
extern HsEnv *HsEnvPgForContext(MemoryContext cxt);

/*
 * Raise (or log, for elevel < ERROR) a failed status with the SQLSTATE its
 * code implies: HS_CORRUPTION -> ERRCODE_DATA_CORRUPTED, HS_IO_ERROR -> the
 * code for its errno, HS_NOT_FOUND -> ERRCODE_UNDEFINED_FILE,
 * HS_INVALID_ARGUMENT -> ERRCODE_INVALID_PARAMETER_VALUE,
 * HS_NOT_SUPPORTED -> ERRCODE_FEATURE_NOT_SUPPORTED.
 */
extern void HsStatusReport(int elevel, const HsStatus *st);

/* Shorthand: if (!ok) raise ERROR from st. */
#define HS_CHECK(ok, st) \
	do { if (!(ok)) HsStatusReport(ERROR, (st)); } while (0)

#endif							/* HS_PG_ENV_PG_H */
