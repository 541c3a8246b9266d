/*-------------------------------------------------------------------------
 *
 * exec_hash_agg.c
 *	  Streaming hash aggregation with retractable state.
 *
 * Every group (identified by the memcmp encoding of its key columns) has
 * accumulators that can take rows back out:
 *
 *	count(*)	the group's row count (kept for every group: a group exists
 *				while it has rows)
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
 *	DISTINCT	count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT x): per
 *				(group, call, value) the number of inputs with that value
 *				(in the min/max state table); the accumulator sees a value
 *				when its count goes 0 -> 1 and loses it at 1 -> 0
 *	min/max(x)	the current extreme, plus an ordered state table of
 *				(group, call, value) -> how many rows have that value;
 *				when the last row holding the extreme goes, the next one
 *				is the first entry of the group's range (max uses the
 *				descending encoding, so its first entry is the largest)
 *
 * Finite sums of float4/float8 are kept by adding and subtracting, so after
 * deletes they can differ from a fresh sum in the last bits (a fresh sum
 * depends on the order of the rows too).
 *
 * Changes to a group are applied as rows arrive; at the end of the epoch
 * each touched group emits the delete of its output row as it was before
 * the epoch (if it had one and it changed) and the insert of the new one,
 * and writes its state row (or deletes it when the group has no rows).
 *
 * State row format (a stored row of the "state descriptor", stored_row.c):
 * the group's key columns, its row count (int8), then per call five
 * columns: non-NULL count (int8), sum (sum type; NULL when unused or when
 * no finite input remains), current min/max value (argument type; NULL
 * when unused), true count (int8), and the special-value counts of sum/avg
 * (int8[] of (class, count) pairs with non-zero counts, NULL when empty):
 * for numeric a class >= 0 is a display scale, and for numeric and float
 * -1 counts NaN, -2 +Infinity, -3 -Infinity, -4 (float only) -0.  States
 * written before float calls kept counts have NULL there, which reads as
 * no special values (a float sum stored then that holds NaN or an
 * infinity keeps it until the view is created again).  Min/max rows:
 * key = group key | call number (1 byte) | memcmp(value), value = a
 * stored row of (value, count int8).
 *
 * Memory: groups are cached in a hash table; when it holds more than
 * hummock_stream.agg_cache_groups groups after a flush, it is emptied
 * (every group is clean then; the next touch reloads it from the state
 * table).
 *
 * src/stream/executor/exec_hash_agg.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/tuptable.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "hummock_stream/row/memcmp_key.h"
#include "hummock_stream/row/stored_row.h"
#include "hummock_stream/stream/bytes_key_hash.h"
#include "hummock_stream/stream/executor.h"

int			hs_agg_cache_groups = 100000;

/* Bytes the group cache may hold before it is emptied after a flush. */
#define AGG_CACHE_MAX_BYTES ((Size) 64 * 1024 * 1024)

/* Per-call columns in the state row. */
#define STATE_COLS_PER_CALL 5

typedef struct AggAcc
{
	int64		count;			/* non-NULL inputs */
	Datum		sum;
	bool		sum_null;
	Datum		val;			/* min/max: current extreme */
	bool		val_null;
	char	   *val_key;		/* its memcmp encoding */
	int			val_key_len;
	bool		rescan;			/* min/max: the extreme went away */
	int64		ntrue;
	/* numeric sum/avg: inputs per display scale; numeric and float: special inputs */
	int			n_scales;
	int32	   *scales;			/* >= 0, or SCALE_NAN ... SCALE_NZERO */
	int64	   *scale_counts;
} AggAcc;

/* Pseudo scales counting the special numeric and float inputs (stored). */
#define SCALE_NAN	(-1)
#define SCALE_PINF	(-2)
#define SCALE_NINF	(-3)
#define SCALE_NZERO (-4)		/* float -0 */
#define SCALE_FINITE (-100)		/* float: a finite value other than -0 (not stored) */

typedef HsBytesKey GroupKey;

