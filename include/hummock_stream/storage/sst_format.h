/*-------------------------------------------------------------------------
 *
 * sst_format.h
 *	  The on-disk format of hummock SST files, and its encoders/decoders.
 *
 * Everything described here is persisted: every constant, field order and
 * width is "never change".  A change needs a new HS_SST_FORMAT_VERSION,
 * and readers keep accepting the old versions.
 *
 * File layout (format version 1)
 * ------------------------------
 *
 *	offset 0  +--------------------------------------------+
 *	          | data block 0         | block trailer (9 B) |
 *	          | data block 1         | block trailer       |
 *	          | ...                                        |
 *	          | data block N-1       | block trailer       |
 *	data_end  +--------------------------------------------+
 *	          | filter block         | block trailer       |  (optional)
 *	          +--------------------------------------------+
 *	          | properties block     | block trailer       |
 *	          +--------------------------------------------+
 *	          | index block          | block trailer       |
 *	size - 64 +--------------------------------------------+
 *	          | footer (64 bytes)                          |
 *	size      +--------------------------------------------+
 *
 * The regions are contiguous and in this order: the data blocks tile
 * [0, data_end) in index order, and each meta block starts where the
 * previous one (with its trailer) ends.  Readers reject any other layout.
 *
 * Block trailer (9 bytes, after the stored bytes of every block):
 *
 *	  +0  u8      compression kind (compress.h: 0 none, 1 lz4, 2 zstd)
 *	  +1  u32 LE  raw length: size of the block contents once decompressed
 *	              (equals the stored length for kind 0); at most
 *	              HS_BLOCK_MAX_RAW_SIZE
 *	  +5  u32 LE  masked CRC-32C (crc32c.h) of the stored bytes followed by
 *	              trailer bytes +0..+4 (kind and raw length)
 *
 * A block handle (offset, size) locates a block: offset of its first
 * stored byte, size = stored bytes *excluding* the trailer.  The builder
 * stores a block uncompressed (kind 0) when compression saves less than
 * 1/8 of it.
 *
 * Data block: contents in the block format of block_builder.h (prefix-
 * compressed entries, restart array), keys are full keys (key.h) in
 * strictly increasing HsFullKeyCompare order (table key ascending, epoch
 * descending), values are a kind byte and payload (key.h).  Blocks are cut
 * when the next entry would push the contents past the target block size.
 *
 * Index block: block format with restart interval 1 (every entry stores
 * its whole key: shared is always 0), one entry per data block, in order:
 *	  key   = the last full key of the data block
 *	  value = varint64 offset | varint64 size   (the data block handle)
 * Stored uncompressed.
 *
 * Filter block: the blocked bloom filter of bloom.h over the table keys
 * (table_id | user key) of the file.  Absent (handle 0/0 in the footer)
 * when the builder's bloom_bits_per_key is 0 or the file has no entries.
 * Stored uncompressed.
 *
 * Properties block (stored uncompressed), fields in this order:
 *	  varint64  entry_count
 *	  varint64  tombstone_count          entries whose value kind is delete
 *	  varint64  distinct_key_count       distinct table keys (filter keys)
 *	  varint64  raw_key_bytes            sum of full key lengths
 *	  varint64  raw_value_bytes          sum of value lengths
 *	  varint64  data_block_count
 *	  varint64  data_raw_size            sum of data block contents lengths
 *	  varint64  data_stored_size         data_end: stored bytes + trailers
 *	  u64 LE    min_epoch                (0 and 0 for an empty file)
 *	  u64 LE    max_epoch
 *	  varint32  block_size               builder options, informational
 *	  varint32  restart_interval
 *	  u8        compression              builder's requested kind
 *	  varint32  zstd_level               zigzag-free: level + 1000
 *	  varint32  bloom_bits_per_key       0: no filter
 *	  varint32 len | bytes  smallest full key   (empty for an empty file)
 *	  varint32 len | bytes  largest full key
 *	  varint32  table_count              then per table, ids ascending:
 *	    varint32  table_id
 *	    varint64  entry_count
 *	    varint64  tombstone_count
 *	    varint64  key_bytes
 *	    varint64  value_bytes
 * The block must end exactly after the last field.
 *
 * Footer (64 bytes at the end of the file):
 *
 *	  +0   u64 LE  index block offset       +8   u64 LE  index block size
 *	  +16  u64 LE  filter block offset      +24  u64 LE  filter block size
 *	  +32  u64 LE  properties block offset  +40  u64 LE  properties size
 *	  +48  u32 LE  format version (HS_SST_FORMAT_VERSION)
 *	  +52  u32 LE  masked CRC-32C of bytes +0..+47 and the magic (+56..+63)
 *	  +56  u64 LE  magic HS_SST_MAGIC
 *
 * Validation.  A reader checks, in this order: the file is at least a
 * footer long; the magic; the footer CRC; the format version; the layout
 * (contiguity above); then each block's CRC, trailer and decompressed
 * length when it reads it, and the block structure (block.h) as it
 * decodes it.  Every failure is HS_CORRUPTION naming the file, the offset,
 * what was expected and what was found.
 *
 * include/hummock_stream/storage/sst_format.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_SST_FORMAT_H
#define HS_STORAGE_SST_FORMAT_H

#include "hummock_stream/storage/block.h"
#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/compress.h"
#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/key.h"
#include "hummock_stream/storage/status.h"

/* ---- persisted constants: never change ---- */
#define HS_SST_MAGIC				UINT64_C(0x68756D6D6F636B53)	/* "hummockS" */
#define HS_SST_FORMAT_VERSION_1		1
#define HS_SST_FOOTER_SIZE			64
#define HS_BLOCK_TRAILER_SIZE		9
#define HS_SST_INDEX_RESTART_INTERVAL 1
#define HS_SST_ZSTD_LEVEL_BIAS		1000

