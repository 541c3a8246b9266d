/*-------------------------------------------------------------------------
 *
 * job_stats.c
 *	  Per streaming view, what its maintenance did since the server started:
 *	  epochs consumed, rows read from its inputs, rows in and out of each
 *	  executor, time per epoch.  hummock_stream.job_stats shows them.
 *
 * The counters live in the view's executors (HsExec.rows_in/rows_out,
 * counted by HsExecPush/HsExecEmit) and in its job (rows_in); after each
 * epoch the job's actor adds what they grew by since its last report to
 * the view's slot in shared memory, so the figures survive the actor
 * being rebuilt (a reset after a failure, a compute worker's restart, a
 * move to another worker) but not a server restart, as the cumulative
 * statistics of Postgres before it writes them out.
 *
 * Slots form a fixed array over all databases, found by a linear search
 * keyed by (database, view) and remembered by the job; a slot is claimed
 * under a spinlock and freed when its view is dropped.  Each slot has its
 * own spinlock over its figures (a report or a reader copies them whole).
 * When every slot is taken, a view without one is not counted.
 *
 * src/stream/job_stats.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "storage/spin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/storage/version.h"

#include "hummock_stream/stream/executor.h"
#include "hummock_stream/stream/job_stats.h"

/* Views with statistics at once, over all databases. */
#define JOB_STATS_SLOTS 1024

typedef struct JobStatsSlot
{
	slock_t		mutex;			/* over key and stats */
	uint64		key;			/* database << 32 | view; 0: free */
	HsJobStatsSnapshot stats;
} JobStatsSlot;

typedef struct JobStatsShared
{
	slock_t		claim;			/* claiming a free slot */
	JobStatsSlot slots[JOB_STATS_SLOTS];
} JobStatsShared;

/* What a job reported so far, so each report adds only what is new. */
typedef struct HsJobStatsCursor
{
	int			slot;			/* remembered slot (its key is rechecked) */
	int			n_execs;
	HsExec	   *execs[HS_JOB_STATS_MAX_EXECUTORS];
	uint64		reported_in[HS_JOB_STATS_MAX_EXECUTORS];
	uint64		reported_out[HS_JOB_STATS_MAX_EXECUTORS];
	int64		reported_rows_in;
	int64		reported_skipped;
} HsJobStatsCursor;

int			hs_log_min_epoch_duration = 10000;

static JobStatsShared *shared = NULL;

Size
HsJobStatsShmemSize(void)
{
	return sizeof(JobStatsShared);
}

void
HsJobStatsShmemInit(void *ptr, bool found)
{
	shared = (JobStatsShared *) ptr;
	if (found)
		return;
	SpinLockInit(&shared->claim);
	for (int i = 0; i < JOB_STATS_SLOTS; i++)
	{
		SpinLockInit(&shared->slots[i].mutex);
		shared->slots[i].key = 0;
	}
}

static uint64
stats_key(Oid job_id)
{
	return ((uint64) MyDatabaseId << 32) | (uint64) job_id;
}

/* The slot of key, claimed (zeroed) if it has none and claim; else -1. */
static int
find_slot(uint64 key, bool claim)
{
	int			free_slot = -1;
	int			found = -1;

	/* a slot's key changes only under the claim lock */
	SpinLockAcquire(&shared->claim);
	for (int i = 0; i < JOB_STATS_SLOTS; i++)
	{
		if (shared->slots[i].key == key)
		{
			found = i;
			break;
		}
		if (shared->slots[i].key == 0 && free_slot < 0)
			free_slot = i;
	}
	if (found < 0 && claim && free_slot >= 0)
	{
		JobStatsSlot *s = &shared->slots[free_slot];

		SpinLockAcquire(&s->mutex);
		memset(&s->stats, 0, sizeof(s->stats));
		s->stats.job_id = (Oid) (key & 0xFFFFFFFF);
		s->key = key;
		SpinLockRelease(&s->mutex);
		found = free_slot;
	}
	SpinLockRelease(&shared->claim);
	return found;
}

