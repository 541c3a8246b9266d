/*-------------------------------------------------------------------------
 *
 * sst_builder.c
 *	  Writing SST files (format: sst_format.h).
 *
 * The per-entry path of HsSstBuilderAdd is: an order check against the
 * previous key (one table-key memcmp and, for versions of the same key,
 * one 8-byte memcmp), statistics, a bloom hash when the table key changes,
 * and a HsBlockBuilderAdd.  Nothing is allocated per entry: the block
 * builder, compression output and the output buffer are reused.
 *
 * A data block is cut before an entry that would push its contents past
 * the target block size, so blocks stay at or under the target unless a
 * single entry is larger.  The block is compressed with the builder's
 * compressor (contexts reused for the whole file), stored uncompressed if
 * that saves less than 1/8, given its trailer, and appended to an output
 * buffer that is written to the file in large chunks.  Its last key and
 * handle go into the index block.
 *
 * src/storage/sst_builder.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdio.h>

#include "hummock_stream/storage/block_builder.h"
#include "hummock_stream/storage/bloom.h"
#include "hummock_stream/storage/crc32c.h"
#include "hummock_stream/storage/sst_builder.h"

/* flush buffered output to the file past this many bytes */
#define SST_OUT_BUFFER_SIZE		(512 * 1024)

struct HsSstBuilder
{
	HsEnv	   *env;
	char	   *path;
	HsFile	   *file;
	HsSstBuilderOptions opts;

	HsBlockBuilder data;			/* the open data block */
	HsBlockBuilder index;
	HsBloomBuilder bloom;
	HsCompressor compressor;
	HsBuf		compressed;		/* compression output, reused */
	HsBuf		scratch;		/* index values, filter and properties */
	HsBuf		out;			/* buffered file output */
	uint64_t	offset;			/* file offset of the next block */

	HsBuf		prev_block_last;	/* last key of the previous block */
	HsBuf		smallest_key;

	HsSstProperties props;		/* counters; keys and tables kept apart */
	HsSstTableStats *tables;
	uint32_t	table_count;
	uint32_t	table_cap;

	bool		failed;
	HsStatus	error;			/* why, once failed */
};

void
HsSstBuilderOptionsInit(HsSstBuilderOptions *opts)
{
	opts->block_size = HS_SST_DEFAULT_BLOCK_SIZE;
	opts->restart_interval = HS_BLOCK_DEFAULT_RESTART_INTERVAL;
	opts->compression = HS_COMPRESSION_LZ4;
	opts->zstd_level = 0;
	opts->bloom_bits_per_key = HS_BLOOM_DEFAULT_BITS_PER_KEY;
}

/* Frees what a meta owns and zeroes it. */
void
HsSstMetaFree(HsEnv *env, HsSstMeta *meta)
{
	if (meta->smallest_key)
		HsFree(env, meta->smallest_key);
	if (meta->largest_key)
		HsFree(env, meta->largest_key);
	if (meta->tables)
		HsFree(env, meta->tables);
	memset(meta, 0, sizeof(*meta));
}

/* ----------------------------------------------------------------
 *		creation and teardown
 * ----------------------------------------------------------------
 */

