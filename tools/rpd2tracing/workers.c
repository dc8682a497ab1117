#include "tracing.h"

/* OUT as an atomic output (rpd_outfile: a locked temp file next to OUT's
 * target, renamed into place by close_sink and removed on failure, a fatal
 * signal or exit), or NULL when OUT is an existing special file. */
rpd_outfile *ofile;

/* The GPUs the op scan saw, ascending. */
void collect_gpus(conv *c) {
  c->ngpus = c->gpuset.n;
  c->gpus = rpd_xmalloc((c->ngpus ? c->ngpus : 1) * sizeof *c->gpus);
  if (c->ngpus) memcpy(c->gpus, c->gpuset.a, c->ngpus * sizeof *c->gpus);
  qsort(c->gpus, c->ngpus, sizeof *c->gpus, i64_qcmp);
}

void job_wrote(job *j, size_t n) {
  pthread_mutex_lock(&j->mu);
  j->b_written += (off_t)n;
  pthread_cond_broadcast(&j->cv);
  pthread_mutex_unlock(&j->mu);
}

static void job_stage(job *j, int stage) {
  if (!j) return;
  pthread_mutex_lock(&j->mu);
  j->stage = stage;
  pthread_cond_broadcast(&j->cv);
  pthread_mutex_unlock(&j->mu);
}

/* B: wait until A has reached stage (no-op when B runs after A). */
void job_wait(job *j, int stage) {
  if (!j) return;
  pthread_mutex_lock(&j->mu);
  while (j->stage < stage) pthread_cond_wait(&j->cv, &j->mu);
  pthread_mutex_unlock(&j->mu);
}

static int part_a(conv *c) {
  int rc = conv_prepare(c, &c->strs.look, "SELECT string FROM rocpd_string WHERE id = ?1");
  sorter_init(c->launches, c->err);
  c->strs.max = NAMES_MAX;
  c->strs.common = 1;
  if (rc == RPD_OK) rc = emit_ops(c);
  collect_gpus(c);
  job_stage(c->job, 1);
  if (rc == RPD_OK) rc = emit_apis(c);
  if (c->t_from_scans) {
    /* the last end of any api call or op, as trace_span */
    c->t_end = c->has_api ? c->api_end : c->op_end;
    if (c->has_op && c->op_end > c->t_end) c->t_end = c->op_end;
  }
  job_stage(c->job, 2);   /* also on failure: B must not wait forever */
  if (rc == RPD_OK) rc = emit_hsa(c);
  if (rc == RPD_OK) rc = emit_graphs(c);
  if (rc == RPD_OK) rc = emit_monitor(c);
  if (rc == RPD_OK) rc = emit_metadata(c);
  if (rc == RPD_OK) rc = emit_analysis(c);   /* rpd-analyze queue depth (w18) */
  if (rc == RPD_OK && c->w->flush) c->w->flush(c);
  job_stage(c->job, 2);
  names_free(&c->strs);
  pair_free(&c->gpuset);
  return rc;   /* B reads c->launches and c->threads, convert frees them */
}

/* B's part; a->gpus must be ready before the launch pass. */
static int part_b(conv *c, conv *a) {
  sorter launches;
  sorter_init(&launches, c->err);
  c->launches = &launches;
  c->peer = a;
  /* A's op lanes (for the flow ends) and gpus, and its walk of the links
   * beside the api pass, which says whether any link is B's (none in
   * ordinary traces: no scan of B's own; the launch pass waits for A's api
   * pass anyway) */
  job_wait(c->job, 2);
  int rc = a->links_seen && !a->links_behind ? RPD_OK : emit_links(c);
  c->gpus = a->gpus;
  c->ngpus = a->ngpus;
  if (rc == RPD_OK) rc = emit_launches(c);
  if (rc == RPD_OK) name_tracks(c);
  if (rc == RPD_OK && c->w->flush) c->w->flush(c);
  sorter_free(&launches);
  pair_free(&c->threads);
  pair_free(&c->queues);
  return rc;
}

typedef struct worker_b_arg {
  conv *b, *a;
} worker_b_arg;

