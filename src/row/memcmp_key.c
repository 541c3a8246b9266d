/*-------------------------------------------------------------------------
 *
 * memcmp_key.c
 *	  Order-preserving ("memcomparable") byte encoding of PostgreSQL datums.
 *
 * State tables are keyed by byte strings compared with memcmp().  This
 * file turns a datum of a SQL type into such a string so that, for an
 * ORDERED type, memcmp() of two encodings has the sign of the type's
 * default btree comparison, and for an EQUALITY type at least equal values
 * give equal bytes (good for grouping and lookups, not for ranges).
 *
 * Every encoding is prefix-free: no encoding is a proper prefix of another
 * encoding of the same type.  So the encodings of several columns can be
 * concatenated into one key whose memcmp() order is the lexicographic
 * order of the columns, and a column is made descending by inverting its
 * bytes (for prefix-free strings, inverting every byte reverses memcmp()
 * order).  In a descending column NULL sorts first, as PostgreSQL's
 * default for DESC.
 *
 * Byte format (big-endian throughout; this is a persisted format: never
 * change an existing encoding, add new ones only for types that had none):
 *
 *	value		:= 0x01 payload				not NULL
 *				 | 0x02						NULL (sorts after every value)
 *				 | 0x00						NULL of a sort key whose NULLs go
 *											the other way (NULLS FIRST
 *											ascending, NULLS LAST descending:
 *											HsMemcmpEncodeSortKey; before
 *											every value, after once inverted)
 *
 *	payload by type:
 *	bool		1 byte, 0x00 false, 0x01 true
 *	"char"		1 byte, the char as unsigned (PostgreSQL's "char" order)
 *	int2/4/8,	2/4/8 bytes, two's complement with the sign bit flipped
 *	money		(money is an int8 count of cents)
 *	oid			4 bytes, unsigned
 *	pg_lsn		8 bytes, unsigned
 *	float4/8	4/8 bytes of the IEEE bits: -0 is first made +0 and every
 *				NaN the positive quiet NaN; then, for a positive sign all
 *				bits are kept and the sign bit set, for a negative sign
 *				all bits are inverted.  So -Inf < numbers < +Inf < NaN,
 *				as in PostgreSQL.
 *	date		as int4 (-infinity and infinity are INT32_MIN/MAX)
 *	time		as int8 (microseconds)
 *	timetz		as int8 the UTC-equivalent time (time + zone seconds), then
 *				as int4 the zone: timetz_cmp's order (equal only if the
 *				zone is equal too)
 *	timestamp,	as int8 (microseconds; -infinity/infinity are
 *	timestamptz	INT64_MIN/MAX)
 *	interval	16 bytes: the 128-bit "span" PostgreSQL compares,
 *				(month * 30 + day) * USECS_PER_DAY + time, high 8 bytes as
 *				int8, low 8 bytes unsigned.  Intervals of equal span (such
 *				as '1 month' and '30 days') encode equal.
 *	uuid		the 16 bytes
 *	macaddr		the 6 bytes
 *	macaddr8	the 8 bytes
 *	text,		string(the bytes of the value); bpchar without its trailing
 *	varchar,	spaces (bpchar compares ignoring them); name up to its
 *	bpchar,		terminating NUL
 *	name, bytea
 *	numeric		1 class byte: 0x01 -Infinity, 0x02 negative, 0x03 zero,
 *				0x04 positive, 0x05 +Infinity, 0x06 NaN (NaN is above
 *				every number in PostgreSQL).  A positive or negative number
 *				is written |x| = 0.d1d2...dn * 10^E with d1 != 0 and
 *				dn != 0 (the canonical form of numeric_normalize(), so 1.0
 *				and 1.00 encode equal); after the class byte come E as
 *				int4, then the digits two per byte as nibbles (digit + 1,
 *				so 1..10, high nibble first), ended by a 0 nibble (the low
 *				nibble of the last byte when n is odd, else a 0x00 byte).
 *				For a negative number every byte after the class byte is
 *				inverted.
 *	enum		EQUALITY: the 4 bytes of the value's pg_enum OID.  Not the
 *				enum's order: enumsortorder can be renumbered by ALTER TYPE
 *				... ADD VALUE, and persisted keys must not change.
 *	composite	the value encoding of each attribute that is not dropped,
 *				in attribute order (record_cmp's order, with a NULL
 *				attribute after every value).  A RECORD value is encoded by
 *				the row type its datum carries.  Support: the weakest of
 *				its attribute types; NONE with an attribute under a
 *				nondeterministic collation (equal values differ in bytes).
 *	array		the value encoding of each element in storage order, a
 *				0x00 byte (which sorts before the 0x01/0x02 of an element,
 *				so a shorter array whose elements are a prefix of a longer
 *				one sorts first), 1 byte the number of dimensions, each
 *				dimension's length as int4, each lower bound as int4:
 *				array_cmp's order.  Support: that of the element type;
 *				int2vector and oidvector, which compare differently, are
 *				EQUALITY.
 *	domain		as its base type
 *	jsonb		EQUALITY: the tokens of a walk of the value (the iterator's
 *				token number as 1 byte; a raw-scalar flag byte after an
 *				array's start; after a key or scalar, 1 byte its kind then
 *				nothing (null), 1 byte (bool), string(bytes) (string) or
 *				the numeric payload above (number)).  jsonb keeps an
 *				object's keys sorted and unique, so equal values (jsonb_eq:
 *				numbers compare as numeric, 1.0 = 1) encode equal.
 *				(Changed 2026-12-04: jsonb was encoded as below, which
 *				told 1.0 from 1; state keyed by jsonb from before is not
 *				read correctly: recreate such views.)
 *	other		EQUALITY, if the type has a binary send function and its
 *				values are equal only when their bytes are (its default
 *				btree class says so, BTEQUALIMAGE_PROC; a range when its
 *				subtype's are; a type without a btree class is taken as
 *				such): string(the send function's bytes).  Other types
 *				(citext, numrange, tsvector, a multirange of such) are NONE,
 *				as are types without a send function.
 *
 *	string(b)	each byte of b, a 0x00 byte written as 0x00 0xFF; then the
 *				terminator 0x00 0x00.  The terminator sorts before every
 *				byte that can follow 0x00, so a string sorts before the
 *				strings it is a proper prefix of.
 *
 * Identity tails.  The encodings above fold some values that Postgres
 * prints differently into equal bytes, as their equality does: numeric
 * 1.0 and 1.00, float -0 and 0, interval '1 month' and '30 days', jsonb
 * numbers, bpchar trailing spaces, and rows or arrays holding such
 * values (HsMemcmpTypeFolds).  Where a key must tell such values apart
 * (the copies of a view's rows when the view has no key: a UNION ALL
 * keeps 1.0 and 1.00 both), the caller appends after the key's columns,
 * for each column of a folding type that is not NULL, string(the send
 * function's bytes) (HsMemcmpAppendIdentity).  The tail comes after every
 * column's encoding, so a prefix of the key's columns still seeks by
 * equality.
 *
 * Collations: text, varchar, bpchar and name are ORDERED in byte order,
 * which is the "C" collation's order.  Under any deterministic collation
 * two strings are equal only if their bytes are equal, so the encoding is
 * also correct for grouping and equality lookups under any deterministic
 * collation (but its order is then not the collation's order).
 * Nondeterministic collations (case- or accent-insensitive) make unequal
 * bytes equal; the caller (the planner) must reject keys under them.  The
 * same holds for text attributes of composite types and text arrays.
 *
 * Sort keys of text under a collation whose order is not the byte order
 * (HsMemcmpEncodeCollatedSortKey: ORDER BY name under en-US):
 *
 *	value		:= 0x01 string(xfrm) [string(b)]	not NULL
 *				 | 0x02 | 0x00						NULL, as above
 *
 * xfrm is the collation's sort key of the string (ICU: ucol_getSortKey;
 * libc: strxfrm), whose byte order is the collation's order; b, the
 * string's bytes, follows under a deterministic collation, which breaks
 * the ties of strings the collation finds equal by their bytes, as
 * PostgreSQL's comparison does (varstr_cmp).  Under a nondeterministic
 * collation such strings stay equal.  bpchar is taken without its
 * trailing spaces.  xfrm depends on the collation library's version, as
 * an index does: such keys are never persisted where only their bytes
 * order them across versions without the caller saying so.
 *
 * Sort keys of an enum in its declared order (HsMemcmpEncodeOwnSortKey:
 * ORDER BY priority, an enum):
 *
 *	value		:= 0x01 float4(enumsortorder) oid	not NULL
 *				 | 0x02 | 0x00						NULL, as above
 *
 * enumsortorder is the label's pg_enum position, which orders the labels
 * as enum_cmp does, encoded as a float4 above; the label's OID follows
 * (4 bytes) so the key names its value.  ALTER TYPE ... ADD VALUE leaves
 * the positions of existing labels alone unless it renumbers them all
 * (no room between two neighbours): type_alter.c refuses that for an enum
 * a streaming view uses, so persisted keys keep their order.
 *
 * Sort keys of inet and cidr in network_cmp's order (HsMemcmpEncodeOwnSortKey;
 * their key encoding is their send bytes, which only tell values apart):
 *
 *	value		:= 0x01 family masked bits address		not NULL
 *				 | 0x02 | 0x00							NULL, as above
 *
 * family is 1 byte (IPv4 before IPv6), masked the address with the bits
 * past the netmask cleared and address the address as it is (4 or 16
 * bytes each, by the family), bits the netmask length (1 byte).
 *
 * src/row/memcmp_key.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <sys/socket.h>

#include "access/detoast.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "common/int128.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_enum.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/inet.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/pg_locale.h"
#include "utils/pg_lsn.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#ifdef USE_ICU
#include <unicode/ucol.h>
#endif

#include "hummock_stream/row/memcmp_key.h"

/* The marker byte in front of every value. */
#define HS_MEMCMP_NULL_LOW	0x00	/* sort keys with NULLs first ascending
									 * or last descending */
