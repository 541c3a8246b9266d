/*-------------------------------------------------------------------------
 *
 * compaction.h
 *	  Picking and running compactions, and change-log trimming.
 *
 * Pick (HsCompactionPick):
 *	- L0 first, one group at a time, oldest first: a group is the L0 SSTs
 *	  of a set of tables (an L0 SST, then every L0 SST sharing a table-id
 *	  span with the group, until none is left; other graphs' tables are
 *	  other groups).  A group spanning at least l0_trigger sub-levels goes
 *	  L0 -> L1 (its key range grown over L0 and L1: every SST overlapping
 *	  it) when its L0 bytes are at least 1/l0_min_ratio of the L1 bytes
 *	  the task would rewrite, or when it spans l0_max_sub_levels;
 *	  otherwise its newest sub-levels are merged within L0 (intra-L0,
 *	  output level 0): taken newest first while the next older one is no
 *	  larger than those taken (or than l0_tier_min_size), at least
 *	  l0_trigger of them, the outputs joining the newest one.  A view
 *	  committing every barrier thus rewrites its big L1 range only once
 *	  its new data is 1/l0_min_ratio of it, and its L0 stays a few size
 *	  tiers deep;
 *	  HsCompactionPickL0 takes all of L0 and what of L1 overlaps it;
 *	- otherwise, while the version lists dropped tables, Ln -> Ln+1 for the
 *	  first SST of L1..L<max-1> that holds keys of one (plus the overlapping
 *	  SSTs of Ln+1), so that their keys are eventually compacted away;
 *	- otherwise Ln -> Ln+1 (n >= 1) for the first level whose size exceeds
 *	  its target (level_base_size * level_multiplier^(n-1)): its first SST
 *	  plus the overlapping SSTs of Ln+1.
 *
 * Run (HsCompactionRun): a merge iterator over the inputs (L0 sub-levels
 * newest first, then the upper level, then the lower level) feeds an
 * HsSstWriter cutting SSTs at the target size.  For each table key it
 * keeps every version with epoch > the table's safe epoch and the newest
 * version at or below it, drops the rest, drops a tombstone kept that way when the
 * output level is the bottom (no deeper level holds data, so nothing older
 * can reappear; an intra-L0 output never is), and drops every key of a
 * table the version no longer knows (dropped tables).  The result is a
 * COMPACTION delta: the inputs removed from their levels, the outputs
 * inserted into the output level (intra-L0: into the task's L0 sub-level),
 * the safe epochs recorded.  The delta's ids are those of the version the
 * task was picked from; a caller that applied other deltas meanwhile sets
 * prev_id/id to the current version (removals are by object id and are
 * checked when applied).
 *
 * safe_epoch must be at most the oldest epoch any reader of the *new*
 * version may use: the oldest pinned read epoch and the time-travel
 * retention.  Readers of older pinned versions are unaffected: their SSTs
 * stay until GC sees no pin.
 *
 * Change-log SSTs are never compaction inputs: they are shared with L0 and
 * stay referenced by the log until it is truncated.
 *
 * include/hummock_stream/storage/compaction.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_COMPACTION_H
#define HS_STORAGE_COMPACTION_H

#include "hummock_stream/storage/sst_cache.h"
#include "hummock_stream/storage/sst_writer.h"
#include "hummock_stream/storage/version_delta.h"

typedef struct HsCompactionConfig
{
	int			l0_trigger;		/* sub-levels that trigger L0 -> L1 */
	int			l0_max_sub_levels;	/* ... whatever the sizes, from this many */
	int			l0_min_ratio;	/* below l0_max_sub_levels, only if the L0
								 * bytes x this >= the L1 bytes rewritten */
	uint64_t	l0_tier_min_size;	/* intra-L0 merges sub-levels up to this
									 * size whatever the tiers */
	uint64_t	level_base_size;	/* target size of L1 in bytes */
	int			level_multiplier;	/* each level this many times larger */
} HsCompactionConfig;

/*
 * Defaults: 4 sub-levels (ratio 8, at most 32), tiers from 64 KiB, 256 MiB
 * L1, multiplier 10.
 */
extern void HsCompactionConfigInit(HsCompactionConfig *cfg);

typedef struct HsCompactionTask
{
	int			input_level;	/* 0..HS_MAX_LEVEL-1 */
	int			output_level;	/* input_level + 1, or 0 for intra-L0 */
	uint64_t	l0_target;		/* intra-L0: the sub-level the outputs join */
	int			n_upper;
	HsSstInfo **upper;			/* inputs from input_level, newest first */
	int			n_lower;
	HsSstInfo **lower;			/* overlapping inputs from output_level */
	uint64_t	version_id;		/* picked from */
	HsEnv	   *env;
} HsCompactionTask;

/* A task, or NULL when nothing needs compacting. */
extern HsCompactionTask *HsCompactionPick(const HsVersion *v,
										  const HsCompactionConfig *cfg);

/* A task compacting every L0 SST into L1, or NULL if L0 is empty. */
extern HsCompactionTask *HsCompactionPickL0(const HsVersion *v);

extern void HsCompactionTaskFree(HsCompactionTask *task);

/*
 * Run the task against v (the version it was picked from, or a later one
 * that still holds the inputs) and produce the delta (kind COMPACTION,
 * prev_id = v->id).
 */
/*
 * What a compaction must keep readable: every table back to epoch, except
 * the tables listed (sorted by table id, each epoch later than epoch),
 * which readers need only back to their own epoch, such as the internal
 * state of streaming operators, read only at its newest committed epoch,
 * while time travel keeps views readable back to the retention.
 */
typedef struct HsSafeEpochs
{
	HsEpoch		epoch;
	int			n_tables;
	const HsTableEpoch *tables;
} HsSafeEpochs;

extern bool HsCompactionRun(const HsVersion *v, HsSstCache *cache,
							const HsCompactionTask *task, const HsSafeEpochs *safe,
							const HsSstWriteContext *ctx,
							HsVersionDelta **delta, HsStatus *st);

/* A table whose change log must still be read from epoch on. */
typedef struct HsLogFloor
{
	HsTableId	table_id;
	HsEpoch		epoch;
} HsLogFloor;

/*
 * A TRUNCATE_LOG delta dropping change-log entries whose checkpoint epoch
 * is below retention_epoch, for every logged table, except that a table
 * of floors[0..n_floors) keeps what a read from its floor epoch needs (a
 * downstream view reads it from there); NULL if there is nothing to drop.
 */
extern HsVersionDelta *HsCompactionTrimChangeLogs(const HsVersion *v,
												  HsEpoch retention_epoch,
												  const HsLogFloor *floors,
												  int n_floors);

#endif							/* HS_STORAGE_COMPACTION_H */
