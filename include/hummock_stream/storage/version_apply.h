/*-------------------------------------------------------------------------
 *
 * version_apply.h
 *	  Applying a version delta to a version.
 *
 * HsVersionApplyDelta turns version N and a delta from N to N + 1 into
 * version N + 1, or refuses the delta.  What a delta is and how it is
 * built and persisted is in version_delta.h; how it is applied, and why,
 * in version_apply.c.
 *
 * Invariants checked (HS_INVALID_ARGUMENT naming the delta and the table,
 * epoch or object; an unknown kind is HS_NOT_SUPPORTED):
 *	- prev_id equals the version's id and id = prev_id + 1;
 *	- the delta carries only the parts its kind may (version_delta.h);
 *	- a commit commits at least one table, each once, at a valid epoch
 *	  newer than its committed one; a commit of a dropped table id whose
 *	  keys are not yet compacted away is refused;
 *	- a commit only adds: one new L0 sub-level, whose SSTs are listed once,
 *	  hold only tables committed by the same delta and reuse no object of
 *	  the version's levels;
 *	- a change-log append belongs to a table committed by the same delta
 *	  (one per table), its epochs ascend, start after the table's previous
 *	  committed epoch and end at the new committed epoch;
 *	- compaction names a level 0..HS_MAX_LEVEL, removes only SSTs present
 *	  at that level, inserts into L0 only through its L0 insertion (into a
 *	  sub-level the version has), inserts no object the levels already
 *	  reference, and leaves every level L1+ sorted and disjoint;
 *	- the result passes HsVersionValidate.
 * A logged table committed without an append loses its change log (stop
 * rule, see version.h).
 *
 * include/hummock_stream/storage/version_apply.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_VERSION_APPLY_H
#define HS_STORAGE_VERSION_APPLY_H

#include "hummock_stream/storage/version.h"
#include "hummock_stream/storage/version_delta.h"

/*
 * Apply delta to v, giving a new version with one reference in *out; v is
 * unchanged.  On failure *out is NULL and st says which invariant broke.
 */
extern bool HsVersionApplyDelta(HsEnv *env, const HsVersion *v,
								const HsVersionDelta *delta, HsVersion **out,
								HsStatus *st);

#endif							/* HS_STORAGE_VERSION_APPLY_H */