#define HS_MEMCMP_NOT_NULL	0x01
#define HS_MEMCMP_NULL		0x02

/* Ends the elements of an array (below both markers). */
#define HS_MEMCMP_ARRAY_END 0x00

/* Class bytes of a numeric, in numeric order. */
#define HS_MEMCMP_NUM_NEG_INF	0x01
#define HS_MEMCMP_NUM_NEG		0x02
#define HS_MEMCMP_NUM_ZERO		0x03
#define HS_MEMCMP_NUM_POS		0x04
#define HS_MEMCMP_NUM_POS_INF	0x05
#define HS_MEMCMP_NUM_NAN		0x06

static HsMemcmpSupport type_support(Oid typid, bool identity);
static void encode_value(StringInfo buf, Datum value, bool isnull, Oid typid);
static void encode_payload(StringInfo buf, Datum value, Oid typid);

/* ---------------------------------------------------------------------
 * Fixed-width pieces
 * ---------------------------------------------------------------------
 */

static void
put_u8(StringInfo buf, uint8 v)
{
	appendStringInfoCharMacro(buf, (char) v);
}

static void
put_be32(StringInfo buf, uint32 v)
{
	char		b[4];

	b[0] = (char) (v >> 24);
	b[1] = (char) (v >> 16);
	b[2] = (char) (v >> 8);
	b[3] = (char) v;
	appendBinaryStringInfo(buf, b, 4);
}

