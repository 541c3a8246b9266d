/*-------------------------------------------------------------------------
 *
 * exec_project_set.c
 *	  Streaming evaluation of set-returning functions in a select list:
 *	  each input row becomes as many rows as its functions return.
 *
 * As Postgres's ProjectSet: every function of the row is called again and
 * again in lockstep, each call making one output row, until all of them
 * are done; a function that is done before the others gives NULL in the
 * rows that follow, and a row for which all return nothing makes none (or,
 * for a LEFT JOIN LATERAL to a function in FROM, one row whose function
 * columns and position are NULL).
 * A function in FROM that returns no set (jsonb_to_record(doc) AS r(a int))
 * makes one row per input row, NULL when it returns NULL, as Postgres's
 * function scan: it is called as a table function is (with the rows the
 * query expects in its ReturnSetInfo, so a function returning record
 * knows its columns), once per input row.
 * Output: the input columns, one column per function, and the row's
 * position among those of its input row (int8, 1..n), which with the
 * input's unique key is a unique key of the output.
 *
 * Stateless: the functions are immutable (or stable with the view's
 * settings), so the delete of an input row makes exactly the rows its
 * insert made, deleted.
 *
 * src/stream/executor/exec_project_set.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/objectaccess.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "hummock_stream/stream/executor.h"

/* A call in FROM of a function that returns no set. */
typedef struct OneRowCall
{
	ExprState  *expr;			/* not a function call (CAST, COALESCE...):
								 * evaluated as an expression; else NULL */
	FmgrInfo	flinfo;
	FunctionCallInfo fcinfo;	/* its resultinfo: rsinfo */
	List	   *args;			/* ExprState per argument */
	ReturnSetInfo rsinfo;
} OneRowCall;

typedef struct ProjectSetExec
{
	HsExec		exec;			/* exec.out: virtual; exec.row_cxt: the
								 * arguments of one input row's calls */
	int			ninput;			/* input columns */
	int			nfuncs;
	SetExprState **funcs;		/* NULL for a call in one_row */
	OneRowCall **one_row;		/* NULL for a set-returning call */
	ExprContext *econtext;		/* its per-query memory keeps the functions'
								 * state between calls */
	ExprDoneCond *done;
	bool		keep_empty;		/* an input row with no function rows makes
								 * one row of NULLs (LEFT JOIN LATERAL) */
} ProjectSetExec;

static OneRowCall *
one_row_call_init(Expr *expr, TupleDesc expected, ExprContext *econtext)
{
	OneRowCall *c = palloc0(sizeof(OneRowCall));
	FuncExpr   *func = (FuncExpr *) expr;
	AclResult	acl;

	if (!IsA(expr, FuncExpr))
	{
		c->expr = ExecInitExpr(expr, NULL);
		return c;
	}
	acl = pg_proc_aclcheck(func->funcid, GetUserId(), ACL_EXECUTE);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_FUNCTION, get_func_name(func->funcid));
	InvokeFunctionExecuteHook(func->funcid);
	fmgr_info(func->funcid, &c->flinfo);
	fmgr_info_set_expr((Node *) expr, &c->flinfo);
	c->args = ExecInitExprList(func->args, NULL);
	c->rsinfo.type = T_ReturnSetInfo;
	c->rsinfo.econtext = econtext;
	c->rsinfo.expectedDesc = expected;
	c->rsinfo.allowedModes = (int) SFRM_ValuePerCall;
	c->fcinfo = palloc0(SizeForFunctionCallInfo(list_length(c->args)));
	InitFunctionCallInfoData(*c->fcinfo, &c->flinfo, list_length(c->args),
							 func->inputcollid, NULL, (Node *) &c->rsinfo);
	return c;
}

/* The call's one value for the row in econtext (in the current context). */
static Datum
one_row_call(OneRowCall *c, ExprContext *econtext, bool *isnull)
{
	FunctionCallInfo fcinfo = c->fcinfo;
	ListCell   *lc;
	int			i = 0;
	Datum		result;

	if (c->expr)
		return ExecEvalExpr(c->expr, econtext, isnull);
	foreach(lc, c->args)
	{
		fcinfo->args[i].value = ExecEvalExpr(lfirst(lc), econtext, &fcinfo->args[i].isnull);
		if (fcinfo->args[i].isnull && c->flinfo.fn_strict)
		{
			*isnull = true;
			return (Datum) 0;
		}
		i++;
	}
	c->rsinfo.returnMode = SFRM_ValuePerCall;
	c->rsinfo.isDone = ExprSingleResult;
	c->rsinfo.setResult = NULL;
	c->rsinfo.setDesc = NULL;
	fcinfo->isnull = false;
	result = FunctionCallInvoke(fcinfo);
	if (c->rsinfo.returnMode != SFRM_ValuePerCall ||
		c->rsinfo.isDone == ExprMultipleResult)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_SRF_PROTOCOL_VIOLATED),
				 errmsg("table-function protocol for value-per-call mode was not followed")));
	/* (as in Postgres, a function that says it is done returned NULL) */
	*isnull = fcinfo->isnull || c->rsinfo.isDone == ExprEndResult;
	return *isnull ? (Datum) 0 : result;
}

