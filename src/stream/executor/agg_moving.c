/*-------------------------------------------------------------------------
 *
 * agg_moving.c
 *	  Aggregate calls with moving-aggregate support (CREATE AGGREGATE ...
 *	  MSFUNC, MINVFUNC, MSTYPE): each group keeps the call's moving
 *	  transition state, a row going in is added by the forward transition
 *	  function and a row going out is taken out by the inverse one, so an
 *	  epoch costs in proportion to the rows it changes, not to the sizes of
 *	  the groups it touches (a RECOMPUTE call, agg_recompute.c, reads the
 *	  whole group again).
 *
 * The rules are those of Postgres's window aggregation (nodeWindowAgg.c),
 * the one place Postgres itself uses the inverse:
 *
 *	- a strict transition function skips a row with a NULL argument, and
 *	  the first non-NULL row of a strict function whose initial state is
 *	  NULL becomes the state;
 *	- the forward function must not return NULL (22004, as Postgres);
 *	- the last row of a state is never taken out by the inverse: the state
 *	  goes back to the initial one;
 *	- an inverse that returns NULL says it cannot take that row out: the
 *	  state is lost, and is rebuilt from the group's kept rows (which the
 *	  aggregation keeps for these calls as for RECOMPUTE calls) with the
 *	  forward function, once, at the end of the epoch;
 *	- the result is the moving final function of the state (NULL extra
 *	  arguments with MFINALFUNC_EXTRA), over a copy of the state unless
 *	  the function declares it read-only.
 *
 * An inverse that raises an error (rather than returning NULL) fails the
 * view at the delete, and every retry replays that delete: the view stays
 * failed until it is dropped, as a query fails whenever a function it
 * calls raises (catching the error would cost a subtransaction per row).
 *
 * Postgres calls the inverse only on the oldest row of a window frame; a
 * view takes out whichever row was deleted.  The two agree for every
 * aggregate whose result does not depend on the order of its rows, which
 * is what a call without ORDER BY may assume (Postgres does not define
 * that order either); a call with ORDER BY or DISTINCT is RECOMPUTE.
 *
 * The functions run as Postgres's Agg node runs them: the view's owner
 * needs EXECUTE on the aggregate, the aggregate's owner on its moving
 * functions (checked when the executor is built), and they are called
 * without an aggregate context (AggCheckCallContext is false: a state is
 * never modified in place).
 *
 * State-row columns (persisted, agg_accumulators.c): the non-NULL count
 * column holds how many rows the state includes, the value column the
 * state (of the resolved moving state type).
 *
 * src/stream/executor/agg_moving.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "parser/parse_agg.h"
#include "parser/parse_coerce.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "agg_internal.h"

/* The aggregate's owner must be allowed to run fn, as ExecInitAgg says. */
static void
check_owner_may_execute(Oid fn, Oid owner)
{
	AclResult	aclresult;

	if (!OidIsValid(fn))
		return;
	aclresult = pg_proc_aclcheck(fn, owner, ACL_EXECUTE);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_FUNCTION, get_func_name(fn));
	InvokeFunctionExecuteHook(fn);
}

/* The initial state from its text in pg_aggregate, as nodeAgg reads it. */
static Datum
initial_state(Oid statetype, Datum initval, bool *isnull)
{
	Oid			typinput;
	Oid			typioparam;
	char	   *s;

	*isnull = initval == (Datum) 0;
	if (*isnull)
		return (Datum) 0;
	getTypeInputInfo(statetype, &typinput, &typioparam);
	s = TextDatumGetCString(initval);
	return OidInputFunctionCall(typinput, s, typioparam, -1);
}

