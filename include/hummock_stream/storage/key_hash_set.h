/*-------------------------------------------------------------------------
 *
 * key_hash_set.h
 *	  A set of 64-bit key hashes: "may this key be here?" in one probe.
 *
 * src/storage/key_hash_set.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_KEY_HASH_SET_H
#define HS_STORAGE_KEY_HASH_SET_H

#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/key.h"

typedef struct HsKeyHashSet HsKeyHashSet;

extern HsKeyHashSet *HsKeyHashSetCreate(HsEnv *env, size_t expected);
extern void HsKeyHashSetDestroy(HsKeyHashSet *set);

/* The hash the set stores for key. */
extern uint64_t HsKeyHashOf(HsSlice key);

extern void HsKeyHashSetAdd(HsKeyHashSet *set, uint64_t hash);

/* False only if no key with this hash was added (no false negatives). */
extern bool HsKeyHashSetMayContain(const HsKeyHashSet *set, uint64_t hash);

/* Bytes of memory held. */
extern size_t HsKeyHashSetMemoryUsage(const HsKeyHashSet *set);

#endif							/* HS_STORAGE_KEY_HASH_SET_H */
