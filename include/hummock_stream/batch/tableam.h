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

/* hummock_stream.query_consistency */
typedef enum HsConsistency
{
	HS_CONSISTENCY_GLOBAL = 0,	/* one epoch for every relation: the oldest committed */
	HS_CONSISTENCY_PER_TABLE = 1	/* each relation at its own committed epoch */
} HsConsistency;
extern int	hs_query_consistency;

/* hummock_stream.query_epoch (a string GUC holding a uint64; 0 = unset) */
extern uint64 hs_query_epoch;
extern char *hs_query_epoch_string;
/* hummock_stream.wait_timeout: how long a read waits for query_epoch (ms) */
extern int	hs_wait_timeout_ms;
extern bool HsQueryEpochCheck(char **newval, void **extra, GucSource source);
extern void HsQueryEpochAssign(const char *newval, void *extra);

/*
 * The epoch query_consistency = 'global' reads at: the oldest committed
 * epoch of the relations USING hummock (0 if none).
 */
struct HsVersion;
extern uint64 HsGlobalReadEpoch(const struct HsVersion *v);

/*
 * Keys and bytes of table t in the SSTs of v (an estimate: every version
 * and tombstone of a key counts).
 */
extern void HsTableSizeEstimate(const struct HsVersion *v, uint32 t,
								double *keys, uint64 *bytes);

/* What the catalog says of a streaming view (HsViewInfoOf). */
#define HS_VIEW_MAX_KEY_COLUMNS 32
typedef struct HsViewInfo
{
	Oid			relid;			/* hash key */
	Oid			relfilenode;
	uint64		first_epoch;	/* 0: not a streaming view */
	int			n_key_columns;	/* see stream_plan.h, key_columns */
	AttrNumber	key_columns[HS_VIEW_MAX_KEY_COLUMNS];
} HsViewInfo;
extern const HsViewInfo *HsViewInfoOf(Relation rel);

/*
 * The version (a new reference) and epoch a new scan of rel reads, with
 * the epoch pinned until the transaction ends (not in parallel mode).
 */
extern void HsScanResolve(Relation rel, struct HsVersion **version,
						  uint64 *epoch);

/* Is rel a relation USING hummock? */
extern bool HsRelationIsHummock(Relation rel);

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
