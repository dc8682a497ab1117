/* fuzz-sources: */
/* fuzz_args - the tracer's args text "k = v | k = v" (common/args.c):
 * every pair found must be retrievable, keys and values trimmed. */
#include <ctype.h>
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
      abort();
    /* trimmed: no surrounding spaces; no '|' inside */
    if ((kl && (isspace((unsigned char)k[0]) || isspace((unsigned char)k[kl - 1]))) ||
        strchr(k, '|') || strchr(v, '|'))
      abort();
    if (kl > strlen(s) || vl > strlen(s))
      abort();
  }
  if (rpd_args_get(&a, "\x01no such key\x02") && !strstr(s, "\x01no such key\x02"))
    abort();
  rpd_args_free(&a);
  rpd_args_free(&a);
  free(s);
  return 0;
}
