/*-------------------------------------------------------------------------
 *
 * shared_buffer.c
 *	  Sealed memtables, spills and syncs.
 *
 * The buffer is a list of pieces, each of one table:
 *
 *	SEALED		one epoch's memtable, in memory;
 *	SPILLED		one epoch written early to SSTs (new values, and old
 *				values when the memtable logged them);
 *	SYNCED		what a sync wrote for the table (all its synced epochs),
 *				kept only to serve reads until the commit is acknowledged.
 *
 * A point get asks the pieces newest first.  A table with many unsynced
 * epochs (a backfill seals one every chunk, and spills them as they
 * outgrow the buffer) also gets a key index: a filter of the hashes of
 * every key its SEALED and SPILLED pieces hold (key_filter.c, a few bits
 * a key).  It is started at the seal that gives the table
 * KEY_INDEX_MIN_PIECES unsynced pieces, or (HsSharedBufferSetIndexAtSpill:
 * a backfill, whose state may outgrow the buffer at its first chunk) at
 * its first seal or spill, while all its pieces are still in memory (a
 * table that spills before goes without until its pieces are synced), grows with
 * every seal, keeps the keys of what spills, and is dropped
 * when a sync leaves the table no unsynced piece.  For a table no point
 * read has asked about yet (a join side whose other side was pushed
 * before it, a view, a min/max kept by row: written blind, often never
 * read before the commit), the index is put off from that seal or spill
 * to the first such read, which builds it from the sealed memtables and
 * the spilled SSTs' keys (a pass over them); a table never read costs no
 * index.  A key the filter lacks
 * skips every sealed memtable and spilled SST of the table, so a get for
 * a new key costs a few probes instead of one skip-list search or bloom
 * probe per epoch.
 *
 * A sync first writes every SST it needs and only then rewrites the piece
 * list, so a failed sync leaves the buffer as it was.
 *
 * src/storage/shared_buffer.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hummock_stream/storage/key_filter.h"
#include "hummock_stream/storage/merge_iter.h"
#include "hummock_stream/storage/shared_buffer.h"
#include "hummock_stream/storage/version_read.h"

typedef enum PieceState
{
	PIECE_SEALED,
	PIECE_SPILLED,
	PIECE_SYNCED
} PieceState;

typedef struct Piece
{
	HsTableId	table_id;
	HsEpoch		epoch;			/* SYNCED: the newest epoch synced */
	bool		log;
	PieceState	state;
	HsMemtable *mt;				/* SEALED */
	int			n_new;
	HsSstInfo **new_ssts;		/* SPILLED, SYNCED */
	int			n_old;
	HsSstInfo **old_ssts;		/* SPILLED */
} Piece;

typedef struct TableMark
{
	HsTableId	table_id;
	HsEpoch		max_sealed;
	HsKeyFilter *keys;			/* key index of its SEALED and SPILLED
								 * pieces, or NULL */
	bool		unindexed;		/* a piece spilled before the index began */
	bool		read;			/* a point read asked about the table */
	bool		lazy;			/* its index was due before any read: the
								 * first read builds it, from SSTs too */
} TableMark;

/* Unsynced pieces of a table at which a seal starts its key index. */
#define KEY_INDEX_MIN_PIECES 3

struct HsSharedBuffer
{
	HsEnv	   *env;
	size_t		limit;
	size_t		memory;
	int			n_pieces;
	Piece	   *pieces;
	int			n_marks;
	TableMark  *marks;
	uint64_t	spills;
	uint64_t	index_misses;	/* gets the key index settled */
	bool		index_at_spill; /* a read table's first seal or spill starts
								 * its index */
};

HsSharedBuffer *
HsSharedBufferCreate(HsEnv *env, size_t memory_limit)
{
	HsSharedBuffer *b = HsAllocZero(env, sizeof(HsSharedBuffer));

	b->env = env;
	b->limit = memory_limit;
	return b;
}

/* Drops a piece's memtable and SST references, keeping memory accounted. */
static void
piece_clear(HsSharedBuffer *b, Piece *p)
{
	if (p->mt)
	{
		b->memory -= HsMemtableMemoryUsage(p->mt);
		HsMemtableDestroy(p->mt);
		p->mt = NULL;
	}
	HsSstInfoArrayFree(b->env, p->new_ssts, p->n_new);
	HsSstInfoArrayFree(b->env, p->old_ssts, p->n_old);
	p->new_ssts = p->old_ssts = NULL;
	p->n_new = p->n_old = 0;
}

void
HsSharedBufferDestroy(HsSharedBuffer *b)
{
	int			i;

	if (b == NULL)
		return;
	for (i = 0; i < b->n_pieces; i++)
		piece_clear(b, &b->pieces[i]);
	if (b->pieces)
		HsFree(b->env, b->pieces);
	for (i = 0; i < b->n_marks; i++)
		HsKeyFilterDestroy(b->marks[i].keys);
	if (b->marks)
		HsFree(b->env, b->marks);
	HsFree(b->env, b);
}

