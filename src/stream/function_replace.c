/*-------------------------------------------------------------------------
 *
 * function_replace.c
 *	  CREATE OR REPLACE FUNCTION, ALTER FUNCTION and CREATE OR REPLACE
 *	  AGGREGATE of a function or aggregate that streaming views call.
 *
 * A streaming view computes each row once, when its change is captured,
 * and retracts it later from the state it kept: a function whose body,
 * strictness, volatility or settings changed in between would retract
 * values it never produced (a sum drifts, a group never empties), and an
 * SQL function the planner inlined keeps its old body in the running
 * jobs until they are planned again.  Postgres's own materialized views
 * merely go stale until REFRESH; ours would go wrong.  So a change of what
 * a function computes is refused while a streaming view depends on it
 * (the view records that dependency on every function its query names,
 * as Postgres does for a view's rule; what pg_depend records as built on
 * the function counts too: an aggregate it supports, an operator it
 * implements, a function whose BEGIN ATOMIC body calls it, and what is
 * built on those), in the words of CREATE OR REPLACE VIEW of a view it
 * reads (source_alter.c).  Replacing a function by the
 * same definition, as an extension's update script or a migration tool
 * does, is accepted, and so are changes of its cost, row estimate, owner
 * and privileges.
 *
 * The function is looked up before the statement (its argument types are
 * those of the parameters that are not OUT or TABLE), its pg_proc row
 * (and an aggregate's pg_aggregate row: its transition, inverse and final
 * functions, initial states) kept, and compared with the rows the
 * statement left, column by column.
 * The refusal comes after the statement ran, so its transaction rolls
 * the change back.
 *
 * src/stream/function_replace.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_class.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "nodes/readfuncs.h"
#include "utils/builtins.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "parser/parse_func.h"
#include "parser/parse_type.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "hummock_stream/hummock_stream.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/stream/function_replace.h"
#include "hummock_stream/stream/view_dependents.h"

typedef struct FunctionChange
{
	Oid			func;
	Oid			view;			/* a streaming view that calls it */
	HeapTuple	before;			/* its pg_proc row before the statement */
	HeapTuple	agg_before;		/* an aggregate's pg_aggregate row, or NULL */
} FunctionChange;

/*
 * A streaming view that computes with function func: calls it, or uses
 * an object built on it, as pg_depend records: an aggregate it is a
 * support function of, an operator it implements, a function whose
 * BEGIN ATOMIC body calls it, and so on over what is built on those (a
 * view depends on the aggregate or the operator, not on the functions
 * behind them); InvalidOid if none.  A view that calls func itself is
 * named first.
 */