HsSstBuilder *
HsSstBuilderCreate(HsEnv *env, const char *path, const HsSstBuilderOptions *opts,
				 HsStatus *st)
{
	HsSstBuilderOptions o;
	HsSstBuilder *b;
	size_t		plen = strlen(path);

	if (opts)
		o = *opts;
	else
		HsSstBuilderOptionsInit(&o);
	if (o.block_size == 0)
		o.block_size = HS_SST_DEFAULT_BLOCK_SIZE;
	if (o.restart_interval == 0)
		o.restart_interval = HS_BLOCK_DEFAULT_RESTART_INTERVAL;
	if (o.zstd_level == 0)
		o.zstd_level = HS_ZSTD_DEFAULT_LEVEL;
	if (o.block_size > HS_SST_MAX_BLOCK_SIZE)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT, "sst block size too large");
		HsStatusDetail(st, "Block size is %" PRIu32 " bytes, the limit is %" PRIu32 ".",
					   o.block_size, HS_SST_MAX_BLOCK_SIZE);
		return NULL;
	}
	if (o.restart_interval > 65536)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"sst restart interval %" PRIu32 " out of range",
					o.restart_interval);
		return NULL;
	}
	if (o.bloom_bits_per_key > 64)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"bloom filter bits per key %" PRIu32 " out of range",
					o.bloom_bits_per_key);
		return NULL;
	}

	b = HsAllocZero(env, sizeof(HsSstBuilder));
	b->env = env;
	b->opts = o;
	if (!HsCompressorInit(&b->compressor, env, o.compression, o.zstd_level, st))
	{
		HsFree(env, b);
		return NULL;
	}
	if (!env->open_writable(env, path, &b->file, st))
	{
		HsCompressorDestroy(&b->compressor);
		HsFree(env, b);
		return NULL;
	}
	b->path = HsAlloc(env, plen + 1);
	memcpy(b->path, path, plen + 1);

	HsBlockBuilderInit(&b->data, env, o.restart_interval);
	HsBlockBuilderAlignPayloads(&b->data, true);
	HsBlockBuilderInit(&b->index, env, HS_SST_INDEX_RESTART_INTERVAL);
	HsBloomBuilderInit(&b->bloom, env, o.bloom_bits_per_key);
	HsBufInit(&b->compressed, env);
	HsBufInit(&b->scratch, env);
	HsBufInit(&b->out, env);
	HsBufInit(&b->prev_block_last, env);
	HsBufInit(&b->smallest_key, env);
	HsStatusClear(&b->error);
	return b;
}

/* Free everything but the file. */
static void
builder_free(HsSstBuilder *b)
{
	HsEnv	   *env = b->env;

	HsBlockBuilderDestroy(&b->data);
	HsBlockBuilderDestroy(&b->index);
	HsBloomBuilderDestroy(&b->bloom);
	HsCompressorDestroy(&b->compressor);
	HsBufFree(&b->compressed);
	HsBufFree(&b->scratch);
	HsBufFree(&b->out);
	HsBufFree(&b->prev_block_last);
	HsBufFree(&b->smallest_key);
	if (b->tables)
		HsFree(env, b->tables);
	HsFree(env, b->path);
	HsFree(env, b);
}

void
HsSstBuilderAbandon(HsSstBuilder *b)
{
	HsStatus	ignore;

	if (b == NULL)
		return;
	if (b->file)
		b->env->close(b->env, b->file, &ignore);
	b->env->remove(b->env, b->path, &ignore);
	builder_free(b);
}

/* Latch an error: every later call fails with it. */
static bool
builder_fail(HsSstBuilder *b, const HsStatus *st)
{
	b->failed = true;
	b->error = *st;
	return false;
}

/* ----------------------------------------------------------------
 *		output
 * ----------------------------------------------------------------
 */

/* Writes the buffered output to the file. */
static bool
flush_output(HsSstBuilder *b, HsStatus *st)
{
	if (b->out.len == 0)
		return true;
	if (!b->env->append(b->env, b->file, b->out.data, b->out.len, st))
		return builder_fail(b, st);
	HsBufReset(&b->out);
	return true;
}

/* Appends bytes to the file, through the output buffer unless large. */
static bool
emit(HsSstBuilder *b, const void *data, size_t len, HsStatus *st)
{
	if (b->out.len + len > SST_OUT_BUFFER_SIZE)
	{
		if (!flush_output(b, st))
			return false;
		if (len >= SST_OUT_BUFFER_SIZE)
		{
			if (!b->env->append(b->env, b->file, data, len, st))
				return builder_fail(b, st);
			return true;
		}
	}
	HsBufAppend(&b->out, data, len);
	return true;
}

/*
 * Write block contents (compressing if asked and worth it) with its
 * trailer; fill the handle.
 */
