/*-------------------------------------------------------------------------
 *
 * sst_reader.c
 *	  Opening SST files, point gets and the two-level SST iterator.
 *
 * Open reads the footer, checks the layout, then reads the properties and
 * index blocks (each CRC-checked) and keeps them in memory.  The filter
 * block is read (and checked) by the first point get: scans never need it,
 * and it is most of an SST's metadata (about 10 bits per key), which every
 * process that opens the SST would otherwise read and keep (a parallel
 * worker, say, that only scans).
 * The index is decoded once into an array of (last key, handle), with the
 * keys pointing into the index block, so finding the block for a key is a
 * binary search over an array; the array is validated on the way (keys
 * strictly increasing, handles tiling the data region exactly).
 *
 * A point get: filter, index binary search, one block (from the block
 * cache or one pread + CRC + decompression into the reader's reused
 * buffers), block seek, and a comparison of the table key found.
 *
 * The iterator owns its block buffers and a HsBlockIter, so scanning costs
 * one pread and one decompression per block and nothing per entry.
 *
 * src/storage/sst_reader.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hummock_stream/storage/block.h"
#include "hummock_stream/storage/bloom.h"
#include "hummock_stream/storage/sst_reader.h"

typedef struct HsSstIndexEntry
{
	uint64_t	prefix;			/* see key_prefix() */
	const uint8_t *key;			/* last full key of the block */
	size_t		key_len;
	uint64_t	offset;
	uint64_t	size;
} HsSstIndexEntry;

/*
 * The first 8 bytes of a full key's table key, big-endian, zero-padded if
 * the table key is shorter.  Different prefixes order two full keys the
 * same way HsFullKeyCompare does (a padded shorter table key that agrees
 * on its real bytes is a prefix of the other, which sorts first), so the
 * index search compares integers and only looks at the keys on a tie.
 */
static inline uint64_t
key_prefix(HsSlice full_key)
{
	size_t		n = full_key.len - HS_EPOCH_LEN;
	uint8_t		buf[8];

	if (n >= 8)
		return HsGetBE64(full_key.data);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, full_key.data, n);
	return HsGetBE64(buf);
}

struct HsSstReader
{
	HsEnv	   *env;
	HsFile	   *file;
	char	   *path;
	uint64_t	file_size;
	HsSstReaderOptions opts;
	uint64_t	cache_id;

	HsSstFooter	footer;
	uint64_t	data_end;

	HsBuf		index_mem;		/* index block contents */
	HsSstIndexEntry *index;
	uint32_t	num_blocks;

	HsBuf		filter_mem;
	HsBloomFilter filter;
	bool		has_filter;		/* the file has a filter block */
	bool		filter_loaded;	/* ... and filter holds it (reader_filter) */

	HsBuf		props_mem;
	HsSstProperties props;

	HsDecompressor dec;

	/* point-get scratch, reused */
	HsBuf		get_stored;
	HsBuf		get_raw;
	HsBuf		get_target;
	HsBlockIter	get_iter;
	HsStatus	get_status;
};

/* Sets the default options: checksums verified, no caches. */
void
HsSstReaderOptionsInit(HsSstReaderOptions *opts)
{
	opts->verify_checksums = true;
	opts->block_cache = NULL;
	opts->fill_cache_on_get = true;
	opts->secondary_cache = NULL;
	opts->object_id = 0;
}

/* The reader's secondary cache, if it has one and an object id. */
static inline const HsSecondaryCache *
reader_secondary(const HsSstReader *r)
{
	return r->opts.object_id != 0 ? r->opts.secondary_cache : NULL;
}

/* Copy block i from the secondary cache into out; false if not there. */
static bool
secondary_lookup(const HsSstReader *r, uint32_t i, HsBuf *out, HsSlice *contents)
{
	const HsSecondaryCache *sec = reader_secondary(r);

	if (sec == NULL ||
		!sec->lookup(sec->arg, r->opts.object_id, r->index[i].offset, out))
		return false;
	*contents = HsBufSlice(out);
	return true;
}

/*
 * Block i from the secondary cache, in place if it can pin it there (*pin
 * then nonzero, for secondary_unpin), else copied into out; false if it
 * is not cached.
 */
static bool
secondary_lookup_pinned(const HsSstReader *r, uint32_t i, HsBuf *out,
						HsSlice *contents, uint64_t *pin)
{
	const HsSecondaryCache *sec = reader_secondary(r);

	*pin = 0;
	if (sec == NULL)
		return false;
	if (sec->lookup_pinned == NULL)
		return secondary_lookup(r, i, out, contents);
	return sec->lookup_pinned(sec->arg, r->opts.object_id, r->index[i].offset,
							  out, contents, pin);
}