/* Returns table t's seal mark, created if create and absent (else NULL). */
static TableMark *
mark_of(HsSharedBuffer *b, HsTableId t, bool create)
{
	int			i;

	for (i = 0; i < b->n_marks; i++)
		if (b->marks[i].table_id == t)
			return &b->marks[i];
	if (!create)
		return NULL;
	b->marks = HsRealloc(b->env, b->marks, sizeof(TableMark) * (b->n_marks + 1));
	b->marks[b->n_marks].table_id = t;
	b->marks[b->n_marks].max_sealed = HS_EPOCH_INVALID;
	b->marks[b->n_marks].keys = NULL;
	b->marks[b->n_marks].unindexed = false;
	b->marks[b->n_marks].read = false;
	b->marks[b->n_marks].lazy = false;
	return &b->marks[b->n_marks++];
}

static void
add_key_hash(void *arg, HsSlice user_key)
{
	HsKeyFilterAdd((HsKeyFilter *) arg, HsKeyFilterHash(user_key));
}

/* Add mt's keys to m's key index (which exists), keeping memory counted. */
static void
index_memtable(HsSharedBuffer *b, TableMark *m, HsMemtable *mt)
{
	b->memory -= HsKeyFilterMemoryUsage(m->keys);
	HsMemtableForEachKey(mt, add_key_hash, m->keys);
	b->memory += HsKeyFilterMemoryUsage(m->keys);
}

/* Start m's key index over its sealed pieces (in memory, none spilled). */
static void
start_key_index(HsSharedBuffer *b, TableMark *m)
{
	size_t		keys = 0;
	int			i;

	for (i = 0; i < b->n_pieces; i++)
		if (b->pieces[i].table_id == m->table_id && b->pieces[i].state == PIECE_SEALED)
			keys += HsMemtableKeyCount(b->pieces[i].mt);
	m->keys = HsKeyFilterCreate(b->env, keys * 2);
	b->memory += HsKeyFilterMemoryUsage(m->keys);
	for (i = 0; i < b->n_pieces; i++)
		if (b->pieces[i].table_id == m->table_id && b->pieces[i].state == PIECE_SEALED)
			index_memtable(b, m, b->pieces[i].mt);
}

/* Has table t a spilled piece? */
static bool
has_spilled_piece(const HsSharedBuffer *b, HsTableId t)
{
	for (int i = 0; i < b->n_pieces; i++)
		if (b->pieces[i].table_id == t && b->pieces[i].state == PIECE_SPILLED)
			return true;
	return false;
}

/*
 * A piece of m's table was just sealed: grow its key index, or start one
 * once the table has enough unsynced pieces, all in memory (with
 * index_at_spill, one is enough: a backfill's table that is read is read
 * every chunk, and a get without an index asks every piece).
 */
static void
index_sealed(HsSharedBuffer *b, TableMark *m, HsMemtable *mt)
{
	int			n = 0;

	if (m->keys != NULL)
	{
		index_memtable(b, m, mt);
		return;
	}
	if (m->unindexed || m->lazy)
		return;
	for (int i = 0; i < b->n_pieces; i++)
		if (b->pieces[i].table_id == m->table_id && b->pieces[i].state != PIECE_SYNCED)
			n++;
	if (n < (b->index_at_spill ? 1 : KEY_INDEX_MIN_PIECES))
		return;
	if (!m->read)
	{
		/* no point read asked about the table yet: the first will */
		m->lazy = true;
		return;
	}
	if (has_spilled_piece(b, m->table_id))
	{
		/* its keys are in SSTs only: no index until they are synced */
		m->unindexed = true;
		return;
	}
	start_key_index(b, m);
}

/* Forget table t's key index if it has no unsynced piece left (or always). */
static void
drop_key_index(HsSharedBuffer *b, HsTableId t, bool always)
{
	TableMark  *m = mark_of(b, t, false);

	if (m == NULL)
		return;
	if (!always)
		for (int i = 0; i < b->n_pieces; i++)
			if (b->pieces[i].table_id == t && b->pieces[i].state != PIECE_SYNCED)
				return;
	m->unindexed = false;
	m->lazy = false;
	m->read = false;
	if (m->keys == NULL)
		return;
	b->memory -= HsKeyFilterMemoryUsage(m->keys);
	HsKeyFilterDestroy(m->keys);
	m->keys = NULL;
}

/* Appends a zeroed piece and returns it. */
static Piece *
add_piece(HsSharedBuffer *b)
{
	Piece	   *p;

	b->pieces = HsRealloc(b->env, b->pieces, sizeof(Piece) * (b->n_pieces + 1));
	p = &b->pieces[b->n_pieces++];
	memset(p, 0, sizeof(Piece));
	return p;
}

