/*-------------------------------------------------------------------------
 *
 * version.h
 *	  The hummock version: which SSTs make up the LSM tree, per-table
 *	  committed epochs and per-table change logs.
 *
 * A version is an immutable snapshot of the storage metadata:
 *
 *	- L0: an ordered list of sub-levels, oldest first (ascending
 *	  sub_level_id); each is a set of SSTs that may overlap each other and
 *	  the other sub-levels.  A commit appends one sub-level with id
 *	  max_sub_level_id + 1 (ids are never reused, even after compaction
 *	  empties a sub-level).  Reads visit sub-levels newest first.
 *	- L1 .. L<HS_MAX_LEVEL>: each sorted by smallest key, SSTs pairwise
 *	  disjoint in table-key range (a user key never spans two SSTs of one
 *	  level).  Deeper levels hold older data.
 *	- tables: {table_id, committed_epoch, safe_epoch} sorted by table id.
 *	  committed_epoch is the newest durable, readable epoch of the table;
 *	  it only grows.  safe_epoch is the oldest epoch a read of the table may
 *	  use: compaction keeps every version newer than its safe epoch but only
 *	  the newest version at or below it, so reads below are refused.
 *	- change logs: per table, entries oldest first, each {epochs
 *	  (non-checkpoint epochs ascending, then the checkpoint epoch), new-value
 *	  SSTs, old-value SSTs}.  A log covers the epochs (start_epoch, last
 *	  checkpoint epoch] without gaps: a commit that advances a logged table
 *	  without appending an entry deletes its log (RisingWave's stop rule).
 *	  The new-value SSTs are the same objects committed to L0; level
 *	  compaction never touches log SSTs, so an object stays alive while the
 *	  levels or any log reference it.
 *	- dropped tables: ids removed from the version whose keys may still lie
 *	  in level SSTs; compaction drops their keys lazily and the id leaves
 *	  the list when no level SST mentions it.  A commit cannot reuse such an
 *	  id, so old keys never resurface under a recycled relation OID.
 *
 * Memory: versions are reference counted and copy-on-write.  SST infos and
 * change-log entries are shared between versions by reference count;
 * HsVersionCopy makes a mutable copy of the arrays, which version_apply.c
 * edits and then publishes.  All counts are plain ints: a version belongs to
 * one process.
 *
 * The full-version encoding (a checkpoint from which later deltas are
 * replayed) is documented in version.c.
 *
 * include/hummock_stream/storage/version.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_VERSION_H
#define HS_STORAGE_VERSION_H

#include "hummock_stream/storage/sst_info.h"

/* Levels below L0: L1 .. L6 (persisted as level numbers; never shrink). */
#define HS_MAX_LEVEL		6

typedef struct HsSubLevel
{
	uint64_t	sub_level_id;
	int			n_ssts;
	HsSstInfo **ssts;			/* may overlap; sorted by smallest key */
} HsSubLevel;

typedef struct HsLevel
{
	int			n_ssts;
	HsSstInfo **ssts;			/* sorted by smallest key, disjoint */
} HsLevel;

typedef struct HsChangeLogEntry
{
	int			n_epochs;
	HsEpoch    *epochs;			/* ascending; the last is the checkpoint */
	int			n_new;
	HsSstInfo **new_ssts;		/* new values (PUT row / DELETE) */
	int			n_old;
	HsSstInfo **old_ssts;		/* old values of Delete/Update (PUT row) */

	/* private */
	HsEnv	   *env;
	int			refcount;
} HsChangeLogEntry;

typedef struct HsTableChangeLog
{
	HsTableId	table_id;
	HsEpoch		start_epoch;	/* exclusive lower end of what is covered */
	int			n_entries;
	HsChangeLogEntry **entries; /* oldest first */
} HsTableChangeLog;

typedef struct HsTableInfo
{
	HsTableId	table_id;
	HsEpoch		committed_epoch;
	HsEpoch		safe_epoch;
} HsTableInfo;

typedef struct HsVersion
{
	uint64_t	id;
	uint64_t	max_sub_level_id;	/* highest L0 sub-level id ever used */
	int			n_sub_levels;
	HsSubLevel *sub_levels;		/* L0, oldest first */
	HsLevel		levels[HS_MAX_LEVEL];	/* levels[i] is L(i + 1) */
	int			n_tables;
	HsTableInfo *tables;		/* sorted by table id */
	int			n_change_logs;
	HsTableChangeLog *change_logs;	/* sorted by table id */
	int			n_dropped;
	HsTableId  *dropped;		/* sorted */

	/* private */
	HsEnv	   *env;
	int			refcount;
} HsVersion;

/* Introspection: one row per L0 sub-level and per non-empty level. */
typedef struct HsLevelSummary
{
	int			level;			/* 0 for an L0 sub-level */
	uint64_t	sub_level_id;	/* L0 only */
	int			n_ssts;
	uint64_t	total_file_size;
	uint64_t	total_entries;
} HsLevelSummary;

/* ---- change-log entries ---- */

/*
 * Build an entry with one reference, taking a reference on every SST.
 * Epochs must be strictly ascending (HS_INVALID_ARGUMENT otherwise).
 */
