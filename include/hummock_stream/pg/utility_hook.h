/*-------------------------------------------------------------------------
 *
 * utility_hook.h
 *	  ProcessUtility hook of hummock_stream.
 *
 * include/hummock_stream/pg/utility_hook.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_PG_UTILITY_HOOK_H
#define HS_PG_UTILITY_HOOK_H

extern void HsUtilityHookInstall(void);

#endif							/* HS_PG_UTILITY_HOOK_H */
