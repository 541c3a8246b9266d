/*-------------------------------------------------------------------------
 *
 * fuzz_sst.c
 *	  libFuzzer harness: arbitrary bytes as an SST file.
 *
 * The input is one flags byte followed by the file contents:
 *	  bit 0  read without checksum verification, so the fuzzer reaches the
 *	         structural checks behind the CRCs (the same as a crafted file
 *	         whose CRCs were recomputed);
 *	  bit 1  read through a small block cache.
 *
 * For each input the harness opens the "file" with HsSstReaderOpen, scans
 * it fully, gets back (and seeks to) the keys it saw, runs a few gets of
 * keys derived from the input, and dumps it with HsSstDescribe.  Failures
 * are fine as long as they are HS_CORRUPTION statuses: anything else (a
 * crash, a sanitizer report, another status code) is a bug.
 *
 * Files live in memory: a minimal HsEnv serves the input buffer as the
 * only readable file, which keeps the harness fast (no syscalls) and
 * shows the storage core needs nothing but its env.
 *
 * test/fuzz/fuzz_sst.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hummock_stream/storage/block_cache.h"
#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/sst_describe.h"
#include "hummock_stream/storage/sst_reader.h"

#define FUZZ_PATH		"fuzz.sst"
#define FUZZ_MAX_GETS	64

extern int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ----------------------------------------------------------------
 *		an in-memory env serving one read-only file
 * ----------------------------------------------------------------
 */

struct HsFile
{
	const uint8_t *data;
	size_t		size;
};

static volatile unsigned fuzz_sink;
static const uint8_t *mem_data;
static size_t mem_size;

static void *
mem_alloc(HsEnv *env, size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		abort();
	return p;
}

static void *
mem_realloc(HsEnv *env, void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size ? size : 1);

	if (p == NULL)
		abort();
	return p;
}

static void
mem_free(HsEnv *env, void *ptr)
{
	free(ptr);
}

static bool
mem_unsupported(HsStatus *st)
{
	return HsStatusSet(st, HS_IO_ERROR, "not supported by the fuzz env");
}

static bool
mem_open_writable(HsEnv *env, const char *path, HsFile **file, HsStatus *st)
{
	return mem_unsupported(st);
}

static bool
mem_open_readable(HsEnv *env, const char *path, HsFile **file, HsStatus *st)
{
	HsFile	   *f;

	if (strcmp(path, FUZZ_PATH) != 0)
		return HsStatusSet(st, HS_NOT_FOUND, "no file \"%s\"", path);
	f = mem_alloc(env, sizeof(HsFile));
	f->data = mem_data;
	f->size = mem_size;
	*file = f;
	return true;
}

static bool
mem_append(HsEnv *env, HsFile *file, const void *buf, size_t len,
		   HsStatus *st)
{
	return mem_unsupported(st);
}

static bool
mem_read_at(HsEnv *env, HsFile *file, uint64_t offset, void *buf, size_t len,
			size_t *nread, HsStatus *st)
{
	size_t		n = 0;

	if (offset < file->size)
	{
		n = file->size - (size_t) offset;
		if (n > len)
			n = len;
		memcpy(buf, file->data + offset, n);
	}
	*nread = n;
	return true;
}

static bool
mem_sync(HsEnv *env, HsFile *file, HsStatus *st)
{
	return true;
}

static bool
mem_size_fn(HsEnv *env, HsFile *file, uint64_t *size, HsStatus *st)
{
	*size = file->size;
	return true;
}

static bool
mem_close(HsEnv *env, HsFile *file, HsStatus *st)
{
	free(file);
	return true;
}

static const char *
mem_path(HsEnv *env, HsFile *file)
{
	return FUZZ_PATH;
}

static bool
mem_rename(HsEnv *env, const char *from, const char *to, HsStatus *st)
{
	return mem_unsupported(st);
}

static bool
mem_remove(HsEnv *env, const char *path, HsStatus *st)
{
	return mem_unsupported(st);
}

static bool
mem_file_exists(HsEnv *env, const char *path)
{
	return strcmp(path, FUZZ_PATH) == 0;
}

static bool
mem_list_dir(HsEnv *env, const char *dir, HsDirEntryFn fn, void *arg,
			 HsStatus *st)
{
	return mem_unsupported(st);
}

static bool
mem_dir_op(HsEnv *env, const char *dir, HsStatus *st)
{
	return mem_unsupported(st);
}

static HsEnv mem_env = {
	.alloc = mem_alloc,
	.realloc = mem_realloc,
	.free = mem_free,
	.open_writable = mem_open_writable,
	.open_readable = mem_open_readable,
	.append = mem_append,
	.read_at = mem_read_at,
	.sync = mem_sync,
	.size = mem_size_fn,
	.close = mem_close,
	.path = mem_path,
	.rename = mem_rename,
	.remove = mem_remove,
	.file_exists = mem_file_exists,
	.list_dir = mem_list_dir,
	.make_dir = mem_dir_op,
	.sync_dir = mem_dir_op,
	.private_data = NULL,
};