static void
put_be64(StringInfo buf, uint64 v)
{
	put_be32(buf, (uint32) (v >> 32));
	put_be32(buf, (uint32) v);
}

/* Signed integers: flipping the sign bit makes unsigned order signed order. */
static void
put_int16(StringInfo buf, int16 v)
{
	uint16		u = ((uint16) v) ^ UINT16_C(0x8000);

	put_u8(buf, (uint8) (u >> 8));
	put_u8(buf, (uint8) u);
}

static void
put_int32(StringInfo buf, int32 v)
{
	put_be32(buf, ((uint32) v) ^ UINT32_C(0x80000000));
}

static void
put_int64(StringInfo buf, int64 v)
{
	put_be64(buf, ((uint64) v) ^ UINT64CONST(0x8000000000000000));
}

/* See the header comment: -0 is +0, all NaNs are one NaN above +Inf. */
static void
put_float4(StringInfo buf, float4 f)
{
	uint32		bits;

	if (isnan(f))
		bits = UINT32_C(0x7FC00000);
	else if (f == 0.0f)
		bits = 0;				/* -0 and +0 */
	else
		memcpy(&bits, &f, sizeof(bits));
	if (bits & UINT32_C(0x80000000))
		bits = ~bits;
	else
		bits |= UINT32_C(0x80000000);
	put_be32(buf, bits);
}

static void
put_float8(StringInfo buf, float8 f)
{
	uint64		bits;

	if (isnan(f))
		bits = UINT64CONST(0x7FF8000000000000);
	else if (f == 0.0)
		bits = 0;				/* -0 and +0 */
	else
		memcpy(&bits, &f, sizeof(bits));
	if (bits & UINT64CONST(0x8000000000000000))
		bits = ~bits;
	else
		bits |= UINT64CONST(0x8000000000000000);
	put_be64(buf, bits);
}

/* Appends string(b): 0x00 escaped as 0x00 0xFF, terminated by 0x00 0x00. */
static void
put_string(StringInfo buf, const char *data, int len)
{
	const char *p = data;
	const char *end = data + len;

	while (p < end)
	{
		const char *zero = memchr(p, '\0', end - p);

		if (zero == NULL)
		{
			appendBinaryStringInfo(buf, p, end - p);
			break;
		}
		appendBinaryStringInfo(buf, p, zero - p);
		put_u8(buf, 0x00);
		put_u8(buf, 0xFF);
		p = zero + 1;
	}
	put_u8(buf, 0x00);
	put_u8(buf, 0x00);
}

/* Appends string() of a varlena's bytes (text, varchar, bytea). */
static void
put_varlena(StringInfo buf, Datum value)
{
	struct varlena *v;

	v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));

	put_string(buf, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	if ((Pointer) v != DatumGetPointer(value))
		pfree(v);
}

/* ---------------------------------------------------------------------
 * Types with more structure
 * ---------------------------------------------------------------------
 */

static void
put_bpchar(StringInfo buf, Datum value)
{
	BpChar	   *v = DatumGetBpCharPP(value);
	const char *s = VARDATA_ANY(v);
	int			len = VARSIZE_ANY_EXHDR(v);

	while (len > 0 && s[len - 1] == ' ')
		len--;
	put_string(buf, s, len);
	if ((Pointer) v != DatumGetPointer(value))
		pfree(v);
}

/* The span interval_cmp compares, as 16 bytes (see the header comment). */
static void
put_interval(StringInfo buf, Interval *iv)
{
	INT128		span;
	int64		days;
	uint64		hi;
	uint64		lo;

	days = iv->month * INT64CONST(30);
	days += iv->day;
	span = int64_to_int128(iv->time);
	int128_add_int64_mul_int64(&span, days, USECS_PER_DAY);

#if USE_NATIVE_INT128
	hi = (uint64) (span >> 64);
	lo = (uint64) span;
#else
	hi = (uint64) span.hi;
	lo = span.lo;
#endif
	put_be64(buf, hi ^ UINT64CONST(0x8000000000000000));
	put_be64(buf, lo);
}

static void
put_timetz(StringInfo buf, TimeTzADT *t)
{
	put_int64(buf, t->time + (int64) t->zone * USECS_PER_SEC);
	put_int32(buf, t->zone);
}

/*
 * A numeric, from its canonical string: class byte, then (for a nonzero
 * finite number) the decimal exponent and the significant digits, inverted
 * when negative.
 */
