/*-------------------------------------------------------------------------
 *
 * plan_hashed_keys.c
 *	  Group keys of types whose equal values can differ in their bytes.
 *
 * A group key is found in state by its key encoding (memcmp_key.c), which
 * must give equal values equal bytes.  Some types have no such encoding:
 * citext ('Ab' = 'aB'), numrange ('[1.0,2)' = '[1.00,2)'), tsvector,
 * hstore, and text under a nondeterministic collation.  Their encoding
 * (their send function's bytes) tells stored rows apart but does not
 * group them.
 *
 * Such a key is grouped by what Postgres's own hash aggregation groups it
 * by: the type's hash function, which gives equal values equal hashes.
 * The level groups by the hashed key
 *
 *		int8send(H(e, seed1)) || int8send(H(e, seed2))		(bytea, 16 bytes)
 *
 * where H is the extended hash function of the type's default hash
 * operator class (its type cache entry's hash_extended_proc), called with
 * the key's collation, and shows the key's value through a min of it
 * taken in its encoding's order (the bytes the type sends): always the
 * form of one of the group's rows, as Postgres shows one of them
 * (plan_agg.c, as for keys whose encoding folds values).  A NULL key is
 * NULL (the hash functions are strict).
 *
 * A join key of such a type is hashed the same way on both sides, under
 * the collation of the join's equality, and the equality itself stays a
 * condition of the join (plan_join.c): rows whose hashes collide but
 * whose values differ do not match.
 *
 * An array's hash is its elements' alone, where its equality compares its
 * dimensions and lower bounds too ('{a,b}' <> '{{a},{b}}'): the hashed key
 * of an array ends with textsend(array_dims(e)) ('' for an empty array),
 * and a type holding an array elsewhere (in a row, a range) is not hashed.
 *
 * Two unequal values fall into one group only if both of their 64-bit
 * hashes collide (about 2^-128 for a pair, as for a UUID).  The hashes
 * are persisted in state: a view's groups depend on its hash functions
 * staying what they are, as hash partitioning's bounds do (Postgres keeps
 * them stable across versions and platforms for that reason).
 *
 * src/stream/plan/plan_hashed_keys.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "hummock_stream/row/memcmp_key.h"
#include "plan_internal.h"

/* The two seeds of a hashed key (arbitrary odd constants; persisted). */
#define HASHED_KEY_SEED1	INT64CONST(0x5bd1e9955bd1e995)
#define HASHED_KEY_SEED2	INT64CONST(0x27d4eb2f165667c5)

/*
 * The extended hash function of type's default hash operator class, if it
 * has one that is strict (so a NULL key stays NULL), else InvalidOid.
 */
static Oid
extended_hash_proc(Oid type)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_HASH_EXTENDED_PROC);

	if (!OidIsValid(tc->hash_extended_proc) || !func_strict(tc->hash_extended_proc))
		return InvalidOid;
	return tc->hash_extended_proc;
}

/*
 * A key of a collatable type that no collation was derived for (the
 * inputs of a set operation under conflicting implicit collations):
 * Postgres cannot compare or hash it, nor can the view (42P22, as
 * Postgres's executor says).
 */
void
check_key_collation(Oid type, Oid collation)
{
	if (!OidIsValid(collation) && type_is_collatable(type))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_COLLATION),
				 errmsg("could not determine which collation to use for string hashing"),
				 errhint("Use the COLLATE clause to set the collation explicitly.")));
}

/*
 * Must a group key of this type and collation be hashed: is there no key
 * encoding that gives its equal values equal bytes?
 */
bool
group_key_needs_hash(Oid type, Oid collation)
{
	if (HsMemcmpTypeSupport(type) == HS_MEMCMP_NONE)
		return true;
	return OidIsValid(collation) && !get_collation_isdeterministic(collation);
}

/*
 * Does a value of type hold an array (below a domain, in a row, a range or
 * a multirange)?  An array's hash is its elements' alone, where its
 * equality compares its dimensions and lower bounds too.
 */
