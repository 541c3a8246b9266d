/*-------------------------------------------------------------------------
 *
 * exec_runtime.c
 *	  What every streaming executor shares: its construction and the
 *	  interrupt checks on the path every row between executors takes.
 *
 * Construction.  An executor is a struct that begins with its HsExec; its
 * kind is a static const HsExecMethods (name, callbacks, and whether it
 * emits rows from a slot of its own and works in a per-row memory
 * context), from which HsExecCreate makes the common part.  The callbacks
 * are copied into the HsExec, so a push stays one indirect call.
 *
 * Interrupts.  Every row an executor emits goes through HsExecPush
 * (executor.h), so a check there every HS_EXEC_PUSHES_PER_CHECK rows
 * bounds the time any executor loop runs without noticing a cancel, a
 * terminate or the death of the postmaster.  Both checks are a flag test
 * in the common case (CHECK_FOR_INTERRUPTS; PostmasterIsAlive reads a flag
 * set by the parent-death signal on Linux).
 *
 * src/stream/executor/exec_runtime.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/pmsignal.h"
#include "utils/memutils.h"

#include "hummock_stream/stream/executor.h"

uint32		hs_exec_pushes = 0;

/* ---------------------------------------------------------------------
 * Construction
 * ---------------------------------------------------------------------
 */

/* The reset of an executor that caches nothing. */
static void
exec_reset_nothing(HsExec *self)
{
}

void
HsExecInit(HsExec *e, const HsExecMethods *m, TupleDesc out_desc)
{
	Assert(m->push != NULL && m->flush != NULL);
	e->name = m->name;
	e->out_desc = out_desc;
	e->downstream = NULL;
	e->rows_in_counter = &e->rows_in;
	e->rows_in = 0;
	e->rows_out = 0;
	e->push = m->push;
	e->flush = m->flush;
	e->reset = m->reset ? m->reset : exec_reset_nothing;
	e->out = m->out_ops ? MakeSingleTupleTableSlot(out_desc, m->out_ops) : NULL;
	/* (AllocSetContextCreate insists on a literal; m's names are constants) */
	e->row_cxt = m->row_context ?
		AllocSetContextCreateInternal(CurrentMemoryContext, m->row_context,
									  ALLOCSET_DEFAULT_SIZES) : NULL;
}

void *
HsExecCreate(Size size, const HsExecMethods *m, TupleDesc out_desc)
{
	HsExec	   *e;

	Assert(size >= sizeof(HsExec));
	e = palloc0(size);
	HsExecInit(e, m, out_desc);
	return e;
}

/* ---------------------------------------------------------------------
 * Interrupts
 * ---------------------------------------------------------------------
 */

void
HsExecCheckInterrupts(void)
{
	hs_exec_pushes = 0;
	CHECK_FOR_INTERRUPTS();
	if (!PostmasterIsAlive())
		proc_exit(1);
}
