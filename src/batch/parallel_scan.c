/*-------------------------------------------------------------------------
 *
 * parallel_scan.c
 *	  Parallel sequential scans of relations USING hummock.
 *
 * See include/hummock_stream/batch/parallel_scan.h for the protocol.
 *
 * Shared state (in the parallel query's DSM, after Postgres's own
 * ParallelTableScanDescData):
 *
 *		epoch			the epoch every process reads at
 *		next_chunk		atomic counter of claimed chunks
 *		n_chunks		number of chunks (>= 1)
 *		bounds			n_chunks - 1 split keys, each uint16 length | bytes,
 *						ascending; chunk i is [split i - 1, split i)
 *		version			the leader's version, HsVersionEncode'd
 *
 * Split keys are block boundaries of the table's SSTs (the last key of
 * every k-th data block), user keys cut to HS_SPLIT_KEY_MAX bytes: any
 * ascending byte strings split the key space into disjoint ranges, so a
 * cut key is still a valid split, and every row lands in exactly one
 * chunk.  About HS_CHUNKS_PER_PROCESS chunks per process keep the
 * processes busy until the end.
 *
 * Leader state: per statement (transaction-local id and command id), the
 * version, epoch and (once estimated) the encoded shared state of every
 * hummock relation, prepared in the ExecutorStart hook before parallel
 * mode starts; in parallel mode the leader can neither refresh its
 * version from the catalog nor run the query that decides an epoch.
 *
 * src/batch/parallel_scan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "parser/parsetree.h"
#include "port/atomics.h"
#include "storage/proc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "hummock_stream/batch/parallel_scan.h"
#include "hummock_stream/batch/read_epoch.h"
#include "hummock_stream/batch/tableam.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/pg/env_pg.h"
#include "hummock_stream/storage/sst_cache.h"

#define HS_SPLIT_KEY_MAX		128
#define HS_CHUNKS_PER_PROCESS	8
#define HS_MAX_CHUNKS			256

typedef struct HsParallelScanData
{
	ParallelTableScanDescData base; /* must be first */
	HsEpoch		epoch;
	pg_atomic_uint32 next_chunk;
	int32		n_chunks;
	Size		bounds_len;		/* bytes of the split keys */
	Size		version_len;	/* bytes of the encoded version */
	/* split keys, then the version, follow */
} HsParallelScanData;

#define PSCAN_DATA(ps)	((char *) (ps) + MAXALIGN(sizeof(HsParallelScanData)))

/* A relation prepared for the current parallel statement (leader only). */
typedef struct Prepared
{
	Oid			relid;			/* hash key */
	HsVersion  *version;		/* referenced */
	HsEpoch		epoch;
	bool		encoded;		/* bounds and version_bytes are filled */
	int			n_chunks;
	StringInfoData bounds;
	StringInfoData version_bytes;
} Prepared;

static HTAB *prepared = NULL;	/* in TopMemoryContext, emptied per statement */
static LocalTransactionId prepared_lxid = InvalidLocalTransactionId;
static CommandId prepared_cid = InvalidCommandId;
static bool xact_callback_registered = false;

static void
release_prepared(void)
{
	HASH_SEQ_STATUS seq;
	Prepared   *p;

	if (prepared == NULL)
		return;
	hash_seq_init(&seq, prepared);
	while ((p = hash_seq_search(&seq)) != NULL)
	{
		if (p->version)
			HsVersionUnref(p->version);
		if (p->encoded)
		{
			pfree(p->bounds.data);
			pfree(p->version_bytes.data);
		}
	}
	hash_destroy(prepared);
	prepared = NULL;
}

/* The prepared versions are not needed past the transaction. */
static void
prepared_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE)
		release_prepared();
}

void
HsParallelPrepare(PlannedStmt *stmt)
{
	ListCell   *lc;

	if (IsParallelWorker())
		return;
	/* a new statement forgets the last one's; one statement's add up */
	if (prepared_lxid != MyProc->lxid ||
		prepared_cid != GetCurrentCommandId(false))
		release_prepared();
	prepared_lxid = MyProc->lxid;
	prepared_cid = GetCurrentCommandId(false);
	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);
		Prepared   *p;
		bool		found;
		Relation	rel;

		if (rte->rtekind != RTE_RELATION || !HsRelidIsHummock(rte->relid))
			continue;
		if (prepared == NULL)
		{
			HASHCTL		ctl;

			if (!xact_callback_registered)
			{
				RegisterXactCallback(prepared_xact_callback, NULL);
				xact_callback_registered = true;
			}
			ctl.keysize = sizeof(Oid);
			ctl.entrysize = sizeof(Prepared);
			prepared = hash_create("hummock parallel scans", 8, &ctl,
								   HASH_ELEM | HASH_BLOBS);
		}
		p = hash_search(prepared, &rte->relid, HASH_ENTER, &found);
		if (found)
			continue;
		p->version = NULL;
		p->encoded = false;
		rel = RelationIdGetRelation(rte->relid);
		HsScanResolve(rel, &p->version, &p->epoch);
		RelationClose(rel);
	}
}

