/*-------------------------------------------------------------------------
 *
 * compress.c
 *	  LZ4 and zstd block compression over reusable contexts.
 *
 * zstd contexts are created with ZSTD_createCCtx_advanced and a custom
 * allocator that calls the env, so inside PostgreSQL they live in a memory
 * context and an ERROR cannot leak them (env.h contract).  The LZ4 state is
 * a plain env allocation used with LZ4_compress_fast_extState.
 *
 * src/storage/compress.c
 *
 *-------------------------------------------------------------------------
 */
#include <limits.h>
#include <stdio.h>

#include <lz4.h>
#define ZSTD_STATIC_LINKING_ONLY	/* custom allocators, decompressBound */
#include <zstd.h>

#include "hummock_stream/storage/compress.h"

/* LZ4 cannot expand a block by more than this factor (255 per byte). */
#define LZ4_MAX_RATIO		255

const char *
HsCompressionName(int kind)
{
	switch (kind)
	{
		case HS_COMPRESSION_NONE:
			return "none";
		case HS_COMPRESSION_LZ4:
			return "lz4";
		case HS_COMPRESSION_ZSTD:
			return "zstd";
	}
	return "unknown";
}

/* ----------------------------------------------------------------
 *		zstd allocator over the env
 * ----------------------------------------------------------------
 */

/* zstd's allocator: the env's. */
static void *
zstd_env_alloc(void *opaque, size_t size)
{
	HsEnv	   *env = opaque;

	return HsAlloc(env, size);
}

/* zstd's free: the env's. */
static void
zstd_env_free(void *opaque, void *address)
{
	HsEnv	   *env = opaque;

	if (address)
		HsFree(env, address);
}

/* Returns zstd custom memory functions that allocate from env. */
static ZSTD_customMem
zstd_mem(HsEnv *env)
{
	ZSTD_customMem mem;

	mem.customAlloc = zstd_env_alloc;
	mem.customFree = zstd_env_free;
	mem.opaque = env;
	return mem;
}

/* ----------------------------------------------------------------
 *		compression
 * ----------------------------------------------------------------
 */

bool
HsCompressorInit(HsCompressor *c, HsEnv *env, HsCompression kind,
				 int zstd_level, HsStatus *st)
{
	c->env = env;
	c->kind = kind;
	c->level = zstd_level ? zstd_level : HS_ZSTD_DEFAULT_LEVEL;
	c->lz4_state = NULL;
	c->zstd = NULL;

	switch (kind)
	{
		case HS_COMPRESSION_NONE:
			return true;
		case HS_COMPRESSION_LZ4:
			c->lz4_state = HsAlloc(env, (size_t) LZ4_sizeofState());
			return true;
		case HS_COMPRESSION_ZSTD:
			if (c->level < ZSTD_minCLevel() || c->level > ZSTD_maxCLevel())
				return HsStatusSet(st, HS_INVALID_ARGUMENT,
								   "invalid zstd compression level %d",
								   c->level);
			c->zstd = ZSTD_createCCtx_advanced(zstd_mem(env));
			if (c->zstd == NULL)
				return HsStatusSet(st, HS_IO_ERROR,
								   "could not create zstd compression context");
			if (ZSTD_isError(ZSTD_CCtx_setParameter(c->zstd,
													ZSTD_c_compressionLevel,
													c->level)) ||
				ZSTD_isError(ZSTD_CCtx_setParameter(c->zstd,
													ZSTD_c_contentSizeFlag,
													1)) ||
				ZSTD_isError(ZSTD_CCtx_setParameter(c->zstd,
													ZSTD_c_checksumFlag,
													0)))
			{
				HsCompressorDestroy(c);
				return HsStatusSet(st, HS_INVALID_ARGUMENT,
								   "could not set zstd compression level %d",
								   zstd_level);
			}
			return true;
	}
	return HsStatusSet(st, HS_INVALID_ARGUMENT,
					   "unknown compression kind %d", (int) kind);
}

void
HsCompressorDestroy(HsCompressor *c)
{
	if (c->lz4_state)
		HsFree(c->env, c->lz4_state);
	if (c->zstd)
		ZSTD_freeCCtx(c->zstd);
	c->lz4_state = NULL;
	c->zstd = NULL;
}

