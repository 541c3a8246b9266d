/*-------------------------------------------------------------------------
 *
 * meta_record.c
 *	  The tagged, checksummed framing of persisted version metadata.
 *
 * The layout is documented in meta_record.h.
 *
 * src/storage/meta_record.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <string.h>

#include "hummock_stream/storage/crc32c.h"
#include "hummock_stream/storage/meta_record.h"

#define CRC_LEN		4

void
HsMetaRecordBegin(HsBuf *buf, const char magic[HS_META_MAGIC_LEN],
				  uint32_t format_version)
{
	HsBufReset(buf);
	HsBufAppend(buf, magic, HS_META_MAGIC_LEN);
	HsBufPutVarint32(buf, format_version);
}

void
HsMetaRecordField(HsBuf *buf, uint32_t tag, HsSlice body)
{
	HsBufPutVarint32(buf, tag);
	HsBufPutLengthPrefixed(buf, body);
}

void
HsMetaRecordFinish(HsBuf *buf)
{
	HsBufPutLE32(buf, HsCrc32cMask(HsCrc32c(buf->data, buf->len)));
}

bool
HsMetaRecordOpen(HsSlice record, const char magic[HS_META_MAGIC_LEN],
				 uint32_t max_version, const char *what, HsCursor *fields,
				 uint32_t *format_version, HsStatus *st)
{
	uint32_t	stored;
	uint32_t	actual;
	HsCursor	c;

	if (record.len < HS_META_MAGIC_LEN + 1 + CRC_LEN)
	{
		HsStatusSet(st, HS_CORRUPTION, "%s is too short", what);
		return HsStatusDetail(st, "The record has %zu bytes; at least %d are needed.",
							  record.len, HS_META_MAGIC_LEN + 1 + CRC_LEN);
	}
	if (memcmp(record.data, magic, HS_META_MAGIC_LEN) != 0)
	{
		HsStatusSet(st, HS_CORRUPTION, "%s has a bad magic number", what);
		return HsStatusDetail(st, "Expected \"%.4s\", found bytes %02x %02x %02x %02x.",
							  magic, record.data[0], record.data[1],
							  record.data[2], record.data[3]);
	}
	stored = HsGetLE32(record.data + record.len - CRC_LEN);
	actual = HsCrc32cMask(HsCrc32c(record.data, record.len - CRC_LEN));
	if (stored != actual)
	{
		HsStatusSet(st, HS_CORRUPTION, "%s checksum mismatch", what);
		return HsStatusDetail(st, "Offset %zu: expected checksum %08x, found %08x.",
							  record.len - CRC_LEN, actual, stored);
	}
	HsCursorInit(&c, HsSliceMake(record.data + HS_META_MAGIC_LEN,
								 record.len - HS_META_MAGIC_LEN - CRC_LEN));
	if (!HsCursorGetVarint32(&c, format_version))
	{
		HsStatusSet(st, HS_CORRUPTION, "%s has no format version", what);
		return HsStatusDetail(st, "The version varint is malformed.");
	}
	if (*format_version == 0 || *format_version > max_version)
	{
		HsStatusSet(st, HS_NOT_SUPPORTED, "unsupported %s format version %u",
					what, *format_version);
		return HsStatusDetail(st, "This build reads versions 1 to %u.",
							  max_version);
	}
	*fields = c;
	return true;
}

bool
HsMetaRecordNext(HsCursor *fields, const char *what, uint32_t *tag,
				 HsSlice *body, bool *done, HsStatus *st)
{
	if (fields->ok && fields->p == fields->end)
	{
		*done = true;
		return true;
	}
	*done = false;
	if (!HsCursorGetVarint32(fields, tag) ||
		!HsCursorGetLengthPrefixed(fields, body))
	{
		HsStatusSet(st, HS_CORRUPTION, "truncated field in %s", what);
		return HsStatusDetail(st, "A field header or body runs past the end of the record.");
	}
	return true;
}

bool
HsMetaRecordUnknownTag(HsStatus *st, const char *what, uint32_t tag)
{
	HsStatusSet(st, HS_NOT_SUPPORTED, "unknown field tag %u in %s", tag, what);
	return HsStatusDetail(st, "The record was written by a newer version of hummock_stream.");
}

bool
HsMetaRecordBadBody(HsStatus *st, const char *what, uint32_t tag,
					const char *problem)
{
	HsStatusSet(st, HS_CORRUPTION, "malformed field %u in %s", tag, what);
	return HsStatusDetail(st, "%s", problem);
}

bool
HsMetaRecordBodyDone(HsCursor *c, const char *what, uint32_t tag, HsStatus *st)
{
	if (!c->ok)
		return HsMetaRecordBadBody(st, what, tag, "The field body is cut short.");
	if (c->p != c->end)
		return HsMetaRecordBadBody(st, what, tag, "The field body has trailing bytes.");
	return true;
}
