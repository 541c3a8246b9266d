/*-------------------------------------------------------------------------
 *
 * memtable.c
 *	  Per-table, per-epoch write buffer with RisingWave's op-merge rules.
 *
 * A skip list (maximum height 12, branching 1/4) of nodes, each holding
 * one user key and its merged operation, with a hash index over the same
 * nodes.  A node and its key are one allocation; the old and new values
 * are separate allocations replaced as operations merge.  Nodes are never
 * unlinked: insert-then-delete leaves a HS_KEY_OP_NONE node, which
 * iterators skip.  That keeps iterators valid while the owner writes, and
 * costs one node per cancelled key until the memtable is dropped.
 *
 * Nodes, keys and values live in an arena of chunks (8 KiB doubling up to
 * 1 MiB) freed together with the memtable: no allocation call per write
 * and no free per entry.  A value replaced by one no longer is
 * overwritten in place; a longer one takes new arena space (the old stays
 * until the memtable goes, counted in its memory usage).
 *
 * Writes and point gets go through the hash index (open addressing,
 * linear probing, at most half full; a slot keeps its key's hash, so a
 * probe touches no node but the one it finds), which is built only when
 * first needed: while a memtable has seen nothing but inserts, an insert
 * just makes its node (a probe of a large index is a cache and TLB miss,
 * a fifth of a join's worker); so does any write of a key above every key
 * the memtable holds (writes in key order: an epoch's value counts, which
 * update some keys and insert the rest).  The first other write or point
 * get indexes every node so far.  Two inserts of one key then meet when the
 * pending nodes are sorted (or indexed): the second is left out and the
 * double insert is reported by HsMemtableFinish (the shared buffer's seal
 * calls it) and by the next write.  A finished memtable without an index
 * answers point gets from the skip list, so its memory stays what the
 * seal counted.  A write of a key new to the epoch
 * makes its node and puts it on the pending list instead of searching the
 * skip list, where keys written in no order cost a cache
 * miss per level.  The first ordered access (an iterator's seek or step,
 * HsMemtableForEachKey) sorts the pending nodes (a radix sort on 8-byte
 * chunks of their keys) and links them in one forward pass, every level's
 * predecessor only moving ahead.  So a backfill or an epoch that writes n
 * new keys pays a hash probe per write and one sort of n at the seal, and
 * an iterator still sees every write made before each of its steps.
 *
 * src/storage/memtable.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hummock_stream/storage/coding.h"
#include "hummock_stream/storage/hash.h"
#include "hummock_stream/storage/memtable.h"

#define MAX_HEIGHT	12

/* Slots of a new memtable's hash index (it doubles at half full). */
#define INITIAL_SLOTS 64

typedef struct Node
{
	HsKeyOpKind kind;
	uint8_t    *old_v;			/* NULL when empty or absent */
	size_t		old_len;
	uint8_t    *new_v;
	size_t		new_len;
	uint32_t	key_len;
	int			height;
	uint8_t    *key;			/* points after next[height] */
	struct Node *next[1];		/* height entries */
} Node;

/* One arena chunk; data follows. */
typedef struct ArenaChunk
{
	struct ArenaChunk *next;
	size_t		size;
	size_t		used;
} ArenaChunk;

#define ARENA_FIRST_CHUNK	8192
#define ARENA_MAX_CHUNK		(1024 * 1024)

/* A slot of the hash index: the node and its key's hash (node NULL: free). */
typedef struct IndexSlot
{
	uint64_t	hash;
	struct Node *node;
} IndexSlot;

/* A node waiting to be linked, with its key's first 8 bytes (big-endian). */
typedef struct PendingNode
{
	uint64_t	prefix;
	Node	   *node;
} PendingNode;

struct HsMemtable
{
	HsEnv	   *env;
	HsTableId	table_id;
	HsEpoch		epoch;
	bool		log_old_values;
	bool		check_old_value;
	Node	   *head;
	int			height;
	ArenaChunk *chunks;			/* newest first */
	size_t		next_chunk;		/* size of the next chunk */
	IndexSlot  *slots;			/* hash index: n_slots (a power of 2) */
	size_t		n_slots;
	bool		indexed;		/* slots index every node (else none yet) */
	bool		finished;		/* HsMemtableFinish: no more writes */
	Node	   *duplicate;		/* the second insert of a key, or NULL */
	Node	   *greatest;		/* the node of the greatest key, or NULL */
	bool		only_inserts;	/* every node (if not indexed) an insert */
	PendingNode *pending;		/* nodes not linked yet, in write order */
	size_t		n_pending;
	size_t		pending_cap;
	uint64_t	rng;
	size_t		n_keys;
	size_t		memory;
};

