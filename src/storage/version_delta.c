/*-------------------------------------------------------------------------
 *
 * version_delta.c
 *	  Building, encoding and decoding version deltas.
 *
 * A delta is plain data: the builders below copy or take references to
 * what they are given and check only what a part must be on its own (a
 * change-log entry's epochs ascend); whether the delta fits the version it
 * is applied to is decided by HsVersionApplyDelta (version_apply.c).
 *
 * Delta format (persisted; never change, add tags instead), framed by
 * meta_record.h with magic "HSVD" and format version 1:
 *
 *		tag 1 HEADER			kind byte (HsDeltaKind) | id varint64 |
 *								prev_id varint64	(exactly once, first)
 *		tag 2 COMMIT_EPOCH		table_id varint32 | epoch varint64
 *		tag 3 NEW_L0_SSTS		SST list (sst_info.h)	(at most once)
 *		tag 4 CHANGE_LOG_APPEND table_id varint32 | change-log entry
 *								(HsChangeLogEntryEncode, version.h)
 *		tag 5 LEVEL_CHANGE		level varint32 | n_removed varint32 |
 *								n_removed object ids varint64 |
 *								SST list of the inserted SSTs
 *		tag 6 SAFE_EPOCH		epoch varint64		(at most once)
 *		tag 7 TRUNCATE_LOG		table_id varint32 | epoch varint64
 *		tag 8 REMOVE_TABLE		table_id varint32
 *		tag 9 L0_INSERT			sub_level_id varint64 | SST list of the SSTs
 *								inserted into that L0 sub-level (at most once)
 *		tag 10 TABLE_SAFE_EPOCH table_id varint32 | epoch varint64: a table
 *								whose older versions the compaction dropped
 *								up to a later epoch than SAFE_EPOCH
 *
 * where an SST list is "n varint32 | n SST infos", encoded and decoded by
 * HsSstInfoListEncode/Decode.  Fields are written in tag order, repeated
 * tags in the order of the delta's arrays; a decoder accepts any order
 * after the header.
 *
 * A kind byte this build does not know is HS_NOT_SUPPORTED, as is an
 * unknown tag; which parts a kind may carry is checked when the delta is
 * applied, not when it is decoded, so that a damaged-but-parsable delta
 * and a wrong one are told apart (HS_CORRUPTION vs HS_INVALID_ARGUMENT).
 *
 * src/storage/version_delta.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hummock_stream/storage/meta_record.h"
#include "hummock_stream/storage/version_delta.h"

#define DELTA_MAGIC		"HSVD"
#define DELTA_FORMAT	1
#define DELTA_WHAT		"version delta"

/* Persisted field tags of a delta: never reuse. */
#define TAG_HEADER				1
#define TAG_COMMIT_EPOCH		2
#define TAG_NEW_L0_SSTS			3
#define TAG_CHANGE_LOG_APPEND	4
#define TAG_LEVEL_CHANGE		5
#define TAG_SAFE_EPOCH			6
#define TAG_TRUNCATE_LOG		7
#define TAG_REMOVE_TABLE		8
#define TAG_L0_INSERT			9
#define TAG_TABLE_SAFE_EPOCH	10

/* Returns the name of a delta kind ("unknown" for a value it does not know). */
const char *
HsDeltaKindName(HsDeltaKind kind)
{
	switch (kind)
	{
		case HS_DELTA_COMMIT:
			return "commit";
		case HS_DELTA_COMPACTION:
			return "compaction";
		case HS_DELTA_TRUNCATE_LOG:
			return "truncate_log";
		case HS_DELTA_REMOVE_TABLES:
			return "remove_tables";
	}
	return "unknown";
}

/* ----------------------------------------------------------------
 *		building
 * ----------------------------------------------------------------
 */
/* Returns an empty delta of kind from prev_id to prev_id + 1. */
HsVersionDelta *
HsVersionDeltaCreate(HsEnv *env, HsDeltaKind kind, uint64_t prev_id)
{
	HsVersionDelta *d = HsAllocZero(env, sizeof(HsVersionDelta));

	d->env = env;
	d->kind = kind;
	d->prev_id = prev_id;
	d->id = prev_id + 1;
	return d;
}

