/*-------------------------------------------------------------------------
 *
 * compress.h
 *	  Block compression of SST files: none, LZ4 and zstd.
 *
 * The kind is stored in every block trailer, so its numeric values are
 * persisted: never change or reuse them.  An LZ4 block is a raw LZ4 block
 * (no frame); a zstd block is one zstd frame with its content size and
 * without zstd's own checksum (blocks carry a CRC-32C).
 *
 * Contexts are reused: a builder keeps one HsCompressor and a reader one
 * HsDecompressor for all of its blocks, so compression state (the zstd
 * contexts, the LZ4 hash table) is allocated once, from the env.  Neither
 * is thread-safe.
 *
 * Decompression is strict: the output must be exactly the length recorded
 * in the block trailer, otherwise the block is HS_CORRUPTION.
 *
 * include/hummock_stream/storage/compress.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_COMPRESS_H
#define HS_STORAGE_COMPRESS_H

#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/status.h"

/* Persisted compression kinds: never change or reuse. */
typedef enum HsCompression
{
	HS_COMPRESSION_NONE = 0,
	HS_COMPRESSION_LZ4 = 1,
	HS_COMPRESSION_ZSTD = 2
} HsCompression;

#define HS_COMPRESSION_KIND_MAX		2
#define HS_ZSTD_DEFAULT_LEVEL		3

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

typedef struct HsCompressor
{
	HsEnv	   *env;
	HsCompression kind;
	int			level;			/* zstd level */
	void	   *lz4_state;		/* LZ4_sizeofState() bytes, or NULL */
	struct ZSTD_CCtx_s *zstd;	/* or NULL */
} HsCompressor;

typedef struct HsDecompressor
{
	HsEnv	   *env;
	struct ZSTD_DCtx_s *zstd;	/* created on first zstd block */
} HsDecompressor;

/* Name of a kind ("none", "lz4", "zstd", "unknown"). */
extern const char *HsCompressionName(int kind);

/* Is kind a compression kind this build knows? */
static inline bool
HsCompressionKindValid(int kind)
{
	return kind >= 0 && kind <= HS_COMPRESSION_KIND_MAX;
}

/*
 * Set up a compressor of one kind; zstd_level is used for zstd only
 * (0 means HS_ZSTD_DEFAULT_LEVEL).  Fails with HS_INVALID_ARGUMENT for an
 * unknown kind or a level zstd rejects.
 */
extern bool HsCompressorInit(HsCompressor *c, HsEnv *env, HsCompression kind,
							 int zstd_level, HsStatus *st);
extern void HsCompressorDestroy(HsCompressor *c);

/*
 * Compress raw into out, replacing out's contents.  For HS_COMPRESSION_NONE
 * this copies.  Fails only if the library reports an error.
 */
extern bool HsCompress(HsCompressor *c, HsSlice raw, HsBuf *out,
					   HsStatus *st);

extern void HsDecompressorInit(HsDecompressor *d, HsEnv *env);
extern void HsDecompressorDestroy(HsDecompressor *d);

/*
 * Cheap check before allocating raw_len bytes: false if stored bytes of
 * this kind cannot decompress to raw_len bytes (the claim is impossible).
 */
extern bool HsDecompressSizePlausible(HsCompression kind, HsSlice stored,
									  size_t raw_len);

/*
 * Decompress stored into dst, which has room for raw_len bytes; the result
 * must be exactly raw_len bytes.  path and offset only label errors:
 * HS_CORRUPTION if the data does not decompress to raw_len bytes.
 */
extern bool HsDecompress(HsDecompressor *d, HsCompression kind,
						 HsSlice stored, uint8_t *dst, size_t raw_len,
						 const char *path, uint64_t offset, HsStatus *st);

#endif							/* HS_STORAGE_COMPRESS_H */