static bool
holds_array(Oid type)
{
	check_stack_depth();
	type = getBaseType(type);
	if (OidIsValid(get_element_type(type)))
		return true;
	if (type_is_rowtype(type) && type != RECORDOID)
	{
		TupleDesc	desc = lookup_rowtype_tupdesc(type, -1);
		bool		found = false;

		for (int i = 0; i < desc->natts && !found; i++)
			if (!TupleDescAttr(desc, i)->attisdropped)
				found = holds_array(TupleDescAttr(desc, i)->atttypid);
		ReleaseTupleDesc(desc);
		return found;
	}
	if (type_is_range(type))
		return holds_array(get_range_subtype(type));
	if (type_is_multirange(type))
		return holds_array(get_multirange_range(type));
	return false;
}

/*
 * Can a group key of this type be hashed (and still be shown)?  An array
 * at the top, whose dimensions the key adds (below), but no array inside
 * anything else.
 */
bool
group_key_hashable(Oid type)
{
	Oid			base = getBaseType(type);
	Oid			element = get_element_type(base);

	if (OidIsValid(element) ? holds_array(element) : holds_array(base))
		return false;
	return HsMemcmpTypeIdentifies(type) && OidIsValid(extended_hash_proc(type));
}

bool
key_needs_hash(Oid type, Oid collation, const char *refused, const char *compares_rows)
{
	if (!group_key_needs_hash(type, collation))
		return false;
	if (!group_key_hashable(type))
	{
		if (compares_rows)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s %s is not supported in a streaming materialized view",
							refused, format_type_be(type)),
					 errdetail("%s compares whole rows, and the type's equal values can differ in their bytes, with no hash that finds exactly its equal values (no extended hash function, or an array inside a row or range).",
							   compares_rows)));
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s %s is not supported in a streaming materialized view",
						refused, format_type_be(type)),
				 errdetail("Its equal values can differ in their bytes, and it has no hash that finds exactly its equal values (no extended hash function, or an array inside a row or range).")));
	}
	return true;
}

static Expr *
int8send_of_hash(Oid proc, Expr *e, Oid collation, int64 seed)
{
	Expr	   *h = (Expr *) makeFuncExpr(proc, INT8OID,
										  list_make2(copyObject(e),
													 makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
															   Int64GetDatum(seed), false,
															   FLOAT8PASSBYVAL)),
										  InvalidOid, collation, COERCE_EXPLICIT_CALL);

	return (Expr *) makeFuncExpr(F_INT8SEND, BYTEAOID, list_make1(h),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * The hashed key of e (the format is above), hashed under collation (the
 * collation of the equality it stands for); e's type must be hashable.
 */
Expr *
hashed_key(Expr *e, Oid collation)
{
	Oid			type = exprType((Node *) e);
	Oid			proc = extended_hash_proc(type);

	Expr	   *key;

	if (!OidIsValid(proc))
		elog(ERROR, "type %s has no extended hash function", format_type_be(type));
	key = (Expr *) makeFuncExpr(F_BYTEACAT, BYTEAOID,
								list_make2(int8send_of_hash(proc, e, collation, HASHED_KEY_SEED1),
										   int8send_of_hash(proc, e, collation, HASHED_KEY_SEED2)),
								InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	if (OidIsValid(get_element_type(getBaseType(type))))
	{
		/* an array's dimensions: '' for an empty one (array_dims is NULL) */
		CoalesceExpr *dims = makeNode(CoalesceExpr);

		dims->coalescetype = TEXTOID;
		dims->coalescecollid = DEFAULT_COLLATION_OID;
		dims->args = list_make2(makeFuncExpr(F_ARRAY_DIMS, TEXTOID, list_make1(copyObject(e)),
											 DEFAULT_COLLATION_OID, InvalidOid,
											 COERCE_EXPLICIT_CALL),
								makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
										  CStringGetTextDatum(""), false, false));
		dims->location = -1;
		key = (Expr *) makeFuncExpr(F_BYTEACAT, BYTEAOID,
									list_make2(key, makeFuncExpr(F_TEXTSEND, BYTEAOID,
																 list_make1(dims), InvalidOid,
																 DEFAULT_COLLATION_OID,
																 COERCE_EXPLICIT_CALL)),
									InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	}
	return key;
}

/* The hashed key of a group key e, under its own collation. */
Expr *
hashed_group_key(Expr *e)
{
	return hashed_key(e, exprCollation((Node *) e));
}