/* Frees the delta and drops its references. */
void
HsVersionDeltaFree(HsVersionDelta *d)
{
	HsEnv	   *env;
	int			i;

	if (d == NULL)
		return;
	env = d->env;
	if (d->commits)
		HsFree(env, d->commits);
	HsSstInfoArrayFree(env, d->new_l0, d->n_new_l0);
	HsSstInfoArrayFree(env, d->l0_inserted, d->n_l0_inserted);
	for (i = 0; i < d->n_log_appends; i++)
		HsChangeLogEntryUnref(d->log_appends[i].entry);
	if (d->log_appends)
		HsFree(env, d->log_appends);
	for (i = 0; i < d->n_level_changes; i++)
	{
		HsLevelChange *lc = &d->level_changes[i];

		if (lc->removed)
			HsFree(env, lc->removed);
		HsSstInfoArrayFree(env, lc->inserted, lc->n_inserted);
	}
	if (d->level_changes)
		HsFree(env, d->level_changes);
	if (d->truncates)
		HsFree(env, d->truncates);
	if (d->table_safe)
		HsFree(env, d->table_safe);
	if (d->removed_tables)
		HsFree(env, d->removed_tables);
	HsFree(env, d);
}

/* Grows an array of elem_size elements by one; returns the new slot. */
static void *
grow_one(HsEnv *env, void **arr, int *n, size_t elem_size)
{
	char	   *p = HsRealloc(env, *arr, elem_size * (size_t) (*n + 1));

	*arr = p;
	memset(p + elem_size * (size_t) *n, 0, elem_size);
	return p + elem_size * (size_t) (*n)++;
}

/* Records that the delta commits table_id at epoch. */
void
HsVersionDeltaAddCommit(HsVersionDelta *d, HsTableId table_id, HsEpoch epoch)
{
	HsTableEpoch *te = grow_one(d->env, (void **) &d->commits, &d->n_commits,
								sizeof(HsTableEpoch));

	te->table_id = table_id;
	te->epoch = epoch;
}

/* Adds references to ssts to the delta's new L0 sub-level. */
void
HsVersionDeltaAddL0Ssts(HsVersionDelta *d, HsSstInfo *const *ssts, int n)
{
	HsSstInfoArrayAppend(d->env, &d->new_l0, &d->n_new_l0, ssts, n);
}

/* Adds a change-log entry for table_id (fails if its epochs do not ascend). */
bool
HsVersionDeltaAddChangeLog(HsVersionDelta *d, HsTableId table_id,
						   const HsEpoch *epochs, int n_epochs,
						   HsSstInfo *const *new_ssts, int n_new,
						   HsSstInfo *const *old_ssts, int n_old,
						   HsStatus *st)
{
	HsChangeLogEntry *e;
	HsChangeLogAppend *a;

	if (!HsChangeLogEntryCreate(d->env, epochs, n_epochs, new_ssts, n_new,
								old_ssts, n_old, &e, st))
		return false;
	a = grow_one(d->env, (void **) &d->log_appends, &d->n_log_appends,
				 sizeof(HsChangeLogAppend));
	a->table_id = table_id;
	a->entry = e;
	return true;
}

/* Adds a level change: object ids removed from level, SSTs inserted. */
void
HsVersionDeltaAddLevelChange(HsVersionDelta *d, int level,
							 const uint64_t *removed, int n_removed,
							 HsSstInfo *const *inserted, int n_inserted)
{
	HsLevelChange *lc = grow_one(d->env, (void **) &d->level_changes,
								 &d->n_level_changes, sizeof(HsLevelChange));

	lc->level = level;
	lc->n_removed = n_removed;
	lc->removed = HsAlloc(d->env, sizeof(uint64_t) * (n_removed ? n_removed : 1));
	if (n_removed)
		memcpy(lc->removed, removed, sizeof(uint64_t) * n_removed);
	lc->n_inserted = n_inserted;
	lc->inserted = HsSstInfoArrayCopy(d->env, inserted, n_inserted);
}

/* Adds references to ssts to the SSTs inserted into L0 sub-level sub_level_id. */
void
HsVersionDeltaAddL0Insert(HsVersionDelta *d, uint64_t sub_level_id,
						  HsSstInfo *const *ssts, int n)
{
	d->l0_target = sub_level_id;
	HsSstInfoArrayAppend(d->env, &d->l0_inserted, &d->n_l0_inserted, ssts, n);
}

