/*-------------------------------------------------------------------------
 *
 * version.c
 *	  Hummock versions: construction, copy-on-write, queries and the
 *	  checkpoint encoding.
 *
 * Checkpoint format (persisted; never change, add tags instead), framed
 * by meta_record.h with magic "HSVC" and format version 1:
 *
 *		tag 1 HEADER		id varint64 | max_sub_level_id varint64
 *							(exactly once, first)
 *		tag 2 TABLE			table_id varint32 | committed_epoch varint64 |
 *							safe_epoch varint64			(ascending table id)
 *		tag 3 SUB_LEVEL		sub_level_id varint64 | n varint32 |
 *							n SST infos (sst_info.h)	(L0, oldest first)
 *		tag 4 LEVEL			level varint32 (1..HS_MAX_LEVEL) | n varint32 |
 *							n SST infos					(ascending level)
 *		tag 5 CHANGE_LOG	table_id varint32 | start_epoch varint64 |
 *							n varint32 | n entries (HsChangeLogEntryEncode)
 *		tag 6 DROPPED_TABLE table_id varint32
 *
 * Decoding rebuilds the version and runs HsVersionValidate, so a checkpoint
 * that violates the level invariants is reported as corruption rather than
 * read wrongly later.
 *
 * src/storage/version.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hummock_stream/storage/meta_record.h"
#include "hummock_stream/storage/version.h"

#define CHECKPOINT_MAGIC	"HSVC"
#define CHECKPOINT_FORMAT	1
#define CHECKPOINT_WHAT		"version checkpoint"

/* Persisted field tags of the checkpoint: never reuse. */
#define TAG_HEADER			1
#define TAG_TABLE			2
#define TAG_SUB_LEVEL		3
#define TAG_LEVEL			4
#define TAG_CHANGE_LOG		5
#define TAG_DROPPED_TABLE	6

/* ----------------------------------------------------------------
 *		change-log entries
 * ----------------------------------------------------------------
 */
bool
HsChangeLogEntryCreate(HsEnv *env, const HsEpoch *epochs, int n_epochs,
					   HsSstInfo *const *new_ssts, int n_new,
					   HsSstInfo *const *old_ssts, int n_old,
					   HsChangeLogEntry **out, HsStatus *st)
{
	HsChangeLogEntry *e;
	int			i;

	*out = NULL;
	if (n_epochs <= 0)
		return HsStatusSet(st, HS_INVALID_ARGUMENT,
						   "change-log entry has no epochs");
	for (i = 1; i < n_epochs; i++)
	{
		if (epochs[i] <= epochs[i - 1])
		{
			HsStatusSet(st, HS_INVALID_ARGUMENT,
						"change-log entry epochs are not ascending");
			return HsStatusDetail(st, "Epoch %" PRIu64 " follows epoch %" PRIu64 ".",
								  epochs[i], epochs[i - 1]);
		}
	}
	e = HsAllocZero(env, sizeof(HsChangeLogEntry));
	e->env = env;
	e->refcount = 1;
	e->n_epochs = n_epochs;
	e->epochs = HsAlloc(env, sizeof(HsEpoch) * n_epochs);
	memcpy(e->epochs, epochs, sizeof(HsEpoch) * n_epochs);
	e->n_new = n_new;
	e->new_ssts = HsSstInfoArrayCopy(env, new_ssts, n_new);
	e->n_old = n_old;
	e->old_ssts = HsSstInfoArrayCopy(env, old_ssts, n_old);
	*out = e;
	return true;
}

/* Drops a reference; frees the entry and its SST references at zero. */
void
HsChangeLogEntryUnref(HsChangeLogEntry *e)
{
	if (e == NULL || --e->refcount > 0)
		return;
	HsSstInfoArrayFree(e->env, e->new_ssts, e->n_new);
	HsSstInfoArrayFree(e->env, e->old_ssts, e->n_old);
	HsFree(e->env, e->epochs);
	HsFree(e->env, e);
}

