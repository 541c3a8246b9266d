/*-------------------------------------------------------------------------
 *
 * view_settings.h
 *	  The settings a view's expressions may depend on (TimeZone, DateStyle,
 *	  IntervalStyle, extra_float_digits, lc_*, ...), recorded at creation
 *	  and in force wherever the view is evaluated (view_settings.c).
 *
 * include/hummock_stream/stream/view_settings.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef HS_STREAM_VIEW_SETTINGS_H
#define HS_STREAM_VIEW_SETTINGS_H

#include "nodes/pg_list.h"

/* This session's values, as 'name=value' strings (palloc'd). */
extern List *HsViewSettingsCapture(void);

/*
 * Set recorded 'name=value' settings until the current GUC nest level
 * ends: call it after HsSwitchToUser, whose HsRestoreUser undoes them.
 */
extern void HsViewSettingsApply(List *settings);

#endif							/* HS_STREAM_VIEW_SETTINGS_H */
