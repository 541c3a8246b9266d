/*-------------------------------------------------------------------------
 *
 * test_version_format.c
 *	  Golden encodings of the persisted version formats.
 *
 * Version deltas and checkpoints are stored in the catalog and read back by
 * every later build, so their bytes must never change.  Each test builds a
 * value that uses every tag of its format, checks that it encodes to the
 * bytes below (written by the build that introduced the test), and that
 * the bytes decode and encode again to themselves.  A test that fails here
 * after a refactoring means the refactoring changed the persisted format.
 *
 * The SST-list tests check the bounds of the one SST-list decoder
 * (HsSstInfoListDecode) that deltas, checkpoints and change-log entries
 * share: a count the record cannot hold is corruption before anything is
 * allocated, and a list cut short leaves nothing allocated.
 *
 * test/unit/test_version_format.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"

#include "hummock_stream/storage/meta_record.h"
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

/* Lower-case hex of buf (caller frees with HsFree). */
static char *
to_hex(const HsBuf *buf)
{
	char	   *hex = HsAlloc(HsEnvPosix(), buf->len * 2 + 1);
	size_t		i;

	for (i = 0; i < buf->len; i++)
		snprintf(hex + 2 * i, 3, "%02x", buf->data[i]);
	hex[buf->len * 2] = '\0';
	return hex;
}

/* Decode hex into buf, replacing its contents. */
static void
from_hex(const char *hex, HsBuf *buf)
{
	size_t		n = strlen(hex);
	size_t		i;

	assert_int_equal(n % 2, 0);
	HsBufReset(buf);
	for (i = 0; i < n; i += 2)
	{
		unsigned int byte;

		assert_int_equal(sscanf(hex + i, "%2x", &byte), 1);
		HsBufPutByte(buf, (uint8_t) byte);
	}
}

/* Fail, printing the actual bytes, unless buf holds exactly golden. */
static void
assert_golden(const HsBuf *buf, const char *golden, const char *what)
{
	char	   *hex = to_hex(buf);

	if (strcmp(hex, golden) != 0)
	{
		print_message("%s encodes to\n%s\n", what, hex);
		HsFree(HsEnvPosix(), hex);
		fail_msg("the persisted %s format changed", what);
	}
	HsFree(HsEnvPosix(), hex);
}

/*
 * Deltas of each kind, together using every delta tag: header, commit
 * epoch, new L0 SSTs, change-log append, level change, safe epoch,
 * truncate log, remove table.
 */
static const char *const golden_deltas[] = {
	/* commit */
	"48535644010103012a2902020a0602020b0603530201e9070d0000000a61ffff"
	"fffffffffff90d0000000a6dfffffffffffffffa050603ac02c801010a0302ea"
	"070d0000000b62fffffffffffffff90d0000000b63fffffffffffffffa050603"
	"ac02c801010b0304590a0205060101e9070d0000000a61fffffffffffffff90d"
	"0000000a6dfffffffffffffffa050603ac02c801010a0301ac02940a0d000000"
	"0a61fffffffffffffff90d0000000a6dfffffffffffffffa050603ac02c80101"
	"0a0304050b0106000007020a0326ae9bec",
	/* compaction */
	"4853564401010302080705050002010200052d010001ac02940a0d0000000a61"
	"fffffffffffffff90d0000000a6dfffffffffffffffa050603ac02c801010a03"
	"052d0201010102ea070d0000000b62fffffffffffffff90d0000000b63ffffff"
	"fffffffffa050603ac02c801010b0306010407020b05e28fc74d",
	/* remove tables */
	"48535644010103040a0908010a0803808040b613e1f7",
};

