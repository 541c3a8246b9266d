/*-------------------------------------------------------------------------
 *
 * store_copy.c
 *	  A database's hummock store copied into another database: what
 *	  CREATE DATABASE ... TEMPLATE copies besides the catalog.
 *
 * CREATE DATABASE copies a template's catalog, which holds its streaming
 * views and the version catalog naming the SSTs of their tables, but not
 * the files under $PGDATA/pg_hummock/<template oid>/, which Postgres does
 * not know.  They are copied into pg_hummock/<new oid>/ by the statement
 * that creates the database, once Postgres has copied the catalog, while
 * no process of the template runs (CREATE DATABASE refuses a template with
 * connections: its barrier manager and workers are stopped first,
 * database_commands.c).  The extension's OID is the same in the copy, so
 * the store's incarnation directory keeps its name.
 *
 * Every file goes through the store's file interface (env_pg.c), whose
 * operations are logged (wal_files.c): a standby and crash recovery get
 * the copy too.  Each file is written under a temporary name, synced and
 * renamed, so a crash leaves each file whole or absent; files the copied
 * version catalog does not name (objects of epochs that never committed)
 * are orphans the new database's GC removes, as it would have in the
 * template.
 *
 * src/pg/store_copy.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/fd.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/pg/store_copy.h"

/* Bytes copied per read and logged write. */
#define COPY_CHUNK (256 * 1024)

static void
copy_file(HsEnv *env, const char *from, const char *to, char *buf)
{
	char		tmp[MAXPGPATH];
	int			fd = OpenTransientFile(from, O_RDONLY | PG_BINARY);
	HsFile	   *out;
	HsStatus	st;

	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", from)));
	snprintf(tmp, sizeof(tmp), "%s.copying", to);
	HsStatusClear(&st);
	HS_CHECK(env->open_writable(env, tmp, &out, &st), &st);
	for (;;)
	{
		ssize_t		n;

		CHECK_FOR_INTERRUPTS();
		n = read(fd, buf, COPY_CHUNK);
		if (n < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read file \"%s\": %m", from)));
		if (n == 0)
			break;
		HS_CHECK(env->append(env, out, buf, (size_t) n, &st), &st);
	}
	CloseTransientFile(fd);
	HS_CHECK(env->sync(env, out, &st) && env->close(env, out, &st) &&
			 env->rename(env, tmp, to, &st), &st);
}

static void
copy_tree(HsEnv *env, const char *from, const char *to, char *buf)
{
	DIR		   *d;
	struct dirent *de;
	HsStatus	st;

	HsStatusClear(&st);
	HS_CHECK(env->make_dir(env, to, &st), &st);
	d = AllocateDir(from);
	while ((de = ReadDir(d, from)) != NULL)
	{
		char		src[MAXPGPATH];
		char		dst[MAXPGPATH];
		struct stat sb;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, de->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", to, de->d_name);
		if (lstat(src, &sb) != 0)
		{
			if (errno == ENOENT)
				continue;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not stat file \"%s\": %m", src)));
		}
		if (S_ISDIR(sb.st_mode))
			copy_tree(env, src, dst, buf);
		else if (S_ISREG(sb.st_mode) &&
				 strcmp(de->d_name + Max((int) strlen(de->d_name) - 8, 0), ".copying") != 0)
			copy_file(env, src, dst, buf);
	}
	FreeDir(d);
	HS_CHECK(env->sync_dir(env, to, &st), &st);
}

bool
HsStoreCopyDatabase(Oid from_db, Oid to_db)
{
	char		from[MAXPGPATH];
	char		to[MAXPGPATH];
	struct stat sb;
	char	   *buf;

	snprintf(from, sizeof(from), "%s/%u", HS_DATA_DIR, from_db);
	snprintf(to, sizeof(to), "%s/%u", HS_DATA_DIR, to_db);
	if (stat(from, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return false;
	buf = palloc(COPY_CHUNK);
	copy_tree(HsEnvPgTransient(), from, to, buf);
	pfree(buf);
	return true;
}