static Prepared *
prepared_for(Relation rel)
{
	if (prepared == NULL || prepared_lxid != MyProc->lxid ||
		prepared_cid != GetCurrentCommandId(false))
		return NULL;
	return hash_search(prepared, &rel->rd_id, HASH_FIND, NULL);
}

bool
HsParallelPrepared(Relation rel, HsVersion **version, HsEpoch *epoch)
{
	Prepared   *p = prepared_for(rel);

	if (p == NULL)
		return false;
	*version = p->version ? HsVersionRef(p->version) : NULL;
	*epoch = p->epoch;
	return true;
}

/* ---------------------------------------------------------------------
 * Chunks
 * ---------------------------------------------------------------------
 */

typedef struct SplitKey
{
	char	   *data;
	int			len;
} SplitKey;

static int
split_key_cmp(const void *a, const void *b)
{
	const SplitKey *x = a;
	const SplitKey *y = b;
	int			r = memcmp(x->data, y->data, Min(x->len, y->len));

	if (r != 0)
		return r;
	return (x->len > y->len) - (x->len < y->len);
}

/* Add the keys of table t that end data blocks of one SST. */
static void
collect_sst_keys(HsSstCache *cache, const HsSstInfo *sst, HsTableId t,
				 SplitKey **keys, int *n, int *cap)
{
	HsSstCacheHandle *h;
	HsSstReader  *r;
	HsStatus	st;

	HS_CHECK(HsSstCacheGet(cache, sst->object_id, &h, &st), &st);
	r = HsSstCacheReader(h);
	/* an allocation below may fail: give the reader back then too */
	PG_TRY();
	{
		for (uint32 b = 0; b < HsSstReaderBlockCount(r); b++)
		{
			HsSlice		k = HsSstReaderBlockLastKey(r, b);
			HsSlice		uk;

			if (k.len < HS_MIN_FULL_KEY_LEN || HsFullKeyTableId(k) != t)
				continue;
			uk = HsFullKeyUserKey(k);
			if (*n == *cap)
			{
				*cap *= 2;
				*keys = repalloc(*keys, sizeof(SplitKey) * *cap);
			}
			(*keys)[*n].len = (int) Min(uk.len, HS_SPLIT_KEY_MAX);
			(*keys)[*n].data = palloc((*keys)[*n].len + 1);
			memcpy((*keys)[*n].data, uk.data, (*keys)[*n].len);
			(*n)++;
		}
	}
	PG_FINALLY();
	{
		HsSstCacheRelease(cache, h);
	}
	PG_END_TRY();
}

/*
 * Collect the user keys of table t that end data blocks of its SSTs, cut
 * to HS_SPLIT_KEY_MAX bytes.
 */
static void
collect_block_keys(const HsVersion *v, HsTableId t, SplitKey **keys,
				   int *n, int *cap)
{
	HsSstCache *cache = HsHummockSstCache();

	for (int l = -1; l < HS_MAX_LEVEL; l++)
	{
		int			n_subs = l < 0 ? v->n_sub_levels : 1;

		for (int s = 0; s < n_subs; s++)
		{
			HsSstInfo **ssts = l < 0 ? v->sub_levels[s].ssts : v->levels[l].ssts;
			int			n_ssts = l < 0 ? v->sub_levels[s].n_ssts : v->levels[l].n_ssts;

			for (int j = 0; j < n_ssts; j++)
				if (HsSstInfoHasTable(ssts[j], t))
					collect_sst_keys(cache, ssts[j], t, keys, n, cap);
		}
	}
}