/*
 * The job's executors, from its leaves along their downstreams (leaves
 * first); a port stands for its executor, which the walk reaches next.
 */
static HsJobStatsCursor *
make_cursor(HsStreamJob *job)
{
	HsJobStatsCursor *c = MemoryContextAllocZero(job->cxt, sizeof(HsJobStatsCursor));

	c->slot = -1;
	for (int i = 0; i < job->n_inputs; i++)
	{
		for (HsExec *e = job->inputs[i].leaf->entry; e != NULL; e = e->downstream)
		{
			bool		seen = false;

			if (e->rows_in_counter != &e->rows_in)
				continue;		/* a port */
			for (int k = 0; k < c->n_execs && !seen; k++)
				seen = c->execs[k] == e;
			if (seen)
				break;			/* the rest of the path is listed */
			if (c->n_execs == HS_JOB_STATS_MAX_EXECUTORS)
				break;
			c->execs[c->n_execs++] = e;
		}
	}
	return c;
}

void
HsJobStatsReport(HsStreamJob *job, HsEpoch epoch, double elapsed_ms)
{
	HsJobStatsCursor *c;
	uint64		key = stats_key(job->job_id);
	JobStatsSlot *s;

	if (shared == NULL)
		return;
	if (job->stats == NULL)
		job->stats = make_cursor(job);
	c = job->stats;
	if (c->slot < 0 || shared->slots[c->slot].key != key)
		c->slot = find_slot(key, true);
	if (c->slot < 0)
		return;					/* every slot taken */
	s = &shared->slots[c->slot];

	SpinLockAcquire(&s->mutex);
	if (s->key == key)
	{
		HsJobStatsSnapshot *st = &s->stats;

		st->epochs++;
		st->last_epoch = epoch;
		st->rows_in += job->rows_in - c->reported_rows_in;
		st->capture_reads_skipped += job->log_reads_skipped - c->reported_skipped;
		st->last_epoch_ms = elapsed_ms;
		st->total_epoch_ms += elapsed_ms;
		if (elapsed_ms > st->max_epoch_ms)
			st->max_epoch_ms = elapsed_ms;
		st->last_epoch_at = GetCurrentTimestamp();
		st->n_executors = c->n_execs;
		for (int k = 0; k < c->n_execs; k++)
		{
			HsJobStatsExecutor *x = &st->executors[k];

			strlcpy(x->name, c->execs[k]->name, sizeof(x->name));
			x->rows_in += c->execs[k]->rows_in - c->reported_in[k];
			x->rows_out += c->execs[k]->rows_out - c->reported_out[k];
			if (c->execs[k]->downstream == NULL)	/* the view's Materialize */
				st->rows_out += c->execs[k]->rows_in - c->reported_in[k];
		}
	}
	SpinLockRelease(&s->mutex);

	c->reported_rows_in = job->rows_in;
	c->reported_skipped = job->log_reads_skipped;
	for (int k = 0; k < c->n_execs; k++)
	{
		c->reported_in[k] = c->execs[k]->rows_in;
		c->reported_out[k] = c->execs[k]->rows_out;
	}
}

int
HsJobStatsCollect(HsJobStatsSnapshot **out)
{
	HsJobStatsSnapshot *res = palloc(sizeof(HsJobStatsSnapshot) * JOB_STATS_SLOTS);
	uint64		db = (uint64) MyDatabaseId << 32;
	int			n = 0;

	if (shared == NULL)
	{
		*out = res;
		return 0;
	}
	for (int i = 0; i < JOB_STATS_SLOTS; i++)
	{
		JobStatsSlot *s = &shared->slots[i];

		if ((s->key & ~(uint64) 0xFFFFFFFF) != db || s->key == 0)
			continue;
		SpinLockAcquire(&s->mutex);
		if ((s->key & ~(uint64) 0xFFFFFFFF) == db && s->key != 0)
			res[n++] = s->stats;
		SpinLockRelease(&s->mutex);
	}
	*out = res;
	return n;
}

