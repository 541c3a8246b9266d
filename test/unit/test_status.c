/*-------------------------------------------------------------------------
 *
 * test_status.c
 *	  Unit tests of status.c and the key helpers of key.h.
 *
 * test/unit/test_status.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "hummock_stream/storage/key.h"
#include "hummock_stream/storage/status.h"

static void
test_status_corruption_detail(void **state)
{
	HsStatus	st;

	HsStatusClear(&st);
	assert_true(HsStatusOk(&st));
	assert_false(HsStatusCorruption(&st, "1.sst", 42, "bad block checksum",
									"0x1", "0x2"));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_string_equal(st.msg, "bad block checksum");
	assert_string_equal(st.detail,
						"File \"1.sst\", offset 42: expected 0x1, found 0x2.");
}

/* A wrapped status takes the new code, a prefix and the inner detail. */
static void
test_status_wrap(void **state)
{
	HsStatus	inner;
	HsStatus	st;

	HsStatusSet(&inner, HS_INVALID_ARGUMENT, "bad thing %d", 7);
	HsStatusDetail(&inner, "It was bad.");
	assert_false(HsStatusWrap(&st, HS_CORRUPTION, &inner, "reading %s", "x"));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_string_equal(st.msg, "reading x: bad thing 7");
	assert_string_equal(st.detail, "It was bad.");

	/* in place */
	assert_false(HsStatusWrap(&inner, HS_NOT_FOUND, &inner, "outer"));
	assert_int_equal(inner.code, HS_NOT_FOUND);
	assert_string_equal(inner.msg, "outer: bad thing 7");
	assert_string_equal(inner.detail, "It was bad.");
}

static void
test_full_key_order(void **state)
{
	uint8_t		a[64],
				b[64];
	size_t		la,
				lb;

	/* same user key: newer epoch first */
	la = HsFullKeyEncode(a, 7, "k", 1, 200);
	lb = HsFullKeyEncode(b, 7, "k", 1, 100);
	assert_true(HsFullKeyCompare(HsSliceMake(a, la), HsSliceMake(b, lb)) < 0);
	assert_int_equal(HsFullKeyEpoch(HsSliceMake(a, la)), 200);

	/* a user key that is a prefix of another sorts first, whatever the epochs */
	la = HsFullKeyEncode(a, 7, "k", 1, 1);
	lb = HsFullKeyEncode(b, 7, "k\x00", 2, HS_EPOCH_MAX);
	assert_true(HsFullKeyCompare(HsSliceMake(a, la), HsSliceMake(b, lb)) < 0);

	/* table id dominates */
	la = HsFullKeyEncode(a, 6, "z", 1, 1);
	lb = HsFullKeyEncode(b, 7, "a", 1, 1);
	assert_true(HsFullKeyCompare(HsSliceMake(a, la), HsSliceMake(b, lb)) < 0);
	assert_int_equal(HsFullKeyTableId(HsSliceMake(b, lb)), 7);
}

static void
test_epoch_time(void **state)
{
	HsEpoch		e = HsEpochFromUnixMs(HS_EPOCH_UNIX_MS_BASE + 5000, 3);

	assert_int_equal(e, ((uint64_t) 5000 << 16) | 3);
	assert_int_equal(HsEpochToUnixMs(e), HS_EPOCH_UNIX_MS_BASE + 5000);
}

static const struct CMUnitTest status_tests[] = {
	cmocka_unit_test(test_status_corruption_detail),
	cmocka_unit_test(test_status_wrap),
	cmocka_unit_test(test_full_key_order),
	cmocka_unit_test(test_epoch_time),
};

UNIT_SUITE(status)
{
	*tests = status_tests;
	return sizeof(status_tests) / sizeof(status_tests[0]);
}