void
HsChangeLogEntryEncode(const HsChangeLogEntry *e, HsBuf *buf)
{
	int			i;

	HsBufPutVarint32(buf, (uint32_t) e->n_epochs);
	for (i = 0; i < e->n_epochs; i++)
		HsBufPutVarint64(buf, e->epochs[i]);
	HsSstInfoListEncode(e->new_ssts, e->n_new, buf);
	HsSstInfoListEncode(e->old_ssts, e->n_old, buf);
}

bool
HsChangeLogEntryDecode(HsEnv *env, HsCursor *c, const char *what_for,
					   HsChangeLogEntry **out, HsStatus *st)
{
	uint32_t	n_epochs;
	uint32_t	i;
	HsEpoch    *epochs;
	HsSstInfo **news = NULL;
	HsSstInfo **olds = NULL;
	int			n_new = 0;
	int			n_old = 0;
	bool		ok;
	HsStatus	inner;

	*out = NULL;
	if (!HsCursorGetVarint32(c, &n_epochs) || n_epochs == 0 ||
		n_epochs > HsCursorRemaining(c))
	{
		HsStatusSet(st, HS_CORRUPTION, "bad change-log entry in %s", what_for);
		return HsStatusDetail(st, "The epoch count is missing, zero or larger than the record.");
	}
	epochs = HsAlloc(env, sizeof(HsEpoch) * n_epochs);
	for (i = 0; i < n_epochs; i++)
	{
		if (!HsCursorGetVarint64(c, &epochs[i]))
		{
			HsFree(env, epochs);
			HsStatusSet(st, HS_CORRUPTION, "truncated change-log entry in %s",
						what_for);
			return HsStatusDetail(st, "The epoch list is cut short.");
		}
	}
	ok = HsSstInfoListDecode(env, c, what_for, &news, &n_new, st) &&
		HsSstInfoListDecode(env, c, what_for, &olds, &n_old, st);
	if (ok)
	{
		ok = HsChangeLogEntryCreate(env, epochs, (int) n_epochs, news, n_new,
									olds, n_old, out, &inner);
		if (!ok)
			HsStatusWrap(st, HS_CORRUPTION, &inner,
						 "invalid change-log entry in %s", what_for);
	}
	HsSstInfoArrayFree(env, news, n_new);
	HsSstInfoArrayFree(env, olds, n_old);
	HsFree(env, epochs);
	return ok;
}

/* ----------------------------------------------------------------
 *		construction and copy
 * ----------------------------------------------------------------
 */
HsVersion *
HsVersionCreateEmpty(HsEnv *env)
{
	HsVersion  *v = HsAllocZero(env, sizeof(HsVersion));

	v->env = env;
	v->refcount = 1;
	return v;
}

HsVersion *
HsVersionCopy(const HsVersion *v)
{
	HsEnv	   *env = v->env;
	HsVersion  *c = HsAllocZero(env, sizeof(HsVersion));
	int			i;
	int			j;

	c->env = env;
	c->refcount = 1;
	c->id = v->id;
	c->max_sub_level_id = v->max_sub_level_id;

	c->n_sub_levels = v->n_sub_levels;
	c->sub_levels = HsAlloc(env, sizeof(HsSubLevel) *
							(v->n_sub_levels ? v->n_sub_levels : 1));
	for (i = 0; i < v->n_sub_levels; i++)
	{
		c->sub_levels[i].sub_level_id = v->sub_levels[i].sub_level_id;
		c->sub_levels[i].n_ssts = v->sub_levels[i].n_ssts;
		c->sub_levels[i].ssts = HsSstInfoArrayCopy(env, v->sub_levels[i].ssts,
												   v->sub_levels[i].n_ssts);
	}
	for (i = 0; i < HS_MAX_LEVEL; i++)
	{
		c->levels[i].n_ssts = v->levels[i].n_ssts;
		c->levels[i].ssts = HsSstInfoArrayCopy(env, v->levels[i].ssts,
											   v->levels[i].n_ssts);
	}

	c->n_tables = v->n_tables;
	c->tables = HsAlloc(env, sizeof(HsTableInfo) *
						(v->n_tables ? v->n_tables : 1));
	if (v->n_tables)
		memcpy(c->tables, v->tables, sizeof(HsTableInfo) * v->n_tables);

	c->n_change_logs = v->n_change_logs;
	c->change_logs = HsAlloc(env, sizeof(HsTableChangeLog) *
							 (v->n_change_logs ? v->n_change_logs : 1));
	for (i = 0; i < v->n_change_logs; i++)
	{
		const HsTableChangeLog *src = &v->change_logs[i];
		HsTableChangeLog *dst = &c->change_logs[i];

		*dst = *src;
		dst->entries = HsAlloc(env, sizeof(HsChangeLogEntry *) *
							   (src->n_entries ? src->n_entries : 1));
		for (j = 0; j < src->n_entries; j++)
			dst->entries[j] = HsChangeLogEntryRef(src->entries[j]);
	}

	c->n_dropped = v->n_dropped;
	c->dropped = HsAlloc(env, sizeof(HsTableId) *
						 (v->n_dropped ? v->n_dropped : 1));
	if (v->n_dropped)
		memcpy(c->dropped, v->dropped, sizeof(HsTableId) * v->n_dropped);
	return c;
}

