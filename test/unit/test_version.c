/*-------------------------------------------------------------------------
 *
 * test_version.c
 *	  Unit tests of SST infos, versions and version deltas: encode/decode
 *	  round trips, format errors and every invariant HsVersionApplyDelta
 *	  enforces.
 *
 * test/unit/test_version.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"

#include "hummock_stream/storage/compaction.h"
#include "hummock_stream/storage/meta_record.h"
#include "hummock_stream/storage/gc.h"
#include "hummock_stream/storage/version_apply.h"
#include "hummock_stream/storage/version_delta.h"

/* An SST of one table covering user keys [lo, hi] at epochs [e1, e2]. */
static HsSstInfo *
mk_sst(uint64_t id, HsTableId table, const char *lo, const char *hi,
	   HsEpoch e1, HsEpoch e2)
{
	HsEnv	   *env = HsEnvPosix();
	uint8_t		a[64];
	uint8_t		b[64];
	HsSstInfoInit init;
	HsSstInfo  *info;
	HsStatus	st;
	uint64_t	count = 3;

	memset(&init, 0, sizeof(init));
	init.object_id = id;
	init.file_size = 1000 + id;
	init.smallest_key = HsSliceMake(a, HsFullKeyEncode(a, table, lo, strlen(lo), e2));
	init.largest_key = HsSliceMake(b, HsFullKeyEncode(b, table, hi, strlen(hi), e1));
	init.min_epoch = e1;
	init.max_epoch = e2;
	init.entry_count = 3;
	init.raw_size = 300;
	init.stored_size = 200;
	init.table_count = 1;
	init.table_ids = &table;
	init.table_key_counts = &count;
	assert_status_ok(HsSstInfoCreate(env, &init, &info, &st), &st);
	return info;
}

static HsVersion *
apply_ok(HsVersion *v, HsVersionDelta *d)
{
	HsVersion  *nv;
	HsStatus	st;

	assert_status_ok(HsVersionApplyDelta(HsEnvPosix(), v, d, &nv, &st), &st);
	HsVersionDeltaFree(d);
	HsVersionUnref(v);
	return nv;
}

static void
apply_fails(HsVersion *v, HsVersionDelta *d, HsCode code, const char *needle)
{
	HsVersion  *nv = NULL;
	HsStatus	st;
	bool		ok = HsVersionApplyDelta(HsEnvPosix(), v, d, &nv, &st);

	HsVersionDeltaFree(d);
	if (ok)
	{
		HsVersionUnref(nv);
		fail_msg("delta applied but should fail with %s", HsCodeName(code));
	}
	assert_null(nv);
	if (st.code != code)
		fail_msg("expected %s, got %s: %s", HsCodeName(code),
				 HsCodeName(st.code), st.msg);
	if (needle && strstr(st.msg, needle) == NULL &&
		strstr(st.detail, needle) == NULL)
		fail_msg("\"%s\" not in \"%s\" / \"%s\"", needle, st.msg, st.detail);
}

