/*-------------------------------------------------------------------------
 *
 * sst_format.c
 *	  Encoding and checking of SST footers, block trailers and properties,
 *	  and reading one block from a file.
 *
 * The format itself is documented in sst_format.h.  Everything here is
 * shared by the builder, the reader and the describe tool, so each of
 * them checks a file the same way.
 *
 * src/storage/sst_format.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdio.h>

#include "hummock_stream/storage/crc32c.h"
#include "hummock_stream/storage/sst_format.h"

/* ----------------------------------------------------------------
 *		footer
 * ----------------------------------------------------------------
 */

/* Returns the masked CRC of footer bytes 0..47 and 56..63 (sst_format.h). */
static uint32_t
footer_crc(const uint8_t *in)
{
	uint32_t	crc = HsCrc32c(in, 48);

	return HsCrc32cMask(HsCrc32cExtend(crc, in + 56, 8));
}

void
HsSstFooterEncode(const HsSstFooter *f, uint8_t out[HS_SST_FOOTER_SIZE])
{
	HsPutLE64(out + 0, f->index.offset);
	HsPutLE64(out + 8, f->index.size);
	HsPutLE64(out + 16, f->filter.offset);
	HsPutLE64(out + 24, f->filter.size);
	HsPutLE64(out + 32, f->properties.offset);
	HsPutLE64(out + 40, f->properties.size);
	HsPutLE32(out + 48, f->version);
	HsPutLE64(out + 56, f->magic);
	HsPutLE32(out + 52, footer_crc(out));
}

bool
HsSstFooterDecode(HsSstFooter *f, const uint8_t in[HS_SST_FOOTER_SIZE],
				const char *path, uint64_t offset, bool verify_checksum,
				HsStatus *st)
{
	char		expected[64];
	char		actual[64];

	f->index.offset = HsGetLE64(in + 0);
	f->index.size = HsGetLE64(in + 8);
	f->filter.offset = HsGetLE64(in + 16);
	f->filter.size = HsGetLE64(in + 24);
	f->properties.offset = HsGetLE64(in + 32);
	f->properties.size = HsGetLE64(in + 40);
	f->version = HsGetLE32(in + 48);
	f->checksum = HsGetLE32(in + 52);
	f->magic = HsGetLE64(in + 56);

	if (f->magic != HS_SST_MAGIC)
	{
		snprintf(expected, sizeof(expected), "0x%016" PRIx64, HS_SST_MAGIC);
		snprintf(actual, sizeof(actual), "0x%016" PRIx64, f->magic);
		return HsStatusCorruption(st, path, offset + 56,
								  "bad sst magic number", expected, actual);
	}
	if (verify_checksum)
	{
		uint32_t	crc = footer_crc(in);

		if (crc != f->checksum)
		{
			snprintf(expected, sizeof(expected), "0x%08" PRIx32, crc);
			snprintf(actual, sizeof(actual), "0x%08" PRIx32, f->checksum);
			return HsStatusCorruption(st, path, offset,
									  "sst footer checksum mismatch",
									  expected, actual);
		}
	}
	if (f->version != HS_SST_FORMAT_VERSION_1)
	{
		snprintf(expected, sizeof(expected), "%d", HS_SST_FORMAT_VERSION_1);
		snprintf(actual, sizeof(actual), "%" PRIu32, f->version);
		return HsStatusCorruption(st, path, offset + 48,
								  "unsupported sst format version",
								  expected, actual);
	}
	return true;
}

/*
 * Check that handle h ends exactly at `end` (and so lies inside the file,
 * since end does).
 */
static bool
check_handle_ends_at(HsSstBlockHandle h, uint64_t end, const char *what,
					 const char *path, uint64_t footer_offset, HsStatus *st)
{
	char		msg[96];
	char		expected[96];
	char		actual[96];

	if (h.offset <= end && h.size <= end - h.offset &&
		end - h.offset - h.size == HS_BLOCK_TRAILER_SIZE)
		return true;
	snprintf(msg, sizeof(msg), "%s block handle out of place", what);
	snprintf(expected, sizeof(expected), "a block ending at offset %" PRIu64,
			 end);
	snprintf(actual, sizeof(actual), "offset %" PRIu64 " size %" PRIu64,
			 h.offset, h.size);
	return HsStatusCorruption(st, path, footer_offset, msg, expected, actual);
}

