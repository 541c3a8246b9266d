/*-------------------------------------------------------------------------
 *
 * barrier_manager_internal.h
 *	  The state of a database's barrier manager process, shared by the
 *	  files that make it up (private to src/meta):
 *
 *	barrier_manager.c	the main loop: epochs, the catalog of graphs,
 *						status in shared memory, capture-log trims
 *	partial_graph.c		each graph's life cycle: inject, collect,
 *						complete and commit, reset, back off, retry
 *	worker_pool.c		the compute workers (and the compactor): start,
 *						send, receive, lose and replace them
 *
 * Everything here lives in the manager process only, in hs_manager.cxt;
 * nothing is shared memory (the manager publishes what others read into
 * its HsDbState, db_state.h).
 *
 * src/meta/barrier_manager_internal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_BARRIER_MANAGER_INTERNAL_H
#define HS_META_BARRIER_MANAGER_INTERNAL_H

#include "postmaster/bgworker.h"

#include "hummock_stream/meta/channel.h"
#include "hummock_stream/meta/db_state.h"
#include "hummock_stream/meta/partial_graph.h"
#include "hummock_stream/storage/env.h"

/* One compute worker of the manager. */
typedef struct WorkerSlot
{
	HsChannel  *channel;		/* NULL while the worker does not run */
	BackgroundWorkerHandle *handle;
	bool		alive;
	int64		starts;
	TimestampTz started_at;
	pid_t		pid;
	int			start_failures; /* attempts in a row that found no slot */
	TimestampTz retry_at;		/* not running: next attempt */
} WorkerSlot;

typedef struct HsManager
{
	Oid			dboid;			/* the manager's database */
	HsDbState  *db;				/* its shared state */
	MemoryContext cxt;			/* everything below lives here */
	HsEnv	   *env;			/* allocates in cxt */
	WorkerSlot *workers;		/* nworkers compute workers */
	int			nworkers;
	List	   *graphs;			/* HsGraph * */
	BackgroundWorkerHandle *compactor;	/* NULL while it does not run */
	int			compactor_failures;
	TimestampTz compactor_retry_at;
	bool		failure_changed;	/* wake wait() after publishing */
} HsManager;

extern HsManager hs_manager;

/* partial_graph.c */
extern HsGraph *HsGraphFind(uint32 graph_id, bool create);
extern HsPlacedActor *HsGraphFindActor(List *actors, uint32 actor_id);
extern void HsGraphRecordBarrier(HsGraph *g, HsInflightBarrier *b,
								 TimestampTz committed_at);
extern void HsGraphResetDone(HsGraph *g);
extern void HsGraphReset(HsGraph *g, const char *why, bool lost_worker);
extern int	HsGraphMissingWorker(const HsGraph *g);
extern void HsGraphRetry(HsGraph *g, TimestampTz now);
extern bool HsGraphHoldsBackAlignment(const HsGraph *g, HsEpoch horizon);
extern void HsGraphInject(HsGraph *g, HsEpoch prev, HsEpoch curr, HsBarrierKind kind,
						  bool aligned, TimestampTz now, const char *snapshot);
extern void HsInflightFree(HsInflightBarrier *b);
extern void HsGraphsComplete(void);
extern void HsGraphsForgetEmpty(void);

/* worker_pool.c */
extern bool HsWorkerStart(int i);
extern bool HsWorkerSend(int i, const void *msg, Size len);
extern void HsWorkersMaintain(void);
extern void HsWorkersPoll(void);

#endif							/* HS_META_BARRIER_MANAGER_INTERNAL_H */
