/*-------------------------------------------------------------------------
 *
 * capture_reader.h
 *	  Read the rows a capture log holds between two barrier snapshots, in
 *	  replay order, straight from the log's heap and txid index.
 *
 * See src/stream/capture_reader.c.
 *
 * include/hummock_stream/stream/capture_reader.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_CAPTURE_READER_H
#define HS_STREAM_CAPTURE_READER_H

#include "access/htup.h"

/* One captured row: its op (HS_CAPTURE_INSERT or _DELETE) and its image. */
typedef void (*HsCaptureRowCallback) (void *arg, char op, HeapTupleHeader row);

/*
 * Call cb for every row of capture log log_relid whose transaction is
 * visible in snapshot `to` and not in `from` (pg_snapshot texts), in
 * (stmt, ord) order.  The caller has an active snapshot in which those
 * transactions are settled (the latest).  Returns false, having called cb
 * for no row, when it cannot do so within maintenance_work_mem or the log
 * has no txid index: the caller then reads the log with a sorting query.
 * No privilege is checked: the caller decides who may read the log.
 */
extern bool HsCaptureReadBetween(Oid log_relid, const char *from, const char *to,
								 HsCaptureRowCallback cb, void *arg);

#endif							/* HS_STREAM_CAPTURE_READER_H */
