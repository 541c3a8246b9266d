/*-------------------------------------------------------------------------
 *
 * channel.h
 *	  The control channel between a barrier manager and a compute worker.
 *
 * One DSM segment per compute worker holds two shm_mq rings: "down"
 * (manager -> worker: inject barrier, reset graph) and "up" (worker ->
 * manager: barrier collected with SST metadata, graph failure, reset
 * done).  The manager creates the segment and starts the worker with the
 * segment's handle as its argument; the worker attaches.  Each side is the
 * only sender (or receiver) of its ring, as shm_mq requires.
 *
 * Messages are small binary structs (barrier_msg.h) sent whole; a side
 * that finds the other detached treats the channel as dead.
 *
 * include/hummock_stream/meta/channel.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_CHANNEL_H
#define HS_META_CHANNEL_H

#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/shm_mq.h"

#define HS_CHANNEL_MAGIC		UINT64CONST(0x48534348414e4c31)	/* "HSCHANL1" */
#define HS_CHANNEL_QUEUE_SIZE	(256 * 1024)

/* Fixed part of the segment. */
typedef struct HsChannelHeader
{
	Oid			dboid;			/* database of the worker */
	int			worker_index;	/* 0 .. compute_workers - 1 */
	pid_t		manager_pid;
} HsChannelHeader;

typedef struct HsChannel
{
	dsm_segment *seg;
	HsChannelHeader *header;
	shm_mq_handle *send;		/* down for the manager, up for the worker */
	shm_mq_handle *recv;
} HsChannel;

/* Manager side: create the segment (before starting the worker). */
extern HsChannel *HsChannelCreate(Oid dboid, int worker_index);

/* Manager side: bind the queues to the started worker's handle. */
extern void HsChannelAttachWorker(HsChannel *ch, BackgroundWorkerHandle *handle);

/* Worker side: attach to the segment of handle h. */
extern HsChannel *HsChannelAttach(dsm_handle h);

extern void HsChannelDestroy(HsChannel *ch);

/*
 * Send a message without blocking: returns false if the ring is full
 * (resend the same message later) or the other side is gone (*detached).
 */
extern bool HsChannelSend(HsChannel *ch, const void *msg, Size len,
						  bool *detached);

/*
 * Receive a message without blocking: returns false if none is waiting.
 * *detached is set if the other side is gone.  The message points into the
 * ring and stays valid until the next receive.
 */
extern bool HsChannelReceive(HsChannel *ch, void **msg, Size *len,
							 bool *detached);

#endif							/* HS_META_CHANNEL_H */
