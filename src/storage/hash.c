/*-------------------------------------------------------------------------
 *
 * hash.c
 *	  HsHash64: a multiply-fold 64-bit hash.
 *
 * Structure:
 *	- the seed is scrambled once;
 *	- inputs of up to 16 bytes are read as two (possibly overlapping)
 *	  words a and b that together cover every byte, so equal-length
 *	  inputs that differ anywhere give different (a, b);
 *	- longer inputs are folded 16 bytes at a time into the state (three
 *	  independent states for runs of 48 bytes, for instruction-level
 *	  parallelism), and the last 16 bytes (overlapping if need be) become
 *	  a and b;
 *	- the length and the state are mixed in by two final multiplications.
 *
 * The constants are the first hexadecimal digits of the fractional parts
 * of pi and e.  Output is persisted in bloom filters: never change this
 * function.
 *
 * src/storage/hash.c
 *
 *-------------------------------------------------------------------------
 */
#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/hash.h"

#define HK0		UINT64_C(0x243F6A8885A308D3)
#define HK1		UINT64_C(0x13198A2E03707344)
#define HK2		UINT64_C(0xA4093822299F31D0)
#define HK3		UINT64_C(0x082EFA98EC4E6C89)
#define HK4		UINT64_C(0xB7E151628AED2A6B)

/* 64x64 -> 128 multiplication, halves folded with xor. */
static inline uint64_t
fold_mul(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t) a * b;

	return (uint64_t) r ^ (uint64_t) (r >> 64);
}

uint64_t
HsHash64(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = (const uint8_t *) data;
	uint64_t	s = seed ^ fold_mul(seed ^ HK0, HK4);
	uint64_t	a,
				b;
	__uint128_t r;

	if (len <= 16)
	{
		if (len >= 8)
		{
			a = HsGetLE64(p);
			b = HsGetLE64(p + len - 8);
		}
		else if (len >= 4)
		{
			a = HsGetLE32(p);
			b = HsGetLE32(p + len - 4);
		}
		else if (len > 0)
		{
			a = ((uint64_t) p[0] << 16) | ((uint64_t) p[len >> 1] << 8) |
				p[len - 1];
			b = 0;
		}
		else
			a = b = 0;
	}
	else
	{
		size_t		n = len;

		if (n > 48)
		{
			uint64_t	s1 = s ^ HK2,
						s2 = s ^ HK3;

			do
			{
				s = fold_mul(HsGetLE64(p) ^ HK1, HsGetLE64(p + 8) ^ s);
				s1 = fold_mul(HsGetLE64(p + 16) ^ HK2, HsGetLE64(p + 24) ^ s1);
				s2 = fold_mul(HsGetLE64(p + 32) ^ HK3, HsGetLE64(p + 40) ^ s2);
				p += 48;
				n -= 48;
			} while (n > 48);
			s ^= s1 ^ s2;
		}
		while (n > 16)
		{
			s = fold_mul(HsGetLE64(p) ^ HK1, HsGetLE64(p + 8) ^ s);
			p += 16;
			n -= 16;
		}
		/* the last 16 bytes; they may overlap bytes already folded */
		a = HsGetLE64(p + n - 16);
		b = HsGetLE64(p + n - 8);
	}

	r = (__uint128_t) (a ^ HK1) * (b ^ s);
	a = (uint64_t) r;
	b = (uint64_t) (r >> 64);
	return fold_mul(a ^ HK0 ^ (uint64_t) len, b ^ HK1);
}
