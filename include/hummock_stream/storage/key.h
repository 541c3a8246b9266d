/*-------------------------------------------------------------------------
 *
 * key.h
 *	  Full keys, epochs and values of the hummock storage core.
 *
 * Full key (persisted; never change):
 *
 *		table_id (u32, big-endian) | user key bytes | ~epoch (u64, big-endian)
 *
 * The "table key" is table_id | user key; the core treats the user key as
 * opaque bytes (the stream layer encodes primary keys memcomparably).
 * Ordering compares the table key bytewise (memcmp, shorter prefix first)
 * and then the epoch *descending*, so for one table key the newest version
 * comes first.  Because the epoch is stored inverted, comparing the 8-byte
 * suffix bytewise gives the descending order; but the comparison must split
 * the suffix off first (a plain memcmp of the whole key is wrong when one
 * user key is a prefix of another).
 *
 * Epoch: 64 bits, (unix ms - 2025-01-01T00:00:00Z) << 16 | sequence.
 * HS_EPOCH_MAX (all ones) is used to seek "the newest version of a key".
 *
 * Value (persisted; never change): one kind byte followed by the payload.
 *		HS_VALUE_PUT	= 0: payload is the row bytes
 *		HS_VALUE_DELETE = 1: tombstone, empty payload
 *
 * include/hummock_stream/storage/key.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_KEY_H
#define HS_STORAGE_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t HsEpoch;
typedef uint32_t HsTableId;

#define HS_EPOCH_INVALID	((HsEpoch) 0)
#define HS_EPOCH_MAX		(~(HsEpoch) 0)
#define HS_EPOCH_LEN		8
#define HS_TABLE_ID_LEN		4
/* Shortest full key: table id and epoch around an empty user key. */
#define HS_MIN_FULL_KEY_LEN (HS_TABLE_ID_LEN + HS_EPOCH_LEN)

/* Persisted value kinds: never change or reuse. */
typedef enum HsValueKind
{
	HS_VALUE_PUT = 0,
	HS_VALUE_DELETE = 1
} HsValueKind;

/* A borrowed byte range. */
typedef struct HsSlice
{
	const uint8_t *data;
	size_t		len;
} HsSlice;

/* Returns the slice of len bytes at data. */
static inline HsSlice
HsSliceMake(const void *data, size_t len)
{
	HsSlice		s;

	s.data = (const uint8_t *) data;
	s.len = len;
	return s;
}

/* Bytewise comparison, shorter prefix first. */
static inline int
HsSliceCompare(HsSlice a, HsSlice b)
{
	size_t		n = a.len < b.len ? a.len : b.len;
	int			r = n ? memcmp(a.data, b.data, n) : 0;

	if (r != 0)
		return r;
	return (a.len > b.len) - (a.len < b.len);
}

/* Writes v as a big-endian u32. */
static inline void
HsPutBE32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) (v >> 24);
	p[1] = (uint8_t) (v >> 16);
	p[2] = (uint8_t) (v >> 8);
	p[3] = (uint8_t) v;
}

/* Reads a big-endian u32. */
static inline uint32_t
HsGetBE32(const uint8_t *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) |
		((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

/* Writes v as a big-endian u64. */
static inline void
HsPutBE64(uint8_t *p, uint64_t v)
{
	HsPutBE32(p, (uint32_t) (v >> 32));
	HsPutBE32(p + 4, (uint32_t) v);
}

/* Reads a big-endian u64. */
static inline uint64_t
HsGetBE64(const uint8_t *p)
{
	return ((uint64_t) HsGetBE32(p) << 32) | HsGetBE32(p + 4);
}

/* Parts of a full key (caller guarantees len >= HS_MIN_FULL_KEY_LEN). */
static inline HsTableId
HsFullKeyTableId(HsSlice fk)
{
	return HsGetBE32(fk.data);
}

/* Returns the epoch of a full key. */
static inline HsEpoch
HsFullKeyEpoch(HsSlice fk)
{
	return ~HsGetBE64(fk.data + fk.len - HS_EPOCH_LEN);
}

/* table_id | user key: the full key without its epoch. */
static inline HsSlice
HsFullKeyTableKey(HsSlice fk)
{
	return HsSliceMake(fk.data, fk.len - HS_EPOCH_LEN);
}

/* The user key alone. */
static inline HsSlice
HsFullKeyUserKey(HsSlice fk)
{
	return HsSliceMake(fk.data + HS_TABLE_ID_LEN,
					   fk.len - HS_TABLE_ID_LEN - HS_EPOCH_LEN);
}

/*
 * Compare two full keys: table key ascending, then epoch descending.
 */
static inline int
HsFullKeyCompare(HsSlice a, HsSlice b)
{
	int			r = HsSliceCompare(HsFullKeyTableKey(a), HsFullKeyTableKey(b));

	if (r != 0)
		return r;
	/* the stored ~epoch compares ascending = epoch descending */
	return memcmp(a.data + a.len - HS_EPOCH_LEN,
				  b.data + b.len - HS_EPOCH_LEN, HS_EPOCH_LEN);
}

/*
 * Encode table_id | user_key | ~epoch into buf, which must have room for
 * user_key_len + HS_MIN_FULL_KEY_LEN bytes.  Returns the length written.
 */
static inline size_t
HsFullKeyEncode(uint8_t *buf, HsTableId table_id, const void *user_key,
				size_t user_key_len, HsEpoch epoch)
{
	HsPutBE32(buf, table_id);
	if (user_key_len)
		memcpy(buf + HS_TABLE_ID_LEN, user_key, user_key_len);
	HsPutBE64(buf + HS_TABLE_ID_LEN + user_key_len, ~epoch);
	return user_key_len + HS_MIN_FULL_KEY_LEN;
}

/* Epoch <-> wall clock: ms since 2025-01-01T00:00:00Z in the high 48 bits. */
#define HS_EPOCH_UNIX_MS_BASE	INT64_C(1735689600000)
#define HS_EPOCH_SEQ_BITS		16

/* Returns the epoch of wall-clock time unix_ms with sequence seq. */
static inline HsEpoch
HsEpochFromUnixMs(int64_t unix_ms, uint16_t seq)
{
	return ((HsEpoch) (unix_ms - HS_EPOCH_UNIX_MS_BASE) << HS_EPOCH_SEQ_BITS) |
		seq;
}

/* Returns the wall-clock time of an epoch in ms since 1970. */
static inline int64_t
HsEpochToUnixMs(HsEpoch e)
{
	return (int64_t) (e >> HS_EPOCH_SEQ_BITS) + HS_EPOCH_UNIX_MS_BASE;
}

#endif							/* HS_STORAGE_KEY_H */
