/*-------------------------------------------------------------------------
 *
 * plan_window.c
 *	  Planning window functions in a streaming view's select list (other
 *	  than the Top-N per group form, plan_top_n.c).
 *
 * A query level (without aggregation) whose select list calls window
 * functions becomes
 *
 *	(its FROM and WHERE) -> OverWindow(the calls)
 *		-> Project(the select list, each call replaced by its column)
 *
 * as set-returning functions do (plan_srf.c): the calls stand in the
 * select list as Vars of a range table entry that does not exist
 * (WINDOW_VARNO + k).  OverWindow (exec_over_window.c) partitions its
 * input by the PARTITION BY all the level's windows share, and computes
 * every touched partition again with Postgres's WindowAgg; the calls, the
 * windows' ORDER BY keys and frames are handed to it as expressions over
 * its input columns, shifted one column right (its relation's column 1 is
 * the partition).  Windows with different PARTITION BY lists make one
 * OverWindow each, stacked (window_level).  An OverWindow whose calls
 * each read a bounded number of rows around the current one, over
 * windows sharing one sortable ORDER BY, is ranged (window_ranges): it
 * computes again only the rows around each change.
 *
 * src/stream/plan/plan_window.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "hummock_stream/row/memcmp_key.h"

#include "plan_internal.h"

/* The varno of the Var standing for call k: no range table reaches it. */
#define WINDOW_VARNO 2000000

static bool
collect_calls_walker(Node *node, List **calls)
{
	if (node == NULL)
		return false;
	if (IsA(node, WindowFunc))
	{
		*calls = list_append_unique(*calls, node);
		return false;			/* (arguments cannot hold window calls) */
	}
	return expression_tree_walker(node, collect_calls_walker, calls);
}

static bool
shift_vars_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		((Var *) node)->varattno++;
		return false;
	}
	return expression_tree_walker(node, shift_vars_walker, arg);
}

/* e (of the query level) over from's columns, one column right. */
static Expr *
over_relation(Expr *e, RelOut *from)
{
	Expr	   *m = map_expr(e, from);

	(void) shift_vars_walker((Node *) m, NULL);
	return m;
}

/* The PARTITION BY expressions of window wc. */
static List *
partition_exprs(Query *q, WindowClause *wc)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, wc->partitionClause)
		out = lappend(out, get_sortgroupclause_expr(lfirst(lc), q->targetList));
	return out;
}

/* The window clause of call f. */
static WindowClause *
window_of(Query *q, WindowFunc *f)
{
	ListCell   *lw;

	foreach(lw, q->windowClause)
	{
		WindowClause *wc = lfirst(lw);

		if (wc->winref == f->winref)
			return wc;
	}
	elog(ERROR, "window function refers to window %u, which the query does not have",
		 f->winref);
	return NULL;				/* keep compiler quiet */
}

/* The number (1..n) of window wc in windows. */
static Index
window_number(List *windows, WindowClause *wc)
{
	ListCell   *lc;

	foreach(lc, windows)
	{
		if (lfirst(lc) == wc)
			return foreach_current_index(lc) + 1;
	}
	elog(ERROR, "window %u is not among the windows of this OverWindow", wc->winref);
	return 0;					/* keep compiler quiet */
}

/*
 * The rows call f (of window wc) reads around the current row: from
 * *s to *e positions from it (negative: before).  False if that is not
 * a bounded number of positions: only lag/lead by a constant and
 * aggregates, first_value, last_value and nth_value over a ROWS frame
 * with constant offsets (and no exclusion of peers) are bounded.
 */