/* Releases a pin on a block in the secondary cache (0: none). */
static void
secondary_unpin(const HsSstReader *r, uint64_t pin)
{
	const HsSecondaryCache *sec = reader_secondary(r);

	if (sec && pin != 0)
		sec->unpin(sec->arg, pin);
}

/* Offer block i, just read from the file, to the secondary cache. */
static void
secondary_offer(const HsSstReader *r, uint32_t i, HsSlice contents,
				bool sequential)
{
	const HsSecondaryCache *sec = reader_secondary(r);

	if (sec)
		sec->insert(sec->arg, r->opts.object_id, r->index[i].offset, contents,
					sequential);
}

/* ----------------------------------------------------------------
 *		opening
 * ----------------------------------------------------------------
 */

/*
 * Read a meta block into *keep (which then owns the contents, freeing what
 * it held: the filter block is read again after a failed parse).
 */
static bool
read_meta_block(HsSstReader *r, HsSstBlockHandle h, HsBuf *keep,
				HsSlice *contents, HsStatus *st)
{
	HsBuf		stored;
	HsBuf		raw;

	HsBufInit(&stored, r->env);
	HsBufInit(&raw, r->env);
	if (!HsSstReadBlock(r->env, r->file, r->path, h, r->opts.verify_checksums,
					  &r->dec, &stored, &raw, contents, NULL, st))
	{
		HsBufFree(&stored);
		HsBufFree(&raw);
		return false;
	}
	HsBufFree(keep);
	if (contents->data == stored.data)
	{
		*keep = stored;
		HsBufFree(&raw);
	}
	else
	{
		*keep = raw;
		HsBufFree(&stored);
	}
	return true;
}

/* Reports a corrupt index entry i. */
static bool
index_corrupt(HsSstReader *r, uint32_t i, const char *what,
			  const char *expected, const char *actual, HsStatus *st)
{
	char		msg[128];

	snprintf(msg, sizeof(msg), "%s (index entry %" PRIu32 ")", what, i);
	return HsStatusCorruption(st, r->path, r->footer.index.offset, msg,
							  expected, actual);
}

/* Decode and validate the index block into r->index. */
static bool
load_index(HsSstReader *r, HsStatus *st)
{
	HsSlice		contents;
	Block		blk;
	const uint8_t *p;
	const uint8_t *limit;
	uint64_t	expect_offset = 0;
	uint32_t	n = 0;
	char		expected[96];
	char		actual[96];

	if (!read_meta_block(r, r->footer.index, &r->index_mem, &contents, st))
		return false;
	if (!HsBlockParse(&blk, contents, r->path, r->footer.index.offset, st))
		return false;

	/* restart interval 1: one restart per entry bounds the entry count */
	r->index = HsAlloc(r->env, sizeof(HsSstIndexEntry) *
					   (blk.num_restarts ? blk.num_restarts : 1));
	p = blk.data;
	limit = blk.data + blk.restarts_offset;
	while (p < limit)
	{
		uint32_t	shared,
					non_shared,
					value_len;
		HsSstBlockHandle h;
		HsSstIndexEntry *e;
		const uint8_t *q;

		q = HsBlockDecodeEntry(p, limit, &shared, &non_shared, &value_len);
		if (q == NULL || shared != 0 || non_shared < HS_MIN_FULL_KEY_LEN ||
			n >= blk.num_restarts ||
			HsBlockRestartOffset(&blk, n) != (uint32_t) (p - blk.data))
		{
			snprintf(actual, sizeof(actual), "%s at index block offset %td",
					 q == NULL ? "a truncated entry" :
					 shared != 0 ? "a shared key prefix" :
					 non_shared < HS_MIN_FULL_KEY_LEN ? "a short key" :
					 "an entry without a restart point", p - blk.data);
			return index_corrupt(r, n, "malformed sst index entry",
								 "an entry with a whole full key and a restart",
								 actual, st);
		}
		if (!HsSstDecodeHandle(HsSliceMake(q + non_shared, value_len), &h))
			return index_corrupt(r, n, "malformed sst index entry",
								 "a block handle", "undecodable varints", st);
		if (h.offset != expect_offset || h.size > r->data_end ||
			HsSstBlockHandleEnd(h) > r->data_end)
		{
			snprintf(expected, sizeof(expected),
					 "a block at offset %" PRIu64 " ending by %" PRIu64,
					 expect_offset, r->data_end);
			snprintf(actual, sizeof(actual), "offset %" PRIu64 " size %" PRIu64,
					 h.offset, h.size);
			return index_corrupt(r, n, "sst index handle out of place",
								 expected, actual, st);
		}
		e = &r->index[n];
		e->key = q;
		e->key_len = non_shared;
		e->prefix = key_prefix(HsSliceMake(q, non_shared));
		e->offset = h.offset;
		e->size = h.size;
		if (n > 0 &&
			HsFullKeyCompare(HsSliceMake(e->key, e->key_len),
							 HsSliceMake(r->index[n - 1].key,
										 r->index[n - 1].key_len)) <= 0)
			return index_corrupt(r, n, "sst index keys out of order",
								 "strictly increasing keys",
								 "a key not after the previous one", st);
		expect_offset = HsSstBlockHandleEnd(h);
		p = q + non_shared + value_len;
		n++;
	}
	if (n != blk.num_restarts && !(n == 0 && blk.num_restarts == 1))
	{
		snprintf(expected, sizeof(expected), "%" PRIu32 " entries",
				 blk.num_restarts);
		snprintf(actual, sizeof(actual), "%" PRIu32, n);
		return index_corrupt(r, n, "sst index restart count mismatch",
							 expected, actual, st);
	}
	if (expect_offset != r->data_end)
	{
		snprintf(expected, sizeof(expected),
				 "data blocks ending at offset %" PRIu64, r->data_end);
		snprintf(actual, sizeof(actual), "blocks ending at %" PRIu64,
				 expect_offset);
		return index_corrupt(r, n, "sst index does not cover the data",
							 expected, actual, st);
	}
	r->num_blocks = n;
	return true;
}

