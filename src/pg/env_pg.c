/*-------------------------------------------------------------------------
 *
 * env_pg.c
 *	  HsEnv on PostgreSQL's VFD layer and memory contexts.
 *
 * The storage core reaches files and memory only through an HsEnv (see
 * include/hummock_stream/storage/env.h).  Inside the server:
 *
 *	- memory is palloc'd in CurrentMemoryContext (huge allocations allowed),
 *	  so it goes away with the context whatever happens; out-of-memory is an
 *	  ERROR, which unwinds past the core;
 *	- files are VFDs (PathNameOpenFile), which the server multiplexes over a
 *	  bounded number of kernel descriptors.  VFDs of persistent files are
 *	  not closed at transaction end by the server, so files opened through
 *	  the *transient* env are remembered with the resource owner that was
 *	  current when they were opened, and a resource-release callback closes
 *	  them when that owner is released (commit or abort).  A writable file
 *	  still open at that point is unlinked: it can only be a half-written
 *	  object that nothing refers to.  The *session* env skips the tracking,
 *	  for readers kept in a cache across transactions;
 *	- a rename is durable: the file is fsynced, renamed, and its directory
 *	  fsynced (as durable_rename does, but returning a status instead of
 *	  raising an error);
 *	- every change to a file under pg_hummock/ (create, write, rename,
 *	  remove, mkdir) is WAL-logged (wal_files.c), so standbys and PITR
 *	  restores have the objects their version catalog names.
 *
 * src/pg/env_pg.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/ilist.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/pmsignal.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/pg/wal_files.h"

struct HsFile
{
	File		vfd;
	bool		writable;
	off_t		write_pos;		/* next append offset */
	char	   *path;			/* in TopMemoryContext when tracked */
	ResourceOwner owner;		/* NULL if not tracked */
	dlist_node	node;			/* in tracked_files when owner != NULL */
};

typedef struct EnvPgPrivate
{
	bool		track;			/* remember files with the resource owner */
	MemoryContext cxt;			/* allocate here; NULL: CurrentMemoryContext */
} EnvPgPrivate;

static dlist_head tracked_files = DLIST_STATIC_INIT(tracked_files);
static bool release_callback_registered = false;

/* ---------------------------------------------------------------------
 * Memory
 * ---------------------------------------------------------------------
 */

static void *
env_alloc(HsEnv *env, size_t size)
{
	EnvPgPrivate *priv = (EnvPgPrivate *) env->private_data;

	if (priv->cxt)
		return MemoryContextAllocExtended(priv->cxt, size == 0 ? 1 : size,
										  MCXT_ALLOC_HUGE);
	return palloc_extended(size == 0 ? 1 : size, MCXT_ALLOC_HUGE);
}

static void *
env_realloc(HsEnv *env, void *ptr, size_t size)
{
	if (ptr == NULL)
		return env_alloc(env, size);
	return repalloc_huge(ptr, size == 0 ? 1 : size);
}

static void
env_free(HsEnv *env, void *ptr)
{
	if (ptr)
		pfree(ptr);
}

/* ---------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------
 */

static bool
io_error(HsStatus *st, int err, const char *what, const char *path)
{
	HsStatusSet(st, err == ENOENT ? HS_NOT_FOUND : HS_IO_ERROR,
				"could not %s file \"%s\": %s", what, path, strerror(err));
	st->sys_errno = err;
	return false;
}

/* ---------------------------------------------------------------------
 * File tracking by resource owner
 * ---------------------------------------------------------------------
 */

static void
close_file(HsFile *file, bool unlink_if_writable)
{
	if (file->owner != NULL)
		dlist_delete(&file->node);
	if (file->vfd >= 0)
		FileClose(file->vfd);
	if (unlink_if_writable && file->writable)
	{
		if (unlink(file->path) < 0 && errno != ENOENT)
			elog(WARNING, "could not remove abandoned file \"%s\": %m", file->path);
	}
	pfree(file->path);
	pfree(file);
}

static void
release_callback(ResourceReleasePhase phase, bool isCommit, bool isTopLevel,
				 void *arg)
{
	dlist_mutable_iter iter;

	if (phase != RESOURCE_RELEASE_AFTER_LOCKS)
		return;
	dlist_foreach_modify(iter, &tracked_files)
	{
		HsFile	   *file = dlist_container(HsFile, node, iter.cur);

		if (file->owner == CurrentResourceOwner)
		{
			if (isCommit)
				elog(WARNING, "hummock_stream file \"%s\" was not closed", file->path);
			close_file(file, true);
		}
	}
}

