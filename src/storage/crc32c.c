/*-------------------------------------------------------------------------
 *
 * crc32c.c
 *	  CRC-32C with the SSE4.2 instruction or slicing-by-8 tables.
 *
 * Everything here works on the raw CRC register (the value before the
 * final xor); the public functions convert with ~ at both ends.  The
 * register update U(r, B) over bytes B is affine in r:
 *
 *		U(r, B) = Z_|B|(r) xor U(0, B)
 *
 * where Z_n is the linear map "feed n zero bytes".  The hardware path uses
 * this to run three independent crc32 streams over three consecutive
 * lanes of S bytes (the instruction has a latency of three cycles but a
 * throughput of one per cycle) and then recombine:
 *
 *		U(r, L0 L1 L2) = Z_S(Z_S(U(r, L0)) xor U(0, L1)) xor U(0, L2)
 *
 * Z_S is applied with four 256-entry tables (one per register byte),
 * built once from the images of the 32 basis vectors.
 *
 * The implementation is chosen once, on first use, with cpuid
 * (__builtin_cpu_supports); both produce identical values.
 *
 * src/storage/crc32c.c
 *
 *-------------------------------------------------------------------------
 */
#include <pthread.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define HS_CRC32C_X86 1
#endif

#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/crc32c.h"

#define CRC32C_POLY_REFLECTED	UINT32_C(0x82F63B78)

/* lane sizes of the interleaved hardware path (multiples of 8) */
#define LANE_LARGE		4096
#define LANE_SMALL		256

typedef uint32_t (*CrcUpdateFn) (uint32_t reg, const uint8_t *p, size_t n);

/* slicing-by-8 tables: sb8[k][b] is byte b followed by k zero bytes */
static uint32_t sb8[8][256];

/* Z_S for the two lane sizes: shift_x[j][b] maps byte j of the register */
static uint32_t shift_large[4][256];
static uint32_t shift_small[4][256];

static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static CrcUpdateFn crc_update;
static bool crc_have_hw;

/* ----------------------------------------------------------------
 *		software: slicing-by-8
 * ----------------------------------------------------------------
 */

