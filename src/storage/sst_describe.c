/*-------------------------------------------------------------------------
 *
 * sst_describe.c
 *	  Deterministic text dump of an SST file, block by block.
 *
 * The file is opened with SstReaderOpen (so every check of the reader
 * applies), then each block is re-read with SstReadBlock to report its
 * trailer (compression, raw length, checksum) and walked with a BlockIter
 * to count entries.  Output format: see sst_describe.h; golden tests
 * depend on it, so change it only together with their expected files.
 *
 * src/storage/sst_describe.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdio.h>

#include "hummock_stream/storage/block.h"
#include "hummock_stream/storage/bloom.h"
#include "hummock_stream/storage/sst_describe.h"
#include "hummock_stream/storage/sst_reader.h"

#define DESCRIBE_USER_KEY_BYTES		32

void
SstDescribeKey(HsBuf *out, HsSlice full_key)
{
	if (full_key.len < HS_MIN_FULL_KEY_LEN)
	{
		HsBufPrintf(out, "(invalid key of %zu bytes)", full_key.len);
		return;
	}
	HsBufPrintf(out, "t%" PRIu32 " ", HsFullKeyTableId(full_key));
	if (full_key.len == HS_MIN_FULL_KEY_LEN)
		HsBufPrintf(out, "(empty)");
	else
		HsBufAppendHex(out, HsFullKeyUserKey(full_key),
					   DESCRIBE_USER_KEY_BYTES);
	HsBufPrintf(out, " @%" PRIu64, HsFullKeyEpoch(full_key));
}

static void
describe_handle(HsBuf *out, const char *name, SstBlockHandle h)
{
	HsBufPrintf(out, "  %s handle: offset %" PRIu64 ", size %" PRIu64 "\n",
				name, h.offset, h.size);
}

/* One data block: trailer, entry counts, first and last key. */
static bool
describe_data_block(HsBuf *out, HsEnv *env, HsFile *file, const char *path,
					uint32_t i, SstBlockHandle h, HsDecompressor *dec,
					HsBuf *stored, HsBuf *raw, BlockIter *bi, HsBuf *first,
					HsBuf *last, HsStatus *st)
{
	HsSlice		contents;
	SstBlockInfo info;
	Block		blk;
	uint64_t	entries = 0;
	uint64_t	deletes = 0;

	if (!SstReadBlock(env, file, path, h, true, dec, stored, raw, &contents,
					  &info, st) ||
		!BlockParse(&blk, contents, path, h.offset, st))
		return false;
	BlockIterReset(bi, &blk, path, h.offset);
	HsBufReset(first);
	for (BlockIterSeekToFirst(bi); BlockIterValid(bi); BlockIterNext(bi))
	{
		if (entries == 0)
			HsBufAssign(first, bi->key.data, bi->key.len);
		HsBufAssign(last, bi->key.data, bi->key.len);
		entries++;
		if (bi->value_len > 0 && bi->value[0] == HS_VALUE_DELETE)
			deletes++;
	}
	if (bi->status->code != HS_OK)
	{
		*st = *bi->status;
		return false;
	}

	HsBufPrintf(out, "data block %" PRIu32 ": offset %" PRIu64
				", stored %" PRIu64 ", raw %" PRIu32 ", compression %s"
				", checksum 0x%08" PRIx32 "\n",
				i, h.offset, h.size, info.raw_len,
				HsCompressionName(info.kind), info.checksum);
	HsBufPrintf(out, "  entries %" PRIu64 " (%" PRIu64 " deletes), restarts %"
				PRIu32 "\n", entries, deletes, blk.num_restarts);
	if (entries > 0)
	{
		HsBufPrintf(out, "  first key: ");
		SstDescribeKey(out, HsBufSlice(first));
		HsBufPrintf(out, "\n  last key:  ");
		SstDescribeKey(out, HsBufSlice(last));
		HsBufPrintf(out, "\n");
	}
	return true;
}

