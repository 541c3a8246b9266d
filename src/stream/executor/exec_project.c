/*-------------------------------------------------------------------------
 *
 * exec_project.c
 *	  Streaming filter and projection.
 *
 * Stateless: a row passes if the qual holds for it and is projected; the
 * sign is kept.  Because both are deterministic functions of the row (the
 * planner rejects volatile functions), the delete of a row that was
 * filtered out when inserted is filtered out too.
 *
 * src/stream/executor/exec_project.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "utils/memutils.h"

#include "hummock_stream/stream/executor.h"

typedef struct ProjectExec
{
	HsExec		exec;
	ExprContext *econtext;
	ExprState  *qual;
	ProjectionInfo *proj;
	TupleTableSlot *out;
} ProjectExec;

static void
project_push(HsExec *self, TupleTableSlot *row, int sign)
{
	ProjectExec *p = (ProjectExec *) self;
	ExprContext *econtext = p->econtext;
	TupleTableSlot *out;

	ResetExprContext(econtext);
	econtext->ecxt_scantuple = row;
	if (p->qual && !ExecQual(p->qual, econtext))
		return;
	out = ExecProject(p->proj);
	HsExecPush(self->downstream, out, sign);
}

static void
project_flush(HsExec *self)
{
	HsExecFlush(self->downstream);
}

static void
project_reset(HsExec *self)
{
}

HsExec *
HsExecProjectCreate(TupleDesc in_desc, List *qual, List *targetlist)
{
	ProjectExec *p = palloc0(sizeof(ProjectExec));
	TupleDesc	out_desc = ExecTypeFromTL(targetlist);

	p->exec.name = "Project";
	p->exec.out_desc = out_desc;
	p->exec.push = project_push;
	p->exec.flush = project_flush;
	p->exec.reset = project_reset;
	p->econtext = CreateStandaloneExprContext();
	p->qual = qual ? ExecInitQual(qual, NULL) : NULL;
	p->out = MakeSingleTupleTableSlot(out_desc, &TTSOpsVirtual);
	p->proj = ExecBuildProjectionInfo(targetlist, p->econtext, p->out, NULL, in_desc);
	return &p->exec;
}
