/*-------------------------------------------------------------------------
 *
 * actor.c
 *	  The table of actor kinds: which operations run an actor of a kind.
 *
 * The product's one built-in kind, a streaming job, is in the table from
 * the start (a static initializer, so no load order matters); libraries
 * in shared_preload_libraries add theirs from _PG_init, before the
 * postmaster forks any compute worker.  The table is per process and
 * never changes afterwards, so lookups take no lock.
 *
 * src/stream/actor.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "hummock_stream/stream/actor.h"

static const HsActorOps *actor_kinds[HS_MAX_ACTOR_KINDS] = {
	[HS_ACTOR_STREAM_JOB] = &HsStreamJobActorOps,
};

void
HsActorKindRegister(uint32 kind, const HsActorOps *ops)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("hummock_stream actor kinds can only be registered by a library in shared_preload_libraries"),
				 errhint("Add the library after hummock_stream to shared_preload_libraries and restart the server.")));
	if (kind == 0 || kind >= HS_MAX_ACTOR_KINDS)
		elog(ERROR, "hummock_stream actor kind %u is out of range (1 to %d)",
			 kind, HS_MAX_ACTOR_KINDS - 1);
	if (ops == NULL || ops->on_barrier == NULL || ops->name == NULL)
		elog(ERROR, "hummock_stream actor kind %u needs a name and an on_barrier callback",
			 kind);
	if (actor_kinds[kind] != NULL)
		elog(ERROR, "hummock_stream actor kind %u is taken (by \"%s\")",
			 kind, actor_kinds[kind]->name);
	actor_kinds[kind] = ops;
}

const HsActorOps *
HsActorKindLookup(uint32 kind)
{
	if (kind >= HS_MAX_ACTOR_KINDS)
		return NULL;
	return actor_kinds[kind];
}
