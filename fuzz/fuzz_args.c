/* fuzz_args - the tracer's args text "k = v | k = v" (common/trace/args.c):
 * every pair found must be retrievable, keys and values trimmed. */
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "rpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *s = fz_str(data, size);
  rpd_args a;

  rpd_args_parse(s, &a);
  for (size_t i = 0; i < a.n; i++) {
    const char *k = a.kv[i].key, *v = a.kv[i].value;
    size_t kl = strlen(k), vl = strlen(v);
    /* the first pair with a key is the one rpd_args_get finds */
    const char *got = rpd_args_get(&a, k);
    if (!got)
      fz_fail("a key that rpd_args_get does not find", k);
    /* split on every '|': none inside; both inside the text */
    if (strchr(k, '|') || strchr(v, '|'))
      fz_fail("a '|' inside a key or value", k);
    if (kl > strlen(s) || vl > strlen(s))
      fz_fail("a key or value longer than the text", k);
  }
  if (rpd_args_get(&a, "\x01no such key\x02") && !strstr(s, "\x01no such key\x02"))
    fz_fail("a key found that the text does not hold", NULL);
  rpd_args_free(&a);
  rpd_args_free(&a);
  free(s);
  return 0;
}