static void
put_numeric(StringInfo buf, Numeric num)
{
	char	   *str = numeric_normalize(num);
	const char *p = str;
	bool		negative = false;
	char	   *digits;
	int			ndigits = 0;
	int			nint = -1;		/* digits before the point */
	int			first;
	int			last;
	int32		exponent;
	int			start;
	int			i;

	if (strcmp(str, "NaN") == 0)
	{
		put_u8(buf, HS_MEMCMP_NUM_NAN);
		pfree(str);
		return;
	}
	if (strcmp(str, "Infinity") == 0)
	{
		put_u8(buf, HS_MEMCMP_NUM_POS_INF);
		pfree(str);
		return;
	}
	if (strcmp(str, "-Infinity") == 0)
	{
		put_u8(buf, HS_MEMCMP_NUM_NEG_INF);
		pfree(str);
		return;
	}

	if (*p == '-')
	{
		negative = true;
		p++;
	}
	digits = palloc(strlen(p) + 1);
	for (; *p; p++)
	{
		if (*p == '.')
			nint = ndigits;
		else if (*p >= '0' && *p <= '9')
			digits[ndigits++] = *p;
		else
			elog(ERROR, "unexpected character in numeric \"%s\"", str);
	}
	if (nint < 0)
		nint = ndigits;

	for (first = 0; first < ndigits && digits[first] == '0'; first++)
		;
	if (first == ndigits)
	{
		put_u8(buf, HS_MEMCMP_NUM_ZERO);
		pfree(digits);
		pfree(str);
		return;
	}
	for (last = ndigits - 1; digits[last] == '0'; last--)
		;

	/* |x| = 0.digits[first..last] * 10^exponent */
	exponent = nint - first;

	put_u8(buf, negative ? HS_MEMCMP_NUM_NEG : HS_MEMCMP_NUM_POS);
	start = buf->len;
	put_int32(buf, exponent);
	for (i = first; i <= last; i += 2)
	{
		uint8		hi = (uint8) (digits[i] - '0' + 1);
		uint8		lo = (i + 1 <= last) ? (uint8) (digits[i + 1] - '0' + 1) : 0;

		put_u8(buf, (uint8) ((hi << 4) | lo));
	}
	if ((last - first + 1) % 2 == 0)
		put_u8(buf, 0x00);		/* even count: the 0 nibble needs a byte */

	if (negative)
	{
		for (i = start; i < buf->len; i++)
			buf->data[i] = (char) ~((uint8) buf->data[i]);
	}
	pfree(digits);
	pfree(str);
}

/* Each attribute that is not dropped, in order. */
static void
put_composite(StringInfo buf, Datum value)
{
	HeapTupleHeader td = DatumGetHeapTupleHeader(value);
	TupleDesc	tupdesc;
	HeapTupleData tuple;
	Datum	   *values;
	bool	   *nulls;
	int			i;

	tupdesc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(td),
									 HeapTupleHeaderGetTypMod(td));
	tuple.t_len = HeapTupleHeaderGetDatumLength(td);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = td;

	values = palloc(tupdesc->natts * sizeof(Datum));
	nulls = palloc(tupdesc->natts * sizeof(bool));
	heap_deform_tuple(&tuple, tupdesc, values, nulls);

	for (i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (att->attisdropped)
			continue;
		encode_value(buf, values[i], nulls[i], att->atttypid);
	}
	ReleaseTupleDesc(tupdesc);
	pfree(values);
	pfree(nulls);
}

/* Elements, end byte, dimensions, lower bounds. */
static void
put_array(StringInfo buf, Datum value)
{
	ArrayType  *arr = DatumGetArrayTypeP(value);
	Oid			elemtype = ARR_ELEMTYPE(arr);
	int			ndims = ARR_NDIM(arr);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int			i;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(arr, elemtype, typlen, typbyval, typalign,
					  &elems, &nulls, &nelems);
	for (i = 0; i < nelems; i++)
		encode_value(buf, elems[i], nulls[i], elemtype);
	put_u8(buf, HS_MEMCMP_ARRAY_END);

	Assert(ndims >= 0 && ndims <= MAXDIM);
	put_u8(buf, (uint8) ndims);
	for (i = 0; i < ndims; i++)
		put_int32(buf, ARR_DIMS(arr)[i]);
	for (i = 0; i < ndims; i++)
		put_int32(buf, ARR_LBOUND(arr)[i]);

	pfree(elems);
	pfree(nulls);
	if ((Pointer) arr != DatumGetPointer(value))
		pfree(arr);
}

/* The jsonb encoding: its tokens in iterator order (see the header). */
static void
put_jsonb(StringInfo buf, Jsonb *jb)
{
	JsonbIterator *it = JsonbIteratorInit(&jb->root);
	JsonbValue	v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		put_u8(buf, (uint8) tok);
		if (tok == WJB_BEGIN_ARRAY)
			put_u8(buf, v.val.array.rawScalar ? 1 : 0);
		else if (tok == WJB_KEY || tok == WJB_VALUE || tok == WJB_ELEM)
		{
			put_u8(buf, (uint8) v.type);
			switch (v.type)
			{
				case jbvNull:
					break;
				case jbvBool:
					put_u8(buf, v.val.boolean ? 1 : 0);
					break;
				case jbvString:
					put_string(buf, v.val.string.val, v.val.string.len);
					break;
				case jbvNumeric:
					put_numeric(buf, v.val.numeric);
					break;
				default:
					elog(ERROR, "unexpected jsonb value kind %d", (int) v.type);
			}
		}
	}
}

/* string() of the bytes of the type's send function. */
static void
put_send_bytes(StringInfo buf, Datum value, Oid typid)
{
	Oid			typsend;
	bool		typisvarlena;
	bytea	   *bytes;

	getTypeBinaryOutputInfo(typid, &typsend, &typisvarlena);
	bytes = OidSendFunctionCall(typsend, value);
	put_string(buf, VARDATA(bytes), VARSIZE(bytes) - VARHDRSZ);
	pfree(bytes);
}

