/*-------------------------------------------------------------------------
 *
 * sst_cache.c
 *	  A bounded, reference-counted cache of open SST readers.
 *
 * Entries live in a chained hash table keyed by object id and, while
 * idle (refs == 1, only the cache's own reference), in an LRU list.
 * An evicted entry leaves the table; whoever holds the last reference
 * closes the reader.  Each open reader is charged its memory when it is
 * opened and again whenever it goes back to idle (a reader loads its
 * filter on its first point read, so it grows while in use).
 *
 * src/storage/sst_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hummock_stream/storage/block.h"
#include "hummock_stream/storage/sst_cache.h"

struct HsSstCacheHandle
{
	uint64_t	object_id;
	HsSstReader  *reader;
	int			refs;			/* the cache's own + one per user */
	size_t		charge;			/* HsSstReaderMemory when last charged */
	bool		in_table;
	HsSstCacheHandle *hash_next;
	HsSstCacheHandle *lru_prev;	/* idle list, most recent at head */
	HsSstCacheHandle *lru_next;
	bool		in_lru;
};

struct HsSstCache
{
	HsEnv	   *env;
	HsObjectStore *store;
	HsBlockCache *block_cache;
	const HsSecondaryCache *secondary;	/* or NULL */
	const HsSstIterHooks *iter_hooks;	/* or NULL */
	int			capacity;
	size_t		byte_capacity;	/* 0: none */
	size_t		bytes;			/* charges of the open readers */
	int			n_buckets;		/* power of two */
	HsSstCacheHandle **buckets;
	int			n_open;			/* entries whose reader is open */
	int			n_idle;
	HsSstCacheHandle lru;		/* sentinel */
};

/* Returns the hash bucket of object id. */
static unsigned
bucket_of(const HsSstCache *c, uint64_t id)
{
	uint64_t	h = id * UINT64_C(0x9E3779B97F4A7C15);

	return (unsigned) (h >> 32) & (unsigned) (c->n_buckets - 1);
}

/* Takes h off the idle list, if it is on it. */
static void
lru_unlink(HsSstCache *c, HsSstCacheHandle *h)
{
	if (!h->in_lru)
		return;
	h->lru_prev->lru_next = h->lru_next;
	h->lru_next->lru_prev = h->lru_prev;
	h->in_lru = false;
	c->n_idle--;
}

/* Puts h at the head of the idle list (most recently used). */
static void
lru_push(HsSstCache *c, HsSstCacheHandle *h)
{
	h->lru_next = c->lru.lru_next;
	h->lru_prev = &c->lru;
	c->lru.lru_next->lru_prev = h;
	c->lru.lru_next = h;
	h->in_lru = true;
	c->n_idle++;
}

/* Takes h out of the hash table. */
static void
table_remove(HsSstCache *c, HsSstCacheHandle *h)
{
	HsSstCacheHandle **pp = &c->buckets[bucket_of(c, h->object_id)];

	while (*pp && *pp != h)
		pp = &(*pp)->hash_next;
	if (*pp)
		*pp = h->hash_next;
	h->in_table = false;
}

/* Charges h its reader's memory now. */
static void
recharge(HsSstCache *c, HsSstCacheHandle *h)
{
	c->bytes -= h->charge;
	h->charge = HsSstReaderMemory(h->reader);
	c->bytes += h->charge;
}

/* Drops a reference to h: back to idle at one, closed and freed at zero. */
static void
unref(HsSstCache *c, HsSstCacheHandle *h)
{
	if (--h->refs > 0)
	{
		/* back to idle: only the cache's reference is left */
		if (h->refs == 1 && h->in_table)
		{
			recharge(c, h);
			lru_push(c, h);
		}
		return;
	}
	c->bytes -= h->charge;
	HsSstReaderClose(h->reader);
	c->n_open--;
	HsFree(c->env, h);
}

/* Drop the table's reference to h. */
static void
evict(HsSstCache *c, HsSstCacheHandle *h)
{
	lru_unlink(c, h);
	table_remove(c, h);
	unref(c, h);
}

/*
 * Evicts idle readers, least recently used first, down to the capacity
 * and, if set, the byte capacity.
 */
static void
trim(HsSstCache *c)
{
	while (c->n_idle > c->capacity ||
		   (c->n_idle > 0 && c->byte_capacity > 0 &&
			c->bytes > c->byte_capacity))
		evict(c, c->lru.lru_prev);
}