static HsFile *
new_file(HsEnv *env, File vfd, const char *path, bool writable)
{
	EnvPgPrivate *priv = (EnvPgPrivate *) env->private_data;
	MemoryContext mcxt = priv->track ? TopMemoryContext :
		(priv->cxt ? priv->cxt : CurrentMemoryContext);
	HsFile	   *file = MemoryContextAllocZero(mcxt, sizeof(HsFile));

	file->vfd = vfd;
	file->writable = writable;
	file->path = MemoryContextStrdup(mcxt, path);
	if (priv->track && CurrentResourceOwner != NULL)
	{
		if (!release_callback_registered)
		{
			RegisterResourceReleaseCallback(release_callback, NULL);
			release_callback_registered = true;
		}
		file->owner = CurrentResourceOwner;
		dlist_push_tail(&tracked_files, &file->node);
	}
	return file;
}

/* ---------------------------------------------------------------------
 * Files
 * ---------------------------------------------------------------------
 */

static bool
env_open_writable(HsEnv *env, const char *path, HsFile **out, HsStatus *st)
{
	File		vfd;

	HsWalLogFileCreate(path);
	vfd = PathNameOpenFile(path, O_RDWR | O_CREAT | O_TRUNC | PG_BINARY);
	if (vfd < 0)
		return io_error(st, errno, "create", path);
	*out = new_file(env, vfd, path, true);
	return true;
}

static bool
env_open_readable(HsEnv *env, const char *path, HsFile **out, HsStatus *st)
{
	File		vfd = PathNameOpenFile(path, O_RDONLY | PG_BINARY);

	if (vfd < 0)
		return io_error(st, errno, "open", path);
	*out = new_file(env, vfd, path, false);
	return true;
}

static bool
env_append(HsEnv *env, HsFile *file, const void *buf, size_t len, HsStatus *st)
{
	const char *p = buf;

	HsWalLogFileWrite(file->path, (uint64) file->write_pos, buf, len);
	while (len > 0)
	{
		int			chunk = (int) Min(len, (size_t) (1 << 30));
		int			n;

		errno = 0;
		n = FileWrite(file->vfd, (char *) p, chunk, file->write_pos,
					  PG_WAIT_EXTENSION);
		if (n <= 0)
			return io_error(st, errno ? errno : ENOSPC, "write", file->path);
		p += n;
		len -= n;
		file->write_pos += n;
	}
	return true;
}

static bool
env_read_at(HsEnv *env, HsFile *file, uint64_t offset, void *buf, size_t len,
			size_t *nread, HsStatus *st)
{
	size_t		done = 0;

	while (done < len)
	{
		int			chunk = (int) Min(len - done, (size_t) (1 << 30));
		int			n = FileRead(file->vfd, (char *) buf + done, chunk,
								 (off_t) (offset + done), PG_WAIT_EXTENSION);

		if (n < 0)
			return io_error(st, errno, "read", file->path);
		if (n == 0)
			break;
		done += n;
	}
	*nread = done;
	return true;
}

static bool
env_sync(HsEnv *env, HsFile *file, HsStatus *st)
{
	if (FileSync(file->vfd, PG_WAIT_EXTENSION) < 0)
		return io_error(st, errno, "fsync", file->path);
	return true;
}

static bool
env_size(HsEnv *env, HsFile *file, uint64_t *size, HsStatus *st)
{
	off_t		sz = FileSize(file->vfd);

	if (sz < 0)
		return io_error(st, errno, "seek to end of", file->path);
	*size = (uint64_t) sz;
	return true;
}

static bool
env_close(HsEnv *env, HsFile *file, HsStatus *st)
{
	close_file(file, false);
	return true;
}

static const char *
env_path(HsEnv *env, HsFile *file)
{
	return file->path;
}

/* ---------------------------------------------------------------------
 * Names and directories
 * ---------------------------------------------------------------------
 */

/* fsync the directory holding path */
static bool
sync_parent_dir(const char *path, HsStatus *st)
{
	char		parent[MAXPGPATH];

	strlcpy(parent, path, MAXPGPATH);
	get_parent_directory(parent);
	if (parent[0] == '\0')
		strlcpy(parent, ".", MAXPGPATH);
	if (fsync_fname_ext(parent, true, false, DEBUG1) != 0)
		return io_error(st, errno, "fsync directory of", path);
	return true;
}

static bool
env_rename(HsEnv *env, const char *from, const char *to, HsStatus *st)
{
	if (fsync_fname_ext(from, false, false, DEBUG1) != 0)
		return io_error(st, errno, "fsync", from);
	HsWalLogFileRename(from, to);
	if (rename(from, to) < 0)
		return io_error(st, errno, "rename", from);
	return sync_parent_dir(to, st);
}

