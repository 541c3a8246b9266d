/*-------------------------------------------------------------------------
 *
 * test_memtable.c
 *	  Unit tests of the memtable merge rules (table-driven, including the
 *	  inconsistent sequences), memtable iterators, the object store, and
 *	  shared-buffer sync and spill.
 *
 * test/unit/test_memtable.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"

#include "hummock_stream/storage/change_log.h"
#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/storage/user_iter.h"
#include "hummock_stream/storage/version_apply.h"
#include "hummock_stream/storage/version_delta.h"
#include "hummock_stream/storage/version_read.h"

#define S(str)	HsSliceMake((str), strlen(str))

typedef struct OpStep
{
	char		kind;			/* 'I', 'D', 'U' */
	const char *old_value;
	const char *new_value;
} OpStep;

typedef struct MergeCase
{
	const char *name;
	OpStep		steps[4];
	int			n_steps;
	int			fail_at;		/* step that must fail, or -1 */
	HsKeyOpKind result;			/* after the steps that succeed */
	const char *old_value;
	const char *new_value;
} MergeCase;

static const MergeCase merge_cases[] = {
	{"insert", {{'I', NULL, "a"}}, 1, -1, HS_KEY_OP_INSERT, NULL, "a"},
	{"delete", {{'D', "o", NULL}}, 1, -1, HS_KEY_OP_DELETE, "o", NULL},
	{"update", {{'U', "o", "n"}}, 1, -1, HS_KEY_OP_UPDATE, "o", "n"},
	{"delete+insert", {{'D', "o", NULL}, {'I', NULL, "n"}}, 2, -1,
	HS_KEY_OP_UPDATE, "o", "n"},
	{"insert+delete", {{'I', NULL, "a"}, {'D', "a", NULL}}, 2, -1,
	HS_KEY_OP_NONE, NULL, NULL},
	{"insert+update", {{'I', NULL, "a"}, {'U', "a", "b"}}, 2, -1,
	HS_KEY_OP_INSERT, NULL, "b"},
	{"update+update", {{'U', "o", "a"}, {'U', "a", "b"}}, 2, -1,
	HS_KEY_OP_UPDATE, "o", "b"},
	{"update+delete", {{'U', "o", "a"}, {'D', "a", NULL}}, 2, -1,
	HS_KEY_OP_DELETE, "o", NULL},
	{"insert+delete+insert", {{'I', NULL, "a"}, {'D', "a", NULL}, {'I', NULL, "c"}},
	3, -1, HS_KEY_OP_INSERT, NULL, "c"},
	{"delete+insert+delete", {{'D', "o", NULL}, {'I', NULL, "n"}, {'D', "n", NULL}},
	3, -1, HS_KEY_OP_DELETE, "o", NULL},
	{"delete+insert+update", {{'D', "o", NULL}, {'I', NULL, "n"}, {'U', "n", "m"}},
	3, -1, HS_KEY_OP_UPDATE, "o", "m"},
	/* inconsistent sequences */
	/* (only inserts so far: reported by HsMemtableFinish; either value stays) */
	{"double insert", {{'I', NULL, "a"}, {'I', NULL, "b"}}, 2, 1,
	HS_KEY_OP_INSERT, NULL, NULL},
	{"update+insert", {{'U', "o", "a"}, {'I', NULL, "b"}}, 2, 1,
	HS_KEY_OP_UPDATE, "o", "a"},
	{"delete+delete", {{'D', "o", NULL}, {'D', "o", NULL}}, 2, 1,
	HS_KEY_OP_DELETE, "o", NULL},
	{"delete+update", {{'D', "o", NULL}, {'U', "o", "n"}}, 2, 1,
	HS_KEY_OP_DELETE, "o", NULL},
	{"insert+delete+delete", {{'I', NULL, "a"}, {'D', "a", NULL}, {'D', "a", NULL}},
	3, 2, HS_KEY_OP_NONE, NULL, NULL},
	{"insert+delete+update", {{'I', NULL, "a"}, {'D', "a", NULL}, {'U', "a", "b"}},
	3, 2, HS_KEY_OP_NONE, NULL, NULL},
	/* old value check */
	{"insert+delete wrong old", {{'I', NULL, "a"}, {'D', "x", NULL}}, 2, 1,
	HS_KEY_OP_INSERT, NULL, "a"},
	{"update+update wrong old", {{'U', "o", "a"}, {'U', "x", "b"}}, 2, 1,
	HS_KEY_OP_UPDATE, "o", "a"},
};

static void
check_slice(const char *want, HsSlice got, const char *what, const char *name)
{
	if (want == NULL)
		return;
	if (HsSliceCompare(S(want), got) != 0)
		fail_msg("%s: %s is \"%.*s\", want \"%s\"", name, what, (int) got.len,
				 (const char *) got.data, want);
}

static void
test_merge_rules(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	size_t		c;

	for (c = 0; c < sizeof(merge_cases) / sizeof(merge_cases[0]); c++)
	{
		const MergeCase *mc = &merge_cases[c];
		HsMemtable *mt = HsMemtableCreate(env, 7, 100, true, true);
		HsKeyOp		op;
		int			i;

		for (i = 0; i < mc->n_steps; i++)
		{
			const OpStep *s = &mc->steps[i];
			HsStatus	st;
			bool		ok;

			if (s->kind == 'I')
				ok = HsMemtableInsert(mt, S("k"), S(s->new_value), &st);
			else if (s->kind == 'D')
				ok = HsMemtableDelete(mt, S("k"), S(s->old_value), &st);
			else
				ok = HsMemtableUpdate(mt, S("k"), S(s->old_value),
									  S(s->new_value), &st);
			if (i == mc->fail_at)
			{
				/* a repeated insert into a memtable with no index yet */
				if (ok && s->kind == 'I')
					ok = HsMemtableFinish(mt, &st);
				if (ok)
					fail_msg("%s: step %d should fail", mc->name, i);
				assert_int_equal(st.code, HS_INVALID_ARGUMENT);
				assert_non_null(strstr(st.msg, "table 7"));
				break;
			}
			if (!ok)
				fail_msg("%s: step %d failed: %s", mc->name, i, st.msg);
		}
		assert_true(HsMemtableGet(mt, S("k"), &op));
		if (op.kind != mc->result)
			fail_msg("%s: result %s, want %s", mc->name,
					 HsKeyOpKindName(op.kind), HsKeyOpKindName(mc->result));
		if (op.kind == HS_KEY_OP_DELETE || op.kind == HS_KEY_OP_UPDATE)
			check_slice(mc->old_value, op.old_value, "old value", mc->name);
		if (op.kind == HS_KEY_OP_INSERT || op.kind == HS_KEY_OP_UPDATE)
			check_slice(mc->new_value, op.new_value, "new value", mc->name);
		assert_int_equal(HsMemtableKeyCount(mt), 1);
		HsMemtableDestroy(mt);
	}
}