/* Re-encode after decode must give identical bytes. */
static void
delta_round_trip(HsVersionDelta *d)
{
	HsEnv	   *env = HsEnvPosix();
	HsBuf		a;
	HsBuf		b;
	HsVersionDelta *d2;
	HsStatus	st;

	HsBufInit(&a, env);
	HsBufInit(&b, env);
	HsVersionDeltaEncode(d, &a);
	assert_status_ok(HsVersionDeltaDecode(env, HsBufSlice(&a), &d2, &st), &st);
	HsVersionDeltaEncode(d2, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	assert_int_equal(d2->kind, d->kind);
	assert_int_equal(d2->id, d->id);
	assert_int_equal(d2->n_commits, d->n_commits);
	assert_int_equal(d2->n_new_l0, d->n_new_l0);
	assert_int_equal(d2->n_log_appends, d->n_log_appends);
	assert_int_equal(d2->n_level_changes, d->n_level_changes);
	HsVersionDeltaFree(d2);
	HsBufFree(&a);
	HsBufFree(&b);
}

static void
version_round_trip(const HsVersion *v)
{
	HsEnv	   *env = HsEnvPosix();
	HsBuf		a;
	HsBuf		b;
	HsVersion  *v2;
	HsStatus	st;

	HsBufInit(&a, env);
	HsBufInit(&b, env);
	HsVersionEncode(v, &a);
	assert_status_ok(HsVersionDecode(env, HsBufSlice(&a), &v2, &st), &st);
	HsVersionEncode(v2, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	HsVersionUnref(v2);
	HsBufFree(&a);
	HsBufFree(&b);
}

static HsVersionDelta *
commit_delta(const HsVersion *v, HsTableId t, HsEpoch e, HsSstInfo *sst,
			 bool log)
{
	HsVersionDelta *d = HsVersionDeltaCreate(HsEnvPosix(), HS_DELTA_COMMIT, v->id);
	HsStatus	st;

	HsVersionDeltaAddCommit(d, t, e);
	if (sst)
		HsVersionDeltaAddL0Ssts(d, &sst, 1);
	if (log)
		assert_status_ok(HsVersionDeltaAddChangeLog(d, t, &e, 1, &sst,
													sst ? 1 : 0, NULL, 0, &st),
						 &st);
	return d;
}

static void
test_sst_info_round_trip(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsSstInfo  *a = mk_sst(7, 42, "apple", "pear", 10, 20);
	HsSstInfo  *b;
	HsBuf		buf;
	HsCursor	c;
	HsStatus	st;

	HsBufInit(&buf, env);
	HsSstInfoEncode(a, &buf);
	HsCursorInit(&c, HsBufSlice(&buf));
	assert_status_ok(HsSstInfoDecode(env, &c, "test", &b, &st), &st);
	assert_true(HsSstInfoEqual(a, b));
	assert_int_equal(HsCursorRemaining(&c), 0);
	assert_true(HsSstInfoHasTable(a, 42));
	assert_false(HsSstInfoHasTable(a, 41));

	/* truncated encodings are corruption */
	{
		HsSstInfo  *bad;

		HsCursorInit(&c, HsSliceMake(buf.data, buf.len - 1));
		assert_false(HsSstInfoDecode(env, &c, "test", &bad, &st));
		assert_null(bad);
		assert_int_equal(st.code, HS_CORRUPTION);
	}

	HsSstInfoUnref(a);
	HsSstInfoUnref(b);
	HsBufFree(&buf);
}

static void
test_delta_round_trip(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsVersionDelta *d;
	HsSstInfo  *s1 = mk_sst(1, 10, "a", "m", 5, 6);
	HsSstInfo  *s2 = mk_sst(2, 11, "b", "c", 5, 6);
	HsSstInfo  *s3 = mk_sst(3, 10, "a", "m", 5, 6);
	HsEpoch		epochs[2] = {5, 6};
	uint64_t	removed[2] = {1, 2};
	HsStatus	st;

	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, 41);
	HsVersionDeltaAddCommit(d, 10, 6);
	HsVersionDeltaAddCommit(d, 11, 6);
	HsVersionDeltaAddL0Ssts(d, &s1, 1);
	HsVersionDeltaAddL0Ssts(d, &s2, 1);
	assert_status_ok(HsVersionDeltaAddChangeLog(d, 10, epochs, 2, &s1, 1,
												&s3, 1, &st), &st);
	HsVersionDeltaAddTruncate(d, 10, 3);
	delta_round_trip(d);
	HsVersionDeltaFree(d);

	d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, 7);
	HsVersionDeltaAddLevelChange(d, 0, removed, 2, NULL, 0);
	HsVersionDeltaAddLevelChange(d, 1, NULL, 0, &s3, 1);
	d->safe_epoch = 4;
	delta_round_trip(d);
	HsVersionDeltaFree(d);

	d = HsVersionDeltaCreate(env, HS_DELTA_REMOVE_TABLES, 9);
	HsVersionDeltaAddRemovedTable(d, 10);
	HsVersionDeltaAddRemovedTable(d, 12);
	delta_round_trip(d);
	HsVersionDeltaFree(d);

	HsSstInfoUnref(s1);
	HsSstInfoUnref(s2);
	HsSstInfoUnref(s3);
}

