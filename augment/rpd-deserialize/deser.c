/* deser.c - serialized roctx markers (s_api / s_op) into checked fields.
 * See deser.h. */
#include <string.h>

#include "deser.h"
#include "textsafe.h"

/* s as a plain decimal integer in 0..max into *v; 0 if it is anything else
 * (empty, sign, hex, exponent, fraction, Inf/NaN, too large). */
static int parse_uint(const char *s, int64_t max, int64_t *v)
{
  uint64_t n = 0;

  if (!*s)
    return 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9')
      return 0;
    if (n > ((uint64_t)max - (uint64_t)(*s - '0')) / 10)
      return 0;
    n = n * 10 + (uint64_t)(*s - '0');
  }
  *v = (int64_t)n;
  return 1;
}

/* The integer field `key` of d's args into *v (dflt when absent). */
static int field(rpd_deser *d, const char *key, int64_t max, int64_t dflt,
                 int64_t *v)
{
  const char *s = rpd_args_get(&d->args, key);

  *v = dflt;
  if (s && !parse_uint(s, max, v)) {
    /* the value may hold anything: at most 40 bytes, on one line */
    size_t n = strlen(s);
    rpd_buf b = {0};
    int rc;
    rpd_text_safe_n(&b, s, n > 40 ? 40 : n, RPD_TEXT_PLAIN);
    rc = rpd_seterr(RPD_EPARSE, "%s '%s%s' is not an integer in 0..%lld", key, b.s,
                    n > 40 ? "..." : "", (long long)max);
    rpd_buf_free(&b);
    return rc;
  }
  return RPD_OK;
}

/* Parse a marker's args text into checked fields (see deser.h). */
int rpd_deser_parse(const char *text, int64_t marker_start, int64_t marker_end,
                    rpd_deser *d)
{
  int rc;

  memset(d, 0, sizeof *d);
  rpd_args_parse(text, &d->args);
  d->api = rpd_args_get(&d->args, "s_api");
  d->op = rpd_args_get(&d->args, "s_op");
  d->signal = rpd_args_get(&d->args, "completionSignal");
  if (!d->api && !d->op)
    return RPD_OK;
  if ((d->api && !*d->api) || (d->op && !*d->op))
    return rpd_seterr(RPD_EPARSE, "empty %s name", d->api && !*d->api ? "s_api" : "s_op");
  if (marker_start < 0 || marker_start > RPD_DESER_TIME_MAX || marker_end < marker_start ||
      marker_end > RPD_DESER_TIME_MAX)
    return rpd_seterr(RPD_EPARSE, "the marker's own start/end (%lld, %lld) are out of range",
                      (long long)marker_start, (long long)marker_end);
  if (!d->op)
    return RPD_OK;
  rc = field(d, "gpuId", INT32_MAX, 0, &d->gpu_id);
  if (!rc)
    rc = field(d, "queueId", INT32_MAX, 0, &d->queue_id);
  if (!rc)
    rc = field(d, "sequenceId", INT64_MAX, 0, &d->sequence_id);
  if (!rc)
    rc = field(d, "start", RPD_DESER_TIME_MAX, marker_start, &d->start);
  if (!rc)
    rc = field(d, "end", RPD_DESER_TIME_MAX, marker_end, &d->end);
  if (!rc && d->end < d->start)
    rc = rpd_seterr(RPD_EPARSE, "end %lld is before start %lld", (long long)d->end,
                    (long long)d->start);
  return rc;
}

/* Release d's storage. */
void rpd_deser_free(rpd_deser *d)
{
  rpd_args_free(&d->args);
  memset(d, 0, sizeof *d);
}
