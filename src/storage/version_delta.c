/*-------------------------------------------------------------------------
 *
 * version_delta.c
 *	  Building, encoding and applying version deltas.
 *
 * Delta format (persisted; never change, add tags instead), framed by
 * meta_record.h with magic "HSVD" and format version 1:
 *
 *		tag 1 HEADER			kind byte (HsDeltaKind) | id varint64 |
 *								prev_id varint64	(exactly once, first)
 *		tag 2 COMMIT_EPOCH		table_id varint32 | epoch varint64
 *		tag 3 NEW_L0_SSTS		n varint32 | n SST infos (sst_info.h)
 *								(at most once)
 *		tag 4 CHANGE_LOG_APPEND table_id varint32 | change-log entry
 *								(HsChangeLogEntryEncode, version.h)
 *		tag 5 LEVEL_CHANGE		level varint32 | n_removed varint32 |
 *								n_removed object ids varint64 |
 *								n varint32 | n SST infos
 *		tag 6 SAFE_EPOCH		epoch varint64		(at most once)
 *		tag 7 TRUNCATE_LOG		table_id varint32 | epoch varint64
 *		tag 8 REMOVE_TABLE		table_id varint32
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
	if (d->removed_tables)
		HsFree(env, d->removed_tables);
	HsFree(env, d);
}

/* Grow an array of elem_size elements by one; returns the new slot. */
static void *
grow_one(HsEnv *env, void **arr, int *n, size_t elem_size)
{
	char	   *p = HsRealloc(env, *arr, elem_size * (size_t) (*n + 1));

	*arr = p;
	memset(p + elem_size * (size_t) *n, 0, elem_size);
	return p + elem_size * (size_t) (*n)++;
}

void
HsVersionDeltaAddCommit(HsVersionDelta *d, HsTableId table_id, HsEpoch epoch)
{
	HsTableEpoch *te = grow_one(d->env, (void **) &d->commits, &d->n_commits,
								sizeof(HsTableEpoch));

	te->table_id = table_id;
	te->epoch = epoch;
}

void
HsVersionDeltaAddL0Ssts(HsVersionDelta *d, HsSstInfo *const *ssts, int n)
{
	HsSstInfoArrayAppend(d->env, &d->new_l0, &d->n_new_l0, ssts, n);
}

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
	HsMetaRecordFinish(buf);
	HsBufFree(&body);
}

static inline bool
body_done(HsCursor *c, uint32_t tag, HsStatus *st)
{
	return HsMetaRecordBodyDone(c, DELTA_WHAT, tag, st);
}

