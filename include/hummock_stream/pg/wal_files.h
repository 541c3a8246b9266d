/*-------------------------------------------------------------------------
 *
 * wal_files.h
 *	  WAL records for the files of the object directory, and their redo
 *	  (wal_files.c): standbys, PITR and crash recovery get every SST.
 *
 * include/hummock_stream/pg/wal_files.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_PG_WAL_FILES_H
#define HS_PG_WAL_FILES_H

/* Register the resource manager (from _PG_init, while preloading). */
extern void HsWalRegister(void);

/*
 * Log a file operation under pg_hummock/ (others, and anything during
 * recovery, are not logged).  Each is logged before it is done, except a
 * write, which is logged with its bytes.
 */
extern void HsWalLogFileCreate(const char *path);
extern void HsWalLogFileWrite(const char *path, uint64 offset, const void *buf,
							  size_t len);
extern void HsWalLogFileRename(const char *from, const char *to);
extern void HsWalLogFileRemove(const char *path);
extern void HsWalLogMakeDir(const char *path);
extern void HsWalLogRemoveTree(const char *path);

/*
 * mkdir -p of dir (what a MKDIR record's redo does too): 0, or the errno
 * of the component that could not be made (its path in failed).
 */
extern int	HsMakeDirectories(const char *dir, char *failed, size_t failed_len);

/*
 * The xid standby queries that may still read the files removed next
 * conflict with (the transaction that made them stale); invalid: none.
 */
extern void HsWalSetRemoveConflict(TransactionId xid);

#endif							/* HS_PG_WAL_FILES_H */
