/*-------------------------------------------------------------------------
 *
 * exec_union.c
 *	  Streaming UNION ALL: rows of every input pass through, sign kept.
 *
 * Each input pushes into its own port; the union flushes its downstream
 * when every port has been flushed for the epoch.
 *
 * src/stream/executor/exec_union.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hummock_stream/stream/executor.h"

typedef struct UnionExec UnionExec;

typedef struct UnionPort
{
	HsExec		exec;
	UnionExec  *u;
} UnionPort;

struct UnionExec
{
	HsExec		exec;
	int			ninputs;
	int			nflushed;
	UnionPort  *ports;
};

static void
port_push(HsExec *self, TupleTableSlot *row, int sign)
{
	HsExecEmit(&((UnionPort *) self)->u->exec, row, sign);
}

static void
port_flush(HsExec *self)
{
	UnionExec  *u = ((UnionPort *) self)->u;

	if (++u->nflushed < u->ninputs)
		return;
	u->nflushed = 0;
	HsExecFlush(u->exec.downstream);
}

static void
port_reset(HsExec *self)
{
	((UnionPort *) self)->u->nflushed = 0;
}

static void
union_push(HsExec *self, TupleTableSlot *row, int sign)
{
	elog(ERROR, "a streaming union is pushed to through its ports");
}

static void
union_flush(HsExec *self)
{
	elog(ERROR, "a streaming union is flushed through its ports");
}

static void
union_reset(HsExec *self)
{
	((UnionExec *) self)->nflushed = 0;
}

static const HsExecMethods union_methods = {
	.name = "Union",
	.push = union_push,
	.flush = union_flush,
	.reset = union_reset,
};

static const HsExecMethods union_port_methods = {
	.name = "Union (input)",
	.push = port_push,
	.flush = port_flush,
	.reset = port_reset,
};

HsExec *
HsExecUnionCreate(TupleDesc desc, int ninputs, HsExec **ports)
{
	UnionExec  *u = HsExecCreate(sizeof(UnionExec), &union_methods, desc);

	u->ninputs = ninputs;
	u->ports = palloc0(sizeof(UnionPort) * ninputs);
	for (int i = 0; i < ninputs; i++)
	{
		HsExecInit(&u->ports[i].exec, &union_port_methods, desc);
		u->ports[i].u = u;
		HsExecCountInto(&u->ports[i].exec, &u->exec);
		ports[i] = &u->ports[i].exec;
	}
	return &u->exec;
}
