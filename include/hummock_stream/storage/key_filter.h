/*-------------------------------------------------------------------------
 *
 * key_filter.h
 *	  A filter of key hashes that grows as keys are added: "may a key with
 *	  this hash have been added?" in a few cache misses.
 *
 * src/storage/key_filter.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_KEY_FILTER_H
#define HS_STORAGE_KEY_FILTER_H

#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/key.h"

typedef struct HsKeyFilter HsKeyFilter;

/* An empty filter; expected sizes its first stage. */
extern HsKeyFilter *HsKeyFilterCreate(HsEnv *env, size_t expected);
extern void HsKeyFilterDestroy(HsKeyFilter *f);

/* The hash the filter takes for key. */
extern uint64_t HsKeyFilterHash(HsSlice key);

extern void HsKeyFilterAdd(HsKeyFilter *f, uint64_t hash);

/* False only if no key with this hash was added (no false negatives). */
extern bool HsKeyFilterMayContain(const HsKeyFilter *f, uint64_t hash);

/* out[i] = HsKeyFilterMayContain(f, hashes[i]) for i < n, faster. */
extern void HsKeyFilterMayContainMany(const HsKeyFilter *f, const uint64_t *hashes,
									  size_t n, bool *out);

/* Bytes of memory held. */
extern size_t HsKeyFilterMemoryUsage(const HsKeyFilter *f);

#endif							/* HS_STORAGE_KEY_FILTER_H */
