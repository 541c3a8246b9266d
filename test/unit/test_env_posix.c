/*-------------------------------------------------------------------------
 *
 * test_env_posix.c
 *	  Unit tests of env_posix.c: files, names, directories, errors.
 *
 * test/unit/test_env_posix.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "hummock_stream/storage/env.h"

static bool
count_entry(void *arg, const char *name)
{
	int		   *n = arg;

	if (strncmp(name, "f", 1) == 0)
		(*n)++;
	return true;
}

static void
test_env_files(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	char		dir[512],
				p1[600],
				p2[600];
	HsFile	   *f;
	HsStatus	st;
	uint64_t	size;
	char		buf[64];
	size_t		nread;
	int			count = 0;
	uint8_t    *z;

	unit_path(dir, sizeof(dir), "envdir/a/b/c/");
	assert_status_ok(env->make_dir(env, dir, &st), &st);
	assert_status_ok(env->make_dir(env, dir, &st), &st);	/* exists: fine */
	snprintf(p1, sizeof(p1), "%sf1.tmp", dir);
	snprintf(p2, sizeof(p2), "%sf1", dir);

	assert_status_ok(env->open_writable(env, p1, &f, &st), &st);
	assert_string_equal(env->path(env, f), p1);
	assert_status_ok(env->append(env, f, "hello ", 6, &st), &st);
	assert_status_ok(env->append(env, f, "world", 5, &st), &st);
	assert_status_ok(env->sync(env, f, &st), &st);
	assert_status_ok(env->size(env, f, &size, &st), &st);
	assert_int_equal(size, 11);
	assert_status_ok(env->close(env, f, &st), &st);

	assert_status_ok(env->rename(env, p1, p2, &st), &st);
	assert_false(env->file_exists(env, p1));
	assert_true(env->file_exists(env, p2));
	assert_status_ok(env->sync_dir(env, dir, &st), &st);

	assert_status_ok(env->open_readable(env, p2, &f, &st), &st);
	assert_status_ok(env->read_at(env, f, 6, buf, sizeof(buf), &nread, &st), &st);
	assert_int_equal(nread, 5);		/* short only at end of file */
	assert_memory_equal(buf, "world", 5);
	assert_status_ok(env->read_at(env, f, 100, buf, 4, &nread, &st), &st);
	assert_int_equal(nread, 0);
	assert_status_ok(env->close(env, f, &st), &st);

	assert_status_ok(env->list_dir(env, dir, count_entry, &count, &st), &st);
	assert_int_equal(count, 1);

	assert_status_ok(env->remove(env, p2, &st), &st);
	assert_false(env->remove(env, p2, &st));
	assert_int_equal(st.code, HS_NOT_FOUND);
	assert_false(env->open_readable(env, p2, &f, &st));
	assert_int_equal(st.code, HS_NOT_FOUND);
	assert_true(st.sys_errno != 0);
	assert_true(strstr(st.msg, p2) != NULL);
	assert_false(env->rename(env, p2, p1, &st));
	assert_false(env->list_dir(env, p2, count_entry, &count, &st));

	z = HsAllocZero(env, 100);
	for (int i = 0; i < 100; i++)
		assert_int_equal(z[i], 0);
	z = HsRealloc(env, z, 10000);
	HsFree(env, z);
}

static const struct CMUnitTest env_posix_tests[] = {
	cmocka_unit_test(test_env_files),
};

UNIT_SUITE(env_posix)
{
	*tests = env_posix_tests;
	return sizeof(env_posix_tests) / sizeof(env_posix_tests[0]);
}
