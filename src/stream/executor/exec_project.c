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

#include "hummock_stream/stream/executor.h"

typedef struct ProjectExec
{
	HsExec		exec;			/* exec.out: the projection's result */
	ExprContext *econtext;
	ExprState  *qual;
	ProjectionInfo *proj;
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
	HsExecEmit(self, out, sign);
}

static void
project_flush(HsExec *self)
{
	HsExecFlush(self->downstream);
}

static const HsExecMethods project_methods = {
	.name = "Project",
	.push = project_push,
	.flush = project_flush,
	.out_ops = &TTSOpsVirtual,
};

HsExec *
HsExecProjectCreate(TupleDesc in_desc, List *qual, List *targetlist)
{
	ProjectExec *p = HsExecCreate(sizeof(ProjectExec), &project_methods,
								  ExecTypeFromTL(targetlist));

	p->econtext = CreateStandaloneExprContext();
	p->qual = qual ? ExecInitQual(qual, NULL) : NULL;
	p->proj = ExecBuildProjectionInfo(targetlist, p->econtext, p->exec.out, NULL, in_desc);
	return &p->exec;
}
