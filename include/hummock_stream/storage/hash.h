/*-------------------------------------------------------------------------
 *
 * hash.h
 *	  A fast 64-bit hash of byte strings (bloom filters, block cache).
 *
 * HsHash64 is a multiply-fold hash in the style of wyhash: input words are
 * xored with constants and multiplied 64x64->128, the two halves folded
 * with xor.  Short inputs (the common case: table id + a 16-byte key) take
 * two or three multiplications.  It is not a cryptographic hash.
 *
 * The bloom filters of SST files store bits chosen by this function, so
 * its output is part of the on-disk format: never change it (a fixed test
 * vector in test_hash.c guards it).  A different hash needs a new filter
 * format version.
 *
 * include/hummock_stream/storage/hash.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_HASH_H
#define HS_STORAGE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Hash len bytes at data; different seeds give independent functions. */
extern uint64_t HsHash64(const void *data, size_t len, uint64_t seed);

/* A 64-bit integer finalizer (bijective), for hashing ids. */
static inline uint64_t
HsHashU64(uint64_t x)
{
	x ^= x >> 32;
	x *= UINT64_C(0xD6E8FEB86659FD93);
	x ^= x >> 32;
	x *= UINT64_C(0xD6E8FEB86659FD93);
	x ^= x >> 32;
	return x;
}

#endif							/* HS_STORAGE_HASH_H */
