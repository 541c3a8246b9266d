/*-------------------------------------------------------------------------
 *
 * sst_describe.c
 *	  Deterministic text dump of an SST file, block by block.
 *
 * The file is opened with HsSstReaderOpen (so every check of the reader
 * applies), then each block is re-read with HsSstReadBlock to report its
 * trailer (compression, raw length, checksum) and walked with a HsBlockIter
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
HsSstDescribeKey(HsBuf *out, HsSlice full_key)
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

/* Prints a block handle line. */
static void
describe_handle(HsBuf *out, const char *name, HsSstBlockHandle h)
{
	HsBufPrintf(out, "  %s handle: offset %" PRIu64 ", size %" PRIu64 "\n",
				name, h.offset, h.size);
}

/* One data block: trailer, entry counts, first and last key. */
static bool
describe_data_block(HsBuf *out, HsEnv *env, HsFile *file, const char *path,
					uint32_t i, HsSstBlockHandle h, HsDecompressor *dec,
					HsBuf *stored, HsBuf *raw, HsBlockIter *bi, HsBuf *first,
					HsBuf *last, HsStatus *st)
{
	HsSlice		contents;
	HsSstBlockInfo info;
	Block		blk;
	uint64_t	entries = 0;
	uint64_t	deletes = 0;

	if (!HsSstReadBlock(env, file, path, h, true, dec, stored, raw, &contents,
					  &info, st) ||
		!HsBlockParse(&blk, contents, path, h.offset, st))
		return false;
	HsBlockIterReset(bi, &blk, path, h.offset);
	HsBufReset(first);
	for (HsBlockIterSeekToFirst(bi); HsBlockIterValid(bi); HsBlockIterNext(bi))
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
		HsSstDescribeKey(out, HsBufSlice(first));
		HsBufPrintf(out, "\n  last key:  ");
		HsSstDescribeKey(out, HsBufSlice(last));
		HsBufPrintf(out, "\n");
	}
	return true;
}

/* Prints the properties block. */
static void
describe_properties(HsBuf *out, const HsSstProperties *p, HsSstBlockHandle h)
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
		HsSstDescribeKey(out, p->smallest_key);
		HsBufPrintf(out, "\n  largest key:  ");
		HsSstDescribeKey(out, p->largest_key);
		HsBufPrintf(out, "\n");
	}
	for (uint32_t i = 0; i < p->table_count; i++)
	{
		const HsSstTableStats *t = &p->tables[i];

		HsBufPrintf(out, "  table %" PRIu32 ": entries %" PRIu64
					", tombstones %" PRIu64 ", key bytes %" PRIu64
					", value bytes %" PRIu64 "\n",
					t->table_id, t->entry_count, t->tombstone_count,
					t->key_bytes, t->value_bytes);
	}
}

bool
HsSstDescribe(HsEnv *env, const char *path, HsBuf *out, HsStatus *st)
{
	HsSstReader  *r;
	HsFile	   *file = NULL;
	HsDecompressor dec;
	HsBuf		stored,
				raw,
				first,
				last;
	HsBlockIter	bi;
	HsStatus	bi_status;
	const HsSstFooter *f;
	const HsSstProperties *p;
	const HsBloomFilter *filter;
	bool		ok = true;
	uint32_t	n;

	r = HsSstReaderOpen(env, path, st);
	if (r == NULL)
	{
		HsBufPrintf(out, "error: %s\n", st->msg);
		return false;
	}
	if (!env->open_readable(env, path, &file, st))
	{
		HsSstReaderClose(r);
		HsBufPrintf(out, "error: %s\n", st->msg);
		return false;
	}
	HsDecompressorInit(&dec, env);
	HsBufInit(&stored, env);
	HsBufInit(&raw, env);
	HsBufInit(&first, env);
	HsBufInit(&last, env);
	HsStatusClear(&bi_status);
	HsBlockIterInit(&bi, env, &bi_status);

	f = HsSstReaderFooter(r);
	p = HsSstReaderProperties(r);
	n = HsSstReaderBlockCount(r);
	HsBufPrintf(out, "sst: file size %" PRIu64 ", format version %" PRIu32
				", %" PRIu32 " data blocks\n",
				HsSstReaderFileSize(r), f->version, n);

	for (uint32_t i = 0; i < n && ok; i++)
		ok = describe_data_block(out, env, file, path, i,
								 HsSstReaderBlockHandle(r, i), &dec, &stored,
								 &raw, &bi, &first, &last, st);

	if (ok)
		ok = HsSstReaderFilter(r, &filter, st);
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
					HsSstReaderFileSize(r) - HS_SST_FOOTER_SIZE,
					HS_SST_FOOTER_SIZE, f->magic, f->checksum);
		describe_handle(out, "index", f->index);
		describe_handle(out, "filter", f->filter);
		describe_handle(out, "properties", f->properties);
	}
	else
		HsBufPrintf(out, "error: %s\n", st->msg);

	HsBlockIterDestroy(&bi);
	HsBufFree(&stored);
	HsBufFree(&raw);
	HsBufFree(&first);
	HsBufFree(&last);
	HsDecompressorDestroy(&dec);
	{
		HsStatus	ignore;

		env->close(env, file, &ignore);
	}
	HsSstReaderClose(r);
	return ok;
}