void
HsVersionUnref(HsVersion *v)
{
	HsEnv	   *env;
	int			i;
	int			j;

	if (v == NULL || --v->refcount > 0)
		return;
	env = v->env;
	for (i = 0; i < v->n_sub_levels; i++)
		HsSstInfoArrayFree(env, v->sub_levels[i].ssts,
						   v->sub_levels[i].n_ssts);
	if (v->sub_levels)
		HsFree(env, v->sub_levels);
	for (i = 0; i < HS_MAX_LEVEL; i++)
		HsSstInfoArrayFree(env, v->levels[i].ssts, v->levels[i].n_ssts);
	if (v->tables)
		HsFree(env, v->tables);
	for (i = 0; i < v->n_change_logs; i++)
	{
		for (j = 0; j < v->change_logs[i].n_entries; j++)
			HsChangeLogEntryUnref(v->change_logs[i].entries[j]);
		if (v->change_logs[i].entries)
			HsFree(env, v->change_logs[i].entries);
	}
	if (v->change_logs)
		HsFree(env, v->change_logs);
	if (v->dropped)
		HsFree(env, v->dropped);
	HsFree(env, v);
}

/* ----------------------------------------------------------------
 *		queries
 * ----------------------------------------------------------------
 */
const HsTableInfo *
HsVersionTableInfo(const HsVersion *v, HsTableId table_id)
{
	int			lo = 0;
	int			hi = v->n_tables;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (v->tables[mid].table_id < table_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < v->n_tables && v->tables[lo].table_id == table_id)
		return &v->tables[lo];
	return NULL;
}

bool
HsVersionCommittedEpoch(const HsVersion *v, HsTableId table_id,
						HsEpoch *epoch)
{
	const HsTableInfo *ti = HsVersionTableInfo(v, table_id);

	if (ti == NULL)
		return false;
	*epoch = ti->committed_epoch;
	return true;
}

const HsTableChangeLog *
HsVersionChangeLog(const HsVersion *v, HsTableId table_id)
{
	int			i;

	for (i = 0; i < v->n_change_logs; i++)
		if (v->change_logs[i].table_id == table_id)
			return &v->change_logs[i];
	return NULL;
}

bool
HsVersionTableDropped(const HsVersion *v, HsTableId table_id)
{
	int			i;

	for (i = 0; i < v->n_dropped; i++)
		if (v->dropped[i] == table_id)
			return true;
	return false;
}

bool
HsVersionCheckReadEpoch(const HsVersion *v, HsTableId table_id,
						HsEpoch epoch, HsStatus *st)
{
	const HsTableInfo *ti = HsVersionTableInfo(v, table_id);

	if (ti == NULL)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"table %u has no committed data in version %" PRIu64,
					table_id, v->id);
		return HsStatusDetail(st, "The table was never committed or has been dropped.");
	}
	if (epoch < ti->safe_epoch)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"epoch %" PRIu64 " of table %u is no longer retained",
					epoch, table_id);
		return HsStatusDetail(st, "The oldest readable epoch of the table is %" PRIu64 "; committed epoch %" PRIu64 ".",
							  ti->safe_epoch, ti->committed_epoch);
	}
	return true;
}