bool
HsSstFooterCheckLayout(const HsSstFooter *f, uint64_t file_size, const char *path,
					 uint64_t *data_end, HsStatus *st)
{
	uint64_t	footer_offset = file_size - HS_SST_FOOTER_SIZE;

	if (!check_handle_ends_at(f->index, footer_offset, "index", path,
							  footer_offset, st))
		return false;
	if (!check_handle_ends_at(f->properties, f->index.offset, "properties",
							  path, footer_offset, st))
		return false;
	if (f->filter.offset == 0 && f->filter.size == 0)
		*data_end = f->properties.offset;
	else
	{
		if (!check_handle_ends_at(f->filter, f->properties.offset, "filter",
								  path, footer_offset, st))
			return false;
		*data_end = f->filter.offset;
	}
	return true;
}

/* ----------------------------------------------------------------
 *		block trailer and block reads
 * ----------------------------------------------------------------
 */

/* Returns the masked CRC of a block's stored bytes and its kind and length. */
static uint32_t
block_crc(HsSlice stored, const uint8_t *trailer)
{
	uint32_t	crc = HsCrc32c(stored.data, stored.len);

	return HsCrc32cMask(HsCrc32cExtend(crc, trailer, 5));
}

void
HsSstBlockTrailerEncode(uint8_t out[HS_BLOCK_TRAILER_SIZE], HsCompression kind,
					  uint32_t raw_len, HsSlice stored)
{
	out[0] = (uint8_t) kind;
	HsPutLE32(out + 1, raw_len);
	HsPutLE32(out + 5, block_crc(stored, out));
}

bool
HsSstDecodeBlock(const char *path, HsSstBlockHandle h, const uint8_t *bytes,
			   bool verify_checksum, HsDecompressor *dec, HsBuf *raw_buf,
			   HsSlice *contents, HsSstBlockInfo *info, HsStatus *st)
{
	char		expected[96];
	char		actual[96];
	HsSlice		stored = HsSliceMake(bytes, (size_t) h.size);
	const uint8_t *trailer = bytes + h.size;
	uint8_t		kind = trailer[0];
	uint32_t	raw_len = HsGetLE32(trailer + 1);
	uint32_t	crc = HsGetLE32(trailer + 5);

	if (info)
	{
		info->kind = (HsCompression) kind;
		info->raw_len = raw_len;
		info->checksum = crc;
	}

	if (verify_checksum)
	{
		uint32_t	computed = block_crc(stored, trailer);

		if (computed != crc)
		{
			snprintf(expected, sizeof(expected), "0x%08" PRIx32, computed);
			snprintf(actual, sizeof(actual), "0x%08" PRIx32, crc);
			return HsStatusCorruption(st, path, h.offset,
									  "block checksum mismatch",
									  expected, actual);
		}
	}
	if (!HsCompressionKindValid(kind))
	{
		snprintf(actual, sizeof(actual), "%u", kind);
		return HsStatusCorruption(st, path, h.offset + h.size,
								  "unknown block compression kind",
								  "0, 1 or 2", actual);
	}
	if (raw_len > HS_BLOCK_MAX_RAW_SIZE)
	{
		snprintf(expected, sizeof(expected), "at most %" PRIu32 " bytes",
				 HS_BLOCK_MAX_RAW_SIZE);
		snprintf(actual, sizeof(actual), "%" PRIu32 " bytes", raw_len);
		return HsStatusCorruption(st, path, h.offset + h.size + 1,
								  "block raw length out of range",
								  expected, actual);
	}

	if (kind == HS_COMPRESSION_NONE)
	{
		if (raw_len != h.size)
		{
			snprintf(expected, sizeof(expected), "%" PRIu64 " bytes", h.size);
			snprintf(actual, sizeof(actual), "%" PRIu32 " bytes", raw_len);
			return HsStatusCorruption(st, path, h.offset + h.size + 1,
									  "uncompressed block length mismatch",
									  expected, actual);
		}
		*contents = stored;
		return true;
	}

	/* check the claimed size before allocating for it */
	if (!HsDecompressSizePlausible((HsCompression) kind, stored, raw_len))
	{
		snprintf(expected, sizeof(expected),
				 "a size %s data of %" PRIu64 " bytes can produce",
				 HsCompressionName(kind), h.size);
		snprintf(actual, sizeof(actual), "%" PRIu32 " bytes", raw_len);
		return HsStatusCorruption(st, path, h.offset,
								  "block does not decompress to its stated size",
								  expected, actual);
	}
	HsBufReset(raw_buf);
	HsBufReserve(raw_buf, raw_len ? raw_len : 1);
	if (!HsDecompress(dec, (HsCompression) kind, stored, raw_buf->data,
					  raw_len, path, h.offset, st))
		return false;
	raw_buf->len = raw_len;
	*contents = HsSliceMake(raw_buf->data, raw_len);
	return true;
}

