/* json_check - parse a whole trace-event JSON file (plain or .gz) with yajl
 * and print event counts for the rpd2tracing tests.
 *
 *   json_check FILE [--find NAME]...
 *
 * Output, one fact per line (sorted keys where there are several):
 *   events N                      events in traceEvents (or the top array)
 *   ph P N                        events per "ph"
 *   cat P/CAT N                   events per ph and "cat"
 *   counter PID NAME N            "C" events per pid and name
 *   tsrange P/CAT MIN MAX         smallest and largest "ts" (as written)
 *   flow_unmatched N              "s" ids without an "f" with the same id (and back)
 *   bad N                         events lacking a field their ph requires
 *   find N                        events whose name equals each NAME, in order
 *   nesting N                     "X" events that overlap an earlier one on
 *                                 their (pid, tid) without nesting in it
 *                                 (sorted by ts, then file order: what
 *                                 Perfetto's importer needs)
 *   unnamed_process N             pids with events but no process_name "M"
 *   unnamed_thread N              (pid, tid) with X/i/s/f events but no
 *                                 thread_name "M"
 *   no_cat N                      events without a "cat"
 * With --verbose the first nesting violations go to stderr.
 * With --events OUT, every event as one line into OUT (unsorted; see
 * proto_check.c for the format): X, i and C events with their times in ns,
 * tracks as "process name/thread name", args as KEY=VALUE;, and a line per
 * flow ("s" and "f" of one id, each as the start of the X event it binds
 * to), and on stdout flow_loose N: "s" or "f" events inside no X event.
 * Exit 0 when the file is valid JSON, 1 (message on stderr) when not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#define EVLINE_PROG "json_check"
#include "evline.h"

typedef struct counted {
  char *key;
  long long n;
  double min, max;
  char *min_text, *max_text;
} counted;

typedef struct table {
  counted *v;
  size_t n, cap;
} table;

typedef struct ids {
  long long *v;
  size_t n, cap;
} ids;

typedef struct state {
  int level, ev_level, in_event, in_array[64];
  char key[64];
  /* current event */
  char *ph, *cat, *name, *pid, *ts, *tid, *dur;
  int has_ts, has_dur, has_pid, has_tid, has_id, arg_numbers;
  long long id;
  /* results */
  long long events, bad;
  table by_ph, by_cat, counters;
  ids s_ids, f_ids;
  int nfind;
  char **find;
  long long *found;
  /* nesting and names */
  struct xev *xs;
  size_t nx, xcap;
  table pids, threads, named_pids, named_threads;
  long long no_cat;
  int verbose;
  /* --events */
  FILE *evout;
  char argkey[256];
  tbuf args;
  struct jev *evs;
  size_t nevs, evcap;
  table pname, tname;       /* pid, pid/tid -> name (in min_text) */
} state;

/* --events: an event line, its track resolved at the end; s/f ends too. */
typedef struct jev {
  char kind;
  char *cat, *name, *args, *pid, *tid;
  long long ts, dur, id, bound;   /* bound: s/f, the slice's start */
} jev;

/* An "X" event: its track and its interval in ns (parsed from the text). */
typedef struct xev {
  long long pid, tid, ts, end;
  size_t order;
} xev;

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n);
  if (!p) { fputs("json_check: out of memory\n", stderr); exit(2); }
  return p;
}

static char *dupn(const unsigned char *s, size_t n) {
  char *d = xrealloc(NULL, n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

static counted *table_get(table *t, const char *key) {
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->v[i].key, key)) return &t->v[i];
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 16;
    t->v = xrealloc(t->v, t->cap * sizeof *t->v);
  }
  memset(&t->v[t->n], 0, sizeof t->v[0]);
  t->v[t->n].key = strdup(key);
  return &t->v[t->n++];
}

static void table_free(table *t) {
  for (size_t i = 0; i < t->n; i++) {
    free(t->v[i].key);
    free(t->v[i].min_text);
    free(t->v[i].max_text);
  }
  free(t->v);
}