void
HsJobStatsForget(Oid job_id)
{
	int			i;

	if (shared == NULL)
		return;
	i = find_slot(stats_key(job_id), false);
	if (i < 0)
		return;
	SpinLockAcquire(&shared->claim);
	SpinLockAcquire(&shared->slots[i].mutex);
	if (shared->slots[i].key == stats_key(job_id))
		shared->slots[i].key = 0;
	SpinLockRelease(&shared->slots[i].mutex);
	SpinLockRelease(&shared->claim);
}

/*
 * hummock_stream._job_stats(): per view of this database with statistics,
 * its figures, the bytes of its table and of its state tables in the
 * newest version, and its executors with their rows in and out; a role
 * sees the views whose owner's privileges it has (pg_monitor: all).
 */
PG_FUNCTION_INFO_V1(hummock_stream_job_stats);

Datum
hummock_stream_job_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HsJobStatsSnapshot *stats;
	int			n;
	HsVersion  *v;
	List	   *jobs;

	InitMaterializedSRF(fcinfo, 0);
	n = HsJobStatsCollect(&stats);
	jobs = HsCatalogJobs();
	v = HsHummockCurrentVersion();
	for (int i = 0; i < n; i++)
	{
		HsJobStatsSnapshot *st = &stats[i];
		HsJobRow   *job = NULL;
		ListCell   *lc;
		Datum		values[15];
		bool		nulls[15] = {0};
		Datum	   *names = palloc(sizeof(Datum) * Max(st->n_executors, 1));
		Datum	   *ins = palloc(sizeof(Datum) * Max(st->n_executors, 1));
		Datum	   *outs = palloc(sizeof(Datum) * Max(st->n_executors, 1));
		double		keys;
		uint64		bytes;
		uint64		state_bytes = 0;

		foreach(lc, jobs)
			if (((HsJobRow *) lfirst(lc))->job_id == st->job_id)
				job = lfirst(lc);
		if (job == NULL)
			continue;			/* dropped, or another database's */
		/* as the monitoring views: the caller's own views (pg_monitor: all) */
		if (!pg_class_ownercheck(job->job_id, GetUserId()) &&
			!has_privs_of_role(GetUserId(), ROLE_PG_MONITOR))
			continue;
		HsVersionTableSize(v, (HsTableId) job->job_id, &keys, &bytes);
		for (int k = 0; k < job->n_state_tables; k++)
		{
			uint64		b;

			HsVersionTableSize(v, (HsTableId) job->state_tables[k], &keys, &b);
			state_bytes += b;
		}
		for (int k = 0; k < st->n_executors; k++)
		{
			names[k] = CStringGetTextDatum(st->executors[k].name);
			ins[k] = Int64GetDatum((int64) st->executors[k].rows_in);
			outs[k] = Int64GetDatum((int64) st->executors[k].rows_out);
		}
		values[0] = ObjectIdGetDatum(st->job_id);
		values[1] = Int64GetDatum((int64) st->epochs);
		values[2] = Int64GetDatum((int64) st->last_epoch);
		values[3] = TimestampTzGetDatum(st->last_epoch_at);
		values[4] = Int64GetDatum((int64) st->rows_in);
		values[5] = Int64GetDatum((int64) st->rows_out);
		values[6] = Float8GetDatum(st->last_epoch_ms);
		values[7] = Float8GetDatum(st->epochs > 0 ? st->total_epoch_ms / st->epochs : 0);
		values[8] = Float8GetDatum(st->max_epoch_ms);
		values[9] = Int64GetDatum((int64) st->capture_reads_skipped);
		values[10] = Int64GetDatum((int64) bytes);
		values[11] = Int64GetDatum((int64) state_bytes);
		values[12] = PointerGetDatum(construct_array(names, st->n_executors, TEXTOID,
													 -1, false, TYPALIGN_INT));
		values[13] = PointerGetDatum(construct_array(ins, st->n_executors, INT8OID,
													 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		values[14] = PointerGetDatum(construct_array(outs, st->n_executors, INT8OID,
													 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	HsVersionUnref(v);
	return (Datum) 0;
}
