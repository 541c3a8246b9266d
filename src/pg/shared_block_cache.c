/*-------------------------------------------------------------------------
 *
 * shared_block_cache.c
 *	  Decompressed SST blocks in shared memory, for every process.
 *
 * Design notes
 *
 * Point reads copy a block out (a copy of a 16kB block costs about a
 * microsecond, a read + checksum + decompression several).  Sequential
 * scans read a block in place instead, under a pin (lookup_pinned): at
 * their speed the copy is a tenth of the scan.  A pinned entry is never
 * evicted.  Every pin a process holds is in its local pin list with the
 * resource owner current when it was taken (a portal's, for a cursor);
 * unpin removes it, and an abort that releases that owner releases it, as
 * Postgres releases buffer pins, so a scan cut short by an error or a
 * cancel leaks nothing.  Pins taken without an owner are released by
 * unpin or at exit.
 *
 * Memory: n_pages pages of 8kB and as many entry descriptors (every entry
 * holds at least one page).  A block of len bytes takes ceil(len / 8kB)
 * pages; blocks above 256kB are not cached.  Free pages and free entries
 * are stacks under one spinlock, touched only when an entry is inserted
 * or evicted.  Pages are popped in increasing order and an entry's pages
 * go back so that they pop again in that order, so an entry's pages are
 * usually adjacent; only such entries can be read in place (the others
 * are copied out, also for scans).
 *
 * Lookup: a chained hash table of bucket heads and per-entry next links,
 * keyed by (database, extension oid, object id, block offset): object ids
 * are unique within one incarnation of the extension in one database, and
 * objects never change.  Buckets are split among SBC_PARTITIONS LWLocks
 * (bucket % SBC_PARTITIONS), as Postgres splits its buffer mapping table;
 * a lookup holds its partition shared while it copies or pins, an insert
 * or an eviction holds it exclusive while it links or unlinks an entry.
 *
 * Entry states: FREE (on the free stack), VALID (linked, readable), BUSY
 * (claimed by an evicter: still linked until the evicter holds its
 * partition exclusive, so readers copying it finish first).  An inserter
 * fills a FREE entry's fields and pages while nobody else can see it, then
 * links it and makes it VALID under the partition lock.
 *
 * Eviction: a clock sweep over the entries with a usage count (0..3)
 * raised by lookups and lowered by the sweep; an unpinned entry at 0 is
 * claimed (VALID -> BUSY with a compare-and-swap, so two evicters never
 * take the same one), then, with its partition held exclusive, unlinked
 * and freed unless a pin came meanwhile (pins are taken with the
 * partition held shared, so none can come after that check).  An insert
 * that cannot find space after a bounded sweep gives up: the cache is a
 * hint.  Blocks of sequential
 * scans enter cold (usage 0) and may only replace cold entries, found in
 * a short sweep that lowers no counts: a scan larger than the cache
 * recycles its own blocks (and other cold ones) instead of flushing what
 * point reads use, much as Postgres gives large heap scans a ring.
 *
 * src/pg/shared_block_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "funcapi.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "hummock_stream/pg/shared_block_cache.h"

#define SBC_PAGE_SIZE			8192
#define SBC_MAX_BLOCK_PAGES		32	/* blocks above 256kB are not cached */
#define SBC_PARTITIONS			64
#define SBC_MAX_USAGE			3
#define SBC_EVICT_TRIES			8	/* evictions one insert may make */
#define SBC_COLD_SWEEP			64	/* clock steps a scan's insert may take */

#define SBC_FREE	0
#define SBC_VALID	1
#define SBC_BUSY	2

typedef struct SbcTag
{
	Oid			dboid;
	Oid			ext_oid;
	uint64		object_id;
	uint64		offset;
} SbcTag;

typedef struct SbcEntry
{
	pg_atomic_uint32 state;		/* SBC_FREE, SBC_VALID or SBC_BUSY */
	pg_atomic_uint32 usage;		/* clock usage count, 0..SBC_MAX_USAGE */
	pg_atomic_uint32 pins;		/* scans reading it in place */
	bool		adjacent;		/* pages[i] == pages[0] + i */
	SbcTag		tag;
	uint32		hash;			/* of tag */
	uint32		len;			/* bytes of the block */
	int32		next;			/* next entry in the bucket chain, or -1 */
	int32		npages;
	int32		pages[SBC_MAX_BLOCK_PAGES];
} SbcEntry;

