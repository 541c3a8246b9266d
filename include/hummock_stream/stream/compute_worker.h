/*-------------------------------------------------------------------------
 *
 * compute_worker.h
 *	  Compute workers: the processes that host actors.
 *
 * include/hummock_stream/stream/compute_worker.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_COMPUTE_WORKER_H
#define HS_STREAM_COMPUTE_WORKER_H

extern int	hs_shared_buffer_size_kb;

/* Background worker entry point; main_arg is the channel's dsm_handle. */
extern PGDLLEXPORT void HsComputeWorkerMain(Datum main_arg);

#endif							/* HS_STREAM_COMPUTE_WORKER_H */
