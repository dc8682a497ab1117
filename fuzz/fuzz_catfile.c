/* fuzz_catfile - raptor's kernel category JSON (common/analysis/catfile.c): any
 * bytes parse or fail with one line; parsed categories match names. */
#include <stdint.h>
#include <string.h>

#include "catfile.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  category *cats = NULL;
  int n = 0, rc = category_parse(&cats, &n, "fuzz.json", (const char *)data, size);

  if (rc == RPD_OK) {
    static const char *const names[] = {"Cijk_Ailk_Bljk", "void at::native::reduce_kernel",
                                        "", "\xff\xfe", "ncclDevKernel"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
      int m, mrc = category_match(cats, n, names[i], &m);
      if (m < -1 || m >= n)
        fz_fail("category_match out of range", names[i]);
      if (mrc != RPD_OK && strchr(rpd_errmsg(), '\n'))
        fz_fail("match error of more than one line", rpd_errmsg());
    }
  } else if (strchr(rpd_errmsg(), '\n')) {
    fz_fail("error message of more than one line", rpd_errmsg());
  }
  category_list_free(cats, n);
  return 0;
}
