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
 * Memory.  Every HS_EXEC_CHECKS_PER_MEMORY_CHECK of those checks the
 * process's memory (what its memory contexts hold, all of them) is
 * compared with hummock_stream.view_memory_limit: an epoch that would
 * exhaust the machine (a plan whose one change fans out without bound)
 * fails with an error, so its view fails and is retried with backoff,
 * instead of the kernel killing a worker and the postmaster resetting
 * every session of the server, again at every retry.
 *
 * src/stream/executor/exec_runtime.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/pmsignal.h"
#include "utils/memutils.h"

#include "hummock_stream/stream/executor.h"

uint32		hs_exec_pushes = 0;

/* hummock_stream.view_memory_limit (MB): -1 a quarter of RAM, 0 none */
int			hs_view_memory_limit_mb = -1;

#define HS_EXEC_CHECKS_PER_MEMORY_CHECK 8
static uint32 checks_since_memory = 0;

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

/* The limit in bytes (0: none). */
static Size
memory_limit_bytes(void)
{
	static Size quarter_of_ram = 0;

	if (hs_view_memory_limit_mb == 0)
		return 0;
	if (hs_view_memory_limit_mb > 0)
		return (Size) hs_view_memory_limit_mb * 1024 * 1024;
	if (quarter_of_ram == 0)
	{
		long		pages = sysconf(_SC_PHYS_PAGES);
		long		page_size = sysconf(_SC_PAGESIZE);

		quarter_of_ram = pages > 0 && page_size > 0 ?
			(Size) pages * (Size) page_size / 4 : (Size) 4 << 30;
	}
	return quarter_of_ram;
}

void
HsExecCheckMemory(void)
{
	Size		limit = memory_limit_bytes();
	Size		used;

	if (limit == 0)
		return;
	used = MemoryContextMemAllocated(TopMemoryContext, true);
	if (used > limit)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("maintaining streaming views needs more than hummock_stream.view_memory_limit (%zu MB) in this process",
						limit / (1024 * 1024)),
				 errdetail("The process holds %zu MB.", used / (1024 * 1024)),
				 errhint("A view whose changes fan out (a join of many rows per key, a chain of outer joins) can need more; raise the limit if the machine has the memory.")));
}

void
HsExecCheckInterrupts(void)
{
	hs_exec_pushes = 0;
	CHECK_FOR_INTERRUPTS();
	if (!PostmasterIsAlive())
		proc_exit(1);
	if (++checks_since_memory >= HS_EXEC_CHECKS_PER_MEMORY_CHECK)
	{
		checks_since_memory = 0;
		HsExecCheckMemory();
	}
}
