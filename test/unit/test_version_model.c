/*-------------------------------------------------------------------------
 *
 * test_version_model.c
 *	  Model-based random test of the versions layer.
 *
 * Random writes (insert/update/delete with consistent old values) go to
 * several tables epoch after epoch and are sealed into a shared buffer;
 * random subsets of tables are synced and committed (so tables end up at
 * different committed epochs), the buffer spills, compactions run with an
 * advancing safe epoch (now and then some tables compacted to their own,
 * later one, as operators' state is), change logs are truncated, versions are pinned and
 * unpinned, every delta goes through encode/decode before it is applied,
 * the version is periodically checkpointed and reloaded, and GC runs.
 *
 * An in-memory model keeps every version of every key.  After each step:
 *	- full scans and point gets of the current version at random retained
 *	  epochs, and of the version plus the buffer at the newest epoch, equal
 *	  the model;
 *	- iter_log over random covered epoch ranges equals the model's net
 *	  change;
 *	- reads through pinned versions still work after GC and equal the
 *	  model (GC never deletes what a pinned version reaches).
 *
 * The seed is printed on failure; HS_MODEL_SEED=<n> replays one seed and
 * HS_MODEL_EPOCHS=<n> changes the length.
 *
 * test/unit/test_version_model.c
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "hummock_stream/storage/change_log.h"
#include "hummock_stream/storage/compaction.h"
#include "hummock_stream/storage/gc.h"
#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/storage/user_iter.h"
#include "hummock_stream/storage/version_apply.h"
#include "hummock_stream/storage/version_delta.h"
#include "hummock_stream/storage/version_read.h"

#define N_TABLES	4
#define N_KEYS		40
#define VAL_LEN		48
#define MAX_PINS	3
#define EPOCH_STEP	(UINT64_C(1) << 16)

typedef struct Ver
{
	HsEpoch		epoch;
	bool		put;
	char		val[VAL_LEN];
} Ver;

typedef struct KeyHist
{
	Ver		   *v;
	int			n;
	int			cap;
} KeyHist;

typedef struct MTable
{
	HsTableId	id;
	bool		logged;
	bool		dropped;		/* removed; keys may linger in levels */
	int			incarnation;	/* bumped by each drop */
	HsEpoch		committed;
	KeyHist		keys[N_KEYS];
	bool		cur_exists[N_KEYS];
	char		cur_val[N_KEYS][VAL_LEN];
} MTable;

typedef struct Pin
{
	HsVersion  *v;
	int			until;
	int			incarnation[N_TABLES];
} Pin;

typedef struct Model
{
	uint64_t	seed;
	uint64_t	rng;
	int			step;
	HsEnv	   *env;
	HsObjectStore *store;
	HsSstCache *cache;
	HsSharedBuffer *buf;
	HsSstWriteContext ctx;
	HsCompactionConfig ccfg;
	uint64_t	next_id;
	HsVersion  *cur;
	MTable		t[N_TABLES];
	HsEpoch		epoch;			/* newest sealed epoch */
	HsEpoch		safe;			/* compaction safe epoch */
	HsEpoch		trunc;			/* change-log retention */
	Pin			pins[MAX_PINS];
	/* counters */
	int			n_commits;
	int			n_compactions;
	int			n_intra_l0;		/* of them, merges within L0 */
	int			n_spills;
	int			n_truncs;
	int			n_drops;
	int			n_recreates;
	int			n_gc_deleted;
	int			n_log_checks;
	int			n_reads;
	int			n_writes;
} Model;

static Model *M;

#define MFAIL(...) \
	do { \
		fprintf(stderr, "model failure: seed %" PRIu64 ", step %d: ", M->seed, M->step); \
		fail_msg(__VA_ARGS__); \
	} while (0)

