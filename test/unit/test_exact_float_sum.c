/*-------------------------------------------------------------------------
 *
 * test_exact_float_sum.c
 *	  Unit tests of src/row/exact_float_sum.c: one rounding of the exact
 *	  sum (a pair's is IEEE addition's), values taken back out leave no
 *	  trace, the encoding round-trips, overflow is reported.
 *
 * test/unit/test_exact_float_sum.c
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "hummock_stream/row/exact_float_sum.h"

/* A random finite double over the whole range (subnormals, both signs). */
static double
random_double(uint64_t *rng)
{
	for (;;)
	{
		uint64_t	bits = unit_rand(rng);
		double		d;

		/* half of them from a narrow range, where sums cancel and tie */
		if (bits & 1)
			bits = (bits & UINT64_C(0x800FFFFFFFFFFFFF)) |
				((uint64_t) (1000 + (bits >> 53) % 48) << 52);
		memcpy(&d, &bits, sizeof(d));
		if (isfinite(d))
			return d;
	}
}

static double
value_of(HsExactFloatSum *s)
{
	double		v = -1;

	assert_true(HsExactFloatSumValue(s, &v));
	return v;
}

/* One addition is rounded once by IEEE: so must the sum of two be. */
static void
test_exact_sum_pairs(void **state)
{
	uint64_t	rng = 42;

	for (int i = 0; i < 200000; i++)
	{
		double		a = random_double(&rng);
		double		b = random_double(&rng);
		double		want = a + b;
		double		got;
		HsExactFloatSum s;

		HsExactFloatSumInit(&s);
		HsExactFloatSumAdd(&s, a, +1);
		HsExactFloatSumAdd(&s, b, +1);
		if (isinf(want))
		{
			assert_false(HsExactFloatSumValue(&s, &got));
			continue;
		}
		got = value_of(&s);
		if (memcmp(&got, &want, sizeof(got)) != 0 && !(got == 0 && want == 0))
			fail_msg("%a + %a: got %a, want %a", a, b, got, want);
	}
}

/* Large values added and taken out again leave the small ones exact. */
static void
test_exact_sum_cancellation(void **state)
{
	HsExactFloatSum s;

	HsExactFloatSumInit(&s);
	HsExactFloatSumAdd(&s, 0.1, +1);
	HsExactFloatSumAdd(&s, 1e20, +1);
	HsExactFloatSumAdd(&s, 0.2, +1);
	HsExactFloatSumAdd(&s, 1e300, +1);
	HsExactFloatSumAdd(&s, 1e20, -1);
	HsExactFloatSumAdd(&s, 1e300, -1);
	assert_true(value_of(&s) == 0.1 + 0.2);
	HsExactFloatSumAdd(&s, 0.2, -1);
	assert_true(value_of(&s) == 0.1);
	HsExactFloatSumAdd(&s, -0.1, +1);
	assert_true(HsExactFloatSumIsZero(&s));
	assert_true(value_of(&s) == 0);
	/* a sum that goes negative and back */
	HsExactFloatSumAdd(&s, 2.5, -1);
	assert_true(value_of(&s) == -2.5);
	HsExactFloatSumAdd(&s, DBL_TRUE_MIN, +1);
	assert_true(value_of(&s) == -2.5);	/* (rounded away: far below) */
	HsExactFloatSumAdd(&s, 2.5, +1);
	assert_true(value_of(&s) == DBL_TRUE_MIN);
}

