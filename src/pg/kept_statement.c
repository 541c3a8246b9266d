/*-------------------------------------------------------------------------
 *
 * kept_statement.c
 *	  SPI statements planned once per process (see kept_statement.h).
 *
 * The barrier manager commits a round of checkpoints every barrier
 * interval, each a transaction of a few catalog statements (the version
 * head, its delta, the jobs' positions).  Parsing and planning their text
 * every time cost about a tenth of an idle manager's CPU at 10 ms
 * barriers; a kept plan is parsed once and planned again only when
 * Postgres invalidates it.
 *
 * src/pg/kept_statement.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/snapmgr.h"

#include "hummock_stream/pg/kept_statement.h"

Snapshot
HsCatalogStatementSnapshot(void)
{
	return IsolationUsesXactSnapshot() ? GetLatestSnapshot() : InvalidSnapshot;
}

int
HsKeptStatementRun(SPIPlanPtr *plan, const char *sql, int nargs, Oid *types,
				   Datum *args, const char *nulls)
{
	if (*plan == NULL)
	{
		SPIPlanPtr	p = SPI_prepare(sql, nargs, types);

		if (p == NULL)
			elog(ERROR, "could not prepare \"%s\": %s", sql,
				 SPI_result_code_string(SPI_result));
		if (SPI_keepplan(p) != 0)
			elog(ERROR, "could not keep the plan of \"%s\"", sql);
		*plan = p;
	}
	return SPI_execute_snapshot(*plan, args, nulls, HsCatalogStatementSnapshot(),
								InvalidSnapshot, false, true, 0);
}