/* the version this code writes */
#define HS_SST_FORMAT_VERSION		HS_SST_FORMAT_VERSION_1

/*
 * Largest raw (decompressed) block a reader accepts.  The builder never
 * makes a larger block: HsSstBuilderAdd rejects entries above
 * HS_SST_MAX_ENTRY_SIZE and block sizes above HS_SST_MAX_BLOCK_SIZE.
 */
#define HS_BLOCK_MAX_RAW_SIZE		(UINT32_C(256) << 20)
#define HS_SST_MAX_BLOCK_SIZE		(UINT32_C(64) << 20)
#define HS_SST_MAX_ENTRY_SIZE		(UINT32_C(128) << 20)

typedef struct HsSstBlockHandle
{
	uint64_t	offset;
	uint64_t	size;			/* stored bytes, without the trailer */
} HsSstBlockHandle;

/* The end of a block on disk, trailer included. */
static inline uint64_t
HsSstBlockHandleEnd(HsSstBlockHandle h)
{
	return h.offset + h.size + HS_BLOCK_TRAILER_SIZE;
}

/* ---- footer ---- */

typedef struct HsSstFooter
{
	HsSstBlockHandle index;
	HsSstBlockHandle filter;		/* 0/0: no filter */
	HsSstBlockHandle properties;
	uint32_t	version;
	uint32_t	checksum;		/* masked, as stored */
	uint64_t	magic;
} HsSstFooter;

/* Encode f (computing the checksum) into out. */
extern void HsSstFooterEncode(const HsSstFooter *f,
							uint8_t out[HS_SST_FOOTER_SIZE]);

/*
 * Decode and check a footer read at file offset `offset`: magic, checksum
 * (unless verify_checksum is false) and version.
 */
extern bool HsSstFooterDecode(HsSstFooter *f, const uint8_t in[HS_SST_FOOTER_SIZE],
							const char *path, uint64_t offset,
							bool verify_checksum, HsStatus *st);

/*
 * Check the footer's handles against the file size (the layout above);
 * on success *data_end is the end of the data blocks.
 */
extern bool HsSstFooterCheckLayout(const HsSstFooter *f, uint64_t file_size,
								 const char *path, uint64_t *data_end,
								 HsStatus *st);

/* ---- block trailer ---- */

/* Fill the 9-byte trailer for stored bytes of a block. */
extern void HsSstBlockTrailerEncode(uint8_t out[HS_BLOCK_TRAILER_SIZE],
								  HsCompression kind, uint32_t raw_len,
								  HsSlice stored);

