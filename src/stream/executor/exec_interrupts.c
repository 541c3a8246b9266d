/*-------------------------------------------------------------------------
 *
 * exec_interrupts.c
 *	  Interrupt checks on the path every row between executors takes.
 *
 * Every row an executor emits goes through HsExecPush (executor.h), so a
 * check there every HS_EXEC_PUSHES_PER_CHECK rows bounds the time any
 * executor loop runs without noticing a cancel, a terminate or the death
 * of the postmaster.  Both checks are a flag test in the common case
 * (CHECK_FOR_INTERRUPTS; PostmasterIsAlive reads a flag set by the
 * parent-death signal on Linux).
 *
 * src/stream/executor/exec_interrupts.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/pmsignal.h"

#include "hummock_stream/stream/executor.h"

uint32		hs_exec_pushes = 0;

void
HsExecCheckInterrupts(void)
{
	hs_exec_pushes = 0;
	CHECK_FOR_INTERRUPTS();
	if (!PostmasterIsAlive())
		proc_exit(1);
}