void
AggMovingInit(AggMoving *m, const HsAggCall *call)
{
	Aggref	   *aggref = call->aggref;
	HeapTuple	tup;
	Form_pg_aggregate agg;
	Oid			input_types[FUNC_MAX_ARGS];
	int			nargs;
	Oid			owner;
	Oid			finalfn;
	Expr	   *transfn_expr;
	Expr	   *invfn_expr;
	Expr	   *finalfn_expr;
	Datum		initval;
	bool		isnull;
	AclResult	aclresult;
	ListCell   *lc;
	MemoryContext old;

	Assert(call->kind == HS_AGG_MOVING && aggref != NULL);
	aclresult = pg_proc_aclcheck(aggref->aggfnoid, GetUserId(), ACL_EXECUTE);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_AGGREGATE, get_func_name(aggref->aggfnoid));
	InvokeFunctionExecuteHook(aggref->aggfnoid);
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggref->aggfnoid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", aggref->aggfnoid);
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	if (!OidIsValid(agg->aggmtransfn) || !OidIsValid(agg->aggminvtransfn))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("aggregate %s no longer has moving-aggregate support",
						format_procedure(aggref->aggfnoid))));
	{
		HeapTuple	proc = SearchSysCache1(PROCOID, ObjectIdGetDatum(aggref->aggfnoid));

		if (!HeapTupleIsValid(proc))
			elog(ERROR, "cache lookup failed for function %u", aggref->aggfnoid);
		owner = ((Form_pg_proc) GETSTRUCT(proc))->proowner;
		ReleaseSysCache(proc);
	}
	finalfn = agg->aggmfinalfn;
	check_owner_may_execute(agg->aggmtransfn, owner);
	check_owner_may_execute(agg->aggminvtransfn, owner);
	check_owner_may_execute(finalfn, owner);

	memset(m, 0, sizeof(*m));
	m->statetype = call->statetype;
	get_typlenbyval(m->statetype, &m->statelen, &m->statebyval);
	m->collation = aggref->inputcollid;
	m->finalmodify = agg->aggmfinalmodify;
	initval = SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_aggminitval, &isnull);
	m->init = initial_state(m->statetype, isnull ? (Datum) 0 : initval, &m->init_null);

	nargs = get_aggregate_argtypes(aggref, input_types);
	m->nargs = list_length(aggref->args);
	build_aggregate_transfn_expr(input_types, nargs, 0, aggref->aggvariadic,
								 m->statetype, m->collation,
								 agg->aggmtransfn, agg->aggminvtransfn,
								 &transfn_expr, &invfn_expr);
	fmgr_info(agg->aggmtransfn, &m->transfn);
	fmgr_info_set_expr((Node *) transfn_expr, &m->transfn);
	fmgr_info(agg->aggminvtransfn, &m->invfn);
	fmgr_info_set_expr((Node *) invfn_expr, &m->invfn);
	if (OidIsValid(finalfn))
	{
		m->nfinalargs = agg->aggmfinalextra ? nargs + 1 : 1;
		build_aggregate_finalfn_expr(input_types, m->nfinalargs, m->statetype,
									 aggref->aggtype, m->collation, finalfn,
									 &finalfn_expr);
		fmgr_info(finalfn, &m->finalfn);
		fmgr_info_set_expr((Node *) finalfn_expr, &m->finalfn);
	}
	/* strict with no initial state: the first input is the state */
	if (m->transfn.fn_strict && m->init_null &&
		(nargs < 1 || !IsBinaryCoercible(input_types[0], m->statetype)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_FUNCTION_DEFINITION),
				 errmsg("aggregate %s needs to have compatible input type and transition type",
						format_procedure(aggref->aggfnoid))));
	ReleaseSysCache(tup);

	/* arguments and FILTER over a row of (ord, kept columns...) */
	m->econtext = CreateStandaloneExprContext();
	old = MemoryContextSwitchTo(m->econtext->ecxt_per_query_memory);
	m->args = palloc(sizeof(ExprState *) * Max(m->nargs, 1));
	foreach(lc, aggref->args)
		m->args[foreach_current_index(lc)] =
			ExecInitExpr(lfirst_node(TargetEntry, lc)->expr, NULL);
	m->filter = aggref->aggfilter ? ExecInitExpr(aggref->aggfilter, NULL) : NULL;
	m->fcinfo = palloc0(SizeForFunctionCallInfo(m->nargs + 1));
	m->final_fcinfo = palloc0(SizeForFunctionCallInfo(Max(m->nfinalargs, 1)));
	MemoryContextSwitchTo(old);
	m->call_cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream moving call",
										ALLOCSET_DEFAULT_SIZES);
}

void
AggMovingReset(const AggMoving *m, AggAcc *acc, MemoryContext group_cxt)
{
	MemoryContext old = MemoryContextSwitchTo(group_cxt);

	if (!m->statebyval && !acc->val_null)
		pfree(DatumGetPointer(acc->val));
	acc->count = 0;
	acc->val_null = m->init_null;
	acc->val = m->init_null ? (Datum) 0 :
		datumCopy(m->init, m->statebyval, m->statelen);
	acc->rescan = false;
	MemoryContextSwitchTo(old);
}

/* acc's state becomes v (a result of a call, not yet in group_cxt). */
static void
set_state(const AggMoving *m, AggAcc *acc, Datum v, MemoryContext group_cxt)
{
	if (m->statebyval)
	{
		acc->val = v;
		acc->val_null = false;
		return;
	}
	if (!acc->val_null && DatumGetPointer(v) == DatumGetPointer(acc->val))
		return;					/* (modified in place) */
	{
		MemoryContext old = MemoryContextSwitchTo(group_cxt);
		Datum		copy = datumCopy(v, false, m->statelen);

		MemoryContextSwitchTo(old);
		if (!acc->val_null)
			pfree(DatumGetPointer(acc->val));
		acc->val = copy;
		acc->val_null = false;
	}
}

/*
 * Evaluate the call's FILTER and arguments over m->econtext's scan tuple
 * into m->fcinfo->args[1..]; false: the row is left out (FILTER not true,
 * or a NULL argument of a strict fn).
 */
