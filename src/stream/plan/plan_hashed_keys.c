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

/* Can a group key of this type be hashed (and still be shown)? */
bool
group_key_hashable(Oid type)
{
	return HsMemcmpTypeIdentifies(type) && OidIsValid(extended_hash_proc(type));
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

	if (!OidIsValid(proc))
		elog(ERROR, "type %s has no extended hash function", format_type_be(type));
	return (Expr *) makeFuncExpr(F_BYTEACAT, BYTEAOID,
								 list_make2(int8send_of_hash(proc, e, collation, HASHED_KEY_SEED1),
											int8send_of_hash(proc, e, collation, HASHED_KEY_SEED2)),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/* The hashed key of a group key e, under its own collation. */
Expr *
hashed_group_key(Expr *e)
{
	return hashed_key(e, exprCollation((Node *) e));
}
