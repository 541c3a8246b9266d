/*-------------------------------------------------------------------------
 *
 * coding.h
 *	  Byte encodings of the storage core: varints, fixed-width integers and
 *	  a growable byte buffer.
 *
 * Varints are the LEB128 flavour used by LevelDB and protobuf: seven bits
 * per byte, least significant group first, the high bit set on every byte
 * but the last.  A varint32 takes at most 5 bytes and a varint64 at most 10;
 * the decoders reject longer encodings and encodings whose value does not
 * fit, and never read at or past the limit they are given.
 *
 * Fixed-width integers in SST files are little-endian (HsPutLE32 ...);
 * the big-endian helpers used by full keys live in key.h.
 *
 * HsBuf is a growable byte array over an HsEnv allocator.  It is meant to
 * be reused: HsBufReset keeps the memory, so a hot loop that reuses one
 * buffer never allocates after warming up.
 *
 * HsCursor is a bounds-checked reader over a byte range for decoding
 * metadata (properties, handles): every getter fails (and latches the
 * cursor into a failed state) instead of reading past the end.
 *
 * include/hummock_stream/storage/coding.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_CODING_H
#define HS_STORAGE_CODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/key.h"

/* For the few per-entry routines of scans that must not stay calls. */
#if defined(__GNUC__)
#define HS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define HS_ALWAYS_INLINE inline
#endif

/* The index of the lowest nonzero byte of x != 0 (0 = least significant). */
static inline int
HsLowestSetByte64(uint64_t x)
{
#if defined(__GNUC__)
	return __builtin_ctzll(x) / 8;
#else
	int			i = 0;

	while ((x & 0xff) == 0)
	{
		x >>= 8;
		i++;
	}
	return i;
#endif
}

/* A hint to fetch the cache line at p for reading (never faults). */
#if defined(__GNUC__)
#define HS_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define HS_PREFETCH(p) ((void) 0)
#endif

#define HS_MAX_VARINT32_LEN		5
#define HS_MAX_VARINT64_LEN		10

/* ----------------------------------------------------------------
 *		fixed-width little-endian integers
 * ----------------------------------------------------------------
 */
static inline void
HsPutLE16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

/* Reads a little-endian u16. */
static inline uint16_t
HsGetLE16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

/* Writes v as a little-endian u32. */
static inline void
HsPutLE32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 4);
#else
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
#endif
}

/* Reads a little-endian u32. */
static inline uint32_t
HsGetLE32(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t	v;

	memcpy(&v, p, 4);
	return v;
#else
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
#endif
}

/* Writes v as a little-endian u64. */
static inline void
HsPutLE64(uint8_t *p, uint64_t v)
{
	HsPutLE32(p, (uint32_t) v);
	HsPutLE32(p + 4, (uint32_t) (v >> 32));
}

/* Reads a little-endian u64. */
static inline uint64_t
HsGetLE64(const uint8_t *p)
{
	return (uint64_t) HsGetLE32(p) | ((uint64_t) HsGetLE32(p + 4) << 32);
}

/* ----------------------------------------------------------------
 *		varints
 * ----------------------------------------------------------------
 */

/* Number of bytes the varint encoding of v takes (1..10). */
static inline int
HsVarintLength(uint64_t v)
{
	int			n = 1;

	while (v >= 128)
	{
		v >>= 7;
		n++;
	}
	return n;
}

/* Write v at dst (room for HS_MAX_VARINT32_LEN); returns the end. */
static inline uint8_t *
HsEncodeVarint32(uint8_t *dst, uint32_t v)
{
	while (v >= 128)
	{
		*dst++ = (uint8_t) (v | 128);
		v >>= 7;
	}
	*dst++ = (uint8_t) v;
	return dst;
}

/* Write v at dst (room for HS_MAX_VARINT64_LEN); returns the end. */
static inline uint8_t *
HsEncodeVarint64(uint8_t *dst, uint64_t v)
{
	while (v >= 128)
	{
		*dst++ = (uint8_t) (v | 128);
		v >>= 7;
	}
	*dst++ = (uint8_t) v;
	return dst;
}

/* Out-of-line slow paths of the decoders below. */
extern const uint8_t *HsDecodeVarint32Slow(const uint8_t *p,
										   const uint8_t *limit,
										   uint32_t *v);
extern const uint8_t *HsDecodeVarint64Slow(const uint8_t *p,
										   const uint8_t *limit,
										   uint64_t *v);

/*
 * Decode a varint32 from [p, limit).  Returns the byte after it, or NULL
 * if the input is truncated, longer than 5 bytes, or overflows 32 bits.
 */
static inline const uint8_t *
HsDecodeVarint32(const uint8_t *p, const uint8_t *limit, uint32_t *v)
{
	if (p < limit && *p < 128)
	{
		*v = *p;
		return p + 1;
	}
	return HsDecodeVarint32Slow(p, limit, v);
}

/* Same for varint64 (at most 10 bytes, must fit 64 bits). */
static inline const uint8_t *
HsDecodeVarint64(const uint8_t *p, const uint8_t *limit, uint64_t *v)
{
	if (p < limit && *p < 128)
	{
		*v = *p;
		return p + 1;
	}
	return HsDecodeVarint64Slow(p, limit, v);
}

