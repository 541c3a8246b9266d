/*-------------------------------------------------------------------------
 *
 * status.h
 *	  Result values of the hummock storage core.
 *
 * The storage core (src/storage/) never includes postgres.h and never
 * throws.  Every fallible function takes an HsStatus * as its last argument
 * and returns bool: true on success; on failure it returns false and fills
 * the status with a code, a one-line message (lowercase, no period, in the
 * style of PostgreSQL primary messages) and a detail sentence naming the
 * file, offset, expected and actual values where they apply.
 *
 * The Postgres glue (src/pg/storage_error.c) turns a failed status into an
 * ereport: HS_CORRUPTION becomes ERRCODE_DATA_CORRUPTED, HS_IO_ERROR uses
 * the saved errno, and so on.
 *
 * include/hummock_stream/storage/status.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_STATUS_H
#define HS_STORAGE_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum HsCode
{
	HS_OK = 0,
	HS_NOT_FOUND,				/* a key or file does not exist */
	HS_CORRUPTION,				/* on-disk data fails validation */
	HS_IO_ERROR,				/* the OS refused a file operation; see
								 * sys_errno */
	HS_INVALID_ARGUMENT,		/* a caller broke a documented precondition
								 * (e.g. out-of-order keys to a builder) */
	HS_NOT_SUPPORTED			/* unknown format version, compression kind */
} HsCode;

#define HS_STATUS_MSG_LEN		256
#define HS_STATUS_DETAIL_LEN	512

typedef struct HsStatus
{
	HsCode		code;
	int			sys_errno;		/* errno for HS_IO_ERROR, else 0 */
	char		msg[HS_STATUS_MSG_LEN];
	char		detail[HS_STATUS_DETAIL_LEN];	/* may be empty */
} HsStatus;

/* Reset a status to HS_OK. */
static inline void
HsStatusClear(HsStatus *st)
{
	st->code = HS_OK;
	st->sys_errno = 0;
	st->msg[0] = '\0';
	st->detail[0] = '\0';
}

/* Is the status HS_OK? */
static inline bool
HsStatusOk(const HsStatus *st)
{
	return st->code == HS_OK;
}

/*
 * Fill a status and return false, so callers can write
 *		return HsStatusSet(st, HS_CORRUPTION, "...", ...);
 * The detail is set separately with HsStatusDetail().
 */
extern bool HsStatusSet(HsStatus *st, HsCode code, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));
extern bool HsStatusDetail(HsStatus *st, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/*
 * Report an inner failure as code: the message becomes "<fmt...>: <inner's
 * message>", the detail stays inner's.  inner may be st itself.  Returns
 * false.
 */
extern bool HsStatusWrap(HsStatus *st, HsCode code, const HsStatus *inner,
						 const char *fmt,...)
			__attribute__((format(printf, 4, 5)));

/* Convenience for corruption: message plus "file F, offset O: expected E, found A" detail. */
extern bool HsStatusCorruption(HsStatus *st, const char *file, uint64_t offset,
							   const char *what, const char *expected,
							   const char *actual);

extern const char *HsCodeName(HsCode code);

#endif							/* HS_STORAGE_STATUS_H */