/* Returns the name of a key op kind ("none", "insert", ...). */
const char *
HsKeyOpKindName(HsKeyOpKind kind)
{
	switch (kind)
	{
		case HS_KEY_OP_NONE:
			return "none";
		case HS_KEY_OP_INSERT:
			return "insert";
		case HS_KEY_OP_DELETE:
			return "delete";
		case HS_KEY_OP_UPDATE:
			return "update";
	}
	return "unknown";
}

/* Returns the bytes of a node of height with a key of key_len bytes. */
static size_t
node_size(int height, size_t key_len)
{
	return offsetof(Node, next) + sizeof(Node *) * (size_t) height + key_len;
}

/* sz bytes (8-byte aligned) from the memtable's arena. */
static void *
arena_alloc(HsMemtable *mt, size_t sz)
{
	ArenaChunk *c = mt->chunks;
	void	   *p;

	sz = (sz + 7) & ~(size_t) 7;
	if (c == NULL || c->size - c->used < sz)
	{
		size_t		size = mt->next_chunk;

		if (size < ARENA_MAX_CHUNK)
			mt->next_chunk = size * 2;
		if (size - sizeof(ArenaChunk) < sz)
			size = sizeof(ArenaChunk) + sz;	/* a chunk of its own */
		c = HsAlloc(mt->env, size);
		c->size = size;
		c->used = sizeof(ArenaChunk);
		c->next = mt->chunks;
		mt->chunks = c;
		mt->memory += size;
	}
	p = (char *) c + c->used;
	c->used += sz;
	return p;
}

/* Allocates a node of height holding a copy of key, with no op. */
static Node *
node_new(HsMemtable *mt, int height, HsSlice key)
{
	size_t		sz = node_size(height, key.len);
	Node	   *n = arena_alloc(mt, sz);

	memset(n, 0, offsetof(Node, next) + sizeof(Node *) * (size_t) height);
	n->height = height;
	n->key_len = (uint32_t) key.len;
	n->key = (uint8_t *) &n->next[height];
	if (key.len)
		memcpy(n->key, key.data, key.len);
	return n;
}

/* Returns the node's user key. */
static HsSlice
node_key(const Node *n)
{
	return HsSliceMake(n->key, n->key_len);
}

/* Returns a random tower height (p = 1/4 per level, at most MAX_HEIGHT). */
static int
random_height(HsMemtable *mt)
{
	int			h = 1;

	while (h < MAX_HEIGHT)
	{
		/* xorshift64 */
		mt->rng ^= mt->rng << 13;
		mt->rng ^= mt->rng >> 7;
		mt->rng ^= mt->rng << 17;
		if ((mt->rng & 3) != 0)
			break;
		h++;
	}
	return h;
}

HsMemtable *
HsMemtableCreate(HsEnv *env, HsTableId table_id, HsEpoch epoch,
				 bool log_old_values, bool check_old_value)
{
	HsMemtable *mt = HsAllocZero(env, sizeof(HsMemtable));

	mt->env = env;
	mt->table_id = table_id;
	mt->epoch = epoch;
	mt->log_old_values = log_old_values;
	mt->check_old_value = check_old_value;
	mt->rng = UINT64_C(0x2545F4914F6CDD1D) ^ ((uint64_t) table_id << 20) ^ epoch;
	if (mt->rng == 0)
		mt->rng = 1;
	mt->height = 1;
	mt->only_inserts = true;
	mt->memory = sizeof(HsMemtable);
	mt->next_chunk = ARENA_FIRST_CHUNK;
	mt->head = node_new(mt, MAX_HEIGHT, HsSliceMake(NULL, 0));
	/* no index until a write other than an insert, or a point get */
	return mt;
}

/*
 * Replaces the value at *v with a copy of s: in place when it is no
 * longer than the value there, else in new arena space.
 */
static void
set_value(HsMemtable *mt, uint8_t **v, size_t *len, HsSlice s)
{
	if (s.len == 0)
		*v = NULL;
	else if (*v == NULL || s.len > *len)
		*v = arena_alloc(mt, s.len);
	if (s.len)
		memcpy(*v, s.data, s.len);
	*len = s.len;
}