static void
test_delta_decode_errors(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsVersionDelta *d;
	HsVersionDelta *d2;
	HsBuf		buf;
	HsBuf		body;
	HsStatus	st;
	size_t		i;

	HsBufInit(&buf, env);
	HsBufInit(&body, env);
	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, 1);
	HsVersionDeltaAddCommit(d, 10, 6);
	HsVersionDeltaEncode(d, &buf);
	HsVersionDeltaFree(d);

	/* every single-byte flip is caught */
	for (i = 0; i < buf.len; i++)
	{
		buf.data[i] ^= 0x40;
		assert_false(HsVersionDeltaDecode(env, HsBufSlice(&buf), &d2, &st));
		assert_int_equal(st.code, HS_CORRUPTION);
		buf.data[i] ^= 0x40;
	}
	/* truncation */
	for (i = 0; i < buf.len; i++)
	{
		assert_false(HsVersionDeltaDecode(env, HsSliceMake(buf.data, i), &d2, &st));
		assert_int_equal(st.code, HS_CORRUPTION);
	}

	/* unknown format version */
	HsMetaRecordBegin(&buf, "HSVD", 2);
	HsMetaRecordFinish(&buf);
	assert_false(HsVersionDeltaDecode(env, HsBufSlice(&buf), &d2, &st));
	assert_int_equal(st.code, HS_NOT_SUPPORTED);

	/* unknown tag after a valid header */
	HsMetaRecordBegin(&buf, "HSVD", 1);
	HsBufPutByte(&body, HS_DELTA_COMMIT);
	HsBufPutVarint64(&body, 2);
	HsBufPutVarint64(&body, 1);
	HsMetaRecordField(&buf, 1, HsBufSlice(&body));
	HsMetaRecordField(&buf, 99, HsSliceMake("x", 1));
	HsMetaRecordFinish(&buf);
	assert_false(HsVersionDeltaDecode(env, HsBufSlice(&buf), &d2, &st));
	assert_int_equal(st.code, HS_NOT_SUPPORTED);

	/* unknown kind */
	HsBufReset(&body);
	HsMetaRecordBegin(&buf, "HSVD", 1);
	HsBufPutByte(&body, 77);
	HsBufPutVarint64(&body, 2);
	HsBufPutVarint64(&body, 1);
	HsMetaRecordField(&buf, 1, HsBufSlice(&body));
	HsMetaRecordFinish(&buf);
	assert_false(HsVersionDeltaDecode(env, HsBufSlice(&buf), &d2, &st));
	assert_int_equal(st.code, HS_NOT_SUPPORTED);

	/* a body with trailing bytes */
	HsBufReset(&body);
	HsMetaRecordBegin(&buf, "HSVD", 1);
	HsBufPutByte(&body, HS_DELTA_COMMIT);
	HsBufPutVarint64(&body, 2);
	HsBufPutVarint64(&body, 1);
	HsBufPutByte(&body, 0);
	HsMetaRecordField(&buf, 1, HsBufSlice(&body));
	HsMetaRecordFinish(&buf);
	assert_false(HsVersionDeltaDecode(env, HsBufSlice(&buf), &d2, &st));
	assert_int_equal(st.code, HS_CORRUPTION);

	/* a version checkpoint is not a delta */
	{
		HsVersion  *v = HsVersionCreateEmpty(env);

		HsVersionEncode(v, &buf);
		assert_false(HsVersionDeltaDecode(env, HsBufSlice(&buf), &d2, &st));
		assert_int_equal(st.code, HS_CORRUPTION);
		HsVersionUnref(v);
	}
	HsBufFree(&buf);
	HsBufFree(&body);
}

