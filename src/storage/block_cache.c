/*-------------------------------------------------------------------------
 *
 * block_cache.c
 *	  An LRU cache of decompressed blocks over a chained hash table.
 *
 * Every entry is in the hash table while it is "in the cache", and in the
 * LRU list while it is in the cache and unpinned (refs == 0 apart from
 * the cache's own membership).  Pinned entries are off the list, so
 * eviction only walks the unpinned ones from the cold end.  An entry that
 * leaves the cache while pinned (replaced, erased) is freed by its last
 * release.
 *
 * src/storage/block_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include "hummock_stream/storage/block_cache.h"
#include "hummock_stream/storage/hash.h"

struct HsBlockCacheEntry
{
	uint64_t	id;
	uint64_t	offset;
	uint8_t    *data;
	size_t		len;
	size_t		charge;
	uint32_t	refs;			/* pins held by callers */
	bool		in_cache;
	HsBlockCacheEntry *hash_next;
	HsBlockCacheEntry *lru_prev;	/* in the LRU list iff in_cache && !refs */
	HsBlockCacheEntry *lru_next;
};

struct HsBlockCache
{
	HsEnv	   *env;
	size_t		capacity;
	size_t		usage;
	uint64_t	next_id;
	HsBlockCacheEntry **buckets;
	size_t		num_buckets;	/* a power of two */
	size_t		num_entries;
	HsBlockCacheEntry lru;		/* list head: lru.lru_next is the coldest */
	uint64_t	hits;
	uint64_t	misses;
};

/* Returns the hash bucket of block (id, offset). */
static inline size_t
bucket_of(const HsBlockCache *c, uint64_t id, uint64_t offset)
{
	return (size_t) (HsHashU64(id * UINT64_C(0x9E3779B97F4A7C15) ^ offset) &
					 (c->num_buckets - 1));
}

/* Unlinks e from the LRU list. */
static void
lru_remove(HsBlockCacheEntry *e)
{
	e->lru_prev->lru_next = e->lru_next;
	e->lru_next->lru_prev = e->lru_prev;
	e->lru_prev = e->lru_next = NULL;
}

/* Append as the most recently used. */
static void
lru_append(HsBlockCache *c, HsBlockCacheEntry *e)
{
	e->lru_next = &c->lru;
	e->lru_prev = c->lru.lru_prev;
	e->lru_prev->lru_next = e;
	c->lru.lru_prev = e;
}

/* Frees e and the block contents it owns. */
static void
entry_free(HsBlockCache *c, HsBlockCacheEntry *e)
{
	HsFree(c->env, e->data);
	HsFree(c->env, e);
}

/* Unlink e from the hash table (it must be there). */
static void
hash_remove(HsBlockCache *c, HsBlockCacheEntry *e)
{
	HsBlockCacheEntry **pp = &c->buckets[bucket_of(c, e->id, e->offset)];

	while (*pp != e)
		pp = &(*pp)->hash_next;
	*pp = e->hash_next;
	e->hash_next = NULL;
	c->num_entries--;
}

/* Take e out of the cache; free it unless pinned. */
static void
cache_remove(HsBlockCache *c, HsBlockCacheEntry *e)
{
	hash_remove(c, e);
	e->in_cache = false;
	c->usage -= e->charge;
	if (e->refs == 0)
	{
		lru_remove(e);
		entry_free(c, e);
	}
}

/* Doubles the bucket array and rehashes every entry. */
static void
hash_grow(HsBlockCache *c)
{
	size_t		old_n = c->num_buckets;
	HsBlockCacheEntry **old = c->buckets;

	c->num_buckets = old_n * 2;
	c->buckets = HsAllocZero(c->env, c->num_buckets * sizeof(*c->buckets));
	for (size_t i = 0; i < old_n; i++)
	{
		HsBlockCacheEntry *e = old[i];

		while (e)
		{
			HsBlockCacheEntry *next = e->hash_next;
			size_t		b = bucket_of(c, e->id, e->offset);

			e->hash_next = c->buckets[b];
			c->buckets[b] = e;
			e = next;
		}
	}
	HsFree(c->env, old);
}

