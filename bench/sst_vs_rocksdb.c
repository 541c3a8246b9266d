/*-------------------------------------------------------------------------
 *
 * sst_vs_rocksdb.c
 *	  Benchmark of the hummock SST layer against RocksDB's block-based
 *	  tables, on one data set, in one process.
 *
 * For each block size (4 KiB, 64 KiB) and compression (lz4, zstd), and for
 * each of --runs runs, the program:
 *
 *	- builds one SST with HsSstBuilder and one with RocksDB's SstFileWriter
 *	  from the same sorted entries (timed from create to the end of Finish,
 *	  which fsyncs the file on both sides) and records the file sizes;
 *	- scans each file once in full (ours: HsSstReaderNewIterator; RocksDB: the
 *	  file is ingested into a fresh DB, then a DB iterator with fill_cache
 *	  off, since our SST iterator does not fill the block cache either);
 *	- runs the same sequence of random point gets of existing keys against
 *	  each (ours: HsSstReaderGet at HS_EPOCH_MAX; RocksDB: rocksdb_get), each
 *	  side with a fresh block cache of the same capacity.
 *
 * Both files are read back into the OS page cache (untimed) before they
 * are scanned, so scans and gets measure CPU work, not the disk; RocksDB's
 * SstFileWriter drops the pages it writes, ours does not.
 *
 * Same data for both: entry i has a 16-byte key, strictly increasing in i
 * and otherwise random (8 bytes spread over the whole key space, then 8
 * random bytes), and a 100-byte value: i in big-endian, then a slice of a
 * fixed text corpus of pseudo-words (compressible about like text).  Our
 * side stores the full key table_id | key | ~epoch and the value kind byte
 * in front of the value, as hummock does; RocksDB stores the 16-byte key
 * and the 100-byte value.  Throughput in MB/s counts the same logical
 * bytes on both sides: entries * (16 + 100), in units of 10^6 bytes.
 *
 * Both sides use the same block size, compression (zstd level 3), a
 * 10 bits/key bloom filter and restart interval 16.
 *
 * The table printed at the end holds, per metric, the median over the
 * runs of each side and the ratio of the medians (ours / RocksDB; for
 * bytes on disk lower is better, for the rest higher is better).
 *
 * bench/sst_vs_rocksdb.c
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rocksdb/c.h>

#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/key.h"
#include "hummock_stream/storage/block_cache.h"
#include "hummock_stream/storage/sst_builder.h"
#include "hummock_stream/storage/sst_reader.h"

#define BENCH_KEY_LEN		16
#define BENCH_VALUE_LEN		100
#define BENCH_TABLE_ID		((HsTableId) 1001)
#define BENCH_MAX_RUNS		15
#define BENCH_BLOOM_BITS	10
#define BENCH_RESTART		16
#define BENCH_PATH_MAX		512

enum
{
	M_BUILD,					/* MB/s */
	M_DISK,						/* MB on disk */
	M_SCAN,						/* MB/s */
	M_GET,						/* gets/s */
	M_COUNT
};

static const char *const metric_names[M_COUNT] = {
	"build MB/s", "disk MB", "scan MB/s", "gets/s"
};

enum
{
	SIDE_OURS,
	SIDE_ROCKS,
	SIDE_COUNT
};

typedef struct BenchConfig
{
	uint32_t	block_size;
	HsCompression compression;
} BenchConfig;

static const BenchConfig all_configs[] = {
	{4096, HS_COMPRESSION_LZ4},
	{4096, HS_COMPRESSION_ZSTD},
	{65536, HS_COMPRESSION_LZ4},
	{65536, HS_COMPRESSION_ZSTD},
};

#define N_CONFIGS	(sizeof(all_configs) / sizeof(all_configs[0]))

typedef struct BenchArgs
{
	int			runs;
	size_t		entries;
	size_t		gets;
	size_t		cache_mb;
	const char *dir;
	uint32_t	only_block;		/* 0: all */
	int			only_comp;		/* -1: all */
	int			only_side;		/* -1: both */
} BenchArgs;

/* The data set, generated once. */
typedef struct BenchData
{
	size_t		n;
	uint8_t    *keys;			/* n * BENCH_KEY_LEN */
	uint8_t    *values;			/* n * (1 + BENCH_VALUE_LEN): kind + value */
	size_t		ngets;
	uint32_t   *get_idx;		/* entry index of each get */
	HsEpoch		epoch;
} BenchData;