/* Fill p's split keys and encoded version (kept in TopMemoryContext). */
static void
encode_prepared(Relation rel, Prepared *p)
{
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext,
											  "hummock parallel scan keys",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	int			want;
	int			cap = 64;
	int			n = 0;
	SplitKey   *keys = palloc(sizeof(SplitKey) * cap);
	StringInfoData bounds;
	HsBuf		buf;

	initStringInfo(&bounds);
	p->n_chunks = 1;
	collect_block_keys(p->version, (HsTableId) RelationGetRelid(rel),
					   &keys, &n, &cap);
	qsort(keys, n, sizeof(SplitKey), split_key_cmp);
	want = Min(HS_MAX_CHUNKS,
			   HS_CHUNKS_PER_PROCESS * (max_parallel_workers_per_gather + 1));
	/* every (n / want)-th block key as a split key, skipping repeats */
	for (int i = 1, last = -1; i < want && n > 0; i++)
	{
		int			k = (int) ((int64) i * n / want);
		uint16		len = (uint16) keys[k].len;

		if (last >= 0 && split_key_cmp(&keys[last], &keys[k]) == 0)
			continue;
		appendBinaryStringInfo(&bounds, (char *) &len, sizeof(len));
		appendBinaryStringInfo(&bounds, keys[k].data, keys[k].len);
		p->n_chunks++;
		last = k;
	}
	HsBufInit(&buf, HsHummockEnv());
	HsVersionEncode(p->version, &buf);

	MemoryContextSwitchTo(TopMemoryContext);
	initStringInfo(&p->bounds);
	appendBinaryStringInfo(&p->bounds, bounds.data, bounds.len);
	initStringInfo(&p->version_bytes);
	appendBinaryStringInfo(&p->version_bytes, (char *) buf.data, buf.len);
	p->encoded = true;
	MemoryContextSwitchTo(old);
	HsBufFree(&buf);
	MemoryContextDelete(tmp);
}

static Prepared *
prepared_encoded(Relation rel)
{
	Prepared   *p = prepared_for(rel);

	if (p == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("parallel scan of relation \"%s\" was not prepared",
						RelationGetRelationName(rel))));
	if (!p->encoded)
		encode_prepared(rel, p);
	return p;
}

Size
HsParallelScanEstimate(Relation rel)
{
	Prepared   *p = prepared_encoded(rel);

	return add_size(MAXALIGN(sizeof(HsParallelScanData)),
					add_size(p->bounds.len, p->version_bytes.len));
}

Size
HsParallelScanInitialize(Relation rel, ParallelTableScanDesc pscan)
{
	Prepared   *p = prepared_encoded(rel);
	HsParallelScanData *ps = (HsParallelScanData *) pscan;

	ps->base.phs_relid = RelationGetRelid(rel);
	ps->base.phs_syncscan = false;
	ps->epoch = p->version ? p->epoch : 0;
	pg_atomic_init_u32(&ps->next_chunk, 0);
	ps->n_chunks = p->n_chunks;
	ps->bounds_len = p->bounds.len;
	ps->version_len = p->version_bytes.len;
	memcpy(PSCAN_DATA(ps), p->bounds.data, p->bounds.len);
	memcpy(PSCAN_DATA(ps) + p->bounds.len, p->version_bytes.data,
		   p->version_bytes.len);
	return HsParallelScanEstimate(rel);
}

void
HsParallelScanReinitialize(Relation rel, ParallelTableScanDesc pscan)
{
	HsParallelScanData *ps = (HsParallelScanData *) pscan;

	pg_atomic_write_u32(&ps->next_chunk, 0);
}

HsEpoch
HsParallelScanEpoch(ParallelTableScanDesc pscan)
{
	return ((HsParallelScanData *) pscan)->epoch;
}

HsVersion *
HsParallelScanVersion(ParallelTableScanDesc pscan)
{
	HsParallelScanData *ps = (HsParallelScanData *) pscan;
	HsVersion  *v;
	HsStatus	st;

	if (ps->version_len == 0)
		return NULL;			/* the relation has never committed */
	HS_CHECK(HsVersionDecode(HsHummockEnv(),
							 HsSliceMake(PSCAN_DATA(ps) + ps->bounds_len,
										 ps->version_len),
							 &v, &st), &st);
	return v;
}

/* Split key i (0-based) of the shared state. */
static void
split_key(HsParallelScanData *ps, int i, const char **data, int *len)
{
	const char *p = PSCAN_DATA(ps);

	for (;;)
	{
		uint16		l;

		memcpy(&l, p, sizeof(l));
		if (i-- == 0)
		{
			*data = p + sizeof(l);
			*len = l;
			return;
		}
		p += sizeof(l) + l;
	}
}

bool
HsParallelScanNextChunk(ParallelTableScanDesc pscan,
						const char **lower, int *lower_len,
						const char **upper, int *upper_len)
{
	HsParallelScanData *ps = (HsParallelScanData *) pscan;
	int			c = (int) pg_atomic_fetch_add_u32(&ps->next_chunk, 1);

	if (c >= ps->n_chunks)
		return false;
	*lower = *upper = NULL;
	*lower_len = *upper_len = 0;
	if (c > 0)
		split_key(ps, c - 1, lower, lower_len);
	if (c < ps->n_chunks - 1)
		split_key(ps, c, upper, upper_len);
	return true;
}
