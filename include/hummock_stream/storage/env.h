/*-------------------------------------------------------------------------
 *
 * env.h
 *	  The storage core's only window on the world: files and memory.
 *
 * LevelDB-style: everything in src/storage/ reaches the operating system
 * through an HsEnv.  Two implementations exist:
 *
 *	- env_posix.c (HsEnvPosix): open/pread/write/fsync/rename and malloc, used
 *	  by the unit tests, the fuzzer and the benchmarks;
 *	- src/pg/env_pg.c: PostgreSQL's VFD layer (PathNameOpenFile, FileRead,
 *	  FileWrite, FileSync, durable_rename, fsync_fname) and palloc in the
 *	  current memory context, so that an ERROR never leaks a descriptor or
 *	  memory.
 *
 * Contract for every implementation:
 *	- alloc/realloc never return NULL: the POSIX env aborts on out-of-memory,
 *	  the Postgres env raises an ERROR (which unwinds past the core; the core
 *	  therefore keeps no state that needs cleanup other than memory and
 *	  files owned by the env);
 *	- file functions return false and fill the status (HS_IO_ERROR with
 *	  sys_errno, or HS_NOT_FOUND for a missing file) on failure;
 *	- rename is durable: the renamed file and its directory are fsynced
 *	  before it returns;
 *	- read_at may return fewer bytes than asked only at end of file.
 *
 * include/hummock_stream/storage/env.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_ENV_H
#define HS_STORAGE_ENV_H

#include "hummock_stream/storage/status.h"

typedef struct HsEnv HsEnv;

/* An open file; each env defines its own struct behind it. */
typedef struct HsFile HsFile;

/* Called once per directory entry by list_dir; return false to stop. */
typedef bool (*HsDirEntryFn) (void *arg, const char *name);

struct HsEnv
{
	/* ---- memory ---- */
	void	   *(*alloc) (HsEnv *env, size_t size);
	void	   *(*realloc) (HsEnv *env, void *ptr, size_t size);
	void		(*free) (HsEnv *env, void *ptr);

	/* ---- files ---- */
	/* Create (or truncate) a file for appending. */
	bool		(*open_writable) (HsEnv *env, const char *path, HsFile **file,
								  HsStatus *st);
	/* Open an existing file for positional reads. */
	bool		(*open_readable) (HsEnv *env, const char *path, HsFile **file,
								  HsStatus *st);
	bool		(*append) (HsEnv *env, HsFile *file, const void *buf,
						   size_t len, HsStatus *st);
	bool		(*read_at) (HsEnv *env, HsFile *file, uint64_t offset,
							void *buf, size_t len, size_t *nread,
							HsStatus *st);
	/* fsync the file's data (and size). */
	bool		(*sync) (HsEnv *env, HsFile *file, HsStatus *st);
	/* Size of an open file. */
	bool		(*size) (HsEnv *env, HsFile *file, uint64_t *size,
						 HsStatus *st);
	/* Close; never fails for readable files. */
	bool		(*close) (HsEnv *env, HsFile *file, HsStatus *st);
	/* The path a file was opened with (for messages). */
	const char *(*path) (HsEnv *env, HsFile *file);

	/* ---- names ---- */
	/* Durable rename: fsync file, rename, fsync directory. */
	bool		(*rename) (HsEnv *env, const char *from, const char *to,
						   HsStatus *st);
	bool		(*remove) (HsEnv *env, const char *path, HsStatus *st);
	bool		(*file_exists) (HsEnv *env, const char *path);
	bool		(*list_dir) (HsEnv *env, const char *dir, HsDirEntryFn fn,
							 void *arg, HsStatus *st);
	/* mkdir -p; succeeds if it exists. */
	bool		(*make_dir) (HsEnv *env, const char *dir, HsStatus *st);
	bool		(*sync_dir) (HsEnv *env, const char *dir, HsStatus *st);

	/* ---- control ---- */
	/*
	 * Called every so often by long loops (compaction): return only if
	 * the work may go on.  NULL: nothing to check.  Inside Postgres it
	 * services interrupts (which may raise an ERROR) and exits if the
	 * postmaster died.
	 */
	void		(*check_interrupts) (HsEnv *env);

	void	   *private_data;	/* for the implementation */
};

/* Allocation helpers used throughout the core. */
#define HsAlloc(env, sz)			((env)->alloc((env), (sz)))
#define HsRealloc(env, p, sz)		((env)->realloc((env), (p), (sz)))
#define HsFree(env, p)				((env)->free((env), (p)))
extern void *HsAllocZero(HsEnv *env, size_t size);

/* Entries a long loop handles between two env->check_interrupts calls. */
#define HS_ENTRIES_PER_INTERRUPT_CHECK 4096

/* Calls the env's check_interrupts, if it has one. */
static inline void
HsCheckInterrupts(HsEnv *env)
{
	if (env->check_interrupts)
		env->check_interrupts(env);
}

/* The POSIX + malloc env (env_posix.c): a process-wide singleton. */
extern HsEnv *HsEnvPosix(void);

#endif							/* HS_STORAGE_ENV_H */