/* Records that table_id's change log drops checkpoints below epoch. */
void
HsVersionDeltaAddTruncate(HsVersionDelta *d, HsTableId table_id,
						  HsEpoch epoch)
{
	HsTableEpoch *te = grow_one(d->env, (void **) &d->truncates,
								&d->n_truncates, sizeof(HsTableEpoch));

	te->table_id = table_id;
	te->epoch = epoch;
}

void
HsVersionDeltaAddTableSafeEpoch(HsVersionDelta *d, HsTableId table_id, HsEpoch epoch)
{
	HsTableEpoch *te = grow_one(d->env, (void **) &d->table_safe,
								&d->n_table_safe, sizeof(HsTableEpoch));

	te->table_id = table_id;
	te->epoch = epoch;
}

/* Records that the delta removes table_id. */
void
HsVersionDeltaAddRemovedTable(HsVersionDelta *d, HsTableId table_id)
{
	HsTableId  *t = grow_one(d->env, (void **) &d->removed_tables,
							 &d->n_removed_tables, sizeof(HsTableId));

	*t = table_id;
}

/* ----------------------------------------------------------------
 *		encoding
 * ----------------------------------------------------------------
 */
/* Encodes the delta into buf in the format above, replacing its contents. */
void
HsVersionDeltaEncode(const HsVersionDelta *d, HsBuf *buf)
{
	HsBuf		body;
	int			i;
	int			j;

	HsBufInit(&body, d->env);
	HsMetaRecordBegin(buf, DELTA_MAGIC, DELTA_FORMAT);

	HsBufPutByte(&body, (uint8_t) d->kind);
	HsBufPutVarint64(&body, d->id);
	HsBufPutVarint64(&body, d->prev_id);
	HsMetaRecordField(buf, TAG_HEADER, HsBufSlice(&body));

	for (i = 0; i < d->n_commits; i++)
	{
		HsBufReset(&body);
		HsBufPutVarint32(&body, d->commits[i].table_id);
		HsBufPutVarint64(&body, d->commits[i].epoch);
		HsMetaRecordField(buf, TAG_COMMIT_EPOCH, HsBufSlice(&body));
	}
	if (d->n_new_l0 > 0)
	{
		HsBufReset(&body);
		HsSstInfoListEncode(d->new_l0, d->n_new_l0, &body);
		HsMetaRecordField(buf, TAG_NEW_L0_SSTS, HsBufSlice(&body));
	}
	for (i = 0; i < d->n_log_appends; i++)
	{
		HsBufReset(&body);
		HsBufPutVarint32(&body, d->log_appends[i].table_id);
		HsChangeLogEntryEncode(d->log_appends[i].entry, &body);
		HsMetaRecordField(buf, TAG_CHANGE_LOG_APPEND, HsBufSlice(&body));
	}
	for (i = 0; i < d->n_level_changes; i++)
	{
		const HsLevelChange *lc = &d->level_changes[i];

		HsBufReset(&body);
		HsBufPutVarint32(&body, (uint32_t) lc->level);
		HsBufPutVarint32(&body, (uint32_t) lc->n_removed);
		for (j = 0; j < lc->n_removed; j++)
			HsBufPutVarint64(&body, lc->removed[j]);
		HsSstInfoListEncode(lc->inserted, lc->n_inserted, &body);
		HsMetaRecordField(buf, TAG_LEVEL_CHANGE, HsBufSlice(&body));
	}
	if (d->safe_epoch != 0)
	{
		HsBufReset(&body);
		HsBufPutVarint64(&body, d->safe_epoch);
		HsMetaRecordField(buf, TAG_SAFE_EPOCH, HsBufSlice(&body));
	}
	for (i = 0; i < d->n_truncates; i++)
	{
		HsBufReset(&body);
		HsBufPutVarint32(&body, d->truncates[i].table_id);
		HsBufPutVarint64(&body, d->truncates[i].epoch);
		HsMetaRecordField(buf, TAG_TRUNCATE_LOG, HsBufSlice(&body));
	}
	for (i = 0; i < d->n_removed_tables; i++)
	{
		HsBufReset(&body);
		HsBufPutVarint32(&body, d->removed_tables[i]);
		HsMetaRecordField(buf, TAG_REMOVE_TABLE, HsBufSlice(&body));
	}
	if (d->n_l0_inserted > 0)
	{
		HsBufReset(&body);
		HsBufPutVarint64(&body, d->l0_target);
		HsSstInfoListEncode(d->l0_inserted, d->n_l0_inserted, &body);
		HsMetaRecordField(buf, TAG_L0_INSERT, HsBufSlice(&body));
	}
	for (i = 0; i < d->n_table_safe; i++)
	{
		HsBufReset(&body);
		HsBufPutVarint32(&body, d->table_safe[i].table_id);
		HsBufPutVarint64(&body, d->table_safe[i].epoch);
		HsMetaRecordField(buf, TAG_TABLE_SAFE_EPOCH, HsBufSlice(&body));
	}
	HsMetaRecordFinish(buf);
	HsBufFree(&body);
}

