/* analyze.c - raptor: gaps, sequence keys, statistics, the tables. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "catfile.h"
#include "rpd.h"
#include "report.h"
#include "raptor.h"


/* ------------------------------------------------------------ analysis */

int64_t op_dur(const op *o)
{
  return o->start <= o->end ? o->end - o->start : 0;
}

/* PreGap and sequenceId per GPU. */
static void compute_pregaps(raptor *R)
{
  int64_t runmax = 0;
  int32_t seq = 0;
  for (size_t i = 0; i < R->n; i++) {
    op *o = &R->ops[i];
    if (i == 0 || o->gpu != R->ops[i - 1].gpu) {
      seq = 0;
      o->pregap = -1;
      runmax = o->end;
    } else {
      int64_t g = o->start - runmax;
      o->pregap = g > 0 ? g : 0;
      if (o->end > runmax) runmax = o->end;
    }
    o->seq = ++seq;
  }
}

static size_t key_hash(const int32_t *t, int w)
{
  return (size_t)hash_bytes(t, (size_t)w * sizeof *t, 14695981039346656037ULL);
}

static void key_slots_rebuild(raptor *R, size_t cap)
{
  int w = R->seqlen + 1;
  free(R->key_slots.v);
  islots_init(&R->key_slots, cap);
  for (size_t k = 0; k < R->nkeys; k++) {
    size_t h = key_hash(&R->keyk[k * w], w) & (cap - 1);
    while (R->key_slots.v[h] >= 0) h = (h + 1) & (cap - 1);
    R->key_slots.v[h] = (int32_t)k;
  }
}

static int32_t key_intern(raptor *R, const int32_t *t)
{
  int w = R->seqlen + 1;
  if (R->nkeys * 2 >= R->key_slots.cap)
    key_slots_rebuild(R, R->key_slots.cap ? R->key_slots.cap * 2 : 1024);
  size_t m = R->key_slots.cap - 1;
  size_t h = key_hash(t, w) & m;
  while (R->key_slots.v[h] >= 0) {
    int32_t k = R->key_slots.v[h];
    if (memcmp(&R->keyk[(size_t)k * w], t, w * sizeof *t) == 0) return k;
    h = (h + 1) & m;
  }
  if (R->nkeys == R->capkeys) {
    R->capkeys = R->capkeys ? R->capkeys * 2 : 256;
    R->keyk = rpd_xrealloc(R->keyk, R->capkeys * w * sizeof *R->keyk);
  }
  memcpy(&R->keyk[R->nkeys * w], t, w * sizeof *t);
  R->key_slots.v[h] = (int32_t)R->nkeys;
  return (int32_t)R->nkeys++;
}

/* zscore of an op's duration within its key (NAN: undefined). */
double op_zscore(const raptor *R, const op *o)
{
  if (o->key < 0) return NAN;
  const kstat *k = &R->ks[o->key];
  if (k->nall == 1) return 0.0;
  if (k->pstd == 0) return NAN;
  return ((double)op_dur(o) - k->mean_all) / k->pstd;
}

int op_outlier(const raptor *R, const op *o)
{
  if (R->zthr == -1) return 0;
  double z = op_zscore(R, o);
  return !isnan(z) && fabs(z) >= R->zthr;
}

/* ------------------------------------------------------------ op source */

/* A streamed run keeps each op in a temp file (48 bytes an op), in (gpu,
 * start, id) order; the passes of key_stats and the outputs that list ops
 * (op trace, --save, instances) read it back a block at a time: memory
 * flat in the number of ops. */
typedef struct spill_rec {
  int64_t id, start, end, pregap;
  int32_t key, gpu, kern, seq;
} spill_rec;

#define SPILL_BLOCK 1024

struct opiter {
  raptor *R;
  size_t i, n, pos;
  op buf[SPILL_BLOCK];
};

static void opiter_start(opiter *it, raptor *R)
{
  it->R = R;
  it->i = it->n = it->pos = 0;
  if (R->opfile && fseek(R->opfile, 0, SEEK_SET) != 0) R->spill_failed = 1;
}

opiter *opiter_new(raptor *R)
{
  opiter *it = rpd_xmalloc(sizeof *it);
  opiter_start(it, R);
  return it;
}

void opiter_free(opiter *it)
{
  free(it);
}

