/*-------------------------------------------------------------------------
 *
 * sst_reader.h
 *	  Reading SST files: point gets, iterators and properties.
 *
 * HsSstReaderOpen validates the footer (size, magic, checksum, version) and
 * the layout, and loads the index, filter and properties blocks into
 * memory; data blocks are read on demand with one pread each, their CRC
 * verified and decompressed into reusable buffers (or taken from the
 * process's HsBlockCache, or copied from a secondary cache such as one in
 * shared memory).  Every inconsistency is HS_CORRUPTION (sst_format.h).
 *
 * Block lookup order: the block cache (pinned, no copy), then the
 * secondary cache (contents copied out), then the file.  A block read from
 * the file is offered to the secondary cache; a block found in either
 * cache by a point get or seek is kept in the block cache as well.
 *
 * Point get:
 *
 *		HsSstReaderGet(r, table_key, read_epoch, &found, &value, &st)
 *
 * finds the newest version of table_key (table_id | user key) with
 * epoch <= read_epoch.  The bloom filter is consulted first, then the
 * in-memory index picks the one data block that can hold it.  When found,
 * value holds the stored value: the kind byte then the payload.  A
 * tombstone is reported as found with kind HS_VALUE_DELETE, so a caller
 * walking SSTs from newest to oldest stops there.
 *
 * Iterator: HsSstReaderNewIterator returns an HsIterator (iterator.h) over
 * every entry in full-key order: a two-level walk of the index and of one
 * block at a time, with no allocation per entry.  It reports errors
 * through its status.
 *
 * Lifetime and threads: iterators borrow the reader; close the reader only
 * after destroying its iterators.  A reader (with its iterators and its
 * block cache) is used by one thread at a time.
 *
 * include/hummock_stream/storage/sst_reader.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_SST_READER_H
#define HS_STORAGE_SST_READER_H

#include "hummock_stream/storage/block_cache.h"
#include "hummock_stream/storage/bloom.h"
#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/iterator.h"
#include "hummock_stream/storage/key.h"
#include "hummock_stream/storage/sst_format.h"
#include "hummock_stream/storage/status.h"

typedef struct HsSstReader HsSstReader;

/*
 * A secondary cache of verified, decompressed data blocks, keyed by
 * (object id, block offset) and shared by every reader that names its
 * object id.  It copies contents in and out, so it holds no pins and may
 * drop entries at any time; implementations serialize access themselves
 * (the PostgreSQL one lives in shared memory).  Both calls are optional
 * hints: a lookup may miss, an insert may be ignored.
 */
typedef struct HsSecondaryCache
{
	/* Copy block (object_id, offset) into out; false if not cached. */
	bool		(*lookup) (void *arg, uint64_t object_id, uint64_t offset,
						   HsBuf *out);
	/*
	 * Offer a block just read from its file.  sequential: a sequential
	 * scan read it; such blocks are kept only in room that nothing
	 * recently used needs, so that one large scan does not flush the
	 * blocks point reads keep using.
	 */
	void		(*insert) (void *arg, uint64_t object_id, uint64_t offset,
						   HsSlice contents, bool sequential);
	/*
	 * Optional (both or neither): like lookup, but the cache may point
	 * *contents at the block where it lies and hold it there, returning a
	 * nonzero *pin, until unpin(pin); with *pin 0 the block was copied
	 * into out as lookup does; with out NULL, a block that cannot be
	 * pinned is not returned (false).  Sequential scans read this way, so
	 * a cached block costs them no copy, and pin the next block ahead.  A cache may release pins itself
	 * when the caller's transaction aborts (see shared_block_cache.h);
	 * unpin of a released pin does nothing.
	 */
	bool		(*lookup_pinned) (void *arg, uint64_t object_id, uint64_t offset,
								  HsBuf *out, HsSlice *contents, uint64_t *pin);
	void		(*unpin) (void *arg, uint64_t pin);
	void	   *arg;
} HsSecondaryCache;

typedef struct HsSstReaderOptions
{
	/*
	 * Verify the CRC of the footer and of every block read (default true).
	 * Structural checks are made either way.
	 */
	bool		verify_checksums;
	/* Cache of decompressed data blocks, or NULL (default). */
	HsBlockCache *block_cache;
	/* Whether point gets add the blocks they read to the cache (true). */
	bool		fill_cache_on_get;
	/* Secondary cache, or NULL (default); used only with an object_id. */
	const HsSecondaryCache *secondary_cache;
	/* The file's object id (its key in the secondary cache), or 0. */
	uint64_t	object_id;
} HsSstReaderOptions;

extern void HsSstReaderOptionsInit(HsSstReaderOptions *opts);

/* Open and validate an SST; NULL with st set on failure. */
extern HsSstReader *HsSstReaderOpen(HsEnv *env, const char *path, HsStatus *st);
extern HsSstReader *HsSstReaderOpenWithOptions(HsEnv *env, const char *path,
										   const HsSstReaderOptions *opts,
										   HsStatus *st);

/* Close the file and free the reader (after its iterators). */
extern void HsSstReaderClose(HsSstReader *r);

/*
 * The newest version of table_key with epoch <= read_epoch.  Returns false
 * only on error; otherwise *found says whether a version exists, and if so
 * value (reset first) holds kind byte + payload.
 */
extern bool HsSstReaderGet(HsSstReader *r, HsSlice table_key, HsEpoch read_epoch,
						 bool *found, HsBuf *value, HsStatus *st);

/* Same, also returning the epoch of the version found (may be NULL). */
extern bool HsSstReaderGetVersion(HsSstReader *r, HsSlice table_key,
								HsEpoch read_epoch, bool *found,
								HsEpoch *epoch, HsBuf *value, HsStatus *st);

/*
 * The filter's answer: false means table_key is certainly absent.  The
 * first call reads the filter block; if that fails, the answer is true
 * (the get that follows reports the damage).
 */
extern bool HsSstReaderMayContain(HsSstReader *r, HsSlice table_key);

/* An iterator over every entry (full key, value); see iterator.h. */
extern HsIterator *HsSstReaderNewIterator(HsSstReader *r);

/* Properties block contents (valid while the reader is open). */
extern const HsSstProperties *HsSstReaderProperties(const HsSstReader *r);

extern uint64_t HsSstReaderFileSize(const HsSstReader *r);

/*
 * Bytes of memory the open reader holds: its index, filter (once loaded),
 * properties and scratch buffers; it grows when the filter is loaded.
 */
extern size_t HsSstReaderMemory(const HsSstReader *r);
extern const HsSstFooter *HsSstReaderFooter(const HsSstReader *r);

/* Data blocks, in key order: handle and last full key of block i. */
extern uint32_t HsSstReaderBlockCount(const HsSstReader *r);
extern HsSstBlockHandle HsSstReaderBlockHandle(const HsSstReader *r, uint32_t i);
extern HsSlice HsSstReaderBlockLastKey(const HsSstReader *r, uint32_t i);

/*
 * The bloom filter in *filter (NULL if the file has none), read on first
 * use; false with st set if it cannot be read or is damaged.
 */
extern bool HsSstReaderFilter(HsSstReader *r, const HsBloomFilter **filter,
							HsStatus *st);

#endif							/* HS_STORAGE_SST_READER_H */