static void *worker_b(void *arg) {
  worker_b_arg *w = arg;
  int rc = part_b(w->b, w->a);
  if (rc == RPD_OK) sink_flush(&w->b->out);
  pthread_mutex_lock(&w->b->job->mu);
  w->b->job->b_rc = rc;
  w->b->job->b_done = 1;
  pthread_cond_broadcast(&w->b->job->cv);
  pthread_mutex_unlock(&w->b->job->mu);
  return NULL;
}

/* Copy n bytes of `from` at *off to the end of `to`; 0 or -1. */
static int append_file(int to, int from, off_t *off, size_t n, char *buf, size_t cap) {
  while (n) {
    ssize_t k = copy_file_range(from, off, to, NULL, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    n -= (size_t)k;
  }
  while (n) {   /* no copy_file_range here: plain reads and writes */
    ssize_t k = pread(from, buf, n < cap ? n : cap, *off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    for (ssize_t w = 0; w < k;) {
      ssize_t x = write(to, buf + w, (size_t)(k - w));
      if (x < 0 && errno == EINTR) continue;
      if (x <= 0) return -1;
      w += x;
    }
    *off += k;
    n -= (size_t)k;
  }
  return 0;
}

/* Start B in a thread with its own connection and temp file; 0 when it
 * runs, -1 to run it after A instead. */
static int start_b(conv *a, conv *b, job *j, worker_b_arg *w, pthread_t *th) {
  const char *env = getenv("RPD2TRACING_THREADS");
  char *path;
  int fd;
  /* one worker unless asked: B's launch pass needs all of A's api pass, so
   * a second worker overlaps little (A's last sections) and its temp file
   * and copy cost ~10% more CPU (docs/rpd2tracing.md "Two workers") */
  /* and a file a second connection can open (not a trace in memory: a
   * rocprofv3 database read directly) */
  if (a->out.gz || !env || atoi(env) != 2 || !rpd_work_path(a->r)) return -1;
  if (rpd_sqlite_open(rpd_work_path(a->r), &b->db, SQLITE_OPEN_READONLY) != SQLITE_OK ||
      rpd_db_profile(b->db, RPD_OPEN_SCAN) != SQLITE_OK ||
      sqlite3_exec(b->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
    sqlite3_close(b->db);
    b->db = a->db;
    return -1;
  }
  sqlite3_busy_timeout(b->db, 5000);
  /* next to OUT's target (it has room for OUT), named like its rpd_outfile
   * temp so that a next run reclaims it should a kill -9 come before the
   * unlink; $TMPDIR when OUT is not a regular file */
  if (ofile) {
    path = rpd_temp_template(ofile->target);
  } else {
    const char *t = getenv("TMPDIR");
    path = rpd_xasprintf("%s/rpdtools-XXXXXX", t && *t ? t : "/tmp");
  }
  fd = mkostemp(path, O_CLOEXEC);
  if (fd >= 0) unlink(path);   /* gone at exit, even on kill -9 */
  free(path);
  if (fd < 0) {
    sqlite3_close(b->db);
    b->db = a->db;
    return -1;
  }
  b->out.fd = fd;
  b->out.notify = j;
  b->job = a->job = j;
  *w = (worker_b_arg){b, a};
  if (pthread_create(th, NULL, worker_b, w) != 0) {
    close(fd);
    sqlite3_close(b->db);
    b->db = a->db;
    b->out.fd = a->out.fd;
    b->out.notify = NULL;
    b->job = a->job = NULL;
    return -1;
  }
  return 0;
}

/* While B runs, append what it has written so far to OUT (through A's sink
 * when it writes directly: after A's last bytes); then join it.
 * The temp file's pages already copied are punched out (freed, never
 * written to the disk; whole pages only): its page cache stays small and
 * B's next writes reuse them (see sink_writeback). */
static int follow_b(conv *a, conv *b, job *j, pthread_t th) {
  off_t off = 0, punched = 0;
  int failed = 0, rc;
  for (;;) {
    pthread_mutex_lock(&j->mu);
    while (off == j->b_written && !j->b_done) pthread_cond_wait(&j->cv, &j->mu);
    off_t avail = j->b_written - off;
    int done = j->b_done;
    pthread_mutex_unlock(&j->mu);
    if (avail && !failed && !a->out.failed &&
        (a->out.dio ? sink_copy_from(&a->out, b->out.fd, &off, (size_t)avail)
                    : append_file(a->out.fd, b->out.fd, &off, (size_t)avail, a->out.buf, a->out.cap))) {
      failed = 1;
      a->out.err = errno;
    }
    sink_writeback(&a->out);
    if (failed || a->out.failed) off += avail;   /* keep draining; output is lost anyway */
    if ((off & ~(off_t)4095) > punched + WRITEBACK) {
      fallocate(b->out.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, punched,
                (off & ~(off_t)4095) - punched);
      punched = off & ~(off_t)4095;
    }
    if (done && off >= j->b_written) break;
  }
  pthread_join(th, NULL);
  rc = j->b_rc;
  if (failed) a->out.failed = 1;
  close(b->out.fd);
  b->out.fd = -1;
  sqlite3_exec(b->db, "COMMIT", NULL, NULL, NULL);
  sqlite3_close(b->db);
  b->db = NULL;
  return rc;
}

/* Every section into OUT; RPD_OK or the error (its text in a->err or
 * b->err). */
int convert_sections(conv *a, conv *b) {
  job j = {.stage = 0};
  sorter markers;
  labelstore marks;
  a->launches = &markers;
  labels_init(&marks, a->err);
  a->marks = &marks;
  worker_b_arg w;
  pthread_t th;
  int threaded, rc, rb = RPD_OK;
  pthread_mutex_init(&j.mu, NULL);
  pthread_cond_init(&j.cv, NULL);
  /* one read transaction: a consistent snapshot, and the file lock is
   * taken once instead of once per statement */
  if ((rc = rpd_exec(a->r, "BEGIN")) != RPD_OK) {
    cerr(a->err, rc, "%s", rpd_errmsg());
    return rc;
  }
  b->r = a->r;
  b->db = a->db;
  b->w = a->w;
  a->worker = 1;
  b->worker = 2;
  layout_init(&a->lay, LANE_TIDS_A);
  layout_init(&b->lay, LANE_TIDS_B);
  b->args_table = a->args_table;
  b->lo = a->lo;
  b->hi = a->hi;
  b->t_end = a->t_end;
  b->out.fd = a->out.fd;
  b->out.gz = a->out.gz;
  b->out.cap = SINK_CHUNK;
  b->out.buf = rpd_xmalloc(b->out.cap);
  b->out.nevents = 1;   /* A's events come first: every one of B's gets a comma */
  b->out.prealloc = -1;
  b->out.wb = -1;
  threaded = start_b(a, b, &j, &w, &th) == 0;
  rc = part_a(a);
  /* B's bytes go through A's sink in direct mode, else straight to OUT */
  if (rc != RPD_OK || (threaded && !a->out.dio)) sink_flush(&a->out);
  if (threaded) {
    rb = follow_b(a, b, &j, th);
  } else if (rc == RPD_OK) {
    sink_pass(&a->out, &b->out);   /* B appends to OUT itself: its disk writes too */
    rb = part_b(b, a);
    if (rb == RPD_OK) sink_flush(&b->out);
  }
  if (b->out.failed && !a->out.failed) {
    a->out.failed = 1;
    a->out.err = b->out.err;
  }
  sink_stop(&b->out);
  free(b->out.buf);
  b->out.buf = NULL;
  rpd_buf_free(&b->out.scratch);
  sorter_free(&markers);
  labels_free(&marks);
  pair_free(&a->threads);
  pair_free(&a->queues);
  if (a->w->done) {
    a->w->done(a);
    a->w->done(b);
  }
  layout_free(&a->lay);
  layout_free(&b->lay);
  idmap_free(&a->oplane);
  pair_free(&a->cpids);
  pair_free(&b->cpids);
  rpd_exec(a->r, "COMMIT");
  pthread_mutex_destroy(&j.mu);
  pthread_cond_destroy(&j.cv);
  if (rc == RPD_OK && rb != RPD_OK) {
    memcpy(a->err, b->err, ERR_MAX);
    rc = rb;
  }
  return rc;
}

/* Trace span for --start/--end (api calls, else ops) and the counter end
 * (last end of any api or op). */
