/*-------------------------------------------------------------------------
 *
 * gen_corpus.c
 *	  Writes the seed corpus of fuzz_sst: small valid SSTs.
 *
 * One file per compression kind and shape (a few blocks, tiny blocks with
 * restart interval 1, no filter, several tables with tombstones, an empty
 * file), each prefixed with the harness's flags byte; every file is
 * written twice, with checksums verified (flags 0) and not (flags 1).
 *
 * usage: gen_corpus DIR
 *
 * test/fuzz/gen_corpus.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/sst_builder.h"

typedef struct Shape
{
	const char *name;
	int			entries;
	uint32_t	block_size;
	uint32_t	restart_interval;
	uint32_t	bloom_bits;
	int			tables;
} Shape;

static const Shape shapes[] = {
	{"blocks", 60, 256, 4, 10, 1},
	{"tiny", 12, 64, 1, 10, 1},
	{"nofilter", 20, 128, 16, 0, 1},
	{"tables", 40, 200, 3, 8, 3},
	{"empty", 0, 256, 16, 10, 1},
};

static void
die(const char *what, const HsStatus *st)
{
	fprintf(stderr, "gen_corpus: %s: %s (%s)\n", what, st->msg, st->detail);
	exit(1);
}

static void
build(const char *path, const Shape *s, HsCompression kind)
{
	HsEnv	   *env = HsEnvPosix();
	HsSstBuilderOptions opts;
	HsSstBuilder *b;
	HsSstMeta		meta;
	HsStatus	st;
	int			per_table = s->tables ? s->entries / s->tables : 0;

	HsSstBuilderOptionsInit(&opts);
	opts.block_size = s->block_size;
	opts.restart_interval = s->restart_interval;
	opts.bloom_bits_per_key = s->bloom_bits;
	opts.compression = kind;
	b = HsSstBuilderCreate(env, path, &opts, &st);
	if (b == NULL)
		die("create", &st);
	for (int i = 0; i < s->entries; i++)
	{
		uint8_t		key[64];
		uint8_t		value[64];
		char		uk[32];
		int			t = per_table ? i / per_table : 0;
		int			j = per_table ? i % per_table : i;
		size_t		klen;
		size_t		vlen;

		/* two versions of each user key */
		snprintf(uk, sizeof(uk), "user%03d", j / 2);
		klen = HsFullKeyEncode(key, (HsTableId) (10 + t), uk, strlen(uk),
							   (HsEpoch) (100 - j % 2));
		if (i % 5 == 4)
		{
			value[0] = HS_VALUE_DELETE;
			vlen = 1;
		}
		else
		{
			value[0] = HS_VALUE_PUT;
			vlen = 1 + (size_t) snprintf((char *) value + 1, sizeof(value) - 1,
										 "value %d value %d", i, i);
		}
		if (!HsSstBuilderAdd(b, HsSliceMake(key, klen), HsSliceMake(value, vlen),
						   &st))
			die("add", &st);
	}
	if (!HsSstBuilderFinish(b, &meta, &st))
		die("finish", &st);
	HsSstMetaFree(env, &meta);
}

/* Copy the file at src to dst with a flags byte in front. */
static void
write_seed(const char *src, const char *dst, uint8_t flags)
{
	FILE	   *in = fopen(src, "rb");
	FILE	   *out = fopen(dst, "wb");
	int			ch;

	if (in == NULL || out == NULL)
	{
		perror(dst);
		exit(1);
	}
	fputc(flags, out);
	while ((ch = fgetc(in)) != EOF)
		fputc(ch, out);
	fclose(in);
	fclose(out);
}

int
main(int argc, char **argv)
{
	static const HsCompression kinds[] = {
		HS_COMPRESSION_NONE, HS_COMPRESSION_LZ4, HS_COMPRESSION_ZSTD
	};
	char		tmp[4096];
	char		seed[4096];
	int			n = 0;

	if (argc != 2)
	{
		fprintf(stderr, "usage: gen_corpus DIR\n");
		return 2;
	}
	snprintf(tmp, sizeof(tmp), "%s/.tmp.sst", argv[1]);
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (size_t k = 0; k < 3; k++)
		{
			build(tmp, &shapes[s], kinds[k]);
			for (uint8_t flags = 0; flags < 2; flags++)
			{
				snprintf(seed, sizeof(seed), "%s/%s_%s_%u", argv[1],
						 shapes[s].name, HsCompressionName(kinds[k]), flags);
				write_seed(tmp, seed, flags);
				n++;
			}
		}
	remove(tmp);
	printf("gen_corpus: wrote %d seeds to %s\n", n, argv[1]);
	return 0;
}