/* Remove pieces for which keep[i] is false (already cleared). */
static void
compact_pieces(HsSharedBuffer *b, const bool *keep)
{
	int			i;
	int			k = 0;

	for (i = 0; i < b->n_pieces; i++)
		if (keep[i])
			b->pieces[k++] = b->pieces[i];
	b->n_pieces = k;
}

bool
HsSharedBufferSeal(HsSharedBuffer *b, HsMemtable *mt, HsStatus *st)
{
	HsTableId	t = HsMemtableTableId(mt);
	HsEpoch		e = HsMemtableEpoch(mt);
	TableMark  *m = mark_of(b, t, true);
	Piece	   *p;

	if (!HsMemtableFinish(mt, st))
	{
		HsMemtableDestroy(mt);
		return false;
	}
	if (e <= m->max_sealed)
	{
		HsMemtableDestroy(mt);
		HsStatusSet(st, HS_INVALID_ARGUMENT,
					"epoch %" PRIu64 " of table %u is sealed out of order", e, t);
		return HsStatusDetail(st, "Epoch %" PRIu64 " was sealed before.",
							  m->max_sealed);
	}
	m->max_sealed = e;
	p = add_piece(b);
	p->table_id = t;
	p->epoch = e;
	p->log = HsMemtableLogsOldValues(mt);
	p->state = PIECE_SEALED;
	p->mt = mt;
	b->memory += HsMemtableMemoryUsage(mt);
	index_sealed(b, m, mt);
	return true;
}

/*
 * Write the memtables' entries of one kind as SSTs.  mts are of one table
 * (or of several, for the shared stream), in any order: no two hold the
 * same full key.
 */
static bool
write_memtables(HsEnv *env, HsMemtable **mts, int n, HsMemtableIterKind kind,
				const HsSstWriteContext *ctx, HsSstInfo ***out, int *n_out,
				HsStatus *st)
{
	HsIterator **children;
	HsIterator *merged;
	HsSstWriter *w;
	int			i;
	bool		ok;

	*out = NULL;
	*n_out = 0;
	if (n == 0)
		return true;
	children = HsAlloc(env, sizeof(HsIterator *) * n);
	for (i = 0; i < n; i++)
		children[i] = HsMemtableNewIterator(mts[i], kind);
	merged = HsMergeIterCreate(env, children, n);
	HsFree(env, children);
	w = HsSstWriterCreate(env, ctx);
	HsIterSeekToFirst(merged);
	ok = HsSstWriterAddAll(w, merged, st);
	HsIterDestroy(merged);
	if (!ok)
	{
		HsSstWriterAbandon(w);
		return false;
	}
	return HsSstWriterFinish(w, out, n_out, st);
}

bool
HsSharedBufferSpill(HsSharedBuffer *b, size_t target,
					const HsSstWriteContext *ctx, HsStatus *st)
{
	while (b->memory > target)
	{
		Piece	   *best = NULL;
		HsSstInfo **news;
		HsSstInfo **olds = NULL;
		int			n_new;
		int			n_old = 0;
		int			i;

		for (i = 0; i < b->n_pieces; i++)
		{
			Piece	   *p = &b->pieces[i];

			if (p->state == PIECE_SEALED &&
				(best == NULL || HsMemtableMemoryUsage(p->mt) >
				 HsMemtableMemoryUsage(best->mt)))
				best = p;
		}
		if (best == NULL)
			break;
		/*
		 * The table's first spill: index its keys while they are in
		 * memory, if it is read; if not yet, its first read will.
		 */
		if (b->index_at_spill)
		{
			TableMark  *m = mark_of(b, best->table_id, false);

			if (m != NULL && m->keys == NULL && !m->unindexed && !m->lazy &&
				!has_spilled_piece(b, best->table_id))
			{
				if (m->read)
					start_key_index(b, m);
				else
					m->lazy = true;
			}
		}
		if (!write_memtables(b->env, &best->mt, 1, HS_MEMTABLE_NEW_VALUES,
							 ctx, &news, &n_new, st))
			return false;
		if (best->log &&
			!write_memtables(b->env, &best->mt, 1, HS_MEMTABLE_OLD_VALUES,
							 ctx, &olds, &n_old, st))
		{
			HsSstInfoArrayFree(b->env, news, n_new);
			return false;
		}
		b->memory -= HsMemtableMemoryUsage(best->mt);
		HsMemtableDestroy(best->mt);
		best->mt = NULL;
		best->state = PIECE_SPILLED;
		best->new_ssts = news;
		best->n_new = n_new;
		best->old_ssts = olds;
		best->n_old = n_old;
		b->spills++;
	}
	return true;
}

bool
HsSharedBufferMaybeSpill(HsSharedBuffer *b, const HsSstWriteContext *ctx,
						 HsStatus *st)
{
	if (b->memory <= b->limit)
		return true;
	return HsSharedBufferSpill(b, b->limit / 2, ctx, st);
}