const op *opiter_next(opiter *it)
{
  raptor *R = it->R;
  if (!R->opfile) return it->i < R->n ? &R->ops[it->i++] : NULL;
  if (it->pos == it->n) {
    spill_rec rec[SPILL_BLOCK];
    it->n = fread(rec, sizeof *rec, SPILL_BLOCK, R->opfile);
    it->pos = 0;
    if (it->n == 0) {
      if (ferror(R->opfile) || it->i != R->n) R->spill_failed = 1;
      return NULL;
    }
    for (size_t k = 0; k < it->n; k++)
      it->buf[k] = (op){.id = rec[k].id, .start = rec[k].start, .end = rec[k].end,
                        .pregap = rec[k].pregap, .key = rec[k].key, .gpu = rec[k].gpu,
                        .kern = rec[k].kern, .seq = rec[k].seq};
    it->i += it->n;
  }
  return &it->buf[it->pos++];
}

/* The state of a streamed run between ops (one run at a time). */
static struct {
  size_t i;                /* ops so far */
  int32_t gpu, seq;
  int64_t runmax;
  int32_t *ring;           /* the last seqlen+1 kernels, newest at i % w */
  int32_t *t;              /* the key being built */
  int32_t pad;             /* key_start_name: the missing earlier ops */
} st_run;

void stream_begin(raptor *R)
{
  int w = R->seqlen + 1;
  free(st_run.ring);
  free(st_run.t);
  st_run.i = 0;
  st_run.ring = rpd_xcalloc((size_t)w, sizeof *st_run.ring);
  st_run.t = rpd_xcalloc((size_t)w, sizeof *st_run.t);
  st_run.pad = key_start_name(R);
  R->nkeys = 0;
  free(R->key_slots.v);
  R->key_slots.v = NULL;
  R->key_slots.cap = 0;
  free(R->grows);
  R->grows = NULL;
  R->ngrows = 0;
}

/* compute_pregaps, assign_keys and build_gpus for one op, in order; the
 * GPU row keeps its first start and last end in lead and trail until
 * analyze turns them into the ROI margins. */
int stream_op(raptor *R, op *o)
{
  int w = R->seqlen + 1;
  size_t i = st_run.i++;
  int first = i == 0 || o->gpu != st_run.gpu;
  if (first) {
    st_run.seq = 0;
    o->pregap = -1;
    st_run.runmax = o->end;
    st_run.gpu = o->gpu;
    if ((R->ngrows & (R->ngrows - 1)) == 0)
      R->grows = rpd_xrealloc(R->grows, (R->ngrows ? 2 * R->ngrows : 1) * sizeof *R->grows);
    R->grows[R->ngrows++] = (gpurow){.gpu = o->gpu, .lead = (double)o->start,
                                     .trail = (double)o->end};
  } else {
    int64_t g = o->start - st_run.runmax;
    o->pregap = g > 0 ? g : 0;
    if (o->end > st_run.runmax) st_run.runmax = o->end;
  }
  o->seq = ++st_run.seq;
  st_run.ring[i % (size_t)w] = o->kern;
  if (i < (size_t)R->seqlen && st_run.pad < 0) {
    o->key = -1;
  } else {
    for (int j = 0; j < w; j++)
      st_run.t[j] = (size_t)j <= i ? st_run.ring[(i - (size_t)j) % (size_t)w] : st_run.pad;
    o->key = key_intern(R, st_run.t);
  }
  gpurow *g = &R->grows[R->ngrows - 1];
  if (o->pregap >= 0) g->pregap += (double)o->pregap;
  g->dur += (double)op_dur(o);
  if ((double)o->end > g->trail) g->trail = (double)o->end;
  spill_rec rec = {o->id, o->start, o->end, o->pregap, o->key, o->gpu, o->kern, o->seq};
  return fwrite(&rec, sizeof rec, 1, R->opfile) == 1 ? 0 : -1;
}

/* build_gpus' margins and idle share for the rows stream_op summed. */
static void finish_stream_gpus(raptor *R)
{
  for (size_t i = 0; i < R->ngrows; i++) {
    gpurow *g = &R->grows[i];
    g->lead = g->lead - (double)R->roi_s;
    g->trail = (double)R->roi_e - g->trail;
    g->idle_pct = g->pregap / (g->pregap + g->dur) * 100.0;
  }
  free(st_run.ring);
  free(st_run.t);
  st_run.ring = st_run.t = NULL;
}

