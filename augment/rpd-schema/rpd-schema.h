/* rpd-schema.h - what the parts of rpd-schema share: the parsed command
 * line and the few helpers of more than one action. */
#ifndef RPD_SCHEMA_TOOL_H
#define RPD_SCHEMA_TOOL_H

#include "rpd.h"

typedef struct opts {
  const char *action;   /* "create", "print", "info", "views", "upgrade" */
  const char *file, *out;
  int schema, force;
  rpd_fmt fmt;
} opts;

/* Report a failure of an operation on `path` as one line; returns 1. */
int schema_report(const char *what, const char *path);
/* State of a view: "ok", "missing", or "broken: REASON" (a new string the
 * caller frees). */
char *schema_view_state(rpd *r, const char *name);
/* Reinstall the utility views that are missing or broken (all with
 * force); *changed counts the views (re)installed. */
int schema_repair_views(rpd *r, int force, int *changed);
/* One line on stdout naming the views that could not be installed. */
void schema_say_skipped(rpd *r, const char *file);

/* info.c: --info FILE; the exit status. */
int schema_do_info(const opts *o);
/* upgrade.c: --upgrade FILE [-o OUT]; the exit status. */
int schema_do_upgrade(const opts *o);

#endif