/* Forgets the value at *v. */
static void
clear_value(HsMemtable *mt, uint8_t **v, size_t *len)
{
	set_value(mt, v, len, HsSliceMake(NULL, 0));
}

void
HsMemtableDestroy(HsMemtable *mt)
{
	ArenaChunk *c;

	if (mt == NULL)
		return;
	c = mt->chunks;
	while (c)
	{
		ArenaChunk *next = c->next;

		HsFree(mt->env, c);
		c = next;
	}
	if (mt->pending)
		HsFree(mt->env, mt->pending);
	if (mt->slots)
		HsFree(mt->env, mt->slots);
	HsFree(mt->env, mt);
}

/* ----------------------------------------------------------------
 *		hash index
 * ----------------------------------------------------------------
 */

/* The node of key (hash h), or NULL.  Probes compare hashes in the slots. */
static Node *
index_find(const HsMemtable *mt, HsSlice key, uint64_t h)
{
	size_t		mask = mt->n_slots - 1;

	for (size_t i = (size_t) h & mask;; i = (i + 1) & mask)
	{
		const IndexSlot *slot = &mt->slots[i];
		Node	   *n = slot->node;

		if (n == NULL)
			return NULL;
		if (slot->hash == h && n->key_len == key.len &&
			(key.len == 0 || memcmp(n->key, key.data, key.len) == 0))
			return n;
	}
}

/* Put n, of hash h (its key not indexed), into slots. */
static void
index_place(IndexSlot *slots, size_t n_slots, Node *n, uint64_t h)
{
	size_t		mask = n_slots - 1;
	size_t		i = (size_t) h & mask;

	while (slots[i].node != NULL)
		i = (i + 1) & mask;
	slots[i].hash = h;
	slots[i].node = n;
}

/* Index n of hash h, doubling the slots first if that would pass half full. */
static void
index_add(HsMemtable *mt, Node *n, uint64_t h)
{
	if ((mt->n_keys + 1) * 2 > mt->n_slots)
	{
		size_t		grown = mt->n_slots * 2;
		IndexSlot  *slots = HsAllocZero(mt->env, sizeof(IndexSlot) * grown);

		for (size_t i = 0; i < mt->n_slots; i++)
			if (mt->slots[i].node)
				index_place(slots, grown, mt->slots[i].node, mt->slots[i].hash);
		HsFree(mt->env, mt->slots);
		mt->memory += sizeof(IndexSlot) * (grown - mt->n_slots);
		mt->slots = slots;
		mt->n_slots = grown;
	}
	index_place(mt->slots, mt->n_slots, n, h);
}

/*
 * Index every node (linked and pending) of a memtable that has none yet.
 * A key found twice is a double insert: the later node is left out (its
 * op cleared, so iterators skip it) and remembered in mt->duplicate.
 */
static void
ensure_index(HsMemtable *mt)
{
	size_t		n_slots = INITIAL_SLOTS;

	if (mt->indexed)
		return;
	while (n_slots < mt->n_keys * 2 + 2)
		n_slots *= 2;
	mt->slots = HsAllocZero(mt->env, sizeof(IndexSlot) * n_slots);
	mt->n_slots = n_slots;
	mt->memory += sizeof(IndexSlot) * n_slots;
	mt->indexed = true;
	/* linked nodes were inserted before the pending ones */
	for (Node *n = mt->head->next[0]; n != NULL; n = n->next[0])
		index_place(mt->slots, mt->n_slots, n, HsHash64(n->key, n->key_len, 0));
	for (size_t p = 0; p < mt->n_pending; p++)
	{
		Node	   *n = mt->pending[p].node;
		uint64_t	h = HsHash64(n->key, n->key_len, 0);

		if (index_find(mt, node_key(n), h) != NULL)
		{
			if (mt->duplicate == NULL)
				mt->duplicate = n;
			n->kind = HS_KEY_OP_NONE;
			mt->n_keys--;
			continue;
		}
		index_place(mt->slots, mt->n_slots, n, h);
	}
}

/* ----------------------------------------------------------------
 *		pending nodes and the skip list
 * ----------------------------------------------------------------
 */

