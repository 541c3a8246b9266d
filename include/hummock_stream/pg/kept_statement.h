/*-------------------------------------------------------------------------
 *
 * kept_statement.h
 *	  SPI statements planned once per process and kept (kept_statement.c),
 *	  for the catalog statements every commit round runs.
 *
 * include/hummock_stream/pg/kept_statement.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_PG_KEPT_STATEMENT_H
#define HS_PG_KEPT_STATEMENT_H

#include "executor/spi.h"

/*
 * SPI_execute_with_args(sql, ...) (not read-only, no row limit) through a
 * plan prepared on first use and kept in *plan (a static of the caller,
 * one per statement text).  Postgres revalidates a kept plan when what it
 * reads changes (DROP EXTENSION and CREATE EXTENSION again), so it stays
 * as correct as planning the text each time.  Call between SPI_connect()
 * and SPI_finish(); returns the SPI result code.
 */
extern int	HsKeptStatementRun(SPIPlanPtr *plan, const char *sql, int nargs,
							   Oid *types, Datum *args, const char *nulls);

/*
 * The snapshot for a catalog statement of hummock_stream: InvalidSnapshot
 * (SPI's own: a new snapshot for each statement) in a READ COMMITTED
 * transaction; the latest snapshot in a REPEATABLE READ or SERIALIZABLE
 * one, as Postgres reads and writes its own catalogs there.  The rows the
 * barrier manager updates every barrier (the version head, the jobs'
 * positions) are newer than such a transaction's snapshot, and DDL that
 * locked, updated or deleted them through it would always fail with a
 * serialization error (40001).
 */
extern Snapshot HsCatalogStatementSnapshot(void);

#endif							/* HS_PG_KEPT_STATEMENT_H */
