/*-------------------------------------------------------------------------
 *
 * object_store.c
 *	  The local-directory object store.
 *
 * Objects are files <dir>/<decimal object id>.sst written through HsEnv;
 * see object_store.h for the write protocol.  Names that are not of the
 * form <digits>.sst or <digits>.sst.tmp are ignored by the listing, so a
 * stray file in the directory is never mistaken for an object (and never
 * deleted by GC).
 *
 * src/storage/object_store.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hummock_stream/storage/object_store.h"

#define SST_SUFFIX		".sst"
#define TMP_SUFFIX		".sst.tmp"

typedef struct LocalStore
{
	HsObjectStore base;
	char	   *dir;
} LocalStore;

/* Formats the path of object id (its temporary name if temporary). */
static void
local_path(LocalStore *ls, uint64_t id, bool temporary, char *buf,
		   size_t buflen)
{
	snprintf(buf, buflen, "%s/%" PRIu64 "%s", ls->dir, id,
			 temporary ? TMP_SUFFIX : SST_SUFFIX);
}

/* Starts writing object_id under its temporary name. */
static bool
local_begin_write(HsObjectStore *store, uint64_t object_id,
				  HsObjectWrite **write, HsStatus *st)
{
	LocalStore *ls = (LocalStore *) store;
	HsObjectWrite *w;

	w = HsAllocZero(store->env, sizeof(HsObjectWrite));
	w->object_id = object_id;
	local_path(ls, object_id, true, w->path, sizeof(w->path));
	*write = w;
	return true;
}

/* Renames the finished temporary file to its final name, durably. */
static bool
local_commit_write(HsObjectStore *store, HsObjectWrite *w, HsStatus *st)
{
	LocalStore *ls = (LocalStore *) store;
	HsEnv	   *env = store->env;
	char		final_path[HS_OBJECT_PATH_LEN];
	bool		ok;

	local_path(ls, w->object_id, false, final_path, sizeof(final_path));
	ok = env->rename(env, w->path, final_path, st) &&
		env->sync_dir(env, ls->dir, st);
	if (!ok)
	{
		HsStatus	ignore;

		env->remove(env, w->path, &ignore);
	}
	HsFree(env, w);
	return ok;
}

/* Removes a write's temporary file, if any, and frees the write. */
static void
local_abort_write(HsObjectStore *store, HsObjectWrite *w)
{
	HsEnv	   *env = store->env;
	HsStatus	ignore;

	if (w == NULL)
		return;
	if (env->file_exists(env, w->path))
		env->remove(env, w->path, &ignore);
	HsFree(env, w);
}

/* Returns the path of object_id's file. */
static bool
local_local_path(HsObjectStore *store, uint64_t object_id, char *buf,
				 size_t buflen, HsStatus *st)
{
	local_path((LocalStore *) store, object_id, false, buf, buflen);
	return true;
}

/* Removes object_id's file (or its temporary file). */
static bool
local_remove(HsObjectStore *store, uint64_t object_id, bool temporary,
			 HsStatus *st)
{
	char		path[HS_OBJECT_PATH_LEN];

	local_path((LocalStore *) store, object_id, temporary, path,
			   sizeof(path));
	return store->env->remove(store->env, path, st);
}