static bool
write_block(HsSstBuilder *b, HsSlice contents, bool compress,
			HsSstBlockHandle *h, HsStatus *st)
{
	HsSlice		stored = contents;
	HsCompression kind = HS_COMPRESSION_NONE;
	uint8_t		trailer[HS_BLOCK_TRAILER_SIZE];

	if (compress && b->opts.compression != HS_COMPRESSION_NONE)
	{
		if (!HsCompress(&b->compressor, contents, &b->compressed, st))
			return builder_fail(b, st);
		if (b->compressed.len < contents.len - contents.len / 8)
		{
			stored = HsBufSlice(&b->compressed);
			kind = b->opts.compression;
		}
	}
	HsSstBlockTrailerEncode(trailer, kind, (uint32_t) contents.len, stored);
	h->offset = b->offset;
	h->size = stored.len;
	if (!emit(b, stored.data, stored.len, st) ||
		!emit(b, trailer, sizeof(trailer), st))
		return false;
	b->offset += stored.len + HS_BLOCK_TRAILER_SIZE;
	return true;
}

/* Write the open data block and add its index entry. */
static bool
flush_data_block(HsSstBuilder *b, HsStatus *st)
{
	HsSlice		contents = HsBlockBuilderFinish(&b->data);
	HsSlice		last = HsBlockBuilderLastKey(&b->data);
	HsSstBlockHandle h;

	if (!write_block(b, contents, true, &h, st))
		return false;
	b->props.data_block_count++;
	b->props.data_raw_size += contents.len;
	b->props.data_stored_size += h.size + HS_BLOCK_TRAILER_SIZE;

	HsBufReset(&b->scratch);
	HsSstEncodeHandle(&b->scratch, h);
	HsBlockBuilderAdd(&b->index, last, HsBufSlice(&b->scratch));
	HsBufAssign(&b->prev_block_last, last.data, last.len);
	HsBlockBuilderReset(&b->data);
	return true;
}

/* ----------------------------------------------------------------
 *		adding entries
 * ----------------------------------------------------------------
 */

/* Reports a key that is not after the previous one (or equals it). */
static bool
reject_key(HsSstBuilder *b, HsSlice key, HsSlice prev, bool duplicate,
		   HsStatus *st)
{
	HsBuf		kh,
				ph;

	HsBufInit(&kh, b->env);
	HsBufInit(&ph, b->env);
	HsBufAppendHex(&kh, key, 64);
	HsBufAppendHex(&ph, prev, 64);
	HsStatusSet(st, HS_INVALID_ARGUMENT,
				duplicate ? "duplicate full key added to sst builder" :
				"full keys added to sst builder out of order");
	HsStatusDetail(st, "Key %s follows key %s in \"%s\".",
				   (char *) kh.data, (char *) ph.data, b->path);
	HsBufFree(&kh);
	HsBufFree(&ph);
	return false;
}

/* Starts the statistics of the next table in the SST. */
static void
table_stats_push(HsSstBuilder *b, HsTableId table_id)
{
	HsSstTableStats *t;

	if (b->table_count == b->table_cap)
	{
		uint32_t	cap = b->table_cap ? b->table_cap * 2 : 8;

		if (b->tables == NULL)
			b->tables = HsAlloc(b->env, cap * sizeof(HsSstTableStats));
		else
			b->tables = HsRealloc(b->env, b->tables,
								  cap * sizeof(HsSstTableStats));
		b->table_cap = cap;
	}
	t = &b->tables[b->table_count++];
	memset(t, 0, sizeof(*t));
	t->table_id = table_id;
}

