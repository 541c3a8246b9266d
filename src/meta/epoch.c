/*-------------------------------------------------------------------------
 *
 * epoch.c
 *	  Epochs and PostgreSQL time.
 *
 * src/meta/epoch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/timestamp.h"

#include "hummock_stream/meta/epoch.h"

/* Microseconds between the Unix epoch and the PostgreSQL epoch (2000). */
#define UNIX_TO_PG_USECS \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC)

int64
HsUnixMsNow(void)
{
	return (GetCurrentTimestamp() + UNIX_TO_PG_USECS) / 1000;
}

HsEpoch
HsEpochNow(void)
{
	return HsEpochFromUnixMs(HsUnixMsNow(), 0);
}

HsEpoch
HsEpochMsAgo(int64 ms)
{
	int64		t = HsUnixMsNow() - ms;

	return t > HS_EPOCH_UNIX_MS_BASE ? HsEpochFromUnixMs(t, 0) : 0;
}

TimestampTz
HsEpochToTimestamp(HsEpoch e)
{
	return (TimestampTz) HsEpochToUnixMs(e) * 1000 - UNIX_TO_PG_USECS;
}

int64
HsTimestampToUnixMs(TimestampTz ts)
{
	return (ts + UNIX_TO_PG_USECS) / 1000;
}
