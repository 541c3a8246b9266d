/*-------------------------------------------------------------------------
 *
 * test_crc32c.c
 *	  Unit tests of crc32c.c: known vectors, hardware vs software, masks.
 *
 * test/unit/test_crc32c.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "hummock_stream/storage/crc32c.h"

/* Bitwise reference: the definition, one bit at a time. */
static uint32_t
crc_bitwise(const uint8_t *p, size_t n)
{
	uint32_t	reg = 0xFFFFFFFF;

	for (size_t i = 0; i < n; i++)
	{
		reg ^= p[i];
		for (int k = 0; k < 8; k++)
			reg = (reg >> 1) ^ ((reg & 1) ? 0x82F63B78 : 0);
	}
	return ~reg;
}

static void
test_crc32c_vectors(void **state)
{
	uint8_t		buf[32];

	assert_int_equal(HsCrc32c("123456789", 9), 0xE3069283);
	assert_int_equal(HsCrc32cExtendSoftware(0, "123456789", 9), 0xE3069283);
	assert_int_equal(HsCrc32cExtendHardware(0, "123456789", 9), 0xE3069283);
	assert_int_equal(HsCrc32c("", 0), 0);

	/* RFC 3720 (iSCSI) B.4 test patterns */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(HsCrc32c(buf, 32), 0x8A9136AA);
	memset(buf, 0xFF, sizeof(buf));
	assert_int_equal(HsCrc32c(buf, 32), 0x62A8AB43);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t) i;
	assert_int_equal(HsCrc32c(buf, 32), 0x46DD794E);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t) (31 - i);
	assert_int_equal(HsCrc32c(buf, 32), 0x113FDB5C);
}

/* Every length and alignment, and long inputs through the 3-way path. */
static void
test_crc32c_hw_sw_agree(void **state)
{
	size_t		max = 3 * 4096 * 3 + 777;
	uint8_t    *buf = malloc(max + 8);
	uint64_t	rs = 42;

	for (size_t i = 0; i < max + 8; i++)
		buf[i] = (uint8_t) unit_rand(&rs);

	for (size_t len = 0; len < 2000; len++)
	{
		size_t		off = len % 8;
		uint32_t	ref = crc_bitwise(buf + off, len);

		assert_int_equal(HsCrc32cExtendSoftware(0, buf + off, len), ref);
		assert_int_equal(HsCrc32cExtendHardware(0, buf + off, len), ref);
		assert_int_equal(HsCrc32c(buf + off, len), ref);
	}
	for (size_t len = 2000; len <= max; len += 1 + unit_rand(&rs) % 3000)
	{
		size_t		off = unit_rand(&rs) % 8;
		uint32_t	ref = crc_bitwise(buf + off, len);

		assert_int_equal(HsCrc32cExtendSoftware(0, buf + off, len), ref);
		assert_int_equal(HsCrc32cExtendHardware(0, buf + off, len), ref);
	}
	free(buf);
}

static void
test_crc32c_extend_and_mask(void **state)
{
	const char *s = "hello, hummock world";
	size_t		n = strlen(s);
	uint32_t	whole = HsCrc32c(s, n);

	for (size_t cut = 0; cut <= n; cut++)
		assert_int_equal(HsCrc32cExtend(HsCrc32c(s, cut), s + cut, n - cut),
						 whole);
	assert_int_not_equal(HsCrc32cMask(whole), whole);
	assert_int_equal(HsCrc32cUnmask(HsCrc32cMask(whole)), whole);
	assert_int_equal(HsCrc32cUnmask(HsCrc32cMask(0)), 0);
	assert_int_equal(HsCrc32cUnmask(HsCrc32cMask(0xFFFFFFFF)), 0xFFFFFFFF);
	/* the mask is persisted: pin it */
	assert_int_equal(HsCrc32cMask(0xE3069283), 0x00ADB529);
}

static const struct CMUnitTest crc32c_tests[] = {
	cmocka_unit_test(test_crc32c_vectors),
	cmocka_unit_test(test_crc32c_hw_sw_agree),
	cmocka_unit_test(test_crc32c_extend_and_mask),
};

UNIT_SUITE(crc32c)
{
	*tests = crc32c_tests;
	return sizeof(crc32c_tests) / sizeof(crc32c_tests[0]);
}