static void
test_memtable_iterators(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsMemtable *mt = HsMemtableCreate(env, 7, 100, true, false);
	HsIterator *it;
	HsStatus	st;
	uint8_t		fk[64];
	int			n;
	char		key[16];
	int			i;

	/* keys k00..k99: even inserted, odd updated, every 10th deleted */
	for (i = 0; i < 100; i++)
	{
		snprintf(key, sizeof(key), "k%02d", i);
		if (i % 10 == 0)
			assert_status_ok(HsMemtableDelete(mt, S(key), S("old"), &st), &st);
		else if (i % 2 == 0)
			assert_status_ok(HsMemtableInsert(mt, S(key), S("new"), &st), &st);
		else
			assert_status_ok(HsMemtableUpdate(mt, S(key), S("old"), S("new"), &st), &st);
	}
	/* a cancelled key */
	assert_status_ok(HsMemtableInsert(mt, S("zz"), S("x"), &st), &st);
	assert_status_ok(HsMemtableDelete(mt, S("zz"), S("x"), &st), &st);

	it = HsMemtableNewIterator(mt, HS_MEMTABLE_NEW_VALUES);
	n = 0;
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
	{
		HsSlice		k = HsIterKey(it);
		HsSlice		v = HsIterValue(it);

		assert_int_equal(HsFullKeyTableId(k), 7);
		assert_int_equal(HsFullKeyEpoch(k), 100);
		snprintf(key, sizeof(key), "k%02d", n);
		assert_true(HsSliceCompare(HsFullKeyUserKey(k), S(key)) == 0);
		assert_int_equal(v.data[0], n % 10 == 0 ? HS_VALUE_DELETE : HS_VALUE_PUT);
		n++;
	}
	assert_int_equal(n, 100);

	/* seek: same user key with a newer target epoch lands on it */
	HsIterSeek(it, HsSliceMake(fk, HsFullKeyEncode(fk, 7, "k05", 3, 500)));
	assert_true(HsIterValid(it));
	assert_true(HsSliceCompare(HsFullKeyUserKey(HsIterKey(it)), S("k05")) == 0);
	HsIterSeek(it, HsSliceMake(fk, HsFullKeyEncode(fk, 7, "k05", 3, 100)));
	assert_true(HsSliceCompare(HsFullKeyUserKey(HsIterKey(it)), S("k05")) == 0);
	/* an older target epoch sorts after our version: the next key */
	HsIterSeek(it, HsSliceMake(fk, HsFullKeyEncode(fk, 7, "k05", 3, 50)));
	assert_true(HsSliceCompare(HsFullKeyUserKey(HsIterKey(it)), S("k06")) == 0);
	/* other tables */
	HsIterSeek(it, HsSliceMake(fk, HsFullKeyEncode(fk, 8, "", 0, 1)));
	assert_false(HsIterValid(it));
	HsIterSeek(it, HsSliceMake(fk, HsFullKeyEncode(fk, 6, "zzz", 3, 1)));
	assert_true(HsSliceCompare(HsFullKeyUserKey(HsIterKey(it)), S("k00")) == 0);
	HsIterDestroy(it);

	/* old values: deletes and updates only */
	it = HsMemtableNewIterator(mt, HS_MEMTABLE_OLD_VALUES);
	n = 0;
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
	{
		HsSlice		v = HsIterValue(it);

		assert_int_equal(v.data[0], HS_VALUE_PUT);
		assert_true(HsSliceCompare(HsSliceMake(v.data + 1, v.len - 1), S("old")) == 0);
		n++;
	}
	assert_int_equal(n, 10 + 50);
	HsIterDestroy(it);
	assert_true(HsMemtableMemoryUsage(mt) > 100 * 6);
	HsMemtableDestroy(mt);
}

static bool
collect_ids(void *arg, const HsObjectEntry *e)
{
	int		   *count = arg;

	(*count)++;
	if (e->temporary)
		assert_int_equal(e->object_id, 9);
	else
		assert_true(e->object_id == 1 || e->object_id == 12345678901ULL);
	return true;
}

static void
test_object_store(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsObjectStore *store;
	HsObjectWrite *w;
	HsStatus	st;
	char		dir[512];
	char		path[HS_OBJECT_PATH_LEN];
	int			count = 0;
	HsFile	   *f;

	unit_path(dir, sizeof(dir), "objstore");
	assert_status_ok(HsObjectStoreOpen(env, dir, &store, &st), &st);
	assert_status_ok(HsObjectStorePut(store, 1, S("hello"), &st), &st);
	assert_status_ok(HsObjectStorePut(store, 12345678901ULL, S("x"), &st), &st);
	/* a leftover staging file and a stray file */
	assert_status_ok(HsObjectStoreBeginWrite(store, 9, &w, &st), &st);
	assert_status_ok(env->open_writable(env, w->path, &f, &st), &st);
	assert_status_ok(env->close(env, f, &st), &st);
	HsFree(env, w);
	snprintf(path, sizeof(path), "%s/README", dir);
	assert_status_ok(env->open_writable(env, path, &f, &st), &st);
	assert_status_ok(env->close(env, f, &st), &st);
	snprintf(path, sizeof(path), "%s/007.sst", dir);
	assert_status_ok(env->open_writable(env, path, &f, &st), &st);
	assert_status_ok(env->close(env, f, &st), &st);

	assert_status_ok(HsObjectStoreList(store, collect_ids, &count, &st), &st);
	assert_int_equal(count, 3);

	assert_status_ok(HsObjectStoreLocalPath(store, 1, path, sizeof(path), &st), &st);
	assert_true(env->file_exists(env, path));
	assert_status_ok(HsObjectStoreRemove(store, 1, false, &st), &st);
	assert_false(env->file_exists(env, path));
	assert_false(HsObjectStoreRemove(store, 1, false, &st));
	assert_int_equal(st.code, HS_NOT_FOUND);
	assert_status_ok(HsObjectStoreRemove(store, 9, true, &st), &st);

	/* an aborted write leaves nothing */
	assert_status_ok(HsObjectStoreBeginWrite(store, 20, &w, &st), &st);
	assert_status_ok(env->open_writable(env, w->path, &f, &st), &st);
	assert_status_ok(env->close(env, f, &st), &st);
	HsObjectStoreAbortWrite(store, w);
	count = 0;
	assert_status_ok(HsObjectStoreList(store, collect_ids, &count, &st), &st);
	assert_int_equal(count, 1);
	HsObjectStoreClose(store);
}

static bool
alloc_id(void *arg, uint64_t *id, HsStatus *st)
{
	*id = ++*(uint64_t *) arg;
	return true;
}

/*
 * An object store in a fresh directory called name, an SST cache over it
 * and a write context into it that takes object ids from *next_id.
 */
static void
open_store(const char *name, HsObjectStore **store, HsSstCache **cache,
		   HsSstWriteContext *ctx, uint64_t *next_id)
{
	HsEnv	   *env = HsEnvPosix();
	HsStatus	st;
	char		dir[512];

	unit_path(dir, sizeof(dir), name);
	assert_status_ok(HsObjectStoreOpen(env, dir, store, &st), &st);
	*cache = HsSstCacheCreate(env, *store, 4, NULL);
	HsSstWriteContextInit(ctx);
	ctx->store = *store;
	ctx->alloc_id = alloc_id;
	ctx->alloc_arg = next_id;
}

