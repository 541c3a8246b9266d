/*-------------------------------------------------------------------------
 *
 * wal_file_write.c
 *	  write_file_across_checkpoint(): a file of the object directory
 *	  written as the store writes an object (a temporary name, appends, a
 *	  durable rename), with a checkpoint forced between its two halves, so
 *	  that crash recovery starts replaying in the middle of its records
 *	  (src/pg/wal_files.c).
 *
 * Superusers only (it takes a path): EXECUTE is revoked from PUBLIC and
 * the function checks.  The path is relative to the data directory and
 * must lie under pg_hummock/ to be WAL-logged.
 *
 * test/modules/hummock_stream_test/wal_file_write.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/bgwriter.h"
#include "utils/builtins.h"

#include "hummock_stream/pg/env_pg.h"

PG_FUNCTION_INFO_V1(hummock_stream_test_write_file_across_checkpoint);

/* Appends bytes [from, to) of the file's pattern (never a zero byte). */
static void
append_pattern(HsEnv *env, HsFile *f, int from, int to)
{
	char		buf[8192];
	HsStatus	st;

	while (from < to)
	{
		int			n = Min(to - from, (int) sizeof(buf));

		for (int i = 0; i < n; i++)
			buf[i] = (char) (1 + (from + i) % 251);
		if (!env->append(env, f, buf, n, &st))
			HsStatusReport(ERROR, &st);
		from += n;
	}
}

/*
 * hummock_stream_test.write_file_across_checkpoint(path text, bytes int):
 * path.tmp created and written half, a checkpoint (immediate, waited
 * for), the other half, fsync, renamed to path.  The byte at offset i is
 * 1 + i % 251.
 */
Datum
hummock_stream_test_write_file_across_checkpoint(PG_FUNCTION_ARGS)
{
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		bytes = PG_GETARG_INT32(1);
	char	   *tmp = psprintf("%s.tmp", path);
	char	   *dir = pstrdup(path);
	HsEnv	   *env = HsEnvPgTransient();
	HsFile	   *f;
	HsStatus	st;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function %s", "write_file_across_checkpoint")));
	if (bytes < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bytes must be at least 2")));
	get_parent_directory(dir);
	if (!env->make_dir(env, dir, &st) ||
		!env->open_writable(env, tmp, &f, &st))
		HsStatusReport(ERROR, &st);
	append_pattern(env, f, 0, bytes / 2);
	RequestCheckpoint(CHECKPOINT_IMMEDIATE | CHECKPOINT_FORCE | CHECKPOINT_WAIT);
	append_pattern(env, f, bytes / 2, bytes);
	if (!env->sync(env, f, &st) || !env->close(env, f, &st) ||
		!env->rename(env, tmp, path, &st))
		HsStatusReport(ERROR, &st);
	PG_RETURN_VOID();
}