static void
test_apply_commit_and_checkpoint(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsVersion  *v = HsVersionCreateEmpty(env);
	HsSstInfo  *s1 = mk_sst(1, 10, "a", "m", 5, 5);
	HsSstInfo  *s2 = mk_sst(2, 11, "b", "c", 6, 6);
	HsSstInfo  *s3 = mk_sst(3, 10, "c", "z", 7, 7);
	HsEpoch		e;
	uint64_t   *ids;
	size_t		n;
	HsLevelSummary *sum;
	int			nsum;

	v = apply_ok(v, commit_delta(v, 10, 5, s1, true));
	v = apply_ok(v, commit_delta(v, 11, 6, s2, false));
	v = apply_ok(v, commit_delta(v, 10, 7, s3, true));
	assert_int_equal(v->id, 3);
	assert_true(HsVersionCommittedEpoch(v, 10, &e));
	assert_int_equal(e, 7);
	assert_true(HsVersionCommittedEpoch(v, 11, &e));
	assert_int_equal(e, 6);
	assert_false(HsVersionCommittedEpoch(v, 12, &e));
	assert_int_equal(v->n_sub_levels, 3);
	assert_int_equal(v->sub_levels[2].sub_level_id, 3);
	assert_non_null(HsVersionChangeLog(v, 10));
	assert_int_equal(HsVersionChangeLog(v, 10)->n_entries, 2);
	assert_int_equal(HsVersionChangeLog(v, 10)->start_epoch, 0);
	assert_null(HsVersionChangeLog(v, 11));

	HsVersionObjectIds(v, &ids, &n);
	assert_int_equal(n, 3);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[2], 3);
	HsFree(env, ids);

	HsVersionLevelSummaries(v, &sum, &nsum);
	assert_int_equal(nsum, 3);
	assert_int_equal(sum[0].sub_level_id, 3);	/* newest first */
	HsFree(env, sum);

	version_round_trip(v);

	/* truncation drops entries whose checkpoint epoch < 7 */
	{
		HsVersionDelta *d = HsVersionDeltaCreate(env, HS_DELTA_TRUNCATE_LOG, v->id);

		HsVersionDeltaAddTruncate(d, 10, 7);
		v = apply_ok(v, d);
		assert_int_equal(HsVersionChangeLog(v, 10)->n_entries, 1);
		assert_int_equal(HsVersionChangeLog(v, 10)->start_epoch, 5);
	}
	/* stop rule: committing table 10 without a log entry drops the log */
	v = apply_ok(v, commit_delta(v, 10, 8, NULL, false));
	assert_null(HsVersionChangeLog(v, 10));
	version_round_trip(v);

	/* compaction: move L0 to L1 */
	{
		HsVersionDelta *d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
		uint64_t	rm[3] = {1, 2, 3};
		HsSstInfo  *out1 = mk_sst(4, 10, "a", "z", 5, 7);
		HsSstInfo  *out2 = mk_sst(5, 11, "b", "c", 6, 6);
		HsSstInfo  *outs[2] = {out2, out1};

		HsVersionDeltaAddLevelChange(d, 0, rm, 3, NULL, 0);
		HsVersionDeltaAddLevelChange(d, 1, NULL, 0, outs, 2);
		d->safe_epoch = 6;
		v = apply_ok(v, d);
		HsSstInfoUnref(out1);
		HsSstInfoUnref(out2);
		assert_int_equal(v->n_sub_levels, 0);
		assert_int_equal(v->levels[0].n_ssts, 2);
		assert_int_equal(v->levels[0].ssts[0]->object_id, 4);	/* sorted */
		assert_int_equal(HsVersionTableInfo(v, 10)->safe_epoch, 6);
		assert_int_equal(HsVersionTableInfo(v, 11)->safe_epoch, 6);
		assert_true(HsVersionReferencesObject(v, 5));
		assert_false(HsVersionReferencesObject(v, 1));
		version_round_trip(v);
	}
	{
		HsStatus	st;

		assert_false(HsVersionCheckReadEpoch(v, 10, 5, &st));
		assert_int_equal(st.code, HS_INVALID_ARGUMENT);
		assert_true(HsVersionCheckReadEpoch(v, 10, 6, &st));
	}

	/* table removal keeps the id as dropped until compaction */
	{
		HsVersionDelta *d = HsVersionDeltaCreate(env, HS_DELTA_REMOVE_TABLES, v->id);

		HsVersionDeltaAddRemovedTable(d, 11);
		v = apply_ok(v, d);
		assert_null(HsVersionTableInfo(v, 11));
		assert_true(HsVersionTableDropped(v, 11));
		version_round_trip(v);
		apply_fails(v, commit_delta(v, 11, 100, NULL, false),
					HS_INVALID_ARGUMENT, "dropped");

		d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
		{
			uint64_t	rm = 5;

			HsVersionDeltaAddLevelChange(d, 1, &rm, 1, NULL, 0);
		}
		v = apply_ok(v, d);
		assert_false(HsVersionTableDropped(v, 11));
		v = apply_ok(v, commit_delta(v, 11, 100, NULL, false));
	}

	HsSstInfoUnref(s1);
	HsSstInfoUnref(s2);
	HsSstInfoUnref(s3);
	HsVersionUnref(v);
}