/* Reports a block read that the end of the file cut short. */
bool
HsSstTruncatedRead(HsStatus *st, const char *path, uint64_t offset,
				   size_t want, size_t nread)
{
	char		expected[64];
	char		actual[64];

	snprintf(expected, sizeof(expected), "%zu bytes", want);
	snprintf(actual, sizeof(actual), "%zu bytes before end of file", nread);
	return HsStatusCorruption(st, path, offset, "truncated block read",
							  expected, actual);
}

bool
HsSstReadBlock(HsEnv *env, HsFile *file, const char *path, HsSstBlockHandle h,
			 bool verify_checksum, HsDecompressor *dec, HsBuf *stored_buf,
			 HsBuf *raw_buf, HsSlice *contents, HsSstBlockInfo *info,
			 HsStatus *st)
{
	char		actual[96];
	size_t		n;
	size_t		nread;

	/* callers checked the handle against the file; guard size_t anyway */
	if (h.size > (uint64_t) SIZE_MAX - HS_BLOCK_TRAILER_SIZE)
	{
		snprintf(actual, sizeof(actual), "%" PRIu64 " bytes", h.size);
		return HsStatusCorruption(st, path, h.offset, "block too large",
								  "a block that fits in memory", actual);
	}
	n = (size_t) h.size + HS_BLOCK_TRAILER_SIZE;
	HsBufReset(stored_buf);
	HsBufReserve(stored_buf, n);
	if (!env->read_at(env, file, h.offset, stored_buf->data, n, &nread, st))
		return false;
	if (nread != n)
		return HsSstTruncatedRead(st, path, h.offset, n, nread);
	stored_buf->len = n;
	return HsSstDecodeBlock(path, h, stored_buf->data, verify_checksum, dec,
						  raw_buf, contents, info, st);
}

/* ----------------------------------------------------------------
 *		properties
 * ----------------------------------------------------------------
 */

/* Appends the properties encoding (sst_format.h). */
void
HsSstPropertiesEncode(const HsSstProperties *p, HsBuf *out)
{
	HsBufPutVarint64(out, p->entry_count);
	HsBufPutVarint64(out, p->tombstone_count);
	HsBufPutVarint64(out, p->distinct_key_count);
	HsBufPutVarint64(out, p->raw_key_bytes);
	HsBufPutVarint64(out, p->raw_value_bytes);
	HsBufPutVarint64(out, p->data_block_count);
	HsBufPutVarint64(out, p->data_raw_size);
	HsBufPutVarint64(out, p->data_stored_size);
	HsBufPutLE64(out, p->min_epoch);
	HsBufPutLE64(out, p->max_epoch);
	HsBufPutVarint32(out, p->block_size);
	HsBufPutVarint32(out, p->restart_interval);
	HsBufPutByte(out, p->compression);
	HsBufPutVarint32(out, (uint32_t) (p->zstd_level + HS_SST_ZSTD_LEVEL_BIAS));
	HsBufPutVarint32(out, p->bloom_bits_per_key);
	HsBufPutLengthPrefixed(out, p->smallest_key);
	HsBufPutLengthPrefixed(out, p->largest_key);
	HsBufPutVarint32(out, p->table_count);
	for (uint32_t i = 0; i < p->table_count; i++)
	{
		const HsSstTableStats *t = &p->tables[i];

		HsBufPutVarint32(out, t->table_id);
		HsBufPutVarint64(out, t->entry_count);
		HsBufPutVarint64(out, t->tombstone_count);
		HsBufPutVarint64(out, t->key_bytes);
		HsBufPutVarint64(out, t->value_bytes);
	}
}

/* Reports malformed properties. */
static bool
props_corrupt(HsStatus *st, const char *path, uint64_t offset,
			  const char *expected, const char *actual)
{
	return HsStatusCorruption(st, path, offset, "malformed sst properties",
							  expected, actual);
}

