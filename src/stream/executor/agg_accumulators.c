/*-------------------------------------------------------------------------
 *
 * agg_accumulators.c
 *	  The retractable accumulators of the streaming hash aggregation: how
 *	  each call of a group takes inputs in and back out, what it shows, and
 *	  its columns in the group's state row.
 *
 * Every call of a group keeps accumulators that can take rows back out:
 *
 *	count(*)	the group's row count (kept for every group: a group exists
 *				while it has rows; exec_hash_agg.c)
 *	count(x)	non-NULL inputs
 *	sum(x)		running sum in the type Postgres's sum returns (int2/int4
 *				-> bigint, int8 -> numeric, ...), added and subtracted with
 *				Postgres's own operators, plus the non-NULL count (no
 *				inputs -> NULL).  Special values never enter the running
 *				sum, where a retraction could not take them out again
 *				(Inf - Inf is NaN): numeric and float inputs that are NaN,
 *				+Infinity or -Infinity are only counted, and the result is
 *				NaN while any NaN (or both infinities) remain, the infinity
 *				while only it remains, else the finite sum.  Numeric inputs
 *				are also counted per display scale (Postgres shows the
 *				largest), float inputs that are -0 too (a float sum of
 *				nothing but -0 is -0).  sum(int2/int4) wraps around as
 *				Postgres's int4_sum does instead of failing on an
 *				intermediate state.
 *	avg(x)		sum and count; the final division is Postgres's
 *	bool_and/or	count of true inputs and of non-NULL inputs
 *	min/max(x)	the current extreme (its value counts are the ordered
 *				state, agg_ordered_state.c)
 *	moving		(MOVING: an aggregate with moving-aggregate support) its
 *				moving transition state and how many rows it includes
 *				(agg_moving.c)
 *	any other	(RECOMPUTE) the value Postgres computed for the group at its
 *				last change, from the group's kept rows (agg_recompute.c)
 *
 * DISTINCT calls (count, sum and avg) feed these accumulators only when a
 * value's count goes 0 -> 1 or 1 -> 0 (agg_ordered_state.c).
 *
 * Finite sums of float4/float8 are kept exactly (exact_float_sum.h, as a
 * bytea in the state row) and rounded once when shown: deletes leave no
 * trace, and the sum is the correctly rounded sum of the values the group
 * holds (Postgres's rounds after every row, so the two may differ in the
 * last bits, as Postgres's own sums over two orders of the same rows do).
 * Views planned before keep a float running sum, added to and subtracted
 * from (their groups' state role says: plan_agg.c), which drifts after
 * deletes.
 *
 * State-row columns (persisted; the state row is the group's key columns
 * and row count, then these per call, exec_hash_agg.c): non-NULL count
 * (int8), sum (sum type, bytea for an exact float sum; NULL when unused or
 * when no finite input remains), current min/max value (argument type), recomputed value
 * (the call's result type) or moving state (its resolved moving state
 * type; NULL when unused), true
 * count (int8), and the special-value counts of sum/avg (int8[] of
 * (class, count) pairs with non-zero counts, NULL when empty): for numeric
 * a class >= 0 is a display scale, and for numeric and float -1 counts
 * NaN, -2 +Infinity, -3 -Infinity, -4 (float only) -0.  States written
 * before float calls kept counts have NULL there, which reads as no
 * special values (a float sum stored then that holds NaN or an infinity
 * keeps it until the view is created again).
 *
 * src/stream/executor/agg_accumulators.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "hummock_stream/row/exact_float_sum.h"
#include "hummock_stream/row/memcmp_key.h"

#include "agg_internal.h"

/* Pseudo scales counting the special numeric and float inputs (stored). */
#define SCALE_NAN	(-1)
#define SCALE_PINF	(-2)
#define SCALE_NINF	(-3)
#define SCALE_NZERO (-4)		/* float -0 */
#define SCALE_FINITE (-100)		/* float: a finite value other than -0 (not stored) */

/* ---------------------------------------------------------------------
 * Sum types
 * ---------------------------------------------------------------------
 */

static Datum
int2_to_int8(PG_FUNCTION_ARGS)
{
	return Int64GetDatum((int64) PG_GETARG_INT16(0));
}