static void assign_keys(raptor *R)
{
  int w = R->seqlen + 1;
  int32_t *t = rpd_xmalloc(w * sizeof *t);
  int32_t pad = key_start_name(R);
  R->nkeys = 0;
  free(R->key_slots.v);
  R->key_slots.v = NULL;
  R->key_slots.cap = 0;
  for (size_t i = 0; i < R->n; i++) {
    if (i < (size_t)R->seqlen && pad < 0) { R->ops[i].key = -1; continue; }
    for (int j = 0; j < w; j++) t[j] = (size_t)j <= i ? R->ops[i - j].kern : pad;
    R->ops[i].key = key_intern(R, t);
  }
  free(t);
}

static void key_stats(raptor *R)
{
  opiter *it = opiter_new(R);
  free(R->ks);
  R->ks = rpd_xcalloc(R->nkeys ? R->nkeys : 1, sizeof *R->ks);
  kstat *ks = R->ks;
  /* pass 1: zscore mean */
  opiter_start(it, R);
  for (const op *o; (o = opiter_next(it));) {
    if (o->key < 0) continue;
    ks[o->key].nall++;
    ks[o->key].mean_all += (double)op_dur(o);
  }
  for (size_t k = 0; k < R->nkeys; k++) ks[k].mean_all /= (double)ks[k].nall;
  /* pass 2: population std */
  opiter_start(it, R);
  for (const op *o; (o = opiter_next(it));) {
    if (o->key < 0) continue;
    double d = (double)op_dur(o) - ks[o->key].mean_all;
    ks[o->key].pstd += d * d;
  }
  for (size_t k = 0; k < R->nkeys; k++) {
    ks[k].pstd = sqrt(ks[k].pstd / (double)ks[k].nall);
    ks[k].pg_min = ks[k].d_min = INFINITY;
    ks[k].pg_max = ks[k].d_max = -INFINITY;
    ks[k].smin = INT64_MAX;
    ks[k].smax = INT64_MIN;
  }
  /* pass 3: sums over the kept (non-outlier) ops */
  opiter_start(it, R);
  for (const op *o; (o = opiter_next(it));) {
    if (o->key < 0 || op_outlier(R, o)) continue;
    kstat *k = &ks[o->key];
    double d = (double)op_dur(o);
    k->calls++;
    if (o->start < k->smin) k->smin = o->start;
    if (o->start > k->smax) k->smax = o->start;
    k->d_sum += d;
    if (d < k->d_min) k->d_min = d;
    if (d > k->d_max) k->d_max = d;
    if (o->pregap >= 0) {
      double g = (double)o->pregap;
      k->pg_n++;
      k->pg_sum += g;
      if (g < k->pg_min) k->pg_min = g;
      if (g > k->pg_max) k->pg_max = g;
    }
  }
  /* pass 4: sample variances */
  opiter_start(it, R);
  for (const op *o; (o = opiter_next(it));) {
    if (o->key < 0 || op_outlier(R, o)) continue;
    kstat *k = &ks[o->key];
    double d = (double)op_dur(o) - k->d_sum / (double)k->calls;
    k->d_m2 += d * d;
    if (o->pregap >= 0) {
      double g = (double)o->pregap - k->pg_sum / (double)k->pg_n;
      k->pg_m2 += g * g;
    }
  }
  opiter_free(it);
}

typedef struct tagged_row {
  krow r;
  size_t i;
} tagged_row;