/* The 8 bytes of key from byte off on, as a big-endian integer (zero-padded). */
static uint64_t
key_chunk(HsSlice key, size_t off)
{
	uint64_t	p = 0;

	for (size_t i = off; i < off + 8 && i < key.len; i++)
		p |= (uint64_t) key.data[i] << (56 - 8 * (i - off));
	return p;
}

/* Add n to the nodes waiting to be linked. */
static void
pending_add(HsMemtable *mt, Node *n)
{
	if (mt->n_pending == mt->pending_cap)
	{
		size_t		cap = mt->pending_cap ? mt->pending_cap * 2 : 256;

		mt->pending = mt->pending ?
			HsRealloc(mt->env, mt->pending, sizeof(PendingNode) * cap) :
			HsAlloc(mt->env, sizeof(PendingNode) * cap);
		mt->memory += sizeof(PendingNode) * (cap - mt->pending_cap);
		mt->pending_cap = cap;
	}
	mt->pending[mt->n_pending].prefix = key_chunk(node_key(n), 0);
	mt->pending[mt->n_pending].node = n;
	mt->n_pending++;
}

static int
pending_cmp(const void *a, const void *b)
{
	const PendingNode *x = a;
	const PendingNode *y = b;

	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	return HsSliceCompare(node_key(x->node), node_key(y->node));
}

/*
 * Fewer pending nodes than this are sorted by comparisons, and so are
 * those that agree on their first RADIX_MAX_BYTES (the recursion's depth
 * stays bounded whatever the keys' length).
 */
#define RADIX_MIN_NODES 128
#define RADIX_MAX_BYTES 32

/*
 * Sort a[0..n), whose keys agree on their first off bytes and whose
 * .prefix holds each key's 8 bytes from off on, into key order: an LSD
 * radix sort on .prefix (a pass per byte some nodes differ in), then each
 * run of equal chunks the same way on the next 8 bytes, down to runs small
 * enough for qsort (pending_cmp: the chunk, then the whole key) or keys
 * alike on RADIX_MAX_BYTES.  tmp has room for n nodes.  A join side's new
 * keys (a join key, then a row key) come in no order: qsort's comparisons
 * were 9% of a 3-way join view's worker on a 1M-row epoch, and half of
 * linking a million such keys.
 */
static void
sort_pending_from(PendingNode *a, size_t n, size_t off, PendingNode *tmp)
{
	PendingNode *src = a;
	PendingNode *dst = tmp;
	uint64_t	any = 0;
	uint64_t	all = ~(uint64_t) 0;

	if (n < RADIX_MIN_NODES || off >= RADIX_MAX_BYTES)
	{
		qsort(a, n, sizeof(PendingNode), pending_cmp);
		return;
	}
	/* the bytes some nodes differ in: a pass each, least significant first */
	for (size_t i = 0; i < n; i++)
	{
		any |= a[i].prefix;
		all &= a[i].prefix;
	}
	for (int b = 0; b < 8; b++)
	{
		size_t		c[256];
		size_t		at = 0;
		int			shift = 8 * b;
		PendingNode *swap;

		if ((((any ^ all) >> shift) & 0xff) == 0)
			continue;
		memset(c, 0, sizeof(c));
		for (size_t i = 0; i < n; i++)
			c[(src[i].prefix >> shift) & 0xff]++;
		for (int d = 0; d < 256; d++)
		{
			size_t		k = c[d];

			c[d] = at;
			at += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i].prefix >> shift) & 0xff]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != a)
		memcpy(a, src, sizeof(PendingNode) * n);

	/* runs of one chunk: on by the next one (keys longer than it) */
	for (size_t i = 0, j; i < n; i = j)
	{
		bool		longer = false;

		for (j = i + 1; j < n && a[j].prefix == a[i].prefix; j++)
			;
		if (j - i < 2)
			continue;
		for (size_t k = i; k < j && !longer; k++)
			longer = node_key(a[k].node).len > off + 8;
		if (!longer)
		{
			/* every key ends within the chunk: they differ in length only */
			qsort(a + i, j - i, sizeof(PendingNode), pending_cmp);
			continue;
		}
		for (size_t k = i; k < j; k++)
			a[k].prefix = key_chunk(node_key(a[k].node), off + 8);
		sort_pending_from(a + i, j - i, off + 8, tmp);
	}
}

