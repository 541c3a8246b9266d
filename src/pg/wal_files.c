/*-------------------------------------------------------------------------
 *
 * wal_files.c
 *	  WAL for the files of the object directory (pg_hummock/...): a custom
 *	  resource manager, so that streaming standbys, PITR restores and
 *	  crash recovery have every SST the version catalog refers to.
 *
 * The version catalog (version_delta and the others) lives in heap tables
 * and reaches a standby through the WAL like any table; the SST files it
 * names are written by the store through env_pg.c, which logs each file
 * operation under pg_hummock/ as a record of this resource manager
 * before it does it (or, for a write, with the bytes written):
 *
 *	CREATE	path						the file is created empty (O_TRUNC)
 *	WRITE	path, offset, bytes			at most WAL_WRITE_CHUNK bytes each
 *	RENAME	from, to					durable: file and directory fsynced
 *	REMOVE	path, conflict xid			a stale object deleted by GC
 *	MKDIR	path						with every missing parent
 *	REMOVE_TREE	path					a store or database directory
 *										(DROP EXTENSION, DROP DATABASE)
 *
 * Every record is replayed idempotently: a write rewrites the same bytes
 * (into a file that exists: a write to a missing file is skipped, the file
 * was renamed or removed after it), a rename whose source is gone was done
 * already, a remove of a missing file is nothing.
 *
 * A file written across the start of a checkpoint is logged again whole
 * before its rename.  Replay starts at the checkpoint's redo point, after
 * the file's CREATE and first WRITEs: had the rename replayed the source
 * left by the later WRITEs alone, it would have put a file whose first
 * bytes are zeros over the complete one (a crash after a long spread
 * checkpoint began during a large compaction did that).  So
 * HsWalLogFileRename logs, for a file whose CREATE precedes the current
 * redo point (GetRedoRecPtr, as full-page writes decide), a new CREATE and
 * WRITEs of all its bytes first; replay from any redo point then either
 * rebuilds the file whole or leaves the renamed one alone.  So crash recovery of the primary can replay them over
 * the files it has, and a base backup that copied a file while it was
 * written is repaired by the writes after its start.  The records of an
 * SST precede the commit of the version delta that refers to it (the
 * worker writes it before it reports the checkpoint the manager commits),
 * so a standby never sees a version naming a file it has not written.
 *
 * Record layout (XLogRegisterData, little-endian as the server writes):
 *	HsWalFileRecord header, then the path (path_len bytes, no NUL), then
 *	for RENAME the second path (path2_len bytes), for WRITE the bytes.
 *
 * A REMOVE carries the xid of the transaction that made the object stale
 * (the xmin of its stale_objects row).  A standby reader still on a
 * version that referred to it took its snapshot before that transaction
 * committed, so its xmin is at most that xid: redo resolves the conflict
 * as vacuum's does (ResolveRecoveryConflictWithSnapshot: wait up to
 * max_standby_streaming_delay, then cancel those queries).  Files deleted
 * that no version ever referred to (orphans, temporary files) conflict
 * with nobody.
 *
 * The resource manager id is RM_EXPERIMENTAL_ID (128) until one is
 * reserved on the PostgreSQL wiki; two extensions using it in one
 * cluster cannot be preloaded together (the server refuses to start).
 *
 * src/pg/wal_files.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "common/file_utils.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/standby.h"
#include "utils/memutils.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/pg/wal_files.h"

#define HS_RMGR_ID					RM_EXPERIMENTAL_ID
#define HS_RMGR_NAME				"hummock_stream"

#define XLOG_HS_FILE_CREATE			0x00
#define XLOG_HS_FILE_WRITE			0x10
#define XLOG_HS_FILE_RENAME			0x20
#define XLOG_HS_FILE_REMOVE			0x30
#define XLOG_HS_FILE_MKDIR			0x40
#define XLOG_HS_REMOVE_TREE			0x50

/* Bytes of a file write per record. */
#define WAL_WRITE_CHUNK				(128 * 1024)

typedef struct HsWalFileRecord
{
	uint64		offset;			/* WRITE: where the bytes go */
	TransactionId conflict_xid; /* REMOVE: see above; else invalid */
	Oid			dboid;			/* REMOVE: the database of the object */
	uint16		path_len;
	uint16		path2_len;		/* RENAME: the new name */
} HsWalFileRecord;

