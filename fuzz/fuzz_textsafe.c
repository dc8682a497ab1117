/* fuzz_textsafe - common/out/textsafe.c: for every output kind the result is
 * valid UTF-8 without the characters that kind forbids; xlsx cells within
 * 32767 UTF-16 units; safe text passes unchanged. */
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "textsafe.h"

/* UTF-16 length of valid UTF-8 s[0..n). */
static size_t units16(const char *s, size_t n)
{
  size_t u = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c & 0xC0) != 0x80)
      u += c >= 0xF0 ? 2 : 1;
  }
  return u;
}

/* 1 if s starts one of the entities the HTML kind writes. */
static int html_entity(const char *s)
{
  static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
  for (size_t i = 0; i < sizeof ents / sizeof *ents; i++)
    if (!strncmp(s, ents[i], strlen(ents[i])))
      return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  for (int k = RPD_TEXT_PLAIN; k <= RPD_TEXT_XLSX; k++) {
    rpd_buf b = {0}, again = {0};
    rpd_text_safe_n(&b, (const char *)data, size, (rpd_text_kind)k);
    if (!rpd_utf8_valid(b.s, b.len) || strlen(b.s) != b.len)
      fz_fail("invalid UTF-8 or a NUL in the result", NULL);
    for (size_t i = 0; i < b.len; i++) {
      unsigned char c = (unsigned char)b.s[i];
      int ctl = c < 0x20, nl = c == '\t' || c == '\n' || c == '\r';
      if ((k == RPD_TEXT_PLAIN && (ctl || c == 0x7F)) || (k == RPD_TEXT_JSON && ctl) ||
          ((k == RPD_TEXT_HTML || k == RPD_TEXT_XLSX) && ctl && !nl) ||
          (k == RPD_TEXT_HTML && c && strchr("<>\"'", c)))
        fz_fail("a character the kind forbids", NULL);
      if (k == RPD_TEXT_HTML && c == '&' && !html_entity(b.s + i))
        fz_fail("a bare '&' in HTML", NULL);
    }
    if (k == RPD_TEXT_XLSX && units16(b.s, b.len) > RPD_XLSX_CELL_MAX)
      fz_fail("an xlsx cell longer than 32767 UTF-16 units", NULL);
    /* idempotent for the kinds that do not escape */
    if (k == RPD_TEXT_PLAIN || k == RPD_TEXT_CSV || k == RPD_TEXT_XLSX) {
      rpd_text_safe_n(&again, b.s, b.len, (rpd_text_kind)k);
      if (again.len != b.len || memcmp(again.s, b.s, b.len))
        fz_fail("safe text changed by a second pass", NULL);
      if (rpd_text_safe_str(&again, b.s, (rpd_text_kind)k) != b.s)
        fz_fail("safe text copied by rpd_text_safe_str", NULL);
    }
    rpd_buf_free(&b);
    rpd_buf_free(&again);
  }
  return 0;
}
