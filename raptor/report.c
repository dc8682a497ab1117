/* report.c - raptor --report (placeholder until implemented). */
#include "rpd.h"
#include "report.h"

int raptor_report_main(int argc, char **argv)
{
  (void)argc; (void)argv;
  return rpd_fail("--report is not implemented yet");
}