HsSstCache *
HsSstCacheCreate(HsEnv *env, HsObjectStore *store, int capacity,
				 HsBlockCache *block_cache)
{
	HsSstCache *c = HsAllocZero(env, sizeof(HsSstCache));
	int			nb = 16;

	if (capacity < 1)
		capacity = 1;
	while (nb < capacity * 2)
		nb *= 2;
	c->env = env;
	c->store = store;
	c->block_cache = block_cache;
	c->capacity = capacity;
	c->n_buckets = nb;
	c->buckets = HsAllocZero(env, sizeof(HsSstCacheHandle *) * nb);
	c->lru.lru_next = c->lru.lru_prev = &c->lru;
	return c;
}

void
HsSstCacheSetByteCapacity(HsSstCache *c, size_t bytes)
{
	c->byte_capacity = bytes;
	trim(c);
}

size_t
HsSstCacheOpenBytes(const HsSstCache *c)
{
	return c->bytes;
}

void
HsSstCacheDestroy(HsSstCache *c)
{
	int			i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n_buckets; i++)
	{
		while (c->buckets[i])
			evict(c, c->buckets[i]);
	}
	HsFree(c->env, c->buckets);
	HsFree(c->env, c);
}

void
HsSstCacheSetSecondary(HsSstCache *c, const HsSecondaryCache *secondary)
{
	c->secondary = secondary;
}

void
HsSstCacheSetIterHooks(HsSstCache *c, const HsSstIterHooks *hooks)
{
	c->iter_hooks = hooks;
}

bool
HsSstCacheGet(HsSstCache *c, uint64_t object_id, HsSstCacheHandle **handle,
			  HsStatus *st)
{
	HsSstCacheHandle *h;
	HsSstReaderOptions opts;
	char		path[HS_OBJECT_PATH_LEN];
	HsSstReader  *r;
	HsStatus	inner;

	*handle = NULL;
	for (h = c->buckets[bucket_of(c, object_id)]; h; h = h->hash_next)
	{
		if (h->object_id == object_id)
		{
			lru_unlink(c, h);
			h->refs++;
			*handle = h;
			return true;
		}
	}
	if (!HsObjectStoreLocalPath(c->store, object_id, path, sizeof(path),
								&inner))
		r = NULL;
	else
	{
		HsSstReaderOptionsInit(&opts);
		opts.block_cache = c->block_cache;
		opts.secondary_cache = c->secondary;
		opts.object_id = object_id;
		r = HsSstReaderOpenWithOptions(c->env, path, &opts, &inner);
	}
	if (r == NULL)
	{
		if (inner.code == HS_IO_ERROR)
		{
			*st = inner;
			return false;
		}
		HsObjectStoreName(c->store, object_id, path, sizeof(path));
		HsStatusSet(st, HS_CORRUPTION, "sst object %" PRIu64 " cannot be read: %s",
					object_id, inner.msg);
		return HsStatusDetail(st, "Object file \"%s\" is referenced by a version. %s",
							  path, inner.detail);
	}
	h = HsAllocZero(c->env, sizeof(HsSstCacheHandle));
	h->object_id = object_id;
	h->reader = r;
	h->refs = 2;				/* the table's and the caller's */
	h->in_table = true;
	h->hash_next = c->buckets[bucket_of(c, object_id)];
	c->buckets[bucket_of(c, object_id)] = h;
	c->n_open++;
	recharge(c, h);
	trim(c);
	*handle = h;
	return true;
}

HsSstReader *
HsSstCacheReader(HsSstCacheHandle *handle)
{
	return handle->reader;
}

void
HsSstCacheRelease(HsSstCache *c, HsSstCacheHandle *h)
{
	if (h == NULL)
		return;
	unref(c, h);
	trim(c);
}

/* Reads one key's newest version <= read_epoch through a cached reader. */
bool
HsSstCacheGetVersion(HsSstCache *cache, uint64_t object_id, HsSlice table_key,
					 HsEpoch read_epoch, bool *found, HsEpoch *epoch,
					 HsBuf *value, HsStatus *st)
{
	HsSstCacheHandle *h;
	bool		ok;

	*found = false;
	if (!HsSstCacheGet(cache, object_id, &h, st))
		return false;
	ok = HsSstReaderGetVersion(HsSstCacheReader(h), table_key, read_epoch,
							   found, epoch, value, st);
	HsSstCacheRelease(cache, h);
	return ok;
}

