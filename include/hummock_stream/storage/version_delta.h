/*-------------------------------------------------------------------------
 *
 * version_delta.h
 *	  Version deltas: the only way a hummock version changes.  Their type,
 *	  builders and persisted encoding.
 *
 * A delta turns version prev_id into version id = prev_id + 1.  The barrier
 * manager persists every delta (in the same transaction as the source
 * positions it consumed) and rebuilds the current version at startup from
 * the latest checkpoint (HsVersionEncode) plus the deltas after it.
 *
 * Kinds and the parts each may carry:
 *
 *	COMMIT			committed epochs {table -> new epoch} (at least one);
 *					SSTs of one new L0 sub-level (may be empty);
 *					change-log appends {table, epochs, new SSTs, old SSTs};
 *					change-log truncations.
 *	COMPACTION		level changes {level, removed object ids, inserted SSTs};
 *					SSTs inserted into one existing L0 sub-level (an
 *					intra-L0 compaction: L0 SSTs merged stay in L0);
 *					the safe epoch the compaction used, and the tables it
 *					compacted further (a later safe epoch of their own);
 *					change-log truncations.
 *	TRUNCATE_LOG	change-log truncations {table, drop entries whose
 *					checkpoint epoch < epoch}.
 *	REMOVE_TABLES	table ids: their info and change log go now, their keys
 *					lazily (compaction).
 *
 * HsVersionApplyDelta (version_apply.h) applies a delta and checks that it
 * keeps every version invariant; decoding checks only the bytes.
 *
 * The persisted encoding is documented in version_delta.c.
 *
 * include/hummock_stream/storage/version_delta.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_VERSION_DELTA_H
#define HS_STORAGE_VERSION_DELTA_H

#include "hummock_stream/storage/version.h"

/* Persisted delta kinds: never change or reuse. */
typedef enum HsDeltaKind
{
	HS_DELTA_COMMIT = 1,
	HS_DELTA_COMPACTION = 2,
	HS_DELTA_TRUNCATE_LOG = 3,
	HS_DELTA_REMOVE_TABLES = 4
} HsDeltaKind;

typedef struct HsTableEpoch
{
	HsTableId	table_id;
	HsEpoch		epoch;
} HsTableEpoch;

typedef struct HsChangeLogAppend
{
	HsTableId	table_id;
	HsChangeLogEntry *entry;	/* owned reference */
} HsChangeLogAppend;

typedef struct HsLevelChange
{
	int			level;			/* 0 = L0 (removals only), 1..HS_MAX_LEVEL */
	int			n_removed;
	uint64_t   *removed;		/* object ids */
	int			n_inserted;
	HsSstInfo **inserted;		/* owned references */
} HsLevelChange;

typedef struct HsVersionDelta
{
	uint64_t	id;
	uint64_t	prev_id;
	HsDeltaKind kind;

	int			n_commits;
	HsTableEpoch *commits;
	int			n_new_l0;
	HsSstInfo **new_l0;			/* owned references */
	int			n_log_appends;
	HsChangeLogAppend *log_appends;
	int			n_level_changes;
	HsLevelChange *level_changes;
	uint64_t	l0_target;		/* COMPACTION: the sub-level l0_inserted join */
	int			n_l0_inserted;
	HsSstInfo **l0_inserted;	/* owned references */
	HsEpoch		safe_epoch;		/* COMPACTION; 0 = none */
	int			n_table_safe;	/* COMPACTION: tables with a later safe epoch */
	HsTableEpoch *table_safe;
	int			n_truncates;
	HsTableEpoch *truncates;
	int			n_removed_tables;
	HsTableId  *removed_tables;

	/* private */
	HsEnv	   *env;
} HsVersionDelta;

/* An empty delta of the given kind from prev_id to prev_id + 1. */
extern HsVersionDelta *HsVersionDeltaCreate(HsEnv *env, HsDeltaKind kind,
											uint64_t prev_id);
extern void HsVersionDeltaFree(HsVersionDelta *d);

/* ---- building (the arguments are copied or referenced) ---- */
extern void HsVersionDeltaAddCommit(HsVersionDelta *d, HsTableId table_id,
									HsEpoch epoch);
/* Add SSTs to the delta's new L0 sub-level (takes references). */
extern void HsVersionDeltaAddL0Ssts(HsVersionDelta *d,
									HsSstInfo *const *ssts, int n);
extern bool HsVersionDeltaAddChangeLog(HsVersionDelta *d, HsTableId table_id,
									   const HsEpoch *epochs, int n_epochs,
									   HsSstInfo *const *new_ssts, int n_new,
									   HsSstInfo *const *old_ssts, int n_old,
									   HsStatus *st);
extern void HsVersionDeltaAddLevelChange(HsVersionDelta *d, int level,
										 const uint64_t *removed,
										 int n_removed,
										 HsSstInfo *const *inserted,
										 int n_inserted);
/* Insert SSTs into L0 sub-level sub_level_id (at most once per delta). */
extern void HsVersionDeltaAddL0Insert(HsVersionDelta *d, uint64_t sub_level_id,
									  HsSstInfo *const *ssts, int n);
/* A compaction kept of table_id only the versions back to epoch. */
extern void HsVersionDeltaAddTableSafeEpoch(HsVersionDelta *d, HsTableId table_id,
											HsEpoch epoch);
extern void HsVersionDeltaAddTruncate(HsVersionDelta *d, HsTableId table_id,
									  HsEpoch epoch);
extern void HsVersionDeltaAddRemovedTable(HsVersionDelta *d,
										  HsTableId table_id);

/* ---- persistence ---- */

/* Encode into buf, replacing its contents. */
extern void HsVersionDeltaEncode(const HsVersionDelta *d, HsBuf *buf);

/*
 * Decode a delta.  HS_CORRUPTION for damaged bytes, HS_NOT_SUPPORTED for an
 * unknown format version, kind or field tag.
 */
extern bool HsVersionDeltaDecode(HsEnv *env, HsSlice data,
								 HsVersionDelta **out, HsStatus *st);

/* The name of a delta kind ("commit", ...). */
extern const char *HsDeltaKindName(HsDeltaKind kind);

#endif							/* HS_STORAGE_VERSION_DELTA_H */