typedef struct AggGroup
{
	GroupKey	key;			/* hash key: must be first */
	Datum	   *keyvals;
	bool	   *keynulls;
	int64		rows;
	AggAcc	   *acc;
	bool		dirty;
	char	   *stored;			/* state row as stored, or NULL */
	int			stored_len;
	bool		had_output;		/* output row before this epoch */
	Datum	   *before;
	bool	   *before_null;
	struct AggGroup *next_dirty;
} AggGroup;

/* How a sum or avg call accumulates. */
typedef struct SumOps
{
	Oid			sumtype;
	bool		numeric_input;	/* track scales and special values */
	bool		float_input;	/* track special values and -0 */
	PGFunction	conv;			/* argument -> sum type, or NULL */
	PGFunction	add;
	PGFunction	sub;
} SumOps;

typedef struct HashAggExec
{
	HsExec		exec;			/* exec.out: virtual; exec.row_cxt: per row */
	TupleDesc	in_desc;
	int			nkeys;
	int			ncalls;
	HsAggCall  *calls;
	SumOps	   *sums;			/* per call */
	TupleDesc  *mm_desc;		/* per min/max call: (value, count) */
	TupleDesc	state_desc;
	HsStateTable *state;
	HsStateTable *minmax;
	bool		always_one_group;
	MemoryContext group_cxt;	/* groups and their datums */
	HTAB	   *groups;
	AggGroup   *dirty;
	StringInfoData buf;
	StringInfoData buf2;
} HashAggExec;

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

