/*-------------------------------------------------------------------------
 *
 * meta_record.h
 *	  The tagged, checksummed framing of persisted version metadata.
 *
 * Version deltas (version_delta.c) and version checkpoints (version.c) are
 * stored by the Postgres glue as bytea values in the extension's catalog
 * tables.  Both use this framing (persisted; never change):
 *
 *		magic				4 bytes, names the record kind ("HSVD", "HSVC")
 *		format_version		varint32
 *		fields, repeated:	tag varint32 | body_len varint32 | body
 *		crc					u32 little-endian: masked CRC-32C
 *							(crc32c.h) of every byte before it
 *
 * Rules shared by every record kind:
 *	- a format version the reader does not know is HS_NOT_SUPPORTED;
 *	- a tag the reader does not know is HS_NOT_SUPPORTED (a newer writer),
 *	  never skipped: silently dropping a part of a delta would corrupt the
 *	  version.  Tags are never reused; a changed body layout gets a new tag;
 *	- a bad magic, a bad checksum, a length running past the end and a body
 *	  that is not consumed exactly are HS_CORRUPTION.
 *
 * include/hummock_stream/storage/meta_record.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_META_RECORD_H
#define HS_STORAGE_META_RECORD_H

#include "hummock_stream/storage/coding.h"

#define HS_META_MAGIC_LEN	4

/* Start a record: magic and format version. */
extern void HsMetaRecordBegin(HsBuf *buf, const char magic[HS_META_MAGIC_LEN],
							  uint32_t format_version);

/* Append one field. */
extern void HsMetaRecordField(HsBuf *buf, uint32_t tag, HsSlice body);

/* Append the checksum; the record is complete. */
extern void HsMetaRecordFinish(HsBuf *buf);

/*
 * Check magic, checksum and format version (which must be between 1 and
 * max_version) of a record; on success position *fields at the first
 * field and return the version.  what names the record in messages.
 */
extern bool HsMetaRecordOpen(HsSlice record,
							 const char magic[HS_META_MAGIC_LEN],
							 uint32_t max_version, const char *what,
							 HsCursor *fields, uint32_t *format_version,
							 HsStatus *st);

/*
 * Read the next field.  Returns true with *done false and the field, true
 * with *done set at the end, false (HS_CORRUPTION) on a malformed field.
 */
extern bool HsMetaRecordNext(HsCursor *fields, const char *what,
							 uint32_t *tag, HsSlice *body, bool *done,
							 HsStatus *st);

/* The standard errors. */
extern bool HsMetaRecordUnknownTag(HsStatus *st, const char *what,
								   uint32_t tag);
extern bool HsMetaRecordBadBody(HsStatus *st, const char *what,
								uint32_t tag, const char *problem);

/*
 * After decoding a field body with c: true if the cursor read the body
 * exactly; else HS_CORRUPTION (cut short, or trailing bytes) naming what
 * and tag.
 */
extern bool HsMetaRecordBodyDone(HsCursor *c, const char *what, uint32_t tag,
								 HsStatus *st);

#endif							/* HS_STORAGE_META_RECORD_H */