static void
test_apply_invariants(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsVersion  *v = HsVersionCreateEmpty(env);
	HsSstInfo  *s1 = mk_sst(1, 10, "a", "m", 5, 5);
	HsSstInfo  *s2 = mk_sst(2, 11, "a", "m", 9, 9);
	HsSstInfo  *l1a = mk_sst(3, 10, "a", "f", 1, 5);
	HsSstInfo  *l1b = mk_sst(4, 10, "e", "k", 1, 5);
	HsVersionDelta *d;
	HsStatus	st;

	v = apply_ok(v, commit_delta(v, 10, 5, s1, true));

	/* wrong prev id */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, 7);
	HsVersionDeltaAddCommit(d, 10, 9);
	apply_fails(v, d, HS_INVALID_ARGUMENT, "does not follow");

	/* epoch not greater: names table and both epochs */
	apply_fails(v, commit_delta(v, 10, 5, NULL, false), HS_INVALID_ARGUMENT,
				"table 10 cannot move from 5 to 5");
	apply_fails(v, commit_delta(v, 10, 4, NULL, false), HS_INVALID_ARGUMENT,
				"from 5 to 4");

	/* commit with no tables */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, v->id);
	apply_fails(v, d, HS_INVALID_ARGUMENT, "commits no table");

	/* same table twice */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, v->id);
	HsVersionDeltaAddCommit(d, 10, 9);
	HsVersionDeltaAddCommit(d, 10, 10);
	apply_fails(v, d, HS_INVALID_ARGUMENT, "twice");

	/* L0 data of a table not committed */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, v->id);
	HsVersionDeltaAddCommit(d, 10, 9);
	HsVersionDeltaAddL0Ssts(d, &s2, 1);
	apply_fails(v, d, HS_INVALID_ARGUMENT, "table 11");

	/* reusing an object id */
	apply_fails(v, commit_delta(v, 10, 9, s1, false), HS_INVALID_ARGUMENT,
				"already referenced");

	/* change-log append out of order: must end at the committed epoch */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, v->id);
	HsVersionDeltaAddCommit(d, 10, 9);
	{
		HsEpoch		ep[2] = {6, 8};

		assert_status_ok(HsVersionDeltaAddChangeLog(d, 10, ep, 2, NULL, 0, NULL, 0, &st), &st);
	}
	apply_fails(v, d, HS_INVALID_ARGUMENT, "out of epoch order");

	/* ... and start after the previous committed epoch */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, v->id);
	HsVersionDeltaAddCommit(d, 10, 9);
	{
		HsEpoch		ep[2] = {5, 9};

		assert_status_ok(HsVersionDeltaAddChangeLog(d, 10, ep, 2, NULL, 0, NULL, 0, &st), &st);
	}
	apply_fails(v, d, HS_INVALID_ARGUMENT, "out of epoch order");

	/* append for a table not committed */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, v->id);
	HsVersionDeltaAddCommit(d, 10, 9);
	{
		HsEpoch		ep = 9;

		assert_status_ok(HsVersionDeltaAddChangeLog(d, 12, &ep, 1, NULL, 0, NULL, 0, &st), &st);
	}
	apply_fails(v, d, HS_INVALID_ARGUMENT, "does not commit");

	/* descending epochs are refused when the entry is built */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, v->id);
	{
		HsEpoch		ep[2] = {9, 8};

		assert_false(HsVersionDeltaAddChangeLog(d, 10, ep, 2, NULL, 0, NULL, 0, &st));
		assert_int_equal(st.code, HS_INVALID_ARGUMENT);
	}
	HsVersionDeltaFree(d);

	/* compaction removing an SST that is not there */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
	{
		uint64_t	rm = 99;

		HsVersionDeltaAddLevelChange(d, 0, &rm, 1, NULL, 0);
	}
	apply_fails(v, d, HS_INVALID_ARGUMENT, "Object 99");

	/* removing an L0 SST from L1 */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
	{
		uint64_t	rm = 1;

		HsVersionDeltaAddLevelChange(d, 1, &rm, 1, NULL, 0);
	}
	apply_fails(v, d, HS_INVALID_ARGUMENT, "not in the level");

	/* inserting into L0 */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
	HsVersionDeltaAddLevelChange(d, 0, NULL, 0, &l1a, 1);
	apply_fails(v, d, HS_INVALID_ARGUMENT, "L0");

	/* overlapping L1 */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
	{
		HsSstInfo  *two[2] = {l1a, l1b};

		HsVersionDeltaAddLevelChange(d, 1, NULL, 0, two, 2);
	}
	apply_fails(v, d, HS_INVALID_ARGUMENT, "overlap");

	/* a compaction delta may not commit */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
	HsVersionDeltaAddCommit(d, 10, 9);
	apply_fails(v, d, HS_INVALID_ARGUMENT, "only a commit");

	/* a commit delta may not change levels */
	d = commit_delta(v, 10, 9, NULL, false);
	HsVersionDeltaAddLevelChange(d, 1, NULL, 0, &l1a, 1);
	apply_fails(v, d, HS_INVALID_ARGUMENT, "only a compaction");

	/* and the version is unchanged by all of that */
	assert_int_equal(v->id, 1);
	assert_int_equal(v->n_sub_levels, 1);

	HsSstInfoUnref(s1);
	HsSstInfoUnref(s2);
	HsSstInfoUnref(l1a);
	HsSstInfoUnref(l1b);
	HsVersionUnref(v);
}

