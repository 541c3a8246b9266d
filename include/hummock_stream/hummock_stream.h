/*-------------------------------------------------------------------------
 *
 * hummock_stream.h
 *	  Extension-wide constants of hummock_stream.
 *
 * include/hummock_stream/hummock_stream.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HUMMOCK_STREAM_H
#define HUMMOCK_STREAM_H

#define HS_EXTENSION_NAME		"hummock_stream"
#define HS_EXTENSION_VERSION	"0.2"
#define HS_SCHEMA_NAME			"hummock_stream"
#define HS_TABLEAM_NAME			"hummock"	/* the table access method */

/* Directory under $PGDATA that holds every database's objects. */
#define HS_DATA_DIR				"pg_hummock"

#endif							/* HUMMOCK_STREAM_H */
