/*-------------------------------------------------------------------------
 *
 * utility_hook.h
 *	  ProcessUtility hook of hummock_stream.
 *
 * include/hummock_stream/entry/utility_hook.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_ENTRY_UTILITY_HOOK_H
#define HS_ENTRY_UTILITY_HOOK_H

extern void HsUtilityHookInstall(void);

/* In pg_upgrade's server: what its restore of views needs, no more. */
extern void HsUtilityHookInstallForUpgrade(void);

#endif							/* HS_ENTRY_UTILITY_HOOK_H */
