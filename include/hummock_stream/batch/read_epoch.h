/*-------------------------------------------------------------------------
 *
 * read_epoch.h
 *	  Which epoch a read of a relation USING hummock sees (read_epoch.c):
 *	  the consistency settings and the epoch of a new scan.
 *
 * include/hummock_stream/batch/read_epoch.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_BATCH_READ_EPOCH_H
#define HS_BATCH_READ_EPOCH_H

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
extern bool HsQueryEpochCheck(char **newval, void **extra, GucSource source);
extern void HsQueryEpochAssign(const char *newval, void *extra);

/*
 * The epoch query_consistency = 'global' reads at: the newest aligned
 * epoch every relation USING hummock that advances committed (0 if none).
 */
struct HsVersion;
extern uint64 HsGlobalReadEpoch(const struct HsVersion *v);

/*
 * The epoch a 'global' read of relation relid (committed at committed,
 * a view's first epoch first, 0 otherwise) uses when the global epoch is g.
 */
extern uint64 HsGlobalEpochOf(Oid relid, uint64 committed, uint64 first, uint64 g);

/* What the catalog says of a streaming view (HsViewInfoOf). */
#define HS_VIEW_MAX_KEY_COLUMNS 32
typedef struct HsViewInfo
{
	Oid			relid;			/* hash key */
	Oid			relfilenode;
	bool		populated;		/* RelationIsPopulated when it was read */
	uint64		first_epoch;	/* 0: not a streaming view (or being created) */
	bool		creating;		/* a view being created (not cached) */
	int			n_key_columns;	/* see stream_plan.h, key_columns */
	AttrNumber	key_columns[HS_VIEW_MAX_KEY_COLUMNS];
} HsViewInfo;
extern const HsViewInfo *HsViewInfoOf(Relation rel);
extern void HsRejectReadOfCreatingView(Relation rel);

/*
 * The version (a new reference) and epoch a new scan of rel reads, with
 * the epoch pinned until the transaction ends (not in parallel mode).
 */
extern void HsScanResolve(Relation rel, struct HsVersion **version,
						  uint64 *epoch);

/*
 * Record the epoch each relation's first scan reads from now on (EXPLAIN
 * ANALYZE), look one up, stop.  A new start forgets what was recorded.
 */
extern void HsScanRecordingStart(void);
extern bool HsScanRecorded(Oid relid, uint64 *epoch);
extern void HsScanRecordingStop(void);

#endif							/* HS_BATCH_READ_EPOCH_H */