/* Builds golden delta number which (see golden_deltas). */
static HsVersionDelta *
golden_delta(int which)
{
	HsEnv	   *env = HsEnvPosix();
	HsSstInfo  *s1 = mk_sst(1, 10, "a", "m", 5, 6);
	HsSstInfo  *s2 = mk_sst(2, 11, "b", "c", 5, 6);
	HsSstInfo  *s3 = mk_sst(300, 10, "a", "m", 5, 6);
	HsEpoch		epochs[2] = {5, 6};
	uint64_t	removed[2] = {1, 2};
	HsVersionDelta *d = NULL;
	HsStatus	st;

	switch (which)
	{
		case 0:
			d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, 41);
			HsVersionDeltaAddCommit(d, 10, 6);
			HsVersionDeltaAddCommit(d, 11, 6);
			HsVersionDeltaAddL0Ssts(d, &s1, 1);
			HsVersionDeltaAddL0Ssts(d, &s2, 1);
			assert_status_ok(HsVersionDeltaAddChangeLog(d, 10, epochs, 2,
														&s1, 1, &s3, 1, &st),
							 &st);
			assert_status_ok(HsVersionDeltaAddChangeLog(d, 11, epochs + 1, 1,
														NULL, 0, NULL, 0, &st),
							 &st);
			HsVersionDeltaAddTruncate(d, 10, 3);
			break;
		case 1:
			d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, 7);
			HsVersionDeltaAddLevelChange(d, 0, removed, 2, NULL, 0);
			HsVersionDeltaAddLevelChange(d, 1, NULL, 0, &s3, 1);
			HsVersionDeltaAddLevelChange(d, 2, removed, 1, &s2, 1);
			d->safe_epoch = 4;
			HsVersionDeltaAddTruncate(d, 11, 5);
			break;
		case 2:
			d = HsVersionDeltaCreate(env, HS_DELTA_REMOVE_TABLES, 9);
			HsVersionDeltaAddRemovedTable(d, 10);
			HsVersionDeltaAddRemovedTable(d, 1u << 20);
			break;
	}
	HsSstInfoUnref(s1);
	HsSstInfoUnref(s2);
	HsSstInfoUnref(s3);
	return d;
}

/* Each golden delta encodes to its bytes, which decode to themselves. */
static void
test_delta_golden(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsBuf		a;
	HsBuf		b;
	int			i;

	HsBufInit(&a, env);
	HsBufInit(&b, env);
	for (i = 0; i < 3; i++)
	{
		HsVersionDelta *d = golden_delta(i);
		HsVersionDelta *d2;
		HsStatus	st;

		HsVersionDeltaEncode(d, &a);
		assert_golden(&a, golden_deltas[i], "version delta");

		from_hex(golden_deltas[i], &a);
		assert_status_ok(HsVersionDeltaDecode(env, HsBufSlice(&a), &d2, &st),
						 &st);
		HsVersionDeltaEncode(d2, &b);
		assert_int_equal(a.len, b.len);
		assert_memory_equal(a.data, b.data, a.len);
		assert_int_equal(d2->n_new_l0, d->n_new_l0);
		assert_int_equal(d2->n_log_appends, d->n_log_appends);
		assert_int_equal(d2->n_level_changes, d->n_level_changes);
		HsVersionDeltaFree(d2);
		HsVersionDeltaFree(d);
	}
	HsBufFree(&a);
	HsBufFree(&b);
}

/*
 * A checkpoint using every checkpoint tag: header, table, L0 sub-level,
 * level, change log, dropped table.
 */
static const char golden_checkpoint[] =
	"48535643010102040202030a050502030b06050354020202ea070d0000000b62"
	"fffffffffffffff90d0000000b63fffffffffffffff9060603ac02c801010b03"
	"03eb070d0000000c64fffffffffffffff90d0000000c65fffffffffffffff906"
	"0603ac02c801010c03042b010104ec070d0000000a61fffffffffffffff80d00"
	"00000a6dfffffffffffffff8070703ac02c801010a0305300a000101050101e9"
	"070d0000000a61fffffffffffffffa0d0000000a6dfffffffffffffffa050503"
	"ac02c801010a030006010ce0bf0abc";

/* Applies d to v, consuming both, and returns the new version. */
static HsVersion *
apply(HsVersion *v, HsVersionDelta *d)
{
	HsVersion  *nv;
	HsStatus	st;

	assert_status_ok(HsVersionApplyDelta(HsEnvPosix(), v, d, &nv, &st), &st);
	HsVersionDeltaFree(d);
	HsVersionUnref(v);
	return nv;
}

