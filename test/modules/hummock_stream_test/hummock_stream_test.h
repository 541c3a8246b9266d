/*-------------------------------------------------------------------------
 *
 * hummock_stream_test.h
 *	  The test module of hummock_stream: what its files share.
 *
 * test/modules/hummock_stream_test/hummock_stream_test.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HUMMOCK_STREAM_TEST_H
#define HUMMOCK_STREAM_TEST_H

#define HST_EXTENSION_NAME "hummock_stream_test"
#define HST_SCHEMA "hummock_stream_test"

/*
 * The test actor kinds (actor.h): their numbers are this module's own,
 * known to the compute workers (test_actors.c registers them) and to the
 * graph source (test_graphs.c maps test_actors.kind to them).
 */
#define HST_ACTOR_COUNTER 1		/* writes a counter per epoch to its table */
#define HST_ACTOR_SLEEP 2		/* takes param ms to pass each barrier */
#define HST_ACTOR_ERROR 3		/* fails at its param-th barrier */

/* test_actors.c */
extern void HstRegisterActorKinds(void);

/* test_graphs.c */
extern void HstRegisterGraphSource(void);
extern void HstInstallUtilityHook(void);

/* faults.c */
extern void HstInstallFaults(void);

#endif							/* HUMMOCK_STREAM_TEST_H */