/* The accumulation of sum(argtype) or avg(argtype); false if unsupported. */
static bool
sum_ops(HsAggKind kind, Oid argtype, SumOps *ops)
{
	memset(ops, 0, sizeof(*ops));
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
HsAggSupported(HsAggKind kind, Oid argtype)
{
	SumOps		ops;

	switch (kind)
	{
		case HS_AGG_SUM:
		case HS_AGG_AVG:
			return sum_ops(kind, argtype, &ops);
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

static void
scale_add(HashAggExec *a, AggAcc *acc, int32 scale, int64 delta)
{
	int			i;

	for (i = 0; i < acc->n_scales; i++)
		if (acc->scales[i] == scale)
			break;
	if (i == acc->n_scales)
	{
		MemoryContext old = MemoryContextSwitchTo(a->group_cxt);

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
scales_from_array(HashAggExec *a, AggAcc *acc, Datum v)
{
	Datum	   *d;
	int			n;

	deconstruct_array(DatumGetArrayTypeP(v), INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &d, NULL, &n);
	for (int i = 0; i + 1 < n; i += 2)
		scale_add(a, acc, (int32) DatumGetInt64(d[i]), DatumGetInt64(d[i + 1]));
}

/* ---------------------------------------------------------------------
 * Groups
 * ---------------------------------------------------------------------
 */

static void
create_groups(HashAggExec *a)
{
	MemoryContextReset(a->group_cxt);
	a->groups = HsBytesKeyHashCreate("hummock_stream aggregation groups", sizeof(AggGroup),
									 1024, a->group_cxt);
	a->dirty = NULL;
}

static bool
is_byval(Oid typid)
{
	return get_typbyval(typid);
}

static Datum
copy_datum(Datum d, Oid typid)
{
	int16		typlen;
	bool		typbyval;

	get_typlenbyval(typid, &typlen, &typbyval);
	return datumCopy(d, typbyval, typlen);
}

/* The output values of group g as its accumulators say now. */
static void
group_output(HashAggExec *a, AggGroup *g, Datum *values, bool *nulls)
{
	for (int k = 0; k < a->nkeys; k++)
	{
		values[k] = g->keyvals[k];
		nulls[k] = g->keynulls[k];
	}
	for (int i = 0; i < a->ncalls; i++)
	{
		AggAcc	   *acc = &g->acc[i];
		int			c = a->nkeys + i;
		bool		none = acc->count == 0;

		nulls[c] = false;
		switch (a->calls[i].kind)
		{
			case HS_AGG_COUNT_STAR:
				values[c] = Int64GetDatum(g->rows);
				break;
			case HS_AGG_COUNT:
				values[c] = Int64GetDatum(acc->count);
				break;
			case HS_AGG_SUM:
				if (a->sums[i].numeric_input)
				{
					nulls[c] = none;
					values[c] = none ? (Datum) 0 : numeric_sum_final(acc);
					break;
				}
				if (a->sums[i].float_input)
				{
					float8		f;

					nulls[c] = none;
					if (none)
						break;
					f = float_sum_final(acc, a->sums[i].sumtype, false);
					values[c] = a->sums[i].sumtype == FLOAT4OID ?
						Float4GetDatum((float4) f) : Float8GetDatum(f);
					break;
				}
				nulls[c] = none || acc->sum_null;
				values[c] = nulls[c] ? (Datum) 0 : acc->sum;
				break;
			case HS_AGG_AVG:
				if (a->sums[i].numeric_input)
				{
					nulls[c] = none;
					values[c] = none ? (Datum) 0 :
						avg_final(NUMERICOID, numeric_sum_final(acc), acc->count);
					break;
				}
				if (a->sums[i].float_input)
				{
					nulls[c] = none;
					values[c] = none ? (Datum) 0 :
						Float8GetDatum(float_sum_final(acc, FLOAT8OID, true) / (float8) acc->count);
					break;
				}
				nulls[c] = none || acc->sum_null;
				values[c] = nulls[c] ? (Datum) 0 :
					avg_final(a->sums[i].sumtype, acc->sum, acc->count);
				break;
			case HS_AGG_MIN:
			case HS_AGG_MAX:
				nulls[c] = none || acc->val_null;
				values[c] = nulls[c] ? (Datum) 0 : acc->val;
				break;
			case HS_AGG_BOOL_AND:
				nulls[c] = none;
				values[c] = BoolGetDatum(acc->ntrue == acc->count);
				break;
			case HS_AGG_BOOL_OR:
				nulls[c] = none;
				values[c] = BoolGetDatum(acc->ntrue > 0);
				break;
		}
	}
}

/* Encode the state row of g into a->buf. */
static void
encode_state(HashAggExec *a, AggGroup *g)
{
	int			natts = a->state_desc->natts;
	Datum	   *values = palloc(sizeof(Datum) * natts);
	bool	   *nulls = palloc0(sizeof(bool) * natts);
	int			c = 0;

	for (int k = 0; k < a->nkeys; k++, c++)
	{
		values[c] = g->keyvals[k];
		nulls[c] = g->keynulls[k];
	}
	values[c++] = Int64GetDatum(g->rows);
	for (int i = 0; i < a->ncalls; i++)
	{
		AggAcc	   *acc = &g->acc[i];

		values[c] = Int64GetDatum(acc->count);
		values[c + 1] = acc->sum;
		nulls[c + 1] = acc->sum_null;
		values[c + 2] = acc->val;
		nulls[c + 2] = acc->val_null;
		values[c + 3] = Int64GetDatum(acc->ntrue);
		values[c + 4] = scales_to_array(acc, &nulls[c + 4]);
		c += STATE_COLS_PER_CALL;
	}
	HsStoredRowFormInto(&a->buf, a->state_desc, values, nulls);
	pfree(values);
	pfree(nulls);
}

/* Find or load the group of key (in a->buf2); values are the input row. */
static AggGroup *
lookup_group(HashAggExec *a, TupleTableSlot *row)
{
	GroupKey	k;
	AggGroup   *g;
	bool		found;
	MemoryContext old;
	StringInfoData stored;

	k.data = a->buf2.data;
	k.len = a->buf2.len;
	g = hash_search(a->groups, &k, HASH_ENTER, &found);
	if (found)
		return g;

	old = MemoryContextSwitchTo(a->group_cxt);
	g->key.data = palloc(k.len + 1);
	memcpy(g->key.data, k.data, k.len);
	g->key.len = k.len;
	g->keyvals = palloc0(sizeof(Datum) * Max(a->nkeys, 1));
	g->keynulls = palloc0(sizeof(bool) * Max(a->nkeys, 1));
	g->acc = palloc0(sizeof(AggAcc) * Max(a->ncalls, 1));
	g->before = palloc0(sizeof(Datum) * (a->nkeys + a->ncalls + 1));
	g->before_null = palloc0(sizeof(bool) * (a->nkeys + a->ncalls + 1));
	g->dirty = false;
	g->stored = NULL;
	g->rows = 0;
	for (int i = 0; i < a->ncalls; i++)
	{
		g->acc[i].sum_null = true;
		g->acc[i].val_null = true;
	}
	MemoryContextSwitchTo(old);

	initStringInfo(&stored);
	if (HsStateTableGet(a->state, k.data, k.len, &stored))
	{
		int			natts = a->state_desc->natts;
		Datum	   *values = palloc(sizeof(Datum) * natts);
		bool	   *nulls = palloc(sizeof(bool) * natts);
		int			c = 0;

		HsStoredRowDeform(a->state_desc, stored.data, values, nulls);
		old = MemoryContextSwitchTo(a->group_cxt);
		g->stored = palloc(stored.len);
		memcpy(g->stored, stored.data, stored.len);
		g->stored_len = stored.len;
		for (int kk = 0; kk < a->nkeys; kk++, c++)
		{
			g->keynulls[kk] = nulls[c];
			g->keyvals[kk] = nulls[c] ? (Datum) 0 :
				copy_datum(values[c], TupleDescAttr(a->in_desc, kk)->atttypid);
		}
		g->rows = DatumGetInt64(values[c++]);
		for (int i = 0; i < a->ncalls; i++)
		{
			AggAcc	   *acc = &g->acc[i];
			HsAggCall  *call = &a->calls[i];

			acc->count = DatumGetInt64(values[c]);
			acc->sum_null = nulls[c + 1];
			if (!acc->sum_null)
				acc->sum = copy_datum(values[c + 1], a->sums[i].sumtype);
			acc->val_null = nulls[c + 2];
			if (!acc->val_null)
			{
				StringInfoData e;

				acc->val = copy_datum(values[c + 2], call->argtype);
				initStringInfo(&e);
				HsMemcmpEncode(&e, acc->val, false, call->argtype, call->kind == HS_AGG_MAX);
				acc->val_key = e.data;
				acc->val_key_len = e.len;
			}
			acc->ntrue = DatumGetInt64(values[c + 3]);
			if (!nulls[c + 4])
				scales_from_array(a, acc, values[c + 4]);
			c += STATE_COLS_PER_CALL;
		}
		MemoryContextSwitchTo(old);
		pfree(values);
		pfree(nulls);
	}
	else
	{
		/* a new group: its key values come from the row */
		old = MemoryContextSwitchTo(a->group_cxt);
		for (int kk = 0; kk < a->nkeys; kk++)
		{
			bool		isnull;
			Datum		d = slot_getattr(row, kk + 1, &isnull);

			g->keynulls[kk] = isnull;
			g->keyvals[kk] = isnull ? (Datum) 0 :
				copy_datum(d, TupleDescAttr(a->in_desc, kk)->atttypid);
		}
		MemoryContextSwitchTo(old);
	}
	pfree(stored.data);
	return g;
}

/* First change of g in this epoch: remember its output before. */
static void
touch_group(HashAggExec *a, AggGroup *g)
{
	MemoryContext old;

	if (g->dirty)
		return;
	g->dirty = true;
	g->next_dirty = a->dirty;
	a->dirty = g;
	/* without GROUP BY the one row exists once its state row does */
	g->had_output = a->always_one_group ? g->stored != NULL : g->rows > 0;
	if (!g->had_output)
		return;
	old = MemoryContextSwitchTo(a->group_cxt);
	group_output(a, g, g->before, g->before_null);
	/* avg's value is computed: keep a copy the accumulators cannot free */
	for (int i = 0; i < a->ncalls; i++)
	{
		int			c = a->nkeys + i;

		if (!g->before_null[c] && !is_byval(TupleDescAttr(a->exec.out_desc, c)->atttypid))
			g->before[c] = copy_datum(g->before[c], TupleDescAttr(a->exec.out_desc, c)->atttypid);
	}
	MemoryContextSwitchTo(old);
}

/* Set acc->val to v (a copy) with encoding key. */
static void
set_extreme(HashAggExec *a, AggAcc *acc, HsAggCall *call, Datum v,
			const char *key, int keylen)
{
	MemoryContext old = MemoryContextSwitchTo(a->group_cxt);

	acc->val = copy_datum(v, call->argtype);
	acc->val_null = false;
	acc->val_key = palloc(keylen);
	memcpy(acc->val_key, key, keylen);
	acc->val_key_len = keylen;
	MemoryContextSwitchTo(old);
}

/*
 * The (group, call, value) -> count rows of min/max and DISTINCT calls: add
 * sign to the count of value *v for call i of group g (the key encodes v
 * descending for max).  Returns the count before; when the row existed,
 * *v becomes the value stored for it (equal values, such as numeric 1.0
 * and 1.00, may print differently; the stored one came first).  key gets
 * the row's key; *prefix_len the length of its group | call part.
 */
static int64
value_count_apply(HashAggExec *a, AggGroup *g, int i, Datum *v, int sign,
				  StringInfo key, int *prefix_len)
{
	HsAggCall  *call = &a->calls[i];
	StringInfoData val;
	int64		count = 0;
	uint8		callno = (uint8) i;
	Datum		mv[2];
	bool		mn[2] = {false, false};

	resetStringInfo(key);
	appendBinaryStringInfo(key, g->key.data, g->key.len);
	appendBinaryStringInfo(key, (char *) &callno, 1);
	*prefix_len = key->len;
	HsMemcmpEncode(key, *v, false, call->argtype, call->kind == HS_AGG_MAX);
	initStringInfo(&val);
	if (HsStateTableGet(a->minmax, key->data, key->len, &val))
	{
		HsStoredRowDeform(a->mm_desc[i], val.data, mv, mn);
		count = DatumGetInt64(mv[1]);
		*v = mv[0];				/* in val, which lives until row_cxt resets */
	}
	if (count + sign < 0)
		return count;			/* nothing to take back (never expected) */
	if (count + sign == 0)
		HsStateTableDelete(a->minmax, key->data, key->len, val.data, val.len);
	else
	{
		MinimalTuple mt;

		mv[0] = *v;
		mv[1] = Int64GetDatum(count + sign);
		mn[0] = mn[1] = false;
		mt = HsStoredRowForm(a->mm_desc[i], mv, mn);
		HsStateTablePut(a->minmax, key->data, key->len,
						count > 0 ? val.data : NULL, val.len,
						(char *) mt, mt->t_len);
		pfree(mt);
	}
	return count;
}

/* Count one more (sign > 0) or one fewer row with value v for a min/max call. */
static void
minmax_apply(HashAggExec *a, AggGroup *g, int i, Datum v, int sign)
{
	AggAcc	   *acc = &g->acc[i];
	StringInfoData key;
	int			prefix_len;
	int64		count;

	initStringInfo(&key);
	count = value_count_apply(a, g, i, &v, sign, &key, &prefix_len);
	if (count + sign <= 0)
	{
		/* the current extreme's last row went: find the next one later */
		if (!acc->val_null && acc->val_key_len == key.len - prefix_len &&
			memcmp(acc->val_key, key.data + prefix_len, acc->val_key_len) == 0)
			acc->rescan = true;
	}
	else if (sign > 0 &&
			 (acc->val_null ||
			  memcmp(key.data + prefix_len, acc->val_key,
					 Min(acc->val_key_len, key.len - prefix_len)) < 0))
	{
		/* encodings are prefix-free: memcmp over the shorter length decides */
		set_extreme(a, acc, &a->calls[i], v, key.data + prefix_len, key.len - prefix_len);
	}
	pfree(key.data);
}

/* Find a min/max call's extreme again from its state table. */
static void
minmax_rescan(HashAggExec *a, AggGroup *g, int i)
{
	AggAcc	   *acc = &g->acc[i];
	StringInfoData prefix,
				key,
				val;
	uint8		callno = (uint8) i;

	acc->rescan = false;
	acc->val_null = true;
	if (acc->count == 0)
		return;
	initStringInfo(&prefix);
	initStringInfo(&key);
	initStringInfo(&val);
	appendBinaryStringInfo(&prefix, g->key.data, g->key.len);
	appendBinaryStringInfo(&prefix, (char *) &callno, 1);
	if (HsStateTableFirstWithPrefix(a->minmax, prefix.data, prefix.len, &key, &val))
	{
		Datum		mv[2];
		bool		mn[2];

		HsStoredRowDeform(a->mm_desc[i], val.data, mv, mn);
		set_extreme(a, acc, &a->calls[i], mv[0], key.data + prefix.len,
					key.len - prefix.len);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("min/max state of a streaming aggregation has no value for a group with %lld inputs",
						(long long) acc->count)));
	pfree(prefix.data);
	pfree(key.data);
	pfree(val.data);
}

/*
 * A DISTINCT call: count one more (sign > 0) or one fewer input with value
 * *v in the group.  Returns whether the set of distinct values changed (the
 * count went 0 -> 1 or 1 -> 0), which is when the call's accumulator
 * changes; then *v is the value to add or take out (the one stored for
 * the first input).
 */
static bool
distinct_apply(HashAggExec *a, AggGroup *g, int i, Datum *v, int sign)
{
	StringInfoData key;
	int			prefix_len;
	int64		count;

	initStringInfo(&key);
	count = value_count_apply(a, g, i, v, sign, &key, &prefix_len);
	pfree(key.data);
	if (count + sign < 0)
		return false;
	return (count == 0) != (count + sign == 0);
}

static void
hash_agg_push(HsExec *self, TupleTableSlot *row, int sign)
{
	HashAggExec *a = (HashAggExec *) self;
	AggGroup   *g;
	MemoryContext old;

	MemoryContextReset(a->exec.row_cxt);
	old = MemoryContextSwitchTo(a->exec.row_cxt);
	slot_getallattrs(row);

	resetStringInfo(&a->buf2);
	for (int k = 0; k < a->nkeys; k++)
		HsMemcmpEncode(&a->buf2, row->tts_values[k], row->tts_isnull[k],
					   TupleDescAttr(a->in_desc, k)->atttypid, false);
	g = lookup_group(a, row);
	touch_group(a, g);
	g->rows += sign;

	for (int i = 0; i < a->ncalls; i++)
	{
		HsAggCall  *call = &a->calls[i];
		AggAcc	   *acc = &g->acc[i];
		Datum		v;

		if (call->kind == HS_AGG_COUNT_STAR)
			continue;
		if (row->tts_isnull[call->arg])
			continue;
		v = row->tts_values[call->arg];
		if (call->distinct && !distinct_apply(a, g, i, &v, sign))
			continue;			/* the value was already (is still) there */
		acc->count += sign;
		switch (call->kind)
		{
			case HS_AGG_SUM:
			case HS_AGG_AVG:
				{
					SumOps	   *ops = &a->sums[i];
					Datum		x;
					Datum		s;

					if (ops->numeric_input || ops->float_input)
					{
						int32		cls = ops->numeric_input ? numeric_input_scale(v) :
							float_input_class(v, call->argtype);

						if (cls != SCALE_FINITE)
							scale_add(a, acc, cls, sign);
						if (cls == SCALE_NAN || cls == SCALE_PINF || cls == SCALE_NINF)
							break;	/* only counted */
					}
					x = ops->conv ? DirectFunctionCall1(ops->conv, v) : v;

					if (acc->sum_null)
						s = sign > 0 ? x :
							DirectFunctionCall2(ops->sub, DirectFunctionCall2(ops->sub, x, x), x);
					else
						s = DirectFunctionCall2(sign > 0 ? ops->add : ops->sub, acc->sum, x);
					MemoryContextSwitchTo(a->group_cxt);
					if (!acc->sum_null && !is_byval(ops->sumtype))
						pfree(DatumGetPointer(acc->sum));
					acc->sum = copy_datum(s, ops->sumtype);
					acc->sum_null = false;
					MemoryContextSwitchTo(a->exec.row_cxt);
					if (finite_count(acc) == 0)
						acc->sum_null = true;	/* start afresh: no drift */
					break;
				}
			case HS_AGG_MIN:
			case HS_AGG_MAX:
				minmax_apply(a, g, i, v, sign);
				break;
			case HS_AGG_BOOL_AND:
			case HS_AGG_BOOL_OR:
				if (DatumGetBool(v))
					acc->ntrue += sign;
				break;
			default:
				break;
		}
	}
	MemoryContextSwitchTo(old);
}

static bool
outputs_equal(HashAggExec *a, Datum *v1, bool *n1, Datum *v2, bool *n2)
{
	TupleDesc	d = a->exec.out_desc;

	for (int c = 0; c < d->natts; c++)
	{
		Form_pg_attribute att = TupleDescAttr(d, c);

		if (n1[c] != n2[c])
			return false;
		if (!n1[c] && !datumIsEqual(v1[c], v2[c], att->attbyval, att->attlen))
			return false;
	}
	return true;
}

static void
emit(HashAggExec *a, Datum *values, bool *nulls, int sign)
{
	TupleTableSlot *out = a->exec.out;

	ExecClearTuple(out);
	memcpy(out->tts_values, values, sizeof(Datum) * out->tts_tupleDescriptor->natts);
	memcpy(out->tts_isnull, nulls, sizeof(bool) * out->tts_tupleDescriptor->natts);
	ExecStoreVirtualTuple(out);
	HsExecPush(a->exec.downstream, out, sign);
}

static void
hash_agg_flush(HsExec *self)
{
	HashAggExec *a = (HashAggExec *) self;
	int			natts = self->out_desc->natts;
	Datum	   *values = palloc(sizeof(Datum) * natts);
	bool	   *nulls = palloc(sizeof(bool) * natts);
	AggGroup   *g;
	MemoryContext old;

	if (a->always_one_group)
	{
		/* the first epoch emits the row even if no input arrived */
		MemoryContextReset(a->exec.row_cxt);
		old = MemoryContextSwitchTo(a->exec.row_cxt);
		resetStringInfo(&a->buf2);
		g = lookup_group(a, NULL);
		if (g->stored == NULL)
			touch_group(a, g);
		MemoryContextSwitchTo(old);
	}
	for (g = a->dirty; g != NULL; g = g->next_dirty)
	{
		bool		exists;

		MemoryContextReset(a->exec.row_cxt);
		old = MemoryContextSwitchTo(a->exec.row_cxt);
		for (int i = 0; i < a->ncalls; i++)
			if (g->acc[i].rescan)
				minmax_rescan(a, g, i);
		exists = g->rows > 0 || a->always_one_group;
		if (exists)
			group_output(a, g, values, nulls);
		if (g->had_output && exists &&
			outputs_equal(a, g->before, g->before_null, values, nulls))
			;					/* nothing visible changed */
		else
		{
			if (g->had_output)
				emit(a, g->before, g->before_null, -1);
			if (exists)
				emit(a, values, nulls, +1);
		}

		/* the state row (kept at zero rows without GROUP BY: the row stays) */
		if (g->rows == 0 && !a->always_one_group)
		{
			if (g->stored)
				HsStateTableDelete(a->state, g->key.data, g->key.len, g->stored, g->stored_len);
			g->stored = NULL;
		}
		else
		{
			encode_state(a, g);
			HsStateTablePut(a->state, g->key.data, g->key.len,
							g->stored, g->stored_len, a->buf.data, a->buf.len);
			MemoryContextSwitchTo(a->group_cxt);
			g->stored = palloc(a->buf.len);
			memcpy(g->stored, a->buf.data, a->buf.len);
			g->stored_len = a->buf.len;
		}
		g->dirty = false;
		MemoryContextSwitchTo(old);
	}
	a->dirty = NULL;
	pfree(values);
	pfree(nulls);
	/* bound the cache (all groups are clean now) */
	if (hash_get_num_entries(a->groups) > hs_agg_cache_groups ||
		MemoryContextMemAllocated(a->group_cxt, true) > AGG_CACHE_MAX_BYTES)
		create_groups(a);
	HsExecFlush(self->downstream);
}

static void
hash_agg_reset(HsExec *self)
{
	create_groups((HashAggExec *) self);
}

static const HsExecMethods hash_agg_methods = {
	.name = "HashAgg",
	.push = hash_agg_push,
	.flush = hash_agg_flush,
	.reset = hash_agg_reset,
	.out_ops = &TTSOpsVirtual,
	.row_context = "hummock_stream agg row",
};

HsExec *
HsExecHashAggCreate(TupleDesc in_desc, int nkeys, HsAggCall *calls, int ncalls,
					HsStateTable *state, HsStateTable *minmax, bool always_one_group)
{
	HashAggExec *a;
	SumOps	   *sums = palloc0(sizeof(SumOps) * Max(ncalls, 1));
	TupleDesc  *mm_desc = palloc0(sizeof(TupleDesc) * Max(ncalls, 1));
	TupleDesc	out = CreateTemplateTupleDesc(nkeys + ncalls);
	TupleDesc	state_desc;
	int			c;

	for (int k = 0; k < nkeys; k++)
		TupleDescCopyEntry(out, k + 1, in_desc, k + 1);
	state_desc = CreateTemplateTupleDesc(nkeys + 1 + STATE_COLS_PER_CALL * ncalls);
	for (int k = 0; k < nkeys; k++)
		TupleDescCopyEntry(state_desc, k + 1, in_desc, k + 1);
	c = nkeys + 1;
	TupleDescInitEntry(state_desc, c++, "rows", INT8OID, -1, 0);
	for (int i = 0; i < ncalls; i++)
	{
		HsAggCall  *call = &calls[i];

		if ((call->kind == HS_AGG_SUM || call->kind == HS_AGG_AVG) &&
			!sum_ops(call->kind, call->argtype, &sums[i]))
			elog(ERROR, "unsupported streaming aggregate argument type %u", call->argtype);
		TupleDescInitEntry(out, nkeys + i + 1, NULL, call->restype, -1, 0);
		TupleDescInitEntry(state_desc, c++, NULL, INT8OID, -1, 0);
		TupleDescInitEntry(state_desc, c++, NULL,
						   sums[i].sumtype ? sums[i].sumtype : INT8OID, -1, 0);
		TupleDescInitEntry(state_desc, c++, NULL,
						   (call->kind == HS_AGG_MIN || call->kind == HS_AGG_MAX) ?
						   call->argtype : INT8OID, -1, 0);
		TupleDescInitEntry(state_desc, c++, NULL, INT8OID, -1, 0);
		TupleDescInitEntry(state_desc, c++, NULL, INT8ARRAYOID, -1, 0);
		if (call->kind == HS_AGG_MIN || call->kind == HS_AGG_MAX || call->distinct)
		{
			mm_desc[i] = CreateTemplateTupleDesc(2);
			TupleDescInitEntry(mm_desc[i], 1, NULL, call->argtype, -1, 0);
			TupleDescInitEntry(mm_desc[i], 2, NULL, INT8OID, -1, 0);
		}
	}

	a = HsExecCreate(sizeof(HashAggExec), &hash_agg_methods, out);
	a->in_desc = in_desc;
	a->nkeys = nkeys;
	a->ncalls = ncalls;
	a->calls = calls;
	a->sums = sums;
	a->mm_desc = mm_desc;
	a->state_desc = state_desc;
	a->state = state;
	a->minmax = minmax;
	a->always_one_group = always_one_group;
	a->group_cxt = AllocSetContextCreate(CurrentMemoryContext, "hummock_stream agg groups",
										 ALLOCSET_DEFAULT_SIZES);
	initStringInfo(&a->buf);
	initStringInfo(&a->buf2);
	create_groups(a);
	return &a->exec;
}