/* Builds the version of golden_checkpoint by applying deltas. */
static HsVersion *
golden_version(void)
{
	HsEnv	   *env = HsEnvPosix();
	HsVersion  *v = HsVersionCreateEmpty(env);
	HsSstInfo  *s1 = mk_sst(1, 10, "a", "m", 5, 5);
	HsSstInfo  *s2 = mk_sst(2, 11, "b", "c", 6, 6);
	HsSstInfo  *s3 = mk_sst(3, 12, "d", "e", 6, 6);
	HsSstInfo  *s4 = mk_sst(4, 10, "a", "m", 7, 7);
	HsVersionDelta *d;
	HsEpoch		e;
	HsStatus	st;
	uint64_t	rm = 1;

	/* table 10 logged, 11 and 12 not */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, v->id);
	e = 5;
	HsVersionDeltaAddCommit(d, 10, e);
	HsVersionDeltaAddL0Ssts(d, &s1, 1);
	assert_status_ok(HsVersionDeltaAddChangeLog(d, 10, &e, 1, &s1, 1, NULL, 0,
												&st), &st);
	v = apply(v, d);

	d = HsVersionDeltaCreate(env, HS_DELTA_COMMIT, v->id);
	HsVersionDeltaAddCommit(d, 11, 6);
	HsVersionDeltaAddCommit(d, 12, 6);
	HsVersionDeltaAddL0Ssts(d, &s2, 1);
	HsVersionDeltaAddL0Ssts(d, &s3, 1);
	v = apply(v, d);

	/* s1 moves to L1 as s4 */
	d = HsVersionDeltaCreate(env, HS_DELTA_COMPACTION, v->id);
	HsVersionDeltaAddLevelChange(d, 0, &rm, 1, NULL, 0);
	HsVersionDeltaAddLevelChange(d, 1, NULL, 0, &s4, 1);
	d->safe_epoch = 5;
	v = apply(v, d);

	/* table 12 goes while its keys are still in L0 */
	d = HsVersionDeltaCreate(env, HS_DELTA_REMOVE_TABLES, v->id);
	HsVersionDeltaAddRemovedTable(d, 12);
	v = apply(v, d);

	assert_int_equal(v->n_tables, 2);
	assert_int_equal(v->n_sub_levels, 1);
	assert_int_equal(v->levels[0].n_ssts, 1);
	assert_int_equal(v->n_change_logs, 1);
	assert_int_equal(v->n_dropped, 1);
	HsSstInfoUnref(s1);
	HsSstInfoUnref(s2);
	HsSstInfoUnref(s3);
	HsSstInfoUnref(s4);
	return v;
}

