/*-------------------------------------------------------------------------
 *
 * coding.c
 *	  Varint decoding slow paths, HsBuf growth and HsCursor getters.
 *
 * The fast paths (one-byte varints, appends that fit) are inline in
 * coding.h; what is here runs rarely or is not on a per-entry path.
 *
 * src/storage/coding.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "hummock_stream/storage/coding.h"

/* ----------------------------------------------------------------
 *		varints
 * ----------------------------------------------------------------
 */

const uint8_t *
HsDecodeVarint32Slow(const uint8_t *p, const uint8_t *limit, uint32_t *v)
{
	uint32_t	result = 0;

	for (int shift = 0; shift <= 28; shift += 7)
	{
		uint32_t	byte;

		if (p >= limit)
			return NULL;		/* truncated */
		byte = *p++;
		if (shift == 28 && byte > 0x0F)
			return NULL;		/* too long, or overflows 32 bits */
		result |= (byte & 127) << shift;
		if (byte < 128)
		{
			*v = result;
			return p;
		}
	}
	return NULL;
}

const uint8_t *
HsDecodeVarint64Slow(const uint8_t *p, const uint8_t *limit, uint64_t *v)
{
	uint64_t	result = 0;

	for (int shift = 0; shift <= 63; shift += 7)
	{
		uint64_t	byte;

		if (p >= limit)
			return NULL;		/* truncated */
		byte = *p++;
		if (shift == 63 && byte > 0x01)
			return NULL;		/* too long, or overflows 64 bits */
		result |= (byte & 127) << shift;
		if (byte < 128)
		{
			*v = result;
			return p;
		}
	}
	return NULL;
}

/* ----------------------------------------------------------------
 *		HsBuf
 * ----------------------------------------------------------------
 */

/* Initializes an empty buffer that allocates from env. */
void
HsBufInit(HsBuf *buf, HsEnv *env)
{
	buf->env = env;
	buf->data = NULL;
	buf->len = 0;
	buf->cap = 0;
}

void
HsBufFree(HsBuf *buf)
{
	if (buf->data)
		HsFree(buf->env, buf->data);
	buf->data = NULL;
	buf->len = 0;
	buf->cap = 0;
}

void
HsBufGrow(HsBuf *buf, size_t extra)
{
	size_t		need = buf->len + extra;
	size_t		cap = buf->cap ? buf->cap : 64;

	if (need < buf->len)
		abort();				/* size_t overflow: cannot happen */
	while (cap < need)
		cap = cap * 2 > cap ? cap * 2 : need;
	if (buf->data == NULL)
		buf->data = HsAlloc(buf->env, cap);
	else
		buf->data = HsRealloc(buf->env, buf->data, cap);
	buf->cap = cap;
}

/* ----------------------------------------------------------------
 *		HsCursor
 * ----------------------------------------------------------------
 */

/* Marks the cursor failed; returns false. */
static bool
cursor_fail(HsCursor *c)
{
	c->ok = false;
	return false;
}

/* Reads a varint32; false (cursor failed) if malformed or cut short. */
bool
HsCursorGetVarint32(HsCursor *c, uint32_t *v)
{
	const uint8_t *q;

	if (!c->ok)
		return false;
	q = HsDecodeVarint32(c->p, c->end, v);
	if (q == NULL)
		return cursor_fail(c);
	c->p = q;
	return true;
}

/* Reads a varint64; false (cursor failed) if malformed or cut short. */
bool
HsCursorGetVarint64(HsCursor *c, uint64_t *v)
{
	const uint8_t *q;

	if (!c->ok)
		return false;
	q = HsDecodeVarint64(c->p, c->end, v);
	if (q == NULL)
		return cursor_fail(c);
	c->p = q;
	return true;
}

/* Reads one byte; false (cursor failed) at the end. */
bool
HsCursorGetByte(HsCursor *c, uint8_t *v)
{
	if (!c->ok || c->end - c->p < 1)
		return cursor_fail(c);
	*v = *c->p++;
	return true;
}

/* Reads a little-endian u32; false (cursor failed) if cut short. */
bool
HsCursorGetLE32(HsCursor *c, uint32_t *v)
{
	if (!c->ok || c->end - c->p < 4)
		return cursor_fail(c);
	*v = HsGetLE32(c->p);
	c->p += 4;
	return true;
}

/* Reads a little-endian u64; false (cursor failed) if cut short. */
bool
HsCursorGetLE64(HsCursor *c, uint64_t *v)
{
	if (!c->ok || c->end - c->p < 8)
		return cursor_fail(c);
	*v = HsGetLE64(c->p);
	c->p += 8;
	return true;
}

bool
HsCursorGetBytes(HsCursor *c, size_t n, HsSlice *out)
{
	if (!c->ok || (size_t) (c->end - c->p) < n)
		return cursor_fail(c);
	*out = HsSliceMake(c->p, n);
	c->p += n;
	return true;
}

bool
HsCursorGetLengthPrefixed(HsCursor *c, HsSlice *out)
{
	uint32_t	n;

	if (!HsCursorGetVarint32(c, &n))
		return false;
	return HsCursorGetBytes(c, n, out);
}

/* ----------------------------------------------------------------
 *		text helpers
 * ----------------------------------------------------------------
 */

void
HsBufAppendHex(HsBuf *buf, HsSlice s, size_t max_bytes)
{
	static const char digits[] = "0123456789abcdef";
	size_t		n = s.len < max_bytes ? s.len : max_bytes;
	char	   *out;

	HsBufReserve(buf, 2 * n + 4);
	out = (char *) buf->data + buf->len;
	for (size_t i = 0; i < n; i++)
	{
		*out++ = digits[s.data[i] >> 4];
		*out++ = digits[s.data[i] & 15];
	}
	if (n < s.len)
	{
		memcpy(out, "...", 3);
		out += 3;
	}
	*out = '\0';				/* not counted */
	buf->len = (uint8_t *) out - buf->data;
}

void
HsBufPrintf(HsBuf *buf, const char *fmt,...)
{
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	HsBufReserve(buf, (size_t) n + 1);
	va_start(ap, fmt);
	vsnprintf((char *) buf->data + buf->len, (size_t) n + 1, fmt, ap);
	va_end(ap);
	buf->len += (size_t) n;
}
