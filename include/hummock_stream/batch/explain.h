/*-------------------------------------------------------------------------
 *
 * explain.h
 *	  EXPLAIN shows the epoch each relation USING hummock is read at and,
 *	  with ANALYZE, the SST blocks read (explain.c).
 *
 * include/hummock_stream/batch/explain.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_BATCH_EXPLAIN_H
#define HS_BATCH_EXPLAIN_H

extern void HsExplainInstall(void);

#endif							/* HS_BATCH_EXPLAIN_H */