/* Is t one of the n tables? */
static bool
table_in(const HsTableId *tables, int n, HsTableId t)
{
	int			i;

	for (i = 0; i < n; i++)
		if (tables[i] == t)
			return true;
	return false;
}

/* qsort comparator of epochs. */
static int
epoch_cmp(const void *a, const void *b)
{
	HsEpoch		x = *(const HsEpoch *) a;
	HsEpoch		y = *(const HsEpoch *) b;

	return (x > y) - (x < y);
}

/* Frees a sync result and drops its SST references. */
void
HsSyncResultFree(HsSyncResult *r)
{
	int			i;

	if (r == NULL)
		return;
	HsSstInfoArrayFree(r->env, r->ssts, r->n_ssts);
	for (i = 0; i < r->n_tables; i++)
	{
		HsSyncTable *t = &r->tables[i];

		if (t->epochs)
			HsFree(r->env, t->epochs);
		HsSstInfoArrayFree(r->env, t->new_ssts, t->n_new);
		HsSstInfoArrayFree(r->env, t->old_ssts, t->n_old);
	}
	if (r->tables)
		HsFree(r->env, r->tables);
	HsFree(r->env, r);
}

const HsSyncTable *
HsSyncResultTable(const HsSyncResult *r, HsTableId table_id)
{
	int			i;

	for (i = 0; i < r->n_tables; i++)
		if (r->tables[i].table_id == table_id)
			return &r->tables[i];
	return NULL;
}