/* Parse "<digits><suffix>"; false if the name is not of that form. */
static bool
parse_name(const char *name, const char *suffix, uint64_t *id)
{
	size_t		len = strlen(name);
	size_t		slen = strlen(suffix);
	size_t		ndig = len - slen;
	uint64_t	v = 0;
	size_t		i;

	if (len <= slen || strcmp(name + ndig, suffix) != 0 || ndig > 20)
		return false;
	for (i = 0; i < ndig; i++)
	{
		if (name[i] < '0' || name[i] > '9')
			return false;
		if (v > (UINT64_MAX - (uint64_t) (name[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t) (name[i] - '0');
	}
	/* reject non-canonical names such as "007.sst" */
	if (ndig > 1 && name[0] == '0')
		return false;
	*id = v;
	return true;
}

typedef struct ListState
{
	HsEnv	   *env;
	HsObjectEntry *entries;
	size_t		n;
	size_t		cap;
} ListState;

/* Directory-list callback: records objects and temporary files by name. */
static bool
collect_name(void *arg, const char *name)
{
	ListState  *ls = arg;
	uint64_t	id;
	bool		temporary;

	if (parse_name(name, TMP_SUFFIX, &id))
		temporary = true;
	else if (parse_name(name, SST_SUFFIX, &id))
		temporary = false;
	else
		return true;
	if (ls->n == ls->cap)
	{
		ls->cap = ls->cap ? ls->cap * 2 : 64;
		ls->entries = HsRealloc(ls->env, ls->entries,
								ls->cap * sizeof(HsObjectEntry));
	}
	ls->entries[ls->n].object_id = id;
	ls->entries[ls->n].temporary = temporary;
	ls->entries[ls->n].size = 0;
	ls->n++;
	return true;
}

/* Calls fn for every object and temporary file, with its size. */
static bool
local_list(HsObjectStore *store, HsObjectListFn fn, void *arg, HsStatus *st)
{
	LocalStore *lstore = (LocalStore *) store;
	HsEnv	   *env = store->env;
	ListState	ls;
	size_t		i;
	bool		ok;

	memset(&ls, 0, sizeof(ls));
	ls.env = env;
	ok = env->list_dir(env, lstore->dir, collect_name, &ls, st);
	for (i = 0; ok && i < ls.n; i++)
	{
		char		path[HS_OBJECT_PATH_LEN];
		HsFile	   *f;
		HsStatus	ost;

		local_path(lstore, ls.entries[i].object_id, ls.entries[i].temporary,
				   path, sizeof(path));
		if (!env->open_readable(env, path, &f, &ost))
		{
			/* removed since the directory was read: skip it */
			if (ost.code == HS_NOT_FOUND)
				continue;
			*st = ost;
			ok = false;
			break;
		}
		ok = env->size(env, f, &ls.entries[i].size, st);
		{
			HsStatus	ignore;

			env->close(env, f, &ignore);
		}
		if (ok && !fn(arg, &ls.entries[i]))
			break;
	}
	if (ls.entries)
		HsFree(env, ls.entries);
	return ok;
}

/* Returns the name of object_id for messages (its path). */
static void
local_name(HsObjectStore *store, uint64_t object_id, char *buf,
		   size_t buflen)
{
	local_path((LocalStore *) store, object_id, false, buf, buflen);
}

/* Frees the store. */
static void
local_close(HsObjectStore *store)
{
	LocalStore *ls = (LocalStore *) store;

	HsFree(store->env, ls->dir);
	HsFree(store->env, ls);
}

static const HsObjectStoreOps local_ops = {
	.begin_write = local_begin_write,
	.commit_write = local_commit_write,
	.abort_write = local_abort_write,
	.local_path = local_local_path,
	.remove = local_remove,
	.list = local_list,
	.name = local_name,
	.close = local_close,
};

bool
HsObjectStoreOpen(HsEnv *env, const char *dir, HsObjectStore **store,
				  HsStatus *st)
{
	LocalStore *ls;
	size_t		len = strlen(dir);

	*store = NULL;
	if (len == 0 || len + 32 >= HS_OBJECT_PATH_LEN)
	{
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"object store directory name is empty or too long");
		return HsStatusDetail(st, "The name has %zu bytes; the limit is %d.",
							  len, HS_OBJECT_PATH_LEN - 32);
	}
	if (!env->make_dir(env, dir, st))
		return false;
	ls = HsAllocZero(env, sizeof(LocalStore));
	ls->base.ops = &local_ops;
	ls->base.env = env;
	ls->dir = HsAlloc(env, len + 1);
	memcpy(ls->dir, dir, len + 1);
	/* strip trailing slashes, keeping "/" itself */
	while (len > 1 && ls->dir[len - 1] == '/')
		ls->dir[--len] = '\0';
	*store = &ls->base;
	return true;
}

bool
HsObjectStorePut(HsObjectStore *store, uint64_t object_id, HsSlice data,
				 HsStatus *st)
{
	HsEnv	   *env = store->env;
	HsObjectWrite *w;
	HsFile	   *f;
	HsStatus	ignore;

	if (!HsObjectStoreBeginWrite(store, object_id, &w, st))
		return false;
	if (!env->open_writable(env, w->path, &f, st))
	{
		HsObjectStoreAbortWrite(store, w);
		return false;
	}
	if (!env->append(env, f, data.data, data.len, st) ||
		!env->sync(env, f, st))
	{
		env->close(env, f, &ignore);
		HsObjectStoreAbortWrite(store, w);
		return false;
	}
	if (!env->close(env, f, st))
	{
		HsObjectStoreAbortWrite(store, w);
		return false;
	}
	return HsObjectStoreCommitWrite(store, w, st);
}