static void ids_add(ids *a, long long v) {
  if (a->n == a->cap) {
    a->cap = a->cap ? a->cap * 2 : 1024;
    a->v = xrealloc(a->v, a->cap * sizeof *a->v);
  }
  a->v[a->n++] = v;
}

static char *sdup(const char *t) { return strdup(t ? t : ""); }

static void reset_event(state *s) {
  free(s->ph); free(s->cat); free(s->name); free(s->pid); free(s->ts);
  free(s->tid); free(s->dur);
  s->ph = s->cat = s->name = s->pid = s->ts = s->tid = s->dur = NULL;
  s->has_ts = s->has_dur = s->has_pid = s->has_tid = s->has_id = s->arg_numbers = 0;
  s->args.n = 0;
  if (s->args.p) s->args.p[0] = 0;
}

/* "12.345" microseconds -> 12345 ns, exactly (no floating point). */
static long long us_text_ns(const char *t) {
  long long v = 0, frac = 0;
  int neg = 0, digits = 0;
  if (!t) return 0;
  if (*t == '-') { neg = 1; t++; }
  while (*t >= '0' && *t <= '9') v = v * 10 + (*t++ - '0');
  if (*t == '.') {
    t++;
    while (*t >= '0' && *t <= '9' && digits < 3) { frac = frac * 10 + (*t++ - '0'); digits++; }
  }
  while (digits++ < 3) frac *= 10;
  v = v * 1000 + frac;
  return neg ? -v : v;
}

/* Record what the nesting and naming checks need of the current event. */
static void track_event(state *s, const char *ph) {
  char key[160];
  if (!s->cat) s->no_cat++;
  if (!strcmp(ph, "M")) {
    if (s->name && !strcmp(s->name, "process_name") && s->pid)
      table_get(&s->named_pids, s->pid)->n++;
    if (s->name && !strcmp(s->name, "thread_name") && s->pid && s->tid) {
      snprintf(key, sizeof key, "%s/%s", s->pid, s->tid);
      table_get(&s->named_threads, key)->n++;
    }
    return;
  }
  if (s->pid) table_get(&s->pids, s->pid)->n++;
  if (s->pid && s->tid && strcmp(ph, "C")) {
    snprintf(key, sizeof key, "%s/%s", s->pid, s->tid);
    table_get(&s->threads, key)->n++;
  }
  if (!strcmp(ph, "X") && s->pid && s->tid && s->ts && s->dur) {
    if (s->nx == s->xcap) {
      s->xcap = s->xcap ? s->xcap * 2 : 4096;
      s->xs = xrealloc(s->xs, s->xcap * sizeof *s->xs);
    }
    long long ts = us_text_ns(s->ts);
    s->xs[s->nx] = (xev){atoll(s->pid), atoll(s->tid), ts, ts + us_text_ns(s->dur), s->nx};
    s->nx++;
  }
}

/* --events: keep the event (names are resolved at the end). */
static void record_event(state *s, const char *ph) {
  if (!strcmp(ph, "M")) {
    const char *v = s->args.p ? s->args.p : "";
    table *t = NULL;
    char key[160];
    if (s->name && !strcmp(s->name, "process_name") && s->pid) t = &s->pname;
    if (s->name && !strcmp(s->name, "thread_name") && s->pid && s->tid) t = &s->tname;
    if (!t) return;
    snprintf(key, sizeof key, t == &s->pname ? "%s" : "%s/%s", s->pid, s->tid ? s->tid : "");
    counted *c = table_get(t, key);
    free(c->min_text);
    c->min_text = strncmp(v, "name=", 5) ? sdup(v) : strndup(v + 5, strlen(v + 5) - 1);
    return;
  }
  if (s->nevs == s->evcap) s->evs = xrealloc(s->evs, (s->evcap = s->evcap ? s->evcap * 2 : 1024) * sizeof *s->evs);
  tbuf nb = {0};
  if (s->name) tbuf_esc(&nb, s->name, strlen(s->name));
  s->evs[s->nevs++] = (jev){ph[0], sdup(s->cat), nb.p ? nb.p : sdup(""), sdup(s->args.p), sdup(s->pid),
                            sdup(s->tid), us_text_ns(s->ts), us_text_ns(s->dur), s->id, 0};
}

