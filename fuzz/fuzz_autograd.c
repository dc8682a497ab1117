/* links: rpd-autograd */
/* fuzz_autograd - the PyTorch autograd marker parser (augment/rpd-autograd/autograd_parse.c):
 * a match's spans lie inside the text; candidate() agrees between its
 * NUL-terminated and counted forms. */
#include <stdint.h>
#include <string.h>

#include "autograd_parse.h"
#include "fuzz_input.h"
#include "rpd.h"

static void inside(const rpd_span *sp, const char *s, size_t len)
{
  if (sp->n && (sp->p < s || sp->p + sp->n > s + len))
    fz_fail("a field outside the text", NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static rpd_autograd_parser *p;
  char *s = fz_str(data, size);
  size_t len = strlen(s);
  rpd_autograd_fields fl;
  int form;

  if (!p && rpd_autograd_parser_new(&p) != RPD_OK)
    fz_fail("rpd_autograd_parser_new failed", NULL);
  /* the counted form over the raw bytes (NULs included) */
  form = rpd_autograd_parse(p, (const char *)data, size, &fl);
  if (form < 0 || form > 4)
    fz_fail("a form number out of range", NULL);
  if (form) {
    inside(&fl.name, (const char *)data, size);
    inside(&fl.seq, (const char *)data, size);
    inside(&fl.op_id, (const char *)data, size);
    inside(&fl.sizes, (const char *)data, size);
    inside(&fl.input_op_ids, (const char *)data, size);
  }
  form = rpd_autograd_parse(p, s, len, &fl);
  if (form)
    inside(&fl.name, s, len);
  if (rpd_autograd_candidate(s) != rpd_autograd_candidate_n(s, len))
    fz_fail("candidate and candidate_n disagree", s);
  rpd_autograd_candidate_n((const char *)data, size);
  free(s);
  return 0;
}
