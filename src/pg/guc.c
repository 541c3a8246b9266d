/*-------------------------------------------------------------------------
 *
 * guc.c
 *	  Definition of the hummock_stream.* configuration parameters.
 *
 * Every parameter lives under the reserved prefix "hummock_stream", so a
 * misspelt hummock_stream.* setting is reported instead of silently
 * accepted.  Sizes of shared structures and worker counts are
 * PGC_POSTMASTER; intervals are PGC_SIGHUP; what a session may choose for
 * itself (consistency, query epoch) is PGC_USERSET.
 *
 * src/pg/guc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/pg/guc.h"

int			hs_sst_block_size_kb = 64;
int			hs_sst_compression = 1;	/* lz4 */
int			hs_sst_zstd_level = 3;
int			hs_sst_bloom_bits_per_key = 10;

/* Values are the persisted compression kinds of the SST format. */
static const struct config_enum_entry compression_options[] = {
	{"none", 0, false},
	{"lz4", 1, false},
	{"zstd", 2, false},
	{NULL, 0, false}
};

/*
 * Define every hummock_stream.* parameter.
 */
void
HsGucDefine(void)
{
	DefineCustomIntVariable("hummock_stream.sst_block_size",
							"Target size of an SST data block before compression.",
							NULL,
							&hs_sst_block_size_kb,
							64, 1, 1024,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("hummock_stream.sst_compression",
							 "Compression of SST data blocks.",
							 "One of none, lz4 or zstd; applies to SSTs built from now on.",
							 &hs_sst_compression,
							 1,
							 compression_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.sst_zstd_level",
							"Compression level used when hummock_stream.sst_compression is zstd.",
							NULL,
							&hs_sst_zstd_level,
							3, 1, 19,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("hummock_stream.sst_bloom_bits_per_key",
							"Bits per key of the bloom filter of each SST (0 disables the filter).",
							NULL,
							&hs_sst_bloom_bits_per_key,
							10, 0, 64,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved(HS_EXTENSION_NAME);
}