static Oid
view_computing_with(Oid func)
{
	Relation	dep = table_open(DependRelationId, AccessShareLock);
	List	   *classes = list_make1_oid(ProcedureRelationId);
	List	   *objects = list_make1_oid(func);
	Oid			view = InvalidOid;

	/* (the lists grow while they are walked: what is built on each) */
	for (int i = 0; i < list_length(objects) && !OidIsValid(view); i++)
	{
		Oid			refclass = list_nth_oid(classes, i);
		Oid			refobj = list_nth_oid(objects, i);
		ScanKeyData key[2];
		SysScanDesc scan;
		HeapTuple	tup;

		view = HsViewDependingOn(refclass, refobj, 0);
		if (OidIsValid(view))
			break;
		ScanKeyInit(&key[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(refclass));
		ScanKeyInit(&key[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(refobj));
		scan = systable_beginscan(dep, DependReferenceIndexId, true, NULL, 2, key);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			Form_pg_depend d = (Form_pg_depend) GETSTRUCT(tup);
			bool		seen = false;

			if (d->classid != ProcedureRelationId && d->classid != OperatorRelationId)
				continue;
			for (int j = 0; j < list_length(objects) && !seen; j++)
				seen = list_nth_oid(classes, j) == d->classid &&
					list_nth_oid(objects, j) == d->objid;
			if (!seen)
			{
				classes = lappend_oid(classes, d->classid);
				objects = lappend_oid(objects, d->objid);
			}
		}
		systable_endscan(scan);
	}
	table_close(dep, AccessShareLock);
	return view;
}

/*
 * The function CREATE OR REPLACE FUNCTION or AGGREGATE would replace, named
 * funcname with parameters (FunctionParameter), or InvalidOid.
 */
static Oid
function_replaced(List *funcname, List *parameters)
{
	Oid			argtypes[FUNC_MAX_ARGS];
	int			nargs = 0;
	ListCell   *lc;

	foreach(lc, parameters)
	{
		FunctionParameter *fp = lfirst(lc);

		if (fp->mode == FUNC_PARAM_OUT || fp->mode == FUNC_PARAM_TABLE)
			continue;
		if (nargs >= FUNC_MAX_ARGS)
			return InvalidOid;	/* (CREATE FUNCTION reports it) */
		argtypes[nargs] = LookupTypeNameOid(NULL, fp->argType, true);
		if (!OidIsValid(argtypes[nargs]))
			return InvalidOid;	/* (a new type: no such function yet) */
		nargs++;
	}
	return LookupFuncName(funcname, nargs, argtypes, true);
}

void *
HsFunctionChangeBegin(Node *parsetree)
{
	Oid			func = InvalidOid;
	Oid			view;
	HeapTuple	tup;
	FunctionChange *change;

	if (!OidIsValid(get_extension_oid(HS_EXTENSION_NAME, true)))
		return NULL;
	if (IsA(parsetree, CreateFunctionStmt) && ((CreateFunctionStmt *) parsetree)->replace)
		func = function_replaced(((CreateFunctionStmt *) parsetree)->funcname,
								 ((CreateFunctionStmt *) parsetree)->parameters);
	else if (IsA(parsetree, DefineStmt) && ((DefineStmt *) parsetree)->replace &&
			 ((DefineStmt *) parsetree)->kind == OBJECT_AGGREGATE &&
			 !((DefineStmt *) parsetree)->oldstyle)
	{
		DefineStmt *stmt = (DefineStmt *) parsetree;

		/* (args: its parameters, then how many are direct) */
		func = function_replaced(stmt->defnames, linitial_node(List, stmt->args));
	}
	else if (IsA(parsetree, AlterFunctionStmt))
	{
		AlterFunctionStmt *stmt = (AlterFunctionStmt *) parsetree;

		func = LookupFuncWithArgs(stmt->objtype, stmt->func, true);
	}
	if (!OidIsValid(func))
		return NULL;
	view = view_computing_with(func);
	if (!OidIsValid(view))
		return NULL;
	tup = SearchSysCacheCopy1(PROCOID, ObjectIdGetDatum(func));
	if (!HeapTupleIsValid(tup))
		return NULL;
	change = palloc(sizeof(FunctionChange));
	change->func = func;
	change->view = view;
	change->before = tup;
	change->agg_before = SearchSysCacheCopy1(AGGFNOID, ObjectIdGetDatum(func));
	if (!HeapTupleIsValid(change->agg_before))
		change->agg_before = NULL;
	return change;
}

/* Whether a and b hold the same value of a column of type length typlen. */
static bool
same_value(Datum a, bool a_null, Datum b, bool b_null, int16 typlen, bool typbyval)
{
	if (a_null || b_null)
		return a_null == b_null;
	if (typlen == -1)
	{
		/* (compared detoasted: a long body may be stored compressed) */
		struct varlena *va = PG_DETOAST_DATUM_PACKED(a);
		struct varlena *vb = PG_DETOAST_DATUM_PACKED(b);

		return VARSIZE_ANY_EXHDR(va) == VARSIZE_ANY_EXHDR(vb) &&
			memcmp(VARDATA_ANY(va), VARDATA_ANY(vb), VARSIZE_ANY_EXHDR(va)) == 0;
	}
	return datumIsEqual(a, b, typbyval, typlen);
}

/*
 * The first column of catalog relid whose value differs between rows
 * before and after, other than those ignore_column says, or 0.
 */
static AttrNumber
changed_column(Oid relid, HeapTuple before, HeapTuple after,
			   bool (*ignore_column) (AttrNumber attnum))
{
	Relation	rel = table_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	AttrNumber	changed = 0;

	for (int i = 0; i < desc->natts && changed == 0; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		a_null;
		bool		b_null;
		Datum		a;
		Datum		b;

		if (ignore_column && ignore_column(att->attnum))
			continue;
		a = heap_getattr(before, att->attnum, desc, &a_null);
		b = heap_getattr(after, att->attnum, desc, &b_null);
		if (same_value(a, a_null, b, b_null, att->attlen, att->attbyval))
			continue;
		/* (a BEGIN ATOMIC body: the same tree, its token locations aside) */
		if (relid == ProcedureRelationId && att->attnum == Anum_pg_proc_prosqlbody &&
			!a_null && !b_null &&
			equal(stringToNode(TextDatumGetCString(a)), stringToNode(TextDatumGetCString(b))))
			continue;
		changed = att->attnum;
	}
	table_close(rel, AccessShareLock);
	return changed;
}

/*
 * What it costs, who owns it and may call it, what its parameters are
 * called, where the planner may run it: not what it computes.
 */
static bool
proc_column_ignored(AttrNumber attnum)
{
	return attnum == Anum_pg_proc_procost || attnum == Anum_pg_proc_prorows ||
		attnum == Anum_pg_proc_proowner || attnum == Anum_pg_proc_proacl ||
		attnum == Anum_pg_proc_proargnames ||
		attnum == Anum_pg_proc_proparallel || attnum == Anum_pg_proc_proleakproof;
}

void
HsFunctionChangeDone(void *state)
{
	FunctionChange *change = state;
	HeapTuple	after;
	HeapTuple	agg_after;
	ObjectAddress func_addr;
	ObjectAddress view_addr;
	bool		changed;

	if (change == NULL)
		return;
	after = SearchSysCacheCopy1(PROCOID, ObjectIdGetDatum(change->func));
	if (!HeapTupleIsValid(after))
		return;
	changed = changed_column(ProcedureRelationId, change->before, after,
							 proc_column_ignored) != 0;
	if (!changed && change->agg_before != NULL)
	{
		agg_after = SearchSysCacheCopy1(AGGFNOID, ObjectIdGetDatum(change->func));
		changed = !HeapTupleIsValid(agg_after) ||
			changed_column(AggregateRelationId, change->agg_before, agg_after, NULL) != 0;
	}
	if (!changed)
		return;
	ObjectAddressSet(func_addr, ProcedureRelationId, change->func);
	ObjectAddressSet(view_addr, RelationRelationId, change->view);
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot change %s because %s calls it",
					getObjectDescription(&func_addr, false),
					getObjectDescription(&view_addr, false)),
			 errdetail("A streaming materialized view retracts the rows it computed with the function's definition; it would retract values the changed function never produced."),
			 errhint("Drop the streaming materialized view, change the function, then create the view again.")));
}