/* Reads and decodes the properties block and checks it against the layout. */
static bool
load_properties(HsSstReader *r, HsStatus *st)
{
	HsSlice		contents;
	char		expected[96];
	char		actual[96];

	if (!read_meta_block(r, r->footer.properties, &r->props_mem, &contents,
						 st))
		return false;
	if (!HsSstPropertiesDecode(&r->props, r->env, contents, r->path,
							 r->footer.properties.offset, st))
		return false;
	if (r->props.data_stored_size != r->data_end)
	{
		snprintf(expected, sizeof(expected), "%" PRIu64 " bytes of data blocks",
				 r->data_end);
		snprintf(actual, sizeof(actual), "%" PRIu64, r->props.data_stored_size);
		return HsStatusCorruption(st, r->path, r->footer.properties.offset,
								  "sst properties disagree with the layout",
								  expected, actual);
	}
	return true;
}

HsSstReader *
HsSstReaderOpen(HsEnv *env, const char *path, HsStatus *st)
{
	return HsSstReaderOpenWithOptions(env, path, NULL, st);
}

HsSstReader *
HsSstReaderOpenWithOptions(HsEnv *env, const char *path,
						 const HsSstReaderOptions *opts, HsStatus *st)
{
	HsSstReader  *r;
	size_t		plen = strlen(path);
	uint8_t		fbuf[HS_SST_FOOTER_SIZE];
	size_t		nread;
	char		expected[96];
	char		actual[96];

	r = HsAllocZero(env, sizeof(HsSstReader));
	r->env = env;
	if (opts)
		r->opts = *opts;
	else
		HsSstReaderOptionsInit(&r->opts);
	r->path = HsAlloc(env, plen + 1);
	memcpy(r->path, path, plen + 1);
	HsBufInit(&r->index_mem, env);
	HsBufInit(&r->filter_mem, env);
	HsBufInit(&r->props_mem, env);
	HsBufInit(&r->get_stored, env);
	HsBufInit(&r->get_raw, env);
	HsBufInit(&r->get_target, env);
	HsStatusClear(&r->get_status);
	HsBlockIterInit(&r->get_iter, env, &r->get_status);
	HsDecompressorInit(&r->dec, env);

	if (!env->open_readable(env, path, &r->file, st))
	{
		r->file = NULL;
		goto fail;
	}
	if (!env->size(env, r->file, &r->file_size, st))
		goto fail;

	/* footer */
	if (r->file_size < HS_SST_FOOTER_SIZE)
	{
		snprintf(expected, sizeof(expected), "at least %d bytes",
				 HS_SST_FOOTER_SIZE);
		snprintf(actual, sizeof(actual), "%" PRIu64 " bytes", r->file_size);
		HsStatusCorruption(st, path, 0, "sst file too short", expected,
						   actual);
		goto fail;
	}
	if (!env->read_at(env, r->file, r->file_size - HS_SST_FOOTER_SIZE, fbuf,
					  HS_SST_FOOTER_SIZE, &nread, st))
		goto fail;
	if (nread != HS_SST_FOOTER_SIZE)
	{
		snprintf(expected, sizeof(expected), "%d bytes", HS_SST_FOOTER_SIZE);
		snprintf(actual, sizeof(actual), "%zu bytes", nread);
		HsStatusCorruption(st, path, r->file_size - HS_SST_FOOTER_SIZE,
						   "truncated sst footer", expected, actual);
		goto fail;
	}
	if (!HsSstFooterDecode(&r->footer, fbuf, path,
						 r->file_size - HS_SST_FOOTER_SIZE,
						 r->opts.verify_checksums, st) ||
		!HsSstFooterCheckLayout(&r->footer, r->file_size, path, &r->data_end,
							  st))
		goto fail;

	/* meta blocks */
	if (!load_properties(r, st) || !load_index(r, st))
		goto fail;
	if (r->num_blocks != r->props.data_block_count)
	{
		snprintf(expected, sizeof(expected), "%" PRIu64 " blocks",
				 r->props.data_block_count);
		snprintf(actual, sizeof(actual), "%" PRIu32, r->num_blocks);
		HsStatusCorruption(st, path, r->footer.index.offset,
						   "sst index disagrees with the properties",
						   expected, actual);
		goto fail;
	}
	if (r->num_blocks > 0 &&
		HsFullKeyCompare(HsSliceMake(r->index[r->num_blocks - 1].key,
									 r->index[r->num_blocks - 1].key_len),
						 r->props.largest_key) != 0)
	{
		HsStatusCorruption(st, path, r->footer.index.offset,
						   "sst index disagrees with the properties",
						   "the last index key equal to the largest key",
						   "a different key");
		goto fail;
	}
	r->has_filter = r->footer.filter.size > 0;

	if (r->opts.block_cache)
		r->cache_id = HsBlockCacheNewId(r->opts.block_cache);
	return r;

fail:
	HsSstReaderClose(r);
	return NULL;
}