/* ----------------------------------------------------------------
 *		the target
 * ----------------------------------------------------------------
 */

/* Only corruption is an acceptable failure. */
static void
check_status(const HsStatus *st, const char *where)
{
	if (st->code != HS_OK && st->code != HS_CORRUPTION)
	{
		fprintf(stderr, "%s: unexpected status %s: %s (%s)\n", where,
				HsCodeName(st->code), st->msg, st->detail);
		abort();
	}
	if (st->code == HS_CORRUPTION && (st->msg[0] == '\0' || st->detail[0] == '\0'))
	{
		fprintf(stderr, "%s: corruption without a message\n", where);
		abort();
	}
}

static void
fuzz_reader(uint8_t flags, const uint8_t *data, size_t size)
{
	HsEnv	   *env = &mem_env;
	HsSstReaderOptions ro;
	HsSstReader  *r;
	HsIterator *it;
	HsIterator *it2;
	HsStatus	st;
	HsBuf		value;
	HsBuf		keys;			/* length-prefixed keys seen by the scan */
	size_t		nkeys = 0;
	HsCursor	c;

	HsSstReaderOptionsInit(&ro);
	ro.verify_checksums = (flags & 1) == 0;
	if (flags & 2)
		ro.block_cache = HsBlockCacheCreate(env, 32 * 1024);

	HsStatusClear(&st);
	r = HsSstReaderOpenWithOptions(env, FUZZ_PATH, &ro, &st);
	if (r == NULL)
	{
		check_status(&st, "open");
		if (st.code == HS_OK)
			abort();
		HsBlockCacheDestroy(ro.block_cache);
		return;
	}

	HsBufInit(&value, env);
	HsBufInit(&keys, env);

	/* full scan, remembering some keys */
	it = HsSstReaderNewIterator(r);
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
	{
		HsSlice		k = HsIterKey(it);
		HsSlice		v = HsIterValue(it);

		if (k.len < HS_MIN_FULL_KEY_LEN)
			abort();			/* the iterator must only yield full keys */
		if (v.len > 0)
			fuzz_sink += v.data[0] + v.data[v.len - 1]; /* touch the bytes */
		if (nkeys < FUZZ_MAX_GETS)
		{
			HsBufPutLengthPrefixed(&keys, k);
			nkeys++;
		}
	}
	HsIterStatus(it, &st);
	check_status(&st, "scan");

	/* get and seek back every remembered key */
	it2 = HsSstReaderNewIterator(r);
	HsCursorInit(&c, HsBufSlice(&keys));
	for (size_t i = 0; i < nkeys; i++)
	{
		HsSlice		k;
		bool		found;

		if (!HsCursorGetLengthPrefixed(&c, &k))
			abort();
		if (!HsSstReaderGet(r, HsFullKeyTableKey(k), HsFullKeyEpoch(k),
						  &found, &value, &st))
			check_status(&st, "get");
		if (!HsSstReaderGet(r, HsFullKeyTableKey(k), HS_EPOCH_MAX,
						  &found, &value, &st))
			check_status(&st, "get newest");
		(void) HsSstReaderMayContain(r, HsFullKeyTableKey(k));
		HsIterSeek(it2, k);
		if (HsIterValid(it2))
			HsIterNext(it2);
	}
	HsIterStatus(it2, &st);
	check_status(&st, "seek");

	/* gets of keys cut from the input itself */
	for (size_t off = 0; off + 8 <= size && off < 64 * 8; off += 8)
	{
		bool		found;
		HsSlice		tk = HsSliceMake(data + off, 4 + data[off] % 5);

		if (!HsSstReaderGet(r, tk, HsGetBE64(data + off), &found, &value, &st))
			check_status(&st, "get of input bytes");
	}

	HsIterDestroy(it2);
	HsIterDestroy(it);
	HsBufFree(&keys);
	HsBufFree(&value);
	HsSstReaderClose(r);
	HsBlockCacheDestroy(ro.block_cache);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	HsBuf		out;
	HsStatus	st;
	uint8_t		flags;

	if (size < 1)
		return 0;
	flags = data[0];
	mem_data = data + 1;
	mem_size = size - 1;

	fuzz_reader(flags, data + 1, size - 1);

	/* describe verifies checksums: only worth it when they may pass */
	if ((flags & 1) == 0 || (flags & 4))
	{
		HsBufInit(&out, &mem_env);
		HsStatusClear(&st);
		if (!HsSstDescribe(&mem_env, FUZZ_PATH, &out, &st))
			check_status(&st, "describe");
		HsBufFree(&out);
	}
	return 0;
}
