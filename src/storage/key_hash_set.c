/*-------------------------------------------------------------------------
 *
 * key_hash_set.c
 *	  A set of 64-bit key hashes, open addressing with linear probing.
 *
 * It answers "may a key with this hash have been added?" with one probe
 * sequence and no false negatives; equal hashes of different keys are the
 * (rare) false positives.  Only hashes are kept: 8 bytes a key, the table
 * at most half full.  Zero marks a free slot, so a zero hash is stored as
 * one.  Nothing is ever removed: an owner whose keys go away drops the
 * set and builds a new one.
 *
 * src/storage/key_hash_set.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "hummock_stream/storage/hash.h"
#include "hummock_stream/storage/key_hash_set.h"

/* Seed of the key hash (any constant other than the bloom filter's). */
#define KEY_HASH_SEED UINT64_C(0x6A09E667F3BCC908)

struct HsKeyHashSet
{
	HsEnv	   *env;
	size_t		mask;			/* slots - 1 (slots a power of two) */
	size_t		n;
	uint64_t   *slots;
};

static size_t
slots_for(size_t expected)
{
	size_t		slots = 64;

	while (slots < expected * 2)
		slots <<= 1;
	return slots;
}

HsKeyHashSet *
HsKeyHashSetCreate(HsEnv *env, size_t expected)
{
	HsKeyHashSet *set = HsAllocZero(env, sizeof(HsKeyHashSet));
	size_t		slots = slots_for(expected);

	set->env = env;
	set->mask = slots - 1;
	set->slots = HsAllocZero(env, sizeof(uint64_t) * slots);
	return set;
}

void
HsKeyHashSetDestroy(HsKeyHashSet *set)
{
	if (set == NULL)
		return;
	HsFree(set->env, set->slots);
	HsFree(set->env, set);
}

uint64_t
HsKeyHashOf(HsSlice key)
{
	uint64_t	h = HsHash64(key.data, key.len, KEY_HASH_SEED);

	return h != 0 ? h : 1;
}

/* Put h into slots (mask + 1 of them, not full); true if it was new. */
static bool
place(uint64_t *slots, size_t mask, uint64_t h)
{
	size_t		i = (size_t) h & mask;

	while (slots[i] != 0)
	{
		if (slots[i] == h)
			return false;
		i = (i + 1) & mask;
	}
	slots[i] = h;
	return true;
}

void
HsKeyHashSetAdd(HsKeyHashSet *set, uint64_t hash)
{
	if ((set->n + 1) * 2 > set->mask + 1)
	{
		size_t		new_mask = set->mask * 2 + 1;
		uint64_t   *slots = HsAllocZero(set->env, sizeof(uint64_t) * (new_mask + 1));

		for (size_t i = 0; i <= set->mask; i++)
			if (set->slots[i] != 0)
				(void) place(slots, new_mask, set->slots[i]);
		HsFree(set->env, set->slots);
		set->slots = slots;
		set->mask = new_mask;
	}
	if (place(set->slots, set->mask, hash))
		set->n++;
}

bool
HsKeyHashSetMayContain(const HsKeyHashSet *set, uint64_t hash)
{
	size_t		i = (size_t) hash & set->mask;

	while (set->slots[i] != 0)
	{
		if (set->slots[i] == hash)
			return true;
		i = (i + 1) & set->mask;
	}
	return false;
}

size_t
HsKeyHashSetMemoryUsage(const HsKeyHashSet *set)
{
	return sizeof(HsKeyHashSet) + sizeof(uint64_t) * (set->mask + 1);
}