/* qsort comparator of uint64_t. */
static int
u64_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

typedef struct IdList
{
	HsEnv	   *env;
	uint64_t   *ids;
	size_t		n;
	size_t		cap;
} IdList;

/* Appends the object ids of n SSTs to the list. */
static void
id_list_add_ssts(IdList *l, HsSstInfo *const *ssts, int n)
{
	int			i;

	if (l->n + (size_t) n > l->cap)
	{
		l->cap = (l->n + (size_t) n) * 2 + 16;
		l->ids = HsRealloc(l->env, l->ids, l->cap * sizeof(uint64_t));
	}
	for (i = 0; i < n; i++)
		l->ids[l->n++] = ssts[i]->object_id;
}

void
HsVersionObjectIds(const HsVersion *v, uint64_t **ids, size_t *n)
{
	IdList		l;
	int			i;
	int			j;
	size_t		k;
	size_t		m;

	memset(&l, 0, sizeof(l));
	l.env = v->env;
	for (i = 0; i < v->n_sub_levels; i++)
		id_list_add_ssts(&l, v->sub_levels[i].ssts, v->sub_levels[i].n_ssts);
	for (i = 0; i < HS_MAX_LEVEL; i++)
		id_list_add_ssts(&l, v->levels[i].ssts, v->levels[i].n_ssts);
	for (i = 0; i < v->n_change_logs; i++)
	{
		for (j = 0; j < v->change_logs[i].n_entries; j++)
		{
			const HsChangeLogEntry *e = v->change_logs[i].entries[j];

			id_list_add_ssts(&l, e->new_ssts, e->n_new);
			id_list_add_ssts(&l, e->old_ssts, e->n_old);
		}
	}
	if (l.n == 0)
	{
		if (l.ids)
			HsFree(l.env, l.ids);
		*ids = NULL;
		*n = 0;
		return;
	}
	qsort(l.ids, l.n, sizeof(uint64_t), u64_cmp);
	m = 0;
	for (k = 0; k < l.n; k++)
		if (m == 0 || l.ids[m - 1] != l.ids[k])
			l.ids[m++] = l.ids[k];
	*ids = l.ids;
	*n = m;
}

/* Does one of the n SSTs have object_id? */
static bool
ssts_reference(HsSstInfo *const *ssts, int n, uint64_t object_id)
{
	int			i;

	for (i = 0; i < n; i++)
		if (ssts[i]->object_id == object_id)
			return true;
	return false;
}

bool
HsVersionLevelsReferenceObject(const HsVersion *v, uint64_t object_id)
{
	for (int i = 0; i < v->n_sub_levels; i++)
		if (ssts_reference(v->sub_levels[i].ssts, v->sub_levels[i].n_ssts,
						   object_id))
			return true;
	for (int i = 0; i < HS_MAX_LEVEL; i++)
		if (ssts_reference(v->levels[i].ssts, v->levels[i].n_ssts, object_id))
			return true;
	return false;
}

bool
HsVersionReferencesObject(const HsVersion *v, uint64_t object_id)
{
	int			i;
	int			j;

	for (i = 0; i < v->n_sub_levels; i++)
		if (ssts_reference(v->sub_levels[i].ssts, v->sub_levels[i].n_ssts,
						   object_id))
			return true;
	for (i = 0; i < HS_MAX_LEVEL; i++)
		if (ssts_reference(v->levels[i].ssts, v->levels[i].n_ssts, object_id))
			return true;
	for (i = 0; i < v->n_change_logs; i++)
	{
		for (j = 0; j < v->change_logs[i].n_entries; j++)
		{
			const HsChangeLogEntry *e = v->change_logs[i].entries[j];

			if (ssts_reference(e->new_ssts, e->n_new, object_id) ||
				ssts_reference(e->old_ssts, e->n_old, object_id))
				return true;
		}
	}
	return false;
}