/* The golden version encodes to its bytes, which decode to themselves. */
static void
test_checkpoint_golden(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsVersion  *v = golden_version();
	HsVersion  *v2;
	HsBuf		a;
	HsBuf		b;
	HsStatus	st;

	HsBufInit(&a, env);
	HsBufInit(&b, env);
	HsVersionEncode(v, &a);
	assert_golden(&a, golden_checkpoint, "version checkpoint");

	from_hex(golden_checkpoint, &a);
	assert_status_ok(HsVersionDecode(env, HsBufSlice(&a), &v2, &st), &st);
	HsVersionEncode(v2, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	HsVersionUnref(v2);
	HsVersionUnref(v);
	HsBufFree(&a);
	HsBufFree(&b);
}

/*
 * An env that counts live allocations and remembers the largest request,
 * so that a test sees a leak or an allocation sized by a corrupt count.
 */
typedef struct CountingEnv
{
	HsEnv		env;
	long		live;
	size_t		largest;
} CountingEnv;

/* Allocates through the POSIX env, counting. */
static void *
counting_alloc(HsEnv *env, size_t size)
{
	CountingEnv *ce = (CountingEnv *) env;

	ce->live++;
	if (size > ce->largest)
		ce->largest = size;
	return HsAlloc(HsEnvPosix(), size);
}

/* Reallocates through the POSIX env, counting a fresh block as one. */
static void *
counting_realloc(HsEnv *env, void *ptr, size_t size)
{
	CountingEnv *ce = (CountingEnv *) env;

	if (ptr == NULL)
		ce->live++;
	if (size > ce->largest)
		ce->largest = size;
	return HsRealloc(HsEnvPosix(), ptr, size);
}

/* Frees through the POSIX env, counting. */
static void
counting_free(HsEnv *env, void *ptr)
{
	CountingEnv *ce = (CountingEnv *) env;

	ce->live--;
	HsFree(HsEnvPosix(), ptr);
}

/* Makes ce the POSIX env with counting allocation functions. */
static void
counting_env_init(CountingEnv *ce)
{
	ce->env = *HsEnvPosix();
	ce->env.alloc = counting_alloc;
	ce->env.realloc = counting_realloc;
	ce->env.free = counting_free;
	ce->live = 0;
	ce->largest = 0;
}

/* Decode data as an SST list and expect HS_CORRUPTION, nothing left live. */
static void
list_decode_fails(HsSlice data, const char *needle)
{
	CountingEnv ce;
	HsCursor	c;
	HsSstInfo  *sentinel = NULL;
	HsSstInfo **arr = &sentinel;	/* the decoder must reset it */
	int			n = -1;
	HsStatus	st;

	counting_env_init(&ce);
	HsCursorInit(&c, data);
	assert_false(HsSstInfoListDecode(&ce.env, &c, "test record", &arr, &n,
									 &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_null(arr);
	assert_int_equal(n, 0);
	assert_non_null(strstr(st.msg, "test record"));
	if (needle && strstr(st.msg, needle) == NULL &&
		strstr(st.detail, needle) == NULL)
		fail_msg("\"%s\" not in \"%s\" / \"%s\"", needle, st.msg, st.detail);
	assert_int_equal(ce.live, 0);
	/* never more than the bytes at hand could describe */
	assert_true(ce.largest <= data.len * sizeof(HsSstInfo *) + 64);
}

/* The SST-list decoder accepts exact lists and refuses every bad count. */
static void
test_sst_list_bounds(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsSstInfo  *ssts[3];
	HsSstInfo **arr;
	HsSstInfoInit init;
	uint8_t		key[HS_MIN_FULL_KEY_LEN];
	HsSstInfo  *min;
	HsBuf		buf;
	HsCursor	c;
	HsStatus	st;
	size_t		full;
	size_t		i;
	int			n;

	HsBufInit(&buf, env);

	/* the smallest SST info encodes to exactly the bound the decoder uses */
	memset(&init, 0, sizeof(init));
	memset(key, 0, sizeof(key));
	init.smallest_key = HsSliceMake(key, sizeof(key));
	init.largest_key = HsSliceMake(key, sizeof(key));
	assert_status_ok(HsSstInfoCreate(env, &init, &min, &st), &st);
	HsSstInfoEncode(min, &buf);
	assert_int_equal(buf.len, HS_SST_INFO_MIN_ENCODED_LEN);

	/* so a list of such infos, which fills its bytes exactly, decodes */
	ssts[0] = ssts[1] = ssts[2] = min;
	HsBufReset(&buf);
	HsSstInfoListEncode(ssts, 3, &buf);
	assert_int_equal(buf.len, 1 + 3 * HS_SST_INFO_MIN_ENCODED_LEN);
	HsCursorInit(&c, HsBufSlice(&buf));
	assert_status_ok(HsSstInfoListDecode(env, &c, "test record", &arr, &n,
										 &st), &st);
	assert_int_equal(n, 3);
	assert_int_equal(HsCursorRemaining(&c), 0);
	for (i = 0; i < 3; i++)
		assert_true(HsSstInfoEqual(arr[i], min));
	HsSstInfoArrayFree(env, arr, n);
	HsSstInfoUnref(min);

	/* an empty list is no array */
	HsBufReset(&buf);
	HsSstInfoListEncode(NULL, 0, &buf);
	HsCursorInit(&c, HsBufSlice(&buf));
	assert_status_ok(HsSstInfoListDecode(env, &c, "test record", &arr, &n,
										 &st), &st);
	assert_null(arr);
	assert_int_equal(n, 0);

	/* a real list cut short anywhere */
	ssts[0] = mk_sst(1, 10, "a", "m", 5, 6);
	ssts[1] = mk_sst(2, 11, "b", "c", 5, 6);
	ssts[2] = mk_sst(3, 12, "d", "e", 5, 6);
	HsBufReset(&buf);
	HsSstInfoListEncode(ssts, 3, &buf);
	full = buf.len;
	list_decode_fails(HsSliceMake(buf.data, 0), "SST count is missing");
	for (i = 1; i < full; i++)
		list_decode_fails(HsSliceMake(buf.data, i), NULL);

	/* counts the bytes cannot hold: huge, and one too many */
	buf.data[0] = 4;
	list_decode_fails(HsBufSlice(&buf), "claims 4 SSTs");
	HsBufReset(&buf);
	HsBufPutVarint32(&buf, UINT32_MAX);
	HsSstInfoEncode(ssts[0], &buf);
	list_decode_fails(HsBufSlice(&buf), "claims 4294967295 SSTs");

	/* a count the bytes could hold, but the infos run out */
	HsBufReset(&buf);
	HsBufPutVarint32(&buf, 4);
	HsSstInfoEncode(ssts[0], &buf);
	for (i = 0; i < 3 * HS_SST_INFO_MIN_ENCODED_LEN; i++)
		HsBufPutByte(&buf, 0);
	list_decode_fails(HsBufSlice(&buf), NULL);

	for (i = 0; i < 3; i++)
		HsSstInfoUnref(ssts[i]);
	HsBufFree(&buf);
}

/*
 * A delta and a checkpoint whose SST list claims more SSTs than it holds
 * are corrupt, and say which record.
 */
static void
test_sst_list_in_records(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	HsSstInfo  *s1 = mk_sst(1, 10, "a", "m", 5, 6);
	HsVersionDelta *d;
	HsVersion  *v;
	HsBuf		buf;
	HsBuf		body;
	HsStatus	st;

	HsBufInit(&buf, env);
	HsBufInit(&body, env);

	/* delta: NEW_L0_SSTS (tag 3) */
	HsMetaRecordBegin(&buf, "HSVD", 1);
	HsBufPutByte(&body, HS_DELTA_COMMIT);
	HsBufPutVarint64(&body, 2);
	HsBufPutVarint64(&body, 1);
	HsMetaRecordField(&buf, 1, HsBufSlice(&body));
	HsBufReset(&body);
	HsBufPutVarint32(&body, 1000000);
	HsSstInfoEncode(s1, &body);
	HsMetaRecordField(&buf, 3, HsBufSlice(&body));
	HsMetaRecordFinish(&buf);
	assert_false(HsVersionDeltaDecode(env, HsBufSlice(&buf), &d, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_non_null(strstr(st.msg, "truncated sst list in version delta"));
	assert_non_null(strstr(st.detail, "claims 1000000 SSTs"));

	/* delta: LEVEL_CHANGE (tag 5) */
	HsBufReset(&body);
	HsMetaRecordBegin(&buf, "HSVD", 1);
	HsBufPutByte(&body, HS_DELTA_COMPACTION);
	HsBufPutVarint64(&body, 2);
	HsBufPutVarint64(&body, 1);
	HsMetaRecordField(&buf, 1, HsBufSlice(&body));
	HsBufReset(&body);
	HsBufPutVarint32(&body, 1); /* level */
	HsBufPutVarint32(&body, 0); /* no removals */
	HsBufPutVarint32(&body, 2); /* two SSTs, one present */
	HsSstInfoEncode(s1, &body);
	HsMetaRecordField(&buf, 5, HsBufSlice(&body));
	HsMetaRecordFinish(&buf);
	assert_false(HsVersionDeltaDecode(env, HsBufSlice(&buf), &d, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_non_null(strstr(st.msg, "in version delta"));

	/* checkpoint: LEVEL (tag 4) */
	HsBufReset(&body);
	HsMetaRecordBegin(&buf, "HSVC", 1);
	HsBufPutVarint64(&body, 1);
	HsBufPutVarint64(&body, 0);
	HsMetaRecordField(&buf, 1, HsBufSlice(&body));
	HsBufReset(&body);
	HsBufPutVarint32(&body, 1);
	HsBufPutVarint32(&body, UINT32_MAX);
	HsSstInfoEncode(s1, &body);
	HsMetaRecordField(&buf, 4, HsBufSlice(&body));
	HsMetaRecordFinish(&buf);
	assert_false(HsVersionDecode(env, HsBufSlice(&buf), &v, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_non_null(strstr(st.msg, "truncated sst list in version checkpoint"));

	HsSstInfoUnref(s1);
	HsBufFree(&buf);
	HsBufFree(&body);
}

/*
 * Values that decode but are inconsistent are corruption that names the
 * record, with the check that failed as the rest of the message.
 */
static void
test_inconsistent_values(void **state)
{
	HsEnv	   *env = HsEnvPosix();
	uint8_t		small[HS_MIN_FULL_KEY_LEN + 1];
	uint8_t		large[HS_MIN_FULL_KEY_LEN + 1];
	HsSstInfo  *info;
	HsChangeLogEntry *e;
	HsBuf		buf;
	HsCursor	c;
	HsStatus	st;

	HsBufInit(&buf, env);

	/* an SST info whose smallest key is above its largest */
	HsBufPutVarint64(&buf, 5);	/* object id */
	HsBufPutVarint64(&buf, 100);	/* file size */
	HsBufPutLengthPrefixed(&buf,
						   HsSliceMake(large,
									   HsFullKeyEncode(large, 1, "z", 1, 1)));
	HsBufPutLengthPrefixed(&buf,
						   HsSliceMake(small,
									   HsFullKeyEncode(small, 1, "a", 1, 1)));
	HsBufPutVarint64(&buf, 1);	/* min epoch */
	HsBufPutVarint64(&buf, 1);	/* max epoch */
	HsBufPutVarint64(&buf, 1);	/* entries */
	HsBufPutVarint64(&buf, 1);	/* raw size */
	HsBufPutVarint64(&buf, 1);	/* stored size */
	HsBufPutVarint32(&buf, 0);	/* tables */
	HsCursorInit(&c, HsBufSlice(&buf));
	assert_false(HsSstInfoDecode(env, &c, "test record", &info, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_string_equal(st.msg, "invalid sst info in test record: sst info smallest key is greater than its largest key");
	assert_string_equal(st.detail, "Object 5.");

	/* a change-log entry whose epochs do not ascend */
	HsBufReset(&buf);
	HsBufPutVarint32(&buf, 2);
	HsBufPutVarint64(&buf, 9);
	HsBufPutVarint64(&buf, 8);
	HsSstInfoListEncode(NULL, 0, &buf);
	HsSstInfoListEncode(NULL, 0, &buf);
	HsCursorInit(&c, HsBufSlice(&buf));
	assert_false(HsChangeLogEntryDecode(env, &c, "test record", &e, &st));
	assert_int_equal(st.code, HS_CORRUPTION);
	assert_string_equal(st.msg, "invalid change-log entry in test record: change-log entry epochs are not ascending");
	assert_string_equal(st.detail, "Epoch 8 follows epoch 9.");

	HsBufFree(&buf);
}

static const struct CMUnitTest version_format_tests[] = {
	cmocka_unit_test(test_delta_golden),
	cmocka_unit_test(test_checkpoint_golden),
	cmocka_unit_test(test_sst_list_bounds),
	cmocka_unit_test(test_sst_list_in_records),
	cmocka_unit_test(test_inconsistent_values),
};

UNIT_SUITE(version_format)
{
	*tests = version_format_tests;
	return (int) (sizeof(version_format_tests) / sizeof(version_format_tests[0]));
}