static void
project_set_push(HsExec *self, TupleTableSlot *row, int sign)
{
	ProjectSetExec *p = (ProjectSetExec *) self;
	TupleTableSlot *out = p->exec.out;
	ExprContext *econtext = p->econtext;
	int64		n = 0;

	slot_getallattrs(row);
	/* (the values of one input row's output rows, and the calls' arguments) */
	ResetExprContext(econtext);
	MemoryContextReset(p->exec.row_cxt);
	econtext->ecxt_scantuple = row;
	for (int k = 0; k < p->nfuncs; k++)
		p->done[k] = ExprSingleResult;	/* not started */
	for (;;)
	{
		bool		any = false;

		ExecClearTuple(out);
		memcpy(out->tts_values, row->tts_values, sizeof(Datum) * p->ninput);
		memcpy(out->tts_isnull, row->tts_isnull, sizeof(bool) * p->ninput);
		for (int k = 0; k < p->nfuncs; k++)
		{
			int			c = p->ninput + k;
			bool		isnull;

			if (p->done[k] == ExprEndResult)
			{
				out->tts_values[c] = (Datum) 0;
				out->tts_isnull[c] = true;
				continue;
			}
			if (p->one_row[k])
			{
				MemoryContext old = MemoryContextSwitchTo(p->exec.row_cxt);

				out->tts_values[c] = one_row_call(p->one_row[k], econtext, &isnull);
				MemoryContextSwitchTo(old);
				p->done[k] = ExprSingleResult;
			}
			else
				out->tts_values[c] = ExecMakeFunctionResultSet(p->funcs[k], econtext,
															   p->exec.row_cxt, &isnull,
															   &p->done[k]);
			out->tts_isnull[c] = isnull;
			if (p->done[k] == ExprEndResult)
			{
				out->tts_values[c] = (Datum) 0;
				out->tts_isnull[c] = true;
			}
			else
				any = true;
		}
		if (!any)
			break;
		out->tts_values[p->ninput + p->nfuncs] = Int64GetDatum(++n);
		out->tts_isnull[p->ninput + p->nfuncs] = false;
		ExecStoreVirtualTuple(out);
		HsExecEmit(&p->exec, out, sign);
		/* a function that returned one value and no set is done */
		for (int k = 0; k < p->nfuncs; k++)
			if (p->done[k] == ExprSingleResult)
				p->done[k] = ExprEndResult;
	}
	if (n == 0 && p->keep_empty)
	{
		/* NULL functions, NULL position (the ordinality of such a row) */
		ExecClearTuple(out);
		memcpy(out->tts_values, row->tts_values, sizeof(Datum) * p->ninput);
		memcpy(out->tts_isnull, row->tts_isnull, sizeof(bool) * p->ninput);
		for (int c = p->ninput; c <= p->ninput + p->nfuncs; c++)
		{
			out->tts_values[c] = (Datum) 0;
			out->tts_isnull[c] = true;
		}
		ExecStoreVirtualTuple(out);
		HsExecEmit(&p->exec, out, sign);
	}
}

static void
project_set_flush(HsExec *self)
{
	HsExecFlush(self->downstream);
}

static const HsExecMethods project_set_methods = {
	.name = "ProjectSet",
	.push = project_set_push,
	.flush = project_set_flush,
	.out_ops = &TTSOpsVirtual,
	.row_context = "hummock_stream project set row",
};

HsExec *
HsExecProjectSetCreate(TupleDesc in_desc, List *funcs, List *row_types,
					   bool keep_empty)
{
	int			ninput = in_desc->natts;
	int			nfuncs = list_length(funcs);
	TupleDesc	out = CreateTemplateTupleDesc(ninput + nfuncs + 1);
	ProjectSetExec *p;
	ListCell   *lc;
	int			k = 0;

	for (int i = 0; i < ninput; i++)
		TupleDescCopyEntry(out, i + 1, in_desc, i + 1);
	foreach(lc, funcs)
	{
		Node	   *f = lfirst(lc);

		TupleDesc	rt = row_types ? list_nth(row_types, k) : NULL;

		TupleDescInitEntry(out, ninput + k + 1, NULL, exprType(f),
						   rt ? rt->tdtypmod : exprTypmod(f), 0);
		TupleDescInitEntryCollation(out, ninput + k + 1, exprCollation(f));
		k++;
	}
	TupleDescInitEntry(out, ninput + nfuncs + 1, "ordinality", INT8OID, -1, 0);
	p = HsExecCreate(sizeof(ProjectSetExec), &project_set_methods, out);
	p->ninput = ninput;
	p->nfuncs = nfuncs;
	p->keep_empty = keep_empty;
	p->econtext = CreateStandaloneExprContext();
	p->funcs = palloc0(sizeof(SetExprState *) * Max(nfuncs, 1));
	p->one_row = palloc0(sizeof(OneRowCall *) * Max(nfuncs, 1));
	p->done = palloc(sizeof(ExprDoneCond) * Max(nfuncs, 1));
	k = 0;
	foreach(lc, funcs)
	{
		TupleDesc	rt = row_types ? list_nth(row_types, k) : NULL;

		if (!expression_returns_set(lfirst(lc)))
		{
			/* the rows the query expects, as a function scan says them */
			Oid			type = exprType(lfirst(lc));
			TupleDesc	expected = rt;

			if (expected == NULL && type_is_rowtype(type))
				expected = get_expr_result_tupdesc(lfirst(lc), false);
			else if (expected == NULL)
			{
				expected = CreateTemplateTupleDesc(1);
				TupleDescInitEntry(expected, 1, "column", type, exprTypmod(lfirst(lc)), 0);
			}
			p->one_row[k++] = one_row_call_init(lfirst(lc), expected, p->econtext);
			continue;
		}
		p->funcs[k] = ExecInitFunctionResultSet(lfirst(lc), p->econtext, NULL);
		if (rt)
		{
			/*
			 * What a function scan tells a function returning record: the
			 * rows the query expects (rsinfo.expectedDesc, checked against
			 * the one it returns), which also types the composite it hands
			 * on.
			 */
			p->funcs[k]->funcResultDesc = rt;
			p->funcs[k]->funcReturnsTuple = true;
		}
		k++;
	}
	return &p->exec;
}