bool
HsVersionDeltaDecode(HsEnv *env, HsSlice data, HsVersionDelta **out,
					 HsStatus *st)
{
	HsCursor	fields;
	uint32_t	format;
	HsVersionDelta *d = NULL;
	bool		seen_l0 = false;
	bool		seen_safe = false;

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

/* ----------------------------------------------------------------
 *		application
 * ----------------------------------------------------------------
 */

static bool
invalid(HsStatus *st, uint64_t delta_id, const char *msg)
{
	HsStatusSet(st, HS_INVALID_ARGUMENT, "version delta %" PRIu64 ": %s",
				delta_id, msg);
	return false;
}

/* Insert or update a table info in a mutable version (kept sorted). */
static HsTableInfo *
table_upsert(HsVersion *v, HsTableId table_id)
{
	int			i;

	for (i = 0; i < v->n_tables; i++)
	{
		if (v->tables[i].table_id == table_id)
			return &v->tables[i];
		if (v->tables[i].table_id > table_id)
			break;
	}
	v->tables = HsRealloc(v->env, v->tables,
						  sizeof(HsTableInfo) * (v->n_tables + 1));
	memmove(&v->tables[i + 1], &v->tables[i],
			sizeof(HsTableInfo) * (v->n_tables - i));
	v->n_tables++;
	memset(&v->tables[i], 0, sizeof(HsTableInfo));
	v->tables[i].table_id = table_id;
	return &v->tables[i];
}

static void
table_remove(HsVersion *v, HsTableId table_id)
{
	int			i;

	for (i = 0; i < v->n_tables; i++)
		if (v->tables[i].table_id == table_id)
		{
			memmove(&v->tables[i], &v->tables[i + 1],
					sizeof(HsTableInfo) * (v->n_tables - i - 1));
			v->n_tables--;
			return;
		}
}

static HsTableChangeLog *
log_find(HsVersion *v, HsTableId table_id)
{
	int			i;

	for (i = 0; i < v->n_change_logs; i++)
		if (v->change_logs[i].table_id == table_id)
			return &v->change_logs[i];
	return NULL;
}

static HsTableChangeLog *
log_create(HsVersion *v, HsTableId table_id, HsEpoch start_epoch)
{
	int			i;

	for (i = 0; i < v->n_change_logs; i++)
		if (v->change_logs[i].table_id > table_id)
			break;
	v->change_logs = HsRealloc(v->env, v->change_logs,
							   sizeof(HsTableChangeLog) * (v->n_change_logs + 1));
	memmove(&v->change_logs[i + 1], &v->change_logs[i],
			sizeof(HsTableChangeLog) * (v->n_change_logs - i));
	v->n_change_logs++;
	memset(&v->change_logs[i], 0, sizeof(HsTableChangeLog));
	v->change_logs[i].table_id = table_id;
	v->change_logs[i].start_epoch = start_epoch;
	return &v->change_logs[i];
}

static void
log_remove(HsVersion *v, HsTableId table_id)
{
	int			i;
	int			j;

	for (i = 0; i < v->n_change_logs; i++)
		if (v->change_logs[i].table_id == table_id)
		{
			HsTableChangeLog *log = &v->change_logs[i];

			for (j = 0; j < log->n_entries; j++)
				HsChangeLogEntryUnref(log->entries[j]);
			if (log->entries)
				HsFree(v->env, log->entries);
			memmove(&v->change_logs[i], &v->change_logs[i + 1],
					sizeof(HsTableChangeLog) * (v->n_change_logs - i - 1));
			v->n_change_logs--;
			return;
		}
}

/*
 * Append e to log.  An entry without SSTs (a checkpoint that did not
 * change the table) replaces a last entry that has none either: what an
 * empty entry tells a reader is only that the log reaches its checkpoint
 * epoch, so a run of them keeps just the newest, and a log grows with the
 * checkpoints that changed the table, not with every checkpoint.
 */
static void
log_append(HsVersion *v, HsTableChangeLog *log, HsChangeLogEntry *e)
{
	if (e->n_new == 0 && e->n_old == 0 && log->n_entries > 0)
	{
		HsChangeLogEntry *last = log->entries[log->n_entries - 1];

		if (last->n_new == 0 && last->n_old == 0)
		{
			HsChangeLogEntryUnref(last);
			log->entries[log->n_entries - 1] = HsChangeLogEntryRef(e);
			return;
		}
	}
	log->entries = HsRealloc(v->env, log->entries,
							 sizeof(HsChangeLogEntry *) * (log->n_entries + 1));
	log->entries[log->n_entries++] = HsChangeLogEntryRef(e);
}

static void
log_truncate(HsVersion *v, HsTableId table_id, HsEpoch epoch)
{
	HsTableChangeLog *log = log_find(v, table_id);
	int			k = 0;
	int			j;

	if (log == NULL)
		return;
	while (k < log->n_entries &&
		   HsChangeLogEntryCheckpointEpoch(log->entries[k]) < epoch)
		k++;
	if (k == 0)
		return;
	log->start_epoch = HsChangeLogEntryCheckpointEpoch(log->entries[k - 1]);
	for (j = 0; j < k; j++)
		HsChangeLogEntryUnref(log->entries[j]);
	memmove(log->entries, log->entries + k,
			sizeof(HsChangeLogEntry *) * (log->n_entries - k));
	log->n_entries -= k;
}

static bool
level_ssts_mention_table(const HsVersion *v, HsTableId table_id)
{
	int			i;
	int			j;

	for (i = 0; i < v->n_sub_levels; i++)
		for (j = 0; j < v->sub_levels[i].n_ssts; j++)
			if (HsSstInfoHasTable(v->sub_levels[i].ssts[j], table_id))
				return true;
	for (i = 0; i < HS_MAX_LEVEL; i++)
		for (j = 0; j < v->levels[i].n_ssts; j++)
			if (HsSstInfoHasTable(v->levels[i].ssts[j], table_id))
				return true;
	return false;
}

static int
table_id_cmp(const void *a, const void *b)
{
	HsTableId	x = *(const HsTableId *) a;
	HsTableId	y = *(const HsTableId *) b;

	return (x > y) - (x < y);
}

/* Forget dropped ids whose keys are gone from every level. */
static void
prune_dropped(HsVersion *v)
{
	int			i;
	int			k = 0;

	for (i = 0; i < v->n_dropped; i++)
		if (level_ssts_mention_table(v, v->dropped[i]))
			v->dropped[k++] = v->dropped[i];
	v->n_dropped = k;
}

static bool
apply_commit(const HsVersion *v, HsVersion *c, const HsVersionDelta *d,
			 HsStatus *st)
{
	int			i;
	int			j;

	if (d->n_commits == 0)
		return invalid(st, d->id, "commit delta commits no table");

	/* committed epochs */
	for (i = 0; i < d->n_commits; i++)
	{
		HsTableId	t = d->commits[i].table_id;
		HsEpoch		e = d->commits[i].epoch;
		const HsTableInfo *old = HsVersionTableInfo(v, t);
		HsTableInfo *ti;

		for (j = 0; j < i; j++)
			if (d->commits[j].table_id == t)
			{
				invalid(st, d->id, "table committed twice");
				return HsStatusDetail(st, "Table %u appears twice in the commit.", t);
			}
		if (HsVersionTableDropped(v, t))
		{
			invalid(st, d->id, "commit of a dropped table");
			return HsStatusDetail(st, "Table %u was dropped and its keys are not yet compacted away.", t);
		}
		if (e == HS_EPOCH_INVALID)
		{
			invalid(st, d->id, "commit of the invalid epoch");
			return HsStatusDetail(st, "Table %u.", t);
		}
		if (old != NULL && e <= old->committed_epoch)
		{
			HsStatusSet(st, HS_INVALID_ARGUMENT,
						"committed epoch of table %u cannot move from %" PRIu64 " to %" PRIu64,
						t, old->committed_epoch, e);
			return HsStatusDetail(st, "Version delta %" PRIu64 " commits an epoch that is not newer than the committed one.",
								  d->id);
		}
		ti = table_upsert(c, t);
		ti->committed_epoch = e;
	}

	/* the new L0 sub-level */
	if (d->n_new_l0 > 0)
	{
		HsSubLevel *sl;

		for (i = 0; i < d->n_new_l0; i++)
		{
			const HsSstInfo *s = d->new_l0[i];
			uint32_t	k;

			/*
			 * Object ids come from one increasing counter; this guards
			 * against bugs.  Only the levels are searched: searching every
			 * change-log entry would make each commit cost as much as the
			 * logs are long.
			 */
			if (HsVersionLevelsReferenceObject(v, s->object_id))
			{
				invalid(st, d->id, "commit reuses an existing object");
				return HsStatusDetail(st, "Object %" PRIu64 " is already referenced by version %" PRIu64 ".",
									  s->object_id, v->id);
			}
			for (j = 0; j < i; j++)
				if (d->new_l0[j]->object_id == s->object_id)
				{
					invalid(st, d->id, "commit lists an object twice");
					return HsStatusDetail(st, "Object %" PRIu64 ".", s->object_id);
				}
			for (k = 0; k < s->table_count; k++)
			{
				bool		found = false;

				for (j = 0; j < d->n_commits; j++)
					if (d->commits[j].table_id == s->table_ids[k])
						found = true;
				if (!found)
				{
					invalid(st, d->id, "commit adds data of a table it does not commit");
					return HsStatusDetail(st, "Object %" PRIu64 " holds keys of table %u.",
										  s->object_id, s->table_ids[k]);
				}
			}
		}
		c->sub_levels = HsRealloc(c->env, c->sub_levels,
								  sizeof(HsSubLevel) * (c->n_sub_levels + 1));
		sl = &c->sub_levels[c->n_sub_levels++];
		sl->sub_level_id = ++c->max_sub_level_id;
		sl->n_ssts = d->n_new_l0;
		sl->ssts = HsSstInfoArrayCopy(c->env, d->new_l0, d->n_new_l0);
		qsort(sl->ssts, sl->n_ssts, sizeof(HsSstInfo *),
			  HsSstInfoCompareSmallest);
	}

	/* change-log appends */
	for (i = 0; i < d->n_log_appends; i++)
	{
		HsTableId	t = d->log_appends[i].table_id;
		HsChangeLogEntry *e = d->log_appends[i].entry;
		const HsTableInfo *old = HsVersionTableInfo(v, t);
		HsEpoch		prev = old ? old->committed_epoch : HS_EPOCH_INVALID;
		HsEpoch		newe = HS_EPOCH_INVALID;
		HsTableChangeLog *log;

		for (j = 0; j < d->n_commits; j++)
			if (d->commits[j].table_id == t)
				newe = d->commits[j].epoch;
		for (j = 0; j < i; j++)
			if (d->log_appends[j].table_id == t)
			{
				invalid(st, d->id, "two change-log appends for one table");
				return HsStatusDetail(st, "Table %u.", t);
			}
		if (newe == HS_EPOCH_INVALID)
		{
			invalid(st, d->id, "change-log append for a table the delta does not commit");
			return HsStatusDetail(st, "Table %u.", t);
		}
		if (e->epochs[0] <= prev ||
			HsChangeLogEntryCheckpointEpoch(e) != newe)
		{
			HsStatusSet(st, HS_INVALID_ARGUMENT,
						"change-log entry of table %u is out of epoch order",
						t);
			return HsStatusDetail(st, "Version delta %" PRIu64 ": the entry covers epochs %" PRIu64 " to %" PRIu64 "; it must start after the committed epoch %" PRIu64 " and end at the new committed epoch %" PRIu64 ".",
								  d->id, e->epochs[0],
								  HsChangeLogEntryCheckpointEpoch(e), prev,
								  newe);
		}
		log = log_find(c, t);
		if (log == NULL)
			log = log_create(c, t, prev);
		log_append(c, log, e);
	}

	/* stop rule: a logged table committed without an entry loses its log */
	for (i = 0; i < d->n_commits; i++)
	{
		HsTableId	t = d->commits[i].table_id;
		bool		appended = false;

		for (j = 0; j < d->n_log_appends; j++)
			if (d->log_appends[j].table_id == t)
				appended = true;
		if (!appended && log_find(c, t) != NULL)
			log_remove(c, t);
	}
	return true;
}

static int
find_sst(HsSstInfo *const *ssts, int n, uint64_t object_id)
{
	int			i;

	for (i = 0; i < n; i++)
		if (ssts[i]->object_id == object_id)
			return i;
	return -1;
}

static bool
apply_level_change(const HsVersion *v, HsVersion *c, const HsVersionDelta *d,
				   const HsLevelChange *lc, HsStatus *st)
{
	int			i;
	int			j;

	if (lc->level < 0 || lc->level > HS_MAX_LEVEL)
	{
		invalid(st, d->id, "level change names an unknown level");
		return HsStatusDetail(st, "Level %d.", lc->level);
	}
	if (lc->level == 0 && lc->n_inserted > 0)
	{
		invalid(st, d->id, "compaction may not insert into L0");
		return HsStatusDetail(st, "%d SSTs inserted into L0.", lc->n_inserted);
	}
	for (i = 0; i < lc->n_removed; i++)
	{
		uint64_t	id = lc->removed[i];
		bool		found = false;

		if (lc->level == 0)
		{
			for (j = 0; j < c->n_sub_levels && !found; j++)
			{
				HsSubLevel *sl = &c->sub_levels[j];
				int			k = find_sst(sl->ssts, sl->n_ssts, id);

				if (k >= 0)
				{
					HsSstInfoUnref(sl->ssts[k]);
					memmove(&sl->ssts[k], &sl->ssts[k + 1],
							sizeof(HsSstInfo *) * (sl->n_ssts - k - 1));
					sl->n_ssts--;
					found = true;
				}
			}
		}
		else
		{
			HsLevel    *lv = &c->levels[lc->level - 1];
			int			k = find_sst(lv->ssts, lv->n_ssts, id);

			if (k >= 0)
			{
				HsSstInfoUnref(lv->ssts[k]);
				memmove(&lv->ssts[k], &lv->ssts[k + 1],
						sizeof(HsSstInfo *) * (lv->n_ssts - k - 1));
				lv->n_ssts--;
				found = true;
			}
		}
		if (!found)
		{
			invalid(st, d->id, "compaction removes an SST that is not in the level");
			return HsStatusDetail(st, "Object %" PRIu64 " is not in level %d of version %" PRIu64 ".",
								  id, lc->level, v->id);
		}
	}
	/* drop emptied L0 sub-levels */
	if (lc->level == 0)
	{
		int			k = 0;

		for (j = 0; j < c->n_sub_levels; j++)
		{
			if (c->sub_levels[j].n_ssts == 0)
			{
				HsFree(c->env, c->sub_levels[j].ssts);
				continue;
			}
			c->sub_levels[k++] = c->sub_levels[j];
		}
		c->n_sub_levels = k;
	}
	if (lc->n_inserted > 0)
	{
		HsLevel    *lv = &c->levels[lc->level - 1];

		for (i = 0; i < lc->n_inserted; i++)
			if (HsVersionLevelsReferenceObject(v, lc->inserted[i]->object_id))
			{
				invalid(st, d->id, "compaction inserts an object the version already references");
				return HsStatusDetail(st, "Object %" PRIu64 ".",
									  lc->inserted[i]->object_id);
			}
		HsSstInfoArrayAppend(c->env, &lv->ssts, &lv->n_ssts, lc->inserted,
							 lc->n_inserted);
		qsort(lv->ssts, lv->n_ssts, sizeof(HsSstInfo *),
			  HsSstInfoCompareSmallest);
		for (j = 1; j < lv->n_ssts; j++)
			if (HsSstInfoRangesOverlap(lv->ssts[j - 1], lv->ssts[j]))
			{
				invalid(st, d->id, "compaction leaves overlapping SSTs in a level");
				return HsStatusDetail(st, "Objects %" PRIu64 " and %" PRIu64 " overlap in level %d.",
									  lv->ssts[j - 1]->object_id,
									  lv->ssts[j]->object_id, lc->level);
			}
	}
	return true;
}

static bool
check_parts(const HsVersionDelta *d, HsStatus *st)
{
	bool		commit = d->kind == HS_DELTA_COMMIT;
	bool		compaction = d->kind == HS_DELTA_COMPACTION;
	bool		removal = d->kind == HS_DELTA_REMOVE_TABLES;

	if (!commit && (d->n_commits || d->n_new_l0 || d->n_log_appends))
	{
		invalid(st, d->id, "only a commit delta may commit epochs or add L0 data");
		return HsStatusDetail(st, "The delta is of kind %s.",
							  HsDeltaKindName(d->kind));
	}
	if (!compaction && (d->n_level_changes || d->safe_epoch))
	{
		invalid(st, d->id, "only a compaction delta may change levels");
		return HsStatusDetail(st, "The delta is of kind %s.",
							  HsDeltaKindName(d->kind));
	}
	if (!removal && d->n_removed_tables)
	{
		invalid(st, d->id, "only a table-removal delta may remove tables");
		return HsStatusDetail(st, "The delta is of kind %s.",
							  HsDeltaKindName(d->kind));
	}
	if (removal && d->n_truncates)
	{
		invalid(st, d->id, "a table-removal delta may not truncate change logs");
		return false;
	}
	return true;
}

bool
HsVersionApplyDelta(HsEnv *env, const HsVersion *v,
					const HsVersionDelta *d, HsVersion **out, HsStatus *st)
{
	HsVersion  *c;
	int			i;

	*out = NULL;
	if (d->prev_id != v->id || d->id != v->id + 1)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"version delta %" PRIu64 " does not follow version %" PRIu64,
					d->id, v->id);
		return HsStatusDetail(st, "The delta's previous version is %" PRIu64 "; deltas must go from version N to N + 1.",
							  d->prev_id);
	}
	if (d->kind < HS_DELTA_COMMIT || d->kind > HS_DELTA_REMOVE_TABLES)
		return HsStatusSet(st, HS_NOT_SUPPORTED, "unknown version delta kind %d",
						   (int) d->kind);
	if (!check_parts(d, st))
		return false;

	c = HsVersionCopy(v);
	(void) env;
	c->id = d->id;

	switch (d->kind)
	{
		case HS_DELTA_COMMIT:
			if (!apply_commit(v, c, d, st))
				goto fail;
			break;
		case HS_DELTA_COMPACTION:
			for (i = 0; i < d->n_level_changes; i++)
				if (!apply_level_change(v, c, d, &d->level_changes[i], st))
					goto fail;
			if (d->safe_epoch != 0)
			{
				for (i = 0; i < c->n_tables; i++)
				{
					HsTableInfo *ti = &c->tables[i];
					HsEpoch		s = d->safe_epoch < ti->committed_epoch ?
						d->safe_epoch : ti->committed_epoch;

					if (s > ti->safe_epoch)
						ti->safe_epoch = s;
				}
			}
			prune_dropped(c);
			break;
		case HS_DELTA_TRUNCATE_LOG:
			break;
		case HS_DELTA_REMOVE_TABLES:
			for (i = 0; i < d->n_removed_tables; i++)
			{
				HsTableId	t = d->removed_tables[i];

				table_remove(c, t);
				log_remove(c, t);
				if (!HsVersionTableDropped(c, t) &&
					level_ssts_mention_table(c, t))
				{
					c->dropped = HsRealloc(c->env, c->dropped,
										   sizeof(HsTableId) * (c->n_dropped + 1));
					c->dropped[c->n_dropped++] = t;
					qsort(c->dropped, c->n_dropped, sizeof(HsTableId),
						  table_id_cmp);
				}
			}
			break;
	}
	for (i = 0; i < d->n_truncates; i++)
		log_truncate(c, d->truncates[i].table_id, d->truncates[i].epoch);

	if (!HsVersionValidate(c, st))
	{
		HsStatus	inner = *st;

		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"version delta %" PRIu64 " would break a version invariant: %s",
					d->id, inner.msg);
		HsStatusDetail(st, "%s", inner.detail);
		goto fail;
	}
	*out = c;
	return true;

fail:
	HsVersionUnref(c);
	return false;
}
