/*-------------------------------------------------------------------------
 *
 * vacuum_full.h
 *	  VACUUM FULL passes over relations of the hummock access method.
 *
 * include/hummock_stream/entry/vacuum_full.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_ENTRY_VACUUM_FULL_H
#define HS_ENTRY_VACUUM_FULL_H

#include "nodes/parsenodes.h"

/*
 * The statement to run for stmt: stmt itself unless it is a VACUUM FULL
 * that would reach a hummock relation; a copy without them (warning for
 * each one listed); NULL when nothing is left to vacuum.
 */
extern VacuumStmt *HsVacuumFullWithoutHummock(VacuumStmt *stmt);

#endif							/* HS_ENTRY_VACUUM_FULL_H */