static Datum
int4_to_int8(PG_FUNCTION_ARGS)
{
	return Int64GetDatum((int64) PG_GETARG_INT32(0));
}

/*
 * bigint addition and subtraction that wrap around, as Postgres's int2_sum
 * and int4_sum add (they do not check for overflow): the sum is then exact
 * modulo 2^64 whatever the order of the changes, so it is what Postgres
 * returns, and no intermediate state can fail where Postgres's would not.
 */
static Datum
int8_wrap_pl(PG_FUNCTION_ARGS)
{
	return Int64GetDatum((int64) ((uint64) PG_GETARG_INT64(0) + (uint64) PG_GETARG_INT64(1)));
}

static Datum
int8_wrap_mi(PG_FUNCTION_ARGS)
{
	return Int64GetDatum((int64) ((uint64) PG_GETARG_INT64(0) - (uint64) PG_GETARG_INT64(1)));
}

static Datum
float4_to_float8(PG_FUNCTION_ARGS)
{
	return Float8GetDatum((float8) PG_GETARG_FLOAT4(0));
}

/* The sum type and functions of sum/avg(argtype); false: unsupported. */
static bool
sum_ops_choose(HsAggKind kind, Oid argtype, bool exact_float, AggSumOps *ops)
{
	if (exact_float && (argtype == FLOAT4OID || argtype == FLOAT8OID))
	{
		/* (added and taken out by AggAccAddSum itself) */
		ops->float_input = true;
		ops->exact_float = true;
		ops->sumtype = BYTEAOID;
		return true;
	}
	switch (argtype)
	{
		case INT2OID:
		case INT4OID:
			if (kind == HS_AGG_AVG)
			{
				ops->sumtype = NUMERICOID;
				ops->conv = argtype == INT2OID ? int2_numeric : int4_numeric;
				ops->add = numeric_add;
				ops->sub = numeric_sub;
			}
			else
			{
				ops->sumtype = INT8OID;
				ops->conv = argtype == INT2OID ? int2_to_int8 : int4_to_int8;
				ops->add = int8_wrap_pl;
				ops->sub = int8_wrap_mi;
			}
			return true;
		case INT8OID:
			ops->sumtype = NUMERICOID;
			ops->conv = int8_numeric;
			ops->add = numeric_add;
			ops->sub = numeric_sub;
			return true;
		case NUMERICOID:
			ops->sumtype = NUMERICOID;
			ops->numeric_input = true;
			ops->add = numeric_add;
			ops->sub = numeric_sub;
			return true;
		case FLOAT4OID:
			ops->float_input = true;
			if (kind == HS_AGG_AVG)
			{
				ops->sumtype = FLOAT8OID;
				ops->conv = float4_to_float8;
				ops->add = float8pl;
				ops->sub = float8mi;
			}
			else
			{
				ops->sumtype = FLOAT4OID;
				ops->add = float4pl;
				ops->sub = float4mi;
			}
			return true;
		case FLOAT8OID:
			ops->float_input = true;
			ops->sumtype = FLOAT8OID;
			ops->add = float8pl;
			ops->sub = float8mi;
			return true;
		case INTERVALOID:
			ops->sumtype = INTERVALOID;
			ops->add = interval_pl;
			ops->sub = interval_mi;
			return true;
		case CASHOID:
			if (kind == HS_AGG_AVG)
				return false;
			ops->sumtype = CASHOID;
			ops->add = cash_pl;
			ops->sub = cash_mi;
			return true;
	}
	return false;
}

bool
AggSumOpsFor(HsAggKind kind, Oid argtype, bool exact_float, AggSumOps *ops)
{
	memset(ops, 0, sizeof(*ops));
	if (!sum_ops_choose(kind, argtype, exact_float, ops))
		return false;
	/* looked up once: a per-row syscache lookup was a good part of a sum's cost */
	get_typlenbyval(ops->sumtype, &ops->sumlen, &ops->sumbyval);
	return true;
}

bool
HsAggSupported(HsAggKind kind, Oid argtype)
{
	AggSumOps	ops;

	switch (kind)
	{
		case HS_AGG_SUM:
		case HS_AGG_AVG:
			return AggSumOpsFor(kind, argtype, true, &ops);
		case HS_AGG_MIN:
		case HS_AGG_MAX:
			return HsMemcmpTypeSupport(argtype) == HS_MEMCMP_ORDERED;
		default:
			return true;
	}
}