static bool
call_reach(WindowFunc *f, WindowClause *wc, int64 *s, int64 *e)
{
	int			opts = wc->frameOptions;
	bool		lag = false;

	switch (f->winfnoid)
	{
		case F_LAG_ANYELEMENT:
		case F_LAG_ANYELEMENT_INT4:
		case F_LAG_ANYCOMPATIBLE_INT4_ANYCOMPATIBLE:
			lag = true;
			/* FALLTHROUGH */
		case F_LEAD_ANYELEMENT:
		case F_LEAD_ANYELEMENT_INT4:
		case F_LEAD_ANYCOMPATIBLE_INT4_ANYCOMPATIBLE:
			{
				int64		k = 1;

				if (list_length(f->args) >= 2)
				{
					Const	   *c = (Const *) eval_const_expressions(NULL, lsecond(f->args));

					if (!IsA(c, Const) || c->constisnull || c->consttype != INT4OID)
						return false;
					k = DatumGetInt32(c->constvalue);
				}
				if (lag)
					k = -k;
				*s = Min(k, 0);
				*e = Max(k, 0);
				return true;
			}
		case F_FIRST_VALUE:
		case F_LAST_VALUE:
		case F_NTH_VALUE:
			break;
		default:
			if (!f->winagg)
				return false;
			break;
	}
	/* a frame of rows at constant offsets */
	if (!(opts & FRAMEOPTION_ROWS) ||
		(opts & (FRAMEOPTION_EXCLUDE_GROUP | FRAMEOPTION_EXCLUDE_TIES)) ||
		(opts & (FRAMEOPTION_START_UNBOUNDED_PRECEDING | FRAMEOPTION_END_UNBOUNDED_FOLLOWING)))
		return false;
	if (opts & (FRAMEOPTION_START_OFFSET_PRECEDING | FRAMEOPTION_START_OFFSET_FOLLOWING))
	{
		Const	   *c = (Const *) eval_const_expressions(NULL, wc->startOffset);

		if (!c || !IsA(c, Const) || c->constisnull || c->consttype != INT8OID)
			return false;
		*s = DatumGetInt64(c->constvalue);
		if (opts & FRAMEOPTION_START_OFFSET_PRECEDING)
			*s = -*s;
	}
	else
		*s = 0;					/* CURRENT ROW */
	if (opts & (FRAMEOPTION_END_OFFSET_PRECEDING | FRAMEOPTION_END_OFFSET_FOLLOWING))
	{
		Const	   *c = (Const *) eval_const_expressions(NULL, wc->endOffset);

		if (!c || !IsA(c, Const) || c->constisnull || c->consttype != INT8OID)
			return false;
		*e = DatumGetInt64(c->constvalue);
		if (opts & FRAMEOPTION_END_OFFSET_PRECEDING)
			*e = -*e;
	}
	else
		*e = 0;					/* CURRENT ROW */
	return true;
}

/* A RANGE frame's offset, a constant: false if it is not. */
static bool
range_offset(Node *offset, Datum *value, int16 *len, bool *byval)
{
	Const	   *c = (Const *) eval_const_expressions(NULL, offset);

	if (!c || !IsA(c, Const) || c->constisnull)
		return false;
	*value = c->constvalue;
	*len = c->constlen;
	*byval = c->constbyval;
	return true;
}

/*
 * Whether call f (of window wc) is an aggregate (or first_value,
 * last_value, nth_value) over a RANGE frame bounded on both sides by
 * constant offsets or CURRENT ROW: the rows it reads lie within a range
 * of ORDER BY values around the current row's (HsWindowValueFrame).
 */