bool
HsSharedBufferSync(HsSharedBuffer *b, HsEpoch epoch, const HsTableId *tables,
				   int n, const HsSstWriteContext *ctx, HsSyncResult **out,
				   HsStatus *st)
{
	HsEnv	   *env = b->env;
	HsSyncResult *r;
	bool	   *selected;
	bool	   *keep;
	HsMemtable **shared_mts;
	int			n_shared = 0;
	HsSstInfo **shared_ssts = NULL;
	int			n_shared_ssts = 0;
	int			i;
	int			j;

	*out = NULL;
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (tables[i] == tables[j])
			{
				HsStatusSet(st, HS_INVALID_ARGUMENT,
							"table %u is listed twice in a sync", tables[i]);
				return false;
			}

	r = HsAllocZero(env, sizeof(HsSyncResult));
	r->env = env;
	r->epoch = epoch;
	r->n_tables = n;
	r->tables = HsAllocZero(env, sizeof(HsSyncTable) * (n ? n : 1));
	selected = HsAllocZero(env, sizeof(bool) * (b->n_pieces + 1));
	keep = HsAllocZero(env, sizeof(bool) * (b->n_pieces + 1));
	shared_mts = HsAlloc(env, sizeof(HsMemtable *) * (b->n_pieces + 1));

	for (i = 0; i < b->n_pieces; i++)
	{
		Piece	   *p = &b->pieces[i];

		selected[i] = p->state != PIECE_SYNCED && p->epoch <= epoch &&
			table_in(tables, n, p->table_id);
	}

	/* per table: epochs and whether every piece logged old values */
	for (i = 0; i < n; i++)
	{
		HsSyncTable *t = &r->tables[i];
		bool		all_log = true;

		t->table_id = tables[i];
		for (j = 0; j < b->n_pieces; j++)
		{
			Piece	   *p = &b->pieces[j];

			if (!selected[j] || p->table_id != t->table_id)
				continue;
			all_log = all_log && p->log;
			t->epochs = HsRealloc(env, t->epochs,
								  sizeof(HsEpoch) * (t->n_epochs + 1));
			t->epochs[t->n_epochs++] = p->epoch;
		}
		if (t->n_epochs > 0)
			qsort(t->epochs, t->n_epochs, sizeof(HsEpoch), epoch_cmp);
		t->log_enabled = t->n_epochs > 0 && all_log;
	}

	/* write: logged tables on their own, the others together */
	for (i = 0; i < n; i++)
	{
		HsSyncTable *t = &r->tables[i];
		HsMemtable **mts;
		int			k = 0;
		HsSstInfo **ssts;
		int			n_ssts;

		mts = HsAlloc(env, sizeof(HsMemtable *) * (b->n_pieces + 1));
		for (j = 0; j < b->n_pieces; j++)
		{
			Piece	   *p = &b->pieces[j];

			if (!selected[j] || p->table_id != t->table_id)
				continue;
			if (p->state == PIECE_SEALED)
			{
				if (t->log_enabled)
					mts[k++] = p->mt;
				else
					shared_mts[n_shared++] = p->mt;
			}
		}
		if (t->log_enabled)
		{
			bool		ok;

			ok = write_memtables(env, mts, k, HS_MEMTABLE_NEW_VALUES, ctx,
								 &ssts, &n_ssts, st);
			if (ok)
			{
				t->new_ssts = ssts;
				t->n_new = n_ssts;
				ok = write_memtables(env, mts, k, HS_MEMTABLE_OLD_VALUES, ctx,
									 &ssts, &n_ssts, st);
				if (ok)
				{
					t->old_ssts = ssts;
					t->n_old = n_ssts;
				}
			}
			if (!ok)
			{
				HsFree(env, mts);
				goto fail;
			}
			for (j = 0; j < t->n_new; j++)
				r->bytes_written += t->new_ssts[j]->file_size;
			HsSstInfoArrayAppend(env, &r->ssts, &r->n_ssts, t->new_ssts,
								 t->n_new);
		}
		HsFree(env, mts);
	}
	if (!write_memtables(env, shared_mts, n_shared, HS_MEMTABLE_NEW_VALUES,
						 ctx, &shared_ssts, &n_shared_ssts, st))
		goto fail;
	for (j = 0; j < n_shared_ssts; j++)
		r->bytes_written += shared_ssts[j]->file_size;
	HsSstInfoArrayAppend(env, &r->ssts, &r->n_ssts, shared_ssts,
						 n_shared_ssts);

	/* spilled pieces contribute their SSTs */
	for (j = 0; j < b->n_pieces; j++)
	{
		Piece	   *p = &b->pieces[j];
		HsSyncTable *t = NULL;

		if (!selected[j] || p->state != PIECE_SPILLED)
			continue;
		for (i = 0; i < n; i++)
			if (r->tables[i].table_id == p->table_id)
				t = &r->tables[i];
		HsSstInfoArrayAppend(env, &r->ssts, &r->n_ssts, p->new_ssts,
							 p->n_new);
		if (t->log_enabled)
		{
			HsSstInfoArrayAppend(env, &t->new_ssts, &t->n_new, p->new_ssts,
								 p->n_new);
			HsSstInfoArrayAppend(env, &t->old_ssts, &t->n_old, p->old_ssts,
								 p->n_old);
		}
	}

	/*
	 * Everything is written: replace the synced pieces by one SYNCED piece
	 * per table that serves reads until the commit is acknowledged.
	 */
	for (i = 0; i < b->n_pieces; i++)
		keep[i] = !selected[i];
	for (i = 0; i < n; i++)
	{
		HsSyncTable *t = &r->tables[i];
		HsSstInfo **mine = NULL;
		int			n_mine = 0;
		Piece	   *np;

		if (t->n_epochs == 0)
			continue;
		for (j = 0; j < r->n_ssts; j++)
			if (HsSstInfoHasTable(r->ssts[j], t->table_id))
				HsSstInfoArrayAppend(env, &mine, &n_mine, &r->ssts[j], 1);
		for (j = 0; j < b->n_pieces; j++)
			if (selected[j] && b->pieces[j].table_id == t->table_id)
				piece_clear(b, &b->pieces[j]);
		if (n_mine == 0)
			continue;
		/* reuse the slot of the first selected piece of the table */
		np = NULL;
		for (j = 0; j < b->n_pieces && np == NULL; j++)
			if (selected[j] && !keep[j] && b->pieces[j].table_id == t->table_id)
			{
				np = &b->pieces[j];
				keep[j] = true;
			}
		np->table_id = t->table_id;
		np->epoch = t->epochs[t->n_epochs - 1];
		np->log = false;
		np->state = PIECE_SYNCED;
		np->new_ssts = mine;
		np->n_new = n_mine;
	}
	compact_pieces(b, keep);
	for (i = 0; i < n; i++)
		drop_key_index(b, tables[i], false);

	HsSstInfoArrayFree(env, shared_ssts, n_shared_ssts);
	HsFree(env, selected);
	HsFree(env, keep);
	HsFree(env, shared_mts);
	*out = r;
	return true;

fail:
	HsSstInfoArrayFree(env, shared_ssts, n_shared_ssts);
	HsFree(env, selected);
	HsFree(env, keep);
	HsFree(env, shared_mts);
	HsSyncResultFree(r);
	return false;
}

void
HsSharedBufferAckCommitted(HsSharedBuffer *b, HsTableId table_id,
						   HsEpoch committed_epoch)
{
	bool	   *keep = HsAlloc(b->env, sizeof(bool) * (b->n_pieces + 1));
	int			i;

	for (i = 0; i < b->n_pieces; i++)
	{
		Piece	   *p = &b->pieces[i];

		keep[i] = true;
		if (p->table_id == table_id && p->state == PIECE_SYNCED &&
			p->epoch <= committed_epoch)
		{
			piece_clear(b, p);
			keep[i] = false;
		}
	}
	compact_pieces(b, keep);
	HsFree(b->env, keep);
}