typedef struct SbcShared
{
	int			n_pages;
	int			n_buckets;		/* a power of two */
	int			tranche_id;
	LWLockPadded partition_locks[SBC_PARTITIONS];
	slock_t		free_lock;
	int			n_free_pages;
	int			n_free_entries;
	pg_atomic_uint32 clock_hand;
	pg_atomic_uint64 hits;
	pg_atomic_uint64 misses;
	pg_atomic_uint64 inserts;
	pg_atomic_uint64 evictions;
	pg_atomic_uint64 skipped;	/* inserts given up (too big, no space) */
} SbcShared;

int			hs_shared_block_cache_size_kb = 128 * 1024;

static SbcShared *sbc = NULL;
static int32 *sbc_buckets;
static int32 *sbc_free_pages;
static int32 *sbc_free_entries;
static SbcEntry *sbc_entries;
static char *sbc_pages;

/* ---------------------------------------------------------------------
 * Layout
 * ---------------------------------------------------------------------
 */

static int
sbc_page_count(void)
{
	return (int) Min((int64) hs_shared_block_cache_size_kb * 1024 / SBC_PAGE_SIZE,
					 (int64) PG_INT32_MAX / 2);
}

static int
sbc_bucket_count(int n_pages)
{
	int			b = 1;

	while (b < n_pages)
		b <<= 1;
	return b;
}

/* Offsets of the arrays after the header; total size if sizes != NULL. */
static Size
sbc_layout(int n_pages, Size *buckets_off, Size *free_pages_off,
		   Size *free_entries_off, Size *entries_off, Size *pages_off)
{
	Size		off = MAXALIGN(sizeof(SbcShared));
	int			n_buckets = sbc_bucket_count(n_pages);

	*buckets_off = off;
	off = add_size(off, MAXALIGN(mul_size(sizeof(int32), n_buckets)));
	*free_pages_off = off;
	off = add_size(off, MAXALIGN(mul_size(sizeof(int32), n_pages)));
	*free_entries_off = off;
	off = add_size(off, MAXALIGN(mul_size(sizeof(int32), n_pages)));
	*entries_off = off;
	off = add_size(off, mul_size(sizeof(SbcEntry), n_pages));
	/* pages start page-aligned relative to the area (itself cache-aligned) */
	off = TYPEALIGN(SBC_PAGE_SIZE, off);
	*pages_off = off;
	return add_size(off, mul_size(SBC_PAGE_SIZE, n_pages));
}

Size
HsSharedBlockCacheShmemSize(void)
{
	Size		a,
				b,
				c,
				d,
				e;

	if (sbc_page_count() == 0)
		return sizeof(SbcShared);
	/* + one page for aligning the page array */
	return add_size(sbc_layout(sbc_page_count(), &a, &b, &c, &d, &e),
					SBC_PAGE_SIZE);
}

void
HsSharedBlockCacheShmemInit(void *ptr, bool found)
{
	int			n_pages = sbc_page_count();
	Size		buckets_off,
				free_pages_off,
				free_entries_off,
				entries_off,
				pages_off;
	char	   *base;

	sbc = (SbcShared *) ptr;
	if (!found)
	{
		memset(sbc, 0, sizeof(SbcShared));
		sbc->n_pages = n_pages;
		sbc->tranche_id = LWLockNewTrancheId();
		for (int i = 0; i < SBC_PARTITIONS; i++)
			LWLockInitialize(&sbc->partition_locks[i].lock, sbc->tranche_id);
		SpinLockInit(&sbc->free_lock);
		pg_atomic_init_u32(&sbc->clock_hand, 0);
		pg_atomic_init_u64(&sbc->hits, 0);
		pg_atomic_init_u64(&sbc->misses, 0);
		pg_atomic_init_u64(&sbc->inserts, 0);
		pg_atomic_init_u64(&sbc->evictions, 0);
		pg_atomic_init_u64(&sbc->skipped, 0);
	}
	LWLockRegisterTranche(sbc->tranche_id, "hummock_stream block cache");
	if (sbc->n_pages == 0)
		return;

	sbc_layout(sbc->n_pages, &buckets_off, &free_pages_off,
			   &free_entries_off, &entries_off, &pages_off);
	/* align the page array to a page boundary in memory */
	base = (char *) ptr;
	sbc_buckets = (int32 *) (base + buckets_off);
	sbc_free_pages = (int32 *) (base + free_pages_off);
	sbc_free_entries = (int32 *) (base + free_entries_off);
	sbc_entries = (SbcEntry *) (base + entries_off);
	sbc_pages = (char *) TYPEALIGN(SBC_PAGE_SIZE, base + pages_off);
	if (!found)
	{
		sbc->n_buckets = sbc_bucket_count(sbc->n_pages);
		for (int i = 0; i < sbc->n_buckets; i++)
			sbc_buckets[i] = -1;
		for (int i = 0; i < sbc->n_pages; i++)
		{
			/* popped from the top: page 0 and entry 0 first */
			sbc_free_pages[i] = sbc->n_pages - 1 - i;
			sbc_free_entries[i] = sbc->n_pages - 1 - i;
			pg_atomic_init_u32(&sbc_entries[i].state, SBC_FREE);
			pg_atomic_init_u32(&sbc_entries[i].usage, 0);
			pg_atomic_init_u32(&sbc_entries[i].pins, 0);
			sbc_entries[i].next = -1;
			sbc_entries[i].npages = 0;
		}
		sbc->n_free_pages = sbc->n_pages;
		sbc->n_free_entries = sbc->n_pages;
	}
}