static bool
call_value_frame(WindowFunc *f, WindowClause *wc, HsWindowValueFrame *vf)
{
	int			opts = wc->frameOptions;

	memset(vf, 0, sizeof(*vf));
	if (!(opts & FRAMEOPTION_RANGE) ||
		(opts & (FRAMEOPTION_START_UNBOUNDED_PRECEDING | FRAMEOPTION_END_UNBOUNDED_FOLLOWING)))
		return false;
	if (!f->winagg && f->winfnoid != F_FIRST_VALUE && f->winfnoid != F_LAST_VALUE &&
		f->winfnoid != F_NTH_VALUE)
		return false;
	vf->start = (opts & FRAMEOPTION_START_OFFSET_PRECEDING) ? HS_BOUND_PRECEDING :
		(opts & FRAMEOPTION_START_OFFSET_FOLLOWING) ? HS_BOUND_FOLLOWING : HS_BOUND_CURRENT;
	vf->end = (opts & FRAMEOPTION_END_OFFSET_PRECEDING) ? HS_BOUND_PRECEDING :
		(opts & FRAMEOPTION_END_OFFSET_FOLLOWING) ? HS_BOUND_FOLLOWING : HS_BOUND_CURRENT;
	if (vf->start != HS_BOUND_CURRENT &&
		!range_offset(wc->startOffset, &vf->start_offset, &vf->offset_len[0],
					  &vf->offset_byval[0]))
		return false;
	if (vf->end != HS_BOUND_CURRENT &&
		!range_offset(wc->endOffset, &vf->end_offset, &vf->offset_len[1],
					  &vf->offset_byval[1]))
		return false;
	vf->start_fn = wc->startInRangeFunc;
	vf->end_fn = wc->endInRangeFunc;
	vf->collation = wc->inRangeColl;
	vf->asc = wc->inRangeAsc;
	return true;
}

/*
 * Whether call f (of window wc) computes a function of the rows from the
 * partition's start to the current row (its peers too, but for a ROWS
 * frame) whose result over rows P R follows from its results over P and
 * over R alone (HsWindowPrefix): row_number, rank, dense_rank, and count,
 * sum (of exact types) and min/max-like aggregates (an aggsortop) over a
 * frame from UNBOUNDED PRECEDING to CURRENT ROW without exclusions.
 */
static bool
call_prefix(WindowFunc *f, WindowClause *wc, HsWindowPrefix *p)
{
	int			opts = wc->frameOptions;
	HeapTuple	tup;

	memset(p, 0, sizeof(*p));
	switch (f->winfnoid)
	{
		case F_ROW_NUMBER:
			p->kind = HS_PREFIX_ROW_NUMBER;
			p->rows_frame = true;	/* (numbers tied rows apart) */
			return true;
		case F_RANK_:
			p->kind = HS_PREFIX_RANK;
			return true;
		case F_DENSE_RANK_:
			p->kind = HS_PREFIX_DENSE_RANK;
			return true;
		default:
			break;
	}
	if (!f->winagg ||
		!(opts & FRAMEOPTION_START_UNBOUNDED_PRECEDING) ||
		!(opts & FRAMEOPTION_END_CURRENT_ROW) ||
		(opts & FRAMEOPTION_EXCLUSION))
		return false;
	p->rows_frame = (opts & FRAMEOPTION_ROWS) != 0;
	switch (f->winfnoid)
	{
		case F_COUNT_:
		case F_COUNT_ANY:
			p->kind = HS_PREFIX_COUNT;
			return true;
		case F_SUM_INT2:
		case F_SUM_INT4:
			p->kind = HS_PREFIX_SUM;
			p->fn = F_INT8PL;
			return true;
		case F_SUM_INT8:
		case F_SUM_NUMERIC:
			p->kind = HS_PREFIX_SUM;
			p->fn = F_NUMERIC_ADD;
			return true;
		case F_SUM_INTERVAL:
			p->kind = HS_PREFIX_SUM;
			p->fn = F_INTERVAL_PL;
			return true;
		case F_SUM_MONEY:
			p->kind = HS_PREFIX_SUM;
			p->fn = F_CASH_PL;
			return true;
		default:
			break;
	}
	/* min, max, bool_and, ...: the first of the values by a sort operator */
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(f->winfnoid));
	if (HeapTupleIsValid(tup))
	{
		Form_pg_aggregate agg = (Form_pg_aggregate) GETSTRUCT(tup);

		if (OidIsValid(agg->aggsortop) && agg->aggkind == AGGKIND_NORMAL &&
			list_length(f->args) == 1)
		{
			p->kind = HS_PREFIX_EXTREME;
			p->fn = get_opcode(agg->aggsortop);
			p->collation = f->inputcollid;
		}
		ReleaseSysCache(tup);
	}
	return p->kind != HS_PREFIX_NONE;
}

