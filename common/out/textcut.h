/* textcut.h - fit names to a terminal: cut in the middle, measure the
 * terminal.
 *
 * Kernel names of hundreds of characters differ in their template
 * arguments and tile sizes (MT256x224x128 ... WG64_4_1) while their heads
 * (Cijk_Alik_Bljk_...) are the same, so a name cut at its end reads like
 * every other one.  rpd_text_cut keeps the head and the tail around an
 * ellipsis, and drops a template function's parameter list first (the
 * template arguments tell instantiations apart, the parameters rarely do).
 * Only terminal tables and chart labels are cut: CSV, JSON, xlsx and the
 * tables written into a trace keep the full text.
 */
#ifndef RPD_TEXTCUT_H
#define RPD_TEXTCUT_H

#include <stddef.h>

#include "rpd.h"

/* Width of a table when stdout is not a terminal and --width is not given
 * (columns). */
#define RPD_TEXT_DEFAULT_WIDTH 160

/* Characters (UTF-8 code points) in s. */
size_t rpd_text_width(const char *s);

/* s cut to at most width characters into b (b is reset; the result is
 * b->s, owned by b): s itself when it fits; else a template's "(params)"
 * tail becomes "(...)", and if that is still too long the middle is
 * replaced by "..." (a third of the room for the head, the rest for the
 * tail).  Cuts fall on UTF-8 character boundaries.  width < 5 cuts the
 * head only, without an ellipsis. */
const char *rpd_text_cut(rpd_buf *b, const char *s, size_t width);

/* rpd_text_cut, keeping in view where s first differs from the names it
 * is shown with: at byte offset apart (from rpd_text_apart; 0 = no such
 * place).  When that place would fall into the cut-out middle, the middle
 * becomes "...<a window from there>...", so that four GEMMs that differ
 * only in their tile sizes (MT256x224x128, MT32x16x1024) still read
 * differently. */
const char *rpd_text_cut_apart(rpd_buf *b, const char *s, size_t width, size_t apart);

/* For each of the n strings s[i]: apart[i] = the byte offset where it
 * first differs from the most similar other (distinct) string of s (the
 * longest common prefix with its neighbours in sorted order, at a
 * character boundary); 0 if it differs from all at once.  The strings are
 * not changed; O(n log n) comparisons. */
void rpd_text_apart(const char *const *s, size_t n, size_t *apart);

/* The n strings s[i] each cut to width (rpd_text_cut_apart at the place
 * rpd_text_apart finds); where two different strings would still read the
 * same, each one's window moves to where it differs from the others that
 * read like it (a few rounds), so that a table's rows read differently.
 * Returns n new strings in a new array (the caller frees each and the
 * array). */
char **rpd_text_cut_distinct(const char *const *s, size_t n, size_t width);

/* Columns of the terminal on fd (TIOCGWINSZ), else $COLUMNS when fd is a
 * terminal, else fallback (not a terminal: output goes to a file or a
 * pipe). */
size_t rpd_term_width(int fd, size_t fallback);

#endif