/* Checks that c consumed the body of field tag exactly. */
static inline bool
body_done(HsCursor *c, uint32_t tag, HsStatus *st)
{
	return HsMetaRecordBodyDone(c, DELTA_WHAT, tag, st);
}

/*
 * Decodes a delta in the format above: the header first, parts that may
 * appear once at most once, every body consumed exactly.
 */
bool
HsVersionDeltaDecode(HsEnv *env, HsSlice data, HsVersionDelta **out,
					 HsStatus *st)
{
	HsCursor	fields;
	uint32_t	format;
	HsVersionDelta *d = NULL;
	bool		seen_l0 = false;
	bool		seen_safe = false;
	bool		seen_l0_insert = false;

	*out = NULL;
	if (!HsMetaRecordOpen(data, DELTA_MAGIC, DELTA_FORMAT, DELTA_WHAT,
						  &fields, &format, st))
		return false;
	for (;;)
	{
		uint32_t	tag;
		HsSlice		body;
		bool		done;
		HsCursor	c;
		uint32_t	u32 = 0;
		uint64_t	u64 = 0;

		if (!HsMetaRecordNext(&fields, DELTA_WHAT, &tag, &body, &done, st))
			goto fail;
		if (done)
			break;
		HsCursorInit(&c, body);
		if (d == NULL && tag != TAG_HEADER)
		{
			HsMetaRecordBadBody(st, DELTA_WHAT, tag,
								"The header field must come first.");
			goto fail;
		}
		switch (tag)
		{
			case TAG_HEADER:
				{
					uint8_t		kind = 0;
					uint64_t	id = 0;
					uint64_t	prev = 0;

					if (d != NULL)
					{
						HsMetaRecordBadBody(st, DELTA_WHAT, tag,
											"The header appears twice.");
						goto fail;
					}
					HsCursorGetByte(&c, &kind);
					HsCursorGetVarint64(&c, &id);
					HsCursorGetVarint64(&c, &prev);
					if (!body_done(&c, tag, st))
						return false;
					if (kind < HS_DELTA_COMMIT || kind > HS_DELTA_REMOVE_TABLES)
					{
						HsStatusSet(st, HS_NOT_SUPPORTED,
									"unknown %s kind %u", DELTA_WHAT, kind);
						return HsStatusDetail(st, "The delta was written by a newer version of hummock_stream.");
					}
					d = HsVersionDeltaCreate(env, (HsDeltaKind) kind, prev);
					d->id = id;
				}
				break;
			case TAG_COMMIT_EPOCH:
				HsCursorGetVarint32(&c, &u32);
				HsCursorGetVarint64(&c, &u64);
				if (!body_done(&c, tag, st))
					goto fail;
				HsVersionDeltaAddCommit(d, u32, u64);
				break;
			case TAG_NEW_L0_SSTS:
				if (seen_l0)
				{
					HsMetaRecordBadBody(st, DELTA_WHAT, tag,
										"The new L0 sub-level appears twice.");
					goto fail;
				}
				seen_l0 = true;
				if (!HsSstInfoListDecode(env, &c, DELTA_WHAT, &d->new_l0,
										 &d->n_new_l0, st) ||
					!body_done(&c, tag, st))
					goto fail;
				break;
			case TAG_CHANGE_LOG_APPEND:
				{
					HsChangeLogEntry *e;
					HsChangeLogAppend *a;

					if (!HsCursorGetVarint32(&c, &u32))
					{
						body_done(&c, tag, st);
						goto fail;
					}
					if (!HsChangeLogEntryDecode(env, &c, DELTA_WHAT, &e, st))
						goto fail;
					a = grow_one(env, (void **) &d->log_appends,
								 &d->n_log_appends, sizeof(HsChangeLogAppend));
					a->table_id = u32;
					a->entry = e;
					if (!body_done(&c, tag, st))
						goto fail;
				}
				break;
			case TAG_LEVEL_CHANGE:
				{
					HsLevelChange *lc;
					uint32_t	level = 0;
					uint32_t	n_removed = 0;
					uint32_t	i;

					HsCursorGetVarint32(&c, &level);
					HsCursorGetVarint32(&c, &n_removed);
					if (!c.ok || level > HS_MAX_LEVEL ||
						n_removed > HsCursorRemaining(&c))
					{
						HsMetaRecordBadBody(st, DELTA_WHAT, tag,
											"The level number or removal count is bad.");
						goto fail;
					}
					lc = grow_one(env, (void **) &d->level_changes,
								  &d->n_level_changes, sizeof(HsLevelChange));
					lc->level = (int) level;
					lc->removed = HsAlloc(env, sizeof(uint64_t) *
										  (n_removed ? n_removed : 1));
					for (i = 0; i < n_removed; i++)
					{
						if (!HsCursorGetVarint64(&c, &lc->removed[i]))
						{
							body_done(&c, tag, st);
							goto fail;
						}
						lc->n_removed++;
					}
					if (!HsSstInfoListDecode(env, &c, DELTA_WHAT,
											 &lc->inserted, &lc->n_inserted,
											 st) ||
						!body_done(&c, tag, st))
						goto fail;
				}
				break;
			case TAG_SAFE_EPOCH:
				if (seen_safe)
				{
					HsMetaRecordBadBody(st, DELTA_WHAT, tag,
										"The safe epoch appears twice.");
					goto fail;
				}
				seen_safe = true;
				HsCursorGetVarint64(&c, &d->safe_epoch);
				if (!body_done(&c, tag, st))
					goto fail;
				break;
			case TAG_TRUNCATE_LOG:
				HsCursorGetVarint32(&c, &u32);
				HsCursorGetVarint64(&c, &u64);
				if (!body_done(&c, tag, st))
					goto fail;
				HsVersionDeltaAddTruncate(d, u32, u64);
				break;
			case TAG_REMOVE_TABLE:
				HsCursorGetVarint32(&c, &u32);
				if (!body_done(&c, tag, st))
					goto fail;
				HsVersionDeltaAddRemovedTable(d, u32);
				break;
			case TAG_L0_INSERT:
				if (seen_l0_insert)
				{
					HsMetaRecordBadBody(st, DELTA_WHAT, tag,
										"The L0 insertion appears twice.");
					goto fail;
				}
				seen_l0_insert = true;
				if (!HsCursorGetVarint64(&c, &d->l0_target))
				{
					body_done(&c, tag, st);
					goto fail;
				}
				if (!HsSstInfoListDecode(env, &c, DELTA_WHAT, &d->l0_inserted,
										 &d->n_l0_inserted, st) ||
					!body_done(&c, tag, st))
					goto fail;
				break;
			case TAG_TABLE_SAFE_EPOCH:
				HsCursorGetVarint32(&c, &u32);
				HsCursorGetVarint64(&c, &u64);
				if (!body_done(&c, tag, st))
					goto fail;
				HsVersionDeltaAddTableSafeEpoch(d, u32, u64);
				break;
			default:
				HsMetaRecordUnknownTag(st, DELTA_WHAT, tag);
				goto fail;
		}
	}
	if (d == NULL)
	{
		HsStatusSet(st, HS_CORRUPTION, "%s has no header", DELTA_WHAT);
		HsStatusDetail(st, "The record holds no fields.");
		return false;
	}
	*out = d;
	return true;

fail:
	HsVersionDeltaFree(d);
	return false;
}
