/*-------------------------------------------------------------------------
 *
 * epoch.h
 *	  Epochs and PostgreSQL time.
 *
 * An epoch is (unix ms - 2025-01-01) << 16 | sequence (key.h); these
 * helpers convert between epochs, the wall clock and timestamptz.
 *
 * include/hummock_stream/meta/epoch.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_EPOCH_H
#define HS_META_EPOCH_H

#include "datatype/timestamp.h"

#include "hummock_stream/storage/key.h"

/* Milliseconds since the Unix epoch, now. */
extern int64 HsUnixMsNow(void);

/* The epoch of the wall clock now (sequence 0). */
extern HsEpoch HsEpochNow(void);

/* The epoch of now minus ms (0 if that is before the epoch base). */
extern HsEpoch HsEpochMsAgo(int64 ms);

/* Milliseconds since the Unix epoch of a timestamptz. */
extern int64 HsTimestampToUnixMs(TimestampTz ts);

/* The wall-clock time of an epoch. */
extern TimestampTz HsEpochToTimestamp(HsEpoch e);

#endif							/* HS_META_EPOCH_H */
