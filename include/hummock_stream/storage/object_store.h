/*-------------------------------------------------------------------------
 *
 * object_store.h
 *	  Where SST objects live: an interface and its local-directory form.
 *
 * An object is an immutable byte string named by a 64-bit object id,
 * written once and deleted only by GC.  The interface is a table of
 * function pointers so that an S3-compatible store can slot in later (it
 * would stage the object in a local file and upload it on commit); the one
 * implementation today keeps objects in a local directory through HsEnv:
 *
 *		<dir>/<object id>.sst			a committed object (decimal id)
 *		<dir>/<object id>.sst.tmp		an object being written
 *
 * Write protocol ("create first, reference later"):
 *	1. begin_write names the staging file <id>.sst.tmp (write->path);
 *	2. the caller creates it, writes the object, fsyncs and closes it
 *	   (HsSstBuilderCreate on write->path ... HsSstBuilderFinish does all of
 *	   that; HsObjectStorePut does it for a byte string);
 *	3. commit_write renames it to <id>.sst (HsEnv's rename is durable) and
 *	   fsyncs the directory.
 * Only after commit_write returns may a version delta refer to the object.
 * A crash leaves at most a .tmp file, which HsObjectStoreList reports so
 * that GC can remove it.
 *
 * include/hummock_stream/storage/object_store.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STORAGE_OBJECT_STORE_H
#define HS_STORAGE_OBJECT_STORE_H

#include "hummock_stream/storage/env.h"
#include "hummock_stream/storage/key.h"

typedef struct HsObjectStore HsObjectStore;

#define HS_OBJECT_PATH_LEN	1024

/* An object being written. */
typedef struct HsObjectWrite
{
	uint64_t	object_id;
	char		path[HS_OBJECT_PATH_LEN];	/* the staging file to create */
} HsObjectWrite;

/* One entry of a listing. */
typedef struct HsObjectEntry
{
	uint64_t	object_id;
	uint64_t	size;			/* bytes */
	bool		temporary;		/* a leftover <id>.sst.tmp */
} HsObjectEntry;

/* Called once per object by list; return false to stop. */
typedef bool (*HsObjectListFn) (void *arg, const HsObjectEntry *entry);

typedef struct HsObjectStoreOps
{
	bool		(*begin_write) (HsObjectStore *store, uint64_t object_id,
								HsObjectWrite **write, HsStatus *st);
	/*
	 * Make the object durable and visible; frees write (also on failure,
	 * when the staging file is removed).
	 */
	bool		(*commit_write) (HsObjectStore *store, HsObjectWrite *write,
								 HsStatus *st);
	/* Give up a write: remove the staging file if any; frees write. */
	void		(*abort_write) (HsObjectStore *store, HsObjectWrite *write);
	/*
	 * The path of a local file holding a committed object, for
	 * HsSstReaderOpen (a remote store would fetch the object into a local
	 * cache first).  HS_NOT_FOUND if the object does not exist.
	 */
	bool		(*local_path) (HsObjectStore *store, uint64_t object_id,
							   char *buf, size_t buflen, HsStatus *st);
	/* Delete an object (HS_NOT_FOUND if it does not exist). */
	bool		(*remove) (HsObjectStore *store, uint64_t object_id,
						   bool temporary, HsStatus *st);
	bool		(*list) (HsObjectStore *store, HsObjectListFn fn, void *arg,
						 HsStatus *st);
	/* Human-readable name of an object for messages. */
	void		(*name) (HsObjectStore *store, uint64_t object_id,
						 char *buf, size_t buflen);
	void		(*close) (HsObjectStore *store);
} HsObjectStoreOps;

/* Embed as the first member of every implementation. */
struct HsObjectStore
{
	const HsObjectStoreOps *ops;
	HsEnv	   *env;			/* files are opened through this env */
};

/*
 * Open the local-directory store rooted at dir, creating the directory if
 * needed.
 */
extern bool HsObjectStoreOpen(HsEnv *env, const char *dir,
							  HsObjectStore **store, HsStatus *st);

/*
 * Write a whole object from memory: begin, write + fsync + close the
 * staging file, commit.
 */
extern bool HsObjectStorePut(HsObjectStore *store, uint64_t object_id,
							 HsSlice data, HsStatus *st);

/* Convenience wrappers. */
static inline bool
HsObjectStoreBeginWrite(HsObjectStore *s, uint64_t id, HsObjectWrite **w,
						HsStatus *st)
{
	return s->ops->begin_write(s, id, w, st);
}

/* Publishes a finished write under the object's name (ops->commit_write). */
static inline bool
HsObjectStoreCommitWrite(HsObjectStore *s, HsObjectWrite *w, HsStatus *st)
{
	return s->ops->commit_write(s, w, st);
}

/* Gives up a write and removes what it wrote (ops->abort_write). */
static inline void
HsObjectStoreAbortWrite(HsObjectStore *s, HsObjectWrite *w)
{
	s->ops->abort_write(s, w);
}

/* Returns the local file path of an object (ops->local_path). */
static inline bool
HsObjectStoreLocalPath(HsObjectStore *s, uint64_t id, char *buf,
					   size_t buflen, HsStatus *st)
{
	return s->ops->local_path(s, id, buf, buflen, st);
}

/* Removes an object or its temporary file (ops->remove). */
static inline bool
HsObjectStoreRemove(HsObjectStore *s, uint64_t id, bool temporary,
					HsStatus *st)
{
	return s->ops->remove(s, id, temporary, st);
}

/* Calls fn for every object and temporary file (ops->list). */
static inline bool
HsObjectStoreList(HsObjectStore *s, HsObjectListFn fn, void *arg,
				  HsStatus *st)
{
	return s->ops->list(s, fn, arg, st);
}

/* Returns an object's name for messages (ops->name). */
static inline void
HsObjectStoreName(HsObjectStore *s, uint64_t id, char *buf, size_t buflen)
{
	s->ops->name(s, id, buf, buflen);
}

/* Frees the store (ops->close). */
static inline void
HsObjectStoreClose(HsObjectStore *s)
{
	if (s)
		s->ops->close(s);
}

#endif							/* HS_STORAGE_OBJECT_STORE_H */