static bool
eval_inputs(AggMoving *m, const FmgrInfo *fn)
{
	ExprContext *econtext = m->econtext;

	if (m->filter)
	{
		bool		isnull;
		Datum		f = ExecEvalExpr(m->filter, econtext, &isnull);

		if (isnull || !DatumGetBool(f))
			return false;
	}
	for (int i = 0; i < m->nargs; i++)
	{
		NullableDatum *a = &m->fcinfo->args[i + 1];

		a->value = ExecEvalExpr(m->args[i], econtext, &a->isnull);
		if (a->isnull && fn->fn_strict)
			return false;
	}
	return true;
}

/*
 * Call fcinfo's function with its result (and whatever it allocates) in
 * cxt, which the caller resets once it copied the result: a group's state
 * rebuilt over many rows must not keep every intermediate state.
 */
static Datum
call_in(MemoryContext cxt, FunctionCallInfo fcinfo)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Datum		v = FunctionCallInvoke(fcinfo);

	MemoryContextSwitchTo(old);
	return v;
}

/* Add the row whose arguments are in m->fcinfo (count times). */
static void
add_inputs(AggMoving *m, AggAcc *acc, int64 count, MemoryContext group_cxt)
{
	FunctionCallInfo fcinfo = m->fcinfo;

	for (int64 n = 0; n < count; n++)
	{
		Datum		v;

		if (m->transfn.fn_strict && acc->count == 0 && acc->val_null)
		{
			/* the first input is the state (binary-compatible: checked) */
			set_state(m, acc, fcinfo->args[1].value, group_cxt);
			acc->count = 1;
			continue;
		}
		InitFunctionCallInfoData(*fcinfo, &m->transfn, m->nargs + 1, m->collation,
								 NULL, NULL);
		fcinfo->args[0].value = acc->val;
		fcinfo->args[0].isnull = acc->val_null;
		v = call_in(m->call_cxt, fcinfo);
		if (fcinfo->isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("moving-aggregate transition function must not return null")));
		set_state(m, acc, v, group_cxt);
		MemoryContextReset(m->call_cxt);
		acc->count++;
	}
}

void
AggMovingApply(AggMoving *m, AggAcc *acc, TupleTableSlot *rows_slot, int sign,
			   MemoryContext group_cxt)
{
	FunctionCallInfo fcinfo = m->fcinfo;
	Datum		v;

	if (acc->rescan)
		return;					/* lost: rebuilt from the kept rows */
	m->econtext->ecxt_scantuple = rows_slot;
	if (!eval_inputs(m, sign > 0 ? &m->transfn : &m->invfn))
	{
		ResetExprContext(m->econtext);
		return;
	}
	if (sign > 0)
		add_inputs(m, acc, 1, group_cxt);
	else if (acc->count <= 0 || acc->val_null)
		acc->rescan = true;		/* (no state to take it out of) */
	else if (acc->count == 1)
		AggMovingReset(m, acc, group_cxt);
	else
	{
		InitFunctionCallInfoData(*fcinfo, &m->invfn, m->nargs + 1, m->collation,
								 NULL, NULL);
		fcinfo->args[0].value = acc->val;
		fcinfo->args[0].isnull = false;
		v = call_in(m->call_cxt, fcinfo);
		if (fcinfo->isnull)
			acc->rescan = true;
		else
		{
			set_state(m, acc, v, group_cxt);
			acc->count--;
		}
		MemoryContextReset(m->call_cxt);
	}
	ResetExprContext(m->econtext);
}

void
AggMovingAddKept(AggMoving *m, AggAcc *acc, TupleTableSlot *rows_slot, int64 count,
				 MemoryContext group_cxt)
{
	m->econtext->ecxt_scantuple = rows_slot;
	if (eval_inputs(m, &m->transfn))
		add_inputs(m, acc, count, group_cxt);
	ResetExprContext(m->econtext);
}

Datum
AggMovingResult(AggMoving *m, const AggAcc *acc, bool *isnull)
{
	FunctionCallInfo fcinfo = m->final_fcinfo;
	Datum		state = acc->val;
	bool		anynull = acc->val_null;
	Datum		result;

	if (m->nfinalargs == 0)
	{
		*isnull = acc->val_null;
		return acc->val;
	}
	/* a final function that may write its state gets a copy */
	if (!acc->val_null && !m->statebyval && m->finalmodify != AGGMODIFY_READ_ONLY)
		state = datumCopy(state, false, m->statelen);
	InitFunctionCallInfoData(*fcinfo, &m->finalfn, m->nfinalargs, m->collation, NULL, NULL);
	fcinfo->args[0].value = state;
	fcinfo->args[0].isnull = acc->val_null;
	for (int i = 1; i < m->nfinalargs; i++)
	{
		fcinfo->args[i].value = (Datum) 0;
		fcinfo->args[i].isnull = true;
		anynull = true;
	}
	if (m->finalfn.fn_strict && anynull)
	{
		*isnull = true;
		return (Datum) 0;
	}
	result = FunctionCallInvoke(fcinfo);
	*isnull = fcinfo->isnull;
	return result;
}
