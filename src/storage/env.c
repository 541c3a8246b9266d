/*-------------------------------------------------------------------------
 *
 * env.c
 *	  Helpers shared by every HsEnv implementation.
 *
 * src/storage/env.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "hummock_stream/storage/env.h"

/* Allocate size bytes set to zero; never returns NULL (see env.h). */
void *
HsAllocZero(HsEnv *env, size_t size)
{
	void	   *p = HsAlloc(env, size);

	memset(p, 0, size);
	return p;
}
