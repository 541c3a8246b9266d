/*-------------------------------------------------------------------------
 *
 * faults.c
 *	  Injected faults: hummock_stream_test.fail_view(view, epochs) makes a
 *	  streaming view's job fail at each of its next epochs.
 *
 * The requests live in this module's shared memory (a small array of
 * (database, view, epochs left) under a spinlock), so that the compute
 * worker that runs the view sees them and a failure does not undo them
 * (a request in a table would roll back with the failing epoch's
 * transaction).  The core calls hs_stream_job_epoch_hook at every epoch of
 * every job; this module's hook raises an error while the job's count is
 * above zero, counting it down.  A failure goes the way of any error of a
 * view: its graph is reset and backs off, its state is 'failed'.
 *
 * test/modules/hummock_stream_test/faults.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/lsyscache.h"

#include "hummock_stream/stream/stream_job.h"

#include "hummock_stream_test.h"

PG_FUNCTION_INFO_V1(hummock_stream_test_fail_view);

#define MAX_FAULTS 64

typedef struct Fault
{
	Oid			dboid;
	Oid			view;
	int32		epochs;			/* epochs left to fail */
	int64		failed;			/* epochs failed so far */
} Fault;

typedef struct FaultTable
{
	slock_t		mutex;
	Fault		faults[MAX_FAULTS];
} FaultTable;

static FaultTable *faults = NULL;
static shmem_request_hook_type prev_shmem_request = NULL;
static shmem_startup_hook_type prev_shmem_startup = NULL;

static void
faults_shmem_request(void)
{
	if (prev_shmem_request)
		prev_shmem_request();
	RequestAddinShmemSpace(MAXALIGN(sizeof(FaultTable)));
}

static void
faults_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup)
		prev_shmem_startup();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	faults = ShmemInitStruct("hummock_stream_test faults", sizeof(FaultTable), &found);
	if (!found)
	{
		SpinLockInit(&faults->mutex);
		memset(faults->faults, 0, sizeof(faults->faults));
	}
	LWLockRelease(AddinShmemInitLock);
}

/* The core's hook: fail while the job has epochs left to fail. */
static void
fault_epoch_hook(Oid job_id, HsEpoch epoch)
{
	bool		fail = false;
	int64		n = 0;

	if (faults == NULL)
		return;
	SpinLockAcquire(&faults->mutex);
	for (int i = 0; i < MAX_FAULTS; i++)
	{
		Fault	   *f = &faults->faults[i];

		if (f->view == job_id && f->dboid == MyDatabaseId && f->epochs > 0)
		{
			f->epochs--;
			n = ++f->failed;
			fail = true;
			break;
		}
	}
	SpinLockRelease(&faults->mutex);
	if (fail)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("injected fault in streaming materialized view %u at epoch " UINT64_FORMAT " (failure %lld)",
						job_id, (uint64) epoch, (long long) n)));
}

/*
 * hummock_stream_test.fail_view(view regclass, epochs int DEFAULT 1):
 * the view's job fails at each of its next epochs epochs (0: stop
 * failing); returns how many epochs it failed so far.
 */
Datum
hummock_stream_test_fail_view(PG_FUNCTION_ARGS)
{
	Oid			view = PG_GETARG_OID(0);
	int32		epochs = PG_GETARG_INT32(1);
	Fault	   *slot = NULL;
	int64		failed = 0;

	if (epochs < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epochs must not be negative")));
	if (faults == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("hummock_stream_test is not in shared_preload_libraries")));
	SpinLockAcquire(&faults->mutex);
	for (int i = 0; i < MAX_FAULTS && slot == NULL; i++)
		if (faults->faults[i].view == view && faults->faults[i].dboid == MyDatabaseId)
			slot = &faults->faults[i];
	for (int i = 0; i < MAX_FAULTS && slot == NULL; i++)
		if (faults->faults[i].epochs == 0)
		{
			slot = &faults->faults[i];
			slot->failed = 0;
		}
	if (slot)
	{
		slot->dboid = MyDatabaseId;
		slot->view = view;
		slot->epochs = epochs;
		failed = slot->failed;
	}
	SpinLockRelease(&faults->mutex);
	if (slot == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many injected faults at once (at most %d)", MAX_FAULTS)));
	PG_RETURN_INT64(failed);
}

void
HstInstallFaults(void)
{
	prev_shmem_request = shmem_request_hook;
	shmem_request_hook = faults_shmem_request;
	prev_shmem_startup = shmem_startup_hook;
	shmem_startup_hook = faults_shmem_startup;
	hs_stream_job_epoch_hook = fault_epoch_hook;
}