/* What a block read found, for tools. */
typedef struct HsSstBlockInfo
{
	HsCompression kind;
	uint32_t	raw_len;
	uint32_t	checksum;		/* masked, as stored */
} HsSstBlockInfo;

/*
 * Check and decode a block whose stored bytes and trailer (h.size + 9
 * bytes) are at `bytes`: verify the CRC (unless verify_checksum is false),
 * check the trailer and decompress into *raw_buf if needed.  *contents
 * points into bytes (uncompressed blocks) or raw_buf.  info may be NULL.
 */
extern bool HsSstDecodeBlock(const char *path, HsSstBlockHandle h,
						   const uint8_t *bytes, bool verify_checksum,
						   HsDecompressor *dec, HsBuf *raw_buf,
						   HsSlice *contents, HsSstBlockInfo *info,
						   HsStatus *st);

/*
 * Read the block at h: pread stored bytes and trailer into *stored_buf,
 * verify the CRC (unless verify_checksum is false), check the trailer and
 * decompress into *raw_buf if needed.  *contents points into one of the
 * two buffers and stays valid until they are reused.  info may be NULL.
 */
extern bool HsSstReadBlock(HsEnv *env, HsFile *file, const char *path,
						 HsSstBlockHandle h, bool verify_checksum,
						 HsDecompressor *dec, HsBuf *stored_buf,
						 HsBuf *raw_buf, HsSlice *contents,
						 HsSstBlockInfo *info, HsStatus *st);

/*
 * Report a read of want bytes at offset that found only nread before the
 * end of the file (HS_CORRUPTION "truncated block read"); returns false.
 */
extern bool HsSstTruncatedRead(HsStatus *st, const char *path,
							   uint64_t offset, size_t want, size_t nread);

/* ---- index block entries ---- */

/* Append the index entry value for a data block handle. */
static inline void
HsSstEncodeHandle(HsBuf *out, HsSstBlockHandle h)
{
	HsBufPutVarint64(out, h.offset);
	HsBufPutVarint64(out, h.size);
}

/* Decode an index entry value, which must be exactly one handle. */
static inline bool
HsSstDecodeHandle(HsSlice value, HsSstBlockHandle *h)
{
	const uint8_t *p = value.data;
	const uint8_t *end = value.data + value.len;

	p = HsDecodeVarint64(p, end, &h->offset);
	if (p)
		p = HsDecodeVarint64(p, end, &h->size);
	return p != NULL && p == end;
}

/* ---- properties ---- */

typedef struct HsSstTableStats
{
	HsTableId	table_id;
	uint64_t	entry_count;
	uint64_t	tombstone_count;
	uint64_t	key_bytes;
	uint64_t	value_bytes;
} HsSstTableStats;

typedef struct HsSstProperties
{
	uint64_t	entry_count;
	uint64_t	tombstone_count;
	uint64_t	distinct_key_count;
	uint64_t	raw_key_bytes;
	uint64_t	raw_value_bytes;
	uint64_t	data_block_count;
	uint64_t	data_raw_size;
	uint64_t	data_stored_size;
	HsEpoch		min_epoch;
	HsEpoch		max_epoch;
	uint32_t	block_size;
	uint32_t	restart_interval;
	uint8_t		compression;
	int32_t		zstd_level;
	uint32_t	bloom_bits_per_key;
	HsSlice		smallest_key;	/* borrowed (see HsSstPropertiesDecode) */
	HsSlice		largest_key;
	uint32_t	table_count;
	HsSstTableStats *tables;		/* table_count entries, ids ascending */
} HsSstProperties;

extern void HsSstPropertiesEncode(const HsSstProperties *p, HsBuf *out);

/*
 * Decode properties block contents.  Keys point into contents, which must
 * outlive p; the tables array is allocated from env (HsSstPropertiesFree).
 * Checks internal consistency (exact length, ascending table ids, per-table
 * counts summing to the totals, key lengths).
 */
extern bool HsSstPropertiesDecode(HsSstProperties *p, HsEnv *env,
								HsSlice contents, const char *path,
								uint64_t offset, HsStatus *st);
extern void HsSstPropertiesFree(HsSstProperties *p, HsEnv *env);

#endif							/* HS_STORAGE_SST_FORMAT_H */