/* ---------------------------------------------------------------------
 * Classifying types
 * ---------------------------------------------------------------------
 */

/* The kinds of type that are not recognized by OID. */
typedef enum TypeClass
{
	TYPECLASS_NONE,
	TYPECLASS_DOMAIN,
	TYPECLASS_ENUM,
	TYPECLASS_COMPOSITE,
	TYPECLASS_ARRAY,
	TYPECLASS_SEND
} TypeClass;

/* The support of a type encoded by a fixed rule for its OID, or -1. */
static int
builtin_support(Oid typid)
{
	switch (typid)
	{
		case BOOLOID:
		case CHAROID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case CASHOID:
		case OIDOID:
		case LSNOID:
		case FLOAT4OID:
		case FLOAT8OID:
		case DATEOID:
		case TIMEOID:
		case TIMETZOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case INTERVALOID:
		case UUIDOID:
		case MACADDROID:
		case MACADDR8OID:
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case NAMEOID:
		case BYTEAOID:
		case NUMERICOID:
			return HS_MEMCMP_ORDERED;
		case INT2VECTOROID:
		case OIDVECTOROID:
		case JSONBOID:
			return HS_MEMCMP_EQUALITY;	/* arrays compared otherwise; jsonb */
		case RECORDOID:
			return HS_MEMCMP_NONE;	/* row type known only from a value */
		default:
			return -1;
	}
}

/* Classifies a type that builtin_support() does not know. */
static TypeClass
classify_type(Oid typid)
{
	HeapTuple	tup;
	Form_pg_type typ;
	TypeClass	result;

	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", typid);
	typ = (Form_pg_type) GETSTRUCT(tup);

	if (typ->typtype == TYPTYPE_DOMAIN)
		result = TYPECLASS_DOMAIN;
	else if (typ->typtype == TYPTYPE_ENUM)
		result = TYPECLASS_ENUM;
	else if (typ->typtype == TYPTYPE_COMPOSITE)
		result = TYPECLASS_COMPOSITE;
	else if (typ->typtype == TYPTYPE_PSEUDO)
		result = TYPECLASS_NONE;
	else if (IsTrueArrayType(typ))
		result = TYPECLASS_ARRAY;
	else if (OidIsValid(typ->typsend))
		result = TYPECLASS_SEND;
	else
		result = TYPECLASS_NONE;

	ReleaseSysCache(tup);
	return result;
}

/*
 * Are two values of typid equal only when their send functions' bytes are?
 * So says its default btree class's equalimage function (as for btree
 * deduplication); a range type's values, when its subtype's are (the
 * bounds are sent by the subtype's send function), a multirange's when
 * its range type's are.  A type without a btree class has no equality
 * the planner groups or joins by but its own (xid's): taken as yes.
 */
static bool
send_bytes_equate(Oid typid)
{
	Oid			opclass;
	Oid			intype;
	Oid			proc;

	if (type_is_range(typid))
		return send_bytes_equate(get_range_subtype(typid));
	if (type_is_multirange(typid))
		return send_bytes_equate(get_range_subtype(get_multirange_range(typid)));
	opclass = GetDefaultOpClass(typid, BTREE_AM_OID);
	if (!OidIsValid(opclass))
		return true;
	intype = get_opclass_input_type(opclass);
	proc = get_opfamily_proc(get_opclass_family(opclass), intype, intype,
							 BTEQUALIMAGE_PROC);
	return OidIsValid(proc) &&
		DatumGetBool(OidFunctionCall1Coll(proc, get_typcollation(typid),
										  ObjectIdGetDatum(intype)));
}

static HsMemcmpSupport
min_support(HsMemcmpSupport a, HsMemcmpSupport b)
{
	return a < b ? a : b;
}

/*
 * The support of a composite type: the weakest of its attributes'; NONE
 * (but for identity) with an attribute under a nondeterministic collation.
 */
static HsMemcmpSupport
composite_support(Oid typid, bool identity)
{
	TupleDesc	tupdesc = lookup_rowtype_tupdesc(typid, -1);
	HsMemcmpSupport result = HS_MEMCMP_ORDERED;
	int			i;

	for (i = 0; i < tupdesc->natts && result != HS_MEMCMP_NONE; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (att->attisdropped)
			continue;
		/* (record_eq compares such an attribute under its collation) */
		if (!identity && OidIsValid(att->attcollation) &&
			!get_collation_isdeterministic(att->attcollation))
			result = HS_MEMCMP_NONE;
		else
			result = min_support(result, type_support(att->atttypid, identity));
	}
	ReleaseTupleDesc(tupdesc);
	return result;
}

static HsMemcmpSupport
type_support(Oid typid, bool identity)
{
	int			builtin = builtin_support(typid);

	check_stack_depth();
	if (builtin >= 0)
		return (HsMemcmpSupport) builtin;

	switch (classify_type(typid))
	{
		case TYPECLASS_DOMAIN:
			return type_support(getBaseType(typid), identity);
		case TYPECLASS_ENUM:
			return HS_MEMCMP_EQUALITY;
		case TYPECLASS_COMPOSITE:
			return composite_support(typid, identity);
		case TYPECLASS_ARRAY:
			return type_support(get_element_type(typid), identity);
		case TYPECLASS_SEND:
			return identity || send_bytes_equate(typid) ? HS_MEMCMP_EQUALITY : HS_MEMCMP_NONE;
		case TYPECLASS_NONE:
			break;
	}
	return HS_MEMCMP_NONE;
}