HsBlockCache *
HsBlockCacheCreate(HsEnv *env, size_t capacity)
{
	HsBlockCache *c = HsAllocZero(env, sizeof(HsBlockCache));

	c->env = env;
	c->capacity = capacity;
	c->next_id = 1;
	c->num_buckets = 256;
	c->buckets = HsAllocZero(env, c->num_buckets * sizeof(*c->buckets));
	c->lru.lru_next = c->lru.lru_prev = &c->lru;
	return c;
}

void
HsBlockCacheDestroy(HsBlockCache *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->num_buckets; i++)
	{
		HsBlockCacheEntry *e = c->buckets[i];

		while (e)
		{
			HsBlockCacheEntry *next = e->hash_next;

			entry_free(c, e);
			e = next;
		}
	}
	HsFree(c->env, c->buckets);
	HsFree(c->env, c);
}

uint64_t
HsBlockCacheNewId(HsBlockCache *c)
{
	return c->next_id++;
}

HsBlockCacheEntry *
HsBlockCacheLookup(HsBlockCache *c, uint64_t id, uint64_t offset)
{
	HsBlockCacheEntry *e = c->buckets[bucket_of(c, id, offset)];

	while (e && (e->id != id || e->offset != offset))
		e = e->hash_next;
	if (e == NULL)
	{
		c->misses++;
		return NULL;
	}
	c->hits++;
	if (e->refs++ == 0)
		lru_remove(e);
	return e;
}

HsBlockCacheEntry *
HsBlockCacheInsert(HsBlockCache *c, uint64_t id, uint64_t offset,
				   uint8_t *data, size_t len, size_t charge)
{
	HsBlockCacheEntry *e;
	HsBlockCacheEntry *old;
	size_t		b;

	/* replace an entry with the same key */
	old = c->buckets[bucket_of(c, id, offset)];
	while (old && (old->id != id || old->offset != offset))
		old = old->hash_next;
	if (old)
		cache_remove(c, old);

	e = HsAllocZero(c->env, sizeof(HsBlockCacheEntry));
	e->id = id;
	e->offset = offset;
	e->data = data;
	e->len = len;
	e->charge = (charge > len ? charge : len) + sizeof(HsBlockCacheEntry);
	e->refs = 1;
	e->in_cache = true;

	if (c->num_entries >= c->num_buckets)
		hash_grow(c);
	b = bucket_of(c, id, offset);
	e->hash_next = c->buckets[b];
	c->buckets[b] = e;
	c->num_entries++;
	c->usage += e->charge;

	/* evict the coldest unpinned entries */
	while (c->usage > c->capacity && c->lru.lru_next != &c->lru)
		cache_remove(c, c->lru.lru_next);
	return e;
}

void
HsBlockCacheRelease(HsBlockCache *c, HsBlockCacheEntry *e)
{
	if (--e->refs > 0)
		return;
	if (!e->in_cache)
	{
		entry_free(c, e);
		return;
	}
	lru_append(c, e);
	while (c->usage > c->capacity && c->lru.lru_next != &c->lru)
		cache_remove(c, c->lru.lru_next);
}

HsSlice
HsBlockCacheValue(const HsBlockCacheEntry *e)
{
	return HsSliceMake(e->data, e->len);
}

void
HsBlockCacheEraseId(HsBlockCache *c, uint64_t id)
{
	for (size_t i = 0; i < c->num_buckets; i++)
	{
		HsBlockCacheEntry *e = c->buckets[i];

		while (e)
		{
			HsBlockCacheEntry *next = e->hash_next;

			if (e->id == id)
				cache_remove(c, e);
			e = next;
		}
	}
}

size_t
HsBlockCacheUsage(const HsBlockCache *c)
{
	return c->usage;
}

void
HsBlockCacheStats(const HsBlockCache *c, uint64_t *hits, uint64_t *misses)
{
	*hits = c->hits;
	*misses = c->misses;
}