/*
 * Whether calls (of windows, partitioned alike) can be computed again
 * around each change only (exec_over_window.c, ranged): all windows
 * order by the same keys, each of which has an order-preserving sort-key
 * encoding, and every call reads a bounded number of rows around the
 * current one (call_reach).  Then the ORDER BY over from's columns and
 * how far the calls read; else NULL.
 */
static HsWindowRanges *
window_ranges(Query *q, RelOut *from, List *windows, List *calls)
{
	WindowClause *first = linitial(windows);
	HsWindowRanges *r;
	HsWindowPrefix *prefix;
	HsWindowValueFrame *value_frames;
	bool	   *peers;
	bool		to_end = false;
	bool		by_value = false;
	int64		smin = 0;
	int64		emax = 0;
	ListCell   *lc;
	int			n = list_length(first->orderClause);

	if (n == 0)
		return NULL;
	foreach(lc, windows)
	{
		WindowClause *wc = lfirst(lc);
		ListCell   *a;
		ListCell   *b;

		if (list_length(wc->orderClause) != n)
			return NULL;
		forboth(a, wc->orderClause, b, first->orderClause)
		{
			SortGroupClause *x = lfirst(a);
			SortGroupClause *y = lfirst(b);

			if (x->sortop != y->sortop || x->nulls_first != y->nulls_first ||
				!equal(get_sortgroupclause_expr(x, q->targetList),
					   get_sortgroupclause_expr(y, q->targetList)))
				return NULL;
		}
		/* (GROUPS offsets count peer groups: not ranged) */
		if ((wc->frameOptions & FRAMEOPTION_GROUPS) &&
			(wc->frameOptions & (FRAMEOPTION_START_OFFSET | FRAMEOPTION_END_OFFSET)))
			return NULL;
	}
	prefix = palloc0(sizeof(HsWindowPrefix) * list_length(calls));
	value_frames = palloc0(sizeof(HsWindowValueFrame) * list_length(calls));
	peers = palloc0(sizeof(bool) * list_length(calls));
	foreach(lc, calls)
	{
		WindowFunc *f = lfirst(lc);
		WindowClause *wc = window_of(q, f);
		int			i = foreach_current_index(lc);
		int64		s;
		int64		e;

		if (call_reach(f, wc, &s, &e))
		{
			smin = Min(smin, s);
			emax = Max(emax, e);
		}
		else if (call_value_frame(f, wc, &value_frames[i]))
			by_value = peers[i] = true;
		else if (call_prefix(f, wc, &prefix[i]))
		{
			to_end = true;
			peers[i] = !prefix[i].rows_frame;
		}
		else
			return NULL;
	}

	r = palloc0(sizeof(HsWindowRanges));
	r->prefix = to_end ? prefix : NULL;
	r->value_frames = by_value ? value_frames : NULL;
	r->shares_peers = peers;
	r->nkeys = n;
	r->desc = palloc(sizeof(bool) * n);
	r->nulls_first = palloc(sizeof(bool) * n);
	r->colls = palloc(sizeof(Oid) * n);
	foreach(lc, first->orderClause)
	{
		SortGroupClause *sgc = lfirst(lc);
		int			i = foreach_current_index(lc);
		Expr	   *x = (Expr *) get_sortgroupclause_expr(sgc, q->targetList);
		Oid			type = exprType((Node *) x);
		Oid			coll = exprCollation((Node *) x);
		TypeCacheEntry *tc = lookup_type_cache(getBaseType(type), TYPECACHE_BTREE_OPFAMILY);
		Oid			opfamily;
		Oid			opcintype;
		int16		strategy;

		if (!get_ordering_op_properties(sgc->sortop, &opfamily, &opcintype, &strategy) ||
			opfamily != tc->btree_opf || (HsMemcmpTypeSupport(type) != HS_MEMCMP_ORDERED && !HsTypeHasOwnSortKey(type)))
			return NULL;
		r->colls[i] = InvalidOid;
		if (OidIsValid(coll) && !HsCollationIsBytewise(coll))
		{
			if (!HsCollationNeedsSortKey(type, coll) || !get_collation_isdeterministic(coll))
				return NULL;
			r->colls[i] = coll;
		}
		r->desc[i] = strategy == BTGreaterStrategyNumber;
		r->nulls_first[i] = sgc->nulls_first;
		r->key_exprs = lappend(r->key_exprs, map_expr(x, from));
	}
	r->before = emax;
	r->after = -smin;
	return r;
}

