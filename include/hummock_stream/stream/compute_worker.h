/*-------------------------------------------------------------------------
 *
 * compute_worker.h
 *	  Compute workers: the processes that host actors.
 *
 * Besides the entry point, what a worker lends the actors it runs
 * (actor.h): its memory, its shared buffer of sealed state, and the
 * transaction of its current round.  These are valid only inside a
 * compute worker, while it offers a barrier to an actor.
 *
 * include/hummock_stream/stream/compute_worker.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_COMPUTE_WORKER_H
#define HS_STREAM_COMPUTE_WORKER_H

#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/shared_buffer.h"

extern int	hs_shared_buffer_size_kb;

/* Background worker entry point; main_arg is the channel's dsm_handle. */
extern PGDLLEXPORT void HsComputeWorkerMain(Datum main_arg);

/* The worker's long-lived memory: actors' state lives here. */
extern MemoryContext HsComputeWorkerContext(void);

/* An HsEnv that allocates in HsComputeWorkerContext (memtables). */
extern HsEnv *HsComputeWorkerEnv(void);

/* The worker's shared buffer: actors seal their epochs' memtables into it. */
extern HsSharedBuffer *HsComputeWorkerSharedBuffer(void);

/*
 * Start the round's transaction (with a snapshot) for storage or catalog
 * work, unless it runs already; the worker commits it after the round.
 */
extern void HsComputeWorkerBeginWork(void);

/* Over hummock_stream.shared_buffer_size: spill sealed data to SSTs. */
extern void HsComputeWorkerMaybeSpill(void);

#endif							/* HS_STREAM_COMPUTE_WORKER_H */