/* Sort the pending nodes into key order (their prefixes are spent). */
static void
sort_pending(HsMemtable *mt)
{
	/* (too few nodes for a radix sort use no scratch space) */
	PendingNode *tmp = mt->n_pending < RADIX_MIN_NODES ? NULL :
		HsAlloc(mt->env, sizeof(PendingNode) * mt->n_pending);

	sort_pending_from(mt->pending, mt->n_pending, 0, tmp);
	if (tmp)
		HsFree(mt->env, tmp);
}

/* Are the pending nodes in key order already (written in order)? */
static bool
pending_sorted(const HsMemtable *mt)
{
	for (size_t p = 1; p < mt->n_pending; p++)
		if (pending_cmp(&mt->pending[p - 1], &mt->pending[p]) > 0)
			return false;
	return true;
}

/*
 * Link the pending nodes into the skip list: sorted (unless written in
 * order), then placed in one
 * forward pass (prev[level] is the last node before the key on level;
 * the keys ascend, so it only moves ahead, and a level may start from the
 * level above's predecessor when that one is further).
 */
static void
link_pending(HsMemtable *mt)
{
	Node	   *prev[MAX_HEIGHT];

	if (mt->n_pending == 0)
		return;
	if (mt->n_pending > 1 && !pending_sorted(mt))
		sort_pending(mt);
	for (int i = 0; i < MAX_HEIGHT; i++)
		prev[i] = mt->head;
	for (size_t p = 0; p < mt->n_pending; p++)
	{
		Node	   *n = mt->pending[p].node;
		HsSlice		key = node_key(n);

		if (n->height > mt->height)
			mt->height = n->height;
		for (int level = mt->height - 1; level >= 0; level--)
		{
			Node	   *next;

			if (level + 1 < mt->height && prev[level + 1] != mt->head &&
				(prev[level] == mt->head ||
				 HsSliceCompare(node_key(prev[level + 1]), node_key(prev[level])) > 0))
				prev[level] = prev[level + 1];
			while ((next = prev[level]->next[level]) != NULL &&
				   HsSliceCompare(node_key(next), key) < 0)
				prev[level] = next;
		}
		/* without an index, a second insert of a key meets the first here */
		if (!mt->indexed &&
			((prev[0] != mt->head && HsSliceCompare(node_key(prev[0]), key) == 0) ||
			 (prev[0]->next[0] != NULL &&
			  HsSliceCompare(node_key(prev[0]->next[0]), key) == 0)))
		{
			if (mt->duplicate == NULL)
				mt->duplicate = n;
			n->kind = HS_KEY_OP_NONE;
			mt->n_keys--;
			continue;
		}
		for (int i = 0; i < n->height; i++)
		{
			n->next[i] = prev[i]->next[i];
			prev[i]->next[i] = n;
			prev[i] = n;
		}
	}
	mt->n_pending = 0;
}

/* The first linked node with key >= key (NULL: none). */
static Node *
find_ge(HsMemtable *mt, HsSlice key)
{
	Node	   *x = mt->head;
	int			level = mt->height - 1;

	for (;;)
	{
		Node	   *next = x->next[level];

		if (next && HsSliceCompare(node_key(next), key) < 0)
			x = next;
		else
		{
			if (level == 0)
				return next;
			level--;
		}
	}
}

void
HsMemtableForEachKey(HsMemtable *mt, void (*fn) (void *arg, HsSlice user_key),
					 void *arg)
{
	link_pending(mt);
	for (const Node *n = mt->head->next[0]; n != NULL; n = n->next[0])
		fn(arg, node_key(n));
}

/* Returns the slice of a stored value. */
static HsSlice
slice_of(const uint8_t *v, size_t len)
{
	return HsSliceMake(v, len);
}

/* Reports a write that contradicts what the memtable holds for key. */
static bool
inconsistent(HsMemtable *mt, HsSlice key, const char *what, HsStatus *st)
{
	HsBuf		hex;

	HsStatusSet(st, HS_INVALID_ARGUMENT,
				"inconsistent write to table %u at epoch %" PRIu64 ": %s",
				mt->table_id, mt->epoch, what);
	HsBufInit(&hex, mt->env);
	HsBufAppendHex(&hex, key, 64);
	HsStatusDetail(st, "User key %.*s.", (int) hex.len, (const char *) hex.data);
	HsBufFree(&hex);
	return false;
}

/* Does the given old value match the stored one (when checked)? */
static bool
old_matches(HsMemtable *mt, HsSlice given, const uint8_t *v, size_t len)
{
	if (!mt->check_old_value)
		return true;
	return HsSliceCompare(given, slice_of(v, len)) == 0;
}