/* Read table t at epoch e through the version and the buffer. */
static int
count_rows(HsVersion *v, HsSharedBuffer *buf, HsSstCache *cache,
		   HsTableId t, HsEpoch e)
{
	HsIterator *newer;
	HsIterator *it;
	HsStatus	st;
	int			n = 0;

	assert_status_ok(HsSharedBufferNewIterator(buf, cache, t, e, NULL, NULL, &newer, &st), &st);
	assert_status_ok(HsVersionTableIterator(v, cache, t, e, NULL, NULL, newer,
											&it, &st), &st);
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
		n++;
	assert_status_ok(HsIterStatus(it, &st), &st);
	HsIterDestroy(it);
	return n;
}

static void
test_shared_buffer_sync_and_spill(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsObjectStore *store;
	HsSstCache *cache;
	HsSharedBuffer *buf;
	HsSstWriteContext ctx;
	uint64_t	next_id = 0;
	HsStatus	st;
	HsVersion  *v = HsVersionCreateEmpty(env);
	HsSyncResult *res;
	HsVersionDelta *d;
	HsVersion  *nv;
	HsTableId	both[2] = {1, 2};
	char		key[16];
	int			i;
	HsMemtable *mt;

	open_store("sbuf", &store, &cache, &ctx, &next_id);
	ctx.target_file_size = 4096;
	buf = HsSharedBufferCreate(env, 1 << 20);

	/* table 1 logged, epochs 10 and 20; table 2 not logged, epoch 10 */
	mt = HsMemtableCreate(env, 1, 10, true, true);
	for (i = 0; i < 500; i++)
	{
		snprintf(key, sizeof(key), "a%04d", i);
		assert_status_ok(HsMemtableInsert(mt, S(key), S("v1"), &st), &st);
	}
	assert_status_ok(HsSharedBufferSeal(buf, mt, &st), &st);
	mt = HsMemtableCreate(env, 2, 10, false, true);
	assert_status_ok(HsMemtableInsert(mt, S("x"), S("y"), &st), &st);
	assert_status_ok(HsSharedBufferSeal(buf, mt, &st), &st);
	/* spill everything sealed so far */
	assert_status_ok(HsSharedBufferSpill(buf, 0, &ctx, &st), &st);
	assert_int_equal(HsSharedBufferMemoryUsage(buf), 0);
	assert_int_equal(HsSharedBufferSpillCount(buf), 2);
	assert_true(HsSharedBufferMinObjectId(buf) == 1);

	mt = HsMemtableCreate(env, 1, 20, true, true);
	for (i = 0; i < 500; i += 2)
	{
		snprintf(key, sizeof(key), "a%04d", i);
		assert_status_ok(HsMemtableUpdate(mt, S(key), S("v1"), S("v2"), &st), &st);
	}
	assert_status_ok(HsMemtableDelete(mt, S("a0001"), S("v1"), &st), &st);
	assert_status_ok(HsSharedBufferSeal(buf, mt, &st), &st);
	/* out-of-order seal */
	mt = HsMemtableCreate(env, 1, 15, true, true);
	assert_false(HsSharedBufferSeal(buf, mt, &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);

	/* unsynced reads through the buffer */
	assert_int_equal(count_rows(v, buf, cache, 1, 10), 500);
	assert_int_equal(count_rows(v, buf, cache, 1, 20), 499);

	/* sync table 1 only at epoch 20 */
	assert_status_ok(HsSharedBufferSync(buf, 20, both, 1, &ctx, &res, &st), &st);
	assert_int_equal(res->n_tables, 1);
	assert_true(res->tables[0].log_enabled);
	assert_int_equal(res->tables[0].n_epochs, 2);
	assert_true(res->tables[0].n_new >= 2);
	assert_true(res->tables[0].n_old >= 1);
	assert_int_equal(res->n_ssts, res->tables[0].n_new);

	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, v->id);
	HsVersionDeltaAddCommit(d, 1, 20);
	HsVersionDeltaAddL0Ssts(d, res->ssts, res->n_ssts);
	assert_status_ok(HsVersionDeltaAddChangeLog(d, 1, res->tables[0].epochs,
												res->tables[0].n_epochs,
												res->tables[0].new_ssts,
												res->tables[0].n_new,
												res->tables[0].old_ssts,
												res->tables[0].n_old, &st), &st);
	assert_status_ok(HsVersionApplyDelta(env, v, d, &nv, &st), &st);
	HsVersionDeltaFree(d);
	HsVersionUnref(v);
	v = nv;
	HsSyncResultFree(res);

	/* before the ack, the buffer's synced copy and the version agree */
	assert_int_equal(count_rows(v, buf, cache, 1, 20), 499);
	HsSharedBufferAckCommitted(buf, 1, 20);
	assert_int_equal(count_rows(v, buf, cache, 1, 20), 499);
	assert_int_equal(count_rows(v, buf, cache, 1, 10), 500);

	/* point reads */
	{
		HsBuf		row;
		bool		found;

		HsBufInit(&row, env);
		assert_status_ok(HsVersionGet(v, cache, 1, S("a0002"), 20, &found, &row, &st), &st);
		assert_true(found);
		assert_true(HsSliceCompare(HsBufSlice(&row), S("v2")) == 0);
		assert_status_ok(HsVersionGet(v, cache, 1, S("a0002"), 15, &found, &row, &st), &st);
		assert_true(found);
		assert_true(HsSliceCompare(HsBufSlice(&row), S("v1")) == 0);
		assert_status_ok(HsVersionGet(v, cache, 1, S("a0001"), 20, &found, &row, &st), &st);
		assert_false(found);
		assert_status_ok(HsVersionGet(v, cache, 1, S("a0001"), 10, &found, &row, &st), &st);
		assert_true(found);
		assert_status_ok(HsVersionGet(v, cache, 1, S("b"), 20, &found, &row, &st), &st);
		assert_false(found);
		HsBufFree(&row);
	}

	/* iter_log over (10, 20]: 250 updates (2 rows each) and 1 delete */
	{
		HsChangeLogIter *cl;
		int			ins = 0;
		int			del = 0;
		int			ud = 0;
		int			ui = 0;

		assert_status_ok(HsIterLog(v, cache, 1, 10, 20, NULL, NULL, &cl, &st), &st);
		for (; HsChangeLogIterValid(cl); HsChangeLogIterNext(cl))
		{
			switch (HsChangeLogIterOp(cl))
			{
				case HS_CHANGE_INSERT:
					ins++;
					break;
				case HS_CHANGE_DELETE:
					del++;
					break;
				case HS_CHANGE_UPDATE_DELETE:
					ud++;
					assert_true(HsSliceCompare(HsChangeLogIterRow(cl), S("v1")) == 0);
					break;
				case HS_CHANGE_UPDATE_INSERT:
					ui++;
					assert_true(HsSliceCompare(HsChangeLogIterRow(cl), S("v2")) == 0);
					break;
			}
		}
		assert_status_ok(HsChangeLogIterStatus(cl, &st), &st);
		HsChangeLogIterDestroy(cl);
		assert_int_equal(ins, 0);
		assert_int_equal(del, 1);
		assert_int_equal(ud, 250);
		assert_int_equal(ui, 250);

		/* (0, 20]: everything is a net insert, except a0001 (insert+delete) */
		assert_status_ok(HsIterLog(v, cache, 1, 0, 20, NULL, NULL, &cl, &st), &st);
		ins = 0;
		for (; HsChangeLogIterValid(cl); HsChangeLogIterNext(cl))
		{
			assert_int_equal(HsChangeLogIterOp(cl), HS_CHANGE_INSERT);
			ins++;
		}
		HsChangeLogIterDestroy(cl);
		assert_int_equal(ins, 499);

		/* beyond the log */
		assert_false(HsIterLog(v, cache, 1, 10, 30, NULL, NULL, &cl, &st));
		assert_int_equal(st.code, HS_INVALID_ARGUMENT);
		assert_false(HsIterLog(v, cache, 2, 0, 10, NULL, NULL, &cl, &st));
		assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	}

	/* table 2 is still buffered (spilled) */
	assert_int_equal(count_rows(v, buf, cache, 1, 20), 499);
	assert_status_ok(HsSharedBufferSync(buf, 20, &both[1], 1, &ctx, &res, &st), &st);
	assert_int_equal(res->n_ssts, 1);
	assert_false(res->tables[0].log_enabled);
	HsSyncResultFree(res);

	HsVersionUnref(v);
	HsSharedBufferDestroy(buf);
	HsSstCacheDestroy(cache);
	HsObjectStoreClose(store);
}