static void
unsupported_type(Oid typid)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("type %s cannot be encoded as a key",
					format_type_be(typid)),
			 errdetail("Only types with a built-in key encoding, or with a binary send function whose bytes are equal exactly when the values are, can be keys.")));
}

/* ---------------------------------------------------------------------
 * Encoding
 * ---------------------------------------------------------------------
 */

/* Appends the value encoding (marker byte and payload) of one datum. */
static void
encode_value(StringInfo buf, Datum value, bool isnull, Oid typid)
{
	if (isnull)
		put_u8(buf, HS_MEMCMP_NULL);
	else
	{
		put_u8(buf, HS_MEMCMP_NOT_NULL);
		encode_payload(buf, value, typid);
	}
}

/* Appends the payload of a datum that is not NULL. */
static void
encode_payload(StringInfo buf, Datum value, Oid typid)
{
	check_stack_depth();

	switch (typid)
	{
		case BOOLOID:
			put_u8(buf, DatumGetBool(value) ? 1 : 0);
			return;
		case CHAROID:
			put_u8(buf, (uint8) DatumGetChar(value));
			return;
		case INT2OID:
			put_int16(buf, DatumGetInt16(value));
			return;
		case INT4OID:
		case DATEOID:
			put_int32(buf, DatumGetInt32(value));
			return;
		case INT8OID:
		case CASHOID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			put_int64(buf, DatumGetInt64(value));
			return;
		case OIDOID:
			put_be32(buf, DatumGetObjectId(value));
			return;
		case LSNOID:
			put_be64(buf, DatumGetLSN(value));
			return;
		case FLOAT4OID:
			put_float4(buf, DatumGetFloat4(value));
			return;
		case FLOAT8OID:
			put_float8(buf, DatumGetFloat8(value));
			return;
		case TIMETZOID:
			put_timetz(buf, DatumGetTimeTzADTP(value));
			return;
		case INTERVALOID:
			put_interval(buf, DatumGetIntervalP(value));
			return;
		case UUIDOID:
			appendBinaryStringInfo(buf,
								   (char *) DatumGetUUIDP(value)->data,
								   UUID_LEN);
			return;
		case MACADDROID:
			appendBinaryStringInfo(buf, (char *) DatumGetMacaddrP(value),
								   sizeof(macaddr));
			return;
		case MACADDR8OID:
			appendBinaryStringInfo(buf, (char *) DatumGetMacaddr8P(value),
								   sizeof(macaddr8));
			return;
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
			put_varlena(buf, value);
			return;
		case BPCHAROID:
			put_bpchar(buf, value);
			return;
		case NAMEOID:
			{
				const char *s = NameStr(*DatumGetName(value));

				put_string(buf, s, strnlen(s, NAMEDATALEN));
				return;
			}
		case NUMERICOID:
			put_numeric(buf, DatumGetNumeric(value));
			return;
		case INT2VECTOROID:
		case OIDVECTOROID:
			put_array(buf, value);
			return;
		case JSONBOID:
			put_jsonb(buf, DatumGetJsonbP(value));
			return;
		case RECORDOID:
			put_composite(buf, value);
			return;
		default:
			break;
	}

	switch (classify_type(typid))
	{
		case TYPECLASS_DOMAIN:
			encode_payload(buf, value, getBaseType(typid));
			return;
		case TYPECLASS_ENUM:
			put_be32(buf, DatumGetObjectId(value));
			return;
		case TYPECLASS_COMPOSITE:
			put_composite(buf, value);
			return;
		case TYPECLASS_ARRAY:
			put_array(buf, value);
			return;
		case TYPECLASS_SEND:
			put_send_bytes(buf, value, typid);
			return;
		case TYPECLASS_NONE:
			break;
	}
	unsupported_type(typid);
}

/* ---------------------------------------------------------------------
 * Interface
 * ---------------------------------------------------------------------
 */

/* How well values of typid can be encoded. */
HsMemcmpSupport
HsMemcmpTypeSupport(Oid typid)
{
	return type_support(typid, false);
}

/* Can values of typid be encoded at all (to tell stored rows apart)? */
bool
HsMemcmpTypeIdentifies(Oid typid)
{
	return type_support(typid, true) != HS_MEMCMP_NONE;
}

/*
 * Do equal bytes of typid's encoding stand for values Postgres prints
 * differently (the identity tails above)?  Types encoded by their send
 * bytes never do; a domain, array or row type does when what it holds
 * does.
 */
static bool
type_folds(Oid typid)
{
	check_stack_depth();
	switch (typid)
	{
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
		case INTERVALOID:
		case JSONBOID:
		case BPCHAROID:
		case RECORDOID:			/* its row type is known only from a value */
			return true;
		default:
			break;
	}
	if (builtin_support(typid) >= 0)
		return false;
	switch (classify_type(typid))
	{
		case TYPECLASS_DOMAIN:
			return type_folds(getBaseType(typid));
		case TYPECLASS_ARRAY:
			return type_folds(get_element_type(typid));
		case TYPECLASS_COMPOSITE:
			{
				TupleDesc	tupdesc = lookup_rowtype_tupdesc(typid, -1);
				bool		folds = false;

				for (int i = 0; i < tupdesc->natts && !folds; i++)
					if (!TupleDescAttr(tupdesc, i)->attisdropped)
						folds = type_folds(TupleDescAttr(tupdesc, i)->atttypid);
				ReleaseTupleDesc(tupdesc);
				return folds;
			}
		default:
			return false;
	}
}

