/*-------------------------------------------------------------------------
 *
 * test_sst_corruption.c
 *	  Damaged SST files: every kind of bad input yields HS_CORRUPTION with
 *	  a message, never a crash, an out-of-bounds read or wrong rows.
 *
 * Damage that the checksums catch is made by flipping bytes.  Damage that
 * gets past them (a writer bug, a crafted file) is made by editing a
 * block and recomputing its CRC (and the footer's), or by reading with
 * verify_checksums off, so the structural checks behind the CRCs are
 * exercised too.  Run under ASan/valgrind (make asan) to check reads.
 *
 * test/unit/test_sst_corruption.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "sst_test_util.h"
#include "hummock_stream/storage/block.h"
#include "hummock_stream/storage/sst_describe.h"
#include "hummock_stream/storage/sst_format.h"

/* A small SST with several blocks, a filter, and two tables. */
static uint8_t *
make_file(const char *name, HsCompression kind, char *path, size_t pathlen,
		  size_t *len)
{
	TestDataSpec spec = {120, 3, 2, 8, 30, 20};
	TestData	d = test_data_make(&spec, 1234);
	HsSstBuilderOptions opts;
	uint8_t    *buf;

	HsSstBuilderOptionsInit(&opts);
	opts.block_size = 512;
	opts.restart_interval = 4;
	opts.compression = kind;
	unit_path(path, pathlen, name);
	test_build_sst(&d, path, &opts, NULL);
	test_data_free(&d);
	buf = test_read_file(path, len);
	return buf;
}

static HsSstFooter
footer_of(const uint8_t *buf, size_t len)
{
	HsSstFooter	f;
	HsStatus	st;

	assert_true(HsSstFooterDecode(&f, buf + len - HS_SST_FOOTER_SIZE, "x",
								0, false, &st));
	return f;
}

/* Recompute the trailer CRC of the block at h after editing it. */
static void
fix_block(uint8_t *buf, HsSstBlockHandle h)
{
	uint8_t    *trailer = buf + h.offset + h.size;

	HsSstBlockTrailerEncode(trailer, (HsCompression) trailer[0],
						  HsGetLE32(trailer + 1),
						  HsSliceMake(buf + h.offset, h.size));
}

static void
rewrite_footer(uint8_t *buf, size_t len, const HsSstFooter *f)
{
	HsSstFooterEncode(f, buf + len - HS_SST_FOOTER_SIZE);
}

/* Handle of data block i, from the (uncompressed) index block. */
static HsSstBlockHandle
data_handle(const uint8_t *buf, size_t len, uint32_t i, uint8_t **value_at)
{
	HsSstFooter	f = footer_of(buf, len);
	const uint8_t *p = buf + f.index.offset;
	const uint8_t *limit = buf + f.index.offset + f.index.size;
	HsSstBlockHandle h = {0, 0};

	/* skip the restart array: count is the last u32 of the contents */
	limit -= 4 + 4 * (size_t) HsGetLE32(limit - 4);
	for (uint32_t n = 0; p < limit; n++)
	{
		uint32_t	shared,
					non_shared,
					vlen;
		const uint8_t *q = HsBlockDecodeEntry(p, limit, &shared, &non_shared, &vlen);

		assert_non_null(q);
		if (n == i)
		{
			assert_true(HsSstDecodeHandle(HsSliceMake(q + non_shared, vlen), &h));
			if (value_at)
				*value_at = (uint8_t *) q + non_shared;
			return h;
		}
		p = q + non_shared + vlen;
	}
	fail_msg("no data block %u", i);
	return h;
}

/* Write buf as the file and expect HS_CORRUPTION with a message. */
static void
expect_corrupt(const char *path, const uint8_t *buf, size_t len,
			   const char *msg_part)
{
	HsStatus	st;
	HsCode		code;

	test_write_file(path, buf, len);
	code = test_check_sst(path, &st, true);
	if (code != HS_CORRUPTION)
		fail_msg("expected corruption (%s), got %s: %s", msg_part,
				 HsCodeName(code), st.msg);
	assert_true(strlen(st.msg) > 0);
	assert_non_null(strstr(st.detail, path));
	if (msg_part && strstr(st.msg, msg_part) == NULL)
		fail_msg("message \"%s\" lacks \"%s\" (%s)", st.msg, msg_part, st.detail);
}

