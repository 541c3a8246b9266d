/*-------------------------------------------------------------------------
 *
 * guc.h
 *	  Configuration parameters of hummock_stream (prefix hummock_stream.*).
 *
 * include/hummock_stream/pg/guc.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_PG_GUC_H
#define HS_PG_GUC_H

/* SST building (issue: storage core) */
extern int	hs_sst_block_size_kb;
extern int	hs_sst_compression;		/* an HsCompressionKind value */
extern int	hs_sst_zstd_level;
extern int	hs_sst_bloom_bits_per_key;

/* versions */
extern int	hs_time_travel_retention_ms;

extern void HsGucDefine(void);

#endif							/* HS_PG_GUC_H */
