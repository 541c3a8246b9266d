/*-------------------------------------------------------------------------
 *
 * bytes_key_hash.h
 *	  Hash tables (dynahash) keyed by byte strings, for the executors'
 *	  in-memory caches (aggregation groups, join keys, Top-N groups).
 *
 * include/hummock_stream/stream/bytes_key_hash.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_BYTES_KEY_HASH_H
#define HS_STREAM_BYTES_KEY_HASH_H

#include "utils/hsearch.h"

/*
 * The key of an entry: bytes compared by length and content.  An entry
 * type starts with one.  hash_search copies the HsBytesKey itself, not the
 * bytes: after HASH_ENTER makes a new entry, point its key at bytes that
 * live as long as the entry.
 */
typedef struct HsBytesKey
{
	char	   *data;
	int			len;
} HsBytesKey;

/* A hash table of entries of entrysize bytes (starting with HsBytesKey) in cxt. */
extern HTAB *HsBytesKeyHashCreate(const char *name, Size entrysize, long nelem,
								  MemoryContext cxt);

#endif							/* HS_STREAM_BYTES_KEY_HASH_H */