void
HsSstReaderClose(HsSstReader *r)
{
	HsEnv	   *env;
	HsStatus	ignore;

	if (r == NULL)
		return;
	env = r->env;
	if (r->opts.block_cache && r->cache_id)
		HsBlockCacheEraseId(r->opts.block_cache, r->cache_id);
	if (r->file)
		env->close(env, r->file, &ignore);
	HsSstPropertiesFree(&r->props, env);
	if (r->index)
		HsFree(env, r->index);
	HsBufFree(&r->index_mem);
	HsBufFree(&r->filter_mem);
	HsBufFree(&r->props_mem);
	HsBufFree(&r->get_stored);
	HsBufFree(&r->get_raw);
	HsBufFree(&r->get_target);
	HsBlockIterDestroy(&r->get_iter);
	HsDecompressorDestroy(&r->dec);
	HsFree(env, r->path);
	HsFree(env, r);
}

/* ----------------------------------------------------------------
 *		accessors
 * ----------------------------------------------------------------
 */

size_t
HsSstReaderMemory(const HsSstReader *r)
{
	return sizeof(HsSstReader) + strlen(r->path) + 1 +
		r->index_mem.cap + r->filter_mem.cap + r->props_mem.cap +
		(size_t) r->num_blocks * sizeof(HsSstIndexEntry) +
		r->get_stored.cap + r->get_raw.cap + r->get_target.cap;
}

const HsSstProperties *
HsSstReaderProperties(const HsSstReader *r)
{
	return &r->props;
}

/* Returns the size of the file. */
uint64_t
HsSstReaderFileSize(const HsSstReader *r)
{
	return r->file_size;
}

/* Returns the decoded footer. */
const HsSstFooter *
HsSstReaderFooter(const HsSstReader *r)
{
	return &r->footer;
}

uint32_t
HsSstReaderBlockCount(const HsSstReader *r)
{
	return r->num_blocks;
}

HsSstBlockHandle
HsSstReaderBlockHandle(const HsSstReader *r, uint32_t i)
{
	HsSstBlockHandle h;

	h.offset = r->index[i].offset;
	h.size = r->index[i].size;
	return h;
}

HsSlice
HsSstReaderBlockLastKey(const HsSstReader *r, uint32_t i)
{
	return HsSliceMake(r->index[i].key, r->index[i].key_len);
}

/*
 * Load the filter block on first use; false with st set if it cannot be
 * read or is damaged (the next call tries again).
 */
static bool
reader_filter(HsSstReader *r, HsStatus *st)
{
	HsSlice		contents;

	if (!r->has_filter || r->filter_loaded)
		return true;
	if (!read_meta_block(r, r->footer.filter, &r->filter_mem, &contents, st) ||
		!HsBloomFilterParse(&r->filter, contents, r->path,
						  r->footer.filter.offset, st))
		return false;
	r->filter_loaded = true;
	return true;
}

