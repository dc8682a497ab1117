/* report_analysis.h - the rpd-analyze sheets of raptor --report
 * (raptor/report_analysis.c): when the trace has ext_analysis_* tables
 * (written by rpd-analyze), the report's workbook and CSV directory gain
 * one sheet / file per table. */
#ifndef RAPTOR_REPORT_ANALYSIS_H
#define RAPTOR_REPORT_ANALYSIS_H

#include <xlsxwriter.h>

#include "rpd.h"

/* Remember the open trace the following calls read (not owned; NULL
 * forgets it).  Called once by raptor_report_main after opening. */
void report_analysis_attach(rpd *r);

/* Add a sheet per present ext_analysis_* table to wb (bold: header
 * format).  RPD_OK when there is no trace attached or no analysis. */
int report_analysis_xlsx(lxw_workbook *wb, lxw_format *bold);

/* Write DIR/analysis_<name>.csv per present ext_analysis_* table, each
 * atomically (never over `input`).  RPD_OK when there is no analysis. */
int report_analysis_csv(const char *dir, const char *input);

#endif