static void
test_corrupt_truncate(void **state)
{
	char		path[512];
	size_t		len;
	uint8_t    *good = make_file("trunc.sst", HS_COMPRESSION_LZ4, path,
								 sizeof(path), &len);
	HsStatus	st;

	assert_int_equal(test_check_sst(path, &st, true), HS_OK);
	for (size_t cut = 0; cut < len; cut++)
	{
		test_write_file(path, good, cut);
		assert_int_equal(test_check_sst(path, &st, true), HS_CORRUPTION);
		assert_int_equal(test_check_sst(path, &st, false), HS_CORRUPTION);
	}
	expect_corrupt(path, good, 10, "too short");
	expect_corrupt(path, good, len - 1, "magic");
	free(good);
}

/* Any single flipped byte anywhere is caught. */
static void
test_corrupt_flip_every_byte(void **state)
{
	HsCompression kinds[] = {HS_COMPRESSION_NONE, HS_COMPRESSION_LZ4,
	HS_COMPRESSION_ZSTD};

	for (int k = 0; k < 3; k++)
	{
		char		path[512];
		size_t		len;
		uint8_t    *good = make_file("flip.sst", kinds[k], path, sizeof(path),
									 &len);
		uint8_t    *buf = malloc(len);
		HsStatus	st;

		for (size_t pos = 0; pos < len; pos++)
		{
			HsCode		code;

			memcpy(buf, good, len);
			buf[pos] ^= (uint8_t) (1 << (pos % 8));
			test_write_file(path, buf, len);
			code = test_check_sst(path, &st, true);
			if (code != HS_CORRUPTION)
				fail_msg("kind %d: flip at %zu of %zu not detected (%s)", k,
						 pos, len, HsCodeName(code));
			/* without checksums: detected or harmless, never a crash */
			code = test_check_sst(path, &st, false);
			assert_true(code == HS_OK || code == HS_CORRUPTION);
		}
		free(buf);
		free(good);
	}
}

static void
test_corrupt_footer(void **state)
{
	char		path[512];
	size_t		len;
	uint8_t    *good = make_file("footer.sst", HS_COMPRESSION_NONE, path,
								 sizeof(path), &len);
	uint8_t    *buf = malloc(len);
	HsSstFooter	f;

	/* wrong magic */
	memcpy(buf, good, len);
	buf[len - 1] ^= 0x40;
	expect_corrupt(path, buf, len, "magic");

	/* footer checksum */
	memcpy(buf, good, len);
	buf[len - HS_SST_FOOTER_SIZE + 3] ^= 1;
	expect_corrupt(path, buf, len, "footer checksum");
	memcpy(buf, good, len);
	buf[len - 12] ^= 1;			/* the stored checksum itself */
	expect_corrupt(path, buf, len, "footer checksum");

	/* unknown version, with a valid checksum */
	memcpy(buf, good, len);
	f = footer_of(buf, len);
	f.version = 2;
	rewrite_footer(buf, len, &f);
	expect_corrupt(path, buf, len, "format version");

	/* index handle overlapping the footer / past the end */
	memcpy(buf, good, len);
	f = footer_of(buf, len);
	f.index.size += 10;
	rewrite_footer(buf, len, &f);
	expect_corrupt(path, buf, len, "index block handle");
	f.index.offset = len + 100;
	rewrite_footer(buf, len, &f);
	expect_corrupt(path, buf, len, "index block handle");
	f = footer_of(good, len);
	f.index.size = UINT64_MAX - 3;
	rewrite_footer(buf, len, &f);
	expect_corrupt(path, buf, len, "index block handle");

	/* properties / filter handles out of place */
	f = footer_of(good, len);
	f.properties.offset -= 1;
	rewrite_footer(buf, len, &f);
	expect_corrupt(path, buf, len, "properties block handle");
	f = footer_of(good, len);
	f.filter.size += 1;
	rewrite_footer(buf, len, &f);
	expect_corrupt(path, buf, len, "filter block handle");

	/* a file of zeros, and text */
	memset(buf, 0, len);
	expect_corrupt(path, buf, len, "magic");
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t) "not an sst "[i % 11];
	expect_corrupt(path, buf, len, "magic");
	free(buf);
	free(good);
}