void
HsSharedBufferDropTable(HsSharedBuffer *b, HsTableId table_id)
{
	bool	   *keep = HsAlloc(b->env, sizeof(bool) * (b->n_pieces + 1));
	int			i;

	drop_key_index(b, table_id, true);
	for (i = 0; i < b->n_pieces; i++)
	{
		keep[i] = b->pieces[i].table_id != table_id;
		if (!keep[i])
			piece_clear(b, &b->pieces[i]);
	}
	compact_pieces(b, keep);
	HsFree(b->env, keep);
}

bool
HsSharedBufferNewIterator(HsSharedBuffer *b, HsSstCache *cache,
						  HsTableId table_id, HsEpoch read_epoch,
						  const HsSlice *lower, const HsSlice *upper,
						  HsIterator **out, HsStatus *st)
{
	HsTableBounds bounds;
	HsIterator **children = NULL;
	int			n = 0;
	int			cap = 0;
	uint64_t   *seen = NULL;
	int			n_seen = 0;
	int			i;
	int			j;
	int			k;

	*out = NULL;
	HsTableBoundsInit(&bounds, b->env, table_id, lower, upper);
	/* newest first: later pieces of a table hold newer epochs */
	for (i = b->n_pieces - 1; i >= 0; i--)
	{
		Piece	   *p = &b->pieces[i];

		if (p->table_id != table_id)
			continue;
		if (p->state != PIECE_SYNCED && p->epoch > read_epoch)
			continue;
		if (n + p->n_new + 1 > cap)
		{
			cap = (n + p->n_new + 1) * 2;
			children = HsRealloc(b->env, children, sizeof(HsIterator *) * cap);
			seen = HsRealloc(b->env, seen, sizeof(uint64_t) * cap);
		}
		if (p->state == PIECE_SEALED)
		{
			children[n++] = HsMemtableNewIterator(p->mt, HS_MEMTABLE_NEW_VALUES);
			continue;
		}
		for (j = 0; j < p->n_new; j++)
		{
			bool		dup = false;

			/* an SST outside the range is not opened */
			if (!HsSstInfoMayOverlap(p->new_ssts[j], table_id, &bounds.lo,
									 bounds.has_hi ? &bounds.hi : NULL))
				continue;
			for (k = 0; k < n_seen; k++)
				if (seen[k] == p->new_ssts[j]->object_id)
					dup = true;
			if (dup)
				continue;
			seen[n_seen++] = p->new_ssts[j]->object_id;
			if (!HsSstCacheNewIterator(cache, p->new_ssts[j]->object_id,
									   &children[n], st))
			{
				while (n > 0)
					HsIterDestroy(children[--n]);
				HsFree(b->env, children);
				HsFree(b->env, seen);
				HsTableBoundsFree(&bounds);
				return false;
			}
			n++;
		}
	}
	*out = HsMergeIterCreate(b->env, children, n);
	if (children)
		HsFree(b->env, children);
	if (seen)
		HsFree(b->env, seen);
	HsTableBoundsFree(&bounds);
	return true;
}

/* Add the keys of table m's spilled SSTs of piece p to its key index. */
static bool
index_spilled(HsSharedBuffer *b, HsSstCache *cache, TableMark *m, const Piece *p)
{
	bool		ok = true;
	HsStatus	st;

	HsStatusClear(&st);
	b->memory -= HsKeyFilterMemoryUsage(m->keys);
	for (int j = 0; j < p->n_new && ok; j++)
	{
		HsIterator *it;

		if (!HsSstCacheNewIterator(cache, p->new_ssts[j]->object_id, &it, &st))
		{
			ok = false;
			break;
		}
		for (HsIterSeekToFirst(it); HsIterValid(it); HsIterNext(it))
		{
			HsSlice		fk = HsIterKey(it);

			if (HsFullKeyTableId(fk) == m->table_id)
				HsKeyFilterAdd(m->keys, HsKeyFilterHash(HsFullKeyUserKey(fk)));
		}
		ok = HsIterStatus(it, &st);
		HsIterDestroy(it);
	}
	b->memory += HsKeyFilterMemoryUsage(m->keys);
	return ok;
}

/*
 * A point read asks about m's table: note it, and build the key index a
 * seal or spill put off (lazy) from its sealed memtables and the keys of
 * its spilled SSTs.  If an SST cannot be read the table goes without an index
 * (any key may be here; the read itself then meets the error).
 */
static void
note_read(HsSharedBuffer *b, HsSstCache *cache, TableMark *m)
{
	size_t		keys = 0;

	m->read = true;
	if (!m->lazy)
		return;
	m->lazy = false;
	for (int i = 0; i < b->n_pieces; i++)
	{
		const Piece *p = &b->pieces[i];

		if (p->table_id != m->table_id || p->state == PIECE_SYNCED)
			continue;
		if (p->state == PIECE_SEALED)
			keys += HsMemtableKeyCount(p->mt);
		else
			for (int j = 0; j < p->n_new; j++)
				keys += p->new_ssts[j]->entry_count;
	}
	m->keys = HsKeyFilterCreate(b->env, keys * 2);
	b->memory += HsKeyFilterMemoryUsage(m->keys);
	for (int i = 0; i < b->n_pieces; i++)
	{
		const Piece *p = &b->pieces[i];

		if (p->table_id != m->table_id || p->state == PIECE_SYNCED)
			continue;
		if (p->state == PIECE_SEALED)
			index_memtable(b, m, p->mt);
		else if (!index_spilled(b, cache, m, p))
		{
			drop_key_index(b, m->table_id, true);
			m->unindexed = true;
			m->read = true;
			return;
		}
	}
}

