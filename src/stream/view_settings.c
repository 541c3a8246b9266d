/*-------------------------------------------------------------------------
 *
 * view_settings.c
 *	  The settings a view's expressions may depend on: taken from the
 *	  creating session, kept with the view, and in force wherever the view
 *	  is evaluated.
 *
 * A view may call STABLE built-in functions and casts whose results
 * depend on settings (timestamptz::text and date_trunc on timestamptz on
 * TimeZone, to_char on the lc_* settings, float output on
 * extra_float_digits, interval output on IntervalStyle, to_tsvector(text)
 * on default_text_search_config).  Workers evaluate
 * the view in other sessions, so the creator's values of those settings
 * are recorded with the view (stream_jobs.settings, 'name=value' text)
 * and set, local to the evaluation, in the creator worker's backfill, in
 * every epoch of a compute worker and in rebuild(): the view equals its
 * query run with the creator's settings, whatever the worker's are.  The
 * search_path is pinned instead (user_context.h): names were resolved
 * when the definition was analyzed.
 *
 * src/stream/view_settings.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "hummock_stream/stream/view_settings.h"

/* The settings recorded with a view (never remove one: views keep them). */
static const char *const view_setting_names[] = {
	"TimeZone",
	"DateStyle",
	"IntervalStyle",
	"extra_float_digits",
	"bytea_output",
	"lc_monetary",
	"lc_numeric",
	"lc_time",
	"xmlbinary",
	"xmloption",
	"default_text_search_config",	/* to_tsvector(text), ... */
};

List *
HsViewSettingsCapture(void)
{
	List	   *out = NIL;

	for (size_t i = 0; i < lengthof(view_setting_names); i++)
	{
		const char *value = GetConfigOption(view_setting_names[i], true, false);

		if (value != NULL)
			out = lappend(out, psprintf("%s=%s", view_setting_names[i], value));
	}
	return out;
}

void
HsViewSettingsApply(List *settings)
{
	ListCell   *lc;

	foreach(lc, settings)
	{
		char	   *item = pstrdup((char *) lfirst(lc));
		char	   *eq = strchr(item, '=');
		const char *current;

		if (eq == NULL)
			elog(ERROR, "malformed recorded setting of a streaming view: \"%s\"", item);
		*eq = '\0';
		/* in force already (the usual case: the server's defaults) */
		current = GetConfigOption(item, true, false);
		if (current == NULL || strcmp(current, eq + 1) != 0)
			(void) set_config_option(item, eq + 1, PGC_USERSET, PGC_S_SESSION,
									 GUC_ACTION_SAVE, true, 0, false);
		pfree(item);
	}
}