void
HsSstCacheEvict(HsSstCache *c, uint64_t object_id)
{
	HsSstCacheHandle *h;

	for (h = c->buckets[bucket_of(c, object_id)]; h; h = h->hash_next)
	{
		if (h->object_id == object_id)
		{
			evict(c, h);
			return;
		}
	}
}

int
HsSstCacheOpenCount(const HsSstCache *c)
{
	return c->n_open;
}

/* ----------------------------------------------------------------
 *		an SST iterator that holds its reader
 * ----------------------------------------------------------------
 */
typedef struct CachedIter
{
	HsIterator	base;
	HsIterator *inner;
	HsSstCache *cache;
	HsSstCacheHandle *handle;
	uint64_t	object_id;
	const HsSstIterHooks *hooks;	/* told of its end, or NULL */
	void	   *token;			/* from hooks->opened */
} CachedIter;

/* After the inner iterator moved: take its status and publish its entry. */
static void
cached_sync_status(CachedIter *ci)
{
	if (ci->base.status.code == HS_OK && ci->inner->status.code != HS_OK)
		ci->base.status = ci->inner->status;
	HsIterPublish(&ci->base, HsIterValid(ci->inner), HsIterKey(ci->inner),
				  HsIterValue(ci->inner));
}

/* Positions the SST iterator at its first entry. */
static void
cached_seek_to_first(HsIterator *it)
{
	CachedIter *ci = (CachedIter *) it;

	HsIterSeekToFirst(ci->inner);
	cached_sync_status(ci);
}

/* Seeks the SST iterator to target. */
static void
cached_seek(HsIterator *it, HsSlice target)
{
	CachedIter *ci = (CachedIter *) it;

	HsIterSeek(ci->inner, target);
	cached_sync_status(ci);
}

/* Moves the SST iterator to its next entry. */
static void
cached_next(HsIterator *it)
{
	CachedIter *ci = (CachedIter *) it;

	HsIterNext(ci->inner);
	cached_sync_status(ci);
}

/* The inner SST iterator lends its block cursor. */
static HsBlockIter *
cached_cursor(HsIterator *it, HsSlice *limit)
{
	return HsIterBorrow(((CachedIter *) it)->inner, limit);
}

/* Takes the position back from a borrower of the SST iterator's cursor. */
static void
cached_resync(HsIterator *it)
{
	CachedIter *ci = (CachedIter *) it;

	ci->inner->ops->resync(ci->inner);
	cached_sync_status(ci);
}

/* Destroys the SST iterator and releases its reader. */
static void
cached_destroy(HsIterator *it)
{
	CachedIter *ci = (CachedIter *) it;

	if (ci->hooks)
		ci->hooks->closed(ci->hooks->arg, ci->token);
	HsIterDestroy(ci->inner);
	HsSstCacheRelease(ci->cache, ci->handle);
	HsFree(it->env, ci);
}

/* valid, key and value are published (iterator.h) */
static const HsIteratorOps cached_ops = {
	.seek_to_first = cached_seek_to_first,
	.seek = cached_seek,
	.next = cached_next,
	.destroy = cached_destroy,
	.cursor = cached_cursor,
	.resync = cached_resync,
};

bool
HsSstCacheNewIterator(HsSstCache *cache, uint64_t object_id,
					  HsIterator **out, HsStatus *st)
{
	HsSstCacheHandle *h;
	CachedIter *ci;

	*out = NULL;
	if (!HsSstCacheGet(cache, object_id, &h, st))
		return false;
	ci = HsAllocZero(cache->env, sizeof(CachedIter));
	ci->base.ops = &cached_ops;
	ci->base.env = cache->env;
	HsStatusClear(&ci->base.status);
	ci->inner = HsSstReaderNewIterator(h->reader);
	ci->cache = cache;
	ci->handle = h;
	ci->object_id = object_id;
	ci->hooks = cache->iter_hooks;
	if (ci->hooks)
		ci->token = ci->hooks->opened(ci->hooks->arg, &ci->base);
	*out = &ci->base;
	return true;
}