/*
 * Paths under the object directory are logged (relative to the data dir),
 * unless wal_level is minimal: then no standby or archive reads the WAL,
 * and crash recovery needs no record (an object is fsynced before the
 * rename that makes it one, and a version names only renamed objects).
 */
static bool
logged_path(const char *path)
{
	size_t		n = strlen(HS_DATA_DIR);

	return XLogIsNeeded() && strncmp(path, HS_DATA_DIR, n) == 0 &&
		path[n] == '/' && !RecoveryInProgress();
}

/* Logs one record; the LSN of its end. */
static XLogRecPtr
log_record(uint8 info, const HsWalFileRecord *rec, const char *path,
		   const char *path2, const char *data, size_t len)
{
	XLogBeginInsert();
	XLogRegisterData((char *) rec, sizeof(HsWalFileRecord));
	XLogRegisterData((char *) path, rec->path_len);
	if (path2)
		XLogRegisterData((char *) path2, rec->path2_len);
	if (len > 0)
		XLogRegisterData((char *) data, (int) len);
	return XLogInsert(HS_RMGR_ID, info);
}

static void
init_record(HsWalFileRecord *rec, const char *path)
{
	memset(rec, 0, sizeof(*rec));
	rec->conflict_xid = InvalidTransactionId;
	rec->dboid = InvalidOid;
	rec->path_len = (uint16) strlen(path);
}

/*
 * The files this process created and has not renamed or removed yet, with
 * the end LSN of their CREATE records (a short list: a writer has a few files
 * open at a time; the oldest are forgotten past CREATED_MAX, and such a
 * file is logged whole at its rename).
 */
typedef struct CreatedFile
{
	char	   *path;
	XLogRecPtr	create_lsn;
} CreatedFile;

#define CREATED_MAX 64

static CreatedFile created[CREATED_MAX];
static int	n_created;

static int
created_find(const char *path)
{
	for (int i = 0; i < n_created; i++)
		if (strcmp(created[i].path, path) == 0)
			return i;
	return -1;
}

static void
created_forget(int i)
{
	pfree(created[i].path);
	memmove(&created[i], &created[i + 1], sizeof(CreatedFile) * (n_created - i - 1));
	n_created--;
}

static void
created_remember(const char *path, XLogRecPtr lsn)
{
	int			i = created_find(path);

	if (i >= 0)
		created_forget(i);
	if (n_created == CREATED_MAX)
		created_forget(0);
	created[n_created].path = MemoryContextStrdup(TopMemoryContext, path);
	created[n_created].create_lsn = lsn;
	n_created++;
}

void
HsWalLogFileCreate(const char *path)
{
	HsWalFileRecord rec;

	if (!logged_path(path))
		return;
	init_record(&rec, path);
	created_remember(path, log_record(XLOG_HS_FILE_CREATE, &rec, path, NULL, NULL, 0));
}

void
HsWalLogFileWrite(const char *path, uint64 offset, const void *buf, size_t len)
{
	HsWalFileRecord rec;
	const char *p = buf;

	if (!logged_path(path))
		return;
	init_record(&rec, path);
	while (len > 0)
	{
		size_t		chunk = Min(len, (size_t) WAL_WRITE_CHUNK);

		rec.offset = offset;
		log_record(XLOG_HS_FILE_WRITE, &rec, path, NULL, p, chunk);
		p += chunk;
		offset += chunk;
		len -= chunk;
	}
}

/*
 * Log file path again whole (a CREATE, then WRITEs of all its bytes read
 * back from it): replay from the current redo point would miss its first
 * records.
 */
static void
log_file_again(const char *path)
{
	HsWalFileRecord rec;
	char	   *buf = palloc(WAL_WRITE_CHUNK);
	uint64		offset = 0;
	int			fd;

	init_record(&rec, path);
	log_record(XLOG_HS_FILE_CREATE, &rec, path, NULL, NULL, 0);
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	for (;;)
	{
		ssize_t		n = pg_pread(fd, buf, WAL_WRITE_CHUNK, (off_t) offset);

		if (n < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read file \"%s\": %m", path)));
		if (n == 0)
			break;
		rec.offset = offset;
		log_record(XLOG_HS_FILE_WRITE, &rec, path, NULL, buf, (size_t) n);
		offset += n;
	}
	CloseTransientFile(fd);
	pfree(buf);
}