bool
HsCompress(HsCompressor *c, HsSlice raw, HsBuf *out, HsStatus *st)
{
	HsBufReset(out);
	switch (c->kind)
	{
		case HS_COMPRESSION_NONE:
			HsBufAppend(out, raw.data, raw.len);
			return true;

		case HS_COMPRESSION_LZ4:
			{
				int			bound;
				int			n;

				if (raw.len > (size_t) LZ4_MAX_INPUT_SIZE)
					return HsStatusSet(st, HS_INVALID_ARGUMENT,
									   "block of %zu bytes is too large for lz4",
									   raw.len);
				bound = LZ4_compressBound((int) raw.len);
				HsBufReserve(out, (size_t) bound);
				n = LZ4_compress_fast_extState(c->lz4_state,
											   (const char *) raw.data,
											   (char *) out->data,
											   (int) raw.len, bound, 1);
				if (n <= 0)
					return HsStatusSet(st, HS_IO_ERROR,
									   "lz4 compression failed");
				out->len = (size_t) n;
				return true;
			}

		case HS_COMPRESSION_ZSTD:
			{
				size_t		bound = ZSTD_compressBound(raw.len);
				size_t		n;

				HsBufReserve(out, bound);
				n = ZSTD_compress2(c->zstd, out->data, bound, raw.data,
								   raw.len);
				if (ZSTD_isError(n))
					return HsStatusSet(st, HS_IO_ERROR,
									   "zstd compression failed: %s",
									   ZSTD_getErrorName(n));
				out->len = n;
				return true;
			}
	}
	return HsStatusSet(st, HS_INVALID_ARGUMENT,
					   "unknown compression kind %d", (int) c->kind);
}

/* ----------------------------------------------------------------
 *		decompression
 * ----------------------------------------------------------------
 */

/* Initializes a decompressor; the zstd context is made on first use. */
void
HsDecompressorInit(HsDecompressor *d, HsEnv *env)
{
	d->env = env;
	d->zstd = NULL;
}

/* Frees the decompressor's zstd context. */
void
HsDecompressorDestroy(HsDecompressor *d)
{
	if (d->zstd)
		ZSTD_freeDCtx(d->zstd);
	d->zstd = NULL;
}

bool
HsDecompressSizePlausible(HsCompression kind, HsSlice stored, size_t raw_len)
{
	switch (kind)
	{
		case HS_COMPRESSION_NONE:
			return raw_len == stored.len;
		case HS_COMPRESSION_LZ4:
			return stored.len > 0 &&
				raw_len / LZ4_MAX_RATIO <= stored.len &&
				raw_len <= (size_t) INT_MAX && stored.len <= (size_t) INT_MAX;
		case HS_COMPRESSION_ZSTD:
			{
				unsigned long long fcs;
				unsigned long long bound;

				fcs = ZSTD_getFrameContentSize(stored.data, stored.len);
				if (fcs == ZSTD_CONTENTSIZE_ERROR ||
					fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs != raw_len)
					return false;
				bound = ZSTD_decompressBound(stored.data, stored.len);
				if (bound == ZSTD_CONTENTSIZE_ERROR || raw_len > bound)
					return false;
				return true;
			}
	}
	return false;
}

/* Reports a block that does not decompress to raw_len bytes. */
static bool
decompress_error(HsStatus *st, HsCompression kind, const char *path,
				 uint64_t offset, size_t raw_len, const char *actual)
{
	char		what[64];
	char		expected[64];

	snprintf(what, sizeof(what), "%s block does not decompress",
			 HsCompressionName(kind));
	snprintf(expected, sizeof(expected), "%zu uncompressed bytes", raw_len);
	return HsStatusCorruption(st, path, offset, what, expected, actual);
}

bool
HsDecompress(HsDecompressor *d, HsCompression kind, HsSlice stored,
			 uint8_t *dst, size_t raw_len, const char *path, uint64_t offset,
			 HsStatus *st)
{
	char		actual[128];

	if (!HsDecompressSizePlausible(kind, stored, raw_len))
		return decompress_error(st, kind, path, offset, raw_len,
								"a size that stored data cannot produce");

	switch (kind)
	{
		case HS_COMPRESSION_NONE:
			if (raw_len)
				memcpy(dst, stored.data, raw_len);
			return true;

		case HS_COMPRESSION_LZ4:
			{
				int			n;

				n = LZ4_decompress_safe((const char *) stored.data,
										(char *) dst, (int) stored.len,
										(int) raw_len);
				if (n < 0 || (size_t) n != raw_len)
				{
					if (n < 0)
						snprintf(actual, sizeof(actual), "malformed lz4 data");
					else
						snprintf(actual, sizeof(actual), "%d bytes", n);
					return decompress_error(st, kind, path, offset, raw_len,
											actual);
				}
				return true;
			}

		case HS_COMPRESSION_ZSTD:
			{
				size_t		n;

				if (d->zstd == NULL)
				{
					d->zstd = ZSTD_createDCtx_advanced(zstd_mem(d->env));
					if (d->zstd == NULL)
						return HsStatusSet(st, HS_IO_ERROR,
										   "could not create zstd decompression context");
				}
				n = ZSTD_decompressDCtx(d->zstd, dst, raw_len, stored.data,
										stored.len);
				if (ZSTD_isError(n) || n != raw_len)
				{
					if (ZSTD_isError(n))
						snprintf(actual, sizeof(actual), "zstd error \"%s\"",
								 ZSTD_getErrorName(n));
					else
						snprintf(actual, sizeof(actual), "%zu bytes", n);
					return decompress_error(st, kind, path, offset, raw_len,
											actual);
				}
				return true;
			}
	}
	snprintf(actual, sizeof(actual), "%d", (int) kind);
	return HsStatusCorruption(st, path, offset, "unknown compression kind",
							  "0, 1 or 2", actual);
}