static void
test_version_decode_errors(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsVersion  *v = HsVersionCreateEmpty(env);
	HsVersion  *v2;
	HsSstInfo  *s1 = mk_sst(1, 10, "a", "m", 5, 5);
	HsBuf		buf;
	HsStatus	st;
	size_t		i;

	v = apply_ok(v, commit_delta(v, 10, 5, s1, true));
	HsBufInit(&buf, env);
	HsVersionEncode(v, &buf);
	for (i = 0; i < buf.len; i++)
	{
		buf.data[i] ^= 0x01;
		assert_false(HsVersionDecode(env, HsBufSlice(&buf), &v2, &st));
		assert_int_equal(st.code, HS_CORRUPTION);
		buf.data[i] ^= 0x01;
	}
	HsMetaRecordBegin(&buf, "HSVC", 9);
	HsMetaRecordFinish(&buf);
	assert_false(HsVersionDecode(env, HsBufSlice(&buf), &v2, &st));
	assert_int_equal(st.code, HS_NOT_SUPPORTED);
	HsBufFree(&buf);
	HsSstInfoUnref(s1);
	HsVersionUnref(v);
}

static void
test_gc_rules(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsVersion  *v = HsVersionCreateEmpty(env);
	HsVersion  *pinned;
	HsSstInfo  *s1 = mk_sst(1, 10, "a", "m", 5, 5);
	HsSstInfo  *s2 = mk_sst(2, 10, "a", "m", 6, 6);
	HsSstInfo  *s3 = mk_sst(3, 10, "a", "m", 7, 7);
	HsObjectEntry objs[7] = {
		{1, 10, false}, {2, 10, false}, {3, 10, false}, {4, 10, false},
		{5, 10, true}, {20, 10, false}, {21, 10, true}
	};
	HsObjectEntry *out;
	size_t		n;
	const HsVersion *pins[1];

	/* s1 in L0 and in the change log; s2 only in the log later */
	v = apply_ok(v, commit_delta(v, 10, 5, s1, true));
	pinned = HsVersionRef(v);
	v = apply_ok(v, commit_delta(v, 10, 6, s2, true));
	{
		HsVersionDelta *d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
		uint64_t	rm[2] = {1, 2};

		HsVersionDeltaAddLevelChange(d, 0, rm, 2, NULL, 0);
		HsVersionDeltaAddLevelChange(d, 1, NULL, 0, &s3, 1);
		v = apply_ok(v, d);
	}
	/* 1 and 2 left the levels but the change log still holds them */
	HsGcCollect(env, v, NULL, 0, objs, 7, 20, &out, &n);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].object_id, 4);
	assert_int_equal(out[1].object_id, 5);	/* a leftover staging file */
	HsFree(env, out);

	/* truncate the log: 1 and 2 become garbage, unless pinned */
	{
		HsVersionDelta *d = HsVersionDeltaCreate(env, HS_DELTA_TRUNCATE_LOG, v->id);

		HsVersionDeltaAddTruncate(d, 10, 100);
		v = apply_ok(v, d);
	}
	pins[0] = pinned;
	HsGcCollect(env, v, pins, 1, objs, 7, 20, &out, &n);
	assert_int_equal(n, 3);
	assert_int_equal(out[0].object_id, 2);
	assert_int_equal(out[1].object_id, 4);
	HsFree(env, out);
	HsGcCollect(env, v, NULL, 0, objs, 7, 20, &out, &n);
	assert_int_equal(n, 4);
	assert_int_equal(out[0].object_id, 1);
	HsFree(env, out);
	/* nothing at or above the in-flight bound, temporary or not */
	HsGcCollect(env, v, NULL, 0, objs, 7, 1, &out, &n);
	assert_int_equal(n, 0);
	assert_null(out);

	HsVersionUnref(pinned);
	HsSstInfoUnref(s1);
	HsSstInfoUnref(s2);
	HsSstInfoUnref(s3);
	HsVersionUnref(v);
}