static void finish_event(state *s) {
  const char *ph = s->ph ? s->ph : "", *cat = s->cat ? s->cat : "";
  char key[512];
  int bad = !s->ph;
  s->events++;
  table_get(&s->by_ph, ph)->n++;
  snprintf(key, sizeof key, "%s/%s", ph, cat);
  counted *c = table_get(&s->by_cat, key);
  c->n++;
  if (s->ts) {
    double v = atof(s->ts);
    if (c->n == 1 || v < c->min) { c->min = v; free(c->min_text); c->min_text = strdup(s->ts); }
    if (c->n == 1 || v > c->max) { c->max = v; free(c->max_text); c->max_text = strdup(s->ts); }
  }
  if (!strcmp(ph, "X")) bad |= !s->has_ts || !s->has_dur || !s->has_pid || !s->has_tid || !s->name;
  if (!strcmp(ph, "i")) bad |= !s->has_ts || !s->has_pid || !s->name;
  if (!strcmp(ph, "C")) {
    bad |= !s->has_ts || !s->has_pid || !s->name || s->arg_numbers < 1;
    snprintf(key, sizeof key, "%s %s", s->pid ? s->pid : "?", s->name ? s->name : "?");
    table_get(&s->counters, key)->n++;
  }
  if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
    bad |= !s->has_ts || !s->has_id || !s->has_pid || !s->has_tid;
    ids_add(ph[0] == 's' ? &s->s_ids : &s->f_ids, s->id);
  }
  if (s->name)
    for (int i = 0; i < s->nfind; i++)
      if (!strcmp(s->name, s->find[i])) s->found[i]++;
  s->bad += bad;
  track_event(s, ph);
  if (s->evout) record_event(s, ph);
  reset_event(s);
}

static int on_value(state *s, const unsigned char *v, size_t n, int is_string) {
  if (!s->in_event) return 1;
  if (s->level == s->ev_level + 1 && !strcmp(s->key, "args") && !is_string)
    s->arg_numbers++;
  if (s->evout && s->level == s->ev_level + 1 && !strcmp(s->key, "args")) {
    tbuf_esc(&s->args, s->argkey, strlen(s->argkey));
    tbuf_add(&s->args, "=", 1);
    tbuf_esc(&s->args, (const char *)v, n);
    tbuf_add(&s->args, ";", 1);
  }
  if (s->level != s->ev_level) return 1;
  if (!strcmp(s->key, "ph") && is_string) s->ph = dupn(v, n);
  else if (!strcmp(s->key, "cat") && is_string) s->cat = dupn(v, n);
  else if (!strcmp(s->key, "name") && is_string) s->name = dupn(v, n);
  else if (!strcmp(s->key, "pid")) { s->pid = dupn(v, n); s->has_pid = !is_string; }
  else if (!strcmp(s->key, "tid")) { s->tid = dupn(v, n); s->has_tid = !is_string; }
  else if (!strcmp(s->key, "ts")) { s->ts = dupn(v, n); s->has_ts = !is_string; }
  else if (!strcmp(s->key, "dur")) { s->dur = dupn(v, n); s->has_dur = !is_string; }
  else if (!strcmp(s->key, "id") && !is_string) {
    char num[32];
    if (n >= sizeof num) n = sizeof num - 1;
    memcpy(num, v, n);
    num[n] = 0;
    s->has_id = 1;
    s->id = atoll(num);
  }
  return 1;
}

static int cb_null(void *ctx) { return on_value(ctx, (const unsigned char *)"null", 4, 1); }
static int cb_bool(void *ctx, int b) { (void)b; return on_value(ctx, (const unsigned char *)"bool", 4, 1); }
static int cb_number(void *ctx, const char *v, size_t n) { return on_value(ctx, (const unsigned char *)v, n, 0); }
static int cb_string(void *ctx, const unsigned char *v, size_t n) {
  if (memchr(v, 0, n)) { fputs("json_check: NUL inside a string\n", stderr); return 0; }
  return on_value(ctx, v, n, 1);
}