static void
test_corrupt_meta_blocks(void **state)
{
	char		path[512];
	size_t		len;
	uint8_t    *good = make_file("meta.sst", HS_COMPRESSION_NONE, path,
								 sizeof(path), &len);
	uint8_t    *buf = malloc(len);
	HsSstFooter	f = footer_of(good, len);
	uint8_t    *value;
	HsSstBlockHandle h;

	/* checksum mismatches in index, properties and filter */
	memcpy(buf, good, len);
	buf[f.index.offset + 1] ^= 0x10;
	expect_corrupt(path, buf, len, "block checksum");
	memcpy(buf, good, len);
	buf[f.properties.offset] ^= 0x10;
	expect_corrupt(path, buf, len, "block checksum");
	memcpy(buf, good, len);
	buf[f.filter.offset + 5] ^= 0x10;
	expect_corrupt(path, buf, len, "block checksum");

	/* index handle pointing past the data (valid CRC) */
	memcpy(buf, good, len);
	h = data_handle(buf, len, 1, &value);
	assert_true(h.size < 16384 && h.size >= 128);	/* a 2-byte varint */
	{
		uint8_t    *p = value + HsVarintLength(h.offset);

		p[0] = 0xFF;
		p[1] = 0x7F;			/* size 16383: past the data region */
	}
	fix_block(buf, f.index);
	expect_corrupt(path, buf, len, "index handle out of place");
	/* ... or overlapping its neighbour */
	memcpy(buf, good, len);
	/* offset of block 1 one byte off (keeping the varint's length) */
	value[0] = (uint8_t) ((value[0] & 0x7F) ? value[0] - 1 : value[0] + 1);
	fix_block(buf, f.index);
	expect_corrupt(path, buf, len, "index handle out of place");

	/* index restart count out of range (valid CRC) */
	memcpy(buf, good, len);
	HsPutLE32(buf + f.index.offset + f.index.size - 4, 0x7FFFFFFF);
	fix_block(buf, f.index);
	expect_corrupt(path, buf, len, "restart count");

	/* properties inconsistent with the index (valid CRC) */
	memcpy(buf, good, len);
	buf[f.properties.offset] ^= 0x01;	/* entry count */
	fix_block(buf, f.properties);
	expect_corrupt(path, buf, len, "properties");

	/* filter with an impossible probe count (valid CRC) */
	memcpy(buf, good, len);
	buf[f.filter.offset + f.filter.size - 2] = 200;
	fix_block(buf, f.filter);
	expect_corrupt(path, buf, len, "probe count");

	/* a meta block trailer with an unknown compression kind */
	memcpy(buf, good, len);
	buf[f.properties.offset + f.properties.size] = 7;
	fix_block(buf, f.properties);
	expect_corrupt(path, buf, len, "compression kind");

	/* uncompressed block whose raw length disagrees */
	memcpy(buf, good, len);
	HsPutLE32(buf + f.properties.offset + f.properties.size + 1,
			  (uint32_t) f.properties.size + 1);
	fix_block(buf, f.properties);
	expect_corrupt(path, buf, len, "length mismatch");
	free(buf);
	free(good);
}