/* Fills a level summary from the level's SSTs. */
static void
summarize(HsLevelSummary *s, int level, uint64_t sub_level_id,
		  HsSstInfo *const *ssts, int n)
{
	int			i;

	s->level = level;
	s->sub_level_id = sub_level_id;
	s->n_ssts = n;
	s->total_file_size = 0;
	s->total_entries = 0;
	for (i = 0; i < n; i++)
	{
		s->total_file_size += ssts[i]->file_size;
		s->total_entries += ssts[i]->entry_count;
	}
}

void
HsVersionLevelSummaries(const HsVersion *v, HsLevelSummary **out, int *n)
{
	HsLevelSummary *arr;
	int			k = 0;
	int			i;

	arr = HsAlloc(v->env, sizeof(HsLevelSummary) *
				  (v->n_sub_levels + HS_MAX_LEVEL + 1));
	for (i = v->n_sub_levels - 1; i >= 0; i--)
		summarize(&arr[k++], 0, v->sub_levels[i].sub_level_id,
				  v->sub_levels[i].ssts, v->sub_levels[i].n_ssts);
	for (i = 0; i < HS_MAX_LEVEL; i++)
		if (v->levels[i].n_ssts > 0)
			summarize(&arr[k++], i + 1, 0, v->levels[i].ssts,
					  v->levels[i].n_ssts);
	*out = arr;
	*n = k;
}

/* ----------------------------------------------------------------
 *		validation
 * ----------------------------------------------------------------
 */
bool
HsVersionValidate(const HsVersion *v, HsStatus *st)
{
	int			i;
	int			j;

	for (i = 1; i < v->n_tables; i++)
		if (v->tables[i].table_id <= v->tables[i - 1].table_id)
		{
			HsStatusSet(st, HS_CORRUPTION, "version %" PRIu64 " has unsorted tables",
						v->id);
			return HsStatusDetail(st, "Table %u follows table %u.",
								  v->tables[i].table_id,
								  v->tables[i - 1].table_id);
		}
	for (i = 0; i < v->n_tables; i++)
		if (v->tables[i].safe_epoch > v->tables[i].committed_epoch)
		{
			HsStatusSet(st, HS_CORRUPTION,
						"version %" PRIu64 " has a safe epoch above the committed epoch",
						v->id);
			return HsStatusDetail(st, "Table %u: safe epoch %" PRIu64 ", committed epoch %" PRIu64 ".",
								  v->tables[i].table_id,
								  v->tables[i].safe_epoch,
								  v->tables[i].committed_epoch);
		}
	for (i = 0; i < v->n_sub_levels; i++)
	{
		if ((i > 0 && v->sub_levels[i].sub_level_id <=
			 v->sub_levels[i - 1].sub_level_id) ||
			v->sub_levels[i].sub_level_id > v->max_sub_level_id)
		{
			HsStatusSet(st, HS_CORRUPTION,
						"version %" PRIu64 " has misordered L0 sub-levels", v->id);
			return HsStatusDetail(st, "Sub-level %" PRIu64 " at position %d (highest id %" PRIu64 ").",
								  v->sub_levels[i].sub_level_id, i,
								  v->max_sub_level_id);
		}
		if (v->sub_levels[i].n_ssts == 0)
		{
			HsStatusSet(st, HS_CORRUPTION,
						"version %" PRIu64 " has an empty L0 sub-level", v->id);
			return HsStatusDetail(st, "Sub-level %" PRIu64 ".",
								  v->sub_levels[i].sub_level_id);
		}
	}
	for (i = 0; i < HS_MAX_LEVEL; i++)
	{
		const HsLevel *lv = &v->levels[i];

		for (j = 1; j < lv->n_ssts; j++)
		{
			HsSlice		prev_large = HsFullKeyTableKey(HsSstInfoLargest(lv->ssts[j - 1]));
			HsSlice		small = HsFullKeyTableKey(HsSstInfoSmallest(lv->ssts[j]));

			if (HsSliceCompare(prev_large, small) >= 0)
			{
				HsStatusSet(st, HS_CORRUPTION,
							"version %" PRIu64 " has overlapping SSTs in level %d",
							v->id, i + 1);
				return HsStatusDetail(st, "Objects %" PRIu64 " and %" PRIu64 " overlap or are out of order.",
									  lv->ssts[j - 1]->object_id,
									  lv->ssts[j]->object_id);
			}
		}
	}
	for (i = 0; i < v->n_change_logs; i++)
	{
		const HsTableChangeLog *log = &v->change_logs[i];
		HsEpoch		prev = log->start_epoch;

		if (i > 0 && log->table_id <= v->change_logs[i - 1].table_id)
		{
			HsStatusSet(st, HS_CORRUPTION,
						"version %" PRIu64 " has unsorted change logs", v->id);
			return HsStatusDetail(st, "Table %u follows table %u.",
								  log->table_id,
								  v->change_logs[i - 1].table_id);
		}
		for (j = 0; j < log->n_entries; j++)
		{
			if (log->entries[j]->epochs[0] <= prev)
			{
				HsStatusSet(st, HS_CORRUPTION,
							"version %" PRIu64 " has a misordered change log",
							v->id);
				return HsStatusDetail(st, "Table %u entry %d starts at epoch %" PRIu64 ", not after %" PRIu64 ".",
									  log->table_id, j,
									  log->entries[j]->epochs[0], prev);
			}
			prev = HsChangeLogEntryCheckpointEpoch(log->entries[j]);
		}
	}
	return true;
}

