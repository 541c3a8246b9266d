/*-------------------------------------------------------------------------
 *
 * memcmp_key.h
 *	  Order-preserving ("memcomparable") byte encoding of PostgreSQL datums,
 *	  for the keys of state tables.
 *
 * The encoding of a value is prefix-free, so the concatenated encodings
 * of several columns form a composite key whose memcmp() order is the
 * lexicographic order of the columns.  The byte format is documented in
 * src/row/memcmp_key.c.
 *
 * include/hummock_stream/row/memcmp_key.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_ROW_MEMCMP_KEY_H
#define HS_ROW_MEMCMP_KEY_H

#include "access/tupdesc.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

/* How well a type can be encoded. */
typedef enum HsMemcmpSupport
{
	HS_MEMCMP_NONE = 0,			/* cannot be a key */
	HS_MEMCMP_EQUALITY,			/* equal values (by the type's default
								 * btree/hash equality) encode to equal
								 * bytes, but byte order is not the type's
								 * order */
	HS_MEMCMP_ORDERED			/* memcmp order of encodings == the type's
								 * default btree order (text: "C" collation
								 * byte order) */
} HsMemcmpSupport;

/*
 * How well values of typid can be encoded (follows domains).  RECORD is
 * HS_MEMCMP_NONE here: its row type is known only from a value.
 */
extern HsMemcmpSupport HsMemcmpTypeSupport(Oid typid);

/*
 * Can values of typid be encoded at all?  Where a key only tells stored
 * rows apart (a source's primary key, the rows of a view without a key),
 * a type encoded by its send function's bytes serves even when equal
 * values may have other bytes (citext, hstore): HsMemcmpTypeSupport()
 * says HS_MEMCMP_NONE for such a type, which cannot group or join.
 */
extern bool HsMemcmpTypeIdentifies(Oid typid);

/*
 * Does the encoding of typid give equal bytes to values that Postgres
 * prints differently (numeric 1.0 and 1.00, float -0 and 0, ...)?  A key
 * that must tell them apart appends, after all its columns, the identity
 * tail of each such column (memcmp_key.c, identity tails):
 * HsMemcmpIdentitySends() gives, for the first n columns of desc, NULL if
 * none folds, else per column the send function of a folding one (fn_oid
 * InvalidOid for the others; palloc'd in the current context), which
 * HsMemcmpAppendIdentity() calls for a value of that column.
 */
extern bool HsMemcmpTypeFolds(Oid typid);
extern FmgrInfo *HsMemcmpIdentitySends(TupleDesc desc, int n);
extern void HsMemcmpAppendIdentity(StringInfo buf, Datum value, bool isnull, FmgrInfo *send);

/*
 * Append the encoding of one value to buf.  NULL sorts after every value
 * (NULLS LAST).  descending: the bytes are inverted so memcmp order is the
 * reverse order (the encoding is prefix-free, so inverting reverses the
 * order; NULL then sorts first, as for DESC in PostgreSQL).  Raises
 * ERRCODE_FEATURE_NOT_SUPPORTED on meeting a value (not NULL) of a type
 * of support HS_MEMCMP_NONE; callers check HsMemcmpTypeSupport() first.
 * A RECORD value is encoded by the row type its datum carries.
 */
extern void HsMemcmpEncode(StringInfo buf, Datum value, bool isnull,
						   Oid typid, bool descending);

/*
 * The same for a sort key whose NULLs come first (nulls_first) or last:
 * HsMemcmpEncode's NULLs come last ascending and first descending; for
 * the other placement a NULL gets a marker below every value's.
 */
extern void HsMemcmpEncodeSortKey(StringInfo buf, Datum value, bool isnull,
								  Oid typid, bool descending, bool nulls_first);

/*
 * Does a sort key of typid under collation coll need the collated
 * encoding (text, varchar or bpchar, or a domain over one, under a
 * collation whose order is not the byte order)?
 */
extern bool HsCollationNeedsSortKey(Oid typid, Oid coll);

/*
 * HsMemcmpEncodeSortKey for a string value under collation coll, in the
 * collation's order (the collated format of memcmp_key.c).  Only for the
 * types HsCollationNeedsSortKey accepts.
 */
extern void HsMemcmpEncodeCollatedSortKey(StringInfo buf, Datum value, bool isnull,
										  Oid typid, Oid coll, bool descending,
										  bool nulls_first);

/*
 * Is typid (or the base type of a domain over it) ordered otherwise than
 * by its key encoding: an enum (its declared order), inet or cidr (whose
 * keys only tell values apart)?
 */
extern bool HsTypeHasOwnSortKey(Oid typid);

/*
 * HsMemcmpEncodeSortKey for a value of a type HsTypeHasOwnSortKey accepts,
 * in the type's order (the enum and inet formats of memcmp_key.c).
 */
extern void HsMemcmpEncodeOwnSortKey(StringInfo buf, Datum value, bool isnull,
									 Oid typid, bool descending, bool nulls_first);

/*
 * A row's own bytes, for identifying it when it has no key: a MinimalTuple
 * of desc formed from the values with every varlena detoasted, so equal
 * rows (a delete and the insert it undoes, whatever their storage) give
 * equal bytes.  palloc'd.
 */
extern struct MinimalTupleData *HsCanonicalTuple(TupleDesc desc, Datum *values, bool *isnull);

/*
 * Is collation coll's order the byte order of UTF-8 text (C, POSIX,
 * C.UTF-8), the order of text keys (memcmp_key.c)?
 */
extern bool HsCollationIsBytewise(Oid coll);

#endif							/* HS_ROW_MEMCMP_KEY_H */
