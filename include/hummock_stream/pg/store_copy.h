/*-------------------------------------------------------------------------
 *
 * store_copy.h
 *	  A database's hummock store copied into another database.
 *
 * include/hummock_stream/pg/store_copy.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_PG_STORE_COPY_H
#define HS_PG_STORE_COPY_H

/*
 * Copy pg_hummock/<from_db> into pg_hummock/<to_db> (logged, each file
 * whole or absent after a crash); false if from_db has no store.  No
 * process of from_db may write its store meanwhile.
 */
extern bool HsStoreCopyDatabase(Oid from_db, Oid to_db);

#endif							/* HS_PG_STORE_COPY_H */
