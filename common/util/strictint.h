/* strictint.h - the strict integer reader every importer shares.
 *
 * Importers read timestamps, ids and sizes from text (JSON numbers, CSV
 * cells, rpl text) or from another tool's SQLite file.  A value that is
 * not exactly an integer must be refused, never turned into a wrong one
 * (strtoll stops at the first non-digit: "6.3857982592e13" gives 6,
 * "1e400" gives 1; sqlite3_column_int64 reads text and blobs as 0).
 * These two functions are that one rule:
 *   text:   an optional '-', then 1 to 19 decimal digits whose value fits
 *           int64; nothing else (no '+', spaces, fraction, exponent, hex,
 *           or trailing characters);
 *   SQLite: an INTEGER value; TEXT, REAL, BLOB and NULL are refused (the
 *           caller decides whether NULL means "absent" before asking).
 * Both return RPD_OK and *out, or RPD_EPARSE with a short reason in
 * rpd_errmsg() ("'1.5e3' is not an integer") that the caller wraps with
 * its own context (file, line, column); *out is then left untouched. */
#ifndef RPD_STRICTINT_H
#define RPD_STRICTINT_H

#include <stddef.h>
#include <stdint.h>

#include "rpd.h"

/* s[0..len) as a strict decimal integer (s need not be NUL-terminated). */
int rpd_int_text(const char *s, size_t len, int64_t *out);

/* One SQLite value as a strict integer (INTEGER storage class only). */
int rpd_int_value(sqlite3_value *v, int64_t *out);

#endif