static void
test_corrupt_data_blocks(void **state)
{
	char		path[512];
	size_t		len;
	uint8_t    *good = make_file("data.sst", HS_COMPRESSION_NONE, path,
								 sizeof(path), &len);
	uint8_t    *buf = malloc(len);
	HsSstBlockHandle h = data_handle(good, len, 1, NULL);
	uint8_t    *blk;

	/* block checksum mismatch: found while scanning */
	memcpy(buf, good, len);
	buf[h.offset + 7] ^= 0x04;
	expect_corrupt(path, buf, len, "block checksum");

	/* malformed varints in the first entry (valid CRC) */
	memcpy(buf, good, len);
	blk = buf + h.offset;
	memset(blk, 0xFF, 5);
	fix_block(buf, h);
	expect_corrupt(path, buf, len, "malformed block entry");

	/* value length running past the block (valid CRC) */
	memcpy(buf, good, len);
	blk = buf + h.offset;
	blk[2] = 0xFF;
	blk[3] = 0x7F;
	fix_block(buf, h);
	expect_corrupt(path, buf, len, "malformed block entry");

	/* restart offsets out of range (valid CRC) */
	memcpy(buf, good, len);
	blk = buf + h.offset;
	HsPutLE32(blk + h.size - 8, (uint32_t) h.size);
	fix_block(buf, h);
	expect_corrupt(path, buf, len, "restart offset");
	memcpy(buf, good, len);
	blk = buf + h.offset;
	HsPutLE32(blk + h.size - 4, 0);
	fix_block(buf, h);
	expect_corrupt(path, buf, len, "restart count");
	free(buf);
	free(good);
}

static void
test_corrupt_compressed_blocks(void **state)
{
	HsCompression kinds[] = {HS_COMPRESSION_LZ4, HS_COMPRESSION_ZSTD};

	for (int k = 0; k < 2; k++)
	{
		char		path[512];
		size_t		len;
		uint8_t    *good = make_file("comp.sst", kinds[k], path, sizeof(path),
									 &len);
		uint8_t    *buf = malloc(len);
		HsSstBlockHandle h = data_handle(good, len, 0, NULL);
		uint8_t    *trailer;
		uint32_t	raw_len;

		memcpy(buf, good, len);
		trailer = buf + h.offset + h.size;
		assert_int_equal(trailer[0], kinds[k]);
		raw_len = HsGetLE32(trailer + 1);

		/* stated size one too small / large (valid CRC) */
		HsPutLE32(trailer + 1, raw_len - 1);
		fix_block(buf, h);
		expect_corrupt(path, buf, len, "decompress");
		HsPutLE32(trailer + 1, raw_len + 1);
		fix_block(buf, h);
		expect_corrupt(path, buf, len, "decompress");
		/* absurd size */
		HsPutLE32(trailer + 1, 0xFFFFFFF0);
		fix_block(buf, h);
		expect_corrupt(path, buf, len, "raw length");
		HsPutLE32(trailer + 1, 200u << 20);
		fix_block(buf, h);
		expect_corrupt(path, buf, len, "decompress");

		/* damaged compressed bytes (valid CRC) */
		memcpy(buf, good, len);
		for (size_t i = 0; i < h.size; i += 3)
			buf[h.offset + i] ^= 0x5A;
		fix_block(buf, h);
		expect_corrupt(path, buf, len, NULL);

		/* claimed to be the other kind */
		memcpy(buf, good, len);
		buf[h.offset + h.size] = kinds[1 - k];
		fix_block(buf, h);
		expect_corrupt(path, buf, len, NULL);
		free(buf);
		free(good);
	}
}

/*
 * Random damage read without checksums (the same as damage with fixed
 * CRCs): open, scan and gets may fail, but only with HS_CORRUPTION; and
 * describe behaves the same.
 */