static void
check_key_order(void *arg, HsSlice key)
{
	HsBuf	   *prev = arg;

	if (prev->len > 0)
		assert_true(HsSliceCompare(HsBufSlice(prev), key) < 0);
	HsBufAssign(prev, key.data, key.len);
}

/*
 * Keys in ascending runs, then between earlier keys, descending and at
 * random, then ascending again, with ordered accesses in between (each
 * links the pending keys into a list that already holds some): the list
 * stays sorted on every level, so every key is found by seek and by get.
 */
static void
test_memtable_pending_link(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsMemtable *mt = HsMemtableCreate(env, 1, 1, false, false);
	HsStatus	st;
	char		key[16];
	HsBuf		prev;
	HsKeyOp		op;
	uint64_t	rng = 42;
	int			n = 0;

	for (int i = 0; i < 3000; i += 3)
	{
		snprintf(key, sizeof(key), "%06d", i);
		assert_status_ok(HsMemtableInsert(mt, S(key), S("a"), &st), &st);
		n++;
	}
	HsBufInit(&prev, env);
	HsMemtableForEachKey(mt, check_key_order, &prev);	/* links the first run */
	HsBufReset(&prev);
	for (int i = 2999; i >= 0; i -= 3)
	{
		snprintf(key, sizeof(key), "%06d", i);
		assert_status_ok(HsMemtableInsert(mt, S(key), S("b"), &st), &st);
		n++;
	}
	HsMemtableForEachKey(mt, check_key_order, &prev);
	HsBufReset(&prev);
	for (int k = 0; k < 2000; k++)
	{
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		snprintf(key, sizeof(key), "%06d", (int) ((rng >> 33) % 3000) / 3 * 3 + 1);
		if (!HsMemtableGet(mt, S(key), &op))
		{
			assert_status_ok(HsMemtableInsert(mt, S(key), S("c"), &st), &st);
			n++;
		}
	}
	for (int i = 3000; i < 4000; i++)
	{
		snprintf(key, sizeof(key), "%06d", i);
		assert_status_ok(HsMemtableInsert(mt, S(key), S("d"), &st), &st);
		n++;
		/* a repeated write of the newest key finds it */
		assert_status_ok(HsMemtableUpdate(mt, S(key), S("d"), S("e"), &st), &st);
	}
	assert_int_equal(HsMemtableKeyCount(mt), n);
	HsMemtableForEachKey(mt, check_key_order, &prev);
	HsBufFree(&prev);
	for (int i = 0; i < 4000; i++)
	{
		bool		want = i >= 3000 || i % 3 != 1;

		snprintf(key, sizeof(key), "%06d", i);
		if (!want)
			continue;
		assert_true(HsMemtableGet(mt, S(key), &op));
		if (i >= 3000)
			assert_true(HsSliceCompare(op.new_value, S("e")) == 0);
	}
	{
		/* a seek to every key lands on it */
		HsIterator *it = HsMemtableNewIterator(mt, HS_MEMTABLE_NEW_VALUES);
		uint8_t		fk[64];

		for (int i = 0; i < 4000; i += 7)
		{
			snprintf(key, sizeof(key), "%06d", i);
			if (i < 3000 && i % 3 == 1 && !HsMemtableGet(mt, S(key), &op))
				continue;
			HsIterSeek(it, HsSliceMake(fk, HsFullKeyEncode(fk, 1, key, 6, 1)));
			assert_true(HsIterValid(it));
			assert_true(HsSliceCompare(HsFullKeyUserKey(HsIterKey(it)), S(key)) == 0);
		}
		HsIterDestroy(it);
	}
	HsMemtableDestroy(mt);
}

/* check_key_order, counting the keys */
typedef struct KeyOrder
{
	HsBuf		prev;
	int			n;
} KeyOrder;

static void
count_key_order(void *arg, HsSlice key)
{
	KeyOrder   *ko = arg;

	if (ko->n > 0)
		assert_true(HsSliceCompare(HsBufSlice(&ko->prev), key) < 0);
	HsBufAssign(&ko->prev, key.data, key.len);
	ko->n++;
}

#define SORT_KEYS 6000

/*
 * The pending nodes' sort (a radix sort on 8-byte chunks of the keys)
 * meets keys of every shape, inserted in random order: short keys and
 * keys that differ only in trailing zero bytes (their chunks are equal),
 * many keys that agree on the first 8 or 12 bytes (sorted on by the next
 * chunks) and on more than the radix sort's depth (sorted by comparisons):
 * the list holds every key once, in order.
 */
