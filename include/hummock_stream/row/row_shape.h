/*-------------------------------------------------------------------------
 *
 * row_shape.h
 *	  Comparing the physical shape of two versions of a table's row type.
 *
 * src/row/row_shape.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_ROW_ROW_SHAPE_H
#define HS_ROW_ROW_SHAPE_H

#include "access/tupdesc.h"

/*
 * Do a and b describe the same columns (number, types with typmods and
 * collations, dropped or not)?  Names, defaults and constraints do not
 * count.
 */
extern bool HsRowShapeEqual(TupleDesc a, TupleDesc b);

/*
 * Can a tuple formed with old be deformed with new?  True unless a column
 * old has and new keeps changed its storage (type, length, alignment):
 * columns added after old's last are read as missing, and a dropped
 * column keeps its storage.
 */
extern bool HsRowImagesReadable(TupleDesc old, TupleDesc new);

/*
 * Does column i (0-based) of a tuple formed with old hold a value new
 * reads unchanged (present in both, not dropped, same storage)?
 */
extern bool HsRowColumnCarries(TupleDesc old, TupleDesc new, int i);

#endif							/* HS_ROW_ROW_SHAPE_H */
