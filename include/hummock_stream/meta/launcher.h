/*-------------------------------------------------------------------------
 *
 * launcher.h
 *	  The launcher and the per-database barrier manager processes.
 *
 * include/hummock_stream/meta/launcher.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_META_LAUNCHER_H
#define HS_META_LAUNCHER_H

extern int	hs_barrier_interval_ms;
extern int	hs_checkpoint_frequency;
extern int	hs_max_inflight_barriers;
extern int	hs_compute_workers;		/* compute workers a manager runs */

/* Register the static launcher worker (from _PG_init). */
extern void HsLauncherRegister(void);

/*
 * Housekeeping of a layer above meta that every barrier manager runs
 * about once a second, outside a transaction (it starts its own), as the
 * bootstrap superuser: stopping the capture of tables no view reads any
 * more (capture.h).  Set from _PG_init, before any manager is forked.
 */
typedef void (*HsManagerChoreFn) (void);
extern void HsBarrierManagerSetChore(HsManagerChoreFn chore);

/* Background worker entry points (looked up by name: keep extern). */
extern PGDLLEXPORT void HsLauncherMain(Datum main_arg);
extern PGDLLEXPORT void HsBarrierManagerMain(Datum main_arg);

#endif							/* HS_META_LAUNCHER_H */