/* ----------------------------------------------------------------
 *		HsBuf: a growable byte buffer
 * ----------------------------------------------------------------
 */
typedef struct HsBuf
{
	HsEnv	   *env;
	uint8_t    *data;			/* NULL until the first reservation */
	size_t		len;
	size_t		cap;
} HsBuf;

extern void HsBufInit(HsBuf *buf, HsEnv *env);
/* Release the memory; the buffer may be re-initialized afterwards. */
extern void HsBufFree(HsBuf *buf);
/* Out-of-line growth: make room for len + extra bytes. */
extern void HsBufGrow(HsBuf *buf, size_t extra);

/* Make room for extra more bytes (cheap when there already is room). */
static inline void
HsBufReserve(HsBuf *buf, size_t extra)
{
	if (buf->cap - buf->len < extra)
		HsBufGrow(buf, extra);
}

/* Forget the contents but keep the memory. */
static inline void
HsBufReset(HsBuf *buf)
{
	buf->len = 0;
}

/* Appends len bytes. */
static inline void
HsBufAppend(HsBuf *buf, const void *data, size_t len)
{
	HsBufReserve(buf, len);
	if (len)
		memcpy(buf->data + buf->len, data, len);
	buf->len += len;
}

/* Replace the contents with a copy of data. */
static inline void
HsBufAssign(HsBuf *buf, const void *data, size_t len)
{
	buf->len = 0;
	HsBufAppend(buf, data, len);
}

/* Appends one byte. */
static inline void
HsBufPutByte(HsBuf *buf, uint8_t b)
{
	HsBufReserve(buf, 1);
	buf->data[buf->len++] = b;
}

/* Appends v as a little-endian u32. */
static inline void
HsBufPutLE32(HsBuf *buf, uint32_t v)
{
	HsBufReserve(buf, 4);
	HsPutLE32(buf->data + buf->len, v);
	buf->len += 4;
}

/* Appends v as a little-endian u64. */
static inline void
HsBufPutLE64(HsBuf *buf, uint64_t v)
{
	HsBufReserve(buf, 8);
	HsPutLE64(buf->data + buf->len, v);
	buf->len += 8;
}

/* Appends v as a varint. */
static inline void
HsBufPutVarint32(HsBuf *buf, uint32_t v)
{
	HsBufReserve(buf, HS_MAX_VARINT32_LEN);
	buf->len = HsEncodeVarint32(buf->data + buf->len, v) - buf->data;
}

/* Appends v as a varint. */
static inline void
HsBufPutVarint64(HsBuf *buf, uint64_t v)
{
	HsBufReserve(buf, HS_MAX_VARINT64_LEN);
	buf->len = HsEncodeVarint64(buf->data + buf->len, v) - buf->data;
}

/* varint32 length followed by the bytes. */
static inline void
HsBufPutLengthPrefixed(HsBuf *buf, HsSlice s)
{
	HsBufPutVarint32(buf, (uint32_t) s.len);
	HsBufAppend(buf, s.data, s.len);
}

/* Returns the contents as a slice. */
static inline HsSlice
HsBufSlice(const HsBuf *buf)
{
	return HsSliceMake(buf->data, buf->len);
}

/* ----------------------------------------------------------------
 *		HsCursor: bounds-checked decoding of metadata
 * ----------------------------------------------------------------
 */
typedef struct HsCursor
{
	const uint8_t *p;
	const uint8_t *end;
	bool		ok;				/* false once any getter failed */
} HsCursor;

/* Starts a cursor at the beginning of s. */
static inline void
HsCursorInit(HsCursor *c, HsSlice s)
{
	c->p = s.data;
	c->end = s.len ? s.data + s.len : s.data;	/* s.data may be NULL */
	c->ok = true;
}

/* Returns the bytes left to read (0 once the cursor failed). */
static inline size_t
HsCursorRemaining(const HsCursor *c)
{
	return c->ok ? (size_t) (c->end - c->p) : 0;
}

extern bool HsCursorGetVarint32(HsCursor *c, uint32_t *v);
extern bool HsCursorGetVarint64(HsCursor *c, uint64_t *v);
extern bool HsCursorGetByte(HsCursor *c, uint8_t *v);
extern bool HsCursorGetLE32(HsCursor *c, uint32_t *v);
extern bool HsCursorGetLE64(HsCursor *c, uint64_t *v);
/* n bytes as a slice into the input. */
extern bool HsCursorGetBytes(HsCursor *c, size_t n, HsSlice *out);
/* varint32 length then that many bytes. */
extern bool HsCursorGetLengthPrefixed(HsCursor *c, HsSlice *out);

/* ----------------------------------------------------------------
 *		hex formatting (messages and dumps)
 * ----------------------------------------------------------------
 */

/*
 * Append the lowercase hex of s to buf; if s is longer than max_bytes,
 * only its first max_bytes are written, followed by "...".
 */
extern void HsBufAppendHex(HsBuf *buf, HsSlice s, size_t max_bytes);

/* Append printf-formatted text (no terminating NUL is counted in len). */
extern void HsBufPrintf(HsBuf *buf, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

#endif							/* HS_STORAGE_CODING_H */