bool
HsSstBuilderAdd(HsSstBuilder *b, HsSlice key, HsSlice value, HsStatus *st)
{
	HsSlice		table_key;
	bool		new_table_key = true;
	HsEpoch		epoch;
	HsTableId	table_id;
	HsSstTableStats *t;
	bool		tombstone;

	if (b->failed)
	{
		*st = b->error;
		return false;
	}
	if (key.len < HS_MIN_FULL_KEY_LEN)
		return HsStatusSet(st, HS_INVALID_ARGUMENT,
						   "full key of %zu bytes is shorter than %d bytes",
						   key.len, HS_MIN_FULL_KEY_LEN);
	if (value.len < 1 || value.data[0] > HS_VALUE_DELETE)
		return HsStatusSet(st, HS_INVALID_ARGUMENT,
						   "value without a valid kind byte");
	if (key.len + value.len > HS_SST_MAX_ENTRY_SIZE)
		return HsStatusSet(st, HS_INVALID_ARGUMENT,
						   "sst entry of %zu bytes exceeds the limit of %" PRIu32 " bytes",
						   key.len + value.len, HS_SST_MAX_ENTRY_SIZE);

	table_key = HsFullKeyTableKey(key);
	if (b->props.entry_count > 0)
	{
		HsSlice		prev = HsBlockBuilderEmpty(&b->data) ?
			HsBufSlice(&b->prev_block_last) : HsBlockBuilderLastKey(&b->data);
		int			r = HsSliceCompare(table_key, HsFullKeyTableKey(prev));

		if (r == 0)
		{
			new_table_key = false;
			r = memcmp(key.data + key.len - HS_EPOCH_LEN,
					   prev.data + prev.len - HS_EPOCH_LEN, HS_EPOCH_LEN);
		}
		if (r <= 0)
			return reject_key(b, key, prev, r == 0, st);
	}
	else
		HsBufAssign(&b->smallest_key, key.data, key.len);

	/* cut the block before an entry that would overflow it */
	if (!HsBlockBuilderEmpty(&b->data) &&
		HsBlockBuilderCurrentSize(&b->data) + key.len + value.len +
		3 * HS_MAX_VARINT32_LEN + 4 > b->opts.block_size)
	{
		if (!flush_data_block(b, st))
			return false;
	}

	/* statistics */
	table_id = HsFullKeyTableId(key);
	if (b->table_count == 0 || b->tables[b->table_count - 1].table_id != table_id)
		table_stats_push(b, table_id);
	t = &b->tables[b->table_count - 1];
	tombstone = value.data[0] == HS_VALUE_DELETE;
	t->entry_count++;
	t->tombstone_count += tombstone;
	t->key_bytes += key.len;
	t->value_bytes += value.len;

	epoch = HsFullKeyEpoch(key);
	if (b->props.entry_count == 0 || epoch < b->props.min_epoch)
		b->props.min_epoch = epoch;
	if (b->props.entry_count == 0 || epoch > b->props.max_epoch)
		b->props.max_epoch = epoch;
	b->props.entry_count++;
	b->props.tombstone_count += tombstone;
	b->props.raw_key_bytes += key.len;
	b->props.raw_value_bytes += value.len;
	if (new_table_key)
	{
		b->props.distinct_key_count++;
		if (b->opts.bloom_bits_per_key > 0)
			HsBloomBuilderAddHash(&b->bloom, HsBloomHash(table_key));
	}

	HsBlockBuilderAdd(&b->data, key, value);
	return true;
}

uint64_t
HsSstBuilderEntryCount(const HsSstBuilder *b)
{
	return b->props.entry_count;
}

uint64_t
HsSstBuilderEstimatedSize(const HsSstBuilder *b)
{
	return b->offset + HsBlockBuilderCurrentSize(&b->data) +
		HsBlockBuilderCurrentSize(&b->index) + HS_SST_FOOTER_SIZE;
}

/* ----------------------------------------------------------------
 *		finishing
 * ----------------------------------------------------------------
 */