static void
describe_properties(HsBuf *out, const SstProperties *p, SstBlockHandle h)
{
	HsBufPrintf(out, "properties block: offset %" PRIu64 ", stored %" PRIu64
				"\n", h.offset, h.size);
	HsBufPrintf(out, "  entries %" PRIu64 ", tombstones %" PRIu64
				", distinct keys %" PRIu64 "\n",
				p->entry_count, p->tombstone_count, p->distinct_key_count);
	HsBufPrintf(out, "  raw key bytes %" PRIu64 ", raw value bytes %" PRIu64
				"\n", p->raw_key_bytes, p->raw_value_bytes);
	HsBufPrintf(out, "  data blocks %" PRIu64 ", raw size %" PRIu64
				", stored size %" PRIu64 "\n",
				p->data_block_count, p->data_raw_size, p->data_stored_size);
	HsBufPrintf(out, "  epochs %" PRIu64 " .. %" PRIu64 "\n",
				p->min_epoch, p->max_epoch);
	HsBufPrintf(out, "  options: block size %" PRIu32 ", restart interval %"
				PRIu32 ", compression %s, zstd level %" PRId32
				", bloom bits/key %" PRIu32 "\n",
				p->block_size, p->restart_interval,
				HsCompressionName(p->compression), p->zstd_level,
				p->bloom_bits_per_key);
	if (p->entry_count > 0)
	{
		HsBufPrintf(out, "  smallest key: ");
		SstDescribeKey(out, p->smallest_key);
		HsBufPrintf(out, "\n  largest key:  ");
		SstDescribeKey(out, p->largest_key);
		HsBufPrintf(out, "\n");
	}
	for (uint32_t i = 0; i < p->table_count; i++)
	{
		const SstTableStats *t = &p->tables[i];

		HsBufPrintf(out, "  table %" PRIu32 ": entries %" PRIu64
					", tombstones %" PRIu64 ", key bytes %" PRIu64
					", value bytes %" PRIu64 "\n",
					t->table_id, t->entry_count, t->tombstone_count,
					t->key_bytes, t->value_bytes);
	}
}

bool
SstDescribe(HsEnv *env, const char *path, HsBuf *out, HsStatus *st)
{
	SstReader  *r;
	HsFile	   *file = NULL;
	HsDecompressor dec;
	HsBuf		stored,
				raw,
				first,
				last;
	BlockIter	bi;
	HsStatus	bi_status;
	const SstFooter *f;
	const SstProperties *p;
	const BloomFilter *filter;
	bool		ok = true;
	uint32_t	n;

	r = SstReaderOpen(env, path, st);
	if (r == NULL)
	{
		HsBufPrintf(out, "error: %s\n", st->msg);
		return false;
	}
	if (!env->open_readable(env, path, &file, st))
	{
		SstReaderClose(r);
		HsBufPrintf(out, "error: %s\n", st->msg);
		return false;
	}
	HsDecompressorInit(&dec, env);
	HsBufInit(&stored, env);
	HsBufInit(&raw, env);
	HsBufInit(&first, env);
	HsBufInit(&last, env);
	HsStatusClear(&bi_status);
	BlockIterInit(&bi, env, &bi_status);

	f = SstReaderFooter(r);
	p = SstReaderProperties(r);
	n = SstReaderBlockCount(r);
	HsBufPrintf(out, "sst: file size %" PRIu64 ", format version %" PRIu32
				", %" PRIu32 " data blocks\n",
				SstReaderFileSize(r), f->version, n);

	for (uint32_t i = 0; i < n && ok; i++)
		ok = describe_data_block(out, env, file, path, i,
								 SstReaderBlockHandle(r, i), &dec, &stored,
								 &raw, &bi, &first, &last, st);

	if (ok)
		ok = SstReaderFilter(r, &filter, st);
	if (ok)
	{
		if (filter)
		{
			uint64_t	bits = (uint64_t) filter->num_lines *
				HS_BLOOM_LINE_BYTES * 8;
			uint64_t	keys = p->distinct_key_count;

			/* bits per key with two decimals, in integers (no locale) */
			uint64_t	centi = keys ? bits * 100 / keys : 0;

			HsBufPrintf(out, "filter block: offset %" PRIu64 ", stored %"
						PRIu64 ", lines %" PRIu32 " (%" PRIu64 " bits), probes %"
						PRIu32 ", keys %" PRIu64 ", bits/key %" PRIu64
						".%02" PRIu64 "\n",
						f->filter.offset, f->filter.size, filter->num_lines,
						bits, filter->num_probes, keys, centi / 100,
						centi % 100);
		}
		else
			HsBufPrintf(out, "filter block: none\n");

		describe_properties(out, p, f->properties);

		HsBufPrintf(out, "index block: offset %" PRIu64 ", stored %" PRIu64
					", entries %" PRIu32 "\n",
					f->index.offset, f->index.size, n);
		HsBufPrintf(out, "footer: offset %" PRIu64 ", size %d, magic 0x%016"
					PRIx64 ", checksum 0x%08" PRIx32 "\n",
					SstReaderFileSize(r) - HS_SST_FOOTER_SIZE,
					HS_SST_FOOTER_SIZE, f->magic, f->checksum);
		describe_handle(out, "index", f->index);
		describe_handle(out, "filter", f->filter);
		describe_handle(out, "properties", f->properties);
	}
	else
		HsBufPrintf(out, "error: %s\n", st->msg);

	BlockIterDestroy(&bi);
	HsBufFree(&stored);
	HsBufFree(&raw);
	HsBufFree(&first);
	HsBufFree(&last);
	HsDecompressorDestroy(&dec);
	{
		HsStatus	ignore;

		env->close(env, file, &ignore);
	}
	SstReaderClose(r);
	return ok;
}