bool
HsMemcmpTypeFolds(Oid typid)
{
	return type_folds(typid);
}

FmgrInfo *
HsMemcmpIdentitySends(TupleDesc desc, int n)
{
	FmgrInfo   *sends = NULL;

	for (int c = 0; c < n; c++)
	{
		Oid			typid = TupleDescAttr(desc, c)->atttypid;
		Oid			typsend;
		bool		typisvarlena;

		if (!type_folds(typid))
			continue;
		if (sends == NULL)
			sends = palloc0(sizeof(FmgrInfo) * n);	/* fn_oid InvalidOid: none */
		getTypeBinaryOutputInfo(typid, &typsend, &typisvarlena);
		fmgr_info(typsend, &sends[c]);
	}
	return sends;
}

void
HsMemcmpAppendIdentity(StringInfo buf, Datum value, bool isnull, FmgrInfo *send)
{
	bytea	   *bytes;

	if (isnull || !OidIsValid(send->fn_oid))
		return;
	bytes = SendFunctionCall(send, value);
	put_string(buf, VARDATA(bytes), VARSIZE(bytes) - VARHDRSZ);
	pfree(bytes);
}

/* Appends the encoding of one value, inverted when descending. */
void
HsMemcmpEncode(StringInfo buf, Datum value, bool isnull, Oid typid,
			   bool descending)
{
	HsMemcmpEncodeSortKey(buf, value, isnull, typid, descending, descending);
}

void
HsMemcmpEncodeSortKey(StringInfo buf, Datum value, bool isnull, Oid typid,
					  bool descending, bool nulls_first)
{
	int			start = buf->len;

	if (isnull && nulls_first != descending)
		put_u8(buf, HS_MEMCMP_NULL_LOW);
	else
		encode_value(buf, value, isnull, typid);
	if (descending)
	{
		int			i;

		for (i = start; i < buf->len; i++)
			buf->data[i] = (char) ~((uint8) buf->data[i]);
	}
}

/* ---------------------------------------------------------------------
 * Sort keys of types ordered otherwise than their key encoding: enums in
 * their declared order, inet and cidr in network order (the formats are
 * above)
 * ---------------------------------------------------------------------
 */

static bool
is_network_type(Oid base)
{
	return base == INETOID || base == CIDROID;
}

bool
HsTypeHasOwnSortKey(Oid typid)
{
	Oid			base = getBaseType(typid);

	return type_is_enum(base) || is_network_type(base);
}

/*
 * An inet or cidr: family, masked address, netmask length, address.
 * Comparing the masked addresses over their whole length, then the
 * lengths, orders as network_cmp's comparison of their first min(bits)
 * bits, then the lengths: where the first min(bits) agree, the shorter
 * mask's masked address has zeros where the longer one's has its bits.
 */
static void
put_inet(StringInfo buf, inet *ip)
{
	int			nbytes = ip_addrsize(ip);
	int			bits = ip_bits(ip);
	unsigned char masked[16];

	Assert(nbytes <= (int) sizeof(masked));
	for (int i = 0; i < nbytes; i++)
	{
		int			keep = Max(0, Min(8, bits - i * 8));

		masked[i] = ip_addr(ip)[i] & (unsigned char) (0xFF00 >> keep);
	}
	put_u8(buf, ip_family(ip));
	appendBinaryStringInfo(buf, (char *) masked, nbytes);
	put_u8(buf, (uint8) bits);
	appendBinaryStringInfo(buf, (char *) ip_addr(ip), nbytes);
}

static void encode_enum_sort_key(StringInfo buf, Datum value, bool isnull,
								 bool descending, bool nulls_first);

void
HsMemcmpEncodeOwnSortKey(StringInfo buf, Datum value, bool isnull, Oid typid,
						 bool descending, bool nulls_first)
{
	int			start = buf->len;

	if (!is_network_type(getBaseType(typid)))
	{
		encode_enum_sort_key(buf, value, isnull, descending, nulls_first);
		return;
	}
	if (isnull)
	{
		HsMemcmpEncodeSortKey(buf, value, isnull, OIDOID, descending, nulls_first);
		return;
	}
	put_u8(buf, HS_MEMCMP_NOT_NULL);
	put_inet(buf, DatumGetInetPP(value));
	if (descending)
		for (int i = start; i < buf->len; i++)
			buf->data[i] = (char) ~((uint8) buf->data[i]);
}

static void
encode_enum_sort_key(StringInfo buf, Datum value, bool isnull, bool descending,
					 bool nulls_first)
{
	int			start = buf->len;
	Oid			label = DatumGetObjectId(value);
	HeapTuple	tup;

	if (isnull)
	{
		HsMemcmpEncodeSortKey(buf, value, isnull, OIDOID, descending, nulls_first);
		return;
	}
	tup = SearchSysCache1(ENUMOID, ObjectIdGetDatum(label));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid internal value for enum: %u", label)));
	put_u8(buf, HS_MEMCMP_NOT_NULL);
	put_float4(buf, ((Form_pg_enum) GETSTRUCT(tup))->enumsortorder);
	ReleaseSysCache(tup);
	put_be32(buf, label);
	if (descending)
		for (int i = start; i < buf->len; i++)
			buf->data[i] = (char) ~((uint8) buf->data[i]);
}