bool
HsSharedBufferSetIndexAtSpill(HsSharedBuffer *b, bool on)
{
	bool		was = b->index_at_spill;

	b->index_at_spill = on;
	return was;
}

void
HsSharedBufferMayHold(HsSharedBuffer *b, HsSstCache *cache, HsTableId table_id,
					  const HsSlice *keys, size_t n, bool *maybe)
{
	TableMark  *m = mark_of(b, table_id, true);
	bool		pieces = false;
	bool		synced = false;
	uint64_t   *hashes;

	note_read(b, cache, m);

	for (int i = 0; i < b->n_pieces; i++)
		if (b->pieces[i].table_id == table_id)
		{
			pieces = true;
			synced = synced || b->pieces[i].state == PIECE_SYNCED;
		}
	if (!pieces || synced || m == NULL || m->keys == NULL)
	{
		/* nothing here: no key; synced SSTs (or no filter): any key */
		memset(maybe, pieces, n * sizeof(bool));
		return;
	}
	hashes = HsAlloc(b->env, sizeof(uint64_t) * (n > 0 ? n : 1));
	for (size_t i = 0; i < n; i++)
		hashes[i] = HsKeyFilterHash(keys[i]);
	HsKeyFilterMayContainMany(m->keys, hashes, n, maybe);
	HsFree(b->env, hashes);
	for (size_t i = 0; i < n; i++)
		b->index_misses += !maybe[i];
}

bool
HsSharedBufferGet(HsSharedBuffer *b, HsSstCache *cache, HsTableId table_id,
				  HsSlice user_key, HsEpoch read_epoch, bool *resolved,
				  bool *found, HsBuf *value, HsStatus *st)
{
	HsBuf		tk_buf;
	HsBuf		scratch;
	HsSlice		tk;
	bool		ok = true;
	bool		skip_unsynced = false;
	TableMark  *m = mark_of(b, table_id, true);
	int			i;

	note_read(b, cache, m);
	/* a key the index lacks is in no sealed or spilled piece */
	if (m->keys != NULL)
	{
		skip_unsynced = !HsKeyFilterMayContain(m->keys, HsKeyFilterHash(user_key));
		b->index_misses += skip_unsynced;
	}

	*resolved = false;
	*found = false;
	HsBufReset(value);
	HsBufInit(&tk_buf, b->env);
	HsBufInit(&scratch, b->env);
	HsBufReserve(&tk_buf, user_key.len + HS_TABLE_ID_LEN);
	tk = HsTableKeyMake(tk_buf.data, table_id, user_key);

	/* newest first: the first piece that knows the key decides */
	for (i = b->n_pieces - 1; i >= 0 && ok && !*resolved; i--)
	{
		Piece	   *p = &b->pieces[i];

		if (p->table_id != table_id)
			continue;
		if (p->state != PIECE_SYNCED && (p->epoch > read_epoch || skip_unsynced))
			continue;
		if (p->state == PIECE_SEALED)
		{
			HsKeyOp		op;

			if (!HsMemtableGet(p->mt, user_key, &op))
				continue;
			*resolved = true;
			if (op.kind == HS_KEY_OP_INSERT || op.kind == HS_KEY_OP_UPDATE)
			{
				*found = true;
				HsBufAssign(value, op.new_value.data, op.new_value.len);
			}
			continue;
		}
		/*
		 * A spilled piece's SSTs hold one epoch; a synced piece's hold
		 * several (what it spilled and what the sync wrote), so every one
		 * is asked and the newest version of the key wins.
		 */
		{
			HsEpoch		best = HS_EPOCH_INVALID;

			for (int j = 0; j < p->n_new && ok; j++)
			{
				bool		hit = false;
				HsEpoch		at = HS_EPOCH_INVALID;

				if (!HsSstInfoMayOverlap(p->new_ssts[j], table_id, &tk, NULL))
					continue;
				ok = HsSstCacheGetVersion(cache, p->new_ssts[j]->object_id, tk,
										  read_epoch, &hit, &at, &scratch, st);
				if (!ok || !hit || (*resolved && at <= best))
					continue;
				*resolved = true;
				best = at;
				*found = scratch.len > 0 && scratch.data[0] == HS_VALUE_PUT;
				if (*found)
					HsBufAssign(value, scratch.data + 1, scratch.len - 1);
				else
					HsBufReset(value);
			}
		}
	}
	HsBufFree(&tk_buf);
	HsBufFree(&scratch);
	return ok;
}