void
HsWalLogFileRename(const char *from, const char *to)
{
	HsWalFileRecord rec;
	int			i;

	if (!logged_path(from))
		return;
	/* a checkpoint began after its CREATE (or it is not known): whole */
	i = created_find(from);
	if (i < 0 || GetRedoRecPtr() >= created[i].create_lsn)
		log_file_again(from);
	if (i >= 0)
		created_forget(i);
	init_record(&rec, from);
	rec.path2_len = (uint16) strlen(to);
	log_record(XLOG_HS_FILE_RENAME, &rec, from, to, NULL, 0);
}

/* The conflict xid of the next removals (GC sets it around each object). */
static TransactionId remove_conflict_xid = InvalidTransactionId;

void
HsWalSetRemoveConflict(TransactionId xid)
{
	remove_conflict_xid = xid;
}

void
HsWalLogFileRemove(const char *path)
{
	HsWalFileRecord rec;

	if (!logged_path(path))
		return;
	{
		int			i = created_find(path);

		if (i >= 0)
			created_forget(i);
	}
	init_record(&rec, path);
	rec.conflict_xid = remove_conflict_xid;
	rec.dboid = MyDatabaseId;
	log_record(XLOG_HS_FILE_REMOVE, &rec, path, NULL, NULL, 0);
}

void
HsWalLogMakeDir(const char *path)
{
	HsWalFileRecord rec;

	if (!logged_path(path))
		return;
	init_record(&rec, path);
	log_record(XLOG_HS_FILE_MKDIR, &rec, path, NULL, NULL, 0);
}

void
HsWalLogRemoveTree(const char *path)
{
	HsWalFileRecord rec;

	if (!logged_path(path))
		return;
	init_record(&rec, path);
	log_record(XLOG_HS_REMOVE_TREE, &rec, path, NULL, NULL, 0);
}

/* ---------------------------------------------------------------------
 * Redo
 * ---------------------------------------------------------------------
 */

/* mkdir -p of dir (a copy is cut at each '/') */
int
HsMakeDirectories(const char *dir, char *failed, size_t failed_len)
{
	char		path[MAXPGPATH];

	strlcpy(path, dir, sizeof(path));
	for (char *p = path + 1;; p++)
	{
		bool		last = (*p == '\0');

		if (*p == '/' || last)
		{
			*p = '\0';
			if (MakePGDirectory(path) < 0 && errno != EEXIST)
			{
				int			err = errno;

				strlcpy(failed, path, failed_len);
				return err;
			}
			if (last)
				break;
			*p = '/';
		}
	}
	return 0;
}

static void
make_dirs(const char *dir)
{
	char		failed[MAXPGPATH];
	int			err = HsMakeDirectories(dir, failed, sizeof(failed));

	if (err != 0)
	{
		errno = err;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", failed)));
	}
}

static void
make_parent(const char *path)
{
	char		parent[MAXPGPATH];

	strlcpy(parent, path, sizeof(parent));
	get_parent_directory(parent);
	if (parent[0] != '\0')
		make_dirs(parent);
}

/*
 * Replay a CREATE (truncate: the file made empty) or a WRITE, which only
 * writes into a file that exists: one that is gone was renamed or removed
 * later, and its CREATE, if replay had passed it, would have made it.
 */
static void
redo_write(const char *path, uint64 offset, const char *data, size_t len, bool truncate)
{
	int			fd;

	if (truncate)
		make_parent(path);
	fd = OpenTransientFile(path, O_WRONLY | PG_BINARY | (truncate ? O_CREAT | O_TRUNC : 0));
	if (fd < 0 && !truncate && errno == ENOENT)
		return;
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	while (len > 0)
	{
		ssize_t		n = pg_pwrite(fd, data, len, (off_t) offset);

		if (n <= 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write file \"%s\": %m", path)));
		data += n;
		offset += n;
		len -= n;
	}
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", path)));
}