static void
test_memtable_pending_sort(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsMemtable *mt = HsMemtableCreate(env, 1, 1, false, false);
	static uint8_t keys[SORT_KEYS][64];
	static int	lens[SORT_KEYS];
	int			n = 0;
	uint64_t	rng = 7;
	HsStatus	st;
	KeyOrder	ko;

#define NEXT_RANDOM() (rng = rng * 6364136223846793005ULL + 1442695040888963407ULL, (uint32_t) (rng >> 33))
	/* short keys: a random byte, the number, 0..7 random bytes */
	for (int i = 0; i < 1000; i++, n++)
	{
		keys[n][0] = (uint8_t) NEXT_RANDOM();
		for (int b = 0; b < 4; b++)
			keys[n][1 + b] = (uint8_t) (i >> (24 - 8 * b));
		lens[n] = 5 + (int) (NEXT_RANDOM() % 8);
		for (int b = 5; b < lens[n]; b++)
			keys[n][b] = (uint8_t) NEXT_RANDOM();
	}
	/* "x" and "x" followed by 1..20 zero bytes */
	for (int z = 0; z <= 20; z++, n++)
	{
		memset(keys[n], 0, sizeof(keys[n]));
		keys[n][0] = 'x';
		lens[n] = 1 + z;
	}
	/* 1,500 keys alike on 12 bytes, then the number and a random tail */
	for (int i = 0; i < 1500; i++, n++)
	{
		memset(keys[n], 'm', 12);
		keys[n][12] = (uint8_t) (i >> 8);
		keys[n][13] = (uint8_t) i;
		lens[n] = 14 + (int) (NEXT_RANDOM() % 10);
		for (int b = 14; b < lens[n]; b++)
			keys[n][b] = (uint8_t) NEXT_RANDOM();
	}
	/* 1,500 keys alike on 40 bytes (deeper than the radix sort goes) */
	for (int i = 0; i < 1500; i++, n++)
	{
		memset(keys[n], 'p', 40);
		keys[n][40] = (uint8_t) (i >> 8);
		keys[n][41] = (uint8_t) i;
		lens[n] = 42;
	}
	/* 1,000 keys alike on exactly 8 bytes, differing in the 9th and 10th */
	for (int i = 0; i < 1000; i++, n++)
	{
		memset(keys[n], 'q', 8);
		keys[n][8] = (uint8_t) (i % 256);
		keys[n][9] = (uint8_t) (i / 256);
		lens[n] = 10;
	}
	assert_true(n <= SORT_KEYS);
	/* shuffle, then insert (only inserts: the nodes wait unlinked) */
	for (int i = n - 1; i > 0; i--)
	{
		int			j = (int) (NEXT_RANDOM() % (uint32_t) (i + 1));
		uint8_t		tk[64];
		int			tl = lens[i];

		memcpy(tk, keys[i], sizeof(tk));
		memcpy(keys[i], keys[j], sizeof(tk));
		lens[i] = lens[j];
		memcpy(keys[j], tk, sizeof(tk));
		lens[j] = tl;
	}
#undef NEXT_RANDOM
	for (int i = 0; i < n; i++)
		assert_status_ok(HsMemtableInsert(mt, HsSliceMake(keys[i], lens[i]), S("v"), &st), &st);
	HsBufInit(&ko.prev, env);
	ko.n = 0;
	HsMemtableForEachKey(mt, count_key_order, &ko);
	assert_int_equal(ko.n, n);
	assert_int_equal(HsMemtableKeyCount(mt), n);
	HsBufFree(&ko.prev);
	HsMemtableDestroy(mt);
}

/*
 * An iterator sees the keys written after its creation and between its
 * steps (they are linked before the next step), and nothing is linked
 * twice.
 */
static void
test_memtable_iterator_sees_writes(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsMemtable *mt = HsMemtableCreate(env, 1, 1, false, false);
	HsIterator *it = HsMemtableNewIterator(mt, HS_MEMTABLE_NEW_VALUES);
	HsStatus	st;
	char		key[16];
	int			seen = 0;

	for (int i = 0; i < 100; i += 2)
	{
		snprintf(key, sizeof(key), "%04d", i);
		assert_status_ok(HsMemtableInsert(mt, S(key), S("a"), &st), &st);
	}
	HsIterSeekToFirst(it);
	for (int expect = 0; HsIterValid(it); expect++)
	{
		HsSlice		uk = HsFullKeyUserKey(HsIterKey(it));

		snprintf(key, sizeof(key), "%04d", expect);
		assert_true(HsSliceCompare(uk, S(key)) == 0);
		seen++;
		if (expect % 2 == 0 && expect + 1 < 100)
		{
			/* the odd key after the current one, written mid-scan */
			snprintf(key, sizeof(key), "%04d", expect + 1);
			assert_status_ok(HsMemtableInsert(mt, S(key), S("b"), &st), &st);
		}
		HsIterNext(it);
	}
	assert_int_equal(seen, 100);
	assert_int_equal(HsMemtableKeyCount(mt), 100);
	HsIterDestroy(it);
	HsMemtableDestroy(mt);
}

/* Point get of key in table t at epoch e through the buffer alone. */
static void
expect_get(HsSharedBuffer *buf, HsSstCache *cache, HsTableId t, const char *key,
		   HsEpoch e, bool resolved, const char *value)
{
	HsBuf		row;
	bool		res;
	bool		found;
	HsStatus	st;

	HsBufInit(&row, HsEnvPosix());
	assert_status_ok(HsSharedBufferGet(buf, cache, t, S(key), e, &res, &found, &row, &st), &st);
	assert_int_equal(res, resolved);
	assert_int_equal(found, value != NULL);
	if (value && HsSliceCompare(HsBufSlice(&row), S(value)) != 0)
		fail_msg("%s at %d: %.*s, expected %s", key, (int) e, (int) row.len,
				 (const char *) row.data, value);
	HsBufFree(&row);
}

/* Seal epoch e of table t: keys <prefix><e>-00..n-1 inserted as "new". */
static void
seal_epoch(HsSharedBuffer *buf, HsTableId t, HsEpoch e, const char *prefix, int n)
{
	HsEnv	   *env = HsEnvPosix();
	HsMemtable *mt = HsMemtableCreate(env, t, e, false, false);
	HsStatus	st;
	char		key[32];

	for (int i = 0; i < n; i++)
	{
		snprintf(key, sizeof(key), "%s%d-%02d", prefix, (int) e, i);
		assert_status_ok(HsMemtableInsert(mt, S(key), S("new"), &st), &st);
	}
	if (e > 1 && t == 1)
	{
		/* k1-<e> is updated to "e<e>"; k1-50 is deleted at epoch 5 */
		char		val[16];

		snprintf(key, sizeof(key), "k1-%02d", (int) e);
		snprintf(val, sizeof(val), "e%d", (int) e);
		assert_status_ok(HsMemtableUpdate(mt, S(key), S("new"), S(val), &st), &st);
		if (e == 5)
			assert_status_ok(HsMemtableDelete(mt, S("k1-50"), S("new"), &st), &st);
	}
	assert_status_ok(HsSharedBufferSeal(buf, mt, &st), &st);
}

/*
 * Many unsynced epochs of one table (as a backfill leaves them): gets find
 * the newest write of a key in any of them, the key index settles gets of
 * absent keys once there are three, and everything stays right as epochs
 * are sealed, spilled and synced.  A table that spills before its index
 * began goes without one, unless the buffer is set to start it at a first
 * spill (its keys then are in memory for the last time); many keys are
 * asked at once without a false negative.
 */