static void
test_corrupt_random_no_checksums(void **state)
{
	HsCompression kinds[] = {HS_COMPRESSION_NONE, HS_COMPRESSION_LZ4,
	HS_COMPRESSION_ZSTD};
	uint64_t	rs = 77;

	for (int k = 0; k < 3; k++)
	{
		char		path[512];
		size_t		len;
		uint8_t    *good = make_file("rand.sst", kinds[k], path, sizeof(path),
									 &len);
		uint8_t    *buf = malloc(len);
		int			ok_count = 0;

		for (int round = 0; round < 1500; round++)
		{
			HsStatus	st;
			HsCode		code;
			int			flips = 1 + (int) (unit_rand(&rs) % 6);

			memcpy(buf, good, len);
			for (int i = 0; i < flips; i++)
			{
				size_t		pos = unit_rand(&rs) % len;

				/* favour the metadata at the end of the file */
				if (round % 2)
					pos = len - 1 - unit_rand(&rs) % (len / 4);
				buf[pos] = (uint8_t) unit_rand(&rs);
			}
			test_write_file(path, buf, len);
			code = test_check_sst(path, &st, false);
			assert_true(code == HS_OK || code == HS_CORRUPTION);
			ok_count += code == HS_OK;
		}
		/* some damage hits only values: those files still read */
		assert_true(ok_count > 0);
		free(buf);
		free(good);
	}
}

