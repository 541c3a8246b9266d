/*-------------------------------------------------------------------------
 *
 * log_consolidation.h
 *	  The net change of a run of captured rows: an insert and a delete of
 *	  the same row image cancel before any executor evaluates them.
 *
 * See src/stream/log_consolidation.c.
 *
 * include/hummock_stream/stream/log_consolidation.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_LOG_CONSOLIDATION_H
#define HS_STREAM_LOG_CONSOLIDATION_H

#include "access/htup.h"

typedef struct HsLogConsolidation HsLogConsolidation;

/* Where the net rows go: row with sign +1 or -1 (once per unit of net). */
typedef void (*HsLogNetRowCallback) (void *arg, HeapTupleHeader row, int sign);

/* An empty consolidation in a new memory context below parent. */
extern HsLogConsolidation *HsLogConsolidationBegin(MemoryContext parent);

/* Count row (a composite datum's header) with sign (+1 or -1). */
extern void HsLogConsolidationAdd(HsLogConsolidation *c, HeapTupleHeader row, int sign);

/* Does it hold more than maintenance_work_mem (drain it, then go on)? */
extern bool HsLogConsolidationFull(HsLogConsolidation *c);

/*
 * Hand every row whose count is not 0 to cb, in the order of its first
 * appearance, and empty c.
 */
extern void HsLogConsolidationDrain(HsLogConsolidation *c, HsLogNetRowCallback cb, void *arg);

extern void HsLogConsolidationEnd(HsLogConsolidation *c);

#endif							/* HS_STREAM_LOG_CONSOLIDATION_H */
