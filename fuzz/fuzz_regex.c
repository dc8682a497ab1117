/* fuzz_regex - Python-syntax regular expressions over PCRE2 (common/util/regex.c):
 * input "PATTERN\0SUBJECT"; any pattern compiles or fails with one line
 * naming an offset inside it; a compiled pattern searches any subject
 * (invalid UTF-8 included) and gives the same answer twice (a search
 * PCRE2 cannot finish is an error code, never "no match"). */
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "rpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *pat = fz_str(data, size), *subject;
  size_t plen = strlen(pat);
  rpd_regex *re = NULL;

  /* the subject: what follows the pattern's NUL (or the pattern itself) */
  subject = plen < size ? fz_str(data + plen + 1, size - plen - 1) : fz_str(data, size);
  if (rpd_regex_compile(pat, &re) == RPD_OK) {
    int a = rpd_regex_search(re, subject), b = rpd_regex_search(re, subject);
    /* 1, 0, or an unfinished search (match limit): a negative code with
     * one line; the same answer twice */
    if (a != b || (a != 0 && a != 1 && a != -RPD_ERANGE && a != -RPD_ENOMEM))
      fz_fail("search answers differ", pat);
    if (a < 0 && strchr(rpd_errmsg(), '\n'))
      fz_fail("match error of more than one line", rpd_errmsg());
    rpd_regex_search(re, pat);
    rpd_regex_free(re);
  } else {
    const char *m = rpd_errmsg(), *at = strstr(m, " at offset ");
    if (re)
      fz_fail("a failed compile returned a regex", pat);
    if (strchr(m, '\n'))
      fz_fail("error message of more than one line", m);
    if (!at || (size_t)strtoul(at + 11, NULL, 10) > plen)
      fz_fail("error offset missing or beyond the pattern", m);
  }
  free(subject);
  free(pat);
  return 0;
}