/* ---------------------------------------------------------------------
 * Lookup, insert, eviction
 * ---------------------------------------------------------------------
 */

static inline uint32
sbc_tag_hash(const SbcTag *tag)
{
	return hash_bytes((const unsigned char *) tag, sizeof(SbcTag));
}

static inline int
bucket_of(uint32 hash)
{
	return (int) (hash & (uint32) (sbc->n_buckets - 1));
}

static inline LWLock *
partition_lock(int bucket)
{
	return &sbc->partition_locks[bucket % SBC_PARTITIONS].lock;
}

static inline bool
tag_equal(const SbcTag *a, const SbcTag *b)
{
	return a->object_id == b->object_id && a->offset == b->offset &&
		a->dboid == b->dboid && a->ext_oid == b->ext_oid;
}

/* The entry holding tag in bucket b, or -1; partition lock held. */
static int
find_in_bucket(int b, const SbcTag *tag)
{
	for (int e = sbc_buckets[b]; e >= 0; e = sbc_entries[e].next)
		if (tag_equal(&sbc_entries[e].tag, tag))
			return e;
	return -1;
}

/* Unlink entry e from bucket b; partition lock held exclusive. */
static void
unlink_entry(int b, int e)
{
	int32	   *link = &sbc_buckets[b];

	while (*link >= 0 && *link != e)
		link = &sbc_entries[*link].next;
	if (*link == e)
		*link = sbc_entries[e].next;
	sbc_entries[e].next = -1;
}

/* Return an unlinked entry and its pages to the free stacks. */
static void
free_entry(int e)
{
	SbcEntry   *ent = &sbc_entries[e];

	SpinLockAcquire(&sbc->free_lock);
	/* last page first, so that they pop again in their order */
	for (int i = ent->npages - 1; i >= 0; i--)
		sbc_free_pages[sbc->n_free_pages++] = ent->pages[i];
	ent->npages = 0;
	pg_atomic_write_u32(&ent->state, SBC_FREE);
	sbc_free_entries[sbc->n_free_entries++] = e;
	SpinLockRelease(&sbc->free_lock);
}

/*
 * Evict one entry with the clock; false if a bounded sweep found none
 * (every entry recently used or busy).  cold_only: evict only an entry
 * whose usage count is already 0, without lowering the others' counts, in
 * at most SBC_COLD_SWEEP steps (for blocks of sequential scans).
 */
