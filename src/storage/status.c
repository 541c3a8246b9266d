/*-------------------------------------------------------------------------
 *
 * status.c
 *	  Filling and naming HsStatus values.
 *
 * src/storage/status.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>

#include "hummock_stream/storage/status.h"

bool
HsStatusSet(HsStatus *st, HsCode code, const char *fmt,...)
{
	va_list		ap;

	st->code = code;
	st->sys_errno = 0;
	st->detail[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(st->msg, sizeof(st->msg), fmt, ap);
	va_end(ap);
	return false;
}

bool
HsStatusDetail(HsStatus *st, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(st->detail, sizeof(st->detail), fmt, ap);
	va_end(ap);
	return false;
}

/* Reports inner as code, with a prefix to its message and its detail. */
bool
HsStatusWrap(HsStatus *st, HsCode code, const HsStatus *inner,
			 const char *fmt,...)
{
	HsStatus	saved = *inner;
	char		prefix[HS_STATUS_MSG_LEN];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	HsStatusSet(st, code, "%s: %s", prefix, saved.msg);
	return HsStatusDetail(st, "%s", saved.detail);
}

bool
HsStatusCorruption(HsStatus *st, const char *file, uint64_t offset,
				   const char *what, const char *expected, const char *actual)
{
	HsStatusSet(st, HS_CORRUPTION, "%s", what);
	return HsStatusDetail(st, "File \"%s\", offset %" PRIu64 ": expected %s, found %s.",
						  file ? file : "(unknown)", offset, expected, actual);
}

/* Returns the name of a status code ("ok", "corruption", ...). */
const char *
HsCodeName(HsCode code)
{
	switch (code)
	{
		case HS_OK:
			return "ok";
		case HS_NOT_FOUND:
			return "not found";
		case HS_CORRUPTION:
			return "corruption";
		case HS_IO_ERROR:
			return "I/O error";
		case HS_INVALID_ARGUMENT:
			return "invalid argument";
		case HS_NOT_SUPPORTED:
			return "not supported";
	}
	return "unknown";
}