/* results[config][side][metric][run] */
static double results[N_CONFIGS][SIDE_COUNT][M_COUNT][BENCH_MAX_RUNS];

/* ----------------------------------------------------------------
 *		helpers
 * ----------------------------------------------------------------
 */

static void
die(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	fprintf(stderr, "sst_vs_rocksdb: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void
die_status(const char *what, const HsStatus *st)
{
	die("%s: %s: %s (%s)", what, HsCodeName(st->code), st->msg, st->detail);
}

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t
mix64(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

/* Read a whole file once, so that it is in the OS page cache. */
static void
warm_file(const char *path)
{
	static char buf[1 << 20];
	int			fd = open(path, O_RDONLY);

	if (fd < 0)
		die("could not open \"%s\": %s", path, strerror(errno));
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static uint64_t
file_size(const char *path)
{
	struct stat sb;

	if (stat(path, &sb) != 0)
		die("could not stat \"%s\": %s", path, strerror(errno));
	return (uint64_t) sb.st_size;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(const double *v, int n)
{
	double		tmp[BENCH_MAX_RUNS];

	memcpy(tmp, v, sizeof(double) * n);
	qsort(tmp, n, sizeof(double), cmp_double);
	return (n % 2) ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* ----------------------------------------------------------------
 *		the data set
 * ----------------------------------------------------------------
 */

static void
generate_data(BenchData *d, size_t n, size_t ngets)
{
	enum
	{
		NWORDS = 512,
		CORPUS = 1 << 20
	};
	char		words[NWORDS][12];
	char	   *corpus = malloc(CORPUS);
	uint64_t	step = UINT64_MAX / n;
	uint64_t	rng = 12345;
	size_t		pos = 0;

	/* a vocabulary of pseudo-words, then a text made of them */
	for (int w = 0; w < NWORDS; w++)
	{
		int			len = 3 + (int) (mix64(rng++) % 8);

		for (int c = 0; c < len; c++)
			words[w][c] = (char) ('a' + mix64(rng++) % 26);
		words[w][len] = '\0';
	}
	while (pos < CORPUS)
	{
		const char *w = words[mix64(rng++) % NWORDS];
		size_t		len = strlen(w);

		for (size_t c = 0; c <= len && pos < CORPUS; c++)
			corpus[pos++] = c < len ? w[c] : ' ';
	}

	d->n = n;
	d->keys = malloc(n * BENCH_KEY_LEN);
	d->values = malloc(n * (1 + BENCH_VALUE_LEN));
	if (!corpus || !d->keys || !d->values)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
	{
		uint8_t    *k = d->keys + i * BENCH_KEY_LEN;
		uint8_t    *v = d->values + i * (1 + BENCH_VALUE_LEN);
		uint64_t	h = mix64(i);

		HsPutBE64(k, (uint64_t) i * step + h % step);
		HsPutBE64(k + 8, mix64(h));
		v[0] = HS_VALUE_PUT;
		HsPutBE64(v + 1, (uint64_t) i);
		memcpy(v + 9, corpus + h % (CORPUS - BENCH_VALUE_LEN),
			   BENCH_VALUE_LEN - 8);
	}
	free(corpus);

	d->ngets = ngets;
	d->get_idx = malloc(sizeof(uint32_t) * (ngets ? ngets : 1));
	for (size_t g = 0; g < ngets; g++)
		d->get_idx[g] = (uint32_t) (mix64(UINT64_C(777) + g) % n);
	d->epoch = HsEpochFromUnixMs(HS_EPOCH_UNIX_MS_BASE + 86400000, 1);
}

static inline const uint8_t *
data_key(const BenchData *d, size_t i)
{
	return d->keys + i * BENCH_KEY_LEN;
}

/* kind byte + value */
static inline const uint8_t *
data_value(const BenchData *d, size_t i)
{
	return d->values + i * (1 + BENCH_VALUE_LEN);
}

/* ----------------------------------------------------------------
 *		our side
 * ----------------------------------------------------------------
 */

static void
ours_run(const BenchConfig *cfg, const BenchData *d, const BenchArgs *a,
		 const char *dir, double *res)
{
	HsEnv	   *env = HsEnvPosix();
	double		raw_mb = d->n * (double) (BENCH_KEY_LEN + BENCH_VALUE_LEN) / 1e6;
	char		path[BENCH_PATH_MAX + 32];
	HsSstBuilderOptions bo;
	HsSstReaderOptions ro;
	HsSstBuilder *b;
	HsSstReader  *r;
	HsSstMeta		meta;
	HsBlockCache *cache;
	HsIterator *it;
	HsStatus	st;
	HsBuf		value;
	uint8_t		fk[BENCH_KEY_LEN + HS_MIN_FULL_KEY_LEN];
	uint64_t	check = 0;
	size_t		count = 0;
	double		t0;

	snprintf(path, sizeof(path), "%s/ours.sst", dir);

	/* build */
	HsSstBuilderOptionsInit(&bo);
	bo.block_size = cfg->block_size;
	bo.compression = cfg->compression;
	bo.restart_interval = BENCH_RESTART;
	bo.bloom_bits_per_key = BENCH_BLOOM_BITS;
	t0 = now_sec();
	b = HsSstBuilderCreate(env, path, &bo, &st);
	if (b == NULL)
		die_status("HsSstBuilderCreate", &st);
	for (size_t i = 0; i < d->n; i++)
	{
		size_t		fklen = HsFullKeyEncode(fk, BENCH_TABLE_ID, data_key(d, i),
											BENCH_KEY_LEN, d->epoch);

		if (!HsSstBuilderAdd(b, HsSliceMake(fk, fklen),
						   HsSliceMake(data_value(d, i), 1 + BENCH_VALUE_LEN),
						   &st))
			die_status("HsSstBuilderAdd", &st);
	}
	if (!HsSstBuilderFinish(b, &meta, &st))
		die_status("HsSstBuilderFinish", &st);
	res[M_BUILD] = raw_mb / (now_sec() - t0);
	res[M_DISK] = meta.file_size / 1e6;
	HsSstMetaFree(env, &meta);

	/* open with a fresh cache, the file in the page cache */
	warm_file(path);
	cache = HsBlockCacheCreate(env, a->cache_mb << 20);
	HsSstReaderOptionsInit(&ro);
	ro.block_cache = cache;
	r = HsSstReaderOpenWithOptions(env, path, &ro, &st);
	if (r == NULL)
		die_status("HsSstReaderOpen", &st);

	/* full scan */
	t0 = now_sec();
	it = HsSstReaderNewIterator(r);
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
	{
		HsSlice		k = HsIterKey(it);
		HsSlice		v = HsIterValue(it);

		check += k.data[k.len - 9] + v.len;
		count++;
	}
	if (!HsIterStatus(it, &st))
		die_status("SST scan", &st);
	HsIterDestroy(it);
	res[M_SCAN] = raw_mb / (now_sec() - t0);
	if (count != d->n || check == 0)
		die("our scan returned %zu entries, expected %zu", count, d->n);

	/* point gets */
	HsBufInit(&value, env);
	t0 = now_sec();
	for (size_t g = 0; g < d->ngets; g++)
	{
		uint32_t	i = d->get_idx[g];
		uint8_t		tk[HS_TABLE_ID_LEN + BENCH_KEY_LEN];
		bool		found;

		HsPutBE32(tk, BENCH_TABLE_ID);
		memcpy(tk + HS_TABLE_ID_LEN, data_key(d, i), BENCH_KEY_LEN);
		if (!HsSstReaderGet(r, HsSliceMake(tk, sizeof(tk)), HS_EPOCH_MAX,
						  &found, &value, &st))
			die_status("HsSstReaderGet", &st);
		if (!found || value.len != 1 + BENCH_VALUE_LEN ||
			memcmp(value.data, data_value(d, i), 9) != 0)
			die("our get of entry %u returned a wrong answer", i);
	}
	res[M_GET] = d->ngets / (now_sec() - t0);
	HsBufFree(&value);

	HsSstReaderClose(r);
	HsBlockCacheDestroy(cache);
	unlink(path);
}

/* ----------------------------------------------------------------
 *		RocksDB
 * ----------------------------------------------------------------
 */

static void
rocks_check(char *err, const char *what)
{
	if (err)
		die("%s: %s", what, err);
}

/* Options shared by the writer and the DB; the caller destroys both. */
static rocksdb_options_t *
rocks_options(const BenchConfig *cfg, rocksdb_cache_t *cache,
			  rocksdb_block_based_table_options_t **bbto)
{
	rocksdb_options_t *o = rocksdb_options_create();
	rocksdb_filterpolicy_t *filter;

	*bbto = rocksdb_block_based_options_create();
	rocksdb_block_based_options_set_block_size(*bbto, cfg->block_size);
	rocksdb_block_based_options_set_block_restart_interval(*bbto,
														   BENCH_RESTART);
	filter = rocksdb_filterpolicy_create_bloom_full(BENCH_BLOOM_BITS);
	rocksdb_block_based_options_set_filter_policy(*bbto, filter);
	if (cache)
		rocksdb_block_based_options_set_block_cache(*bbto, cache);
	else
		rocksdb_block_based_options_set_no_block_cache(*bbto, 1);
	rocksdb_options_set_block_based_table_factory(o, *bbto);
	rocksdb_options_set_compression(o, cfg->compression == HS_COMPRESSION_LZ4 ?
									rocksdb_lz4_compression :
									rocksdb_zstd_compression);
	rocksdb_options_set_create_if_missing(o, 1);
	rocksdb_options_set_disable_auto_compactions(o, 1);
	return o;
}

static void
rocks_run(const BenchConfig *cfg, const BenchData *d, const BenchArgs *a,
		  const char *dir, double *res)
{
	double		raw_mb = d->n * (double) (BENCH_KEY_LEN + BENCH_VALUE_LEN) / 1e6;
	char		path[BENCH_PATH_MAX + 32];
	char		dbdir[BENCH_PATH_MAX + 32];
	const char *files[1];
	rocksdb_block_based_table_options_t *bbto;
	rocksdb_options_t *o;
	rocksdb_envoptions_t *eo;
	rocksdb_sstfilewriter_t *w;
	rocksdb_cache_t *cache;
	rocksdb_t  *db;
	rocksdb_ingestexternalfileoptions_t *io;
	rocksdb_readoptions_t *scan_ro;
	rocksdb_readoptions_t *get_ro;
	rocksdb_iterator_t *it;
	char	   *err = NULL;
	uint64_t	check = 0;
	size_t		count = 0;
	double		t0;

	snprintf(path, sizeof(path), "%s/rocks.sst", dir);
	snprintf(dbdir, sizeof(dbdir), "%s/rocksdb", dir);

	/* build */
	o = rocks_options(cfg, NULL, &bbto);
	eo = rocksdb_envoptions_create();
	t0 = now_sec();
	w = rocksdb_sstfilewriter_create(eo, o);
	rocksdb_sstfilewriter_open(w, path, &err);
	rocks_check(err, "rocksdb_sstfilewriter_open");
	for (size_t i = 0; i < d->n; i++)
	{
		rocksdb_sstfilewriter_put(w, (const char *) data_key(d, i),
								  BENCH_KEY_LEN,
								  (const char *) data_value(d, i) + 1,
								  BENCH_VALUE_LEN, &err);
		rocks_check(err, "rocksdb_sstfilewriter_put");
	}
	rocksdb_sstfilewriter_finish(w, &err);
	rocks_check(err, "rocksdb_sstfilewriter_finish");
	res[M_BUILD] = raw_mb / (now_sec() - t0);
	rocksdb_sstfilewriter_destroy(w);
	rocksdb_envoptions_destroy(eo);
	rocksdb_options_destroy(o);
	rocksdb_block_based_options_destroy(bbto);
	res[M_DISK] = file_size(path) / 1e6;

	/* ingest into a fresh DB with a fresh cache, the file in page cache */
	warm_file(path);
	cache = rocksdb_cache_create_lru(a->cache_mb << 20);
	o = rocks_options(cfg, cache, &bbto);
	rocksdb_destroy_db(o, dbdir, &err);
	rocks_check(err, "rocksdb_destroy_db");
	db = rocksdb_open(o, dbdir, &err);
	rocks_check(err, "rocksdb_open");
	io = rocksdb_ingestexternalfileoptions_create();
	rocksdb_ingestexternalfileoptions_set_move_files(io, 1);
	files[0] = path;
	rocksdb_ingest_external_file(db, files, 1, io, &err);
	rocks_check(err, "rocksdb_ingest_external_file");
	rocksdb_ingestexternalfileoptions_destroy(io);

	/* full scan */
	scan_ro = rocksdb_readoptions_create();
	rocksdb_readoptions_set_fill_cache(scan_ro, 0);
	t0 = now_sec();
	it = rocksdb_create_iterator(db, scan_ro);
	for (rocksdb_iter_seek_to_first(it); rocksdb_iter_valid(it);
		 rocksdb_iter_next(it))
	{
		size_t		klen,
					vlen;
		const char *k = rocksdb_iter_key(it, &klen);

		(void) rocksdb_iter_value(it, &vlen);
		check += (uint8_t) k[klen - 1] + vlen;
		count++;
	}
	rocksdb_iter_get_error(it, &err);
	rocks_check(err, "RocksDB scan");
	rocksdb_iter_destroy(it);
	res[M_SCAN] = raw_mb / (now_sec() - t0);
	rocksdb_readoptions_destroy(scan_ro);
	if (count != d->n || check == 0)
		die("RocksDB scan returned %zu entries, expected %zu", count, d->n);

	/* point gets */
	get_ro = rocksdb_readoptions_create();
	t0 = now_sec();
	for (size_t g = 0; g < d->ngets; g++)
	{
		uint32_t	i = d->get_idx[g];
		size_t		vlen;
		char	   *v = rocksdb_get(db, get_ro, (const char *) data_key(d, i),
									BENCH_KEY_LEN, &vlen, &err);

		rocks_check(err, "rocksdb_get");
		if (v == NULL || vlen != BENCH_VALUE_LEN ||
			memcmp(v, data_value(d, i) + 1, 8) != 0)
			die("RocksDB get of entry %u returned a wrong answer", i);
		rocksdb_free(v);
	}
	res[M_GET] = d->ngets / (now_sec() - t0);
	rocksdb_readoptions_destroy(get_ro);

	rocksdb_close(db);
	rocksdb_destroy_db(o, dbdir, &err);
	rocks_check(err, "rocksdb_destroy_db");
	rocksdb_options_destroy(o);
	rocksdb_block_based_options_destroy(bbto);
	rocksdb_cache_destroy(cache);
	unlink(path);
}

/* ----------------------------------------------------------------
 *		driver
 * ----------------------------------------------------------------
 */

static void
usage(void)
{
	fprintf(stderr,
			"usage: sst_vs_rocksdb [--runs N] [--entries N] [--gets N]\n"
			"                      [--cache-mb N] [--dir DIR]\n"
			"                      [--block 4096|65536] [--comp lz4|zstd]\n"
			"                      [--side ours|rocksdb]\n"
			"Data goes under DIR (default $HS_BENCH_DIR, else /tmp).\n");
	exit(2);
}

static void
parse_args(BenchArgs *a, int argc, char **argv)
{
	a->runs = 3;
	a->entries = 5000000;
	a->gets = 1000000;
	a->cache_mb = 1024;
	a->dir = getenv("HS_BENCH_DIR") ? getenv("HS_BENCH_DIR") : "/tmp";
	a->only_block = 0;
	a->only_comp = -1;
	a->only_side = -1;

	for (int i = 1; i < argc; i++)
	{
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (val == NULL)
			usage();
		i++;
		if (strcmp(opt, "--runs") == 0)
			a->runs = atoi(val);
		else if (strcmp(opt, "--entries") == 0)
			a->entries = strtoull(val, NULL, 10);
		else if (strcmp(opt, "--gets") == 0)
			a->gets = strtoull(val, NULL, 10);
		else if (strcmp(opt, "--cache-mb") == 0)
			a->cache_mb = strtoull(val, NULL, 10);
		else if (strcmp(opt, "--dir") == 0)
			a->dir = val;
		else if (strcmp(opt, "--block") == 0)
			a->only_block = (uint32_t) atoi(val);
		else if (strcmp(opt, "--comp") == 0)
			a->only_comp = strcmp(val, "lz4") == 0 ? HS_COMPRESSION_LZ4 :
				strcmp(val, "zstd") == 0 ? HS_COMPRESSION_ZSTD : -2;
		else if (strcmp(opt, "--side") == 0)
			a->only_side = strcmp(val, "ours") == 0 ? SIDE_OURS :
				strcmp(val, "rocksdb") == 0 ? SIDE_ROCKS : -2;
		else
			usage();
	}
	if (a->runs < 1 || a->runs > BENCH_MAX_RUNS || a->entries < 1 ||
		a->entries > UINT32_MAX || a->only_comp == -2 || a->only_side == -2)
		usage();
}

static bool
config_selected(const BenchArgs *a, const BenchConfig *cfg)
{
	return (a->only_block == 0 || a->only_block == cfg->block_size) &&
		(a->only_comp < 0 || a->only_comp == (int) cfg->compression);
}

static void
print_table(const BenchArgs *a)
{
	printf("\nmedian of %d run(s); %zu entries (16-byte keys, 100-byte values), "
		   "%zu gets, block cache %zu MiB per side\n",
		   a->runs, a->entries, a->gets, a->cache_mb);
	printf("%-6s %-5s %-11s %12s %12s %8s\n",
		   "block", "comp", "metric", "ours", "rocksdb", "ours/rdb");
	for (size_t c = 0; c < N_CONFIGS; c++)
	{
		const BenchConfig *cfg = &all_configs[c];

		if (!config_selected(a, cfg))
			continue;
		for (int m = 0; m < M_COUNT; m++)
		{
			double		ours = median(results[c][SIDE_OURS][m], a->runs);
			double		rocks = median(results[c][SIDE_ROCKS][m], a->runs);
			char		ratio[32];

			if (ours > 0 && rocks > 0)
				snprintf(ratio, sizeof(ratio), "%.2f", ours / rocks);
			else
				snprintf(ratio, sizeof(ratio), "-");
			printf("%-6s %-5s %-11s %12.1f %12.1f %8s\n",
				   cfg->block_size == 4096 ? "4K" : "64K",
				   HsCompressionName(cfg->compression), metric_names[m],
				   ours, rocks, ratio);
		}
	}
}

int
main(int argc, char **argv)
{
	BenchArgs	a;
	BenchData	d;
	char		dir[BENCH_PATH_MAX];
	double		t0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(&a, argc, argv);
	if (strlen(a.dir) + 20 > sizeof(dir))
		die("directory name too long: \"%s\"", a.dir);
	snprintf(dir, sizeof(dir), "%s/hs_bench.XXXXXX", a.dir);
	if (mkdtemp(dir) == NULL)
		die("could not create a directory under \"%s\": %s", a.dir,
			strerror(errno));

	t0 = now_sec();
	generate_data(&d, a.entries, a.gets);
	fprintf(stderr, "generated %zu entries in %.1f s; data under %s\n",
			d.n, now_sec() - t0, dir);

	for (int run = 0; run < a.runs; run++)
	{
		for (size_t c = 0; c < N_CONFIGS; c++)
		{
			const BenchConfig *cfg = &all_configs[c];

			if (!config_selected(&a, cfg))
				continue;
			/* alternate which side goes first */
			for (int s = 0; s < SIDE_COUNT; s++)
			{
				int			side = (s + run) % SIDE_COUNT;
				double	   *res = NULL;
				double		r[M_COUNT];

				if (a.only_side >= 0 && a.only_side != side)
					continue;
				if (side == SIDE_OURS)
					ours_run(cfg, &d, &a, dir, r);
				else
					rocks_run(cfg, &d, &a, dir, r);
				for (int m = 0; m < M_COUNT; m++)
					results[c][side][m][run] = r[m];
				res = r;
				fprintf(stderr, "run %d %-3s %-4s %-7s build %7.1f MB/s  "
						"disk %6.1f MB  scan %7.1f MB/s  gets %9.0f /s\n",
						run + 1, cfg->block_size == 4096 ? "4K" : "64K",
						HsCompressionName(cfg->compression),
						side == SIDE_OURS ? "ours" : "rocksdb",
						res[M_BUILD], res[M_DISK], res[M_SCAN], res[M_GET]);
			}
		}
	}

	print_table(&a);
	if (rmdir(dir) != 0)
		fprintf(stderr, "could not remove %s: %s\n", dir, strerror(errno));
	free(d.keys);
	free(d.values);
	free(d.get_idx);
	return 0;
}