static bool
evict_one(bool cold_only)
{
	int			n = sbc->n_pages;
	int			steps = cold_only ? Min(n, SBC_COLD_SWEEP) : 2 * n;

	for (int step = 0; step < steps; step++)
	{
		int			e = (int) (pg_atomic_fetch_add_u32(&sbc->clock_hand, 1) % (uint32) n);
		SbcEntry   *ent = &sbc_entries[e];
		uint32		usage;
		uint32		expected = SBC_VALID;
		int			b;

		if (pg_atomic_read_u32(&ent->state) != SBC_VALID ||
			pg_atomic_read_u32(&ent->pins) > 0)
			continue;
		usage = pg_atomic_read_u32(&ent->usage);
		if (usage > 0)
		{
			if (!cold_only)
				pg_atomic_compare_exchange_u32(&ent->usage, &usage, usage - 1);
			continue;
		}
		if (!pg_atomic_compare_exchange_u32(&ent->state, &expected, SBC_BUSY))
			continue;
		/* claimed: wait for readers of its partition, unlink, free */
		b = bucket_of(ent->hash);
		LWLockAcquire(partition_lock(b), LW_EXCLUSIVE);
		if (pg_atomic_read_u32(&ent->pins) > 0)
		{
			/* a scan pinned it before we got here: it stays */
			pg_atomic_write_u32(&ent->state, SBC_VALID);
			LWLockRelease(partition_lock(b));
			continue;
		}
		unlink_entry(b, e);
		LWLockRelease(partition_lock(b));
		free_entry(e);
		pg_atomic_fetch_add_u64(&sbc->evictions, 1);
		return true;
	}
	return false;
}

/* Take a free entry with npages pages; -1 if there is no room. */
static int
alloc_entry(int npages, bool cold_only)
{
	for (int tries = 0;; tries++)
	{
		int			e = -1;

		SpinLockAcquire(&sbc->free_lock);
		if (sbc->n_free_entries > 0 && sbc->n_free_pages >= npages)
		{
			SbcEntry   *ent;

			e = sbc_free_entries[--sbc->n_free_entries];
			ent = &sbc_entries[e];
			ent->adjacent = true;
			for (int i = 0; i < npages; i++)
			{
				ent->pages[i] = sbc_free_pages[--sbc->n_free_pages];
				if (ent->pages[i] != ent->pages[0] + i)
					ent->adjacent = false;
			}
			ent->npages = npages;
		}
		SpinLockRelease(&sbc->free_lock);
		if (e >= 0)
			return e;
		if (tries >= SBC_EVICT_TRIES || !evict_one(cold_only))
			return -1;
	}
}

typedef struct SbcScope
{
	HsSecondaryCache ops;
	Oid			dboid;
	Oid			ext_oid;
} SbcScope;

/* The tag of a block of this scope, its hash and its bucket (returned). */
static int
scope_tag(const SbcScope *scope, uint64 object_id, uint64 offset,
		  SbcTag *tag, uint32 *hash)
{
	memset(tag, 0, sizeof(SbcTag));
	tag->dboid = scope->dboid;
	tag->ext_oid = scope->ext_oid;
	tag->object_id = object_id;
	tag->offset = offset;
	*hash = sbc_tag_hash(tag);
	return bucket_of(*hash);
}

/* ---------------------------------------------------------------------
 * Pins: this process's list, released by unpin or when the resource
 * owner that was current when they were taken is released by an abort
 * ---------------------------------------------------------------------
 */

typedef struct SbcPin
{
	uint64		id;				/* the handle given out (never 0) */
	int32		entry;
	ResourceOwner owner;		/* CurrentResourceOwner when taken, or NULL */
} SbcPin;

static SbcPin *local_pins = NULL;
static int	n_local_pins = 0;
static int	cap_local_pins = 0;
static uint64 next_pin_id = 1;

/* Release local pin i (its entry may be evicted again). */
static void
pin_release(int i)
{
	pg_atomic_fetch_sub_u32(&sbc_entries[local_pins[i].entry].pins, 1);
	local_pins[i] = local_pins[--n_local_pins];
}

/*
 * An aborting (sub)transaction or portal releases its resource owners one
 * by one, each current while the callbacks run: release the pins taken
 * under it, whose scans died with it.  A commit releases nothing (pins of
 * live iterators stay until unpin) but forgets the owner, so that an owner
 * allocated later at the same address cannot claim them.
 */
static void
pins_release_callback(ResourceReleasePhase phase, bool isCommit,
					  bool isTopLevel, void *arg)
{
	if (phase != RESOURCE_RELEASE_BEFORE_LOCKS)
		return;
	for (int i = n_local_pins - 1; i >= 0; i--)
	{
		if (local_pins[i].owner == NULL ||
			local_pins[i].owner != CurrentResourceOwner)
			continue;
		if (isCommit)
			local_pins[i].owner = NULL;
		else
			pin_release(i);
	}
}

static void
pins_exit_callback(int code, Datum arg)
{
	while (n_local_pins > 0)
		pin_release(n_local_pins - 1);
}

