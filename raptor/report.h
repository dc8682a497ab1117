/* report.h - raptor --report: the TraceLens-style rocprofv3 report computed
 * from any RPD trace (the files of raptor/report/; internals in
 * raptor/report/internal.h). */
#ifndef RAPTOR_REPORT_H
#define RAPTOR_REPORT_H

/* Entry point used by raptor's main() when "--report" is among the
 * arguments: parses the whole command line itself (FILE, --report and the
 * report's options) and returns the process exit code (0, 1, 2). */
int raptor_report_main(int argc, char **argv);

/* rpd-budget: the limits of a performance budget checked on the report's
 * tables (budget.c).  raptor's main() runs it when invoked as rpd-budget;
 * returns the exit code (0 within budget, 1 over, 2 bad limits/usage). */
int raptor_budget_main(int argc, char **argv);

#endif