static void
test_corrupt_describe(void **state)
{
	char		path[512];
	size_t		len;
	uint8_t    *good = make_file("desc.sst", HS_COMPRESSION_LZ4, path,
								 sizeof(path), &len);
	uint8_t    *buf = malloc(len);
	HsBuf		out;
	HsStatus	st;
	HsSstBlockHandle h = data_handle(good, len, 2, NULL);

	HsBufInit(&out, HsEnvPosix());
	assert_status_ok(HsSstDescribe(HsEnvPosix(), path, &out, &st), &st);

	/* a damaged data block: the dump stops there with an error line */
	memcpy(buf, good, len);
	buf[h.offset + 1] ^= 1;
	test_write_file(path, buf, len);
	HsBufReset(&out);
	assert_false(HsSstDescribe(HsEnvPosix(), path, &out, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_non_null(strstr((char *) out.data, "data block 1:"));
	assert_null(strstr((char *) out.data, "data block 2:"));
	assert_non_null(strstr((char *) out.data, "error: block checksum mismatch"));

	/* a damaged footer: nothing but the error */
	memcpy(buf, good, len);
	buf[len - 2] ^= 1;
	test_write_file(path, buf, len);
	HsBufReset(&out);
	assert_false(HsSstDescribe(HsEnvPosix(), path, &out, &st));
	assert_string_equal((char *) out.data, "error: bad sst magic number\n");
	HsBufFree(&out);
	free(buf);
	free(good);
}

/* A file that shrinks under an open reader: reads come up short. */
static void
test_corrupt_shrunk_after_open(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	char		path[512];
	size_t		len;
	uint8_t    *good = make_file("shrink.sst", HS_COMPRESSION_NONE, path,
								 sizeof(path), &len);
	HsSstReader  *r;
	HsIterator *it;
	HsStatus	st;
	HsBuf		value;
	bool		found;
	int			n = 0;

	r = HsSstReaderOpen(env, path, &st);
	assert_status_ok(r != NULL, &st);
	assert_int_equal(truncate(path, (off_t) (len / 3)), 0);
	it = HsSstReaderNewIterator(r);
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
		n++;
	assert_false(HsIterStatus(it, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_non_null(strstr(st.msg, "truncated block read"));
	assert_true(n > 0);
	HsIterDestroy(it);

	/* a get of the last key reads a block that is gone */
	HsBufInit(&value, env);
	assert_false(HsSstReaderGet(r, HsFullKeyTableKey(HsSstReaderProperties(r)->largest_key),
							  HS_EPOCH_MAX, &found, &value, &st));
	assert_int_equal(st.code, HS_CORRUPTION);

	/* seeks with a target that is not a full key */
	it = HsSstReaderNewIterator(r);
	HsIterSeek(it, HsSliceMake("abc", 3));
	assert_false(HsIterValid(it));
	assert_false(HsIterStatus(it, &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	HsIterDestroy(it);
	HsBufFree(&value);
	HsSstReaderClose(r);
	free(good);
}

/*
 * The filter block is read by the first point get, not by open: with a
 * damaged filter a scan still reads every entry, MayContain rules nothing
 * out, and every get reports the damage.
 */
static void
test_corrupt_filter_read_lazily(void **state)
{
	char		path[512];
	size_t		len;
	uint8_t    *buf = make_file("lazyfilter.sst", HS_COMPRESSION_NONE, path,
								sizeof(path), &len);
	HsSstFooter	f = footer_of(buf, len);
	HsEnv	   *env = HsEnvPosix();
	HsSstReader  *r;
	HsIterator *it;
	HsStatus	st;
	HsBuf		value;
	HsSlice		tk;
	bool		found;
	int			entries = 0;
	const HsBloomFilter *filter;

	assert_true(f.filter.size > 0);
	buf[f.filter.offset + 5] ^= 0x10;
	test_write_file(path, buf, len);

	r = HsSstReaderOpen(env, path, &st);
	assert_status_ok(r != NULL, &st);
	it = HsSstReaderNewIterator(r);
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
		entries++;
	assert_status_ok(HsIterStatus(it, &st), &st);
	assert_true(entries > 0);
	HsIterSeekToFirst(it);
	tk = HsFullKeyTableKey(HsIterKey(it));
	assert_true(HsSstReaderMayContain(r, HsSliceMake("\0\0\0\1zz", 6)));

	HsBufInit(&value, env);
	for (int i = 0; i < 2; i++)
	{
		assert_false(HsSstReaderGet(r, tk, HS_EPOCH_MAX, &found, &value, &st));
		assert_int_equal(st.code, HS_CORRUPTION);
		assert_non_null(strstr(st.msg, "block checksum"));
	}
	assert_false(HsSstReaderFilter(r, &filter, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	HsBufFree(&value);
	HsIterDestroy(it);
	HsSstReaderClose(r);
	free(buf);
}

/*
 * A filter block that reads back (checksums off) but does not parse is
 * read again by every get; each read replaces the last one's buffer
 * rather than leaking it (LeakSanitizer, make asan, checks that).
 */
static void
test_corrupt_filter_read_again(void **state)
{
	char		path[512];
	size_t		len;
	uint8_t    *buf = make_file("refilter.sst", HS_COMPRESSION_NONE, path,
								sizeof(path), &len);
	HsSstFooter	f = footer_of(buf, len);
	HsEnv	   *env = HsEnvPosix();
	HsSstReaderOptions opts;
	HsSstReader  *r;
	HsStatus	st;
	HsBuf		value;
	bool		found;

	assert_true(f.filter.size > 0);
	buf[f.filter.offset + f.filter.size - 1] ^= 0x10;	/* the filter kind */
	test_write_file(path, buf, len);

	HsSstReaderOptionsInit(&opts);
	opts.verify_checksums = false;
	r = HsSstReaderOpenWithOptions(env, path, &opts, &st);
	assert_status_ok(r != NULL, &st);
	HsBufInit(&value, env);
	for (int i = 0; i < 3; i++)
	{
		assert_false(HsSstReaderGet(r, HsSliceMake("\0\0\0\1zz", 6),
									HS_EPOCH_MAX, &found, &value, &st));
		assert_int_equal(st.code, HS_CORRUPTION);
		assert_non_null(strstr(st.msg, "bloom filter kind"));
	}
	HsBufFree(&value);
	HsSstReaderClose(r);
	free(buf);
}

static const struct CMUnitTest sst_corruption_tests[] = {
	cmocka_unit_test(test_corrupt_shrunk_after_open),
	cmocka_unit_test(test_corrupt_truncate),
	cmocka_unit_test(test_corrupt_flip_every_byte),
	cmocka_unit_test(test_corrupt_footer),
	cmocka_unit_test(test_corrupt_meta_blocks),
	cmocka_unit_test(test_corrupt_filter_read_lazily),
	cmocka_unit_test(test_corrupt_filter_read_again),
	cmocka_unit_test(test_corrupt_data_blocks),
	cmocka_unit_test(test_corrupt_compressed_blocks),
	cmocka_unit_test(test_corrupt_random_no_checksums),
	cmocka_unit_test(test_corrupt_describe),
};

UNIT_SUITE(sst_corruption)
{
	*tests = sst_corruption_tests;
	return sizeof(sst_corruption_tests) / sizeof(sst_corruption_tests[0]);
}