static void
hs_rmgr_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	char	   *data = XLogRecGetData(record);
	HsWalFileRecord rec;
	char		path[MAXPGPATH];
	char		path2[MAXPGPATH];
	char	   *rest;
	size_t		rest_len;

	memcpy(&rec, data, sizeof(rec));
	if (rec.path_len >= MAXPGPATH || rec.path2_len >= MAXPGPATH)
		elog(PANIC, "hummock_stream WAL record with a path too long");
	memcpy(path, data + sizeof(rec), rec.path_len);
	path[rec.path_len] = '\0';
	memcpy(path2, data + sizeof(rec) + rec.path_len, rec.path2_len);
	path2[rec.path2_len] = '\0';
	rest = data + sizeof(rec) + rec.path_len + rec.path2_len;
	rest_len = XLogRecGetDataLen(record) - sizeof(rec) - rec.path_len - rec.path2_len;

	switch (info)
	{
		case XLOG_HS_FILE_CREATE:
			redo_write(path, 0, NULL, 0, true);
			break;
		case XLOG_HS_FILE_WRITE:
			redo_write(path, rec.offset, rest, rest_len, false);
			break;
		case XLOG_HS_FILE_RENAME:
			{
				struct stat sb;

				/* done before (crash recovery of the primary) if from is gone */
				if (stat(path, &sb) == 0)
				{
					make_parent(path2);
					fsync_fname(path, false);
					durable_rename(path, path2, ERROR);
				}
				break;
			}
		case XLOG_HS_FILE_REMOVE:
			if (InHotStandby && TransactionIdIsValid(rec.conflict_xid))
			{
				RelFileNode node;

				node.spcNode = InvalidOid;
				node.dbNode = rec.dboid;
				node.relNode = InvalidOid;
				ResolveRecoveryConflictWithSnapshot(rec.conflict_xid, node);
			}
			if (unlink(path) < 0 && errno != ENOENT)
				ereport(WARNING,
						(errcode_for_file_access(),
						 errmsg("could not remove file \"%s\": %m", path)));
			break;
		case XLOG_HS_FILE_MKDIR:
			make_dirs(path);
			break;
		case XLOG_HS_REMOVE_TREE:
			{
				struct stat sb;

				if (stat(path, &sb) == 0 && !rmtree(path, true))
					ereport(WARNING,
							(errmsg("could not remove directory \"%s\"", path)));
				break;
			}
		default:
			elog(PANIC, "hummock_stream redo: unknown op code %u", info);
	}
}

static void
hs_rmgr_desc(StringInfo buf, XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	char	   *data = XLogRecGetData(record);
	HsWalFileRecord rec;

	memcpy(&rec, data, sizeof(rec));
	appendBinaryStringInfo(buf, data + sizeof(rec), rec.path_len);
	if (info == XLOG_HS_FILE_WRITE)
		appendStringInfo(buf, " offset " UINT64_FORMAT " len %u", rec.offset,
						 (unsigned) (XLogRecGetDataLen(record) - sizeof(rec) - rec.path_len));
	else if (info == XLOG_HS_FILE_RENAME)
	{
		appendStringInfoString(buf, " to ");
		appendBinaryStringInfo(buf, data + sizeof(rec) + rec.path_len, rec.path2_len);
	}
	else if (info == XLOG_HS_FILE_REMOVE && TransactionIdIsValid(rec.conflict_xid))
		appendStringInfo(buf, " conflict xid %u", rec.conflict_xid);
}

static const char *
hs_rmgr_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_HS_FILE_CREATE:
			return "FILE_CREATE";
		case XLOG_HS_FILE_WRITE:
			return "FILE_WRITE";
		case XLOG_HS_FILE_RENAME:
			return "FILE_RENAME";
		case XLOG_HS_FILE_REMOVE:
			return "FILE_REMOVE";
		case XLOG_HS_FILE_MKDIR:
			return "MKDIR";
		case XLOG_HS_REMOVE_TREE:
			return "REMOVE_TREE";
	}
	return NULL;
}

static RmgrData hs_rmgr = {
	.rm_name = HS_RMGR_NAME,
	.rm_redo = hs_rmgr_redo,
	.rm_desc = hs_rmgr_desc,
	.rm_identify = hs_rmgr_identify,
};

void
HsWalRegister(void)
{
	RegisterCustomRmgr(HS_RMGR_ID, &hs_rmgr);
}
