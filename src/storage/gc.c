/*-------------------------------------------------------------------------
 *
 * gc.c
 *	  Object garbage collection by reachability.
 *
 * Every version's object ids come sorted (HsVersionObjectIds), so the
 * check per listed object is a binary search in each referenced set.
 *
 * src/storage/gc.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <string.h>

#include "hummock_stream/storage/gc.h"

/* Is id in the ascending array ids? */
static bool
sorted_contains(const uint64_t *ids, size_t n, uint64_t id)
{
	size_t		lo = 0;
	size_t		hi = n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == id;
}

void
HsGcCollect(HsEnv *env, const HsVersion *current,
			const HsVersion *const *pinned, int n_pinned,
			const HsObjectEntry *objects, size_t n_objects,
			uint64_t min_inflight_id, HsObjectEntry **out, size_t *n_out)
{
	int			n_sets = n_pinned + 1;
	uint64_t  **sets = HsAlloc(env, sizeof(uint64_t *) * n_sets);
	size_t	   *sizes = HsAlloc(env, sizeof(size_t) * n_sets);
	HsObjectEntry *res = NULL;
	size_t		n = 0;
	size_t		i;
	int			k;

	HsVersionObjectIds(current, &sets[0], &sizes[0]);
	for (k = 0; k < n_pinned; k++)
		HsVersionObjectIds(pinned[k], &sets[k + 1], &sizes[k + 1]);
	for (i = 0; i < n_objects; i++)
	{
		bool		live = objects[i].object_id >= min_inflight_id;

		for (k = 0; k < n_sets && !live; k++)
			live = !objects[i].temporary &&
				sorted_contains(sets[k], sizes[k], objects[i].object_id);
		if (live)
			continue;
		res = HsRealloc(env, res, sizeof(HsObjectEntry) * (n + 1));
		res[n++] = objects[i];
	}
	for (k = 0; k < n_sets; k++)
		if (sets[k])
			HsFree(env, sets[k]);
	HsFree(env, sets);
	HsFree(env, sizes);
	*out = res;
	*n_out = n;
}

typedef struct Listing
{
	HsEnv	   *env;
	HsObjectEntry *entries;
	size_t		n;
} Listing;

/* Object-list callback: appends the entry to the listing. */
static bool
collect(void *arg, const HsObjectEntry *e)
{
	Listing    *l = arg;

	l->entries = HsRealloc(l->env, l->entries,
						   sizeof(HsObjectEntry) * (l->n + 1));
	l->entries[l->n++] = *e;
	return true;
}

bool
HsGcRun(HsObjectStore *store, HsSstCache *cache, const HsVersion *current,
		const HsVersion *const *pinned, int n_pinned,
		uint64_t min_inflight_id, size_t *n_deleted, uint64_t *bytes_deleted,
		HsStatus *st)
{
	HsEnv	   *env = store->env;
	Listing		l;
	HsObjectEntry *victims;
	size_t		n_victims;
	size_t		i;
	bool		ok = true;

	*n_deleted = 0;
	*bytes_deleted = 0;
	memset(&l, 0, sizeof(l));
	l.env = env;
	if (!HsObjectStoreList(store, collect, &l, st))
	{
		if (l.entries)
			HsFree(env, l.entries);
		return false;
	}
	HsGcCollect(env, current, pinned, n_pinned, l.entries, l.n,
				min_inflight_id, &victims, &n_victims);
	for (i = 0; i < n_victims && ok; i++)
	{
		HsStatus	rst;

		if (cache && !victims[i].temporary)
			HsSstCacheEvict(cache, victims[i].object_id);
		if (HsObjectStoreRemove(store, victims[i].object_id,
								victims[i].temporary, &rst))
		{
			(*n_deleted)++;
			*bytes_deleted += victims[i].size;
		}
		else if (rst.code != HS_NOT_FOUND)
		{
			*st = rst;
			ok = false;
		}
	}
	if (victims)
		HsFree(env, victims);
	if (l.entries)
		HsFree(env, l.entries);
	return ok;
}