/*
 * One OverWindow over from computing calls (all of windows partitioned by
 * parts); their Vars (WINDOW_VARNO + first_call + i) are appended to
 * *call_vars.
 */
static RelOut *
over_window(PlanCtx *ctx, Query *q, RelOut *from, List *calls, List *parts,
			int first_call, List **call_vars)
{
	List	   *windows = NIL;
	List	   *funcs = NIL;
	List	   *order_exprs = NIL;
	List	   *new_windows = NIL;
	List	   *part_mapped = NIL;
	List	   *my_vars = NIL;
	ListCell   *lc;
	HsExec	   *e;
	HsStateTable *rows;
	HsStateTable *shown;
	HsWindowRanges *ranges;
	RelOut	   *out;
	int			k = first_call;
	const char *mark = "";		/* of a partition key hashed */

	foreach(lc, calls)
		windows = list_append_unique_ptr(windows, window_of(q, lfirst(lc)));
	foreach(lc, parts)
	{
		Node	   *p = lfirst(lc);

		/* (a type whose equal values differ in bytes: partitioned by its hash) */
		if (key_needs_hash(exprType(p), exprCollation(p), "PARTITION BY type", NULL))
		{
			p = (Node *) hashed_group_key((Expr *) p);
			mark = HASHED_KEYS_ROLE_MARK;
		}
		part_mapped = lappend(part_mapped, map_expr((Expr *) p, from));
	}

	/* each window's ORDER BY, frame offsets and the calls, over the relation */
	foreach(lc, windows)
	{
		WindowClause *wc = copyObject(lfirst(lc));
		ListCell   *ls;

		foreach(ls, wc->orderClause)
		{
			SortGroupClause *sgc = lfirst(ls);
			Expr	   *x = over_relation((Expr *) get_sortgroupclause_expr(sgc, q->targetList),
										  from);
			ListCell   *lo;
			int			ref = 0;
			int			i = 0;

			foreach(lo, order_exprs)
			{
				i++;
				if (equal(lfirst(lo), x))
					ref = i;
			}
			if (ref == 0)
			{
				order_exprs = lappend(order_exprs, x);
				ref = list_length(order_exprs);
			}
			sgc->tleSortGroupRef = ref;
		}
		wc->partitionClause = NIL;
		/* Postgres numbers a query's windows 1..n: the calls follow below */
		wc->winref = list_length(new_windows) + 1;
		if (wc->startOffset)
			wc->startOffset = (Node *) over_relation((Expr *) wc->startOffset, from);
		if (wc->endOffset)
			wc->endOffset = (Node *) over_relation((Expr *) wc->endOffset, from);
		new_windows = lappend(new_windows, wc);
	}
	foreach(lc, calls)
	{
		WindowFunc *f = copyObject(lfirst(lc));
		ListCell   *la;

		f->winref = window_number(windows, window_of(q, lfirst(lc)));
		foreach(la, f->args)
			lfirst(la) = over_relation(lfirst(la), from);
		if (f->aggfilter)
			f->aggfilter = over_relation(f->aggfilter, from);
		funcs = lappend(funcs, f);
		my_vars = lappend(my_vars, makeVar(WINDOW_VARNO + k, 1, f->wintype, -1, f->wincollid, 0));
		k++;
	}

	check_kept_rows(from->desc, "window");
	ranges = window_ranges(q, from, windows, calls);
	/* (a view created before ranged windows keeps its state as it was) */
	if (next_state_recorded_as(ctx, "OverWindow rows"))
		ranges = NULL;
	if (ranges)
	{
		HsStateTable *rows_rev;
		const char *by_value = ranges->value_frames ? ", and rows RANGE frames reach" : "";

		rows = next_state(ctx, psprintf("OverWindow rows in order%s", mark));
		rows_rev = next_state(ctx, "OverWindow rows in reverse order");
		shown = next_state(ctx, "OverWindow shown rows in order");

		if (ranges->prefix)
			note_operator(ctx, "OverWindow (%d function%s, %d partition column%s, rows from %lld before a change to the partition's end%s)",
						  list_length(calls), list_length(calls) == 1 ? "" : "s",
						  list_length(parts), list_length(parts) == 1 ? "" : "s",
						  (long long) ranges->before, by_value);
		else
			note_operator(ctx, "OverWindow (%d function%s, %d partition column%s, rows within %lld before and %lld after a change%s)",
						  list_length(calls), list_length(calls) == 1 ? "" : "s",
						  list_length(parts), list_length(parts) == 1 ? "" : "s",
						  (long long) ranges->before, (long long) ranges->after, by_value);
		e = HsExecOverWindowRangedCreate(from->desc, part_mapped, funcs, new_windows,
										 order_exprs, ranges, rows, rows_rev, shown);
	}
	else
	{
		rows = next_state(ctx, psprintf("OverWindow rows%s", mark));
		shown = next_state(ctx, "OverWindow shown rows");
		note_operator(ctx, "OverWindow (%d function%s, %d partition column%s)",
					  list_length(calls), list_length(calls) == 1 ? "" : "s",
					  list_length(parts), list_length(parts) == 1 ? "" : "s");
		e = HsExecOverWindowCreate(from->desc, part_mapped, funcs, new_windows, order_exprs,
								   rows, shown);
	}
	check_kept_rows(e->out_desc, "window");
	attach(from, e);
	out = relout_of(e, list_concat_copy(from->vars, my_vars));
	out->nvisible = from->desc->natts;
	out->has_ukey = from->has_ukey;
	out->ukey = from->ukey;
	*call_vars = list_concat(*call_vars, my_vars);
	return out;
}