/* The final value of avg from its sum and count. */
static Datum
avg_final(Oid sumtype, Datum sum, int64 count)
{
	switch (sumtype)
	{
		case NUMERICOID:
			return DirectFunctionCall2(numeric_div, sum,
									   NumericGetDatum(int64_to_numeric(count)));
		case FLOAT8OID:
			return Float8GetDatum(DatumGetFloat8(sum) / (float8) count);
		case INTERVALOID:
			return DirectFunctionCall2(interval_div, sum, Float8GetDatum((float8) count));
	}
	elog(ERROR, "unexpected avg accumulator type %u", sumtype);
	return (Datum) 0;
}

/*
 * Numeric inputs: Postgres's sum and avg of numeric show the largest
 * display scale among the inputs, and count NaN and infinities apart from
 * the sum.  Keeping a count per scale makes both retractable.
 */
static int32
numeric_input_scale(Datum v)
{
	Numeric		n = DatumGetNumeric(v);

	if (numeric_is_nan(n))
		return SCALE_NAN;
	if (numeric_is_inf(n))
		return DatumGetBool(DirectFunctionCall2(numeric_gt, v,
												NumericGetDatum(int64_to_numeric(0)))) ?
			SCALE_PINF : SCALE_NINF;
	return DatumGetInt32(DirectFunctionCall1(numeric_scale, v));
}

static int64
scale_count(const AggAcc *acc, int32 scale)
{
	for (int i = 0; i < acc->n_scales; i++)
		if (acc->scales[i] == scale)
			return acc->scale_counts[i];
	return 0;
}

/* Count delta more inputs of class scale; the arrays live in group_cxt. */
static void
scale_add(AggAcc *acc, int32 scale, int64 delta, MemoryContext group_cxt)
{
	int			i;

	for (i = 0; i < acc->n_scales; i++)
		if (acc->scales[i] == scale)
			break;
	if (i == acc->n_scales)
	{
		MemoryContext old = MemoryContextSwitchTo(group_cxt);

		if (acc->n_scales == 0)
		{
			acc->scales = palloc(sizeof(int32) * 4);
			acc->scale_counts = palloc(sizeof(int64) * 4);
		}
		else if ((acc->n_scales & (acc->n_scales - 1)) == 0 && acc->n_scales >= 4)
		{
			acc->scales = repalloc(acc->scales, sizeof(int32) * acc->n_scales * 2);
			acc->scale_counts = repalloc(acc->scale_counts, sizeof(int64) * acc->n_scales * 2);
		}
		MemoryContextSwitchTo(old);
		acc->scales[i] = scale;
		acc->scale_counts[i] = 0;
		acc->n_scales++;
	}
	acc->scale_counts[i] += delta;
	if (acc->scale_counts[i] == 0)
	{
		acc->n_scales--;
		acc->scales[i] = acc->scales[acc->n_scales];
		acc->scale_counts[i] = acc->scale_counts[acc->n_scales];
	}
}