/* ---------------------------------------------------------------------
 * Sort keys of text under a collation (the format is above)
 * ---------------------------------------------------------------------
 */

bool
HsCollationNeedsSortKey(Oid typid, Oid coll)
{
	Oid			base = getBaseType(typid);

	if (base != TEXTOID && base != VARCHAROID && base != BPCHAROID)
		return false;
	return OidIsValid(coll) && !HsCollationIsBytewise(coll);
}

/* Appends string(the sort key of s[0..len) under locale). */
static void
put_collation_sort_key(StringInfo buf, const char *s, int len, pg_locale_t locale)
{
	char	   *key;
	size_t		keylen;

#ifdef USE_ICU
	if (locale && locale->provider == COLLPROVIDER_ICU)
	{
		UChar	   *u;
		int32_t		ulen = icu_to_uchar(&u, s, len);
		int32_t		cap = Max(ulen * 3 + 16, 64);

		key = palloc(cap);
		keylen = ucol_getSortKey(locale->info.icu.ucol, u, ulen, (uint8_t *) key, cap);
		if (keylen > (size_t) cap)
		{
			pfree(key);
			cap = keylen;
			key = palloc(cap);
			keylen = ucol_getSortKey(locale->info.icu.ucol, u, ulen, (uint8_t *) key, cap);
		}
		if (keylen == 0)
			elog(ERROR, "ICU could not compute the sort key of a string");
		/* the key ends with a 0x00 byte, string() terminates it itself */
		put_string(buf, key, keylen - 1);
		pfree(key);
		pfree(u);
		return;
	}
#endif
	{
		char	   *z = pnstrdup(s, len);
		size_t		cap = len * 4 + 16;

		key = palloc(cap);
		for (;;)
		{
			errno = 0;
#ifdef HAVE_LOCALE_T
			if (locale)
				keylen = strxfrm_l(key, z, cap, locale->info.lt);
			else
#endif
				keylen = strxfrm(key, z, cap);
			if (errno != 0)
				ereport(ERROR,
						(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
						 errmsg("could not compute the collation sort key of a string: %m")));
			if (keylen < cap)
				break;
			cap = keylen + 1;
			key = repalloc(key, cap);
		}
		put_string(buf, key, keylen);
		pfree(key);
		pfree(z);
	}
}

void
HsMemcmpEncodeCollatedSortKey(StringInfo buf, Datum value, bool isnull, Oid typid,
							  Oid coll, bool descending, bool nulls_first)
{
	int			start = buf->len;
	struct varlena *v;
	const char *s;
	int			len;
	pg_locale_t locale;
	Oid			base;

	if (isnull)
	{
		HsMemcmpEncodeSortKey(buf, value, isnull, typid, descending, nulls_first);
		return;
	}
	base = getBaseType(typid);
	v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
	s = VARDATA_ANY(v);
	len = VARSIZE_ANY_EXHDR(v);
	if (base == BPCHAROID)
		while (len > 0 && s[len - 1] == ' ')
			len--;
	/* 0 for the database's default collation when it is libc's */
	locale = pg_newlocale_from_collation(coll);
	put_u8(buf, HS_MEMCMP_NOT_NULL);
	put_collation_sort_key(buf, s, len, locale);
	if (locale == NULL || locale->deterministic)
		put_string(buf, s, len);
	if (descending)
		for (int i = start; i < buf->len; i++)
			buf->data[i] = (char) ~((uint8) buf->data[i]);
	if ((Pointer) v != DatumGetPointer(value))
		pfree(v);
}

MinimalTuple
HsCanonicalTuple(TupleDesc desc, Datum *values, bool *isnull)
{
	Datum	   *flat = palloc(sizeof(Datum) * desc->natts);

	for (int i = 0; i < desc->natts; i++)
	{
		flat[i] = values[i];
		if (!isnull[i] && TupleDescAttr(desc, i)->attlen == -1 &&
			VARATT_IS_EXTENDED(DatumGetPointer(values[i])))
			flat[i] = PointerGetDatum(detoast_attr((struct varlena *) DatumGetPointer(values[i])));
	}
	return heap_form_minimal_tuple(desc, flat, isnull);
}

bool
HsCollationIsBytewise(Oid coll)
{
	HeapTuple	tup;
	bool		result = false;

	if (!OidIsValid(coll) || lc_collate_is_c(coll))
		return true;
	if (coll == DEFAULT_COLLATION_OID)
	{
		const char *lc = GetConfigOption("lc_collate", true, false);

		/* (an ICU default collation orders by its ICU locale, whatever lc_collate says) */
		if (default_locale.provider == COLLPROVIDER_ICU)
			return false;

		return lc && (pg_strcasecmp(lc, "C.UTF-8") == 0 || pg_strcasecmp(lc, "C.utf8") == 0);
	}
	tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(coll));
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		d = SysCacheGetAttr(COLLOID, tup, Anum_pg_collation_collcollate, &isnull);

		if (!isnull &&
			((Form_pg_collation) GETSTRUCT(tup))->collprovider == COLLPROVIDER_LIBC)
		{
			char	   *lc = TextDatumGetCString(d);

			result = pg_strcasecmp(lc, "C.UTF-8") == 0 || pg_strcasecmp(lc, "C.utf8") == 0;
		}
		ReleaseSysCache(tup);
	}
	return result;
}
