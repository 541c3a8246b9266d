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
 * They are also the view's storage parameter settings (view_options.c),
 * a text array of the same strings ('{TimeZone=UTC,"DateStyle=ISO, MDY",
 * ...}'), so that a dump restores the view with its creator's values, not
 * with the restoring session's; CREATE MATERIALIZED VIEW ... WITH
 * (settings = '{...}') names the values of some of them for a new view.
 *
 * src/stream/view_settings.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

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

/* Is name one of the settings recorded with a view?  Its spelling, or NULL. */
static const char *
recorded_name(const char *name)
{
	for (size_t i = 0; i < lengthof(view_setting_names); i++)
		if (pg_strcasecmp(view_setting_names[i], name) == 0)
			return view_setting_names[i];
	return NULL;
}

List *
HsViewSettingsFromText(const char *literal)
{
	Datum		array = OidInputFunctionCall(F_ARRAY_IN, (char *) literal, TEXTOID, -1);
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	List	   *out = NIL;

	deconstruct_array(DatumGetArrayTypeP(array), TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		char	   *item;
		char	   *eq;
		const char *name;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"settings\": a setting is null")));
		item = TextDatumGetCString(elems[i]);
		eq = strchr(item, '=');
		if (eq == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"settings\": \"%s\" is not name=value", item)));
		*eq = '\0';
		name = recorded_name(item);
		if (name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid value for option \"settings\": \"%s\" is not a setting a streaming view records",
							item),
					 errhint("The settings a view records are those its expressions may depend on: TimeZone, DateStyle, IntervalStyle, extra_float_digits, bytea_output, lc_monetary, lc_numeric, lc_time, xmlbinary, xmloption and default_text_search_config.")));
		/* (its value as SET would check it) */
		(void) set_config_option(name, eq + 1, PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SET, false, ERROR, false);
		out = lappend(out, psprintf("%s=%s", name, eq + 1));
	}
	return out;
}

char *
HsViewSettingsToText(List *settings)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(list_length(settings), 1));
	int			n = 0;
	ListCell   *lc;

	foreach(lc, settings)
		elems[n++] = CStringGetTextDatum((char *) lfirst(lc));
	return OidOutputFunctionCall(F_ARRAY_OUT,
								 PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false,
																 TYPALIGN_INT)));
}

List *
HsViewSettingsOverride(List *base, List *over)
{
	List	   *out = NIL;
	ListCell   *lb;
	ListCell   *lo;

	foreach(lb, base)
	{
		char	   *item = lfirst(lb);
		size_t		len = strcspn(item, "=");

		foreach(lo, over)
		{
			char	   *o = lfirst(lo);

			if (strcspn(o, "=") == len && strncmp(o, item, len) == 0)
			{
				item = o;
				break;
			}
		}
		out = lappend(out, item);
	}
	return out;
}