extern bool HsChangeLogEntryCreate(HsEnv *env, const HsEpoch *epochs,
								   int n_epochs, HsSstInfo *const *new_ssts,
								   int n_new, HsSstInfo *const *old_ssts,
								   int n_old, HsChangeLogEntry **out,
								   HsStatus *st);

/* Takes one more reference to e and returns it. */
static inline HsChangeLogEntry *
HsChangeLogEntryRef(HsChangeLogEntry *e)
{
	e->refcount++;
	return e;
}

extern void HsChangeLogEntryUnref(HsChangeLogEntry *e);

/* Returns the entry's checkpoint epoch (its last epoch). */
static inline HsEpoch
HsChangeLogEntryCheckpointEpoch(const HsChangeLogEntry *e)
{
	return e->epochs[e->n_epochs - 1];
}

/*
 * Entry encoding (inside version deltas and checkpoints):
 *		n_epochs varint32 | epochs varint64 each |
 *		n_new varint32 | SST infos | n_old varint32 | SST infos
 */
extern void HsChangeLogEntryEncode(const HsChangeLogEntry *e, HsBuf *buf);
extern bool HsChangeLogEntryDecode(HsEnv *env, HsCursor *c,
								   const char *what_for,
								   HsChangeLogEntry **out, HsStatus *st);

/* ---- versions ---- */

/* The empty version (id 0, no tables, no SSTs). */
extern HsVersion *HsVersionCreateEmpty(HsEnv *env);

/* Takes one more reference to v and returns it. */
static inline HsVersion *
HsVersionRef(HsVersion *v)
{
	v->refcount++;
	return v;
}

/* Drop one reference; frees at zero.  NULL is ignored. */
extern void HsVersionUnref(HsVersion *v);

/*
 * A private copy with one reference: new arrays, shared SST infos and
 * change-log entries.  Only version_apply.c and tests mutate copies.
 */
extern HsVersion *HsVersionCopy(const HsVersion *v);

/* Table info of table_id, or NULL if the version does not know it. */
extern const HsTableInfo *HsVersionTableInfo(const HsVersion *v,
											 HsTableId table_id);

/* The committed epoch of table_id; false if the table is unknown. */
extern bool HsVersionCommittedEpoch(const HsVersion *v, HsTableId table_id,
									HsEpoch *epoch);

/* The change log of table_id, or NULL. */
extern const HsTableChangeLog *HsVersionChangeLog(const HsVersion *v,
												  HsTableId table_id);

/* Is table_id dropped but not yet compacted away? */
extern bool HsVersionTableDropped(const HsVersion *v, HsTableId table_id);

/*
 * Keys and bytes of table t in the SSTs of v (an estimate: every version
 * and tombstone of a key counts; an SST shared by several tables counts for
 * each a share by its table count).
 */
extern void HsVersionTableSize(const HsVersion *v, HsTableId t, double *keys,
							   uint64_t *bytes);

/*
 * Check that table_id can be read at epoch: the table exists and epoch is
 * not older than its safe epoch.  HS_INVALID_ARGUMENT naming the table
 * otherwise.  (An epoch above the committed epoch reads the committed
 * state.)
 */
extern bool HsVersionCheckReadEpoch(const HsVersion *v, HsTableId table_id,
									HsEpoch epoch, HsStatus *st);

/*
 * Every object id the version references (L0, levels and change logs),
 * sorted ascending and unique, allocated from the env (free with HsFree;
 * *ids is NULL when *n is 0).
 */
extern void HsVersionObjectIds(const HsVersion *v, uint64_t **ids,
							   size_t *n);

/* Does the version reference object_id anywhere? */
extern bool HsVersionReferencesObject(const HsVersion *v, uint64_t object_id);

/*
 * Does an SST of v's levels (L0 sub-levels, L1..) have this object id?
 * Cheaper than HsVersionReferencesObject: change logs, which can hold many
 * entries, are not searched.
 */
extern bool HsVersionLevelsReferenceObject(const HsVersion *v, uint64_t object_id);

/*
 * Level summaries: L0 sub-levels newest first, then L1.. that are
 * non-empty.  *out is allocated from the env (HsFree).
 */
extern void HsVersionLevelSummaries(const HsVersion *v, HsLevelSummary **out,
									int *n);

/*
 * Encode the whole version (a checkpoint) into buf (replacing its
 * contents); decode it back.  Decoding validates the level invariants and
 * reports violations as HS_CORRUPTION.
 */
extern void HsVersionEncode(const HsVersion *v, HsBuf *buf);
extern bool HsVersionDecode(HsEnv *env, HsSlice data, HsVersion **out,
							HsStatus *st);

/*
 * Check the structural invariants (sorted tables, disjoint sorted levels,
 * ascending sub-level ids, ascending change-log epochs); used after every
 * delta in debug builds and by tests.  HS_CORRUPTION on a violation.
 */
extern bool HsVersionValidate(const HsVersion *v, HsStatus *st);

#endif							/* HS_STORAGE_VERSION_H */
