/*-------------------------------------------------------------------------
 *
 * catalog.h
 *	  The catalog of streaming jobs: every statement on the extension's
 *	  tables stream_jobs, stream_sources and capture_logs.
 *
 * Nothing else in the extension names these tables.  Every function here
 * runs its statements as the extension's owner, as a security-restricted
 * operation with search_path pinned (HsBecomeExtensionOwner), in the
 * caller's transaction, and returns what it read in the caller's memory
 * context.  (The version tables are the hummock manager's:
 * hummock_manager.h.)
 *
 * include/hummock_stream/meta/catalog.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_CATALOG_H
#define HS_META_CATALOG_H

#include "nodes/pg_list.h"

#include "hummock_stream/storage/key.h"

/* One row of stream_jobs (and its sources), as far as a caller fills it. */
typedef struct HsJobRow
{
	Oid			job_id;			/* the view's relation = its table id */
	char	   *definition;		/* the SQL text */
	char	   *query_tree;		/* nodeToString() of the analyzed Query */
	Oid		   *state_tables;
	int			n_state_tables;
	char	   *position;		/* pg_snapshot text the view's state ends at */
	HsEpoch		view_position;	/* upstream views read up to this epoch */
	HsEpoch		first_epoch;
	char	   *state;			/* 'creating', 'created' or 'failed' */
	int16	   *key_columns;	/* view columns starting every key, or NULL */
	int			n_key_columns;
	List	   *operators;		/* char *: stateful executors, leaves first */
	List	   *state_roles;	/* char *: what each state table holds */
	List	   *sources;		/* Oid: the tables the view reads */
	bool		change_log;		/* its owner asked for a change log */
	List	   *settings;		/* char *: 'name=value' settings its
								 * expressions are evaluated with */
	bool		keeps_log;		/* read only: change_log, or a view reads it
								 * (its change log must be kept) */
} HsJobRow;

/* Does this database have the catalog (not during DROP EXTENSION)? */
extern bool HsCatalogExists(void);

/* Record a new job and its sources. */
extern void HsCatalogInsertJob(const HsJobRow *job);

/*
 * The job's row (all but operators and sources); false if job_id is no
 * job.
 */
extern bool HsCatalogReadJob(Oid job_id, HsJobRow *job);

/* Every job (job_id, state_tables, first_epoch, state, keeps_log), by job_id. */
extern List *HsCatalogJobs(void);

/* Set job_id's change_log wish. */
extern void HsCatalogSetChangeLog(Oid job_id, bool change_log);

/* Was job_id's row inserted by the current transaction (not yet visible)? */
extern bool HsCatalogJobIsNew(Oid job_id);

/* The tables job_id reads (Oid), NIL if it is no job. */
extern List *HsCatalogJobSources(Oid job_id);

/*
 * Forget job_id and its sources; returns its state tables (NIL if it was
 * no job, or has none), whether it was a job, and, if sources is not NULL,
 * the tables it read.
 */
extern List *HsCatalogDeleteJob(Oid job_id, List **sources, bool *existed);

/*
 * The committed positions of job_id: the capture snapshot its tables' input
 * ends with and the epoch its upstream views' input ends with (same
 * transaction as its data).
 */
extern void HsCatalogSetPosition(Oid job_id, const char *snapshot, HsEpoch view_position);

/*
 * The same for n jobs at once, in one statement.  With saved, the rows
 * another transaction holds are skipped (SKIP LOCKED: it never waits), and
 * saved[i] says which were written; those stay locked until this
 * transaction ends.
 */
extern void HsCatalogSetPositions(int n, const Oid *job_ids, const char *const *snapshots,
								  const HsEpoch *view_positions, bool *saved);

/*
 * For each streaming view that other views read, the oldest epoch a
 * reader still reads its change log from (its view_position): HsLogFloor
 * pairs (compaction.h), palloc'd; returns how many.
 */
struct HsLogFloor;
extern int	HsCatalogLogFloors(struct HsLogFloor **floors);

/*
 * The internal state tables of every streaming view (operators' state,
 * not the views' own tables), ascending, palloc'd; returns how many.
 */
extern int	HsCatalogStateTables(Oid **tables);

/* A job created in the background is created, with its first epoch. */
extern void HsCatalogFinishCreation(Oid job_id, HsEpoch first_epoch);

/* Set job_id's state ('created', 'rebuilding', ...). */
extern void HsCatalogSetState(Oid job_id, const char *state);

/*
 * A rebuild holds a session lock on its view from before it commits the
 * state 'rebuilding' until it ends, however it ends (an error releases
 * it; a crash, with the process).  A view left 'rebuilding' whose lock is
 * free was abandoned: the barrier manager sets it 'created' again (its
 * state and positions are those from before the rebuild).
 */
extern void HsCatalogRebuildBegin(Oid job_id);
extern void HsCatalogRebuildEnd(Oid job_id);
extern bool HsCatalogRebuildAbandoned(Oid job_id);

/* Set a job's definition (its query as text, shown by hummock_stream.jobs). */
extern void HsCatalogSetDefinition(Oid job_id, const char *definition);

/* Record the stateful operators and state table roles of job_id's plan. */
extern void HsCatalogSetPlanOutline(Oid job_id, List *operators, List *state_roles);

/* The jobs that read relid (a table or a view's relation), by OID. */
extern List *HsCatalogReaders(Oid relid);

/* Is relid read by some job (as the latest snapshot sees the catalog)? */
extern bool HsCatalogIsSource(Oid relid);

/* The tables with a capture log that no job reads (a List of OIDs). */
extern List *HsCatalogUnreadCaptureLogs(void);

/* The capture log of relid (InvalidOid if it is not captured). */
extern Oid	HsCatalogCaptureLogOf(Oid relid);

/*
 * The same for the capture trigger, which runs as the writer on every
 * captured statement: an index lookup with a fresh snapshot, no SQL and
 * no privilege check (a view created over relid has committed before the
 * writer got its lock, and the writer's snapshot may be older).
 */
extern Oid	HsCatalogCaptureLogRead(Oid relid);
extern void HsCatalogAddCaptureLog(Oid relid, Oid log_relid);
extern void HsCatalogRemoveCaptureLog(Oid relid);

/* Trim every capture log behind the oldest position of its jobs. */
extern void HsCatalogTrimCaptureLogs(void);

/* Is relid a relation USING hummock?  Is amoid the hummock access method? */
extern bool HsRelidIsHummock(Oid relid);
extern bool HsAmIsHummock(Oid amoid);

#endif							/* HS_META_CATALOG_H */
