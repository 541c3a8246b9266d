/*-------------------------------------------------------------------------
 *
 * sst_writer.c
 *	  Cutting a sorted entry stream into committed SST objects.
 *
 * src/storage/sst_writer.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/sst_writer.h"

struct HsSstWriter
{
	HsEnv	   *env;
	HsSstWriteContext ctx;
	HsSstBuilder *builder;		/* NULL between SSTs */
	HsObjectWrite *write;		/* the staging object of builder */
	HsBuf		last_table_key;
	bool		have_last;
	HsSstInfo **done;
	int			n_done;
	uint64_t	n_added;		/* entries, for interrupt checks */
};

void
HsSstWriteContextInit(HsSstWriteContext *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	HsSstBuilderOptionsInit(&ctx->sst);
	ctx->target_file_size = 32 * 1024 * 1024;
}

/* Returns a writer with no SST open yet. */
HsSstWriter *
HsSstWriterCreate(HsEnv *env, const HsSstWriteContext *ctx)
{
	HsSstWriter *w = HsAllocZero(env, sizeof(HsSstWriter));

	w->env = env;
	w->ctx = *ctx;
	HsBufInit(&w->last_table_key, env);
	return w;
}

/* Allocates an object id and starts an SST under its temporary name. */
static bool
start_sst(HsSstWriter *w, HsStatus *st)
{
	uint64_t	id;

	if (!w->ctx.alloc_id(w->ctx.alloc_arg, &id, st))
		return false;
	if (!HsObjectStoreBeginWrite(w->ctx.store, id, &w->write, st))
		return false;
	w->builder = HsSstBuilderCreate(w->env, w->write->path, &w->ctx.sst, st);
	if (w->builder == NULL)
	{
		HsObjectStoreAbortWrite(w->ctx.store, w->write);
		w->write = NULL;
		return false;
	}
	return true;
}

/* Finishes the open SST, commits its object and records its info. */
static bool
finish_sst(HsSstWriter *w, HsStatus *st)
{
	HsSstMeta		meta;
	HsSstInfo  *info;
	uint64_t	id = w->write->object_id;
	bool		ok;

	ok = HsSstBuilderFinish(w->builder, &meta, st);
	w->builder = NULL;
	if (!ok)
	{
		HsObjectStoreAbortWrite(w->ctx.store, w->write);
		w->write = NULL;
		return false;
	}
	ok = HsObjectStoreCommitWrite(w->ctx.store, w->write, st);
	w->write = NULL;
	if (ok)
		ok = HsSstInfoFromMeta(w->env, id, &meta, &info, st);
	HsSstMetaFree(w->env, &meta);
	if (!ok)
		return false;
	w->done = HsRealloc(w->env, w->done,
						sizeof(HsSstInfo *) * (w->n_done + 1));
	w->done[w->n_done++] = info;
	return true;
}

bool
HsSstWriterAdd(HsSstWriter *w, HsSlice full_key, HsSlice value, HsStatus *st)
{
	HsSlice		tk = HsFullKeyTableKey(full_key);

	/* syncs and compactions of much data stay interruptible */
	if (++w->n_added % HS_ENTRIES_PER_INTERRUPT_CHECK == 0)
		HsCheckInterrupts(w->env);
	if (w->builder != NULL && w->have_last &&
		HsSstBuilderEstimatedSize(w->builder) >= w->ctx.target_file_size &&
		HsSliceCompare(tk, HsBufSlice(&w->last_table_key)) != 0)
	{
		if (!finish_sst(w, st))
			return false;
	}
	if (w->builder == NULL && !start_sst(w, st))
		return false;
	if (!HsSstBuilderAdd(w->builder, full_key, value, st))
		return false;
	HsBufAssign(&w->last_table_key, tk.data, tk.len);
	w->have_last = true;
	return true;
}

bool
HsSstWriterAddAll(HsSstWriter *w, HsIterator *it, HsStatus *st)
{
	for (; HsIterValid(it); HsIterNext(it))
		if (!HsSstWriterAdd(w, HsIterKey(it), HsIterValue(it), st))
			return false;
	return HsIterStatus(it, st);
}

bool
HsSstWriterFinish(HsSstWriter *w, HsSstInfo ***ssts, int *n, HsStatus *st)
{
	*ssts = NULL;
	*n = 0;
	if (w->builder != NULL && !finish_sst(w, st))
	{
		HsSstWriterAbandon(w);
		return false;
	}
	*ssts = w->done;
	*n = w->n_done;
	w->done = NULL;
	w->n_done = 0;
	HsSstWriterAbandon(w);
	return true;
}

void
HsSstWriterAbandon(HsSstWriter *w)
{
	if (w == NULL)
		return;
	if (w->builder)
		HsSstBuilderAbandon(w->builder);
	if (w->write)
		HsObjectStoreAbortWrite(w->ctx.store, w->write);
	HsSstInfoArrayFree(w->env, w->done, w->n_done);
	HsBufFree(&w->last_table_key);
	HsFree(w->env, w);
}
