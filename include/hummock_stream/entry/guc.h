/*-------------------------------------------------------------------------
 *
 * guc.h
 *	  Configuration parameters of hummock_stream (prefix hummock_stream.*).
 *
 * include/hummock_stream/entry/guc.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_ENTRY_GUC_H
#define HS_ENTRY_GUC_H

/* Define every hummock_stream.* setting (each variable lives in its module). */
extern void HsGucDefine(void);

#endif							/* HS_ENTRY_GUC_H */
