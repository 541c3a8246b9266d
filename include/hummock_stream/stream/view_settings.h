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

/*
 * The text of the storage parameter settings (a text array of
 * 'name=value') as a list, each a setting a view records with a value SET
 * would take (else 22023), and a list as that text.
 */
extern List *HsViewSettingsFromText(const char *literal);
extern char *HsViewSettingsToText(List *settings);

/* base (HsViewSettingsCapture's list) with the values over names. */
extern List *HsViewSettingsOverride(List *base, List *over);

#endif							/* HS_STREAM_VIEW_SETTINGS_H */