/* Extends the (inverted) CRC register over p[0..n) with slicing-by-8. */
static uint32_t
crc_update_sw(uint32_t reg, const uint8_t *p, size_t n)
{
	while (n > 0 && ((uintptr_t) p & 7) != 0)
	{
		reg = (reg >> 8) ^ sb8[0][(reg ^ *p++) & 0xFF];
		n--;
	}
	while (n >= 8)
	{
		uint32_t	lo = reg ^ HsGetLE32(p);
		uint32_t	hi = HsGetLE32(p + 4);

		reg = sb8[7][lo & 0xFF] ^ sb8[6][(lo >> 8) & 0xFF] ^
			sb8[5][(lo >> 16) & 0xFF] ^ sb8[4][lo >> 24] ^
			sb8[3][hi & 0xFF] ^ sb8[2][(hi >> 8) & 0xFF] ^
			sb8[1][(hi >> 16) & 0xFF] ^ sb8[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n > 0)
	{
		reg = (reg >> 8) ^ sb8[0][(reg ^ *p++) & 0xFF];
		n--;
	}
	return reg;
}

/* ----------------------------------------------------------------
 *		hardware: SSE4.2, three interleaved streams
 * ----------------------------------------------------------------
 */

/* Applies Z_S to the register with one of the shift tables. */
static inline uint32_t
crc_shift(const uint32_t table[4][256], uint32_t reg)
{
	return table[0][reg & 0xFF] ^ table[1][(reg >> 8) & 0xFF] ^
		table[2][(reg >> 16) & 0xFF] ^ table[3][reg >> 24];
}

#ifdef HS_CRC32C_X86

/* Extends the register over p[0..n) with SSE4.2, in interleaved lanes. */
__attribute__((target("sse4.2")))
static uint32_t
crc_update_hw(uint32_t reg, const uint8_t *p, size_t n)
{
	uint64_t	r64;

	while (n > 0 && ((uintptr_t) p & 7) != 0)
	{
		reg = _mm_crc32_u8(reg, *p++);
		n--;
	}

	/* three lanes of LANE_LARGE bytes, then of LANE_SMALL bytes */
	while (n >= 3 * LANE_LARGE)
	{
		uint64_t	r0 = reg,
					r1 = 0,
					r2 = 0;

		for (size_t i = 0; i < LANE_LARGE; i += 8)
		{
			r0 = _mm_crc32_u64(r0, HsGetLE64(p + i));
			r1 = _mm_crc32_u64(r1, HsGetLE64(p + LANE_LARGE + i));
			r2 = _mm_crc32_u64(r2, HsGetLE64(p + 2 * LANE_LARGE + i));
		}
		reg = crc_shift(shift_large,
						crc_shift(shift_large, (uint32_t) r0) ^ (uint32_t) r1) ^
			(uint32_t) r2;
		p += 3 * LANE_LARGE;
		n -= 3 * LANE_LARGE;
	}
	while (n >= 3 * LANE_SMALL)
	{
		uint64_t	r0 = reg,
					r1 = 0,
					r2 = 0;

		for (size_t i = 0; i < LANE_SMALL; i += 8)
		{
			r0 = _mm_crc32_u64(r0, HsGetLE64(p + i));
			r1 = _mm_crc32_u64(r1, HsGetLE64(p + LANE_SMALL + i));
			r2 = _mm_crc32_u64(r2, HsGetLE64(p + 2 * LANE_SMALL + i));
		}
		reg = crc_shift(shift_small,
						crc_shift(shift_small, (uint32_t) r0) ^ (uint32_t) r1) ^
			(uint32_t) r2;
		p += 3 * LANE_SMALL;
		n -= 3 * LANE_SMALL;
	}

	r64 = reg;
	while (n >= 8)
	{
		r64 = _mm_crc32_u64(r64, HsGetLE64(p));
		p += 8;
		n -= 8;
	}
	reg = (uint32_t) r64;
	while (n > 0)
	{
		reg = _mm_crc32_u8(reg, *p++);
		n--;
	}
	return reg;
}
#endif							/* HS_CRC32C_X86 */

/* ----------------------------------------------------------------
 *		initialization
 * ----------------------------------------------------------------
 */

/* Build the four byte tables of Z_lane from the software update. */
static void
build_shift_table(uint32_t table[4][256], size_t lane)
{
	static const uint8_t zeros[LANE_LARGE];
	uint32_t	basis[32];

	for (int b = 0; b < 32; b++)
	{
		uint32_t	reg = UINT32_C(1) << b;

		for (size_t done = 0; done < lane; done += sizeof(zeros))
		{
			size_t		chunk = lane - done < sizeof(zeros) ?
				lane - done : sizeof(zeros);

			reg = crc_update_sw(reg, zeros, chunk);
		}
		basis[b] = reg;
	}
	for (int j = 0; j < 4; j++)
	{
		table[j][0] = 0;
		for (int v = 1; v < 256; v++)
			table[j][v] = table[j][v & (v - 1)] ^
				basis[8 * j + __builtin_ctz(v)];
	}
}

/* Builds the tables and picks the implementation (once). */
static void
crc32c_init(void)
{
	for (int b = 0; b < 256; b++)
	{
		uint32_t	reg = (uint32_t) b;

		for (int k = 0; k < 8; k++)
			reg = (reg >> 1) ^ ((reg & 1) ? CRC32C_POLY_REFLECTED : 0);
		sb8[0][b] = reg;
	}
	for (int k = 1; k < 8; k++)
		for (int b = 0; b < 256; b++)
			sb8[k][b] = (sb8[k - 1][b] >> 8) ^ sb8[0][sb8[k - 1][b] & 0xFF];

	build_shift_table(shift_large, LANE_LARGE);
	build_shift_table(shift_small, LANE_SMALL);

	crc_update = crc_update_sw;
	crc_have_hw = false;
#ifdef HS_CRC32C_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("sse4.2"))
	{
		crc_update = crc_update_hw;
		crc_have_hw = true;
	}
#endif
}

/* ----------------------------------------------------------------
 *		public entry points
 * ----------------------------------------------------------------
 */

uint32_t
HsCrc32cExtend(uint32_t crc, const void *data, size_t len)
{
	pthread_once(&crc_once, crc32c_init);
	return ~crc_update(~crc, (const uint8_t *) data, len);
}

uint32_t
HsCrc32cExtendSoftware(uint32_t crc, const void *data, size_t len)
{
	pthread_once(&crc_once, crc32c_init);
	return ~crc_update_sw(~crc, (const uint8_t *) data, len);
}

uint32_t
HsCrc32cExtendHardware(uint32_t crc, const void *data, size_t len)
{
	pthread_once(&crc_once, crc32c_init);
#ifdef HS_CRC32C_X86
	if (crc_have_hw)
		return ~crc_update_hw(~crc, (const uint8_t *) data, len);
#endif
	return ~crc_update_sw(~crc, (const uint8_t *) data, len);
}