static bool
env_remove(HsEnv *env, const char *path, HsStatus *st)
{
	HsWalLogFileRemove(path);
	if (unlink(path) < 0)
		return io_error(st, errno, "remove", path);
	return true;
}

static bool
env_file_exists(HsEnv *env, const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

static bool
env_list_dir(HsEnv *env, const char *dir, HsDirEntryFn fn, void *arg,
			 HsStatus *st)
{
	DIR		   *d = AllocateDir(dir);
	struct dirent *de;
	bool		ok = true;

	if (d == NULL)
		return io_error(st, errno, "open directory", dir);
	while ((de = ReadDirExtended(d, dir, DEBUG1)) != NULL)
	{
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!fn(arg, de->d_name))
			break;
	}
	if (errno != 0 && de == NULL)
		ok = io_error(st, errno, "read directory", dir);
	FreeDir(d);
	return ok;
}

static bool
env_make_dir(HsEnv *env, const char *dir, HsStatus *st)
{
	char		path[MAXPGPATH];
	int			err;

	HsWalLogMakeDir(dir);
	err = HsMakeDirectories(dir, path, sizeof(path));
	if (err != 0)
		return io_error(st, err, "create directory", path);
	return true;
}

static bool
env_sync_dir(HsEnv *env, const char *dir, HsStatus *st)
{
	if (fsync_fname_ext(dir, true, false, DEBUG1) != 0)
		return io_error(st, errno, "fsync directory", dir);
	return true;
}

/* Long loops of the core: a cancel, a terminate, a dead postmaster. */
static void
env_check_interrupts(HsEnv *env)
{
	CHECK_FOR_INTERRUPTS();
	if (!PostmasterIsAlive())
		proc_exit(1);
}

/* ---------------------------------------------------------------------
 * The two envs
 * ---------------------------------------------------------------------
 */

static EnvPgPrivate transient_priv = {true, NULL};
static EnvPgPrivate session_priv = {false, NULL};

#define ENV_PG_INIT(priv) { \
	.alloc = env_alloc, .realloc = env_realloc, .free = env_free, \
	.open_writable = env_open_writable, .open_readable = env_open_readable, \
	.append = env_append, .read_at = env_read_at, .sync = env_sync, \
	.size = env_size, .close = env_close, .path = env_path, \
	.rename = env_rename, .remove = env_remove, \
	.file_exists = env_file_exists, .list_dir = env_list_dir, \
	.make_dir = env_make_dir, .sync_dir = env_sync_dir, \
	.check_interrupts = env_check_interrupts, \
	.private_data = (priv) }

static HsEnv transient_env = ENV_PG_INIT(&transient_priv);
static HsEnv session_env = ENV_PG_INIT(&session_priv);

HsEnv *
HsEnvPgTransient(void)
{
	return &transient_env;
}

HsEnv *
HsEnvPgSession(void)
{
	return &session_env;
}

HsEnv *
HsEnvPgForContext(MemoryContext cxt)
{
	HsEnv	   *env = MemoryContextAlloc(cxt, sizeof(HsEnv));
	EnvPgPrivate *priv = MemoryContextAlloc(cxt, sizeof(EnvPgPrivate));

	*env = session_env;
	priv->track = false;
	priv->cxt = cxt;
	env->private_data = priv;
	return env;
}

/* ---------------------------------------------------------------------
 * Status reporting
 * ---------------------------------------------------------------------
 */

void
HsStatusReport(int elevel, const HsStatus *st)
{
	int			code;

	switch (st->code)
	{
		case HS_OK:
			return;
		case HS_CORRUPTION:
			code = ERRCODE_DATA_CORRUPTED;
			break;
		case HS_NOT_FOUND:
			code = ERRCODE_UNDEFINED_FILE;
			break;
		case HS_INVALID_ARGUMENT:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
		case HS_NOT_SUPPORTED:
			code = ERRCODE_FEATURE_NOT_SUPPORTED;
			break;
		case HS_IO_ERROR:
		default:
			/* errcode_for_file_access() reads errno inside ereport */
			errno = st->sys_errno;
			ereport(elevel,
					(errcode_for_file_access(),
					 errmsg_internal("%s", st->msg),
					 st->detail[0] ? errdetail_internal("%s", st->detail) : 0));
			return;
	}
	ereport(elevel,
			(errcode(code),
			 errmsg_internal("%s", st->msg),
			 st->detail[0] ? errdetail_internal("%s", st->detail) : 0));
}

void
HsKeepFreedMemory(void)
{
	/* blocks up to 32 MB from the heap, and no trimming below 512 MB */
	mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
}