bool
HsMemtableApply(HsMemtable *mt, HsSlice key, const HsKeyOp *op, HsStatus *st)
{
	uint64_t	h;
	Node	   *n;

	if (op->kind != HS_KEY_OP_INSERT && op->kind != HS_KEY_OP_DELETE &&
		op->kind != HS_KEY_OP_UPDATE)
		return HsStatusSet(st, HS_INVALID_ARGUMENT,
						   "memtable operation kind %d is not a write",
						   (int) op->kind);
	if (key.len > UINT32_MAX)
		return HsStatusSet(st, HS_INVALID_ARGUMENT, "user key is too long");

	if (!mt->indexed)
	{
		bool		above = mt->greatest == NULL ||
			HsSliceCompare(key, node_key(mt->greatest)) > 0;

		/*
		 * No index to probe: an insert while all are inserts (a repeat
		 * shows at the sort), or a key above every key here (new to the
		 * epoch).
		 */
		if (above || (op->kind == HS_KEY_OP_INSERT && mt->only_inserts))
		{
			n = node_new(mt, random_height(mt), key);
			pending_add(mt, n);
			n->kind = op->kind;
			if (op->kind != HS_KEY_OP_INSERT)
			{
				set_value(mt, &n->old_v, &n->old_len, op->old_value);
				mt->only_inserts = false;
			}
			if (op->kind != HS_KEY_OP_DELETE)
				set_value(mt, &n->new_v, &n->new_len, op->new_value);
			if (above)
				mt->greatest = n;
			mt->n_keys++;
			return true;
		}
	}
	ensure_index(mt);
	if (mt->duplicate)
		return inconsistent(mt, node_key(mt->duplicate), "double insert", st);
	h = HsHash64(key.data, key.len, 0);
	n = index_find(mt, key, h);
	if (n == NULL)
	{
		/* first write of the key in this epoch: linked at the next ordered access */
		n = node_new(mt, random_height(mt), key);
		index_add(mt, n, h);
		pending_add(mt, n);
		n->kind = op->kind;
		if (op->kind != HS_KEY_OP_INSERT)
			set_value(mt, &n->old_v, &n->old_len, op->old_value);
		if (op->kind != HS_KEY_OP_DELETE)
			set_value(mt, &n->new_v, &n->new_len, op->new_value);
		mt->n_keys++;
		return true;
	}

	switch (n->kind)
	{
		case HS_KEY_OP_NONE:
			if (op->kind != HS_KEY_OP_INSERT)
				return inconsistent(mt, key, op->kind == HS_KEY_OP_DELETE ?
									"delete of a key that does not exist" :
									"update of a key that does not exist", st);
			n->kind = HS_KEY_OP_INSERT;
			set_value(mt, &n->new_v, &n->new_len, op->new_value);
			return true;

		case HS_KEY_OP_INSERT:
			if (op->kind == HS_KEY_OP_INSERT)
				return inconsistent(mt, key, "double insert", st);
			if (!old_matches(mt, op->old_value, n->new_v, n->new_len))
				return inconsistent(mt, key, "old value differs from the buffered value", st);
			if (op->kind == HS_KEY_OP_DELETE)
			{
				/* insert then delete: nothing happened */
				n->kind = HS_KEY_OP_NONE;
				clear_value(mt, &n->new_v, &n->new_len);
			}
			else
				set_value(mt, &n->new_v, &n->new_len, op->new_value);
			return true;

		case HS_KEY_OP_DELETE:
			if (op->kind != HS_KEY_OP_INSERT)
				return inconsistent(mt, key, op->kind == HS_KEY_OP_DELETE ?
									"delete of a key already deleted" :
									"update of a deleted key", st);
			/* delete then insert: an update from the original old value */
			n->kind = HS_KEY_OP_UPDATE;
			set_value(mt, &n->new_v, &n->new_len, op->new_value);
			return true;

		case HS_KEY_OP_UPDATE:
			if (op->kind == HS_KEY_OP_INSERT)
				return inconsistent(mt, key, "double insert", st);
			if (!old_matches(mt, op->old_value, n->new_v, n->new_len))
				return inconsistent(mt, key, "old value differs from the buffered value", st);
			if (op->kind == HS_KEY_OP_DELETE)
			{
				n->kind = HS_KEY_OP_DELETE;
				clear_value(mt, &n->new_v, &n->new_len);
			}
			else
				set_value(mt, &n->new_v, &n->new_len, op->new_value);
			return true;
	}
	return HsStatusSet(st, HS_INVALID_ARGUMENT, "corrupt memtable node");
}