/* Fills meta from the finished SST (keys and table stats copied). */
static void
fill_meta(HsSstBuilder *b, HsSstMeta *meta, HsSlice largest)
{
	HsEnv	   *env = b->env;

	memset(meta, 0, sizeof(*meta));
	meta->file_size = b->offset + HS_SST_FOOTER_SIZE;
	meta->entry_count = b->props.entry_count;
	meta->tombstone_count = b->props.tombstone_count;
	meta->distinct_key_count = b->props.distinct_key_count;
	if (b->props.entry_count > 0)
	{
		meta->smallest_key = HsAlloc(env, b->smallest_key.len);
		memcpy(meta->smallest_key, b->smallest_key.data, b->smallest_key.len);
		meta->smallest_key_len = b->smallest_key.len;
		meta->largest_key = HsAlloc(env, largest.len);
		memcpy(meta->largest_key, largest.data, largest.len);
		meta->largest_key_len = largest.len;
	}
	meta->min_epoch = b->props.min_epoch;
	meta->max_epoch = b->props.max_epoch;
	meta->table_count = b->table_count;
	if (b->table_count > 0)
	{
		meta->tables = HsAlloc(env, b->table_count * sizeof(HsSstTableStats));
		memcpy(meta->tables, b->tables, b->table_count * sizeof(HsSstTableStats));
	}
	meta->raw_key_bytes = b->props.raw_key_bytes;
	meta->raw_value_bytes = b->props.raw_value_bytes;
	meta->data_block_count = b->props.data_block_count;
	meta->data_raw_size = b->props.data_raw_size;
	meta->data_stored_size = b->props.data_stored_size;
}

bool
HsSstBuilderFinish(HsSstBuilder *b, HsSstMeta *meta, HsStatus *st)
{
	HsSstFooter	footer;
	uint8_t		fbuf[HS_SST_FOOTER_SIZE];
	HsFile	   *file;

	memset(&footer, 0, sizeof(footer));
	memset(meta, 0, sizeof(*meta));
	if (b->failed)
	{
		*st = b->error;
		HsSstBuilderAbandon(b);
		return false;
	}

	if (!HsBlockBuilderEmpty(&b->data) && !flush_data_block(b, st))
		goto fail;

	/* filter */
	if (b->opts.bloom_bits_per_key > 0 && b->props.distinct_key_count > 0)
	{
		HsBufReset(&b->scratch);
		HsBloomBuilderFinish(&b->bloom, &b->scratch);
		if (!write_block(b, HsBufSlice(&b->scratch), false, &footer.filter, st))
			goto fail;
	}

	/* properties */
	b->props.block_size = b->opts.block_size;
	b->props.restart_interval = b->opts.restart_interval;
	b->props.compression = (uint8_t) b->opts.compression;
	b->props.zstd_level = b->opts.compression == HS_COMPRESSION_ZSTD ?
		b->opts.zstd_level : 0;
	b->props.bloom_bits_per_key = b->opts.bloom_bits_per_key;
	b->props.smallest_key = HsBufSlice(&b->smallest_key);
	b->props.largest_key = HsBufSlice(&b->prev_block_last);
	b->props.table_count = b->table_count;
	b->props.tables = b->tables;
	HsBufReset(&b->scratch);
	HsSstPropertiesEncode(&b->props, &b->scratch);
	b->props.tables = NULL;
	if (!write_block(b, HsBufSlice(&b->scratch), false, &footer.properties, st))
		goto fail;

	/* index */
	if (!write_block(b, HsBlockBuilderFinish(&b->index), false, &footer.index, st))
		goto fail;

	/* footer */
	footer.version = HS_SST_FORMAT_VERSION;
	footer.magic = HS_SST_MAGIC;
	HsSstFooterEncode(&footer, fbuf);
	if (!emit(b, fbuf, sizeof(fbuf), st) || !flush_output(b, st))
		goto fail;
	if (!b->env->sync(b->env, b->file, st))
		goto fail;
	file = b->file;
	b->file = NULL;
	if (!b->env->close(b->env, file, st))
		goto fail;

	fill_meta(b, meta, HsBufSlice(&b->prev_block_last));
	builder_free(b);
	return true;

fail:
	HsSstBuilderAbandon(b);
	return false;
}