static int cb_start_map(void *ctx) {
  state *s = ctx;
  if (++s->level >= 64) return 0;
  s->in_array[s->level] = 0;
  if (s->ev_level == 0) s->ev_level = s->level == 1 ? 3 : 2;
  if (s->level == 1 && s->ev_level == 3) return 1;
  if (s->level == s->ev_level && s->in_array[s->level - 1]) s->in_event = 1;
  return 1;
}

static int cb_end_map(void *ctx) {
  state *s = ctx;
  if (s->in_event && s->level == s->ev_level) {
    finish_event(s);
    s->in_event = 0;
  }
  s->level--;
  return 1;
}

static int cb_start_array(void *ctx) {
  state *s = ctx;
  if (++s->level >= 64) return 0;
  if (s->ev_level == 0) s->ev_level = 2;
  s->in_array[s->level] = 1;
  return 1;
}

static int cb_end_array(void *ctx) { ((state *)ctx)->level--; return 1; }

static int cb_map_key(void *ctx, const unsigned char *k, size_t n) {
  state *s = ctx;
  if (s->in_event && s->level == s->ev_level + 1 && !strcmp(s->key, "args")) {
    if (n >= sizeof s->argkey) n = sizeof s->argkey - 1;
    memcpy(s->argkey, k, n);
    s->argkey[n] = 0;
    return 1;
  }
  if (s->in_event && s->level == s->ev_level) {
    if (n >= sizeof s->key) n = sizeof s->key - 1;
    memcpy(s->key, k, n);
    s->key[n] = 0;
  }
  return 1;
}

static const yajl_callbacks callbacks = {
  cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
  cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

static int cmp_counted(const void *a, const void *b) {
  return strcmp(((const counted *)a)->key, ((const counted *)b)->key);
}

static long long unmatched(ids *a, ids *b) {
  size_t i = 0, j = 0;
  long long n = 0;
  if (a->n) qsort(a->v, a->n, sizeof *a->v, cmp_ll);
  if (b->n) qsort(b->v, b->n, sizeof *b->v, cmp_ll);
  while (i < a->n || j < b->n) {
    if (j == b->n || (i < a->n && a->v[i] < b->v[j])) { n++; i++; }
    else if (i == a->n || b->v[j] < a->v[i]) { n++; j++; }
    else { i++; j++; }
  }
  return n;
}

static int cmp_xev(const void *a, const void *b) {
  const xev *x = a, *y = b;
  if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* X events that start inside an open one on their track and end after it. */
static long long nesting_violations(state *s) {
  long long bad = 0, *stack = NULL;
  size_t depth = 0, cap = 0;
  if (s->nx) qsort(s->xs, s->nx, sizeof *s->xs, cmp_xev);
  for (size_t i = 0; i < s->nx; i++) {
    xev *e = &s->xs[i];
    if (i && (e->pid != s->xs[i - 1].pid || e->tid != s->xs[i - 1].tid)) depth = 0;
    while (depth && stack[depth - 1] <= e->ts) depth--;
    if (depth && e->end > stack[depth - 1]) {
      if (s->verbose && bad < 10)
        fprintf(stderr, "json_check: pid %lld tid %lld: [%lld, %lld] ns overlaps an open slice ending %lld\n",
                e->pid, e->tid, e->ts, e->end, stack[depth - 1]);
      bad++;
      continue;   /* Perfetto drops or misplaces it: leave the stack as is */
    }
    if (depth == cap) {
      cap = cap ? cap * 2 : 64;
      stack = xrealloc(stack, cap * sizeof *stack);
    }
    stack[depth++] = e->end;
  }
  free(stack);
  return bad;
}

/* Keys of `used` missing from `named`. */
static long long unnamed(table *used, table *named) {
  long long n = 0;
  for (size_t i = 0; i < used->n; i++) {
    size_t j = 0;
    while (j < named->n && strcmp(named->v[j].key, used->v[i].key)) j++;
    if (j == named->n) {
      n++;
      if (n <= 5) fprintf(stderr, "json_check: no name for %s\n", used->v[i].key);
    }
  }
  return n;
}

static const char *name_of(table *t, const char *key) {
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->v[i].key, key)) return t->v[i].min_text ? t->v[i].min_text : "?";
  return "?";
}

