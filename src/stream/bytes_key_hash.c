/*-------------------------------------------------------------------------
 *
 * bytes_key_hash.c
 *	  Hash tables keyed by byte strings (see bytes_key_hash.h).
 *
 * src/stream/bytes_key_hash.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"

#include "hummock_stream/stream/bytes_key_hash.h"

static uint32
bytes_key_hash(const void *key, Size keysize)
{
	const HsBytesKey *k = key;

	return hash_bytes((const unsigned char *) k->data, k->len);
}

static int
bytes_key_match(const void *key1, const void *key2, Size keysize)
{
	const HsBytesKey *a = key1;
	const HsBytesKey *b = key2;

	if (a->len != b->len)
		return 1;
	return memcmp(a->data, b->data, a->len);
}

HTAB *
HsBytesKeyHashCreate(const char *name, Size entrysize, long nelem, MemoryContext cxt)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(HsBytesKey);
	ctl.entrysize = entrysize;
	ctl.hash = bytes_key_hash;
	ctl.match = bytes_key_match;
	ctl.hcxt = cxt;
	return hash_create(name, nelem, &ctl,
					   HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
}
