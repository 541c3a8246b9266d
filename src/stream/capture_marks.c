/*-------------------------------------------------------------------------
 *
 * capture_marks.c
 *	  The newest transaction that wrote each captured table's capture log,
 *	  so that a job's epoch skips the log query of an unwritten input.
 *
 * Every epoch a job reads each input's capture log for the transactions
 * visible in the epoch's snapshot and not in its position (the previous
 * one); an input nobody wrote costs a planned query anyway (index scan,
 * sort, portal: about half of an idle compute worker's time).  The capture
 * trigger records its transaction's xid in the table's mark before it
 * appends rows (so before it commits); a transaction that the epoch must
 * read is not visible in the position, and an xid below the position's
 * xmin that is not visible there never committed; so when the mark is
 * below the position's xmin the query would return nothing and is
 * skipped.
 *
 * Marks live in a fixed table in shared memory (open addressing on
 * (database, table), never removed: a dropped table's mark only makes a
 * later table with its OID query until its xmin passes).  A lookup reads
 * without a lock (a slot's key, once set, never changes); making a mark
 * takes a spinlock.  A table without a mark is always read: the mark is
 * made by its first writer, or by the first reader with the next xid to
 * be assigned (above every xid that wrote without a mark, since the
 * spinlock orders the two), which is why marks need no state across a
 * restart.  When the table is full, tables without a mark are read every
 * epoch, as before marks existed.
 *
 * src/stream/capture_marks.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/spin.h"

#include "hummock_stream/stream/capture_marks.h"

/* Slots of the table (tables captured at once over all databases). */
#define CAPTURE_MARK_SLOTS 8192

typedef struct CaptureMark
{
	pg_atomic_uint64 key;		/* database << 32 | table; 0: free */
	pg_atomic_uint64 max_xid;	/* the newest writer's full xid */
} CaptureMark;

typedef struct CaptureMarks
{
	slock_t		mutex;			/* making a mark */
	CaptureMark slots[CAPTURE_MARK_SLOTS];
} CaptureMarks;

static CaptureMarks *marks = NULL;

Size
HsCaptureMarksShmemSize(void)
{
	return sizeof(CaptureMarks);
}

void
HsCaptureMarksShmemInit(void *ptr, bool found)
{
	marks = (CaptureMarks *) ptr;
	if (found)
		return;
	SpinLockInit(&marks->mutex);
	for (int i = 0; i < CAPTURE_MARK_SLOTS; i++)
	{
		pg_atomic_init_u64(&marks->slots[i].key, 0);
		pg_atomic_init_u64(&marks->slots[i].max_xid, 0);
	}
}

static uint64
mark_key(Oid relid)
{
	return ((uint64) MyDatabaseId << 32) | (uint64) relid;
}

/* The slot of key, or NULL; with *free_slot the first free one met. */
static CaptureMark *
find(uint64 key, CaptureMark **free_slot)
{
	uint32		h = (uint32) ((key * UINT64CONST(0x9E3779B97F4A7C15)) >> 40);

	if (free_slot)
		*free_slot = NULL;
	for (int n = 0; n < CAPTURE_MARK_SLOTS; n++)
	{
		CaptureMark *m = &marks->slots[(h + n) % CAPTURE_MARK_SLOTS];
		uint64		k = pg_atomic_read_u64(&m->key);

		if (k == key)
			return m;
		if (k == 0)
		{
			if (free_slot)
				*free_slot = m;
			return NULL;
		}
	}
	return NULL;					/* full */
}

/* The mark of key, made with max_xid = initial if there is none (NULL: full). */
static CaptureMark *
find_or_make(uint64 key, uint64 initial)
{
	CaptureMark *m = find(key, NULL);
	CaptureMark *free_slot;

	if (m != NULL)
		return m;
	SpinLockAcquire(&marks->mutex);
	m = find(key, &free_slot);
	if (m == NULL && free_slot != NULL)
	{
		m = free_slot;
		pg_atomic_write_u64(&m->max_xid, initial);
		pg_write_barrier();		/* the value before the key that shows it */
		pg_atomic_write_u64(&m->key, key);
	}
	SpinLockRelease(&marks->mutex);
	return m;
}

void
HsCaptureMarkWrite(Oid relid, FullTransactionId fxid)
{
	uint64		x = U64FromFullTransactionId(fxid);
	CaptureMark *m;
	uint64		cur;

	if (marks == NULL)
		return;
	m = find_or_make(mark_key(relid), x);
	if (m == NULL)
		return;					/* full: the table is read every epoch */
	cur = pg_atomic_read_u64(&m->max_xid);
	while (cur < x && !pg_atomic_compare_exchange_u64(&m->max_xid, &cur, x))
		;
}

bool
HsCaptureUnwrittenSince(Oid relid, uint64 xmin)
{
	CaptureMark *m;

	if (marks == NULL)
		return false;
	m = find(mark_key(relid), NULL);
	if (m == NULL)
		m = find_or_make(mark_key(relid), U64FromFullTransactionId(ReadNextFullTransactionId()));
	if (m == NULL)
		return false;
	pg_memory_barrier();
	return pg_atomic_read_u64(&m->max_xid) < xmin;
}
