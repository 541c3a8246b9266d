/*-------------------------------------------------------------------------
 *
 * explain.c
 *	  EXPLAIN of a query that reads relations USING hummock: which epoch
 *	  each one is read at, and with ANALYZE the SST blocks the query read.
 *
 * The ExplainOneQuery hook plans and explains the query as Postgres does
 * (the same steps as explain.c's own path) and then, with VERBOSE or
 * ANALYZE in the text format, adds after the plan one line per hummock
 * relation of the plan (a plain EXPLAIN stays as stable as Postgres's, for
 * the tests people write against it):
 *
 *   Hummock Read: orders at epoch 3965446713376768 (2026-12-02 08:00:01.5+00)
 *
 * With ANALYZE the epoch is the one its first scan read (recorded by
 * HsScanResolve while the query ran) and a line counts the blocks the
 * query took from this process's block cache and the blocks it had to
 * fetch (from the shared block cache or the SST files).  Without ANALYZE
 * nothing runs, so the epoch is the one a scan would read now (a view
 * still being created says so instead).  Structured formats (JSON, XML,
 * YAML) get nothing added: after the plan their query object is closed.
 *
 * src/batch/explain.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "commands/explain.h"
#include "executor/instrument.h"
#include "nodes/parsenodes.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "hummock_stream/batch/explain.h"
#include "hummock_stream/batch/read_epoch.h"
#include "hummock_stream/meta/catalog.h"
#include "hummock_stream/meta/epoch.h"
#include "hummock_stream/meta/hummock_manager.h"
#include "hummock_stream/storage/version.h"

static ExplainOneQuery_hook_type prev_explain_one_query = NULL;

/* The hummock relations a plan reads, each once. */
static List *
hummock_relations(PlannedStmt *plan)
{
	List	   *rels = NIL;
	ListCell   *lc;

	foreach(lc, plan->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_RELATION && HsRelidIsHummock(rte->relid) &&
			!list_member_oid(rels, rte->relid))
			rels = lappend_oid(rels, rte->relid);
	}
	return rels;
}

/* "at epoch E (time)", or why there is none. */
static void
describe_epoch(StringInfo buf, uint64 epoch)
{
	if (epoch == 0)
		appendStringInfoString(buf, "nothing committed yet (empty)");
	else
		appendStringInfo(buf, "at epoch " UINT64_FORMAT " (%s)", epoch,
						 timestamptz_to_str(HsEpochToTimestamp(epoch)));
}

static void
explain_hummock_reads(ExplainState *es, List *rels)
{
	ListCell   *lc;

	foreach(lc, rels)
	{
		Oid			relid = lfirst_oid(lc);
		StringInfoData line;
		uint64		epoch;

		initStringInfo(&line);
		appendStringInfo(&line, "%s ", quote_identifier(get_rel_name(relid)));
		if (es->analyze)
		{
			if (HsScanRecorded(relid, &epoch))
				describe_epoch(&line, epoch);
			else
				appendStringInfoString(&line, "not scanned");
		}
		else
		{
			Relation	rel = table_open(relid, AccessShareLock);
			HsVersion  *v;

			if (HsViewInfoOf(rel)->creating)
				appendStringInfoString(&line, "being created (not readable yet)");
			else
			{
				HsScanResolve(rel, &v, &epoch);
				HsVersionUnref(v);
				describe_epoch(&line, epoch);
			}
			table_close(rel, AccessShareLock);
		}
		ExplainPropertyText("Hummock Read", line.data, es);
		pfree(line.data);
	}
}

/* ExplainOnePlan, with the recording of scans stopped whatever happens. */
static void
explain_recording(PlannedStmt *plan, IntoClause *into, ExplainState *es,
				  const char *queryString, ParamListInfo params,
				  QueryEnvironment *queryEnv, const instr_time *planduration,
				  const BufferUsage *bufusage)
{
	PG_TRY();
	{
		ExplainOnePlan(plan, into, es, queryString, params, queryEnv,
					   planduration, bufusage);
	}
	PG_CATCH();
	{
		HsScanRecordingStop();
		PG_RE_THROW();
	}
	PG_END_TRY();
	HsScanRecordingStop();
}

static void
hs_explain_one_query(Query *query, int cursorOptions, IntoClause *into,
					 ExplainState *es, const char *queryString,
					 ParamListInfo params, QueryEnvironment *queryEnv)
{
	PlannedStmt *plan;
	instr_time	planstart,
				planduration;
	BufferUsage bufusage_start,
				bufusage;
	List	   *rels;
	uint64		hits0,
				misses0,
				hits1,
				misses1;

	if (prev_explain_one_query)
	{
		prev_explain_one_query(query, cursorOptions, into, es, queryString,
							   params, queryEnv);
		return;
	}

	/* as explain.c's ExplainOneQuery */
	if (es->buffers)
		bufusage_start = pgBufferUsage;
	INSTR_TIME_SET_CURRENT(planstart);
	plan = pg_plan_query(query, queryString, cursorOptions, params);
	INSTR_TIME_SET_CURRENT(planduration);
	INSTR_TIME_SUBTRACT(planduration, planstart);
	if (es->buffers)
	{
		memset(&bufusage, 0, sizeof(BufferUsage));
		BufferUsageAccumDiff(&bufusage, &pgBufferUsage, &bufusage_start);
	}

	rels = es->format == EXPLAIN_FORMAT_TEXT && (es->verbose || es->analyze) ?
		hummock_relations(plan) : NIL;
	if (rels == NIL)
	{
		ExplainOnePlan(plan, into, es, queryString, params, queryEnv,
					   &planduration, (es->buffers ? &bufusage : NULL));
		return;
	}

	HsHummockBlockCacheStats(&hits0, &misses0);
	if (es->analyze)
		HsScanRecordingStart();
	explain_recording(plan, into, es, queryString, params, queryEnv,
					  &planduration, (es->buffers ? &bufusage : NULL));
	HsHummockBlockCacheStats(&hits1, &misses1);

	explain_hummock_reads(es, rels);
	if (es->analyze)
	{
		char	   *blocks = psprintf("cached=" UINT64_FORMAT " fetched=" UINT64_FORMAT,
									  hits1 - hits0, misses1 - misses0);

		ExplainPropertyText("Hummock Blocks", blocks, es);
	}
}

void
HsExplainInstall(void)
{
	prev_explain_one_query = ExplainOneQuery_hook;
	ExplainOneQuery_hook = hs_explain_one_query;
}
