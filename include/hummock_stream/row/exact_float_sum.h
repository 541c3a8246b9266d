/*-------------------------------------------------------------------------
 *
 * exact_float_sum.h
 *	  The exact sum of finite doubles, which values can be added to and
 *	  taken back out of without any rounding error (exact_float_sum.c).
 *
 * A running float sum kept by adding and subtracting drifts: a large value
 * added and deleted again wipes out the small ones it absorbed (1e20 + 0.1
 * - 1e20 is 0), and every delete leaves rounding residue.  An exact sum
 * has no such history: its value, rounded once, depends only on the values
 * it holds now.
 *
 * Pure C (no server headers), so the unit tests link it.
 *
 * include/hummock_stream/row/exact_float_sum.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_ROW_EXACT_FLOAT_SUM_H
#define HS_ROW_EXACT_FLOAT_SUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A fixed-point integer in units of 2^-1074 (the smallest subnormal), as
 * limbs of 32 bits held in int64 so that carries may wait: limb i weighs
 * 2^(32 i).  Every finite double is a whole number of such units below
 * 2^2098; 70 limbs leave room for 2^63 additions of the largest.
 */
#define HS_EXACT_SUM_LIMBS 70

typedef struct HsExactFloatSum
{
	int64_t		limb[HS_EXACT_SUM_LIMBS];
	int32_t		pending;		/* additions since the carries were settled */
} HsExactFloatSum;

/* The largest encoding: sign, lowest limb, then limbs of 4 bytes. */
#define HS_EXACT_SUM_MAX_ENCODED (3 + 4 * HS_EXACT_SUM_LIMBS)

extern void HsExactFloatSumInit(HsExactFloatSum *s);

/* Add (sign > 0) or take out (sign < 0) finite f. */
extern void HsExactFloatSumAdd(HsExactFloatSum *s, double f, int sign);

extern bool HsExactFloatSumIsZero(HsExactFloatSum *s);

/*
 * The sum rounded to the nearest double (ties to even); false if its
 * magnitude rounds beyond the largest finite double.
 */
extern bool HsExactFloatSumValue(HsExactFloatSum *s, double *value);

/*
 * Encoding (persisted in state tables): a sign byte (0 or 1), the index
 * of the lowest stored limb (2 bytes, little-endian), then the magnitude's
 * limbs from there to its highest non-zero one (4 bytes each, little-
 * endian).  Zero is a 0 sign and no limbs.  Returns the length written
 * into out (at least HS_EXACT_SUM_MAX_ENCODED bytes).
 */
extern size_t HsExactFloatSumEncode(HsExactFloatSum *s, uint8_t *out);

/* false if data is not such an encoding. */
extern bool HsExactFloatSumDecode(HsExactFloatSum *s, const uint8_t *data, size_t len);

#endif							/* HS_ROW_EXACT_FLOAT_SUM_H */