/*
 * The level's window calls: one OverWindow per distinct PARTITION BY list
 * (in the order the calls name them), each over the rows of the one
 * before with its results as more columns, as Postgres stacks WindowAggs.
 * A change the first one makes to a row's results reaches the next as the
 * row's delete and insert, so each computes again only the partitions of
 * its own that the epoch touched.
 */
RelOut *
window_level(PlanCtx *ctx, Query *q, RelOut *from, List **targets)
{
	List	   *calls = NIL;
	List	   *ordered = NIL;	/* the calls, grouped by PARTITION BY */
	List	   *call_vars = NIL;	/* the Var standing for each call there */
	List	   *groups = NIL;	/* per group: its PARTITION BY expressions */
	List	   *group_calls = NIL;	/* per group: List of its calls */
	ListCell   *lc;
	ListCell   *lg;
	ListCell   *lp;
	RelOut	   *out = from;
	int			first = 0;

	foreach(lc, *targets)
		(void) collect_calls_walker(lfirst(lc), &calls);
	if (calls == NIL)
		return from;

	foreach(lc, calls)
	{
		WindowFunc *f = lfirst(lc);
		List	   *parts = partition_exprs(q, window_of(q, f));
		bool		placed = false;

		forboth(lp, groups, lg, group_calls)
		{
			if (equal(lfirst(lp), parts))
			{
				lfirst(lg) = lappend(lfirst(lg), f);
				placed = true;
				break;
			}
		}
		if (!placed)
		{
			groups = lappend(groups, parts);
			group_calls = lappend(group_calls, list_make1(f));
		}
	}
	forboth(lp, groups, lg, group_calls)
	{
		out = over_window(ctx, q, out, lfirst(lg), lfirst(lp), first, &call_vars);
		first += list_length(lfirst(lg));
		ordered = list_concat(ordered, lfirst(lg));
	}
	/* (out->nvisible: the columns before the first OverWindow's) */
	out->nvisible = from->desc->natts;
	foreach(lc, *targets)
		lfirst(lc) = replace_calls(lfirst(lc), ordered, call_vars);
	return out;
}