static void
test_shared_buffer_key_index(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsObjectStore *store;
	HsSstCache *cache;
	HsSharedBuffer *buf;
	HsSstWriteContext ctx;
	uint64_t	next_id = 0;
	HsStatus	st;
	char		key[16];
	HsTableId	t1 = 1;
	HsTableId	t2 = 2;
	HsSyncResult *res;
	uint64_t	misses;

	open_store("keyindex", &store, &cache, &ctx, &next_id);
	ctx.target_file_size = 512;	/* several SSTs a spilled epoch */
	buf = HsSharedBufferCreate(env, 64 << 20);

	for (int e = 1; e <= 8; e++)
	{
		misses = HsSharedBufferIndexMisses(buf);
		seal_epoch(buf, t1, e, "k", 100);
		expect_get(buf, cache, t1, "k1-07", 8, true, e >= 7 ? "e7" : "new");
		expect_get(buf, cache, t1, "nope", 8, false, NULL);
		/* the index exists from the third epoch on */
		assert_int_equal(HsSharedBufferIndexMisses(buf) - misses, e >= 3 ? 1 : 0);
	}
	expect_get(buf, cache, t1, "k1-03", 8, true, "e3");
	expect_get(buf, cache, t1, "k1-03", 2, true, "new");
	expect_get(buf, cache, t1, "k8-99", 8, true, "new");
	expect_get(buf, cache, t1, "k8-99", 7, false, NULL);
	expect_get(buf, cache, t1, "k1-50", 8, true, NULL);
	expect_get(buf, cache, t1, "k1-50", 4, true, "new");
	expect_get(buf, cache, t2, "k1-03", 8, false, NULL);

	/* everything spills: the index keeps the keys, gets read the SSTs */
	assert_status_ok(HsSharedBufferSpill(buf, 0, &ctx, &st), &st);
	assert_int_equal(HsSharedBufferSpillCount(buf), 8);
	for (int e = 1; e <= 8; e++)
	{
		snprintf(key, sizeof(key), "k%d-42", e);
		expect_get(buf, cache, t1, key, 8, true, "new");
	}
	expect_get(buf, cache, t1, "k1-08", 8, true, "e8");
	expect_get(buf, cache, t1, "k1-50", 8, true, NULL);
	misses = HsSharedBufferIndexMisses(buf);
	expect_get(buf, cache, t1, "nope", 8, false, NULL);
	assert_int_equal(HsSharedBufferIndexMisses(buf) - misses, 1);

	/* a bounded scan of the spilled epochs opens only the SSTs it needs */
	{
		HsVersion  *v = HsVersionCreateEmpty(env);
		HsIterator *newer;
		HsIterator *it;
		HsSlice		lo = S("k3-");
		HsSlice		hi = S("k3.");
		int			n = 0;

		assert_status_ok(HsSharedBufferNewIterator(buf, cache, t1, 8, &lo, &hi, &newer, &st), &st);
		assert_status_ok(HsVersionTableIterator(v, cache, t1, 8, &lo, &hi, newer, &it, &st), &st);
		for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
			n++;
		assert_status_ok(HsIterStatus(it, &st), &st);
		HsIterDestroy(it);
		assert_int_equal(n, 100);
		HsVersionUnref(v);
	}

	/* sealing more after the spill grows the same index */
	seal_epoch(buf, t1, 9, "k", 10);
	expect_get(buf, cache, t1, "k9-05", 9, true, "new");
	expect_get(buf, cache, t1, "k1-09", 9, true, "e9");
	expect_get(buf, cache, t1, "k1-09", 8, true, "new");

	/* many keys at once: no held key left out, most absent ones are */
	{
		HsSlice		keys[1000];
		char		text[1000][16];
		bool		maybe[1000];
		int			n_maybe = 0;

		for (int i = 0; i < 1000; i++)
		{
			if (i < 800)
				snprintf(text[i], sizeof(text[i]), "k%d-%02d", 1 + i / 100, i % 100);
			else
				snprintf(text[i], sizeof(text[i]), "absent-%d", i);
			keys[i] = S(text[i]);
		}
		HsSharedBufferMayHold(buf, cache, t1, keys, 1000, maybe);
		for (int i = 0; i < 1000; i++)
		{
			if (i < 800)
				assert_true(maybe[i]);
			else
				n_maybe += maybe[i];
		}
		assert_true(n_maybe < 10);
		/* a table with nothing buffered holds no key */
		HsSharedBufferMayHold(buf, cache, 3, keys, 1000, maybe);
		for (int i = 0; i < 1000; i++)
			assert_false(maybe[i]);
	}

	/*
	 * table 4, read once, spills its first epoch before it has three:
	 * no index
	 */
	expect_get(buf, cache, 4, "nope", 0, false, NULL);
	seal_epoch(buf, 4, 1, "i", 50);
	assert_status_ok(HsSharedBufferSpill(buf, 0, &ctx, &st), &st);
	seal_epoch(buf, 4, 2, "i", 50);
	seal_epoch(buf, 4, 3, "i", 50);
	misses = HsSharedBufferIndexMisses(buf);
	expect_get(buf, cache, 4, "i1-10", 3, true, "new");
	expect_get(buf, cache, 4, "nope", 3, false, NULL);
	assert_int_equal(HsSharedBufferIndexMisses(buf), misses);
	{
		HsSlice		nope = S("nope");
		bool		maybe = false;

		/* without an index, any key may be here */
		HsSharedBufferMayHold(buf, cache, 4, &nope, 1, &maybe);
		assert_true(maybe);
	}
	HsSharedBufferDropTable(buf, 4);

	/*
	 * table 7, never read, the same: its third piece puts the index off
	 * to the first read, which builds it from the spilled SST too
	 */
	seal_epoch(buf, 7, 1, "i", 50);
	assert_status_ok(HsSharedBufferSpill(buf, 0, &ctx, &st), &st);
	seal_epoch(buf, 7, 2, "i", 50);
	seal_epoch(buf, 7, 3, "i", 50);
	misses = HsSharedBufferIndexMisses(buf);
	expect_get(buf, cache, 7, "i1-10", 3, true, "new");
	expect_get(buf, cache, 7, "i3-49", 3, true, "new");
	expect_get(buf, cache, 7, "nope", 3, false, NULL);
	assert_int_equal(HsSharedBufferIndexMisses(buf) - misses, 1);
	HsSharedBufferDropTable(buf, 7);

	/*
	 * As a backfill's buffer: table 2, read before (at the top), starts
	 * its index at its first seal, and keeps the keys of what spills.
	 */
	assert_false(HsSharedBufferSetIndexAtSpill(buf, true));
	seal_epoch(buf, t2, 1, "j", 50);
	assert_status_ok(HsSharedBufferSpill(buf, 0, &ctx, &st), &st);
	seal_epoch(buf, t2, 2, "j", 50);
	seal_epoch(buf, t2, 3, "j", 50);
	seal_epoch(buf, t2, 4, "j", 50);
	misses = HsSharedBufferIndexMisses(buf);
	expect_get(buf, cache, t2, "j1-10", 4, true, "new");
	expect_get(buf, cache, t2, "j4-10", 4, true, "new");
	expect_get(buf, cache, t2, "j1-49", 4, true, "new");
	expect_get(buf, cache, t2, "nope", 4, false, NULL);
	assert_int_equal(HsSharedBufferIndexMisses(buf) - misses, 1);
	{
		HsSlice		keys[2] = {S("j1-10"), S("nope")};
		bool		maybe[2] = {false, true};

		HsSharedBufferMayHold(buf, cache, t2, keys, 2, maybe);
		assert_true(maybe[0]);
		assert_false(maybe[1]);
	}

	/* table 5, read before its first seal: that seal starts its index */
	misses = HsSharedBufferIndexMisses(buf);
	expect_get(buf, cache, 5, "nope", 1, false, NULL);
	assert_int_equal(HsSharedBufferIndexMisses(buf), misses);
	seal_epoch(buf, 5, 1, "m", 50);
	expect_get(buf, cache, 5, "nope", 1, false, NULL);
	assert_int_equal(HsSharedBufferIndexMisses(buf) - misses, 1);
	assert_status_ok(HsSharedBufferSpill(buf, 0, &ctx, &st), &st);
	seal_epoch(buf, 5, 2, "m", 50);
	expect_get(buf, cache, 5, "nope", 2, false, NULL);
	assert_int_equal(HsSharedBufferIndexMisses(buf) - misses, 2);
	expect_get(buf, cache, 5, "m1-07", 2, true, "new");
	expect_get(buf, cache, 5, "m2-49", 2, true, "new");

	/*
	 * table 6, spilled twice and never read: the first read, a may-hold,
	 * builds the index over both spilled epochs and the sealed one
	 */
	seal_epoch(buf, 6, 1, "q", 40);
	assert_status_ok(HsSharedBufferSpill(buf, 0, &ctx, &st), &st);
	seal_epoch(buf, 6, 2, "q", 40);
	assert_status_ok(HsSharedBufferSpill(buf, 0, &ctx, &st), &st);
	seal_epoch(buf, 6, 3, "q", 40);
	{
		HsSlice		keys[5] = {S("q1-00"), S("q2-39"), S("q3-17"), S("q9-00"), S("nope")};
		bool		maybe[5];

		HsSharedBufferMayHold(buf, cache, 6, keys, 5, maybe);
		assert_true(maybe[0]);
		assert_true(maybe[1]);
		assert_true(maybe[2]);
		assert_false(maybe[3] && maybe[4]);
	}
	expect_get(buf, cache, 6, "q1-39", 3, true, "new");
	expect_get(buf, cache, 6, "q2-00", 3, true, "new");
	HsSharedBufferDropTable(buf, 5);
	HsSharedBufferDropTable(buf, 6);
	assert_true(HsSharedBufferSetIndexAtSpill(buf, false));

	/* a sync of table 1 up to epoch 5 keeps the index for epochs 6..9 */
	assert_status_ok(HsSharedBufferSync(buf, 5, &t1, 1, &ctx, &res, &st), &st);
	HsSyncResultFree(res);
	expect_get(buf, cache, t1, "k1-05", 9, true, "e5");
	expect_get(buf, cache, t1, "k7-01", 9, true, "new");
	expect_get(buf, cache, t1, "k1-09", 9, true, "e9");
	misses = HsSharedBufferIndexMisses(buf);
	expect_get(buf, cache, t1, "nope", 9, false, NULL);
	assert_int_equal(HsSharedBufferIndexMisses(buf) - misses, 1);
	{
		HsSlice		nope = S("nope");
		bool		maybe = false;

		/* synced SSTs are not in the index: any key may be in them */
		HsSharedBufferMayHold(buf, cache, t1, &nope, 1, &maybe);
		assert_true(maybe);
	}

	/* syncing the rest leaves synced pieces only: no index */
	assert_status_ok(HsSharedBufferSync(buf, 9, &t1, 1, &ctx, &res, &st), &st);
	HsSyncResultFree(res);
	misses = HsSharedBufferIndexMisses(buf);
	expect_get(buf, cache, t1, "k1-09", 9, true, "e9");
	expect_get(buf, cache, t1, "k1-05", 9, true, "e5");
	expect_get(buf, cache, t1, "nope", 9, false, NULL);
	assert_int_equal(HsSharedBufferIndexMisses(buf), misses);
	HsSharedBufferAckCommitted(buf, t1, 9);

	/* table 2 synced: once acknowledged, the buffer holds nothing */
	assert_status_ok(HsSharedBufferSync(buf, 4, &t2, 1, &ctx, &res, &st), &st);
	HsSyncResultFree(res);
	expect_get(buf, cache, t2, "j2-49", 4, true, "new");
	HsSharedBufferAckCommitted(buf, t2, 4);
	assert_int_equal(HsSharedBufferMemoryUsage(buf), 0);

	HsSharedBufferDestroy(buf);
	HsSstCacheDestroy(cache);
	HsObjectStoreClose(store);
}

