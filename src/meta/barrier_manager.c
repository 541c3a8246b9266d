/*-------------------------------------------------------------------------
 *
 * barrier_manager.c
 *	  The per-database barrier manager ("meta"): epochs and barriers.
 *
 * One manager runs in each database that has the extension.  It allocates
 * an epoch every hummock_stream.barrier_interval_ms and injects a barrier
 * (prev -> curr) into every partial graph of the database; every
 * hummock_stream.checkpoint_frequency-th barrier is a checkpoint.
 *
 * State of this version: the loop, epochs and the barrier record exist;
 * there are no partial graphs yet, so a barrier is collected as soon as it
 * is injected and nothing is committed.  Compute workers, graphs and
 * commits plug in here.
 *
 * Crash-only: any ERROR ends the process with exit code 1 and the
 * postmaster restarts it after 1 s; on start it reloads everything it needs
 * from the catalog.  It exits with code 0 (and is not restarted) when the
 * extension is no longer installed or DROP DATABASE asked it to stop.
 *
 * Epochs are strictly increasing: (unix ms - 2025-01-01) << 16, bumped by
 * one when the clock has not moved (or went back) since the previous one.
 *
 * src/meta/barrier_manager.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "access/xact.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/launcher.h"

int			hs_barrier_interval_ms = 1000;
int			hs_checkpoint_frequency = 1;

static Oid	manager_dboid = InvalidOid;
static volatile sig_atomic_t stop_pending = false;

static void
manager_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	stop_pending = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

static void
manager_exit(int code, Datum arg)
{
	HsDbStateManagerDetach(manager_dboid);
}

/* The next epoch after prev, from the wall clock. */
static HsEpoch
next_epoch(HsEpoch prev)
{
	int64		now_ms = GetCurrentTimestamp() / 1000 +
		((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000);
	HsEpoch		e = HsEpochFromUnixMs(now_ms, 0);

	return e > prev ? e : prev + 1;
}

/* Is the extension installed in this database? */
static bool
extension_installed(void)
{
	bool		found;

	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	found = OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true));
	PopActiveSnapshot();
	CommitTransactionCommand();
	return found;
}

static void
record_barrier(HsDbState *db, HsEpoch prev, HsEpoch curr, bool checkpoint,
			   TimestampTz injected, TimestampTz collected)
{
	HsBarrierRecord *r;

	SpinLockAcquire(&db->barrier_mutex);
	r = &db->ring[db->ring_next];
	r->prev_epoch = prev;
	r->curr_epoch = curr;
	r->checkpoint = checkpoint;
	r->injected_at = injected;
	r->collected_at = collected;
	db->ring_next = (db->ring_next + 1) % HS_BARRIER_RING;
	db->last_injected = curr;
	if (collected)
		db->last_collected = curr;
	db->barriers_total++;
	SpinLockRelease(&db->barrier_mutex);
}

void
HsBarrierManagerMain(Datum main_arg)
{
	HsDbState  *db;
	HsEpoch		prev;
	int			since_checkpoint = 0;
	TimestampTz next_barrier_at;

	manager_dboid = DatumGetObjectId(main_arg);

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, manager_sigterm);
	BackgroundWorkerUnblockSignals();

	/* Decide before connecting: the database may be being dropped. */
	if (!HsDbStateManagerAttach(manager_dboid))
		proc_exit(0);
	before_shmem_exit(manager_exit, (Datum) 0);
	db = HsDbStateGet(manager_dboid, false);

	BackgroundWorkerInitializeConnectionByOid(manager_dboid, InvalidOid, 0);
	pgstat_report_appname("hummock_stream barrier manager");

	if (!extension_installed())
		proc_exit(0);

	prev = next_epoch(db->last_injected);
	next_barrier_at = GetCurrentTimestamp();

	while (!stop_pending)
	{
		TimestampTz now;
		long		wait_ms;
		int			rc;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		now = GetCurrentTimestamp();
		if (now >= next_barrier_at)
		{
			HsEpoch		curr = next_epoch(prev);
			bool		checkpoint = (++since_checkpoint >= hs_checkpoint_frequency);

			if (checkpoint)
				since_checkpoint = 0;

			/*
			 * Inject into every partial graph and collect.  With no graphs
			 * the barrier is collected at once.
			 */
			record_barrier(db, prev, curr, checkpoint, now, GetCurrentTimestamp());
			prev = curr;

			/* A dropped extension stops the manager for good. */
			if (!extension_installed())
				break;

			next_barrier_at = TimestampTzPlusMilliseconds(now, hs_barrier_interval_ms);
		}

		wait_ms = (long) TimestampDifferenceMilliseconds(GetCurrentTimestamp(),
														 next_barrier_at);
		rc = WaitLatch(MyLatch,
					   WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					   Max(wait_ms, 1), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);

		/* woken by DROP EXTENSION or a command: recheck at once */
		if ((rc & WL_LATCH_SET) && !stop_pending && !extension_installed())
			break;
	}

	/*
	 * Exit code 0 (not restarted) if we stop for good; 1 (restarted after
	 * 1 s) if someone merely terminated us.
	 */
	proc_exit(stop_pending && !HsDbStateStopRequested(manager_dboid) ? 1 : 0);
}