/* Any values added, then taken out in another order: exactly zero. */
static void
test_exact_sum_retraction(void **state)
{
	uint64_t	rng = 7;
	int			n = 5000;
	double	   *v = malloc(sizeof(double) * n);
	HsExactFloatSum s;

	HsExactFloatSumInit(&s);
	for (int i = 0; i < n; i++)
	{
		v[i] = random_double(&rng) / 4;		/* (no overflow in any order) */
		HsExactFloatSumAdd(&s, v[i], +1);
	}
	for (int i = n - 1; i > 0; i--)
	{
		int			j = (int) (unit_rand(&rng) % (uint64_t) (i + 1));
		double		t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
	for (int i = 0; i < n - 1; i++)
		HsExactFloatSumAdd(&s, v[i], -1);
	assert_true(value_of(&s) == v[n - 1]);
	HsExactFloatSumAdd(&s, v[n - 1], -1);
	assert_true(HsExactFloatSumIsZero(&s));
	free(v);
}

/* More additions than carries may wait for, and a sum past DBL_MAX. */
static void
test_exact_sum_long_and_overflow(void **state)
{
	HsExactFloatSum s;
	double		got;

	HsExactFloatSumInit(&s);
	for (int i = 0; i < 3000000; i++)
		HsExactFloatSumAdd(&s, 1.0, +1);
	assert_true(value_of(&s) == 3000000.0);
	HsExactFloatSumInit(&s);
	HsExactFloatSumAdd(&s, DBL_MAX, +1);
	HsExactFloatSumAdd(&s, DBL_MAX, +1);
	assert_false(HsExactFloatSumValue(&s, &got));
	HsExactFloatSumAdd(&s, DBL_MAX, -1);
	assert_true(value_of(&s) == DBL_MAX);
	HsExactFloatSumAdd(&s, -DBL_MAX, +1);
	HsExactFloatSumAdd(&s, -DBL_MAX, +1);
	HsExactFloatSumAdd(&s, -DBL_MAX, +1);
	assert_false(HsExactFloatSumValue(&s, &got));
}

/* The encoding keeps the exact sum; what is not one is refused. */
static void
test_exact_sum_encoding(void **state)
{
	uint64_t	rng = 99;
	uint8_t		buf[HS_EXACT_SUM_MAX_ENCODED];

	for (int round = 0; round < 2000; round++)
	{
		HsExactFloatSum s;
		HsExactFloatSum d;
		size_t		len;
		int			n = (int) (unit_rand(&rng) % 8);
		double		a;
		double		b;

		HsExactFloatSumInit(&s);
		for (int i = 0; i < n; i++)
			HsExactFloatSumAdd(&s, random_double(&rng) / 8, (unit_rand(&rng) & 1) ? 1 : -1);
		len = HsExactFloatSumEncode(&s, buf);
		assert_true(len <= sizeof(buf));
		assert_true(HsExactFloatSumDecode(&d, buf, len));
		assert_true(HsExactFloatSumValue(&s, &a));
		assert_true(HsExactFloatSumValue(&d, &b));
		assert_memory_equal(&a, &b, sizeof(a));
		/* the decoded sum goes on exactly: take one more value through */
		HsExactFloatSumAdd(&d, 0.375, +1);
		HsExactFloatSumAdd(&d, 0.375, -1);
		assert_true(HsExactFloatSumValue(&d, &b));
		assert_memory_equal(&a, &b, sizeof(a));
	}
	{
		HsExactFloatSum d;
		uint8_t		zero[3] = {0, 0, 0};
		uint8_t		bad_sign[3] = {2, 0, 0};
		uint8_t		bad_len[5] = {0, 0, 0, 1, 0};
		uint8_t		too_high[7] = {0, 69, 0, 1, 0, 0, 0};

		assert_true(HsExactFloatSumDecode(&d, zero, 3));
		assert_true(HsExactFloatSumIsZero(&d));
		assert_false(HsExactFloatSumDecode(&d, bad_sign, 3));
		assert_false(HsExactFloatSumDecode(&d, bad_len, 5));
		assert_false(HsExactFloatSumDecode(&d, too_high, 7));
		assert_false(HsExactFloatSumDecode(&d, zero, 2));
	}
}

static const struct CMUnitTest exact_float_sum_tests[] = {
	cmocka_unit_test(test_exact_sum_pairs),
	cmocka_unit_test(test_exact_sum_cancellation),
	cmocka_unit_test(test_exact_sum_retraction),
	cmocka_unit_test(test_exact_sum_long_and_overflow),
	cmocka_unit_test(test_exact_sum_encoding),
};

UNIT_SUITE(exact_float_sum)
{
	*tests = exact_float_sum_tests;
	return sizeof(exact_float_sum_tests) / sizeof(exact_float_sum_tests[0]);
}
