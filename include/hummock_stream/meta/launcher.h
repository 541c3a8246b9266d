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

/* Background worker entry points (looked up by name: keep extern). */
extern PGDLLEXPORT void HsLauncherMain(Datum main_arg);
extern PGDLLEXPORT void HsBarrierManagerMain(Datum main_arg);

#endif							/* HS_META_LAUNCHER_H */
