/*-------------------------------------------------------------------------
 *
 * exact_float_sum.c
 *	  The exact sum of finite doubles (exact_float_sum.h).
 *
 * A finite double is m * 2^e with a 53-bit integer m and e >= -1074, so
 * it is the whole number m << (e + 1074) of units of 2^-1074, fewer than
 * 2098 bits.  The sum keeps that integer in 32-bit limbs held in signed
 * 64-bit words: an addition puts the up to 85 bits of m << (e + 1074) into
 * three limbs, with the value's sign, and carries are settled only when
 * the value is read or every 2^20 additions (a limb then holds less than
 * 2^53 in magnitude, far from overflow).  Settled, every limb but the top
 * one is in [0, 2^32) and the top one carries the sign.
 *
 * Reading rounds once: the highest non-zero limb and the three below it
 * hold the leading 97 to 128 bits, the rest only say whether anything is
 * left below (sticky); round to 53 bits, ties to even.  A sum below 2^-1022
 * (subnormal) is fewer than 52 bits of units and converts exactly.
 *
 * src/row/exact_float_sum.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "hummock_stream/row/exact_float_sum.h"

#define LIMB_BITS 32
#define LIMB_MASK UINT64_C(0xFFFFFFFF)
#define SETTLE_EVERY (1 << 20)

void
HsExactFloatSumInit(HsExactFloatSum *s)
{
	memset(s, 0, sizeof(*s));
}

/* Carry every limb's excess into the next: limbs below the top in [0, 2^32). */
static void
settle(HsExactFloatSum *s)
{
	for (int i = 0; i < HS_EXACT_SUM_LIMBS - 1; i++)
	{
		int64_t		carry = s->limb[i] >> LIMB_BITS;	/* (arithmetic: floor) */

		s->limb[i] -= (int64_t) ((uint64_t) carry << LIMB_BITS);
		s->limb[i + 1] += carry;
	}
	s->pending = 0;
}

void
HsExactFloatSumAdd(HsExactFloatSum *s, double f, int sign)
{
	uint64_t	bits;
	uint64_t	m;
	int			exp_bits;
	int			pos;
	unsigned __int128 t;
	int			i;
	int64_t		sgn;

	memcpy(&bits, &f, sizeof(bits));
	exp_bits = (int) ((bits >> 52) & 0x7FF);
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (exp_bits == 0)
		pos = 0;				/* subnormal or zero: m units of 2^-1074 */
	else
	{
		m |= UINT64_C(1) << 52;
		pos = exp_bits - 1;		/* (e + 1074 with e = exp_bits - 1075) */
	}
	if (m == 0)
		return;
	sgn = ((bits >> 63) != 0) == (sign < 0) ? 1 : -1;
	t = (unsigned __int128) m << (pos % LIMB_BITS);
	i = pos / LIMB_BITS;
	s->limb[i] += sgn * (int64_t) (uint64_t) (t & LIMB_MASK);
	s->limb[i + 1] += sgn * (int64_t) (uint64_t) ((t >> LIMB_BITS) & LIMB_MASK);
	s->limb[i + 2] += sgn * (int64_t) (uint64_t) (t >> (2 * LIMB_BITS));
	if (++s->pending >= SETTLE_EVERY)
		settle(s);
}

bool
HsExactFloatSumIsZero(HsExactFloatSum *s)
{
	settle(s);
	for (int i = 0; i < HS_EXACT_SUM_LIMBS; i++)
		if (s->limb[i] != 0)
			return false;
	return true;
}

/* Settle s and make it its magnitude; true if it was negative. */
static bool
to_magnitude(HsExactFloatSum *s)
{
	settle(s);
	if (s->limb[HS_EXACT_SUM_LIMBS - 1] >= 0)
		return false;
	for (int i = 0; i < HS_EXACT_SUM_LIMBS; i++)
		s->limb[i] = -s->limb[i];
	settle(s);
	return true;
}

bool
HsExactFloatSumValue(HsExactFloatSum *s, double *value)
{
	HsExactFloatSum mag = *s;
	bool		negative = to_magnitude(&mag);
	int			hi = HS_EXACT_SUM_LIMBS - 1;
	int			base;
	unsigned __int128 x = 0;
	bool		sticky = false;
	int			lead;
	int			shift = 0;
	uint64_t	mant;
	double		v;

	while (hi >= 0 && mag.limb[hi] == 0)
		hi--;
	if (hi < 0)
	{
		*value = 0.0;
		return true;
	}
	base = hi >= 3 ? hi - 3 : 0;
	for (int i = hi; i >= base; i--)
		x = (x << LIMB_BITS) | (uint64_t) mag.limb[i];
	for (int i = 0; i < base && !sticky; i++)
		sticky = mag.limb[i] != 0;
	lead = 127;
	while (((x >> lead) & 1) == 0)
		lead--;
	if (lead > 52)
	{
		unsigned __int128 rem;
		unsigned __int128 half;

		shift = lead - 52;
		rem = x & (((unsigned __int128) 1 << shift) - 1);
		half = (unsigned __int128) 1 << (shift - 1);
		mant = (uint64_t) (x >> shift);
		if (rem > half || (rem == half && (sticky || (mant & 1) != 0)))
		{
			mant++;
			if (mant == (UINT64_C(1) << 53))
			{
				mant >>= 1;
				shift++;
			}
		}
	}
	else
		mant = (uint64_t) x;	/* (exact: nothing below, see above) */
	v = ldexp((double) mant, base * LIMB_BITS + shift - 1074);
	if (isinf(v))
		return false;
	*value = negative ? -v : v;
	return true;
}

size_t
HsExactFloatSumEncode(HsExactFloatSum *s, uint8_t *out)
{
	HsExactFloatSum mag = *s;
	bool		negative = to_magnitude(&mag);
	int			lo = 0;
	int			hi = HS_EXACT_SUM_LIMBS - 1;
	size_t		n = 3;

	while (hi >= 0 && mag.limb[hi] == 0)
		hi--;
	while (lo <= hi && mag.limb[lo] == 0)
		lo++;
	if (hi < 0)
	{
		negative = false;
		lo = 0;
	}
	out[0] = negative ? 1 : 0;
	out[1] = (uint8_t) (lo & 0xFF);
	out[2] = (uint8_t) (lo >> 8);
	for (int i = lo; i <= hi; i++)
	{
		uint32_t	l = (uint32_t) mag.limb[i];

		out[n++] = (uint8_t) l;
		out[n++] = (uint8_t) (l >> 8);
		out[n++] = (uint8_t) (l >> 16);
		out[n++] = (uint8_t) (l >> 24);
	}
	return n;
}

bool
HsExactFloatSumDecode(HsExactFloatSum *s, const uint8_t *data, size_t len)
{
	int			lo;
	size_t		n;

	HsExactFloatSumInit(s);
	if (len < 3 || data[0] > 1 || (len - 3) % 4 != 0)
		return false;
	lo = data[1] | (data[2] << 8);
	n = (len - 3) / 4;
	if ((size_t) lo + n > HS_EXACT_SUM_LIMBS - 1)
		return false;
	for (size_t i = 0; i < n; i++)
	{
		const uint8_t *p = data + 3 + 4 * i;
		int64_t		l = (int64_t) ((uint32_t) p[0] | ((uint32_t) p[1] << 8) |
								   ((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24));

		s->limb[lo + i] = data[0] ? -l : l;
	}
	return true;
}