bool
HsSstPropertiesDecode(HsSstProperties *p, HsEnv *env, HsSlice contents,
					const char *path, uint64_t offset, HsStatus *st)
{
	HsCursor	c;
	uint32_t	level;
	uint64_t	sum_entries = 0;
	uint64_t	sum_tombstones = 0;
	char		actual[96];

	memset(p, 0, sizeof(*p));
	HsCursorInit(&c, contents);
	HsCursorGetVarint64(&c, &p->entry_count);
	HsCursorGetVarint64(&c, &p->tombstone_count);
	HsCursorGetVarint64(&c, &p->distinct_key_count);
	HsCursorGetVarint64(&c, &p->raw_key_bytes);
	HsCursorGetVarint64(&c, &p->raw_value_bytes);
	HsCursorGetVarint64(&c, &p->data_block_count);
	HsCursorGetVarint64(&c, &p->data_raw_size);
	HsCursorGetVarint64(&c, &p->data_stored_size);
	HsCursorGetLE64(&c, &p->min_epoch);
	HsCursorGetLE64(&c, &p->max_epoch);
	HsCursorGetVarint32(&c, &p->block_size);
	HsCursorGetVarint32(&c, &p->restart_interval);
	HsCursorGetByte(&c, &p->compression);
	HsCursorGetVarint32(&c, &level);
	HsCursorGetVarint32(&c, &p->bloom_bits_per_key);
	HsCursorGetLengthPrefixed(&c, &p->smallest_key);
	HsCursorGetLengthPrefixed(&c, &p->largest_key);
	HsCursorGetVarint32(&c, &p->table_count);
	if (!c.ok)
		return props_corrupt(st, path, offset, "all fields",
							 "a truncated or malformed field");
	p->zstd_level = (int32_t) level - HS_SST_ZSTD_LEVEL_BIAS;

	/* each table takes at least 5 bytes: bound the allocation */
	if (p->table_count > HsCursorRemaining(&c) / 5)
	{
		snprintf(actual, sizeof(actual), "%" PRIu32 " tables in %zu bytes",
				 p->table_count, HsCursorRemaining(&c));
		return props_corrupt(st, path, offset, "a table count that fits",
							 actual);
	}
	if (p->table_count > 0)
		p->tables = HsAlloc(env, sizeof(HsSstTableStats) * p->table_count);
	for (uint32_t i = 0; i < p->table_count; i++)
	{
		HsSstTableStats *t = &p->tables[i];

		HsCursorGetVarint32(&c, &t->table_id);
		HsCursorGetVarint64(&c, &t->entry_count);
		HsCursorGetVarint64(&c, &t->tombstone_count);
		HsCursorGetVarint64(&c, &t->key_bytes);
		HsCursorGetVarint64(&c, &t->value_bytes);
		if (!c.ok)
			break;
		if (i > 0 && t->table_id <= p->tables[i - 1].table_id)
		{
			snprintf(actual, sizeof(actual), "table %" PRIu32 " after %" PRIu32,
					 t->table_id, p->tables[i - 1].table_id);
			HsSstPropertiesFree(p, env);
			return props_corrupt(st, path, offset, "ascending table ids",
								 actual);
		}
		sum_entries += t->entry_count;
		sum_tombstones += t->tombstone_count;
	}
	if (!c.ok || HsCursorRemaining(&c) != 0)
	{
		snprintf(actual, sizeof(actual), "%s",
				 c.ok ? "trailing bytes" : "a truncated table entry");
		HsSstPropertiesFree(p, env);
		return props_corrupt(st, path, offset, "exactly the listed fields",
							 actual);
	}
	if (sum_entries != p->entry_count || sum_tombstones != p->tombstone_count ||
		p->tombstone_count > p->entry_count ||
		(p->entry_count == 0) != (p->table_count == 0) ||
		(p->entry_count == 0) != (p->data_block_count == 0))
	{
		snprintf(actual, sizeof(actual),
				 "%" PRIu64 " entries, %" PRIu64 " in tables, %" PRIu64 " blocks",
				 p->entry_count, sum_entries, p->data_block_count);
		HsSstPropertiesFree(p, env);
		return props_corrupt(st, path, offset,
							 "per-table counts summing to the totals", actual);
	}
	if (p->entry_count > 0 ?
		(p->smallest_key.len < HS_MIN_FULL_KEY_LEN ||
		 p->largest_key.len < HS_MIN_FULL_KEY_LEN ||
		 HsFullKeyCompare(p->smallest_key, p->largest_key) > 0) :
		(p->smallest_key.len != 0 || p->largest_key.len != 0))
	{
		snprintf(actual, sizeof(actual), "keys of %zu and %zu bytes",
				 p->smallest_key.len, p->largest_key.len);
		HsSstPropertiesFree(p, env);
		return props_corrupt(st, path, offset,
							 "a smallest key <= largest key", actual);
	}
	return true;
}

void
HsSstPropertiesFree(HsSstProperties *p, HsEnv *env)
{
	if (p->tables)
		HsFree(env, p->tables);
	p->tables = NULL;
	p->table_count = 0;
}
