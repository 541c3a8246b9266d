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

#endif							/* HS_PG_KEPT_STATEMENT_H */