/* Duration sum descending, then original position (a stable sort). */
static int tagged_row_cmp(const void *a, const void *b)
{
  const tagged_row *x = a, *y = b;
  if (x->r.d_sum != y->r.d_sum) return x->r.d_sum > y->r.d_sum ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

static void sort_rows(krow *rows, size_t n)
{
  tagged_row *t = rpd_xmalloc((n ? n : 1) * sizeof *t);
  for (size_t i = 0; i < n; i++) { t[i].r = rows[i]; t[i].i = i; }
  qsort(t, n, sizeof *t, tagged_row_cmp);
  for (size_t i = 0; i < n; i++) rows[i] = t[i].r;
  free(t);
}

static void build_rows(raptor *R)
{
  int w = R->seqlen + 1;
  int nb = R->ngaps + 1;
  free(R->rows);
  R->rows = rpd_xcalloc(R->nkeys + nb + 1, sizeof *R->rows);
  size_t nr = 0;
  /* gap buckets */
  krow *gap = rpd_xcalloc(nb, sizeof *gap);
  int64_t *gcnt = rpd_xcalloc(nb, sizeof *gcnt);
  for (int b = 0; b < nb; b++) {
    gap[b].d_min = INFINITY;
    gap[b].d_max = -INFINITY;
    gap[b].smin = INT64_MAX;
    gap[b].smax = INT64_MIN;
  }
  for (size_t k = 0; k < R->nkeys; k++) {
    kstat *s = &R->ks[k];
    if (s->calls == 0)
      continue;  /* every instance an outlier (-z): no row, as the reference */
    krow *row = &R->rows[nr++];
    row->key = (int32_t)k;
    row->label = R->names[R->keyk[k * w]];
    row->cat = R->name_cat[R->keyk[k * w]];
    row->calls = s->calls;
    row->outliers = s->nall - s->calls;
    row->smin = s->smin;
    row->smax = s->smax;
    row->pg_sum = s->pg_sum;
    row->pg_min = s->pg_n ? s->pg_min : NAN;
    row->pg_max = s->pg_n ? s->pg_max : NAN;
    row->pg_mean = s->pg_n ? s->pg_sum / (double)s->pg_n : NAN;
    row->pg_std = s->pg_n > 1 ? sqrt(s->pg_m2 / (double)(s->pg_n - 1)) : NAN;
    row->d_sum = s->d_sum;
    row->d_min = s->d_min;
    row->d_max = s->d_max;
    row->d_mean = s->d_sum / (double)s->calls;
    row->d_std = s->calls > 1 ? sqrt(s->d_m2 / (double)(s->calls - 1)) : NAN;
    /* bucket (lo, hi] over the PreGap sum, in us edges */
    if (row->pg_sum > 0) {
      int b = 0;
      while (b < R->ngaps && row->pg_sum > (double)R->gaps[b] * 1000.0) b++;
      krow *g = &gap[b];
      g->calls += row->calls;
      g->d_sum += row->pg_sum;
      if (row->pg_min < g->d_min) g->d_min = row->pg_min;
      if (row->pg_max > g->d_max) g->d_max = row->pg_max;
      if (!isnan(row->pg_mean)) { g->d_mean += row->pg_mean; gcnt[b]++; }
      if (row->smin < g->smin) g->smin = row->smin;
      if (row->smax > g->smax) g->smax = row->smax;
      g->outliers = 1;  /* marks the bucket as used */
    }
  }
  for (int b = 0; b < nb; b++) {
    if (!gap[b].outliers) continue;
    krow *row = &R->rows[nr++];
    *row = gap[b];
    row->key = -1;
    row->label = R->gap_labels[b];
    row->cat = category_of(R, row->label);
    row->outliers = -1;
    row->d_mean = gcnt[b] ? row->d_mean / (double)gcnt[b] : NAN;
    row->d_std = NAN;
    row->pg_sum = row->pg_min = row->pg_mean = row->pg_std = row->pg_max = NAN;
  }
  free(gap);
  free(gcnt);
  R->nrows = nr;
  double total = 0;
  for (size_t i = 0; i < nr; i++) total += R->rows[i].d_sum;
  R->total_ns = total;
  R->var_comm = R->var_other = 0;
  for (size_t i = 0; i < nr; i++) {
    krow *row = &R->rows[i];
    row->pct = total > 0 ? row->d_sum / total * 100.0 : NAN;
    double v = (row->d_mean - row->d_min) * (double)row->calls;
    /* truncated to whole ns as the reference; a NaN/Inf never becomes a number */
    row->varsum = (row->cat == 0 || !isfinite(v)) ? NAN : trunc(v);
    if (!isnan(row->varsum)) {
      if (row->cat == R->cat_comm) R->var_comm += row->varsum;
      else R->var_other += row->varsum;
    }
  }
  sort_rows(R->rows, nr);
}

static int crow_name_cmp(const void *a, const void *b)
{
  return strcmp(((const catrow *)a)->name, ((const catrow *)b)->name);
}

static void build_categories(raptor *R)
{
  int nc = R->ncats + 2;
  catrow *c = rpd_xcalloc(nc + 1, sizeof *c);
  int *used = rpd_xcalloc(nc, sizeof *used);
  for (size_t i = 0; i < R->nrows; i++) {
    krow *row = &R->rows[i];
    catrow *x = &c[row->cat];
    used[row->cat] = 1;
    x->name = R->catname[row->cat];
    x->uniq++;
    x->calls += row->calls;
    x->dur += row->d_sum;
    if (!isnan(row->varsum)) x->varsum += row->varsum;
  }
  size_t n = 0;
  for (int i = 0; i < nc; i++)
    if (used[i]) c[n++] = c[i];
  qsort(c, n, sizeof *c, crow_name_cmp);  /* pandas groupby order */
  if (R->latency_ns && n) {
    catrow lat = {LATENCY_CAT, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
      size_t l = strlen(c[i].name), il = strlen(IDLE_CAT);
      if (l >= il && strcmp(c[i].name + l - il, IDLE_CAT) == 0) continue;
      lat.uniq += c[i].uniq;
      lat.calls += c[i].calls;
      c[i].dur -= (double)c[i].calls * (double)R->latency_ns;
    }
    lat.dur = (double)lat.calls * (double)R->latency_ns;
    /* replace an existing _Latency row (pandas .loc) or append */
    size_t j = 0;
    while (j < n && strcmp(c[j].name, LATENCY_CAT) != 0) j++;
    c[j] = lat;
    if (j == n) n++;
  }
  double total = 0;
  for (size_t i = 0; i < n; i++) total += c[i].dur;
  for (size_t i = 0; i < n; i++) {
    c[i].avg_us = c[i].dur / (double)c[i].calls / 1000.0;
    c[i].pct = c[i].dur / total * 100.0;
  }
  /* stable sort by duration desc (insertion: the table is small) */
  for (size_t i = 1; i < n; i++) {
    catrow t = c[i];
    size_t j = i;
    while (j > 0 && c[j - 1].dur < t.dur) { c[j] = c[j - 1]; j--; }
    c[j] = t;
  }
  free(used);
  free(R->crows);
  R->crows = c;
  R->ncrows = n;
}

int latency_bound(const raptor *R)
{
  if (!R->latency_ns)
    return 0;
  for (size_t i = 0; i < R->ncrows; i++) {
    const catrow *c = &R->crows[i];
    if (c->dur >= 0 || !strcmp(c->name, LATENCY_CAT))
      continue;
    double moved = (double)c->calls * (double)R->latency_ns;
    return rpd_fail("-l %" PRId64 ": category '%s' would move %" PRId64 " calls x %" PRId64
                    " ns = %.0f ns, more than its %.0f ns of GPU time (at most %.0f ns"
                    " per call here)", R->latency_ns, c->name, c->calls, R->latency_ns,
                    moved, c->dur + moved, floor((c->dur + moved) / (double)c->calls));
  }
  return 0;
}

static void build_gpus(raptor *R)
{
  free(R->grows);
  R->grows = rpd_xcalloc(R->n ? R->n : 1, sizeof *R->grows);
  size_t ng = 0;
  int64_t smin = 0, emax = 0;
  for (size_t i = 0; i < R->n; i++) {
    const op *o = &R->ops[i];
    if (i == 0 || o->gpu != R->ops[i - 1].gpu) {
      gpurow *g = &R->grows[ng++];
      g->gpu = o->gpu;
      smin = o->start;
      emax = o->end;
    }
    gpurow *g = &R->grows[ng - 1];
    if (o->pregap >= 0) g->pregap += (double)o->pregap;
    g->dur += (double)op_dur(o);
    if (o->start < smin) smin = o->start;
    if (o->end > emax) emax = o->end;
    g->lead = (double)(smin - R->roi_s);
    g->trail = (double)(R->roi_e - emax);
  }
  for (size_t i = 0; i < ng; i++)
    R->grows[i].idle_pct =
        R->grows[i].pregap / (R->grows[i].pregap + R->grows[i].dur) * 100.0;
  R->ngrows = ng;
}

/* Everything from the op array in its current ROI. */
void analyze(raptor *R)
{
  key_start_name(R);   /* interned before the names get their categories */
  /* one search per distinct name for the whole run (an ROI read again
   * only adds names): a costly pattern is paid once per name */
  R->name_cat = rpd_xrealloc(R->name_cat, (R->nnames ? R->nnames : 1) * sizeof *R->name_cat);
  for (size_t i = R->nname_cat; i < R->nnames; i++)
    R->name_cat[i] = category_of(R, R->names[i]);
  R->nname_cat = R->nnames;
  if (R->opfile) {  /* streamed: pregaps, keys and GPU rows are done; the
                      * file stays open for the outputs (raptor_free closes it) */
    key_stats(R);
    if (ferror(R->opfile)) R->spill_failed = 1;
    finish_stream_gpus(R);
  } else {
    compute_pregaps(R);
    assign_keys(R);
    key_stats(R);
    build_gpus(R);
  }
  build_rows(R);
  build_categories(R);
}