#define MOK(call, st) \
	do { if (!(call)) MFAIL("%s: %s: %s (%s)", #call, HsCodeName((st)->code), (st)->msg, (st)->detail); } while (0)

static uint64_t
rnd(uint64_t n)
{
	return n ? unit_rand(&M->rng) % n : 0;
}

static bool
chance(int percent)
{
	return (int) rnd(100) < percent;
}

static void
key_name(char *buf, int k)
{
	snprintf(buf, 16, "key%03d", k);
}

static bool
alloc_id(void *arg, uint64_t *id, HsStatus *st)
{
	*id = ++M->next_id;
	return true;
}

/* The model's value of key k of table mt at epoch e (NULL if absent). */
static const char *
model_at(const MTable *mt, int k, HsEpoch e)
{
	const KeyHist *h = &mt->keys[k];
	int			i;

	for (i = h->n - 1; i >= 0; i--)
		if (h->v[i].epoch <= e)
			return h->v[i].put ? h->v[i].val : NULL;
	return NULL;
}

static bool
model_written_in(const MTable *mt, int k, HsEpoch e1, HsEpoch e2)
{
	const KeyHist *h = &mt->keys[k];
	int			i;

	for (i = 0; i < h->n; i++)
		if (h->v[i].epoch > e1 && h->v[i].epoch <= e2)
			return true;
	return false;
}

/*
 * The POSIX env without fsync: the model checks logic, not durability, and
 * thousands of fsyncs would dominate the run time.
 */
static bool
fast_sync(HsEnv *env, HsFile *file, HsStatus *st)
{
	return true;
}

static bool
fast_sync_dir(HsEnv *env, const char *dir, HsStatus *st)
{
	return true;
}

static bool
fast_rename(HsEnv *env, const char *from, const char *to, HsStatus *st)
{
	if (rename(from, to) != 0)
	{
		HsStatusSet(st, HS_IO_ERROR, "could not rename \"%s\" to \"%s\"", from, to);
		st->sys_errno = errno;
		return false;
	}
	return true;
}

static HsEnv *
fast_env(void)
{
	static HsEnv env;

	env = *HsEnvPosix();
	env.sync = fast_sync;
	env.sync_dir = fast_sync_dir;
	env.rename = fast_rename;
	return &env;
}

/* ---- applying deltas the way the barrier manager would ---- */

static void
apply_delta(HsVersionDelta *d)
{
	HsBuf		bytes;
	HsVersionDelta *d2;
	HsVersion  *nv;
	HsStatus	st;

	/* persist and reload, as a restart would */
	HsBufInit(&bytes, M->env);
	HsVersionDeltaEncode(d, &bytes);
	HsVersionDeltaFree(d);
	MOK(HsVersionDeltaDecode(M->env, HsBufSlice(&bytes), &d2, &st), &st);
	HsBufFree(&bytes);
	MOK(HsVersionApplyDelta(M->env, M->cur, d2, &nv, &st), &st);
	HsVersionDeltaFree(d2);
	HsVersionUnref(M->cur);
	M->cur = nv;
}

/* ---- operations ---- */

static void
write_epoch(void)
{
	int			ti;
	HsStatus	st;

	M->epoch += EPOCH_STEP;
	for (ti = 0; ti < N_TABLES; ti++)
	{
		MTable	   *mt = &M->t[ti];
		HsMemtable *mem;
		bool		before_exists[N_KEYS];
		bool		touched[N_KEYS];
		int			n_ops = (int) rnd(8);
		int			i;
		int			k;

		if (mt->dropped)
			continue;
		mem = HsMemtableCreate(M->env, mt->id, M->epoch, mt->logged, true);
		memcpy(before_exists, mt->cur_exists, sizeof(before_exists));
		memset(touched, 0, sizeof(touched));
		for (i = 0; i < n_ops; i++)
		{
			char		key[16];
			char		nv[VAL_LEN];

			k = (int) rnd(N_KEYS);
			key_name(key, k);
			snprintf(nv, sizeof(nv), "t%u-%s-e%" PRIu64 "-%d", mt->id, key,
					 M->epoch >> 16, (int) rnd(1000));
			if (!mt->cur_exists[k])
			{
				MOK(HsMemtableInsert(mem, HsSliceMake(key, strlen(key)),
									 HsSliceMake(nv, strlen(nv)), &st), &st);
				mt->cur_exists[k] = true;
				strcpy(mt->cur_val[k], nv);
			}
			else if (chance(40))
			{
				MOK(HsMemtableDelete(mem, HsSliceMake(key, strlen(key)),
									 HsSliceMake(mt->cur_val[k], strlen(mt->cur_val[k])),
									 &st), &st);
				mt->cur_exists[k] = false;
			}
			else
			{
				MOK(HsMemtableUpdate(mem, HsSliceMake(key, strlen(key)),
									 HsSliceMake(mt->cur_val[k], strlen(mt->cur_val[k])),
									 HsSliceMake(nv, strlen(nv)), &st), &st);
				strcpy(mt->cur_val[k], nv);
			}
			touched[k] = true;
			M->n_writes++;
		}
		/* the merged op of each touched key gives one model version */
		for (k = 0; k < N_KEYS; k++)
		{
			KeyHist    *h = &mt->keys[k];
			Ver		   *v;

			if (!touched[k] || (!before_exists[k] && !mt->cur_exists[k]))
				continue;
			if (h->n == h->cap)
			{
				h->cap = h->cap * 2 + 8;
				h->v = realloc(h->v, sizeof(Ver) * h->cap);
			}
			v = &h->v[h->n++];
			v->epoch = M->epoch;
			v->put = mt->cur_exists[k];
			strcpy(v->val, mt->cur_exists[k] ? mt->cur_val[k] : "");
		}
		MOK(HsSharedBufferSeal(M->buf, mem, &st), &st);
	}
}

static void
sync_and_commit(void)
{
	HsTableId	tables[N_TABLES];
	int			n = 0;
	int			ti;
	HsSyncResult *res;
	HsVersionDelta *d;
	HsStatus	st;
	int			i;

	for (ti = 0; ti < N_TABLES; ti++)
		if (!M->t[ti].dropped && M->t[ti].committed < M->epoch &&
			chance(50))
			tables[n++] = M->t[ti].id;
	if (n == 0)
		return;
	MOK(HsSharedBufferSync(M->buf, M->epoch, tables, n, &M->ctx, &res, &st), &st);
	d = HsVersionDeltaCreate(M->env, HS_DELTA_COMMIT, M->cur->id);
	{
		HsTableId	logged[N_TABLES];
		int			n_logged = 0;

		for (i = 0; i < n; i++)
		{
			const HsSyncTable *r = &res->tables[i];
			MTable	   *mt = NULL;

			for (ti = 0; ti < N_TABLES; ti++)
				if (M->t[ti].id == tables[i])
					mt = &M->t[ti];
			if (r->n_epochs == 0 || r->epochs[r->n_epochs - 1] != M->epoch)
				MFAIL("sync of table %u returned %d epochs", mt->id, r->n_epochs);
			if (r->log_enabled != mt->logged)
				MFAIL("table %u: log_enabled %d", mt->id, r->log_enabled);
			if (mt->logged)
				logged[n_logged++] = mt->id;
		}
		/* tables lag differently: each logs the epochs it synced */
		MOK(HsVersionDeltaAddSyncResults(d, &res, 1, M->epoch, logged,
										 n_logged, NULL, 0, &st), &st);
	}
	HsSyncResultFree(res);
	apply_delta(d);
	for (i = 0; i < n; i++)
		for (ti = 0; ti < N_TABLES; ti++)
			if (M->t[ti].id == tables[i])
			{
				M->t[ti].committed = M->epoch;
				HsSharedBufferAckCommitted(M->buf, tables[i], M->epoch);
			}
	M->n_commits++;
}

static HsEpoch
min_committed(void)
{
	HsEpoch		m = HS_EPOCH_MAX;
	int			ti;

	for (ti = 0; ti < N_TABLES; ti++)
		if (!M->t[ti].dropped && M->t[ti].committed < m)
			m = M->t[ti].committed;
	return m;
}

static void
compact(void)
{
	HsCompactionTask *task;
	HsVersionDelta *d;
	HsStatus	st;
	HsEpoch		mc = min_committed();

	/* advance the safe epoch now and then, never past any commit */
	if (chance(30) && mc > M->safe)
		M->safe += rnd((mc - M->safe) / EPOCH_STEP + 1) * EPOCH_STEP;
	task = chance(20) ? HsCompactionPickL0(M->cur) :
		HsCompactionPick(M->cur, &M->ccfg);
	if (task == NULL)
		return;
	{
		HsSafeEpochs safe = {M->safe, 0, NULL};
		HsTableEpoch own[N_TABLES];

		/*
		 * Now and then the odd tables keep only their newest committed
		 * state, as operators' state tables do (ids ascend with ti).
		 */
		if (chance(50))
			for (int ti = 1; ti < N_TABLES; ti += 2)
				if (!M->t[ti].dropped && M->t[ti].committed > M->safe)
				{
					own[safe.n_tables].table_id = M->t[ti].id;
					own[safe.n_tables++].epoch = M->t[ti].committed;
				}
		safe.tables = own;
		MOK(HsCompactionRun(M->cur, M->cache, task, &safe, &M->ctx, &d, &st), &st);
	}
	if (task->output_level == 0)
		M->n_intra_l0++;
	HsCompactionTaskFree(task);
	apply_delta(d);
	M->n_compactions++;
}

static void
truncate_logs(void)
{
	HsVersionDelta *d;
	HsEpoch		mc = min_committed();

	if (mc > M->trunc)
		M->trunc += rnd((mc - M->trunc) / EPOCH_STEP + 1) * EPOCH_STEP;
	d = HsCompactionTrimChangeLogs(M->cur, M->trunc, NULL, 0);
	if (d == NULL)
		return;
	apply_delta(d);
	M->n_truncs++;
}

/*
 * Drop a table (its info and log go now, its keys with compaction), or
 * bring a dropped one back under the same id once no level SST mentions
 * it any more: its old keys must never resurface.
 */
static void
drop_or_recreate(void)
{
	int			ti;
	MTable	   *mt;
	int			k;

	for (ti = 0; ti < N_TABLES; ti++)
	{
		mt = &M->t[ti];
		if (mt->dropped && !HsVersionTableDropped(M->cur, mt->id))
		{
			mt->dropped = false;
			M->n_recreates++;
		}
	}
	if (!chance(2))
		return;
	mt = &M->t[rnd(N_TABLES)];
	if (mt->dropped)
		return;
	{
		HsVersionDelta *d = HsVersionDeltaCreate(M->env, HS_DELTA_REMOVE_TABLES,
												 M->cur->id);

		HsVersionDeltaAddRemovedTable(d, mt->id);
		apply_delta(d);
	}
	HsSharedBufferDropTable(M->buf, mt->id);
	mt->dropped = true;
	mt->incarnation++;
	mt->committed = 0;
	for (k = 0; k < N_KEYS; k++)
	{
		mt->keys[k].n = 0;
		mt->cur_exists[k] = false;
	}
	M->n_drops++;
}

static void
checkpoint_reload(void)
{
	HsBuf		a;
	HsBuf		b;
	HsVersion  *v2;
	HsStatus	st;

	HsBufInit(&a, M->env);
	HsBufInit(&b, M->env);
	HsVersionEncode(M->cur, &a);
	MOK(HsVersionDecode(M->env, HsBufSlice(&a), &v2, &st), &st);
	HsVersionEncode(v2, &b);
	if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
		MFAIL("checkpoint re-encoding differs");
	HsVersionUnref(M->cur);
	M->cur = v2;
	HsBufFree(&a);
	HsBufFree(&b);
}

static void
gc(void)
{
	const HsVersion *pinned[MAX_PINS];
	int			n = 0;
	int			i;
	uint64_t	bound = M->next_id + 1;
	uint64_t	buffered = HsSharedBufferMinObjectId(M->buf);
	size_t		deleted;
	uint64_t	bytes;
	HsStatus	st;

	for (i = 0; i < MAX_PINS; i++)
		if (M->pins[i].v)
			pinned[n++] = M->pins[i].v;
	if (buffered < bound)
		bound = buffered;
	MOK(HsGcRun(M->store, M->cache, M->cur, pinned, n, bound, &deleted,
				&bytes, &st), &st);
	M->n_gc_deleted += (int) deleted;
}

static void
pin_or_unpin(void)
{
	int			i = (int) rnd(MAX_PINS);

	if (M->pins[i].v && M->pins[i].until <= M->step)
	{
		HsVersionUnref(M->pins[i].v);
		M->pins[i].v = NULL;
	}
	if (M->pins[i].v == NULL && chance(50))
	{
		int			ti;

		M->pins[i].v = HsVersionRef(M->cur);
		M->pins[i].until = M->step + 5 + (int) rnd(40);
		for (ti = 0; ti < N_TABLES; ti++)
			M->pins[i].incarnation[ti] = M->t[ti].incarnation;
	}
}

/* ---- checks ---- */

/* Scan v (plus the buffer if with_buffer) for table mt at e; compare. */
static void
check_scan(HsVersion *v, MTable *mt, HsEpoch e, bool with_buffer,
		   const char *what)
{
	HsIterator *it;
	HsIterator *newer = NULL;
	HsStatus	st;
	int			k = 0;

	if (with_buffer)
		MOK(HsSharedBufferNewIterator(M->buf, M->cache, mt->id, e, NULL, NULL, &newer, &st), &st);
	MOK(HsVersionTableIterator(v, M->cache, mt->id, e, NULL, NULL, newer,
							   &it, &st), &st);
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
	{
		HsSlice		uk = HsFullKeyUserKey(HsIterKey(it));
		HsSlice		row = HsUserIterRow(it);
		char		key[16];
		const char *want = NULL;

		for (; k < N_KEYS; k++)
		{
			want = model_at(mt, k, e);
			if (want)
				break;
		}
		if (k == N_KEYS)
			MFAIL("%s: table %u at %" PRIu64 ": extra key %.*s", what, mt->id,
				  e, (int) uk.len, (const char *) uk.data);
		key_name(key, k);
		if (HsSliceCompare(uk, HsSliceMake(key, strlen(key))) != 0 ||
			HsSliceCompare(row, HsSliceMake(want, strlen(want))) != 0)
			MFAIL("%s: table %u at %" PRIu64 ": got %.*s=%.*s, want %s=%s",
				  what, mt->id, e, (int) uk.len, (const char *) uk.data,
				  (int) row.len, (const char *) row.data, key, want);
		k++;
	}
	MOK(HsIterStatus(it, &st), &st);
	HsIterDestroy(it);
	for (; k < N_KEYS; k++)
		if (model_at(mt, k, e))
			MFAIL("%s: table %u at %" PRIu64 ": missing key %d", what, mt->id,
				  e, k);
	M->n_reads++;
}

static void
check_gets(HsVersion *v, MTable *mt, HsEpoch e)
{
	HsBuf		row;
	HsStatus	st;
	int			i;

	HsBufInit(&row, M->env);
	for (i = 0; i < 5; i++)
	{
		int			k = (int) rnd(N_KEYS);
		char		key[16];
		bool		found;
		const char *want = model_at(mt, k, e);

		key_name(key, k);
		MOK(HsVersionGet(v, M->cache, mt->id, HsSliceMake(key, strlen(key)), e,
						 &found, &row, &st), &st);
		if (found != (want != NULL) ||
			(want && HsSliceCompare(HsBufSlice(&row),
									HsSliceMake(want, strlen(want))) != 0))
			MFAIL("get table %u %s at %" PRIu64 ": found %d (%.*s), want %s",
				  mt->id, key, e, found, (int) row.len, (const char *) row.data,
				  want ? want : "(none)");
	}
	HsBufFree(&row);
}

/* A random epoch of table mt readable in v, or 0. */
static HsEpoch
readable_epoch(HsVersion *v, MTable *mt)
{
	const HsTableInfo *ti = HsVersionTableInfo(v, mt->id);
	HsEpoch		lo;

	if (ti == NULL)
		return 0;
	lo = ti->safe_epoch;
	if (lo == 0)
		lo = EPOCH_STEP;
	if (lo > ti->committed_epoch)
		return 0;
	/* epochs are multiples of EPOCH_STEP; also try one in between */
	return lo + rnd((ti->committed_epoch - lo) / (EPOCH_STEP / 4) + 1) *
		(EPOCH_STEP / 4);
}

static void
check_iter_log(MTable *mt)
{
	const HsTableChangeLog *log = HsVersionChangeLog(M->cur, mt->id);
	HsEpoch		last;
	HsEpoch		e1;
	HsEpoch		e2;
	HsChangeLogIter *cl;
	HsStatus	st;
	int			k = 0;

	if (log == NULL || log->n_entries == 0)
		return;
	last = HsChangeLogEntryCheckpointEpoch(log->entries[log->n_entries - 1]);
	e1 = log->start_epoch + rnd((last - log->start_epoch) / EPOCH_STEP + 1) * EPOCH_STEP;
	e2 = e1 + rnd((last - e1) / EPOCH_STEP + 1) * EPOCH_STEP;
	MOK(HsIterLog(M->cur, M->cache, mt->id, e1, e2, NULL, NULL, &cl, &st), &st);
	while (HsChangeLogIterValid(cl))
	{
		HsSlice		uk = HsChangeLogIterUserKey(cl);
		char		key[16];
		const char *before = NULL;
		const char *after = NULL;
		HsChangeOp	want1 = 0;
		HsChangeOp	got = HsChangeLogIterOp(cl);

		/* next key the model says changed */
		for (; k < N_KEYS; k++)
		{
			if (!model_written_in(mt, k, e1, e2))
				continue;
			before = model_at(mt, k, e1);
			after = model_at(mt, k, e2);
			if (before || after)
				break;
		}
		if (k == N_KEYS)
			MFAIL("iter_log table %u (%" PRIu64 ", %" PRIu64 "]: extra change %.*s",
				  mt->id, e1, e2, (int) uk.len, (const char *) uk.data);
		key_name(key, k);
		want1 = !before ? HS_CHANGE_INSERT : !after ? HS_CHANGE_DELETE :
			HS_CHANGE_UPDATE_DELETE;
		if (HsSliceCompare(uk, HsSliceMake(key, strlen(key))) != 0 || got != want1)
			MFAIL("iter_log table %u (%" PRIu64 ", %" PRIu64 "]: got %s %.*s, want %s %s",
				  mt->id, e1, e2, HsChangeOpName(got), (int) uk.len,
				  (const char *) uk.data, HsChangeOpName(want1), key);
		{
			const char *wrow = want1 == HS_CHANGE_INSERT ? after : before;
			HsSlice		row = HsChangeLogIterRow(cl);

			if (HsSliceCompare(row, HsSliceMake(wrow, strlen(wrow))) != 0)
				MFAIL("iter_log table %u key %s: row %.*s, want %s", mt->id, key,
					  (int) row.len, (const char *) row.data, wrow);
		}
		HsChangeLogIterNext(cl);
		if (want1 == HS_CHANGE_UPDATE_DELETE)
		{
			HsSlice		row;

			if (!HsChangeLogIterValid(cl) ||
				HsChangeLogIterOp(cl) != HS_CHANGE_UPDATE_INSERT)
				MFAIL("iter_log table %u key %s: UpdateDelete not followed by UpdateInsert",
					  mt->id, key);
			row = HsChangeLogIterRow(cl);
			if (HsSliceCompare(row, HsSliceMake(after, strlen(after))) != 0)
				MFAIL("iter_log table %u key %s: new row %.*s, want %s", mt->id,
					  key, (int) row.len, (const char *) row.data, after);
			HsChangeLogIterNext(cl);
		}
		k++;
	}
	MOK(HsChangeLogIterStatus(cl, &st), &st);
	HsChangeLogIterDestroy(cl);
	for (; k < N_KEYS; k++)
		if (model_written_in(mt, k, e1, e2) &&
			(model_at(mt, k, e1) || model_at(mt, k, e2)))
			MFAIL("iter_log table %u (%" PRIu64 ", %" PRIu64 "]: missing change of key %d",
				  mt->id, e1, e2, k);
	M->n_log_checks++;
}

static void
check_all(void)
{
	int			ti;
	int			i;

	for (ti = 0; ti < N_TABLES; ti++)
	{
		MTable	   *mt = &M->t[ti];
		HsEpoch		e = readable_epoch(M->cur, mt);
		HsEpoch		c;

		if (mt->dropped)
		{
			HsIterator *it;
			HsStatus	st;

			if (HsVersionCommittedEpoch(M->cur, mt->id, &c))
				MFAIL("dropped table %u still has a committed epoch", mt->id);
			/* a dropped table whose keys linger cannot be read */
			if (HsVersionTableDropped(M->cur, mt->id))
			{
				if (HsVersionTableIterator(M->cur, M->cache, mt->id, M->epoch,
										   NULL, NULL, NULL, &it, &st))
				{
					HsIterDestroy(it);
					MFAIL("dropped table %u is readable", mt->id);
				}
				if (st.code != HS_INVALID_ARGUMENT)
					MFAIL("dropped table %u: %s", mt->id, st.msg);
			}
			continue;
		}
		if (e)
		{
			check_scan(M->cur, mt, e, false, "scan");
			check_gets(M->cur, mt, e);
		}
		/* the committed epoch matches the model */
		if (HsVersionCommittedEpoch(M->cur, mt->id, &c) ? c != mt->committed :
			mt->committed != 0)
			MFAIL("table %u committed epoch differs", mt->id);
		if (mt->logged)
			check_iter_log(mt);
	}
	/* unsynced data: version + buffer at the newest epoch */
	ti = (int) rnd(N_TABLES);
	if (!M->t[ti].dropped)
		check_scan(M->cur, &M->t[ti], M->epoch, true, "buffered scan");

	/* pinned versions stay readable (GC must not have deleted their SSTs) */
	for (i = 0; i < MAX_PINS; i++)
	{
		HsEpoch		e;

		if (M->pins[i].v == NULL)
			continue;
		ti = (int) rnd(N_TABLES);
		if (M->pins[i].incarnation[ti] != M->t[ti].incarnation)
			continue;			/* the model forgot that incarnation */
		e = readable_epoch(M->pins[i].v, &M->t[ti]);
		if (e)
			check_scan(M->pins[i].v, &M->t[ti], e, false, "pinned scan");
	}
}

static void
run_model(uint64_t seed, int n_epochs, bool big_l1)
{
	Model		model;
	char		dir[512];
	char		name[64];
	HsStatus	st;
	int			ti;
	int			i;

	memset(&model, 0, sizeof(model));
	M = &model;
	M->seed = seed;
	M->rng = seed;
	M->env = fast_env();
	snprintf(name, sizeof(name), "model-%" PRIu64, seed);
	unit_path(dir, sizeof(dir), name);
	MOK(HsObjectStoreOpen(M->env, dir, &M->store, &st), &st);
	M->cache = HsSstCacheCreate(M->env, M->store, 16, NULL);
	M->buf = HsSharedBufferCreate(M->env, 24 * 1024);
	HsSstWriteContextInit(&M->ctx);
	M->ctx.store = M->store;
	M->ctx.alloc_id = alloc_id;
	M->ctx.target_file_size = 2048;
	M->ctx.sst.block_size = 512;
	HsCompactionConfigInit(&M->ccfg);
	M->ccfg.l0_trigger = 3;
	M->ccfg.level_base_size = 8 * 1024;
	if (big_l1)
	{
		/* L1 outgrows L0's data, which then merges within L0 (intra-L0) */
		M->ccfg.level_base_size = 256 * 1024;
		M->ccfg.l0_min_ratio = 1;
		M->ccfg.l0_tier_min_size = 1024;
	}
	M->ccfg.level_multiplier = 3;
	M->cur = HsVersionCreateEmpty(M->env);
	for (ti = 0; ti < N_TABLES; ti++)
	{
		M->t[ti].id = 100 + (HsTableId) ti;
		/* tables 100 and 101 keep change logs; the others may */
		M->t[ti].logged = ti < 2 || chance(50);
	}

	for (M->step = 0; M->step < n_epochs; M->step++)
	{
		write_epoch();
		if (chance(15))
			MOK(HsSharedBufferSpill(M->buf, rnd(HsSharedBufferMemoryUsage(M->buf) + 1),
									&M->ctx, &st), &st);
		MOK(HsSharedBufferMaybeSpill(M->buf, &M->ctx, &st), &st);
		if (chance(60))
			sync_and_commit();
		if (chance(30))
			compact();
		if (chance(10))
			truncate_logs();
		if (chance(20))
			pin_or_unpin();
		if (chance(5))
			checkpoint_reload();
		drop_or_recreate();
		if (chance(20))
			gc();
		check_all();
	}
	M->n_spills = (int) HsSharedBufferSpillCount(M->buf);

	/* the run must have exercised every mechanism */
	if (n_epochs >= 200)
	{
		if (M->n_commits < 10 || M->n_compactions < 3 || (big_l1 && M->n_intra_l0 < 1) ||
			M->n_spills < 1 ||
			M->n_drops < 1 || M->n_recreates < 1 ||
			M->n_truncs < 1 || M->n_gc_deleted < 1 || M->n_log_checks < 10)
			MFAIL("weak run: %d commits, %d compactions (%d intra-L0), %d spills, %d truncations, %d drops, %d recreates, %d objects collected, %d log checks",
				  M->n_commits, M->n_compactions, M->n_intra_l0, M->n_spills, M->n_truncs,
				  M->n_drops, M->n_recreates, M->n_gc_deleted,
				  M->n_log_checks);
	}

	/* with no pins, GC leaves only what the version or the buffer holds */
	for (i = 0; i < MAX_PINS; i++)
	{
		HsVersionUnref(M->pins[i].v);
		M->pins[i].v = NULL;
	}
	gc();
	check_all();

	HsVersionUnref(M->cur);
	HsSharedBufferDestroy(M->buf);
	HsSstCacheDestroy(M->cache);
	HsObjectStoreClose(M->store);
	for (ti = 0; ti < N_TABLES; ti++)
		for (i = 0; i < N_KEYS; i++)
			free(M->t[ti].keys[i].v);
	if (getenv("HS_MODEL_VERBOSE"))
		fprintf(stderr, "seed %" PRIu64 ": %d writes, %d commits, %d compactions (%d intra-L0), %d spills, %d truncations, %d drops, %d recreates, %d objects collected, %d scans, %d log checks\n",
				seed, model.n_writes, model.n_commits, model.n_compactions,
				model.n_intra_l0,
				model.n_spills, model.n_truncs, model.n_drops,
				model.n_recreates, model.n_gc_deleted, model.n_reads,
				model.n_log_checks);
	M = NULL;
}

static void
test_version_model(void **state)
{
	const char *s = getenv("HS_MODEL_SEED");
	const char *e = getenv("HS_MODEL_EPOCHS");
	int			n_epochs = e ? atoi(e) : 300;

	if (s)
	{
		run_model(strtoull(s, NULL, 10), n_epochs, false);
		run_model(strtoull(s, NULL, 10), n_epochs, true);
	}
	else
	{
		run_model(1, n_epochs, false);
		run_model(20251129, n_epochs, false);
		run_model(777, n_epochs, false);
		run_model(1, n_epochs, true);
		run_model(4242, n_epochs, true);
	}
}

static const struct CMUnitTest model_tests[] = {
	cmocka_unit_test(test_version_model),
};

UNIT_SUITE(version_model)
{
	*tests = model_tests;
	return (int) (sizeof(model_tests) / sizeof(model_tests[0]));
}
