/*-------------------------------------------------------------------------
 *
 * capture_marks.h
 *	  Per captured table, the newest transaction that wrote its capture
 *	  log, in shared memory (capture_marks.c): a job skips the capture-log
 *	  query of an input no transaction could have written since its
 *	  position.
 *
 * include/hummock_stream/stream/capture_marks.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_CAPTURE_MARKS_H
#define HS_STREAM_CAPTURE_MARKS_H

#include "access/transam.h"

extern Size HsCaptureMarksShmemSize(void);
extern void HsCaptureMarksShmemInit(void *ptr, bool found);

/* Transaction fxid writes relid's capture log (before its rows go in). */
extern void HsCaptureMarkWrite(Oid relid, FullTransactionId fxid);

/*
 * True if no transaction with an xid at or above xmin has written relid's
 * capture log (so a snapshot whose xmin it is sees every row the log has):
 * false when it may have, or when relid has no mark yet (one is made).
 */
extern bool HsCaptureUnwrittenSince(Oid relid, uint64 xmin);

#endif							/* HS_STREAM_CAPTURE_MARKS_H */
