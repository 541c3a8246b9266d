/*-------------------------------------------------------------------------
 *
 * iter_owner.c
 *	  Destroying the SST iterators that an aborted query abandoned.
 *
 * Design notes
 *
 * Every iterator the SST cache makes while a resource owner is current is
 * put on a process-local list with that owner (iter_owner.h).  Destroying
 * the iterator takes it off.  When an abort releases resource owners, each
 * is current while the release callbacks run, and the iterators still on
 * the list under it are destroyed: their query died with the owner, and no
 * code path destroys an iterator of a failed query later (failed portals
 * skip ExecutorEnd).  A commit destroys nothing, and forgets the owner of
 * the iterators still alive under it (an iterator may outlive the
 * transaction it was made in), so that an owner allocated later at the
 * same address cannot claim them.  Iterators made with no resource owner
 * are not tracked.
 *
 * src/pg/iter_owner.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/ilist.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "hummock_stream/pg/iter_owner.h"

typedef struct TrackedIter
{
	dlist_node	node;
	HsIterator *it;
	ResourceOwner owner;		/* NULL once a commit released the owner */
} TrackedIter;

static dlist_head tracked = DLIST_STATIC_INIT(tracked);
static bool callback_registered = false;

static void
iter_release_callback(ResourceReleasePhase phase, bool isCommit,
					  bool isTopLevel, void *arg)
{
	dlist_mutable_iter iter;

	if (phase != RESOURCE_RELEASE_BEFORE_LOCKS)
		return;
	dlist_foreach_modify(iter, &tracked)
	{
		TrackedIter *t = dlist_container(TrackedIter, node, iter.cur);

		if (t->owner == NULL || t->owner != CurrentResourceOwner)
			continue;
		if (isCommit)
			t->owner = NULL;
		else
			HsIterDestroy(t->it);	/* iter_closed unlinks and frees t */
	}
}

static void *
iter_opened(void *arg, HsIterator *it)
{
	TrackedIter *t;

	if (CurrentResourceOwner == NULL)
		return NULL;
	if (!callback_registered)
	{
		RegisterResourceReleaseCallback(iter_release_callback, NULL);
		callback_registered = true;
	}
	t = MemoryContextAlloc(TopMemoryContext, sizeof(TrackedIter));
	t->it = it;
	t->owner = CurrentResourceOwner;
	dlist_push_tail(&tracked, &t->node);
	return t;
}

static void
iter_closed(void *arg, void *token)
{
	TrackedIter *t = token;

	if (t == NULL)
		return;
	dlist_delete(&t->node);
	pfree(t);
}

static const HsSstIterHooks iter_owner_hooks = {
	.opened = iter_opened,
	.closed = iter_closed,
	.arg = NULL,
};

const HsSstIterHooks *
HsIterOwnerHooks(void)
{
	return &iter_owner_hooks;
}
