/*-------------------------------------------------------------------------
 *
 * sst_builder.h
 *	  Writing one SST file from entries in full-key order.
 *
 * Usage:
 *
 *		HsSstBuilderOptions opts;
 *		HsSstBuilderOptionsInit(&opts);
 *		opts.compression = HS_COMPRESSION_ZSTD;
 *		b = HsSstBuilderCreate(env, path, &opts, &st);
 *		for each entry in HsFullKeyCompare order:
 *			if (!HsSstBuilderAdd(b, full_key, value, &st))
 *				{ HsSstBuilderAbandon(b); report(&st); }
 *		if (!HsSstBuilderFinish(b, &meta, &st))	-- b is gone either way
 *			report(&st);
 *		... HsSstMetaFree(env, &meta);
 *
 * The builder writes to exactly the path it is given (truncating it) and
 * fsyncs the file in Finish; making the name durable (tmp + rename + dir
 * fsync) is the object store's job.  Output is buffered: the file is
 * written in large appends.
 *
 * Keys must be strictly increasing in HsFullKeyCompare order: a key equal
 * to or smaller than the previous one is rejected with HS_INVALID_ARGUMENT
 * and leaves the builder unchanged, so the caller may go on or abandon.
 * A value is a kind byte (HS_VALUE_PUT / HS_VALUE_DELETE) and its payload.
 * An I/O error makes the builder fail every later call with the same
 * status; it must then be abandoned.
 *
 * The file format is documented in sst_format.h.
 *
 * include/hummock_stream/storage/sst_builder.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_SST_BUILDER_H
#define HS_STORAGE_SST_BUILDER_H

#include "hummock_stream/storage/compress.h"
#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/key.h"
#include "hummock_stream/storage/sst_format.h"
#include "hummock_stream/storage/status.h"

#define HS_SST_DEFAULT_BLOCK_SIZE	(16 * 1024)

typedef struct HsSstBuilderOptions
{
	/* target size of a data block before compression (bytes) */
	uint32_t	block_size;
	/* entries between restart points in data blocks */
	uint32_t	restart_interval;
	HsCompression compression;
	/* zstd only; 0 means HS_ZSTD_DEFAULT_LEVEL */
	int			zstd_level;
	/* bloom filter budget; 0 writes no filter */
	uint32_t	bloom_bits_per_key;
} HsSstBuilderOptions;

/* Defaults: 64 KiB blocks, restart 16, lz4, zstd level 3, 10 bits/key. */
extern void HsSstBuilderOptionsInit(HsSstBuilderOptions *opts);

/*
 * What Finish reports about the new file: what a version needs to know
 * about an SST without opening it.  Keys are owned copies; free with
 * HsSstMetaFree.
 */
typedef struct HsSstMeta
{
	uint64_t	file_size;
	uint64_t	entry_count;
	uint64_t	tombstone_count;
	uint64_t	distinct_key_count; /* distinct table keys */
	uint8_t    *smallest_key;	/* full keys; NULL for an empty file */
	size_t		smallest_key_len;
	uint8_t    *largest_key;
	size_t		largest_key_len;
	HsEpoch		min_epoch;		/* 0/0 for an empty file */
	HsEpoch		max_epoch;
	uint32_t	table_count;
	HsSstTableStats *tables;		/* ids ascending, with per-table counts */
	uint64_t	raw_key_bytes;	/* sum of full key lengths */
	uint64_t	raw_value_bytes;	/* sum of value lengths */
	uint64_t	data_block_count;
	uint64_t	data_raw_size;	/* data block contents, uncompressed */
	uint64_t	data_stored_size;	/* data blocks as stored, with trailers */
} HsSstMeta;

extern void HsSstMetaFree(HsEnv *env, HsSstMeta *meta);

typedef struct HsSstBuilder HsSstBuilder;

/*
 * Create path (truncating it) and return a builder, or NULL with st set
 * (HS_INVALID_ARGUMENT for bad options, HS_IO_ERROR if the file cannot
 * be created).  opts may be NULL for the defaults.
 */
extern HsSstBuilder *HsSstBuilderCreate(HsEnv *env, const char *path,
									const HsSstBuilderOptions *opts,
									HsStatus *st);

/*
 * Append an entry.  full_key must be a well-formed full key (at least
 * HS_MIN_FULL_KEY_LEN bytes) sorting strictly after the previous one;
 * value must start with a valid HsValueKind.  Key plus value at most
 * HS_SST_MAX_ENTRY_SIZE bytes.
 */
extern bool HsSstBuilderAdd(HsSstBuilder *b, HsSlice full_key, HsSlice value,
						  HsStatus *st);

/* Entries added so far. */
extern uint64_t HsSstBuilderEntryCount(const HsSstBuilder *b);

/*
 * Bytes the file would take if finished now, roughly (written blocks plus
 * the open block, uncompressed): for splitting output into target sizes.
 */
extern uint64_t HsSstBuilderEstimatedSize(const HsSstBuilder *b);

/*
 * Write the remaining data block, the filter, properties, index and footer,
 * fsync and close the file, fill *meta and free the builder.  On failure
 * the partial file is removed and the builder freed as well.
 */
extern bool HsSstBuilderFinish(HsSstBuilder *b, HsSstMeta *meta, HsStatus *st);

/* Close and remove the partial file and free the builder. */
extern void HsSstBuilderAbandon(HsSstBuilder *b);

#endif							/* HS_STORAGE_SST_BUILDER_H */