/*
 * The hash index comes with the first write that is not an insert, or
 * the first point get: inserts before it (linked or still pending) are
 * all found after it; an insert repeated before it is found at the sort
 * and reported by HsMemtableFinish and by every later write; a finished
 * memtable with no index answers gets from its list, its memory usage
 * unchanged.
 */
static void
test_memtable_lazy_index(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsMemtable *mt = HsMemtableCreate(env, 3, 1, false, true);
	HsStatus	st;
	HsKeyOp		op;
	char		key[16];
	HsBuf		prev;
	size_t		mem;

	/* inserts, some linked by an ordered access, then a delete indexes them */
	for (int i = 0; i < 2000; i++)
	{
		snprintf(key, sizeof(key), "%05d", (i * 7919) % 2000);
		assert_status_ok(HsMemtableInsert(mt, S(key), S("v"), &st), &st);
		if (i == 1000)
		{
			HsBufInit(&prev, env);
			HsMemtableForEachKey(mt, check_key_order, &prev);
			HsBufFree(&prev);
		}
	}
	assert_status_ok(HsMemtableDelete(mt, S("00007"), S("v"), &st), &st);
	for (int i = 0; i < 2000; i++)
	{
		snprintf(key, sizeof(key), "%05d", i);
		assert_true(HsMemtableGet(mt, S(key), &op));
		assert_int_equal(op.kind, i == 7 ? HS_KEY_OP_NONE : HS_KEY_OP_INSERT);
	}
	/* with the index, a repeated insert fails at once */
	assert_false(HsMemtableInsert(mt, S("00010"), S("w"), &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	assert_status_ok(HsMemtableFinish(mt, &st), &st);
	HsMemtableDestroy(mt);

	/* without it, the repeat is reported by the finish and later writes */
	mt = HsMemtableCreate(env, 3, 2, false, true);
	assert_status_ok(HsMemtableInsert(mt, S("a"), S("1"), &st), &st);
	assert_status_ok(HsMemtableInsert(mt, S("b"), S("1"), &st), &st);
	assert_status_ok(HsMemtableInsert(mt, S("a"), S("2"), &st), &st);
	assert_false(HsMemtableUpdate(mt, S("b"), S("1"), S("3"), &st));
	assert_non_null(strstr(st.msg, "double insert"));
	assert_false(HsMemtableFinish(mt, &st));
	assert_non_null(strstr(st.msg, "double insert"));
	assert_int_equal(HsMemtableKeyCount(mt), 2);
	HsMemtableDestroy(mt);

	mt = HsMemtableCreate(env, 3, 3, false, true);
	assert_status_ok(HsMemtableInsert(mt, S("x"), S("1"), &st), &st);
	assert_status_ok(HsMemtableInsert(mt, S("y"), S("1"), &st), &st);
	assert_status_ok(HsMemtableInsert(mt, S("x"), S("2"), &st), &st);
	assert_false(HsMemtableFinish(mt, &st));
	HsMemtableDestroy(mt);

	/* finished with no index: gets search the list, memory stays */
	mt = HsMemtableCreate(env, 3, 4, false, true);
	for (int i = 0; i < 500; i++)
	{
		snprintf(key, sizeof(key), "%05d", i * 2);
		assert_status_ok(HsMemtableInsert(mt, S(key), S("v"), &st), &st);
	}
	assert_status_ok(HsMemtableFinish(mt, &st), &st);
	mem = HsMemtableMemoryUsage(mt);
	for (int i = 0; i < 1000; i++)
	{
		snprintf(key, sizeof(key), "%05d", i);
		assert_int_equal(HsMemtableGet(mt, S(key), &op), i % 2 == 0);
	}
	assert_int_equal(HsMemtableMemoryUsage(mt), mem);
	HsMemtableDestroy(mt);
}

/*
 * Writes in key order need no index whatever their kind: updates and
 * deletes of keys above every key held go straight to the pending list;
 * a write below or at the greatest key (a delete then insert of one key,
 * merged into an update) indexes them first, and every op reads back as
 * written.
 */
static void
test_memtable_ordered_writes(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsMemtable *mt = HsMemtableCreate(env, 3, 1, true, true);
	HsStatus	st;
	HsKeyOp		op;
	char		key[16];
	HsIterator *it;
	int			n;

	for (int i = 0; i < 3000; i++)
	{
		snprintf(key, sizeof(key), "%05d", i);
		if (i % 3 == 0)
			assert_status_ok(HsMemtableInsert(mt, S(key), S("new"), &st), &st);
		else if (i % 3 == 1)
			assert_status_ok(HsMemtableUpdate(mt, S(key), S("old"), S("new"), &st), &st);
		else
			assert_status_ok(HsMemtableDelete(mt, S(key), S("old"), &st), &st);
	}
	/* a repeat of the greatest key: merged (delete + insert = update) */
	assert_status_ok(HsMemtableInsert(mt, S("02999"), S("again"), &st), &st);
	/* one below: merged too (insert + delete = nothing) */
	assert_status_ok(HsMemtableDelete(mt, S("00003"), S("new"), &st), &st);
	assert_int_equal(HsMemtableKeyCount(mt), 3000);
	for (int i = 0; i < 3000; i++)
	{
		snprintf(key, sizeof(key), "%05d", i);
		assert_true(HsMemtableGet(mt, S(key), &op));
		if (i == 2999)
		{
			assert_int_equal(op.kind, HS_KEY_OP_UPDATE);
			assert_memory_equal(op.new_value.data, "again", 5);
			assert_memory_equal(op.old_value.data, "old", 3);
		}
		else if (i == 3)
			assert_int_equal(op.kind, HS_KEY_OP_NONE);
		else
			assert_int_equal(op.kind, i % 3 == 0 ? HS_KEY_OP_INSERT :
							 i % 3 == 1 ? HS_KEY_OP_UPDATE : HS_KEY_OP_DELETE);
	}
	assert_status_ok(HsMemtableFinish(mt, &st), &st);
	it = HsMemtableNewIterator(mt, HS_MEMTABLE_NEW_VALUES);
	n = 0;
	for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
		n++;
	assert_true(HsIterStatus(it, &st));
	HsIterDestroy(it);
	assert_true(n > 0);
	HsMemtableDestroy(mt);

	/* an update below the greatest key of an insert-only memtable */
	mt = HsMemtableCreate(env, 3, 2, false, true);
	assert_status_ok(HsMemtableInsert(mt, S("m"), S("1"), &st), &st);
	assert_status_ok(HsMemtableInsert(mt, S("c"), S("1"), &st), &st);
	assert_status_ok(HsMemtableUpdate(mt, S("c"), S("1"), S("2"), &st), &st);
	assert_status_ok(HsMemtableUpdate(mt, S("z"), S("0"), S("2"), &st), &st);
	assert_false(HsMemtableInsert(mt, S("z"), S("3"), &st));
	assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	assert_true(HsMemtableGet(mt, S("c"), &op));
	assert_int_equal(op.kind, HS_KEY_OP_INSERT);
	assert_memory_equal(op.new_value.data, "2", 1);
	HsMemtableDestroy(mt);
}

static void
test_missing_object_is_corruption(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsObjectStore *store;
	HsSstCache *cache;
	HsStatus	st;
	char		dir[512];
	HsIterator *it;

	unit_path(dir, sizeof(dir), "missing");
	assert_status_ok(HsObjectStoreOpen(env, dir, &store, &st), &st);
	cache = HsSstCacheCreate(env, store, 4, NULL);
	assert_false(HsSstCacheNewIterator(cache, 77, &it, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_non_null(strstr(st.msg, "77"));
	/* garbage bytes */
	assert_status_ok(HsObjectStorePut(store, 78, S("not an sst at all, sorry"), &st), &st);
	assert_false(HsSstCacheNewIterator(cache, 78, &it, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_non_null(strstr(st.msg, "78"));
	HsSstCacheDestroy(cache);
	HsObjectStoreClose(store);
}

static const struct CMUnitTest memtable_tests[] = {
	cmocka_unit_test(test_merge_rules),
	cmocka_unit_test(test_memtable_iterators),
	cmocka_unit_test(test_object_store),
	cmocka_unit_test(test_shared_buffer_sync_and_spill),
	cmocka_unit_test(test_shared_buffer_key_index),
	cmocka_unit_test(test_memtable_pending_link),
	cmocka_unit_test(test_memtable_iterator_sees_writes),
	cmocka_unit_test(test_memtable_lazy_index),
	cmocka_unit_test(test_memtable_pending_sort),
	cmocka_unit_test(test_memtable_ordered_writes),
	cmocka_unit_test(test_missing_object_is_corruption),
};

UNIT_SUITE(memtable)
{
	*tests = memtable_tests;
	return (int) (sizeof(memtable_tests) / sizeof(memtable_tests[0]));
}
