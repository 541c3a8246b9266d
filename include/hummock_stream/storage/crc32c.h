/*-------------------------------------------------------------------------
 *
 * crc32c.h
 *	  CRC-32C (Castagnoli) checksums of the storage core.
 *
 * The values are those of PostgreSQL's pg_crc32c: reflected polynomial
 * 0x82F63B78, initial register 0xFFFFFFFF, final xor 0xFFFFFFFF, so
 * HsCrc32c("123456789", 9) == 0xE3069283.
 *
 * Two implementations compute the same function:
 *	- the SSE4.2 crc32 instruction, three independent streams interleaved
 *	  over large inputs and recombined with precomputed shift tables, used
 *	  when the CPU has it (checked once at run time with cpuid);
 *	- slicing-by-8 tables otherwise.
 *
 * Masked CRCs.  A CRC stored next to (or inside) data that is itself
 * checksummed later has a weakness: the CRC of a string followed by its own
 * CRC is a constant, so a block that embeds another checksummed record
 * checks out trivially.  Following LevelDB, every CRC persisted in an SST
 * is stored *masked* (rotated and offset by a constant); readers compare
 * the stored value with HsCrc32cMask(computed).  The mask is part of the
 * on-disk format: never change it.
 *
 * include/hummock_stream/storage/crc32c.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_CRC32C_H
#define HS_STORAGE_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Extend a finished CRC with more data:
 *		HsCrc32cExtend(HsCrc32c(a), b) == HsCrc32c(a || b)
 * and HsCrc32cExtend(0, d) == HsCrc32c(d).
 */
extern uint32_t HsCrc32cExtend(uint32_t crc, const void *data, size_t len);

/* The CRC-32C of data. */
static inline uint32_t
HsCrc32c(const void *data, size_t len)
{
	return HsCrc32cExtend(0, data, len);
}

/* Both implementations, exposed for tests and benchmarks. */
extern uint32_t HsCrc32cExtendSoftware(uint32_t crc, const void *data,
									   size_t len);
/* The SSE4.2 one; the software one on a CPU without SSE4.2. */
extern uint32_t HsCrc32cExtendHardware(uint32_t crc, const void *data,
									   size_t len);

/* Masking of persisted CRCs (never change). */
#define HS_CRC32C_MASK_DELTA	UINT32_C(0x6C8E9CF5)

/* Returns the masked form of crc, as persisted. */
static inline uint32_t
HsCrc32cMask(uint32_t crc)
{
	return ((crc >> 13) | (crc << 19)) + HS_CRC32C_MASK_DELTA;
}

/* Returns the CRC a persisted masked value stands for. */
static inline uint32_t
HsCrc32cUnmask(uint32_t masked)
{
	uint32_t	rot = masked - HS_CRC32C_MASK_DELTA;

	return (rot << 13) | (rot >> 19);
}

#endif							/* HS_STORAGE_CRC32C_H */
