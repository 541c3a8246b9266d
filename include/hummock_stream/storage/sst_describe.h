/*-------------------------------------------------------------------------
 *
 * sst_describe.h
 *	  A human-readable dump of an SST file's layout.
 *
 * HsSstDescribe validates the file as HsSstReaderOpen does, then prints, in
 * file order, every data block (offset, stored and raw size, compression,
 * checksum, entry and restart counts, first and last key), the filter
 * block (size, lines, probes, bits per key), the properties (all fields,
 * per-table stats), the index block and the footer.
 *
 * The text is deterministic -- no pointers, paths or times, keys in hex --
 * so it serves golden tests (pg_regress via an introspection function)
 * as well as debugging.  Keys are shown as "t<table id> <user key hex>
 * @<epoch>", user keys cut after 32 bytes with "...".
 *
 * On error the dump so far stays in out, followed by a line
 * "error: <message>", and the function returns false with st filled.
 *
 * include/hummock_stream/storage/sst_describe.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_SST_DESCRIBE_H
#define HS_STORAGE_SST_DESCRIBE_H

#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/status.h"

/* Append the description of the SST at path to out (NUL-terminated). */
extern bool HsSstDescribe(HsEnv *env, const char *path, HsBuf *out,
						HsStatus *st);

/* Append "t<table> <user key hex> @<epoch>" for a full key to out. */
extern void HsSstDescribeKey(HsBuf *out, HsSlice full_key);

#endif							/* HS_STORAGE_SST_DESCRIBE_H */