/*
 * Trimming change logs: entries below the retention epoch go, except what
 * a downstream reading a table's log from its floor epoch still needs.
 */
static void
test_trim_change_logs_floors(void **state)
{
	HsVersion  *v = HsVersionCreateEmpty(HsEnvPosix());
	HsVersionDelta *d;
	const HsTableChangeLog *log;
	HsLogFloor	floor = {10, 200};

	/* tables 10 and 11 commit (and log) a change at epochs 100, 200, 300 */
	for (HsEpoch e = 100; e <= 300; e += 100)
	{
		HsSstInfo  *s10 = mk_sst(e, 10, "a", "z", e, e);
		HsSstInfo  *s11 = mk_sst(e + 1, 11, "a", "z", e, e);

		v = apply_ok(v, commit_delta(v, 10, e, s10, true));
		v = apply_ok(v, commit_delta(v, 11, e, s11, true));
		HsSstInfoUnref(s10);
		HsSstInfoUnref(s11);
	}
	/* nothing below the retention epoch: no delta */
	assert_null(HsCompactionTrimChangeLogs(v, 100, &floor, 1));

	/* retention 300: table 11 keeps only 300; table 10 keeps from 200 on */
	d = HsCompactionTrimChangeLogs(v, 300, &floor, 1);
	assert_non_null(d);
	v = apply_ok(v, d);
	log = HsVersionChangeLog(v, 11);
	assert_int_equal(log->n_entries, 1);
	assert_int_equal(HsChangeLogEntryCheckpointEpoch(log->entries[0]), 300);
	log = HsVersionChangeLog(v, 10);
	assert_int_equal(log->n_entries, 2);
	assert_int_equal(HsChangeLogEntryCheckpointEpoch(log->entries[0]), 200);
	/* a read of (200, 300] is still possible: the log starts at or below 200 */
	assert_true(log->start_epoch <= 200);
	HsVersionUnref(v);
}

/*
 * A dropped table's L0 sub-levels, fewer than the trigger and never added
 * to again, are still picked (L0 -> L1, which drops their keys); a live
 * table's as few sub-levels are not.
 */
static void
test_pick_dropped_l0(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsVersion  *v = HsVersionCreateEmpty(env);
	HsSstInfo  *s1 = mk_sst(1, 20, "a", "m", 5, 5);
	HsSstInfo  *s2 = mk_sst(2, 30, "a", "m", 6, 6);
	HsCompactionConfig cfg;
	HsCompactionTask *t;
	HsVersionDelta *d;

	HsCompactionConfigInit(&cfg);
	v = apply_ok(v, commit_delta(v, 20, 5, s1, false));
	v = apply_ok(v, commit_delta(v, 30, 6, s2, false));
	assert_null(HsCompactionPick(v, &cfg));

	d = HsVersionDeltaCreate(env, HS_DELTA_REMOVE_TABLES, v->id);
	HsVersionDeltaAddRemovedTable(d, 20);
	v = apply_ok(v, d);
	assert_true(HsVersionTableDropped(v, 20));
	t = HsCompactionPick(v, &cfg);
	assert_non_null(t);
	assert_int_equal(t->input_level, 0);
	assert_int_equal(t->output_level, 1);
	assert_int_equal(t->n_upper, 1);
	assert_int_equal(t->upper[0]->object_id, 1);
	assert_int_equal(t->n_lower, 0);
	HsCompactionTaskFree(t);

	HsSstInfoUnref(s1);
	HsSstInfoUnref(s2);
	HsVersionUnref(v);
}

static const struct CMUnitTest version_tests[] = {
	cmocka_unit_test(test_gc_rules),
	cmocka_unit_test(test_sst_info_round_trip),
	cmocka_unit_test(test_delta_round_trip),
	cmocka_unit_test(test_delta_decode_errors),
	cmocka_unit_test(test_apply_commit_and_checkpoint),
	cmocka_unit_test(test_apply_invariants),
	cmocka_unit_test(test_version_decode_errors),
	cmocka_unit_test(test_trim_change_logs_floors),
	cmocka_unit_test(test_pick_dropped_l0),
};

UNIT_SUITE(version)
{
	*tests = version_tests;
	return (int) (sizeof(version_tests) / sizeof(version_tests[0]));
}