/* ----------------------------------------------------------------
 *		checkpoint encoding
 * ----------------------------------------------------------------
 */
void
HsVersionEncode(const HsVersion *v, HsBuf *buf)
{
	HsBuf		body;
	int			i;
	int			j;

	HsBufInit(&body, v->env);
	HsMetaRecordBegin(buf, CHECKPOINT_MAGIC, CHECKPOINT_FORMAT);

	HsBufReset(&body);
	HsBufPutVarint64(&body, v->id);
	HsBufPutVarint64(&body, v->max_sub_level_id);
	HsMetaRecordField(buf, TAG_HEADER, HsBufSlice(&body));

	for (i = 0; i < v->n_tables; i++)
	{
		HsBufReset(&body);
		HsBufPutVarint32(&body, v->tables[i].table_id);
		HsBufPutVarint64(&body, v->tables[i].committed_epoch);
		HsBufPutVarint64(&body, v->tables[i].safe_epoch);
		HsMetaRecordField(buf, TAG_TABLE, HsBufSlice(&body));
	}
	for (i = 0; i < v->n_sub_levels; i++)
	{
		HsBufReset(&body);
		HsBufPutVarint64(&body, v->sub_levels[i].sub_level_id);
		HsSstInfoListEncode(v->sub_levels[i].ssts, v->sub_levels[i].n_ssts,
							&body);
		HsMetaRecordField(buf, TAG_SUB_LEVEL, HsBufSlice(&body));
	}
	for (i = 0; i < HS_MAX_LEVEL; i++)
	{
		if (v->levels[i].n_ssts == 0)
			continue;
		HsBufReset(&body);
		HsBufPutVarint32(&body, (uint32_t) (i + 1));
		HsSstInfoListEncode(v->levels[i].ssts, v->levels[i].n_ssts, &body);
		HsMetaRecordField(buf, TAG_LEVEL, HsBufSlice(&body));
	}
	for (i = 0; i < v->n_change_logs; i++)
	{
		const HsTableChangeLog *log = &v->change_logs[i];

		HsBufReset(&body);
		HsBufPutVarint32(&body, log->table_id);
		HsBufPutVarint64(&body, log->start_epoch);
		HsBufPutVarint32(&body, (uint32_t) log->n_entries);
		for (j = 0; j < log->n_entries; j++)
			HsChangeLogEntryEncode(log->entries[j], &body);
		HsMetaRecordField(buf, TAG_CHANGE_LOG, HsBufSlice(&body));
	}
	for (i = 0; i < v->n_dropped; i++)
	{
		HsBufReset(&body);
		HsBufPutVarint32(&body, v->dropped[i]);
		HsMetaRecordField(buf, TAG_DROPPED_TABLE, HsBufSlice(&body));
	}
	HsMetaRecordFinish(buf);
	HsBufFree(&body);
}

