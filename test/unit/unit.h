/*-------------------------------------------------------------------------
 *
 * unit.h
 *	  Shared declarations of the storage-core unit tests.
 *
 * test/unit/unit.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_UNIT_H
#define HS_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hummock_stream/storage/env.h"

/* Scratch directory for this run (created by unit_main.c). */
extern const char *unit_tmpdir;

/* Build "<unit_tmpdir>/<name>" into buf. */
extern const char *unit_path(char *buf, size_t buflen, const char *name);

/* Deterministic PRNG for reproducible randomized tests (splitmix64). */
extern uint64_t unit_rand(uint64_t *state);

/* Fail the current test with the status message if st is not OK. */
#define assert_status_ok(ok, st) \
	do { if (!(ok)) fail_msg("%s: %s (%s)", HsCodeName((st)->code), (st)->msg, (st)->detail); } while (0)

/* One line per suite: int unit_<module>(const struct CMUnitTest **tests); */
#define UNIT_SUITE(name) int unit_##name(const struct CMUnitTest **tests)

UNIT_SUITE(status);
UNIT_SUITE(crc32c);
UNIT_SUITE(coding);
UNIT_SUITE(hash);
UNIT_SUITE(compress);
UNIT_SUITE(bloom);
UNIT_SUITE(block);
UNIT_SUITE(block_cache);
UNIT_SUITE(sst);
UNIT_SUITE(sst_corruption);
UNIT_SUITE(sst_describe);
UNIT_SUITE(env_posix);
UNIT_SUITE(merge_iter);
UNIT_SUITE(concat_iter);
UNIT_SUITE(secondary_cache);
UNIT_SUITE(user_iter);
UNIT_SUITE(version);
UNIT_SUITE(memtable);
UNIT_SUITE(version_model);
UNIT_SUITE(version_format);
UNIT_SUITE(exact_float_sum);

#endif							/* HS_UNIT_H */