/* Applies an insert of key with new_value. */
bool
HsMemtableInsert(HsMemtable *mt, HsSlice key, HsSlice new_value, HsStatus *st)
{
	HsKeyOp		op;

	op.kind = HS_KEY_OP_INSERT;
	op.old_value = HsSliceMake(NULL, 0);
	op.new_value = new_value;
	return HsMemtableApply(mt, key, &op, st);
}

/* Applies a delete of key whose row was old_value. */
bool
HsMemtableDelete(HsMemtable *mt, HsSlice key, HsSlice old_value, HsStatus *st)
{
	HsKeyOp		op;

	op.kind = HS_KEY_OP_DELETE;
	op.old_value = old_value;
	op.new_value = HsSliceMake(NULL, 0);
	return HsMemtableApply(mt, key, &op, st);
}

/* Applies an update of key from old_value to new_value. */
bool
HsMemtableUpdate(HsMemtable *mt, HsSlice key, HsSlice old_value,
				 HsSlice new_value, HsStatus *st)
{
	HsKeyOp		op;

	op.kind = HS_KEY_OP_UPDATE;
	op.old_value = old_value;
	op.new_value = new_value;
	return HsMemtableApply(mt, key, &op, st);
}

/* Returns the node's net op (slices point into the node). */
static void
node_op(const Node *n, HsKeyOp *op)
{
	op->kind = n->kind;
	op->old_value = slice_of(n->old_v, n->old_len);
	op->new_value = slice_of(n->new_v, n->new_len);
}

bool
HsMemtableGet(HsMemtable *mt, HsSlice key, HsKeyOp *op)
{
	Node	   *n;

	if (!mt->indexed && mt->finished)
	{
		/* sealed without an index: its memory was counted, search the list */
		link_pending(mt);
		n = find_ge(mt, key);
		if (n == NULL || HsSliceCompare(node_key(n), key) != 0)
			return false;
		node_op(n, op);
		return true;
	}
	ensure_index(mt);
	n = index_find(mt, key, HsHash64(key.data, key.len, 0));

	if (n == NULL)
		return false;
	node_op(n, op);
	return true;
}

bool
HsMemtableFinish(HsMemtable *mt, HsStatus *st)
{
	mt->finished = true;
	link_pending(mt);
	if (mt->duplicate)
		return inconsistent(mt, node_key(mt->duplicate), "double insert", st);
	return true;
}

/* Returns the table the memtable belongs to. */
HsTableId
HsMemtableTableId(const HsMemtable *mt)
{
	return mt->table_id;
}

/* Returns the epoch the memtable holds. */
HsEpoch
HsMemtableEpoch(const HsMemtable *mt)
{
	return mt->epoch;
}

void
HsMemtableSetEpoch(HsMemtable *mt, HsEpoch epoch)
{
	mt->epoch = epoch;
}

/* Does the memtable keep old values for a change log? */
bool
HsMemtableLogsOldValues(const HsMemtable *mt)
{
	return mt->log_old_values;
}

size_t
HsMemtableKeyCount(const HsMemtable *mt)
{
	return mt->n_keys;
}

size_t
HsMemtableMemoryUsage(const HsMemtable *mt)
{
	return mt->memory;
}

/* ----------------------------------------------------------------
 *		iterator
 * ----------------------------------------------------------------
 */
typedef struct MemIter
{
	HsIterator	base;
	HsMemtable *mt;
	HsMemtableIterKind kind;
	Node	   *cur;			/* NULL when invalid */
	HsBuf		key;
	HsBuf		value;
} MemIter;

/* Does the iterator's kind show node n (new values, or old values)? */
static bool
shown(const MemIter *mi, const Node *n)
{
	if (mi->kind == HS_MEMTABLE_NEW_VALUES)
		return n->kind != HS_KEY_OP_NONE;
	return n->kind == HS_KEY_OP_DELETE || n->kind == HS_KEY_OP_UPDATE;
}

