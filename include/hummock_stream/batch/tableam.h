/*-------------------------------------------------------------------------
 *
 * tableam.h
 *	  The "hummock" table access method.
 *
 * include/hummock_stream/batch/tableam.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_BATCH_TABLEAM_H
#define HS_BATCH_TABLEAM_H

#include "access/relscan.h"
#include "utils/guc.h"
#include "utils/rel.h"

struct HsVersion;

/* Is rel a relation USING hummock? */
extern bool HsRelationIsHummock(Relation rel);

/* The error for a write to rel ("insert into", "update", ...). */
extern void HsRejectWrite(Relation rel, const char *what) pg_attribute_noreturn();

/*
 * Restrict a scan of a hummock relation (before its first row) to user
 * keys in [lower, upper); NULL: unbounded on that side.
 */
extern void HsScanSetKeyRange(TableScanDesc scan, const char *lower, int lower_len,
							  const char *upper, int upper_len);

/* Seeks on key quals of streaming views (key_scan.c). */
extern void HsKeyScanInstall(void);

/*
 * Called in the transaction that drops a relation USING hummock: returns
 * the other tables (ids) that go with it, such as a view's state tables,
 * and forgets whatever the layers above keep of it (the streaming job).
 */
typedef List *(*HsHummockDropCallback) (Oid relid);

/*
 * Hooks that reject writes to hummock relations early and remove a
 * dropped relation's data (and on_drop's tables) from the version.
 */
extern void HsTableAmInstallHooks(HsHummockDropCallback on_drop);

/* Scroll cursors over hummock scans get a Material node (backward_scan.c). */
extern void HsBackwardScanInstall(void);

#endif							/* HS_BATCH_TABLEAM_H */
