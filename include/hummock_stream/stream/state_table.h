/*-------------------------------------------------------------------------
 *
 * state_table.h
 *	  Key-value state of a streaming operator, read and written per epoch.
 *
 * A state table is a hummock table (a materialized view's own table, or an
 * internal table of an operator).  Writes of the current epoch go into a
 * memtable; HsStateTableSeal hands it to the store's shared buffer when
 * the epoch ends.  Reads see the table as it is now: the current memtable,
 * then what the shared buffer holds (sealed, spilled and synced but not yet
 * committed epochs), then the committed version.
 *
 * include/hummock_stream/stream/state_table.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_STATE_TABLE_H
#define HS_STREAM_STATE_TABLE_H

#include "lib/stringinfo.h"

#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/storage/version.h"

struct HsStateTable;

/* Where the state tables of one job write and read. */
typedef struct HsStreamStore
{
	HsEnv	   *env;
	HsSharedBuffer *shared_buffer;
	HsSstCache *cache;
	HsVersion  *version;		/* committed version to read (not owned) */
	HsEpoch		epoch;			/* the epoch being written */
	/*
	 * The flush in progress ends one chunk of a backfill, whose last epoch
	 * all its tables commit at: an executor that computes its output again
	 * from its state (OverWindow) may leave that to the last flush.
	 */
	bool		more_to_come;

	/*
	 * Called after a write leaves a table's memtable holding
	 * memtable_full_bytes or more (0: never): the job seals it as a
	 * sub-epoch and spills (stream_job.c), so an epoch whose writes come
	 * from few input rows (a join's fan-out, emitted at its flush) stays
	 * within the shared buffer's memory.
	 */
	void		(*memtable_full) (struct HsStateTable *t, void *arg);
	void	   *memtable_full_arg;
	size_t		memtable_full_bytes;
} HsStreamStore;

typedef struct HsStateTable
{
	HsStreamStore *store;
	HsTableId	table_id;
	bool		log_old_values; /* keep a change log of this table */
	HsMemtable *memtable;		/* writes of store->epoch, or NULL */
} HsStateTable;

extern void HsStateTableInit(HsStateTable *t, HsStreamStore *store,
							 HsTableId table_id, bool log_old_values);

/* The value of key now; false if absent. */
extern bool HsStateTableGet(HsStateTable *t, const char *key, int keylen,
							StringInfo value);

/*
 * The first entry whose key starts with prefix (in key order); false if
 * none.  key and value are reset and filled.
 */
extern bool HsStateTableFirstWithPrefix(HsStateTable *t, const char *prefix,
										int prefixlen, StringInfo key,
										StringInfo value);

/*
 * Call visit for every entry whose key starts with prefix, in key order,
 * until it returns false.
 */
typedef bool (*HsStateTableVisit) (const char *key, int keylen,
								   const char *value, int vlen, void *arg);
extern void HsStateTableScanPrefix(HsStateTable *t, const char *prefix,
								   int prefixlen, HsStateTableVisit visit,
								   void *arg);

/*
 * Call visit(i, ...) for every entry whose key starts with prefixes[i], for
 * i in order, each prefix's entries in key order: prefixes[0..n) sorted
 * ascending (memcmp, then length), without duplicates, none a prefix of
 * another (memcmp encodings of keys, which are prefix-free).  One iterator
 * answers them all, moving forward only.  The caller must not write the
 * table from visit.
 */
typedef void (*HsStateTablePrefixVisit) (int i, const char *key, int keylen,
										 const char *value, int vlen, void *arg);
extern void HsStateTableScanPrefixes(HsStateTable *t, const HsSlice *prefixes,
									 int n, HsStateTablePrefixVisit visit,
									 void *arg);

/*
 * HsStateTableScanPrefixes visiting only the first entry of each prefix
 * (HsStateTableFirstWithPrefix for many prefixes in one pass).
 */
extern void HsStateTableFirstWithPrefixes(HsStateTable *t, const HsSlice *prefixes,
										  int n, HsStateTablePrefixVisit visit,
										  void *arg);

/*
 * Call visit for every entry whose key is in [lower, upper) (upper NULL:
 * no end), in key order, until it returns false.
 */
extern void HsStateTableScanRange(HsStateTable *t, const char *lower, int lowerlen,
								  const char *upper, int upperlen,
								  HsStateTableVisit visit, void *arg);

/*
 * The values of many keys at once, keys[0..n) sorted ascending (memcmp,
 * then length) without duplicates: found(i, value, vlen, arg) is called,
 * in order, for each key present now; absent keys are skipped.  The data
 * not yet committed to the version answers each key by its hash indexes
 * and key filter; one iterator walks the version forward for the rest,
 * stepping from key to key where they lie close together and seeking
 * where they do not; when it reads too much per key (the keys are sparse
 * in the table, or lie among many deleted entries and old versions), the
 * rest are read by point gets, whose bloom filters skip SSTs.  The caller
 * must not write the table from found.
 */
typedef void (*HsStateTableFound) (int i, const char *value, int vlen, void *arg);
extern void HsStateTableMultiGet(HsStateTable *t, const HsSlice *keys, int n,
								 HsStateTableFound found, void *arg);

/* Write key: old_value NULL if the key is absent now. */
extern void HsStateTablePut(HsStateTable *t, const char *key, int keylen,
							const char *old_value, int old_len,
							const char *new_value, int new_len);
extern void HsStateTableDelete(HsStateTable *t, const char *key, int keylen,
							   const char *old_value, int old_len);

/* End of the epoch: hand the memtable to the shared buffer. */
extern void HsStateTableSeal(HsStateTable *t);

/*
 * Hand the memtable to the shared buffer as the writes of epoch, an epoch
 * between the table's last sealed one and the store's current one (the
 * current epoch's writes so far become a sub-epoch of it).
 */
extern void HsStateTableSealAs(HsStateTable *t, HsEpoch epoch);

/* Bytes held by the current epoch's memtable. */
extern size_t HsStateTableUnsealedBytes(const HsStateTable *t);

/* Forget unsealed writes (error recovery). */
extern void HsStateTableDiscard(HsStateTable *t);

#endif							/* HS_STREAM_STATE_TABLE_H */