/* The sum of a numeric call as Postgres shows it. */
static Datum
numeric_sum_final(const AggAcc *acc)
{
	int64		nan = scale_count(acc, SCALE_NAN);
	int64		pinf = scale_count(acc, SCALE_PINF);
	int64		ninf = scale_count(acc, SCALE_NINF);
	int32		max_scale = 0;

	if (nan > 0 || (pinf > 0 && ninf > 0))
		return DirectFunctionCall3(numeric_in, CStringGetDatum("NaN"),
								   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	if (pinf > 0 || ninf > 0)
		return DirectFunctionCall3(numeric_in, CStringGetDatum(pinf ? "Infinity" : "-Infinity"),
								   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	for (int i = 0; i < acc->n_scales; i++)
		max_scale = Max(max_scale, acc->scales[i]);
	return DirectFunctionCall2(numeric_round,
							   acc->sum_null ? NumericGetDatum(int64_to_numeric(0)) : acc->sum,
							   Int32GetDatum(max_scale));
}

/*
 * The class of a float input: SCALE_NAN, SCALE_PINF, SCALE_NINF (counted
 * and kept out of the running sum), SCALE_NZERO (counted and summed) or
 * SCALE_FINITE (only summed).
 */
static int32
float_input_class(Datum v, Oid argtype)
{
	float8		f = argtype == FLOAT4OID ? (float8) DatumGetFloat4(v) : DatumGetFloat8(v);

	if (isnan(f))
		return SCALE_NAN;
	if (isinf(f))
		return f > 0 ? SCALE_PINF : SCALE_NINF;
	if (f == 0 && signbit(f))
		return SCALE_NZERO;
	return SCALE_FINITE;
}

/* Inputs of a sum or avg call that are in its running sum. */
static int64
finite_count(const AggAcc *acc)
{
	return acc->count - scale_count(acc, SCALE_NAN) - scale_count(acc, SCALE_PINF) -
		scale_count(acc, SCALE_NINF);
}

/* An exact float sum's encoding (a bytea) into s. */
static void
exact_sum_decode(Datum sum, HsExactFloatSum *s)
{
	bytea	   *b = DatumGetByteaPP(sum);

	if (!HsExactFloatSumDecode(s, (const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid exact float sum in a streaming aggregation's state")));
}

/* s encoded as a bytea, in the current memory context. */
static Datum
exact_sum_encode(HsExactFloatSum *s)
{
	uint8		buf[HS_EXACT_SUM_MAX_ENCODED];
	size_t		len = HsExactFloatSumEncode(s, buf);
	bytea	   *b = palloc(VARHDRSZ + len);

	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), buf, len);
	return PointerGetDatum(b);
}

/*
 * The value of an exact float sum, rounded once; beyond the float range it
 * is the error Postgres's float addition raises there.
 */
static float8
exact_sum_value(Datum sum)
{
	HsExactFloatSum s;
	float8		v;

	exact_sum_decode(sum, &s);
	if (!HsExactFloatSumValue(&s, &v))
		float_overflow_error();
	return v;
}

/*
 * The sum of a float call with inputs (as float8), as Postgres's float4pl
 * or float8pl over the same inputs gives it: NaN if a NaN or both
 * infinities are among them, an infinity if only it is, -0 if every input
 * is -0 (IEEE addition gives -0 only for -0 + -0), else the finite sum (a
 * zero sum of other inputs is +0).  for_avg: avg's accumulator starts at
 * +0 (float8_accum), so its sum is never -0.
 */
static float8
float_sum_final(const AggAcc *acc, Oid sumtype, bool for_avg)
{
	int64		nan = scale_count(acc, SCALE_NAN);
	int64		pinf = scale_count(acc, SCALE_PINF);
	int64		ninf = scale_count(acc, SCALE_NINF);
	float8		sum;

	if (nan > 0 || (pinf > 0 && ninf > 0))
		return get_float8_nan();
	if (pinf > 0)
		return get_float8_infinity();
	if (ninf > 0)
		return -get_float8_infinity();
	if (!for_avg && finite_count(acc) == scale_count(acc, SCALE_NZERO))
		return -0.0;
	if (acc->sum_null)
		return 0.0;
	if (sumtype == BYTEAOID)
		sum = exact_sum_value(acc->sum);
	else
		sum = sumtype == FLOAT4OID ? (float8) DatumGetFloat4(acc->sum) : DatumGetFloat8(acc->sum);
	return sum == 0 ? 0.0 : sum;
}

/* The scale histogram as an int8[] of (scale, count) pairs, or NULL. */
static Datum
scales_to_array(const AggAcc *acc, bool *isnull)
{
	Datum	   *d;
	ArrayType  *arr;

	*isnull = acc->n_scales == 0;
	if (*isnull)
		return (Datum) 0;
	d = palloc(sizeof(Datum) * acc->n_scales * 2);
	for (int i = 0; i < acc->n_scales; i++)
	{
		d[2 * i] = Int64GetDatum(acc->scales[i]);
		d[2 * i + 1] = Int64GetDatum(acc->scale_counts[i]);
	}
	arr = construct_array(d, acc->n_scales * 2, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
	pfree(d);
	return PointerGetDatum(arr);
}

static void
scales_from_array(AggAcc *acc, Datum v, MemoryContext group_cxt)
{
	Datum	   *d;
	int			n;

	deconstruct_array(DatumGetArrayTypeP(v), INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &d, NULL, &n);
	for (int i = 0; i + 1 < n; i += 2)
		scale_add(acc, (int32) DatumGetInt64(d[i]), DatumGetInt64(d[i + 1]), group_cxt);
}

/* ---------------------------------------------------------------------
 * Accumulating
 * ---------------------------------------------------------------------
 */

void
AggAccInit(AggAcc *acc)
{
	memset(acc, 0, sizeof(*acc));
	acc->sum_null = true;
	acc->val_null = true;
}

void
AggAccAddSum(AggAcc *acc, const AggSumOps *ops, Oid argtype, Datum v, int sign,
			 MemoryContext group_cxt)
{
	Datum		x;
	Datum		s;
	MemoryContext old;

	if (ops->numeric_input || ops->float_input)
	{
		int32		cls = ops->numeric_input ? numeric_input_scale(v) :
			float_input_class(v, argtype);

		if (cls != SCALE_FINITE)
			scale_add(acc, cls, sign, group_cxt);
		if (cls == SCALE_NAN || cls == SCALE_PINF || cls == SCALE_NINF)
			return;				/* only counted */
	}
	if (ops->exact_float)
	{
		HsExactFloatSum es;

		if (acc->sum_null)
			HsExactFloatSumInit(&es);
		else
			exact_sum_decode(acc->sum, &es);
		HsExactFloatSumAdd(&es, argtype == FLOAT4OID ? (float8) DatumGetFloat4(v) :
						   DatumGetFloat8(v), sign);
		old = MemoryContextSwitchTo(group_cxt);
		if (!acc->sum_null)
			pfree(DatumGetPointer(acc->sum));
		acc->sum = exact_sum_encode(&es);
		acc->sum_null = false;
		MemoryContextSwitchTo(old);
		if (finite_count(acc) == 0)
			acc->sum_null = true;
		return;
	}
	x = ops->conv ? DirectFunctionCall1(ops->conv, v) : v;

	if (acc->sum_null)
		s = sign > 0 ? x :
			DirectFunctionCall2(ops->sub, DirectFunctionCall2(ops->sub, x, x), x);
	else
		s = DirectFunctionCall2(sign > 0 ? ops->add : ops->sub, acc->sum, x);
	old = MemoryContextSwitchTo(group_cxt);
	if (!acc->sum_null && !ops->sumbyval)
		pfree(DatumGetPointer(acc->sum));
	acc->sum = datumCopy(s, ops->sumbyval, ops->sumlen);
	acc->sum_null = false;
	MemoryContextSwitchTo(old);
	if (finite_count(acc) == 0)
		acc->sum_null = true;	/* start afresh: no drift */
}

Datum
AggAccResult(const HsAggCall *call, const AggSumOps *ops, const AggAcc *acc,
			 int64 rows, bool *isnull)
{
	bool		none = acc->count == 0;

	*isnull = false;
	switch (call->kind)
	{
		case HS_AGG_COUNT_STAR:
			return Int64GetDatum(rows);
		case HS_AGG_COUNT:
			return Int64GetDatum(acc->count);
		case HS_AGG_SUM:
			if (ops->numeric_input)
			{
				*isnull = none;
				return none ? (Datum) 0 : numeric_sum_final(acc);
			}
			if (ops->float_input)
			{
				float8		f;

				*isnull = none;
				if (none)
					return (Datum) 0;
				f = float_sum_final(acc, ops->sumtype, false);
				if (call->argtype == FLOAT4OID)
				{
					/* (as float4pl: beyond the float4 range is an error) */
					if (isinf((float4) f) && !isinf(f))
						float_overflow_error();
					return Float4GetDatum((float4) f);
				}
				return Float8GetDatum(f);
			}
			*isnull = none || acc->sum_null;
			return *isnull ? (Datum) 0 : acc->sum;
		case HS_AGG_AVG:
			if (ops->numeric_input)
			{
				*isnull = none;
				return none ? (Datum) 0 :
					avg_final(NUMERICOID, numeric_sum_final(acc), acc->count);
			}
			if (ops->float_input)
			{
				*isnull = none;
				return none ? (Datum) 0 :
					Float8GetDatum(float_sum_final(acc, ops->exact_float ? BYTEAOID : FLOAT8OID,
												   true) / (float8) acc->count);
			}
			*isnull = none || acc->sum_null;
			return *isnull ? (Datum) 0 : avg_final(ops->sumtype, acc->sum, acc->count);
		case HS_AGG_MIN:
		case HS_AGG_MAX:
			*isnull = none || acc->val_null;
			return *isnull ? (Datum) 0 : acc->val;
		case HS_AGG_BOOL_AND:
			*isnull = none;
			return BoolGetDatum(acc->ntrue == acc->count);
		case HS_AGG_BOOL_OR:
			*isnull = none;
			return BoolGetDatum(acc->ntrue > 0);
		case HS_AGG_RECOMPUTE:
			/* the group's last recomputed value (agg_recompute.c) */
			*isnull = acc->val_null;
			return acc->val_null ? (Datum) 0 : acc->val;
		case HS_AGG_MOVING:
			break;				/* its final function's (AggMovingResult) */
	}
	elog(ERROR, "unexpected streaming aggregate kind %d", (int) call->kind);
	return (Datum) 0;
}

/* ---------------------------------------------------------------------
 * State-row columns
 * ---------------------------------------------------------------------
 */

void
AggAccDescribe(TupleDesc state_desc, AttrNumber first, const HsAggCall *call,
			   const AggSumOps *ops)
{
	AttrNumber	c = first;

	TupleDescInitEntry(state_desc, c++, NULL, INT8OID, -1, 0);
	TupleDescInitEntry(state_desc, c++, NULL, ops->sumtype ? ops->sumtype : INT8OID, -1, 0);
	TupleDescInitEntry(state_desc, c++, NULL,
					   (call->kind == HS_AGG_MIN || call->kind == HS_AGG_MAX) ?
					   call->argtype :
					   call->kind == HS_AGG_RECOMPUTE ? call->restype :
					   call->kind == HS_AGG_MOVING ? call->statetype : INT8OID, -1, 0);
	TupleDescInitEntry(state_desc, c++, NULL, INT8OID, -1, 0);
	TupleDescInitEntry(state_desc, c++, NULL, INT8ARRAYOID, -1, 0);
	Assert(c == first + AGG_STATE_COLS_PER_CALL);
}

void
AggAccEncode(const AggAcc *acc, Datum *values, bool *nulls)
{
	values[0] = Int64GetDatum(acc->count);
	nulls[0] = false;
	values[1] = acc->sum;
	nulls[1] = acc->sum_null;
	values[2] = acc->val;
	nulls[2] = acc->val_null;
	values[3] = Int64GetDatum(acc->ntrue);
	nulls[3] = false;
	values[4] = scales_to_array(acc, &nulls[4]);
}

void
AggAccDecode(AggAcc *acc, const HsAggCall *call, const AggSumOps *ops,
			 FmgrInfo *identity_send, Datum *values, bool *nulls, MemoryContext group_cxt)
{
	MemoryContext old = MemoryContextSwitchTo(group_cxt);

	acc->count = DatumGetInt64(values[0]);
	acc->sum_null = nulls[1];
	if (!acc->sum_null)
		acc->sum = datumCopy(values[1], ops->sumbyval, ops->sumlen);
	acc->val_null = nulls[2];
	if (!acc->val_null && call->kind == HS_AGG_RECOMPUTE)
		acc->val = copy_datum(values[2], call->restype);
	else if (!acc->val_null && call->kind == HS_AGG_MOVING)
		acc->val = copy_datum(values[2], call->statetype);
	else if (!acc->val_null)
	{
		StringInfoData e;

		acc->val = copy_datum(values[2], call->argtype);
		initStringInfo(&e);
		HsMemcmpEncode(&e, acc->val, false, call->argtype, call->kind == HS_AGG_MAX);
		if (identity_send)
			HsMemcmpAppendIdentity(&e, acc->val, false, identity_send);
		acc->val_key = e.data;
		acc->val_key_len = e.len;
	}
	acc->ntrue = DatumGetInt64(values[3]);
	if (!nulls[4])
		scales_from_array(acc, values[4], group_cxt);
	MemoryContextSwitchTo(old);
}
