/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  The registry of hummock_stream's fixed shared-memory areas.
 *
 * See include/hummock_stream/entry/shmem.h.  The list below is the only place
 * a module's area is registered; the order is the layout order.  All areas
 * live in one ShmemInitStruct named "hummock_stream", each slice aligned to
 * a cache line so that unrelated hot fields never share one.
 *
 * This file also owns the "global" area, which records when the shared
 * state was initialized (it tells a test that shared memory is attached).
 *
 * src/entry/shmem.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "hummock_stream/entry/shmem.h"
#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/pg/shared_block_cache.h"
#include "hummock_stream/stream/capture_marks.h"
#include "hummock_stream/stream/job_stats.h"

static const HsShmemItem shmem_items[] = {
	{"global", HsGlobalShmemSize, HsGlobalShmemInit},
	{"databases and pins", HsDbStateShmemSize, HsDbStateShmemInit},
	{"shared block cache", HsSharedBlockCacheShmemSize, HsSharedBlockCacheShmemInit},
	{"capture marks", HsCaptureMarksShmemSize, HsCaptureMarksShmemInit},
	{"job statistics", HsJobStatsShmemSize, HsJobStatsShmemInit},
};

#define HS_SHMEM_NITEMS lengthof(shmem_items)

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Offsets of each item within the segment, computed once per process. */
static Size item_offsets[HS_SHMEM_NITEMS];
static Size item_sizes[HS_SHMEM_NITEMS];

static Size
hs_shmem_layout(void)
{
	Size		total = 0;

	for (int i = 0; i < (int) HS_SHMEM_NITEMS; i++)
	{
		item_offsets[i] = total;
		item_sizes[i] = shmem_items[i].size();
		total = add_size(total, CACHELINEALIGN(item_sizes[i]));
	}
	return total;
}

static void
hs_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(hs_shmem_layout());
}

static void
hs_shmem_startup(void)
{
	char	   *base;
	bool		found;
	Size		total;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	total = hs_shmem_layout();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	base = ShmemInitStruct(HS_EXTENSION_NAME, total, &found);
	for (int i = 0; i < (int) HS_SHMEM_NITEMS; i++)
		shmem_items[i].init(base + item_offsets[i], found);
	LWLockRelease(AddinShmemInitLock);
}

/*
 * Install the request and startup hooks; called from _PG_init while the
 * postmaster loads shared_preload_libraries.
 */
void
HsShmemInstallHooks(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = hs_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = hs_shmem_startup;
}

int
HsShmemItemCount(void)
{
	return HS_SHMEM_NITEMS;
}

const HsShmemItem *
HsShmemItemAt(int i, Size *offset, Size *size)
{
	Assert(i >= 0 && i < (int) HS_SHMEM_NITEMS);
	hs_shmem_layout();
	*offset = item_offsets[i];
	*size = item_sizes[i];
	return &shmem_items[i];
}

/* ---------------------------------------------------------------------
 * The global area
 * ---------------------------------------------------------------------
 */

typedef struct HsGlobalShared
{
	TimestampTz initialized_at; /* written once at startup */
} HsGlobalShared;

static HsGlobalShared *hs_global = NULL;

Size
HsGlobalShmemSize(void)
{
	return sizeof(HsGlobalShared);
}

void
HsGlobalShmemInit(void *ptr, bool found)
{
	hs_global = (HsGlobalShared *) ptr;
	if (!found)
		hs_global->initialized_at = GetCurrentTimestamp();
}

PG_FUNCTION_INFO_V1(hummock_stream_shmem_areas);

/*
 * hummock_stream.shmem_areas(): name, offset and size of each area, and
 * when shared state was initialized.
 */
Datum
hummock_stream_shmem_areas(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < HsShmemItemCount(); i++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};
		Size		offset,
					size;
		const HsShmemItem *item = HsShmemItemAt(i, &offset, &size);

		values[0] = CStringGetTextDatum(item->name);
		values[1] = Int64GetDatum((int64) offset);
		values[2] = Int64GetDatum((int64) size);
		if (hs_global)
			values[3] = TimestampTzGetDatum(hs_global->initialized_at);
		else
			nulls[3] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