/*
 * Make room for one more local pin; called before the entry is pinned, so
 * that an allocation failure cannot leave a pin nobody records.
 */
static void
pins_reserve(void)
{
	if (local_pins == NULL)
	{
		RegisterResourceReleaseCallback(pins_release_callback, NULL);
		before_shmem_exit(pins_exit_callback, (Datum) 0);
		cap_local_pins = 16;
		local_pins = MemoryContextAlloc(TopMemoryContext,
										sizeof(SbcPin) * cap_local_pins);
	}
	else if (n_local_pins == cap_local_pins)
	{
		local_pins = repalloc(local_pins, sizeof(SbcPin) * cap_local_pins * 2);
		cap_local_pins *= 2;
	}
}

static void
sbc_unpin(void *arg, uint64_t pin)
{
	for (int i = n_local_pins - 1; i >= 0; i--)
		if (local_pins[i].id == pin)
		{
			pin_release(i);
			return;
		}
	/* released already, by an abort */
}

/*
 * Find the block; copy it into out, or with pin != NULL and adjacent
 * pages, pin it and point *contents at it (*pin set).
 */
static bool
sbc_find(SbcScope *scope, uint64_t object_id, uint64_t offset, HsBuf *out,
		 HsSlice *contents, uint64_t *pin)
{
	SbcTag		tag;
	uint32		hash;
	int			b;

	b = scope_tag(scope, object_id, offset, &tag, &hash);
	if (pin)
	{
		*pin = 0;
		pins_reserve();
	}

	for (;;)
	{
		int			e;
		SbcEntry   *ent;
		size_t		len;

		LWLockAcquire(partition_lock(b), LW_SHARED);
		e = find_in_bucket(b, &tag);
		if (e < 0)
		{
			LWLockRelease(partition_lock(b));
			pg_atomic_fetch_add_u64(&sbc->misses, 1);
			return false;
		}
		ent = &sbc_entries[e];
		len = ent->len;
		if (pin && ent->adjacent)
		{
			SbcPin	   *p = &local_pins[n_local_pins++];

			pg_atomic_fetch_add_u32(&ent->pins, 1);
			p->id = next_pin_id++;
			p->entry = e;
			p->owner = CurrentResourceOwner;
			*pin = p->id;
			*contents = HsSliceMake((const uint8_t *) sbc_pages +
									(Size) ent->pages[0] * SBC_PAGE_SIZE, len);
		}
		else if (out == NULL)
		{
			/* the caller takes the block only in place */
			LWLockRelease(partition_lock(b));
			return false;
		}
		else
		{
			if (out->cap < len)
			{
				/* grow outside the lock (an allocation may fail), then retry */
				LWLockRelease(partition_lock(b));
				HsBufReserve(out, len);
				continue;
			}
			for (int i = 0, done = 0; i < ent->npages; i++, done += SBC_PAGE_SIZE)
				memcpy(out->data + done,
					   sbc_pages + (Size) ent->pages[i] * SBC_PAGE_SIZE,
					   Min((size_t) SBC_PAGE_SIZE, len - done));
			out->len = len;
			*contents = HsBufSlice(out);
		}
		if (pg_atomic_read_u32(&ent->usage) < SBC_MAX_USAGE)
			pg_atomic_fetch_add_u32(&ent->usage, 1);
		LWLockRelease(partition_lock(b));
		pg_atomic_fetch_add_u64(&sbc->hits, 1);
		return true;
	}
}

static bool
sbc_lookup(void *arg, uint64_t object_id, uint64_t offset, HsBuf *out)
{
	HsSlice		contents;

	return sbc_find(arg, object_id, offset, out, &contents, NULL);
}

static bool
sbc_lookup_pinned(void *arg, uint64_t object_id, uint64_t offset, HsBuf *out,
				  HsSlice *contents, uint64_t *pin)
{
	return sbc_find(arg, object_id, offset, out, contents, pin);
}