static void jtrack(state *s, const jev *e, char *out, size_t n) {
  char key[160];
  snprintf(key, sizeof key, "%s/%s", e->pid, e->tid);
  snprintf(out, n, "%s/%s", name_of(&s->pname, e->pid), name_of(&s->tname, key));
}

static int cmp_jev_id(const void *a, const void *b) {
  const jev *x = *(jev *const *)a, *y = *(jev *const *)b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Bind the flow points v[0..n) to the deepest X event of their (pid, tid)
 * open at their ts (as Perfetto binds "s" and "f" with bp e); the number
 * that bind to none. */
static long long bind_flows(state *s, jev **v, size_t n) {
  bspan *sp = xrealloc(NULL, (s->nx + 1) * sizeof *sp);
  bpoint *pt = xrealloc(NULL, (n + 1) * sizeof *pt);
  for (size_t i = 0; i < s->nx; i++) sp[i] = (bspan){s->xs[i].pid, s->xs[i].tid, s->xs[i].ts, s->xs[i].end};
  for (size_t i = 0; i < n; i++) pt[i] = (bpoint){atoll(v[i]->pid), atoll(v[i]->tid), v[i]->ts, 0, i};
  long long loose = bind_points(sp, s->nx, pt, n);
  for (size_t i = 0; i < n; i++) v[pt[i].idx]->bound = pt[i].bound;
  free(sp);
  free(pt);
  return loose;
}

/* The event lines of --events: the same as proto_check --events; the
 * number of flow points that bind to no slice. */
static long long print_events(state *s) {
  char k1[400], k2[400];
  jev **sv = xrealloc(NULL, (s->nevs + 1) * sizeof *sv), **fv = xrealloc(NULL, (s->nevs + 1) * sizeof *fv);
  size_t ns = 0, nf = 0;
  for (size_t i = 0; i < s->nevs; i++) {
    jev *e = &s->evs[i];
    if (e->kind == 'X' || e->kind == 'i') {
      jtrack(s, e, k1, sizeof k1);
      if (e->kind == 'X')
        fprintf(s->evout, "X %s %lld %lld %s\t%s\t%s\n", e->cat, e->ts, e->dur, k1, e->name,
                evline_args(e->name, e->args));
      else
        fprintf(s->evout, "i %s %lld %s\t%s\t%s\n", e->cat, e->ts, k1, e->name,
                evline_args(e->name, e->args));
    } else if (e->kind == 'C') {
      const char *eq = strchr(e->args, '=');
      fprintf(s->evout, "C %s %s %lld %.17g\n", e->pid, e->name, e->ts, eq ? strtod(eq + 1, NULL) : 0.0);
    } else if (e->kind == 's') {
      sv[ns++] = e;
    } else if (e->kind == 'f') {
      fv[nf++] = e;
    }
  }
  long long loose = bind_flows(s, sv, ns) + bind_flows(s, fv, nf);
  if (ns) qsort(sv, ns, sizeof *sv, cmp_jev_id);
  if (nf) qsort(fv, nf, sizeof *fv, cmp_jev_id);
  for (size_t i = 0, j = 0; i < ns && j < nf;) {
    if (sv[i]->id < fv[j]->id) { i++; continue; }
    if (sv[i]->id > fv[j]->id) { j++; continue; }
    jtrack(s, sv[i], k1, sizeof k1);
    jtrack(s, fv[j], k2, sizeof k2);
    char b1[48], b2[48];
    fprintf(s->evout, "F %s %s -> %s %s\n", bound_text(sv[i]->bound, sv[i]->ts, b1, sizeof b1), k1,
            bound_text(fv[j]->bound, fv[j]->ts, b2, sizeof b2), k2);
    i++;
    j++;
  }
  for (size_t i = 0; i < s->nevs; i++) {
    jev *e = &s->evs[i];
    free(e->cat); free(e->name); free(e->args); free(e->pid); free(e->tid);
  }
  free(s->evs);
  free(sv);
  free(fv);
  return loose;
}

int main(int argc, char **argv) {
  state s = {0};
  static unsigned char buf[1 << 16];
  gzFile in;
  yajl_handle h;
  int n, ok = 1;

  if (argc < 2) { fputs("usage: json_check FILE [--find NAME]... [--verbose]\n", stderr); return 2; }
  s.find = xrealloc(NULL, sizeof(char *) * (size_t)argc);
  s.found = xrealloc(NULL, sizeof(long long) * (size_t)argc);
  for (int i = 2; i + 1 < argc; i += 2)
    if (!strcmp(argv[i], "--find")) { s.found[s.nfind] = 0; s.find[s.nfind++] = argv[i + 1]; }
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--verbose")) s.verbose = 1;
  for (int i = 2; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--events") && !(s.evout = fopen(argv[i + 1], "w"))) {
      fprintf(stderr, "json_check: cannot write '%s'\n", argv[i + 1]);
      return 1;
    }
  in = gzopen(argv[1], "rb");
  if (!in) { fprintf(stderr, "json_check: cannot open '%s'\n", argv[1]); return 1; }
  h = yajl_alloc(&callbacks, NULL, &s);
  while (ok && (n = gzread(in, buf, sizeof buf)) > 0)
    ok = yajl_parse(h, buf, (size_t)n) == yajl_status_ok;
  if (ok) ok = yajl_complete_parse(h) == yajl_status_ok;
  if (!ok) {
    unsigned char *err = yajl_get_error(h, 1, buf, 0);
    fprintf(stderr, "json_check: '%s' is not valid JSON: %s\n", argv[1], (char *)err);
    yajl_free_error(h, err);
    return 1;
  }
  printf("events %lld\n", s.events);
  if (s.by_ph.n) qsort(s.by_ph.v, s.by_ph.n, sizeof(counted), cmp_counted);
  for (size_t i = 0; i < s.by_ph.n; i++) printf("ph %s %lld\n", s.by_ph.v[i].key, s.by_ph.v[i].n);
  if (s.by_cat.n) qsort(s.by_cat.v, s.by_cat.n, sizeof(counted), cmp_counted);
  for (size_t i = 0; i < s.by_cat.n; i++) printf("cat %s %lld\n", s.by_cat.v[i].key, s.by_cat.v[i].n);
  if (s.counters.n) qsort(s.counters.v, s.counters.n, sizeof(counted), cmp_counted);
  for (size_t i = 0; i < s.counters.n; i++) printf("counter %s %lld\n", s.counters.v[i].key, s.counters.v[i].n);
  for (size_t i = 0; i < s.by_cat.n; i++)
    if (s.by_cat.v[i].min_text)
      printf("tsrange %s %s %s\n", s.by_cat.v[i].key, s.by_cat.v[i].min_text, s.by_cat.v[i].max_text);
  printf("flow_unmatched %lld\n", unmatched(&s.s_ids, &s.f_ids));
  printf("bad %lld\n", s.bad);
  for (int i = 0; i < s.nfind; i++) printf("find %lld\n", s.found[i]);
  printf("nesting %lld\n", nesting_violations(&s));
  printf("unnamed_process %lld\n", unnamed(&s.pids, &s.named_pids));
  printf("unnamed_thread %lld\n", unnamed(&s.threads, &s.named_threads));
  printf("no_cat %lld\n", s.no_cat);
  if (s.evout) {
    printf("flow_loose %lld\n", print_events(&s));
    if (fclose(s.evout)) { fputs("json_check: cannot write the event lines\n", stderr); return 1; }
    table_free(&s.pname);
    table_free(&s.tname);
  }
  yajl_free(h);
  gzclose(in);
  reset_event(&s);
  free(s.args.p);
  table_free(&s.by_ph);
  table_free(&s.by_cat);
  table_free(&s.counters);
  table_free(&s.pids);
  table_free(&s.threads);
  table_free(&s.named_pids);
  table_free(&s.named_threads);
  free(s.xs);
  free(s.s_ids.v);
  free(s.f_ids.v);
  free(s.find);
  free(s.found);
  return 0;
}