HsEpoch
HsSharedBufferMaxSealed(HsSharedBuffer *b, HsTableId table_id)
{
	TableMark  *m = mark_of(b, table_id, false);

	return m ? m->max_sealed : 0;
}

size_t
HsSharedBufferMemoryUsage(const HsSharedBuffer *b)
{
	return b->memory;
}

uint64_t
HsSharedBufferMinObjectId(const HsSharedBuffer *b)
{
	uint64_t	min = UINT64_MAX;
	int			i;
	int			j;

	for (i = 0; i < b->n_pieces; i++)
	{
		const Piece *p = &b->pieces[i];

		for (j = 0; j < p->n_new; j++)
			if (p->new_ssts[j]->object_id < min)
				min = p->new_ssts[j]->object_id;
		for (j = 0; j < p->n_old; j++)
			if (p->old_ssts[j]->object_id < min)
				min = p->old_ssts[j]->object_id;
	}
	return min;
}

uint64_t
HsSharedBufferSpillCount(const HsSharedBuffer *b)
{
	return b->spills;
}

uint64_t
HsSharedBufferIndexMisses(const HsSharedBuffer *b)
{
	return b->index_misses;
}

bool
HsVersionDeltaAddSyncResults(HsVersionDelta *d, HsSyncResult *const *results,
							 int n_results, HsEpoch epoch,
							 const HsTableId *log_tables, int n_log_tables,
							 const HsEpoch *log_epochs, int n_log_epochs,
							 HsStatus *st)
{
	HsEnv	   *env = d->env;
	int			i;
	int			j;
	int			k;

	for (i = 0; i < n_results; i++)
	{
		HsVersionDeltaAddL0Ssts(d, results[i]->ssts, results[i]->n_ssts);
		for (j = 0; j < results[i]->n_tables; j++)
		{
			HsTableId	t = results[i]->tables[j].table_id;
			bool		seen = false;

			for (k = 0; k < d->n_commits; k++)
				if (d->commits[k].table_id == t)
					seen = true;
			if (!seen)
				HsVersionDeltaAddCommit(d, t, epoch);
		}
	}
	for (i = 0; i < n_log_tables; i++)
	{
		HsTableId	t = log_tables[i];
		HsSstInfo **news = NULL;
		HsSstInfo **olds = NULL;
		int			n_new = 0;
		int			n_old = 0;
		HsEpoch    *epochs = NULL;
		int			n_epochs = 0;
		bool		ok;

		for (j = 0; j < n_results; j++)
		{
			const HsSyncTable *r = HsSyncResultTable(results[j], t);

			if (r == NULL || r->n_epochs == 0)
				continue;
			if (!r->log_enabled)
			{
				HsSstInfoArrayFree(env, news, n_new);
				HsSstInfoArrayFree(env, olds, n_old);
				if (epochs)
					HsFree(env, epochs);
				HsStatusSet(st, HS_INVALID_ARGUMENT,
							"table %u has a change log but its sync wrote no old values",
							t);
				return HsStatusDetail(st, "Create the memtables of a logged table with log_old_values set.");
			}
			HsSstInfoArrayAppend(env, &news, &n_new, r->new_ssts,
								 r->n_new);
			HsSstInfoArrayAppend(env, &olds, &n_old, r->old_ssts,
								 r->n_old);
			epochs = HsRealloc(env, epochs,
							   sizeof(HsEpoch) * (n_epochs + r->n_epochs));
			memcpy(epochs + n_epochs, r->epochs, sizeof(HsEpoch) * r->n_epochs);
			n_epochs += r->n_epochs;
		}
		if (log_epochs == NULL)
		{
			/* the union of what the results synced, ascending */
			int			m = 0;

			if (n_epochs > 0)
				qsort(epochs, n_epochs, sizeof(HsEpoch), epoch_cmp);
			for (j = 0; j < n_epochs; j++)
				if (m == 0 || epochs[m - 1] != epochs[j])
					epochs[m++] = epochs[j];
			if (m == 0 || epochs[m - 1] != epoch)
			{
				/* nothing sealed at the checkpoint epoch: still log it */
				epochs = HsRealloc(env, epochs, sizeof(HsEpoch) * (m + 1));
				epochs[m++] = epoch;
			}
			ok = HsVersionDeltaAddChangeLog(d, t, epochs, m, news, n_new,
											olds, n_old, st);
		}
		else
			ok = HsVersionDeltaAddChangeLog(d, t, log_epochs, n_log_epochs,
											news, n_new, olds, n_old, st);
		if (epochs)
			HsFree(env, epochs);
		HsSstInfoArrayFree(env, news, n_new);
		HsSstInfoArrayFree(env, olds, n_old);
		if (!ok)
			return false;
	}
	return true;
}
