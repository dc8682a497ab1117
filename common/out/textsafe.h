/* textsafe.h - make any trace string safe for one output kind.
 *
 * Trace strings are whatever the traced program logged: invalid UTF-8,
 * control characters, names of any length.  Every writer of text that a
 * real reader opens (a terminal table, CSV, JSON, HTML, an xlsx workbook)
 * passes its strings through rpd_text_safe() with its kind first.
 *
 * Common to every kind: each invalid UTF-8 sequence (maximal subpart, as
 * Unicode recommends) becomes U+FFFD; valid text passes unchanged except:
 *
 *   RPD_TEXT_PLAIN  terminal tables: C0 and C1 control characters and DEL
 *                   -> ' '; Unicode bidi controls (U+200E, U+200F,
 *                   U+202A..U+202E, U+2066..U+2069) -> U+FFFD, so that a
 *                   name cannot reorder the columns after it
 *   RPD_TEXT_CSV    nothing else (quoting is the CSV writer's job) but NUL
 *                   -> U+FFFD
 *   RPD_TEXT_JSON   the body of a JSON string (RFC 8259): '"' and '\' are
 *                   escaped, control characters as \n, \t, ... or \u00XX
 *   RPD_TEXT_HTML   & < > " ' as entities; C0 controls other than TAB, LF,
 *                   CR -> U+FFFD
 *   RPD_TEXT_XLSX   the characters XML 1.0 forbids (C0 controls other than
 *                   TAB, LF, CR; U+FFFE, U+FFFF) -> U+FFFD; then cut to at
 *                   most 32767 UTF-16 units, Excel's cell limit, at a
 *                   character boundary (XML escaping is libxlsxwriter's)
 *
 * A NUL byte inside a counted string (rpd_text_safe_n) is a control
 * character like the others; no kind passes it on.
 */
#ifndef RPD_TEXTSAFE_H
#define RPD_TEXTSAFE_H

#include <stddef.h>

#include "rpd.h"

typedef enum {
  RPD_TEXT_PLAIN,
  RPD_TEXT_CSV,
  RPD_TEXT_JSON,
  RPD_TEXT_HTML,
  RPD_TEXT_XLSX,
} rpd_text_kind;

/* Excel's limit on the length of one cell, in UTF-16 units. */
#define RPD_XLSX_CELL_MAX 32767

/* Append s (NUL-terminated; NULL is "") to b, made safe for kind.  b owns
 * its memory (rpd_buf_free). */
void rpd_text_safe(rpd_buf *b, const char *s, rpd_text_kind kind);

/* The same for the len bytes at s (which may hold NULs). */
void rpd_text_safe_n(rpd_buf *b, const char *s, size_t len, rpd_text_kind kind);

/* s itself when it is already safe for kind (the common case: no copy),
 * otherwise the safe text, built in b (reset first) and valid until b
 * changes.  NULL s gives NULL.  The caller owns b; never free the result. */
const char *rpd_text_safe_str(rpd_buf *b, const char *s, rpd_text_kind kind);

/* 1 if the n bytes at s start with a Unicode bidirectional control
 * (U+200E, U+200F, U+202A..U+202E, U+2066..U+2069; 3 bytes each in
 * UTF-8), else 0.  Writers that place names next to other text (a flame
 * graph's boxes) replace them so a name cannot reorder what follows. */
int rpd_utf8_is_bidi_control(const char *s, size_t n);

/* 1 if the len bytes at s are valid UTF-8 (no NUL check), else 0. */
int rpd_utf8_valid(const char *s, size_t len);

#endif
