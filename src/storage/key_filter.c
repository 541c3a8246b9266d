/*-------------------------------------------------------------------------
 *
 * key_filter.c
 *	  A growing filter of key hashes: a chain of blocked bloom filters.
 *
 * Each stage is an in-memory blocked bloom filter (bloom.h: one 64-byte
 * line per key, KEY_FILTER_BITS_PER_KEY bits a key) sized for a number of
 * keys; keys go into the newest stage, and a full stage is followed by one
 * twice its size.  A lookup probes every stage: a few cache misses for
 * millions of keys (log2 of keys over the first stage's size), and a false
 * positive rate of about 0.2% per stage.  Memory is what the stages' bits
 * take (under 4 bytes a key at worst), far less than the keys: this is
 * what lets a table's index of buffered keys cover the epochs it spilled.
 * Nothing is ever removed: an owner whose keys go away drops the filter.
 *
 * src/storage/key_filter.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "hummock_stream/storage/bloom.h"
#include "hummock_stream/storage/key_filter.h"

/* Seed of the key hash (any constant other than the SST filters'). */
#define KEY_FILTER_SEED UINT64_C(0x6A09E667F3BCC908)
#define KEY_FILTER_BITS_PER_KEY 14
#define KEY_FILTER_MIN_KEYS 4096

typedef struct Stage
{
	HsBloomFilter bloom;		/* lines owned by the stage */
	size_t		capacity;
	size_t		n;
} Stage;

struct HsKeyFilter
{
	HsEnv	   *env;
	int			n_stages;
	Stage	   *stages;
	size_t		memory;
};

/* Append a stage sized for capacity keys. */
static void
add_stage(HsKeyFilter *f, size_t capacity)
{
	uint64_t	lines = ((uint64_t) capacity * KEY_FILTER_BITS_PER_KEY +
						 8 * HS_BLOOM_LINE_BYTES - 1) / (8 * HS_BLOOM_LINE_BYTES);
	Stage	   *s;

	if (lines > UINT32_MAX / HS_BLOOM_LINE_BYTES)
		lines = UINT32_MAX / HS_BLOOM_LINE_BYTES;
	f->stages = HsRealloc(f->env, f->stages, sizeof(Stage) * (f->n_stages + 1));
	s = &f->stages[f->n_stages++];
	s->capacity = capacity;
	s->n = 0;
	s->bloom.num_lines = (uint32_t) lines;
	s->bloom.num_probes = (uint32_t) HsBloomProbesForBitsPerKey(KEY_FILTER_BITS_PER_KEY);
	s->bloom.lines = HsAllocZero(f->env, (size_t) lines * HS_BLOOM_LINE_BYTES);
	f->memory += (size_t) lines * HS_BLOOM_LINE_BYTES;
}

HsKeyFilter *
HsKeyFilterCreate(HsEnv *env, size_t expected)
{
	HsKeyFilter *f = HsAllocZero(env, sizeof(HsKeyFilter));

	f->env = env;
	f->memory = sizeof(HsKeyFilter);
	add_stage(f, expected > KEY_FILTER_MIN_KEYS ? expected : KEY_FILTER_MIN_KEYS);
	return f;
}

void
HsKeyFilterDestroy(HsKeyFilter *f)
{
	if (f == NULL)
		return;
	for (int i = 0; i < f->n_stages; i++)
		HsFree(f->env, (void *) f->stages[i].bloom.lines);
	HsFree(f->env, f->stages);
	HsFree(f->env, f);
}

uint64_t
HsKeyFilterHash(HsSlice key)
{
	return HsHash64(key.data, key.len, KEY_FILTER_SEED);
}

void
HsKeyFilterAdd(HsKeyFilter *f, uint64_t hash)
{
	Stage	   *s = &f->stages[f->n_stages - 1];
	uint8_t    *line;
	uint32_t	a = (uint32_t) hash;
	uint32_t	d = HsBloomDeltaOf(hash);

	if (s->n >= s->capacity)
	{
		add_stage(f, s->capacity * 2);
		s = &f->stages[f->n_stages - 1];
	}
	/* the bits HsBloomFilterMayContainHash probes */
	line = (uint8_t *) s->bloom.lines +
		(size_t) HsBloomLineOf(hash, s->bloom.num_lines) * HS_BLOOM_LINE_BYTES;
	for (uint32_t i = 0; i < s->bloom.num_probes; i++)
	{
		uint32_t	bit = a >> 23;

		line[bit >> 3] |= (uint8_t) (1u << (bit & 7));
		a += d;
	}
	s->n++;
}

bool
HsKeyFilterMayContain(const HsKeyFilter *f, uint64_t hash)
{
	for (int i = f->n_stages - 1; i >= 0; i--)
		if (HsBloomFilterMayContainHash(&f->stages[i].bloom, hash))
			return true;
	return false;
}

/*
 * Lookups of many hashes: their lines a few hashes ahead are prefetched,
 * so the cache misses of consecutive lookups overlap instead of following
 * one another (a multi-get asks this for every key it reads).
 */
#define KEY_FILTER_PREFETCH_AHEAD 8

void
HsKeyFilterMayContainMany(const HsKeyFilter *f, const uint64_t *hashes, size_t n,
						  bool *out)
{
	for (size_t i = 0; i < n; i++)
	{
		if (i + KEY_FILTER_PREFETCH_AHEAD < n)
		{
			uint64_t	h = hashes[i + KEY_FILTER_PREFETCH_AHEAD];

			for (int k = 0; k < f->n_stages; k++)
				__builtin_prefetch(f->stages[k].bloom.lines +
								   (size_t) HsBloomLineOf(h, f->stages[k].bloom.num_lines) *
								   HS_BLOOM_LINE_BYTES);
		}
		out[i] = HsKeyFilterMayContain(f, hashes[i]);
	}
}

size_t
HsKeyFilterMemoryUsage(const HsKeyFilter *f)
{
	return f->memory;
}
