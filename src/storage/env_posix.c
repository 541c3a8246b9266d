/*-------------------------------------------------------------------------
 *
 * env_posix.c
 *	  The POSIX + malloc HsEnv used by unit tests, the fuzzer and benchmarks.
 *
 * Files are plain descriptors: append is write(2) (looping over short
 * writes and EINTR), read_at is pread(2), sync is fdatasync(2).  rename is
 * durable: it fsyncs the file, renames it and fsyncs the directories of
 * both names.  Memory comes from malloc; running out aborts the process,
 * as the env contract forbids returning NULL.
 *
 * HsEnvPosix() returns a process-wide singleton with no mutable state, so
 * it may be used from several threads at once (each HsFile from one thread
 * at a time).
 *
 * src/storage/env_posix.c
 *
 *-------------------------------------------------------------------------
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "hummock_stream/storage/env.h"

struct HsFile
{
	int			fd;
	bool		writable;
	char		path[];			/* NUL-terminated copy of the name */
};

/* ----------------------------------------------------------------
 *		memory
 * ----------------------------------------------------------------
 */

/* Aborts: the POSIX env does not return failed allocations. */
static void
posix_oom(size_t size)
{
	fprintf(stderr, "hummock_stream: out of memory allocating %zu bytes\n",
			size);
	abort();
}

/* Allocates with malloc (at least one byte); aborts on failure. */
static void *
posix_alloc(HsEnv *env, size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		posix_oom(size);
	return p;
}

/* Reallocates with realloc (at least one byte); aborts on failure. */
static void *
posix_realloc(HsEnv *env, void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size ? size : 1);

	if (p == NULL)
		posix_oom(size);
	return p;
}

/* Frees with free. */
static void
posix_free(HsEnv *env, void *ptr)
{
	free(ptr);
}

/* ----------------------------------------------------------------
 *		errors
 * ----------------------------------------------------------------
 */

/* Fill st from errno for an operation on path; returns false. */
static bool
posix_error(HsStatus *st, int err, const char *what, const char *path)
{
	HsStatusSet(st, err == ENOENT ? HS_NOT_FOUND : HS_IO_ERROR,
				"could not %s \"%s\": %s", what, path, strerror(err));
	st->sys_errno = err;
	return false;
}

/* ----------------------------------------------------------------
 *		files
 * ----------------------------------------------------------------
 */

/* Returns a file handle for fd with a copy of path. */
static HsFile *
posix_make_file(int fd, const char *path, bool writable)
{
	size_t		n = strlen(path);
	HsFile	   *f = posix_alloc(NULL, sizeof(HsFile) + n + 1);

	f->fd = fd;
	f->writable = writable;
	memcpy(f->path, path, n + 1);
	return f;
}

/* Creates or truncates path for writing (mode 0600). */
static bool
posix_open_writable(HsEnv *env, const char *path, HsFile **file, HsStatus *st)
{
	int			fd;

	do
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
	{
		/* a missing directory is an I/O error, not a missing file */
		posix_error(st, errno, "create file", path);
		st->code = HS_IO_ERROR;
		return false;
	}
	*file = posix_make_file(fd, path, true);
	return true;
}

/* Opens path for reading. */
static bool
posix_open_readable(HsEnv *env, const char *path, HsFile **file, HsStatus *st)
{
	int			fd;

	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return posix_error(st, errno, "open file", path);
	*file = posix_make_file(fd, path, false);
	return true;
}

/* Writes all of buf at the end of the file, retrying short writes. */
static bool
posix_append(HsEnv *env, HsFile *file, const void *buf, size_t len,
			 HsStatus *st)
{
	const char *p = buf;

	while (len > 0)
	{
		ssize_t		n = write(file->fd, p, len);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return posix_error(st, errno, "write to file", file->path);
		}
		if (n == 0)
			return posix_error(st, ENOSPC, "write to file", file->path);
		p += n;
		len -= (size_t) n;
	}
	return true;
}

/* Reads up to len bytes at offset; fewer only at the end of the file. */
static bool
posix_read_at(HsEnv *env, HsFile *file, uint64_t offset, void *buf,
			  size_t len, size_t *nread, HsStatus *st)
{
	char	   *p = buf;
	size_t		done = 0;

	while (done < len)
	{
		ssize_t		n = pread(file->fd, p + done, len - done,
							  (off_t) (offset + done));

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return posix_error(st, errno, "read file", file->path);
		}
		if (n == 0)
			break;				/* end of file */
		done += (size_t) n;
	}
	*nread = done;
	return true;
}

/* Flushes the file's data to disk (fdatasync on Linux). */
static bool
posix_sync(HsEnv *env, HsFile *file, HsStatus *st)
{
#ifdef __linux__
	if (fdatasync(file->fd) != 0)
#else
	if (fsync(file->fd) != 0)
#endif
		return posix_error(st, errno, "fsync file", file->path);
	return true;
}

/* Returns the size of an open file. */
static bool
posix_size(HsEnv *env, HsFile *file, uint64_t *size, HsStatus *st)
{
	struct stat sb;

	if (fstat(file->fd, &sb) != 0)
		return posix_error(st, errno, "stat file", file->path);
	*size = (uint64_t) sb.st_size;
	return true;
}

