/*-------------------------------------------------------------------------
 *
 * test_coding.c
 *	  Unit tests of coding.c: varints, fixed integers, HsBuf, HsCursor.
 *
 * test/unit/test_coding.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "unit.h"
#include "hummock_stream/storage/coding.h"

static const uint64_t edge_values[] = {
	0, 1, 127, 128, 255, 256, 16383, 16384, 2097151, 2097152,
	268435455, 268435456, UINT32_MAX - 1, UINT32_MAX,
	(uint64_t) UINT32_MAX + 1, UINT64_C(1) << 35, UINT64_C(1) << 42,
	UINT64_C(1) << 49, UINT64_C(1) << 56, UINT64_C(1) << 63,
	UINT64_MAX - 1, UINT64_MAX
};

static void
test_varint_round_trip(void **state)
{
	uint64_t	rs = 7;

	for (int round = 0; round < 20000; round++)
	{
		uint64_t	v;
		uint8_t		buf[HS_MAX_VARINT64_LEN];
		uint8_t    *end;
		const uint8_t *q;
		uint64_t	got64;
		uint32_t	got32;

		if (round < (int) (sizeof(edge_values) / sizeof(edge_values[0])))
			v = edge_values[round];
		else
			v = unit_rand(&rs) >> (unit_rand(&rs) % 64);

		end = HsEncodeVarint64(buf, v);
		assert_int_equal(end - buf, HsVarintLength(v));
		q = HsDecodeVarint64(buf, end, &got64);
		assert_ptr_equal(q, end);
		assert_true(got64 == v);

		if (v <= UINT32_MAX)
		{
			uint8_t    *end32 = HsEncodeVarint32(buf, (uint32_t) v);

			assert_ptr_equal(end32, end);
			q = HsDecodeVarint32(buf, end32, &got32);
			assert_ptr_equal(q, end32);
			assert_int_equal(got32, (uint32_t) v);
		}
		else
		{
			/* too large for a varint32 */
			assert_null(HsDecodeVarint32(buf, end, &got32));
		}

		/* every strict prefix is truncated */
		for (uint8_t *cut = buf; cut < end; cut++)
		{
			assert_null(HsDecodeVarint64(buf, cut, &got64));
			assert_null(HsDecodeVarint32(buf, cut, &got32));
		}
	}
}

static void
test_varint_rejects_malformed(void **state)
{
	uint8_t		buf[16];
	uint32_t	v32;
	uint64_t	v64;

	/* continuation bits forever */
	memset(buf, 0x80, sizeof(buf));
	assert_null(HsDecodeVarint32(buf, buf + sizeof(buf), &v32));
	assert_null(HsDecodeVarint64(buf, buf + sizeof(buf), &v64));

	/* 5th byte of a varint32 carrying more than 4 bits */
	memcpy(buf, "\xff\xff\xff\xff\x10", 5);
	assert_null(HsDecodeVarint32(buf, buf + 5, &v32));
	memcpy(buf, "\xff\xff\xff\xff\x0f", 5);
	assert_non_null(HsDecodeVarint32(buf, buf + 5, &v32));
	assert_int_equal(v32, UINT32_MAX);

	/* 10th byte of a varint64 above 1 */
	memset(buf, 0xff, 9);
	buf[9] = 0x02;
	assert_null(HsDecodeVarint64(buf, buf + 10, &v64));
	buf[9] = 0x01;
	assert_non_null(HsDecodeVarint64(buf, buf + 10, &v64));
	assert_true(v64 == UINT64_MAX);

	/* empty input */
	assert_null(HsDecodeVarint32(buf, buf, &v32));
	assert_null(HsDecodeVarint64(buf, buf, &v64));
}

static void
test_fixed_and_buf(void **state)
{
	HsBuf		b;
	HsCursor	c;
	uint8_t		byte;
	uint32_t	u32;
	uint64_t	u64;
	HsSlice		s;

	HsBufInit(&b, HsEnvPosix());
	HsBufPutLE32(&b, 0x01020304);
	assert_memory_equal(b.data, "\x04\x03\x02\x01", 4);
	HsBufPutLE64(&b, UINT64_C(0x1122334455667788));
	HsBufPutVarint32(&b, 300);
	HsBufPutVarint64(&b, UINT64_C(1) << 40);
	HsBufPutByte(&b, 0xAB);
	HsBufPutLengthPrefixed(&b, HsSliceMake("hello", 5));
	for (int i = 0; i < 10000; i++)
		HsBufPutByte(&b, (uint8_t) i);

	HsCursorInit(&c, HsBufSlice(&b));
	assert_true(HsCursorGetLE32(&c, &u32));
	assert_int_equal(u32, 0x01020304);
	assert_true(HsCursorGetLE64(&c, &u64));
	assert_true(u64 == UINT64_C(0x1122334455667788));
	assert_true(HsCursorGetVarint32(&c, &u32));
	assert_int_equal(u32, 300);
	assert_true(HsCursorGetVarint64(&c, &u64));
	assert_true(u64 == UINT64_C(1) << 40);
	assert_true(HsCursorGetByte(&c, &byte));
	assert_int_equal(byte, 0xAB);
	assert_true(HsCursorGetLengthPrefixed(&c, &s));
	assert_int_equal(s.len, 5);
	assert_memory_equal(s.data, "hello", 5);
	assert_int_equal(HsCursorRemaining(&c), 10000);
	assert_true(HsCursorGetBytes(&c, 10000, &s));
	assert_int_equal(s.data[9999], (uint8_t) 9999);
	/* reading past the end fails and latches */
	assert_false(HsCursorGetByte(&c, &byte));
	assert_false(c.ok);
	assert_int_equal(HsCursorRemaining(&c), 0);

	/* a length prefix longer than the data */
	HsBufReset(&b);
	HsBufPutVarint32(&b, 10);
	HsBufAppend(&b, "abc", 3);
	HsCursorInit(&c, HsBufSlice(&b));
	assert_false(HsCursorGetLengthPrefixed(&c, &s));

	/* hex and printf */
	HsBufReset(&b);
	HsBufAppendHex(&b, HsSliceMake("\x00\x7f\xff", 3), 64);
	assert_string_equal((char *) b.data, "007fff");
	HsBufReset(&b);
	HsBufAppendHex(&b, HsSliceMake("\x01\x02\x03", 3), 2);
	assert_string_equal((char *) b.data, "0102...");
	HsBufPrintf(&b, " %d-%s", 42, "x");
	assert_string_equal((char *) b.data, "0102... 42-x");
	assert_int_equal(b.len, strlen("0102... 42-x"));
	HsBufFree(&b);
}

static const struct CMUnitTest coding_tests[] = {
	cmocka_unit_test(test_varint_round_trip),
	cmocka_unit_test(test_varint_rejects_malformed),
	cmocka_unit_test(test_fixed_and_buf),
};

UNIT_SUITE(coding)
{
	*tests = coding_tests;
	return sizeof(coding_tests) / sizeof(coding_tests[0]);
}
