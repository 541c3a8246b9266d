/*-------------------------------------------------------------------------
 *
 * iter_util.h
 *	  Test helpers shared by the iterator unit tests.
 *
 * UnitFailIterCreate wraps an iterator and makes it fail like a broken
 * file would: after a given number of successful moves it becomes invalid
 * with an HS_IO_ERROR status.  It is defined in test_merge_iter.c.
 *
 * test/unit/iter_util.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_UNIT_ITER_UTIL_H
#define HS_UNIT_ITER_UTIL_H

#include "hummock_stream/storage/iterator.h"

/*
 * Wrap inner (taking ownership): the first moves (seeks and nexts) pass
 * through, and the move after the first fail_after of them fails with
 * HS_IO_ERROR.  fail_after < 0 never fails.
 */
extern HsIterator *UnitFailIterCreate(HsEnv *env, HsIterator *inner,
									  int fail_after);

#endif							/* HS_UNIT_ITER_UTIL_H */