/* Closes the file; only a writable file reports close errors. */
static bool
posix_close(HsEnv *env, HsFile *file, HsStatus *st)
{
	bool		ok = true;

	if (close(file->fd) != 0 && file->writable)
		ok = posix_error(st, errno, "close file", file->path);
	free(file);
	return ok;
}

/* Returns the path the file was opened with. */
static const char *
posix_path(HsEnv *env, HsFile *file)
{
	return file->path;
}

/* ----------------------------------------------------------------
 *		names
 * ----------------------------------------------------------------
 */

/* fsync a file or directory by name. */
static bool
posix_fsync_name(const char *path, bool is_dir, HsStatus *st)
{
	int			fd;

	do
		fd = open(path, O_RDONLY | (is_dir ? O_DIRECTORY : 0) | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return posix_error(st, errno, is_dir ? "open directory" : "open file",
						   path);
	if (fsync(fd) != 0)
	{
		int			err = errno;

		close(fd);
		return posix_error(st, err, is_dir ? "fsync directory" : "fsync file",
						   path);
	}
	close(fd);
	return true;
}

/* The directory part of path ("." if none) into buf. */
static const char *
posix_dirname(const char *path, char *buf, size_t buflen)
{
	const char *slash = strrchr(path, '/');
	size_t		n;

	if (slash == NULL)
		return ".";
	if (slash == path)
		return "/";
	n = (size_t) (slash - path);
	if (n >= buflen)
		n = buflen - 1;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return buf;
}

/* Flushes a directory to disk. */
static bool
posix_sync_dir(HsEnv *env, const char *dir, HsStatus *st)
{
	return posix_fsync_name(dir, true, st);
}

/*
 * Renames durably: fsyncs the file, renames it, then fsyncs the target
 * directory and, if different, the source directory.
 */
static bool
posix_rename(HsEnv *env, const char *from, const char *to, HsStatus *st)
{
	char		dir_from[4096];
	char		dir_to[4096];
	const char *df;
	const char *dt;

	if (!posix_fsync_name(from, false, st))
		return false;
	if (rename(from, to) != 0)
	{
		int			err = errno;

		HsStatusSet(st, err == ENOENT ? HS_NOT_FOUND : HS_IO_ERROR,
					"could not rename file \"%s\" to \"%s\": %s",
					from, to, strerror(err));
		st->sys_errno = err;
		return false;
	}
	dt = posix_dirname(to, dir_to, sizeof(dir_to));
	if (!posix_fsync_name(dt, true, st))
		return false;
	df = posix_dirname(from, dir_from, sizeof(dir_from));
	if (strcmp(df, dt) != 0 && !posix_fsync_name(df, true, st))
		return false;
	return true;
}

/* Removes a file. */
static bool
posix_remove(HsEnv *env, const char *path, HsStatus *st)
{
	if (unlink(path) != 0)
		return posix_error(st, errno, "remove file", path);
	return true;
}

/* Does path exist? */
static bool
posix_file_exists(HsEnv *env, const char *path)
{
	return access(path, F_OK) == 0;
}

/* Calls fn for each entry of dir except "." and "..". */
static bool
posix_list_dir(HsEnv *env, const char *dir, HsDirEntryFn fn, void *arg,
			   HsStatus *st)
{
	DIR		   *d = opendir(dir);
	struct dirent *de;

	if (d == NULL)
		return posix_error(st, errno, "open directory", dir);
	for (;;)
	{
		errno = 0;
		de = readdir(d);
		if (de == NULL)
		{
			int			err = errno;

			closedir(d);
			if (err != 0)
				return posix_error(st, err, "read directory", dir);
			return true;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!fn(arg, de->d_name))
			break;
	}
	closedir(d);
	return true;
}

/* Creates dir and its missing parents (mkdir -p). */
static bool
posix_make_dir(HsEnv *env, const char *dir, HsStatus *st)
{
	char		buf[4096];
	size_t		n = strlen(dir);

	if (n == 0 || n >= sizeof(buf))
		return HsStatusSet(st, HS_INVALID_ARGUMENT,
						   "invalid directory name \"%s\"", dir);
	memcpy(buf, dir, n + 1);

	/* create each prefix ending before a '/', then the whole path */
	for (size_t i = 1; i <= n; i++)
	{
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		if (buf[i - 1] == '/')
			continue;			/* "//" */
		buf[i] = '\0';
		if (mkdir(buf, 0700) != 0 && errno != EEXIST)
		{
			int			err = errno;

			posix_error(st, err, "create directory", buf);
			st->code = HS_IO_ERROR;
			return false;
		}
		if (i < n)
			buf[i] = '/';
	}
	return true;
}

/* ----------------------------------------------------------------
 *		the singleton
 * ----------------------------------------------------------------
 */

static HsEnv posix_env = {
	.alloc = posix_alloc,
	.realloc = posix_realloc,
	.free = posix_free,
	.open_writable = posix_open_writable,
	.open_readable = posix_open_readable,
	.append = posix_append,
	.read_at = posix_read_at,
	.sync = posix_sync,
	.size = posix_size,
	.close = posix_close,
	.path = posix_path,
	.rename = posix_rename,
	.remove = posix_remove,
	.file_exists = posix_file_exists,
	.list_dir = posix_list_dir,
	.make_dir = posix_make_dir,
	.sync_dir = posix_sync_dir,
	.private_data = NULL,
};

/* The POSIX + malloc env (a process-wide singleton). */
HsEnv *
HsEnvPosix(void)
{
	return &posix_env;
}