static void
sbc_insert(void *arg, uint64_t object_id, uint64_t offset, HsSlice contents,
		   bool sequential)
{
	SbcScope   *scope = arg;
	SbcTag		tag;
	uint32		hash;
	int			b;
	int			npages;
	int			e;
	SbcEntry   *ent;
	bool		present;

	npages = (int) ((contents.len + SBC_PAGE_SIZE - 1) / SBC_PAGE_SIZE);
	if (npages == 0 || npages > SBC_MAX_BLOCK_PAGES || npages > sbc->n_pages)
	{
		pg_atomic_fetch_add_u64(&sbc->skipped, 1);
		return;
	}
	b = scope_tag(scope, object_id, offset, &tag, &hash);

	/* another process may have cached it meanwhile */
	LWLockAcquire(partition_lock(b), LW_SHARED);
	present = find_in_bucket(b, &tag) >= 0;
	LWLockRelease(partition_lock(b));
	if (present)
		return;

	e = alloc_entry(npages, sequential);
	if (e < 0)
	{
		pg_atomic_fetch_add_u64(&sbc->skipped, 1);
		return;
	}
	ent = &sbc_entries[e];
	for (int i = 0, done = 0; i < npages; i++, done += SBC_PAGE_SIZE)
		memcpy(sbc_pages + (Size) ent->pages[i] * SBC_PAGE_SIZE,
			   contents.data + done,
			   Min((size_t) SBC_PAGE_SIZE, contents.len - done));
	ent->tag = tag;
	ent->hash = hash;
	ent->len = (uint32) contents.len;
	/* a scan's block starts cold: the first to go unless it is read again */
	pg_atomic_write_u32(&ent->usage, sequential ? 0 : 1);

	LWLockAcquire(partition_lock(b), LW_EXCLUSIVE);
	if (find_in_bucket(b, &tag) >= 0)
	{
		LWLockRelease(partition_lock(b));
		free_entry(e);
		return;
	}
	ent->next = sbc_buckets[b];
	pg_write_barrier();
	pg_atomic_write_u32(&ent->state, SBC_VALID);
	sbc_buckets[b] = e;
	LWLockRelease(partition_lock(b));
	pg_atomic_fetch_add_u64(&sbc->inserts, 1);
}

const HsSecondaryCache *
HsSharedBlockCacheFor(Oid dboid, Oid ext_oid)
{
	static SbcScope scope;

	if (sbc == NULL || sbc->n_pages == 0)
		return NULL;
	scope.ops.lookup = sbc_lookup;
	scope.ops.insert = sbc_insert;
	scope.ops.lookup_pinned = sbc_lookup_pinned;
	scope.ops.unpin = sbc_unpin;
	scope.ops.arg = &scope;
	scope.dboid = dboid;
	scope.ext_oid = ext_oid;
	return &scope.ops;
}

/* ---------------------------------------------------------------------
 * SQL: hummock_stream.shared_block_cache()
 * ---------------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(hummock_stream_shared_block_cache);

/*
 * One row: capacity and used bytes, cached blocks, the counters since the
 * server started (hits, misses, inserts, evictions, skipped inserts), and
 * how many blocks scans hold pinned right now.
 */
Datum
hummock_stream_shared_block_cache(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[9];
	bool		nulls[9] = {false};
	int64		used_pages = 0;
	int64		entries = 0;
	int64		pinned = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (sbc != NULL && sbc->n_pages > 0)
	{
		SpinLockAcquire(&sbc->free_lock);
		used_pages = sbc->n_pages - sbc->n_free_pages;
		entries = sbc->n_pages - sbc->n_free_entries;
		SpinLockRelease(&sbc->free_lock);
		for (int e = 0; e < sbc->n_pages; e++)
			pinned += pg_atomic_read_u32(&sbc_entries[e].pins) > 0;
	}
	values[0] = Int64GetDatum(sbc ? (int64) sbc->n_pages * SBC_PAGE_SIZE : 0);
	values[1] = Int64GetDatum(used_pages * SBC_PAGE_SIZE);
	values[2] = Int64GetDatum(entries);
	values[3] = Int64GetDatum(sbc ? (int64) pg_atomic_read_u64(&sbc->hits) : 0);
	values[4] = Int64GetDatum(sbc ? (int64) pg_atomic_read_u64(&sbc->misses) : 0);
	values[5] = Int64GetDatum(sbc ? (int64) pg_atomic_read_u64(&sbc->inserts) : 0);
	values[6] = Int64GetDatum(sbc ? (int64) pg_atomic_read_u64(&sbc->evictions) : 0);
	values[7] = Int64GetDatum(sbc ? (int64) pg_atomic_read_u64(&sbc->skipped) : 0);
	values[8] = Int64GetDatum(pinned);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
