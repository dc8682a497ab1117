/* rpd_control.h - record windows of a C/C++ program with the ROCm tracer.
 *
 * The C counterpart of the Python class rpdTracerControl: link with
 * -lrpdctl (lib/librpdctl.so) and bracket the code to record:
 *
 *     #include <rpd_control.h>
 *     rpdctl_set_filename("trace.rpd", 0);   // optional; before the first start
 *     if (rpdctl_start() != 0) fprintf(stderr, "%s\n", rpdctl_errmsg());
 *     ... recorded section ...
 *     rpdctl_range_push("app", "step", "i=3"); // a named range (a rocpd_api row)
 *     rpdctl_range_pop();
 *     rpdctl_stop();                          // stops and flushes
 *
 * The first rpdctl_start() prepares the trace file (see rpdctl_set_filename),
 * sets RPDT_FILENAME and RPDT_AUTOSTART=0 in the environment and loads the
 * tracer (RPDT_TRACER_LIB, default "librpd_tracer.so" on the library path).
 * Start and stop are reference-counted and safe to nest and to call from
 * several threads: recording runs from the outermost start to the matching
 * stop, which also flushes the data to the file.  The tracer stays loaded
 * until the process exits.
 *
 * Every function returns 0 on success and -1 on failure; rpdctl_errmsg()
 * then says why.  Nothing is printed.
 */
#ifndef RPD_CONTROL_H
#define RPD_CONTROL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Choose the trace file (default "trace.rpd", or $RPDT_FILENAME when set).
 * append = 0: on the first start a new trace is created (schema v3); an
 * existing RPD trace of that name is replaced, any other existing file is
 * refused.  append = 1: an existing RPD trace is appended to (a missing
 * file is created).  Fails once the tracer is loaded, or when
 * RPDT_FILENAME names a different file (the environment wins, as for
 * child processes of a recorded parent). */
int rpdctl_set_filename(const char *name, int append);

/* Begin (or nest) a recorded section. */
int rpdctl_start(void);

/* End a recorded section; the outermost stop stops the tracer and flushes
 * it.  Fails if no section is open. */
int rpdctl_stop(void);

/* Flush what was recorded so far to the file (also while recording). */
int rpdctl_flush(void);

/* Open a named range on the calling thread (the reference's
 * rpd_rangePush): the tracer writes it, at the matching rpdctl_range_pop()
 * of the same thread, as one rocpd_api row with apiName = api_name, args =
 * args, start = the push time and end = the pop time (the rpd tracer does
 * not store domain).  Ranges nest per thread.  As in the tracer, a push or
 * pop while not recording is ignored; before the first rpdctl_start() (the
 * tracer not loaded yet) both are no-ops returning 0.  NULL strings count
 * as "".  Fails only when the loaded tracer has no range API. */
int rpdctl_range_push(const char *domain, const char *api_name, const char *args);

/* Close the calling thread's innermost range (see rpdctl_range_push). */
int rpdctl_range_pop(void);

/* Current nesting depth: 0 when not recording. */
int rpdctl_depth(void);

/* Why the last failing call failed (static storage; never NULL). */
const char *rpdctl_errmsg(void);

#ifdef __cplusplus
}
#endif

#endif
