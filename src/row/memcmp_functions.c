/*-------------------------------------------------------------------------
 *
 * memcmp_functions.c
 *	  SQL functions over the memcomparable key encoding (memcmp_key.h), for
 *	  tests: the encoding of a value, and the support of a type.
 *
 * memcmp_key(value anyelement, descending boolean) returns the bytes
 * HsMemcmpEncode() appends for the value; bytea compares by memcmp(), so
 * SQL can check the encoding's order against the type's own.  It is not
 * strict: a NULL value gives the NULL encoding.
 *
 * src/row/memcmp_functions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "hummock_stream/row/memcmp_key.h"

PG_FUNCTION_INFO_V1(hummock_stream_memcmp_key);
PG_FUNCTION_INFO_V1(hummock_stream_memcmp_support);

/* memcmp_key(value anyelement, descending boolean) returns bytea */
Datum
hummock_stream_memcmp_key(PG_FUNCTION_ARGS)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 0);
	StringInfoData buf;
	bytea	   *result;

	if (!OidIsValid(typid))
		elog(ERROR, "could not determine the type of the value");
	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();

	/*
	 * A RECORD's row type is known only from its datum: the encoder checks
	 * each column as it meets it.
	 */
	if (typid != RECORDOID && HsMemcmpTypeSupport(typid) == HS_MEMCMP_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("type %s cannot be encoded as a key",
						format_type_be(typid)),
				 errdetail("Only types with a built-in key encoding or a binary send function can be keys.")));

	initStringInfo(&buf);
	HsMemcmpEncode(&buf, PG_ARGISNULL(0) ? (Datum) 0 : PG_GETARG_DATUM(0),
				   PG_ARGISNULL(0), typid, PG_GETARG_BOOL(1));

	result = (bytea *) palloc(VARHDRSZ + buf.len);
	SET_VARSIZE(result, VARHDRSZ + buf.len);
	memcpy(VARDATA(result), buf.data, buf.len);
	pfree(buf.data);
	PG_RETURN_BYTEA_P(result);
}

/* memcmp_support(regtype) returns 'none', 'equality' or 'ordered' */
Datum
hummock_stream_memcmp_support(PG_FUNCTION_ARGS)
{
	Oid			typid = PG_GETARG_OID(0);
	const char *name = "none";

	if (!SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(typid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type with OID %u does not exist", typid)));
	switch (HsMemcmpTypeSupport(typid))
	{
		case HS_MEMCMP_NONE:
			name = "none";
			break;
		case HS_MEMCMP_EQUALITY:
			name = "equality";
			break;
		case HS_MEMCMP_ORDERED:
			name = "ordered";
			break;
	}
	PG_RETURN_TEXT_P(cstring_to_text(name));
}