bool
HsSstReaderFilter(HsSstReader *r, const HsBloomFilter **filter, HsStatus *st)
{
	*filter = NULL;
	if (!reader_filter(r, st))
		return false;
	if (r->has_filter)
		*filter = &r->filter;
	return true;
}

/* ----------------------------------------------------------------
 *		blocks
 * ----------------------------------------------------------------
 */

/* The first block whose last key is >= target (num_blocks if none). */
static inline uint32_t
index_lower_bound(const HsSstReader *r, HsSlice target)
{
	uint32_t	lo = 0;
	uint32_t	hi = r->num_blocks;
	uint64_t	tp = key_prefix(target);

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;
		const HsSstIndexEntry *e = &r->index[mid];
		bool		less;

		if (e->prefix != tp)
			less = e->prefix < tp;
		else
			less = HsFullKeyCompare(HsSliceMake(e->key, e->key_len),
									target) < 0;
		if (less)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Hand the buffer holding contents (stored or raw) over to the block cache
 * as block i's entry; returns the pinned entry and points contents at it.
 */
static HsBlockCacheEntry *
reader_cache_insert(HsSstReader *r, uint32_t i, HsBuf *stored, HsBuf *raw,
					HsSlice *contents)
{
	HsBuf	   *owner = contents->data == stored->data ? stored : raw;
	uint8_t    *mem = owner->data;
	size_t		cap = owner->cap;
	HsBlockCacheEntry *pin;

	owner->data = NULL;
	owner->len = owner->cap = 0;
	pin = HsBlockCacheInsert(r->opts.block_cache, r->cache_id,
							 r->index[i].offset, mem, contents->len, cap);
	*contents = HsBlockCacheValue(pin);
	return pin;
}

/*
 * The contents of data block i: from the block cache if it has them (*pin
 * set, to be released), else copied from the secondary cache into raw or
 * read into stored/raw; then, if fill_cache, moved into the block cache
 * and pinned.  A block read from the file is offered to the secondary
 * cache.
 */
static bool
reader_block(HsSstReader *r, uint32_t i, HsBuf *stored, HsBuf *raw,
			 bool fill_cache, HsBlockCacheEntry **pin, HsSlice *contents,
			 HsStatus *st)
{
	HsBlockCache *cache = r->opts.block_cache;
	HsSstBlockHandle h = HsSstReaderBlockHandle(r, i);

	*pin = NULL;
	if (cache)
	{
		*pin = HsBlockCacheLookup(cache, r->cache_id, h.offset);
		if (*pin)
		{
			*contents = HsBlockCacheValue(*pin);
			return true;
		}
	}
	if (!secondary_lookup(r, i, raw, contents))
	{
		if (!HsSstReadBlock(r->env, r->file, r->path, h,
						  r->opts.verify_checksums, &r->dec, stored, raw,
						  contents, NULL, st))
			return false;
		secondary_offer(r, i, *contents, false);
	}
	if (cache && fill_cache)
		*pin = reader_cache_insert(r, i, stored, raw, contents);
	return true;
}

/* ----------------------------------------------------------------
 *		point gets
 * ----------------------------------------------------------------
 */

bool
HsSstReaderMayContain(HsSstReader *r, HsSlice table_key)
{
	HsStatus	st;

	/* a filter that cannot be loaded rules nothing out (a get reports it) */
	if (!r->has_filter || !reader_filter(r, &st))
		return true;
	return HsBloomFilterMayContain(&r->filter, table_key);
}

bool
HsSstReaderGet(HsSstReader *r, HsSlice table_key, HsEpoch read_epoch,
			 bool *found, HsBuf *value, HsStatus *st)
{
	return HsSstReaderGetVersion(r, table_key, read_epoch, found, NULL, value,
							   st);
}

bool
HsSstReaderGetVersion(HsSstReader *r, HsSlice table_key, HsEpoch read_epoch,
					bool *found, HsEpoch *epoch, HsBuf *value, HsStatus *st)
{
	HsSlice		target;
	uint32_t	i;
	HsBlockCacheEntry *pin;
	HsSlice		contents;
	Block		blk;
	HsBlockIter  *bi = &r->get_iter;
	bool		ok = true;

	*found = false;
	if (table_key.len < HS_TABLE_ID_LEN)
		return HsStatusSet(st, HS_INVALID_ARGUMENT,
						   "table key of %zu bytes is shorter than a table id",
						   table_key.len);
	if (r->has_filter)
	{
		if (!reader_filter(r, st))
			return false;
		if (!HsBloomFilterMayContain(&r->filter, table_key))
			return true;
	}

	/* target = table_key | ~read_epoch: the first version to consider */
	HsBufReset(&r->get_target);
	HsBufReserve(&r->get_target, table_key.len + HS_EPOCH_LEN);
	HsBufAppend(&r->get_target, table_key.data, table_key.len);
	HsPutBE64(r->get_target.data + r->get_target.len, ~read_epoch);
	r->get_target.len += HS_EPOCH_LEN;
	target = HsBufSlice(&r->get_target);

	i = index_lower_bound(r, target);
	if (i >= r->num_blocks)
		return true;
	if (!reader_block(r, i, &r->get_stored, &r->get_raw,
					  r->opts.fill_cache_on_get, &pin, &contents, st))
		return false;
	if (!HsBlockParse(&blk, contents, r->path, r->index[i].offset, st))
	{
		ok = false;
		goto done;
	}
	HsBlockIterReset(bi, &blk, r->path, r->index[i].offset);
	HsBlockIterSeek(bi, target);
	if (r->get_status.code != HS_OK)
	{
		*st = r->get_status;
		HsStatusClear(&r->get_status);
		ok = false;
		goto done;
	}
	if (bi->valid)
	{
		HsSlice		k = HsBlockIterKey(bi);

		if (k.len == target.len &&
			memcmp(k.data, table_key.data, table_key.len) == 0)
		{
			*found = true;
			if (epoch)
				*epoch = HsFullKeyEpoch(k);
			HsBufAssign(value, bi->value, bi->value_len);
		}
	}

done:
	if (pin)
		HsBlockCacheRelease(r->opts.block_cache, pin);
	return ok;
}

/* ----------------------------------------------------------------
 *		the SST iterator
 * ----------------------------------------------------------------
 */

/*
 * Readahead of sequential scans: once the iterator moves from a block to
 * the next, it reads a window of several blocks with one pread, starting
 * at SST_READAHEAD_MIN bytes and doubling up to SST_READAHEAD_MAX, and
 * serves the following blocks from it.  Seeks read single blocks.
 */
#define SST_READAHEAD_MIN	(32 * 1024)
#define SST_READAHEAD_MAX	(256 * 1024)

/* Bytes at the start of a block read in place that a load prefetches. */
#define SSTIT_PREFETCH_START	512

typedef struct HsSstIterator
{
	HsIterator	base;
	HsSstReader  *r;
	uint32_t	block;			/* loaded block, or num_blocks */
	Block		blk;
	HsBlockIter	bi;
	HsBuf		stored;			/* a single block read by a seek */
	HsBuf		raw;			/* decompressed contents */
	HsBlockCacheEntry *pin;		/* cache entry holding the block */
	uint64_t	sec_pin;		/* or the secondary cache's pin on it */
	/* sequential scans: the next block, pinned in the secondary cache */
	uint64_t	ahead_pin;		/* 0: none */
	uint32_t	ahead_block;
	HsSlice		ahead_contents;
	HsBuf		ra;				/* readahead window */
	uint64_t	ra_offset;		/* file offset of ra.data[0] */
	size_t		ra_next;		/* size of the next window */
} HsSstIterator;

/* Let go of the block pinned ahead, if any. */
static void
sstit_drop_ahead(HsSstIterator *it)
{
	if (it->ahead_pin)
	{
		secondary_unpin(it->r, it->ahead_pin);
		it->ahead_pin = 0;
	}
}

/*
 * A block read in place is in no CPU cache: start fetching its first lines
 * (before the scan's own prefetching, user_iter.c, gets ahead) and its
 * restart array at the end, which HsBlockParse reads first.
 */
static inline void
sstit_prefetch_block(HsSlice contents)
{
	for (size_t off = 0; off < SSTIT_PREFETCH_START && off < contents.len; off += 64)
		HS_PREFETCH(contents.data + off);
	if (contents.len >= 68)
		HS_PREFETCH(contents.data + contents.len - 68);
	if (contents.len >= 4)
		HS_PREFETCH(contents.data + contents.len - 4);
}

/*
 * A sequential scan that reads block i in place pins block i + 1 as well
 * (when the cache can pin it; a copy is left to the load) and starts
 * fetching it, so that its cache misses overlap with the scan of block i
 * instead of stalling the load of block i + 1.
 */
static void
sstit_pin_ahead(HsSstIterator *it, uint32_t i)
{
	HsSstReader  *r = it->r;
	const HsSecondaryCache *sec = reader_secondary(r);
	HsSlice		next;
	uint64_t	pin;

	if (i + 1 >= r->num_blocks || sec == NULL || sec->lookup_pinned == NULL)
		return;
	if (!sec->lookup_pinned(sec->arg, r->opts.object_id, r->index[i + 1].offset,
							NULL, &next, &pin) || pin == 0)
		return;
	it->ahead_pin = pin;
	it->ahead_block = i + 1;
	it->ahead_contents = next;
	sstit_prefetch_block(next);
}

/* Releases the pin on the current block, in either cache. */
static void
sstit_unpin(HsSstIterator *it)
{
	if (it->pin)
	{
		HsBlockCacheRelease(it->r->opts.block_cache, it->pin);
		it->pin = NULL;
	}
	if (it->sec_pin)
	{
		secondary_unpin(it->r, it->sec_pin);
		it->sec_pin = 0;
	}
}

/*
 * The contents of block i read through the readahead window (refilled
 * from the block's offset if it does not hold the whole block).
 */
static bool
sstit_readahead_block(HsSstIterator *it, uint32_t i, HsSlice *contents)
{
	HsSstReader  *r = it->r;
	HsStatus   *st = &it->base.status;
	HsSstBlockHandle h = HsSstReaderBlockHandle(r, i);
	uint64_t	end;

	end = HsSstBlockHandleEnd(h);	/* <= data_end, checked at open */
	if (h.offset < it->ra_offset || end > it->ra_offset + it->ra.len)
	{
		size_t		want = it->ra_next;
		size_t		nread;

		if (want < end - h.offset)
			want = (size_t) (end - h.offset);
		if (want > r->data_end - h.offset)
			want = (size_t) (r->data_end - h.offset);
		HsBufReset(&it->ra);
		HsBufReserve(&it->ra, want);
		if (!r->env->read_at(r->env, r->file, h.offset, it->ra.data, want,
							 &nread, st))
			return false;
		/* the window may come short (a file cut after open): the block may not */
		if (nread < end - h.offset)
			return HsSstTruncatedRead(st, r->path, h.offset,
									  (size_t) (end - h.offset), nread);
		it->ra.len = nread;
		it->ra_offset = h.offset;
		if (it->ra_next < SST_READAHEAD_MAX)
			it->ra_next *= 2;
	}
	return HsSstDecodeBlock(r->path, h, it->ra.data + (h.offset - it->ra_offset),
						  r->opts.verify_checksums, &r->dec, &it->raw,
						  contents, NULL, st);
}

/*
 * Load block i; false (iterator invalid) past the end or on error.
 * sequential: the scan moved here from block i - 1 (use readahead, and
 * the block pinned ahead).
 */
static bool
sstit_load(HsSstIterator *it, uint32_t i, bool sequential)
{
	HsSstReader  *r = it->r;
	HsSlice		contents;
	bool		ok;

	sstit_unpin(it);
	if (it->ahead_pin != 0 && (!sequential || it->ahead_block != i))
		sstit_drop_ahead(it);
	it->bi.valid = false;
	it->block = i;
	if (i >= r->num_blocks)
	{
		it->block = r->num_blocks;
		return false;
	}
	if (!sequential)
		it->ra_next = SST_READAHEAD_MIN;
	if (it->ahead_pin != 0)
	{
		/* pinned, and its first lines fetched, while block i - 1 was read */
		it->sec_pin = it->ahead_pin;
		it->ahead_pin = 0;
		contents = it->ahead_contents;
		ok = true;
	}
	else if (r->opts.block_cache &&
			 (it->pin = HsBlockCacheLookup(r->opts.block_cache, r->cache_id,
										   r->index[i].offset)) != NULL)
	{
		contents = HsBlockCacheValue(it->pin);
		ok = true;
	}
	else if (sequential)
	{
		/*
		 * the secondary cache (read in place when it can pin the block),
		 * else the readahead window (then offered)
		 */
		ok = secondary_lookup_pinned(r, i, &it->raw, &contents, &it->sec_pin);
		if (ok && it->sec_pin != 0)
			sstit_prefetch_block(contents);
		if (!ok && (ok = sstit_readahead_block(it, i, &contents)))
			secondary_offer(r, i, contents, true);
	}
	else
	{
		/*
		 * A seek: keep the block in the cache, as a point get does (the
		 * next seek, e.g. the next key lookup, often lands in it again).
		 * Sequential scans do not fill the cache.
		 */
		ok = reader_block(r, i, &it->stored, &it->raw, true, &it->pin,
						  &contents, &it->base.status);
	}
	if (!ok ||
		!HsBlockParse(&it->blk, contents, r->path, r->index[i].offset,
					&it->base.status))
	{
		it->block = r->num_blocks;
		return false;
	}
	HsBlockIterReset(&it->bi, &it->blk, r->path, r->index[i].offset);
	if (sequential && it->sec_pin != 0)
		sstit_pin_ahead(it, i);
	return true;
}

/* From an exhausted block, move to the first entry of the next ones. */
static void
sstit_skip_exhausted(HsSstIterator *it)
{
	while (!it->bi.valid && it->base.status.code == HS_OK)
	{
		if (!sstit_load(it, it->block + 1, true))
			return;
		HsBlockIterSeekToFirst(&it->bi);
	}
}

/* Publish the block iterator's entry as the SST iterator's. */
static inline void
sstit_publish(HsSstIterator *it)
{
	HsIterPublish(&it->base, it->bi.valid, HsBlockIterKey(&it->bi),
				  HsBlockIterValue(&it->bi));
}

/* Positions at the first entry of the SST. */
static void
sstit_seek_to_first(HsIterator *base)
{
	HsSstIterator *it = (HsSstIterator *) base;

	/*
	 * The start of a scan: its first block is read the way the following
	 * ones are (in place from the secondary cache, else through a fresh
	 * readahead window), not kept in the block cache as a seek's is.
	 */
	it->ra_next = SST_READAHEAD_MIN;
	if (base->status.code == HS_OK && sstit_load(it, 0, true))
	{
		HsBlockIterSeekToFirst(&it->bi);
		sstit_skip_exhausted(it);
	}
	sstit_publish(it);
}

/* Positions at the first entry >= target, which must be a full key. */
static void
sstit_seek(HsIterator *base, HsSlice target)
{
	HsSstIterator *it = (HsSstIterator *) base;

	if (base->status.code == HS_OK && target.len < HS_MIN_FULL_KEY_LEN)
	{
		HsStatusSet(&base->status, HS_INVALID_ARGUMENT,
					"seek target of %zu bytes is not a full key", target.len);
		it->bi.valid = false;
	}
	if (base->status.code == HS_OK &&
		sstit_load(it, index_lower_bound(it->r, target), false))
	{
		HsBlockIterSeek(&it->bi, target);
		sstit_skip_exhausted(it);
	}
	sstit_publish(it);
}

/* Moves to the next entry, loading the next block at the end of one. */
static void
sstit_next(HsIterator *base)
{
	HsSstIterator *it = (HsSstIterator *) base;

	HsBlockIterNext(&it->bi);
	if (!it->bi.valid)
		sstit_skip_exhausted(it);
	sstit_publish(it);
}

/* Lend the block iterator: it stands on the current entry. */
static HsBlockIter *
sstit_cursor(HsIterator *base, HsSlice *limit)
{
	HsSstIterator *it = (HsSstIterator *) base;

	*limit = HsSliceMake(NULL, 0);
	return it->bi.valid && base->status.code == HS_OK ? &it->bi : NULL;
}

/* Take the position back from a borrower of the block iterator. */
static void
sstit_resync(HsIterator *base)
{
	HsSstIterator *it = (HsSstIterator *) base;

	if (!it->bi.valid)
		sstit_skip_exhausted(it);
	sstit_publish(it);
}

/* Releases the pins and frees the iterator (the reader stays). */
static void
sstit_destroy(HsIterator *base)
{
	HsSstIterator *it = (HsSstIterator *) base;

	sstit_unpin(it);
	sstit_drop_ahead(it);
	HsBlockIterDestroy(&it->bi);
	HsBufFree(&it->stored);
	HsBufFree(&it->raw);
	HsBufFree(&it->ra);
	HsFree(base->env, it);
}

/* valid, key and value are published (iterator.h) */
static const HsIteratorOps sst_iterator_ops = {
	.seek_to_first = sstit_seek_to_first,
	.seek = sstit_seek,
	.next = sstit_next,
	.destroy = sstit_destroy,
	.cursor = sstit_cursor,
	.resync = sstit_resync,
};

HsIterator *
HsSstReaderNewIterator(HsSstReader *r)
{
	HsSstIterator *it = HsAllocZero(r->env, sizeof(HsSstIterator));

	it->base.ops = &sst_iterator_ops;
	it->base.env = r->env;
	HsStatusClear(&it->base.status);
	it->r = r;
	it->block = r->num_blocks;
	HsBlockIterInit(&it->bi, r->env, &it->base.status);
	/* no table key with two versions anywhere in the file (properties) */
	it->bi.unique_keys = r->props.distinct_key_count == r->props.entry_count;
	HsBufInit(&it->stored, r->env);
	HsBufInit(&it->raw, r->env);
	HsBufInit(&it->ra, r->env);
	it->ra_next = SST_READAHEAD_MIN;
	return &it->base;
}
