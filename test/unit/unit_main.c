/*-------------------------------------------------------------------------
 *
 * unit_main.c
 *	  Runs every storage-core unit test as one cmocka group.
 *
 * To add a suite: write test_<module>.c with UNIT_SUITE(<module>), declare
 * it in unit.h and list it in suites[] below.
 *
 * test/unit/unit_main.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

typedef int (*SuiteFn) (const struct CMUnitTest **tests);

static const SuiteFn suites[] = {
	unit_status,
	unit_crc32c,
	unit_coding,
	unit_hash,
	unit_compress,
	unit_bloom,
	unit_block,
	unit_block_cache,
	unit_sst,
	unit_sst_corruption,
	unit_sst_describe,
	unit_env_posix,
	unit_merge_iter,
	unit_concat_iter,
	unit_secondary_cache,
	unit_user_iter,
	unit_version,
	unit_memtable,
	unit_version_model,
	unit_version_format,
	unit_exact_float_sum,
};

const char *unit_tmpdir;

const char *
unit_path(char *buf, size_t buflen, const char *name)
{
	snprintf(buf, buflen, "%s/%s", unit_tmpdir, name);
	return buf;
}

uint64_t
unit_rand(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

int
main(void)
{
	static char tmpl[] = "/tmp/hs_unit.XXXXXX";
	struct CMUnitTest *all = NULL;
	size_t		n = 0;
	int			failed;
	char		cmd[512];

	unit_tmpdir = getenv("HS_UNIT_TMPDIR");
	if (unit_tmpdir == NULL)
	{
		unit_tmpdir = mkdtemp(tmpl);
		if (unit_tmpdir == NULL)
		{
			perror("mkdtemp");
			return 1;
		}
	}

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
	{
		const struct CMUnitTest *tests;
		int			k = suites[i] (&tests);

		all = realloc(all, (n + k) * sizeof(*all));
		memcpy(all + n, tests, k * sizeof(*all));
		n += k;
	}

	failed = _cmocka_run_group_tests("storage_core", all, n, NULL, NULL);

	if (getenv("HS_UNIT_TMPDIR") == NULL && failed == 0)
	{
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", unit_tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", unit_tmpdir);
	}
	free(all);
	return failed;
}