/* Checks that c consumed the body of checkpoint field tag exactly. */
static inline bool
body_done(HsCursor *c, uint32_t tag, HsStatus *st)
{
	return HsMetaRecordBodyDone(c, CHECKPOINT_WHAT, tag, st);
}

bool
HsVersionDecode(HsEnv *env, HsSlice data, HsVersion **out, HsStatus *st)
{
	HsCursor	fields;
	uint32_t	format;
	HsVersion  *v;
	bool		seen_header = false;
	int			last_level = 0;
	int			cap_tables = 0;
	int			cap_subs = 0;
	int			cap_logs = 0;
	int			cap_dropped = 0;

	*out = NULL;
	if (!HsMetaRecordOpen(data, CHECKPOINT_MAGIC, CHECKPOINT_FORMAT,
						  CHECKPOINT_WHAT, &fields, &format, st))
		return false;
	v = HsVersionCreateEmpty(env);
	for (;;)
	{
		uint32_t	tag;
		HsSlice		body;
		bool		done;
		HsCursor	c;

		if (!HsMetaRecordNext(&fields, CHECKPOINT_WHAT, &tag, &body, &done, st))
			goto fail;
		if (done)
			break;
		HsCursorInit(&c, body);
		if (!seen_header && tag != TAG_HEADER)
		{
			HsMetaRecordBadBody(st, CHECKPOINT_WHAT, tag,
								"The header field must come first.");
			goto fail;
		}
		switch (tag)
		{
			case TAG_HEADER:
				if (seen_header)
				{
					HsMetaRecordBadBody(st, CHECKPOINT_WHAT, tag,
										"The header appears twice.");
					goto fail;
				}
				seen_header = true;
				HsCursorGetVarint64(&c, &v->id);
				HsCursorGetVarint64(&c, &v->max_sub_level_id);
				if (!body_done(&c, tag, st))
					goto fail;
				break;
			case TAG_TABLE:
				{
					HsTableInfo ti;
					uint32_t	id = 0;

					HsCursorGetVarint32(&c, &id);
					HsCursorGetVarint64(&c, &ti.committed_epoch);
					HsCursorGetVarint64(&c, &ti.safe_epoch);
					ti.table_id = id;
					if (!body_done(&c, tag, st))
						goto fail;
					if (v->n_tables == cap_tables)
					{
						cap_tables = cap_tables * 2 + 8;
						v->tables = HsRealloc(env, v->tables,
											  sizeof(HsTableInfo) * cap_tables);
					}
					v->tables[v->n_tables++] = ti;
				}
				break;
			case TAG_SUB_LEVEL:
				{
					HsSubLevel sl;

					memset(&sl, 0, sizeof(sl));
					if (!HsCursorGetVarint64(&c, &sl.sub_level_id))
					{
						body_done(&c, tag, st);
						goto fail;
					}
					if (!HsSstInfoListDecode(env, &c, CHECKPOINT_WHAT, &sl.ssts,
											 &sl.n_ssts, st))
						goto fail;
					if (v->n_sub_levels == cap_subs)
					{
						cap_subs = cap_subs * 2 + 8;
						v->sub_levels = HsRealloc(env, v->sub_levels,
												  sizeof(HsSubLevel) * cap_subs);
					}
					v->sub_levels[v->n_sub_levels++] = sl;
					if (!body_done(&c, tag, st))
						goto fail;
				}
				break;
			case TAG_LEVEL:
				{
					uint32_t	level = 0;
					HsLevel    *lv;

					HsCursorGetVarint32(&c, &level);
					if (!c.ok || level < 1 || level > HS_MAX_LEVEL ||
						(int) level <= last_level)
					{
						HsMetaRecordBadBody(st, CHECKPOINT_WHAT, tag,
											"The level number is missing, out of range or out of order.");
						goto fail;
					}
					last_level = (int) level;
					lv = &v->levels[level - 1];
					if (!HsSstInfoListDecode(env, &c, CHECKPOINT_WHAT, &lv->ssts,
											 &lv->n_ssts, st))
						goto fail;
					if (!body_done(&c, tag, st))
						goto fail;
				}
				break;
			case TAG_CHANGE_LOG:
				{
					HsTableChangeLog log;
					uint32_t	id = 0;
					uint32_t	n = 0;
					uint32_t	i;

					memset(&log, 0, sizeof(log));
					HsCursorGetVarint32(&c, &id);
					HsCursorGetVarint64(&c, &log.start_epoch);
					HsCursorGetVarint32(&c, &n);
					if (!c.ok || n > HsCursorRemaining(&c))
					{
						HsMetaRecordBadBody(st, CHECKPOINT_WHAT, tag,
											"The change-log header is cut short.");
						goto fail;
					}
					log.table_id = id;
					log.entries = HsAlloc(env, sizeof(HsChangeLogEntry *) *
										  (n ? n : 1));
					if (v->n_change_logs == cap_logs)
					{
						cap_logs = cap_logs * 2 + 8;
						v->change_logs = HsRealloc(env, v->change_logs,
												   sizeof(HsTableChangeLog) * cap_logs);
					}
					/* publish first so that fail: frees the entries */
					v->change_logs[v->n_change_logs++] = log;
					for (i = 0; i < n; i++)
					{
						HsTableChangeLog *l = &v->change_logs[v->n_change_logs - 1];

						if (!HsChangeLogEntryDecode(env, &c, CHECKPOINT_WHAT,
													&l->entries[i], st))
							goto fail;
						l->n_entries++;
					}
					if (!body_done(&c, tag, st))
						goto fail;
				}
				break;
			case TAG_DROPPED_TABLE:
				{
					uint32_t	id = 0;

					HsCursorGetVarint32(&c, &id);
					if (!body_done(&c, tag, st))
						goto fail;
					if (v->n_dropped == cap_dropped)
					{
						cap_dropped = cap_dropped * 2 + 8;
						v->dropped = HsRealloc(env, v->dropped,
											   sizeof(HsTableId) * cap_dropped);
					}
					v->dropped[v->n_dropped++] = id;
				}
				break;
			default:
				HsMetaRecordUnknownTag(st, CHECKPOINT_WHAT, tag);
				goto fail;
		}
	}
	if (!seen_header)
	{
		HsStatusSet(st, HS_CORRUPTION, "%s has no header", CHECKPOINT_WHAT);
		HsStatusDetail(st, "The record holds no fields.");
		goto fail;
	}
	if (!HsVersionValidate(v, st))
		goto fail;
	*out = v;
	return true;

fail:
	HsVersionUnref(v);
	return false;
}

void
HsVersionTableSize(const HsVersion *v, HsTableId t, double *keys, uint64_t *bytes)
{
	*keys = 0;
	*bytes = 0;
	/* key counts of the SSTs that hold the table: versions overcount */
	for (int i = 0; i < v->n_sub_levels; i++)
		for (int j = 0; j < v->sub_levels[i].n_ssts; j++)
		{
			HsSstInfo  *s = v->sub_levels[i].ssts[j];

			for (uint32_t k = 0; k < s->table_count; k++)
				if (s->table_ids[k] == t)
				{
					*keys += s->table_key_counts[k];
					*bytes += s->file_size / (s->table_count > 0 ? s->table_count : 1);
				}
		}
	for (int l = 0; l < HS_MAX_LEVEL; l++)
		for (int j = 0; j < v->levels[l].n_ssts; j++)
		{
			HsSstInfo  *s = v->levels[l].ssts[j];

			for (uint32_t k = 0; k < s->table_count; k++)
				if (s->table_ids[k] == t)
				{
					*keys += s->table_key_counts[k];
					*bytes += s->file_size / (s->table_count > 0 ? s->table_count : 1);
				}
		}
}
