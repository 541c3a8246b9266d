/*-------------------------------------------------------------------------
 *
 * function_replace.h
 *	  CREATE OR REPLACE FUNCTION and ALTER FUNCTION of a function that
 *	  streaming views call.
 *
 * src/stream/function_replace.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_FUNCTION_REPLACE_H
#define HS_STREAM_FUNCTION_REPLACE_H

#include "nodes/parsenodes.h"

/*
 * Before CREATE OR REPLACE FUNCTION or ALTER FUNCTION runs: the function's
 * definition as it is, if a streaming view calls it (NULL: nothing to
 * check after the statement).
 */
extern void *HsFunctionChangeBegin(Node *parsetree);

/*
 * After it ran: refuses (the statement's transaction aborts) if it changed
 * what the function computes.
 */
extern void HsFunctionChangeDone(void *state);

#endif							/* HS_STREAM_FUNCTION_REPLACE_H */
