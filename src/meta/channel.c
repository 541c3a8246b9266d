/*-------------------------------------------------------------------------
 *
 * channel.c
 *	  DSM segment with two shm_mq rings between a barrier manager and one
 *	  compute worker.
 *
 * Segment layout (shm_toc, magic HS_CHANNEL_MAGIC):
 *	key 0: HsChannelHeader
 *	key 1: the down ring (manager sends, worker receives)
 *	key 2: the up ring (worker sends, manager receives)
 *
 * The manager keeps the mapping for the life of the worker; when either
 * process exits, its side detaches and the other sees SHM_MQ_DETACHED.
 * The manager passes the worker's BackgroundWorkerHandle to shm_mq, so a
 * worker that dies before attaching is noticed as well.
 *
 * src/meta/channel.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/proc.h"
#include "storage/shm_toc.h"
#include "utils/memutils.h"

#include "hummock_stream/meta/channel.h"

#define KEY_HEADER	0
#define KEY_DOWN	1
#define KEY_UP		2

HsChannel *
HsChannelCreate(Oid dboid, int worker_index)
{
	shm_toc_estimator e;
	Size		size;
	dsm_segment *seg;
	shm_toc    *toc;
	HsChannel  *ch;
	shm_mq	   *down,
			   *up;
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	shm_toc_initialize_estimator(&e);
	shm_toc_estimate_chunk(&e, sizeof(HsChannelHeader));
	shm_toc_estimate_chunk(&e, HS_CHANNEL_QUEUE_SIZE);
	shm_toc_estimate_chunk(&e, HS_CHANNEL_QUEUE_SIZE);
	shm_toc_estimate_keys(&e, 3);
	size = shm_toc_estimate(&e);

	seg = dsm_create(size, 0);
	dsm_pin_mapping(seg);
	toc = shm_toc_create(HS_CHANNEL_MAGIC, dsm_segment_address(seg), size);

	ch = palloc0(sizeof(HsChannel));
	ch->seg = seg;
	ch->header = shm_toc_allocate(toc, sizeof(HsChannelHeader));
	ch->header->dboid = dboid;
	ch->header->worker_index = worker_index;
	ch->header->manager_pid = MyProcPid;
	shm_toc_insert(toc, KEY_HEADER, ch->header);

	down = shm_mq_create(shm_toc_allocate(toc, HS_CHANNEL_QUEUE_SIZE), HS_CHANNEL_QUEUE_SIZE);
	shm_toc_insert(toc, KEY_DOWN, down);
	shm_mq_set_sender(down, MyProc);
	up = shm_mq_create(shm_toc_allocate(toc, HS_CHANNEL_QUEUE_SIZE), HS_CHANNEL_QUEUE_SIZE);
	shm_toc_insert(toc, KEY_UP, up);
	shm_mq_set_receiver(up, MyProc);

	ch->send = shm_mq_attach(down, seg, NULL);
	ch->recv = shm_mq_attach(up, seg, NULL);
	MemoryContextSwitchTo(old);
	return ch;
}

void
HsChannelAttachWorker(HsChannel *ch, BackgroundWorkerHandle *handle)
{
	shm_mq_set_handle(ch->send, handle);
	shm_mq_set_handle(ch->recv, handle);
}

HsChannel *
HsChannelAttach(dsm_handle h)
{
	dsm_segment *seg;
	shm_toc    *toc;
	HsChannel  *ch;
	shm_mq	   *down,
			   *up;
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	seg = dsm_attach(h);
	if (seg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("could not map the hummock_stream control channel")));
	dsm_pin_mapping(seg);
	toc = shm_toc_attach(HS_CHANNEL_MAGIC, dsm_segment_address(seg));
	if (toc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("invalid magic number in the hummock_stream control channel")));

	ch = palloc0(sizeof(HsChannel));
	ch->seg = seg;
	ch->header = shm_toc_lookup(toc, KEY_HEADER, false);
	down = shm_toc_lookup(toc, KEY_DOWN, false);
	up = shm_toc_lookup(toc, KEY_UP, false);
	shm_mq_set_receiver(down, MyProc);
	shm_mq_set_sender(up, MyProc);
	ch->recv = shm_mq_attach(down, seg, NULL);
	ch->send = shm_mq_attach(up, seg, NULL);
	MemoryContextSwitchTo(old);
	return ch;
}

void
HsChannelDestroy(HsChannel *ch)
{
	shm_mq_detach(ch->send);
	shm_mq_detach(ch->recv);
	dsm_detach(ch->seg);
	pfree(ch);
}

bool
HsChannelSend(HsChannel *ch, const void *msg, Size len, bool *detached)
{
	shm_mq_result r = shm_mq_send(ch->send, len, msg, true, true);

	*detached = (r == SHM_MQ_DETACHED);
	return r == SHM_MQ_SUCCESS;
}

bool
HsChannelReceive(HsChannel *ch, void **msg, Size *len, bool *detached)
{
	shm_mq_result r = shm_mq_receive(ch->recv, len, msg, true);

	*detached = (r == SHM_MQ_DETACHED);
	return r == SHM_MQ_SUCCESS;
}