/* Move to the first shown node at or after n and materialize it. */
static void
mem_iter_settle(MemIter *mi, Node *n)
{
	while (n && !shown(mi, n))
		n = n->next[0];
	mi->cur = n;
	if (n == NULL)
		return;
	HsBufReset(&mi->key);
	HsBufReserve(&mi->key, n->key_len + HS_MIN_FULL_KEY_LEN);
	mi->key.len = HsFullKeyEncode(mi->key.data, mi->mt->table_id, n->key,
								  n->key_len, mi->mt->epoch);
	HsBufReset(&mi->value);
	if (mi->kind == HS_MEMTABLE_OLD_VALUES)
	{
		HsBufPutByte(&mi->value, HS_VALUE_PUT);
		HsBufAppend(&mi->value, n->old_v, n->old_len);
	}
	else if (n->kind == HS_KEY_OP_DELETE)
		HsBufPutByte(&mi->value, HS_VALUE_DELETE);
	else
	{
		HsBufPutByte(&mi->value, HS_VALUE_PUT);
		HsBufAppend(&mi->value, n->new_v, n->new_len);
	}
}

/* Is the iterator on a node? */
static bool
mem_iter_valid(HsIterator *it)
{
	return ((MemIter *) it)->cur != NULL;
}

/* Positions at the first node the iterator shows. */
static void
mem_iter_seek_to_first(HsIterator *it)
{
	MemIter    *mi = (MemIter *) it;

	link_pending(mi->mt);
	mem_iter_settle(mi, mi->mt->head->next[0]);
}

/* Positions at the first shown entry whose full key is >= target. */
static void
mem_iter_seek(HsIterator *it, HsSlice target)
{
	MemIter    *mi = (MemIter *) it;
	HsTableId	t;
	HsSlice		uk;
	Node	   *n;

	if (target.len < HS_MIN_FULL_KEY_LEN)
	{
		/* shorter than any full key: sorts before everything we hold */
		mem_iter_seek_to_first(it);
		return;
	}
	t = HsFullKeyTableId(target);
	if (t < mi->mt->table_id)
	{
		mem_iter_seek_to_first(it);
		return;
	}
	if (t > mi->mt->table_id)
	{
		mi->cur = NULL;
		return;
	}
	uk = HsFullKeyUserKey(target);
	link_pending(mi->mt);
	n = find_ge(mi->mt, uk);
	/* same user key but our epoch is newer: our entry sorts before target */
	if (n && HsSliceCompare(node_key(n), uk) == 0 &&
		mi->mt->epoch > HsFullKeyEpoch(target))
		n = n->next[0];
	mem_iter_settle(mi, n);
}

/* Moves to the next node the iterator shows. */
static void
mem_iter_next(HsIterator *it)
{
	MemIter    *mi = (MemIter *) it;

	if (mi->cur)
	{
		/* keys written since the last step are linked before it */
		link_pending(mi->mt);
		mem_iter_settle(mi, mi->cur->next[0]);
	}
}

/* Returns the current entry's full key (table | user key | ~epoch). */
static HsSlice
mem_iter_key(HsIterator *it)
{
	return HsBufSlice(&((MemIter *) it)->key);
}

/* Returns the current entry's value (kind byte + row). */
static HsSlice
mem_iter_value(HsIterator *it)
{
	return HsBufSlice(&((MemIter *) it)->value);
}

/* Frees the iterator (the memtable stays). */
static void
mem_iter_destroy(HsIterator *it)
{
	MemIter    *mi = (MemIter *) it;

	HsBufFree(&mi->key);
	HsBufFree(&mi->value);
	HsFree(it->env, mi);
}

static const HsIteratorOps mem_iter_ops = {
	.valid = mem_iter_valid,
	.seek_to_first = mem_iter_seek_to_first,
	.seek = mem_iter_seek,
	.next = mem_iter_next,
	.key = mem_iter_key,
	.value = mem_iter_value,
	.destroy = mem_iter_destroy,
};

HsIterator *
HsMemtableNewIterator(HsMemtable *mt, HsMemtableIterKind kind)
{
	MemIter    *mi = HsAllocZero(mt->env, sizeof(MemIter));

	mi->base.ops = &mem_iter_ops;
	mi->base.env = mt->env;
	HsStatusClear(&mi->base.status);
	mi->mt = mt;
	mi->kind = kind;
	HsBufInit(&mi->key, mt->env);
	HsBufInit(&mi->value, mt->env);
	return &mi->base;
}
