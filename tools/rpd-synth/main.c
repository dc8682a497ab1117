/* rpd-synth - write a deterministic synthetic RPD trace (schema v2 or v3).
 *
 * Every table a real rpd_tracer capture of a PyTorch/vLLM job fills is
 * filled: threads driving GPUs, nested roctx ranges, autograd markers,
 * kernel launches, async copies, graph capture and launches, idle gaps,
 * sclk samples.  The same options always give the same file content.
 * What exactly is generated is documented in docs/rpd-synth.md. */
#include "rpd.h"
#include "opt.h"
#include "util/num.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
"usage: rpd-synth [OPTIONS] -o OUT.rpd\n"
"Write a deterministic synthetic RPD trace: threads driving GPUs, nested\n"
"roctx ranges, PyTorch autograd markers, kernel launches, async copies,\n"
"HIP graph capture and launches, idle gaps and sclk samples.\n"
"\n"
"  -o, --output FILE  the trace to write (written to a temp file, renamed\n"
"                     at the end; OUT.gz is written compressed)\n"
"  --seed N           random seed (default 1); same options = same content\n"
"  --api N            exact number of rocpd_api rows (default 10000)\n"
"  --gpus N           number of GPUs (default 2, at most 64)\n"
"  --threads N        host threads; thread k drives GPU k %% gpus\n"
"                     (default: one per GPU; at least one per GPU)\n"
"  --schema 2|3       table layout (default 3)\n"
"  --graphs N         HIP graphs captured, round-robin over threads\n"
"                     (default: one per thread; 0 = no graphs)\n"
"  --stackframes      fill rocpd_stackframe (schema 3): a host stack of 4-6\n"
"                     frames per api call, as RPDT_STACKFRAMES=1 records\n"
"  --order step|end   how api rows are stored: step (default) writes each\n"
"                     thread's step whole, rows in end order within it;\n"
"                     end writes every row of every thread in completion\n"
"                     order (by end time), as rpd_tracer does\n"
"  --layers N         model steps are forward passes: a model.forward range\n"
"                     around N layer.I ranges (1..128; default: single layers)\n"
"  --no-autograd      markers carry plain op names (\"aten::mm\") instead of\n"
"                     autograd args (\"aten::mm, seq = 3, op_id = 5, ...\")\n"
"  --ranks N          one rank of an N-rank job (with --rank R, default 0):\n"
"                     every rank has the same structure (same seed), pid\n"
"                     4242+1000*R, metadata rank/world_size/hostname; the\n"
"                     last rank is a planted straggler (each collective\n"
"                     kernel starts 200 us late) and on rank N/2 the kernel\n"
"                     attn_fwd runs 3x longer (the planted slow kernel)\n"
"  --rank R           which rank to write (0..N-1)\n"
"  --clock-skew NS    shift rank R's clock by R*NS ns (tests clock alignment)\n"
"  --force            overwrite an existing non-empty OUT\n"
"  -h, --help         this text\n"
"\n"
"Prints one summary line (rows per table) on stdout.\n"
"Example: rpd-synth --seed 7 --api 1000000 -o big.rpd\n";

/* ------------------------------------------------------------ random */

typedef struct { uint64_t s; } rng;

static uint64_t rng_next(rng *r)   /* splitmix64 */
{
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static int64_t rng_range(rng *r, int64_t lo, int64_t hi)
{
  return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* 1 with probability pct/100. */
static int rng_pct(rng *r, int pct)
{
  return (int)(rng_next(r) % 100) < pct;
}

/* ------------------------------------------------------------ catalog */

enum kclass { K_GEMM, K_ELEM, K_SOFTMAX, K_NORM, K_ATTN, K_COMM, K_TOPK,
              K_MISC, K_HOSTILE, K_NCLASS };

typedef struct kdef {
  const char *name;
  int cls;
  int ext;              /* launched by hipExtModuleLaunchKernel */
  int dmin, dmax;       /* GPU duration, us */
  int grid, wg;
} kdef;

static const kdef kernels[] = {
  {"Cijk_Alik_Bljk_HHS_BH_MT256x256x64_MI32x32x8x1_SN_1LDSB1_AFC1_AFEM1_GRVW8_"
   "GSU1_K1_LBSPP128_LPB8_MIAV1_NLCA1_PGR2_PLR1_SIA3_SS1_SU32_SUM0_SUS256_TT4_64_"
   "USFGRO1_VAW2_VSn1_VW4_WSGRA1_WSGRB1_WS64_WG64_4_1", K_GEMM, 1, 20, 90, 1024, 256},
  {"Cijk_Alik_Bljk_HHS_BH_MT128x128x64_MI16x16x16x1_SN_1LDSB1_GRVW8_GSU1_K1_"
   "MIAV1_NLCA1_PGR2_PLR1_SIA3_SS1_TT2_32_VW2_WG64_4_1", K_GEMM, 1, 8, 40, 512, 256},
  {"Cijk_Ailk_Bljk_SB_MT64x32x16_SN_1LDSB0_GRVW4_GSU1_K1_PGR1_PLR1_TT4_4_VW4_"
   "WG16_8_1", K_GEMM, 1, 5, 30, 256, 128},
  {"void wvSpltK_hf_sml_<64, 4, 16, 8, 1, 4>(int, int, __half const*, __half "
   "const*, __half*, int, int)", K_GEMM, 0, 4, 25, 80, 64},
  {"_ZN4vllm25scaled_act_and_mul_kernelIN3c104HalfETnPFT_RKS3_EXadL_ZNS_11silu_"
   "kernelIS2_EES3_S5_EEEEvPNS1_15Float8_e4m3fnuzEPS4_if", K_ELEM, 0, 3, 20, 512, 256},
  {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor"
   "<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
   "at::detail::Array<char*, 1>)", K_ELEM, 0, 1, 6, 128, 256},
  {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at"
   "::native::CUDAFunctor_add<c10::Half> >(at::TensorIteratorBase&, at::native::"
   "CUDAFunctor_add<c10::Half> const&)::{lambda(int)#1}>(int, at::native::"
   "gpu_kernel_impl<at::native::CUDAFunctor_add<c10::Half> >(at::TensorIterator"
   "Base&, at::native::CUDAFunctor_add<c10::Half> const&)::{lambda(int)#1})",
   K_ELEM, 0, 2, 8, 256, 128},
  {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, float, float, "
   "float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, "
   "float const*, int)", K_SOFTMAX, 0, 4, 18, 64, 512},
  {"std::enable_if<(((8)>(0)))&&_typeConvert<c10::Half>::exists, void>::type "
   "vllm::fused_add_rms_norm_kernel<c10::Half, 8>(c10::Half*, c10::Half*, "
   "c10::Half const*, float, int, int)", K_NORM, 0, 3, 12, 32, 256},
  {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::"
   "Half, float>(int, float, c10::Half const*, c10::Half const*, c10::Half "
   "const*, float*, float*, c10::Half*)", K_NORM, 0, 3, 10, 32, 256},
  {"_Z32paged_attention_ll4mi_QKV_kernelIDF16_hLN4vllm18Fp8KVCacheDataTypeE1ELi32"
   "ELi128ELi256ELb1ELi4EEvPKT_PKT0_S7_ifPKiS9_iPKfiiiPfSB_PS2_PT1_fff",
   K_ATTN, 0, 30, 120, 256, 256},
  {"_Z35paged_attention_ll4mi_reduce_kernelIDF16_Li128ELi128ELi512EEvPT_PKfS3_"
   "PKS0_PKii", K_ATTN, 0, 3, 12, 64, 128},
  {"attn_fwd", K_ATTN, 1, 40, 200, 512, 256},
  {"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", K_COMM, 0, 20,
   300, 16, 512},
  {"void vllm::cross_device_reduce_1stage<c10::Half, 8>(vllm::RankData*, vllm::"
   "RankSignals, vllm::Signal*, c10::Half*, int, int)", K_COMM, 0, 10, 60, 80, 512},
  {"void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda"
   "::detail::TensorInfo<float const, unsigned int>, unsigned int, unsigned int, "
   "bool, unsigned int, unsigned int, at::cuda::detail::TensorInfo<float, "
   "unsigned int>, unsigned int, at::cuda::detail::TensorInfo<long, unsigned "
   "int>, unsigned int)", K_TOPK, 0, 5, 30, 64, 256},
  {"void vllm::rotary_embedding_kernel<c10::Half, true>(long const*, c10::Half*, "
   "c10::Half*, c10::Half const*, int, long, long, int, int, int)", K_MISC, 0, 2,
   9, 128, 128},
  {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native"
   "::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::"
   "ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned "
   "int, float, 4>)", K_MISC, 0, 3, 15, 64, 512},
  /* hostile names: quotes, backslashes, markup, a '|' and '=' */
  {"kernel_\"quoted\"_name<'single'>", K_HOSTILE, 0, 2, 6, 1, 64},
  {"void evil\\path<\\\"x\\\\y\\\">(char const*) | key = value", K_HOSTILE, 0,
   2, 6, 1, 64},
  {"<script>alert('rpd')</script>&amp;_kernel", K_HOSTILE, 0, 2, 6, 1, 64},
};
#define NKERNELS ((int)(sizeof kernels / sizeof kernels[0]))

static const char *const sizes_pool[] = {
  "[[512, 768], [768, 768]]", "[[1024, 768], [768, 768]]",
  "[[8, 4096], [4096, 4096]]", "[[16, 128, 64], [16, 64, 128]]",
  "[[32, 4096], [11008, 4096], []]", "[]",
};
#define NSIZES ((int)(sizeof sizes_pool / sizeof sizes_pool[0]))

static const char *const hostile_markers[] = {
  "range \"quoted\" \\ back | x = <script>alert(1)</script>",
  "step 'single' = \\\\server\\share",
};

/* ------------------------------------------------------------ state */

#define MAXROWS 8192        /* api rows of one step (a --layers 128 pass) */
#define MAXOPS 8192         /* ops of one step */
#define MAXLAYERS 128
#define ARGSLEN 200
#define T0 INT64_C(1700000000000000)
#define PID 4242
#define SLOW_KERNEL "attn_fwd"      /* --ranks: slow on rank N/2 */
#define STRAGGLE_NS 200000          /* --ranks: last rank's lateness */

enum rowkind { R_PLAIN, R_KERNEL, R_COPY };

typedef struct op_row {
  int gpu, queue;
  int64_t start, end;
  const char *desc, *type;
} op_row;

typedef struct api_row {
  int64_t start, end;
  int tid;
  const char *name;
  const char *domain;
  char args[ARGSLEN];
  int kind;
  const kdef *k;              /* R_KERNEL */
  int64_t grid, wg;
  int64_t size;               /* R_COPY */
  int ckind;
  uint64_t dst, src;
  int pinned;
  char stream[24];
  int op_first, op_n;         /* ops in the step buffer */
} api_row;

typedef struct graph {
  uint64_t graph, exec;
  int nk;
  const kdef *k[16];
} graph;

typedef struct thr {
  int idx, tid, gpu, kq, cq;   /* kernel and copy queue ids */
  char kstream[24], cstream[24];
  int64_t now;
  int64_t kfree, cfree;        /* when each queue drains */
  int64_t seq, opid;           /* autograd counters */
  int layer;
  int hostile_done;
  int64_t straggle_ns;         /* --ranks: delay before each collective */
  int slow_attn;               /* --ranks: attn_fwd runs 3x longer */
  int ngraph, ngraph_want;
  graph graphs[8];
  rng r;
} thr;

typedef struct step {          /* rows of one step, in end order */
  api_row rows[MAXROWS];
  int nrows;
  op_row ops[MAXOPS];
  int nops;
  int overflow;
} step;

typedef struct strmap {        /* string -> id, open addressing */
  char **key;
  int64_t *id;
  size_t cap, n;
} strmap;

/* --order end: a built row waiting for its turn (rows go out by end time,
 * then by build order). */
typedef struct pending {
  api_row a;                   /* a.op_first = 0: ops are its own copy */
  op_row *ops;
  int gpu;
  int64_t seq;
} pending;

typedef struct synth {
  int schema, gpus, threads, graphs, autograd;
  int order_end;               /* --order end */
  int layers;                  /* --layers N, 0 = single layer steps */
  pending **pend;              /* --order end: min-heap by (end, seq) */
  size_t npend, cappend;
  int64_t pend_seq;
  int stackframes;             /* --stackframes: rocpd_stackframe rows */
  sqlite3_stmt *ins_frame;
  int64_t n_frame;
  int64_t api_want, seed;
  int64_t ranks, rank, clock_skew;   /* --ranks, --rank, --clock-skew */
  int64_t pid, t0;                   /* this rank's pid and clock origin */
  sqlite3 *db;
  sqlite3_stmt *ins_api, *ins_op, *ins_link, *ins_kernel, *ins_copy,
      *ins_str, *ins_ustr, *ins_mon;
  strmap strings;
  int64_t next_str, next_ustr;
  int64_t n_api, n_op, n_link, n_kernel, n_copy, n_mon;
  int64_t t_end;
  thr *thr;
  rpd_buf indexes;             /* CREATE INDEX text, run at the end */
  step st;
} synth;

/* ------------------------------------------------------------ strings */

static uint64_t hash_str(const char *s)
{
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

static void strmap_grow(strmap *m)
{
  size_t ncap = m->cap ? m->cap * 2 : 4096;
  char **nk = rpd_xcalloc(ncap, sizeof *nk);
  int64_t *ni = rpd_xcalloc(ncap, sizeof *ni);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->key[i])
      continue;
    size_t j = hash_str(m->key[i]) & (ncap - 1);
    while (nk[j])
      j = (j + 1) & (ncap - 1);
    nk[j] = m->key[i];
    ni[j] = m->id[i];
  }
  free(m->key);
  free(m->id);
  m->key = nk;
  m->id = ni;
  m->cap = ncap;
}

static void strmap_free(strmap *m)
{
  for (size_t i = 0; i < m->cap; i++)
    free(m->key[i]);
  free(m->key);
  free(m->id);
}

/* Step a write statement to completion and reset it; SQLite status. */
static int put(sqlite3_stmt *st)
{
  int src = sqlite3_step(st);
  sqlite3_reset(st);
  return src == SQLITE_DONE ? SQLITE_OK : src;
}

/* Id of s in rocpd_string, inserting it when new. */
static int string_id(synth *s, const char *str, int64_t *id)
{
  strmap *m = &s->strings;
  size_t j;
  if ((m->n + 1) * 2 > m->cap)
    strmap_grow(m);
  j = hash_str(str) & (m->cap - 1);
  while (m->key[j]) {
    if (strcmp(m->key[j], str) == 0) {
      *id = m->id[j];
      return SQLITE_OK;
    }
    j = (j + 1) & (m->cap - 1);
  }
  m->key[j] = rpd_xstrdup(str);
  m->id[j] = *id = s->next_str++;
  m->n++;
  sqlite3_bind_int64(s->ins_str, 1, *id);
  sqlite3_bind_text(s->ins_str, 2, str, -1, SQLITE_STATIC);
  return put(s->ins_str);
}

/* Id of an api args string: v2 interns it in rocpd_string; v3 appends a new
 * rocpd_ustring row per non-empty args, as the tracer does ("" is id 1). */
static int args_id(synth *s, const char *str, int64_t *id)
{
  if (s->schema == 2)
    return string_id(s, str, id);
  if (!*str) {
    *id = 1;
    return SQLITE_OK;
  }
  *id = s->next_ustr++;
  sqlite3_bind_int64(s->ins_ustr, 1, *id);
  sqlite3_bind_text(s->ins_ustr, 2, str, -1, SQLITE_STATIC);
  return put(s->ins_ustr);
}

/* ------------------------------------------------------------ step building */

static api_row *add_row(step *st, thr *t, const char *name, const char *domain,
                        int64_t start, int64_t end)
{
  api_row *a;
  if (st->nrows >= MAXROWS) {
    st->overflow = 1;
    a = &st->rows[MAXROWS - 1];
  } else {
    a = &st->rows[st->nrows++];
  }
  memset(a, 0, sizeof *a);
  a->tid = t->tid;
  a->name = name;
  a->domain = domain;
  a->start = start;
  a->end = end;
  return a;
}

static op_row *add_op(step *st, api_row *a, int gpu, int queue, int64_t start,
                      int64_t end, const char *desc, const char *type)
{
  op_row *o;
  if (st->nops >= MAXOPS) {
    st->overflow = 1;
    return &st->ops[MAXOPS - 1];
  }
  if (a->op_n == 0)
    a->op_first = st->nops;
  a->op_n++;
  o = &st->ops[st->nops++];
  o->gpu = gpu;
  o->queue = queue;
  o->start = start;
  o->end = end;
  o->desc = desc;
  o->type = type;
  return o;
}

/* CPU time passes. */
static void cpu(thr *t, int64_t lo_ns, int64_t hi_ns)
{
  t->now += rng_range(&t->r, lo_ns, hi_ns);
}

/* A kernel launch of k at t->now; its op queues behind earlier work. */
static void launch(step *st, thr *t, const kdef *k)
{
  int64_t start = t->now;
  int64_t dur = k->ext ? rng_range(&t->r, 4000, 10000) : rng_range(&t->r, 3000, 8000);
  api_row *a;
  int64_t ostart, oend;

  cpu(t, dur, dur);
  a = add_row(st, t, k->ext ? "hipExtModuleLaunchKernel" : "hipLaunchKernel",
              "hip", start, t->now);
  a->kind = R_KERNEL;
  a->k = k;
  a->grid = k->grid * rng_range(&t->r, 1, 4);
  a->wg = k->wg;
  strcpy(a->stream, t->kstream);
  ostart = a->end + rng_range(&t->r, 2000, 15000);
  if (ostart < t->kfree)
    ostart = t->kfree;
  if (k->cls == K_COMM)
    ostart += t->straggle_ns;     /* the planted straggler arrives late */
  oend = ostart + rng_range(&t->r, k->dmin, k->dmax) * 1000 + rng_range(&t->r, 0, 999);
  t->kfree = oend;
  /* the planted slow kernel: 3x longer, without delaying the queue (so the
   * rank's timeline, and its arrival at collectives, stay the same) */
  if (t->slow_attn && strcmp(k->name, SLOW_KERNEL) == 0)
    oend += 2 * (oend - ostart);
  add_op(st, a, t->gpu, t->kq, ostart, oend, k->name, "KernelExecution");
  cpu(t, 500, 3000);
}

/* A kernel of class cls, chosen by the thread's rng (never hostile). */
static const kdef *pick(thr *t, int cls)
{
  int n = 0, i, want;
  for (i = 0; i < NKERNELS; i++)
    n += kernels[i].cls == cls;
  want = (int)rng_range(&t->r, 0, n - 1);
  for (i = 0; i < NKERNELS; i++)
    if (kernels[i].cls == cls && want-- == 0)
      return &kernels[i];
  return &kernels[0];
}

/* hipMemcpyAsync of `kind` (1 H2D, 2 D2H, 3 D2D) on the copy stream. */
static void memcpy_async(step *st, thr *t, int kind)
{
  static const int64_t sizes[] = {4096, 65536, 1048576, 16777216};
  static const char *const types[] = {"", "CopyHostToDevice",
                                      "CopyDeviceToHost", "CopyDeviceToDevice"};
  int64_t start = t->now, size = sizes[rng_range(&t->r, 0, 3)];
  int64_t ostart, oend, gbps = kind == 3 ? 400 : 25;
  api_row *a;

  cpu(t, 3000, 10000);
  a = add_row(st, t, "hipMemcpyAsync", "hip", start, t->now);
  a->kind = R_COPY;
  a->size = size;
  a->ckind = kind;
  a->pinned = kind != 3 && rng_pct(&t->r, 50);
  a->dst = 0x7f0000000000ULL | (rng_next(&t->r) & 0xffffffff00ULL);
  a->src = 0x7f0000000000ULL | (rng_next(&t->r) & 0xffffffff00ULL);
  strcpy(a->stream, t->cstream);
  ostart = a->end + rng_range(&t->r, 1000, 8000);
  if (ostart < t->cfree)
    ostart = t->cfree;
  oend = ostart + 1000 + size / gbps;
  t->cfree = oend;
  add_op(st, a, t->gpu, t->cq, ostart, oend, "", types[kind]);
  cpu(t, 500, 2000);
}

/* Open a UserMarker range: returns its start; close_range appends the row
 * (so parents follow their children, in end order, as the tracer writes). */
static int64_t open_range(thr *t)
{
  int64_t start = t->now;
  cpu(t, 500, 2000);
  return start;
}

static void close_range(step *st, thr *t, int64_t start, const char *msg)
{
  api_row *a;
  cpu(t, 500, 2000);
  a = add_row(st, t, "UserMarker", "UserMarker", start, t->now);
  snprintf(a->args, sizeof a->args, "%s", msg);
}

/* The marker text of one autograd op (four forms, as PyTorch emits them). */
static void autograd_args(synth *s, thr *t, char *buf, const char *name,
                          int64_t seq, int64_t opid)
{
  const char *sz = sizes_pool[rng_range(&t->r, 0, NSIZES - 1)];
  char inputs[64];
  int form = (int)rng_range(&t->r, 0, 99);

  if (!s->autograd) {
    snprintf(buf, ARGSLEN, "%s", name);
    return;
  }
  if (opid <= 1)
    snprintf(inputs, sizeof inputs, "[0]");
  else if (opid == 2 || rng_pct(&t->r, 50))
    snprintf(inputs, sizeof inputs, "[%" PRId64 "]", opid - 1);
  else
    snprintf(inputs, sizeof inputs, "[%" PRId64 ", %" PRId64 "]", opid - 1,
             opid - 2);
  if (form < 50)
    snprintf(buf, ARGSLEN, "%s, seq = %" PRId64 ", op_id = %" PRId64
             ", sizes = %s, input_op_ids = %s", name, seq, opid, sz, inputs);
  else if (form < 65)
    snprintf(buf, ARGSLEN, "%s, op_id = %" PRId64 ", sizes = %s, input_op_ids = %s",
             name, opid, sz, inputs);
  else if (form < 80)
    snprintf(buf, ARGSLEN, "%s, seq = %" PRId64 ", op_id = %" PRId64, name, seq, opid);
  else
    snprintf(buf, ARGSLEN, "%s, op_id = %" PRId64, name, opid);
}

/* One autograd op: a marker around an optional child op and kernels. */
static void aten(synth *s, step *st, thr *t, const char *name, const char *child,
                 int cls, int nk)
{
  char msg[ARGSLEN];
  int64_t seq = t->seq, opid = ++t->opid;
  int64_t start = open_range(t);

  autograd_args(s, t, msg, name, seq, opid);
  if (child)
    aten(s, st, t, child, NULL, cls, nk);
  else
    for (int i = 0; i < nk; i++)
      launch(st, t, pick(t, cls));
  close_range(st, t, start, msg);
}

static void attention(synth *s, step *st, thr *t)
{
  int64_t start = open_range(t);
  aten(s, st, t, "aten::linear", "aten::addmm", K_GEMM, 1);
  launch(st, t, pick(t, K_MISC));
  launch(st, t, pick(t, K_ATTN));
  if (rng_pct(&t->r, 50))
    launch(st, t, pick(t, K_ATTN));
  aten(s, st, t, "aten::linear", "aten::mm", K_GEMM, 1);
  close_range(st, t, start, "attention");
}

static void mlp(synth *s, step *st, thr *t)
{
  int64_t start = open_range(t);
  aten(s, st, t, "aten::linear", "aten::addmm", K_GEMM, 1);
  aten(s, st, t, rng_pct(&t->r, 50) ? "aten::relu" : "aten::silu", NULL, K_ELEM, 1);
  aten(s, st, t, "aten::matmul", "aten::mm", K_GEMM, 1 + rng_pct(&t->r, 30));
  close_range(st, t, start, "mlp");
}

/* The work of a transformer layer: norm, attention, mlp, sometimes an
 * all-reduce. */
static void layer_body(synth *s, step *st, thr *t)
{
  t->seq++;
  t->opid = 0;
  aten(s, st, t, "aten::layer_norm", "aten::native_layer_norm", K_NORM, 1);
  attention(s, st, t);
  if (rng_pct(&t->r, 30))
    aten(s, st, t, "aten::empty", NULL, K_ELEM, 0);
  mlp(s, st, t);
  if (rng_pct(&t->r, 25)) {
    int64_t ar = open_range(t);
    launch(st, t, pick(t, K_COMM));
    close_range(st, t, ar, "all_reduce");
  }
}

/* A transformer layer: optional layer range around its work. */
static void layer(synth *s, step *st, thr *t)
{
  char name[32];
  int ranged = rng_pct(&t->r, 60);
  int64_t start = ranged ? open_range(t) : 0;

  layer_body(s, st, t);
  if (ranged) {
    snprintf(name, sizeof name, "layer.%d", t->layer);
    close_range(st, t, start, name);
  }
  t->layer = (t->layer + 1) % 32;
}

/* --layers N: a forward pass of an N-layer model, a model.forward range
 * around N layer.I ranges (nesting 6 deep at the launches). */
static void forward(synth *s, step *st, thr *t)
{
  char name[32];
  int64_t start = open_range(t);
  for (int i = 0; i < s->layers; i++) {
    int64_t ls = open_range(t);
    layer_body(s, st, t);
    snprintf(name, sizeof name, "layer.%d", i);
    close_range(st, t, ls, name);
  }
  close_range(st, t, start, "model.forward");
}

static void sampler(synth *s, step *st, thr *t)
{
  int64_t start = open_range(t);
  t->seq++;
  t->opid = 0;
  aten(s, st, t, "aten::softmax", "aten::_softmax", K_SOFTMAX, 1);
  aten(s, st, t, "aten::topk", NULL, K_TOPK, 1);
  memcpy_async(st, t, 2);
  close_range(st, t, start, "sampler");
}

static void copies(synth *s, step *st, thr *t)
{
  int64_t start = open_range(t);
  char msg[ARGSLEN];
  t->seq++;
  t->opid = 1;
  autograd_args(s, t, msg, "aten::copy_", t->seq, 1);
  memcpy_async(st, t, 1);
  if (rng_pct(&t->r, 50))
    memcpy_async(st, t, 3);
  close_range(st, t, start, msg);
}

/* hipDeviceSynchronize: returns when this thread's queues drain; then maybe
 * an idle gap on the host, which leaves the GPU idle. */
static void sync_idle(step *st, thr *t)
{
  int64_t start = t->now, done = t->kfree > t->cfree ? t->kfree : t->cfree;
  if (done < t->now)
    done = t->now;
  t->now = done + rng_range(&t->r, 1000, 4000);
  add_row(st, t, "hipDeviceSynchronize", "hip", start, t->now);
  if (rng_pct(&t->r, 70))
    cpu(t, 100000, 3000000);
}

/* A zero-length roctx mark (start == end). */
static void mark(step *st, thr *t)
{
  api_row *a = add_row(st, t, "UserMarker", "UserMarker", t->now, t->now);
  snprintf(a->args, sizeof a->args, "mark step %d", t->layer);
  cpu(t, 200, 1000);
}

/* Once per run, on thread 0: every hostile kernel name, inside a range with
 * a hostile message, and a second hostile zero-length mark. */
static void hostile(step *st, thr *t)
{
  int64_t start = open_range(t);
  api_row *a;
  for (int i = 0; i < NKERNELS; i++)
    if (kernels[i].cls == K_HOSTILE)
      launch(st, t, &kernels[i]);
  close_range(st, t, start, hostile_markers[0]);
  a = add_row(st, t, "UserMarker", "UserMarker", t->now, t->now);
  snprintf(a->args, sizeof a->args, "%s", hostile_markers[1]);
  t->hostile_done = 1;
}

static void gaddr(char *buf, uint64_t v)
{
  snprintf(buf, 24, "0x%" PRIx64, v);
}

/* Capture a graph on the thread's kernel stream: BeginCapture, the launches
 * (kernelapi rows, no ops), EndCapture, Instantiate. */
static void capture(step *st, thr *t, int gindex)
{
  graph *g = &t->graphs[t->ngraph];
  char sbuf[24], gbuf[24], ebuf[24];
  int64_t start = t->now;
  api_row *a;

  g->graph = 0x77cc0000ULL + 0x20ULL * (uint64_t)gindex;
  g->exec = 0x88dd0000ULL + 0x20ULL * (uint64_t)gindex;
  g->nk = (int)rng_range(&t->r, 4, 12);
  gaddr(sbuf, strtoull(t->kstream, NULL, 16));
  gaddr(gbuf, g->graph);
  gaddr(ebuf, g->exec);
  cpu(t, 2000, 5000);
  a = add_row(st, t, "hipStreamBeginCapture", "hip", start, t->now);
  snprintf(a->args, sizeof a->args, "stream = %s | mode = 0", sbuf);
  cpu(t, 500, 2000);
  for (int i = 0; i < g->nk; i++) {
    static const int cls[] = {K_NORM, K_GEMM, K_ATTN, K_ELEM, K_GEMM, K_COMM};
    g->k[i] = pick(t, cls[i % 6]);
    start = t->now;
    cpu(t, 2000, 4000);
    a = add_row(st, t, g->k[i]->ext ? "hipExtModuleLaunchKernel" : "hipLaunchKernel",
                "hip", start, t->now);
    a->kind = R_KERNEL;
    a->k = g->k[i];
    a->grid = g->k[i]->grid;
    a->wg = g->k[i]->wg;
    strcpy(a->stream, t->kstream);
    cpu(t, 300, 1500);
  }
  start = t->now;
  cpu(t, 3000, 6000);
  a = add_row(st, t, "hipStreamEndCapture", "hip", start, t->now);
  snprintf(a->args, sizeof a->args, "stream = %s | graph = %s", sbuf, gbuf);
  cpu(t, 500, 2000);
  start = t->now;
  cpu(t, 50000, 150000);
  a = add_row(st, t, "hipGraphInstantiate", "hip", start, t->now);
  snprintf(a->args, sizeof a->args, "graphExec = %s | graph = %s", ebuf, gbuf);
  cpu(t, 500, 2000);
  t->ngraph++;
}

/* hipGraphLaunch of one of the thread's graphs: one api row, one Task op
 * per captured kernel, back to back on the kernel queue. */
static void graph_launch(step *st, thr *t)
{
  graph *g = &t->graphs[rng_range(&t->r, 0, t->ngraph - 1)];
  char ebuf[24], sbuf[24];
  int64_t start = t->now, ostart;
  api_row *a;

  cpu(t, 8000, 15000);
  a = add_row(st, t, "hipGraphLaunch", "hip", start, t->now);
  gaddr(ebuf, g->exec);
  gaddr(sbuf, strtoull(t->kstream, NULL, 16));
  snprintf(a->args, sizeof a->args, "graphExec = %s | stream = %s", ebuf, sbuf);
  ostart = a->end + rng_range(&t->r, 5000, 20000);
  if (ostart < t->kfree)
    ostart = t->kfree;
  for (int i = 0; i < g->nk; i++) {
    const kdef *k = g->k[i];
    int64_t oend;
    if (k->cls == K_COMM)
      ostart += t->straggle_ns;   /* the planted straggler arrives late */
    oend = ostart + rng_range(&t->r, k->dmin, k->dmax) * 1000;
    add_op(st, a, t->gpu, t->kq, ostart,
           t->slow_attn && strcmp(k->name, SLOW_KERNEL) == 0
               ? oend + 2 * (oend - ostart) : oend, k->name, "Task");
    ostart = oend + rng_range(&t->r, 0, 1) * 1000;
    t->kfree = oend;
  }
  cpu(t, 1000, 3000);
}

/* Fill the step with the thread's next piece of work. */
static void build_step(synth *s, step *st, thr *t)
{
  int roll;
  st->nrows = st->nops = st->overflow = 0;
  if (t->ngraph < t->ngraph_want) {
    capture(st, t, t->idx + s->threads * t->ngraph);
    return;
  }
  if (t->idx == 0 && !t->hostile_done) {
    hostile(st, t);
    return;
  }
  roll = (int)rng_range(&t->r, 0, 99);
  if (roll < 3)
    sync_idle(st, t);
  else if (roll < 6)
    mark(st, t);
  else if (roll < 20 && t->ngraph > 0)
    graph_launch(st, t);
  else if (roll < 28)
    sampler(s, st, t);
  else if (roll < 36)
    copies(s, st, t);
  else if (s->layers)
    forward(s, st, t);
  else
    layer(s, st, t);
  /* Ties: a quarter of the steps begin on the very ns the last one ended. */
  if (!rng_pct(&t->r, 25))
    cpu(t, 1000, 20000);
}

/* A one-row filler used when the next step does not fit the row budget. */
static void filler(step *st, thr *t)
{
  int64_t start = t->now;
  st->nrows = st->nops = st->overflow = 0;
  cpu(t, 500, 1500);
  add_row(st, t, "hipGetLastError", "hip", start, t->now);
  cpu(t, 500, 1500);
}

/* ------------------------------------------------------------ writing */

static int write_op(synth *s, const op_row *o, int64_t api_id)
{
  int64_t desc, type, id = ++s->n_op;
  int rc = string_id(s, o->desc, &desc);
  if (rc == SQLITE_OK)
    rc = string_id(s, o->type, &type);
  if (rc)
    return rc;
  sqlite3_bind_int64(s->ins_op, 1, id);
  sqlite3_bind_int64(s->ins_op, 2, o->gpu);
  sqlite3_bind_int64(s->ins_op, 3, o->queue);
  sqlite3_bind_int64(s->ins_op, 4, 0);
  sqlite3_bind_int64(s->ins_op, 5, o->start);
  sqlite3_bind_int64(s->ins_op, 6, o->end);
  sqlite3_bind_int64(s->ins_op, 7, desc);
  sqlite3_bind_int64(s->ins_op, 8, type);
  rc = put(s->ins_op);
  if (rc)
    return rc;
  if (o->end > s->t_end)
    s->t_end = o->end;
  sqlite3_bind_int64(s->ins_link, 1, ++s->n_link);
  sqlite3_bind_int64(s->ins_link, 2, api_id);
  sqlite3_bind_int64(s->ins_link, 3, id);
  return put(s->ins_link);
}

static int write_kernelapi(synth *s, const api_row *a, int64_t api_id)
{
  int64_t kname;
  int rc = string_id(s, a->k->name, &kname);
  if (rc)
    return rc;
  sqlite3_bind_int64(s->ins_kernel, 1, api_id);
  sqlite3_bind_text(s->ins_kernel, 2, a->stream, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s->ins_kernel, 3, a->grid);
  sqlite3_bind_int64(s->ins_kernel, 4, 1);
  sqlite3_bind_int64(s->ins_kernel, 5, 1);
  sqlite3_bind_int64(s->ins_kernel, 6, a->wg);
  sqlite3_bind_int64(s->ins_kernel, 7, 1);
  sqlite3_bind_int64(s->ins_kernel, 8, 1);
  sqlite3_bind_int64(s->ins_kernel, 9, a->k->cls == K_GEMM ? 65536 : 0);
  sqlite3_bind_int64(s->ins_kernel, 10, 0);
  sqlite3_bind_int64(s->ins_kernel, 11, kname);
  s->n_kernel++;
  return put(s->ins_kernel);
}

static int write_copyapi(synth *s, const api_row *a, int64_t api_id, int gpu)
{
  char dst[24], src[24];
  gaddr(dst, a->dst);
  gaddr(src, a->src);
  sqlite3_bind_int64(s->ins_copy, 1, api_id);
  sqlite3_bind_text(s->ins_copy, 2, a->stream, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s->ins_copy, 3, a->size);
  sqlite3_bind_int64(s->ins_copy, 4, 0);
  sqlite3_bind_int64(s->ins_copy, 5, 0);
  sqlite3_bind_int64(s->ins_copy, 6, a->ckind);
  sqlite3_bind_text(s->ins_copy, 7, dst, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s->ins_copy, 8, src, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s->ins_copy, 9, gpu);
  sqlite3_bind_int64(s->ins_copy, 10, gpu);
  sqlite3_bind_int64(s->ins_copy, 11, 0);
  sqlite3_bind_int64(s->ins_copy, 12, a->pinned);
  s->n_copy++;
  return put(s->ins_copy);
}

/* --------------------------------------------------------- stackframes */

/* The host stack of one api call (--stackframes): deterministic in the
 * call's name and thread, so the same call site always has the same stack
 * and the other tables are the same with or without the option.  Depth 0
 * is the innermost frame (the caller of the api), as rpd_tracer writes;
 * 4 to 6 frames. */
static int write_stackframes(synth *s, const api_row *a, int64_t api_id)
{
  static const char *const outer[] = {
    "_start", "__libc_start_main", "main", "PyEval_EvalFrameDefault"
  };
  static const char *const mid[] = {
    "train_step (train.py:88)", "forward (model.py:41)", "backward (autograd.py:200)",
    "optimizer_step (optim.py:12)", "decode_step (serve.py:57)"
  };
  uint64_t h = hash_str(a->name) ^ ((uint64_t)a->tid * 0x9e3779b97f4a7c15ULL);
  int nouter = 2 + (int)(h % 3);            /* 2..4 outer frames: 4..6 in all */
  char leaf[160];
  snprintf(leaf, sizeof leaf, "at::hip::call_%s (libtorch_hip.so)", a->name);
  const char *frames[6];
  int n = 0;
  frames[n++] = leaf;                                   /* depth 0 */
  frames[n++] = mid[(h >> 8) % (sizeof mid / sizeof mid[0])];
  for (int i = nouter - 1; i >= 0; i--)
    frames[n++] = outer[4 - nouter + i];
  int rc = SQLITE_OK;
  for (int d = 0; d < n && rc == SQLITE_OK; d++) {
    int64_t name;
    rc = string_id(s, frames[d], &name);
    if (rc)
      break;
    sqlite3_bind_int64(s->ins_frame, 1, api_id);
    sqlite3_bind_int64(s->ins_frame, 2, d);
    sqlite3_bind_int64(s->ins_frame, 3, name);
    rc = put(s->ins_frame);
    s->n_frame++;
  }
  return rc;
}

/* One api row with its stack frames, kernelapi/copyapi row and ops (its
 * ops are ops[a->op_first ...]). */
static int write_api(synth *s, const api_row *a, const op_row *ops, int gpu)
{
  int64_t name, args, domain = 0, id = ++s->n_api;
  int rc = string_id(s, a->name, &name);
  if (rc == SQLITE_OK && s->schema == 3)
    rc = string_id(s, a->domain, &domain);
  if (rc == SQLITE_OK)
    rc = args_id(s, a->args, &args);
  if (rc)
    return rc;
  sqlite3_bind_int64(s->ins_api, 1, id);
  sqlite3_bind_int64(s->ins_api, 2, s->pid);
  sqlite3_bind_int64(s->ins_api, 3, a->tid);
  sqlite3_bind_int64(s->ins_api, 4, a->start);
  sqlite3_bind_int64(s->ins_api, 5, a->end);
  sqlite3_bind_int64(s->ins_api, 6, name);
  sqlite3_bind_int64(s->ins_api, 7, args);
  if (s->schema == 3) {
    sqlite3_bind_int64(s->ins_api, 8, domain);
    sqlite3_bind_int64(s->ins_api, 9, 1);   /* category: "" */
  }
  rc = put(s->ins_api);
  if (rc == SQLITE_OK && s->stackframes)
    rc = write_stackframes(s, a, id);
  if (a->end > s->t_end)
    s->t_end = a->end;
  if (rc == SQLITE_OK && a->kind == R_KERNEL)
    rc = write_kernelapi(s, a, id);
  if (rc == SQLITE_OK && a->kind == R_COPY)
    rc = write_copyapi(s, a, id, gpu);
  for (int i = 0; rc == SQLITE_OK && i < a->op_n; i++)
    rc = write_op(s, &ops[a->op_first + i], id);
  return rc;
}

static int write_step(synth *s, int gpu)
{
  int rc = SQLITE_OK;
  for (int i = 0; rc == SQLITE_OK && i < s->st.nrows; i++)
    rc = write_api(s, &s->st.rows[i], s->st.ops, gpu);
  return rc;
}

/* --order end: heap order, by end time and then build order. */
static int pend_less(const pending *x, const pending *y)
{
  return x->a.end != y->a.end ? x->a.end < y->a.end : x->seq < y->seq;
}

/* --order end: queue the step's rows (each with a copy of its ops). */
static void queue_step(synth *s, int gpu)
{
  for (int i = 0; i < s->st.nrows; i++) {
    pending *p = rpd_xcalloc(1, sizeof *p);
    size_t k;
    p->a = s->st.rows[i];
    p->gpu = gpu;
    p->seq = s->pend_seq++;
    if (p->a.op_n) {
      p->ops = rpd_xcalloc((size_t)p->a.op_n, sizeof *p->ops);
      memcpy(p->ops, &s->st.ops[p->a.op_first], (size_t)p->a.op_n * sizeof *p->ops);
    }
    p->a.op_first = 0;
    if (s->npend == s->cappend) {
      s->cappend = s->cappend ? 2 * s->cappend : 1024;
      s->pend = rpd_xrealloc(s->pend, s->cappend * sizeof *s->pend);
    }
    for (k = s->npend++; k > 0 && pend_less(p, s->pend[(k - 1) / 2]); k = (k - 1) / 2)
      s->pend[k] = s->pend[(k - 1) / 2];
    s->pend[k] = p;
  }
}

/* --order end: write (and free) the queued rows that end before `before`
 * (no row built later can end before it), in order. */
static int flush_pending(synth *s, int64_t before)
{
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK && s->npend && s->pend[0]->a.end < before) {
    pending *top = s->pend[0], *last = s->pend[--s->npend];
    size_t k = 0;
    for (;;) {
      size_t c = 2 * k + 1;
      if (c >= s->npend)
        break;
      if (c + 1 < s->npend && pend_less(s->pend[c + 1], s->pend[c]))
        c++;
      if (!pend_less(s->pend[c], last))
        break;
      s->pend[k] = s->pend[c];
      k = c;
    }
    if (s->npend)
      s->pend[k] = last;
    rc = write_api(s, &top->a, top->ops, top->gpu);
    free(top->ops);
    free(top);
  }
  return rc;
}

/* sclk samples: per GPU, contiguous 1 ms intervals (longer for long traces,
 * at most ~2000 per GPU) over the whole trace; values 800..2100 MHz in steps
 * of 100 from their own rng (idle periods are not modelled). */
static int write_monitor(synth *s)
{
  int64_t span = s->t_end - s->t0, step_ns = 1000000, n;
  int rc = SQLITE_OK;
  rng r = {(uint64_t)s->seed * 7919 + 17};
  char val[16];

  while (span / step_ns > 2000)
    step_ns *= 10;
  n = span / step_ns + 1;
  for (int g = 0; g < s->gpus && rc == SQLITE_OK; g++)
    for (int64_t i = 0; i < n && rc == SQLITE_OK; i++) {
      snprintf(val, sizeof val, "%d", (int)rng_range(&r, 8, 21) * 100);
      sqlite3_bind_text(s->ins_mon, 1, "gpu", -1, SQLITE_STATIC);
      sqlite3_bind_int64(s->ins_mon, 2, g);
      sqlite3_bind_text(s->ins_mon, 3, "sclk", -1, SQLITE_STATIC);
      sqlite3_bind_int64(s->ins_mon, 4, s->t0 + i * step_ns);
      sqlite3_bind_int64(s->ins_mon, 5, s->t0 + (i + 1) * step_ns);
      sqlite3_bind_text(s->ins_mon, 6, val, -1, SQLITE_TRANSIENT);
      rc = put(s->ins_mon);
      s->n_mon++;
    }
  return rc;
}

static int prepare_all(synth *s)
{
  const char *api = s->schema == 3
      ? "INSERT INTO rocpd_api(id, pid, tid, start, \"end\", apiName_id, "
        "args_id, domain_id, category_id) VALUES (?,?,?,?,?,?,?,?,?)"
      : "INSERT INTO rocpd_api(id, pid, tid, start, \"end\", apiName_id, "
        "args_id) VALUES (?,?,?,?,?,?,?)";
  const char *op = s->schema == 3
      ? "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, \"end\", "
        "description_id, opType_id) VALUES (?,?,?,?,?,?,?,?)"
      : "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, \"end\", "
        "description_id, opType_id, completionSignal) VALUES (?,?,?,?,?,?,?,?,'')";
  struct { sqlite3_stmt **st; const char *sql; } p[] = {
    {&s->ins_api, api},
    {&s->ins_op, op},
    {&s->ins_link, "INSERT INTO rocpd_api_ops(id, api_id, op_id) VALUES (?,?,?)"},
    {&s->ins_kernel, "INSERT INTO rocpd_kernelapi(api_ptr_id, stream, gridX, "
     "gridY, gridZ, workgroupX, workgroupY, workgroupZ, groupSegmentSize, "
     "privateSegmentSize, kernelName_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)"},
    {&s->ins_copy, "INSERT INTO rocpd_copyapi(api_ptr_id, stream, size, width, "
     "height, kind, dst, src, dstDevice, srcDevice, sync, pinned) VALUES "
     "(?,?,?,?,?,?,?,?,?,?,?,?)"},
    {&s->ins_str, "INSERT INTO rocpd_string(id, string) VALUES (?,?)"},
    {&s->ins_ustr, s->schema == 3
     ? "INSERT INTO rocpd_ustring(id, string) VALUES (?,?)" : "SELECT ?, ?"},
    {&s->ins_mon, "INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType, "
     "start, \"end\", value) VALUES (?,?,?,?,?,?)"},
  };
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
    if (sqlite3_prepare_v2(s->db, p[i].sql, -1, p[i].st, NULL) != SQLITE_OK)
      return SQLITE_ERROR;
  if (s->stackframes &&
      sqlite3_prepare_v2(s->db, "INSERT INTO rocpd_stackframe(api_ptr_id, depth, "
                         "name_id) VALUES (?,?,?)", -1, &s->ins_frame, NULL) != SQLITE_OK)
    return SQLITE_ERROR;
  return SQLITE_OK;
}

static void finalize_all(synth *s)
{
  sqlite3_finalize(s->ins_api);
  sqlite3_finalize(s->ins_op);
  sqlite3_finalize(s->ins_link);
  sqlite3_finalize(s->ins_kernel);
  sqlite3_finalize(s->ins_copy);
  sqlite3_finalize(s->ins_str);
  sqlite3_finalize(s->ins_ustr);
  sqlite3_finalize(s->ins_mon);
  sqlite3_finalize(s->ins_frame);
}

static void init_threads(synth *s)
{
  s->thr = rpd_xcalloc((size_t)s->threads, sizeof *s->thr);
  for (int k = 0; k < s->threads; k++) {
    thr *t = &s->thr[k];
    t->idx = k;
    t->tid = (int)s->pid + k;
    t->gpu = k % s->gpus;
    t->kq = 2 * (k / s->gpus);
    t->cq = t->kq + 1;
    snprintf(t->kstream, sizeof t->kstream, "0x%x", 0x66bb0000 + 0x10 * k);
    snprintf(t->cstream, sizeof t->cstream, "0x%x", 0x55aa0000 + 0x10 * k);
    t->now = s->t0 + 10000 + 1237 * k;
    if (s->ranks > 1 && s->rank == s->ranks - 1)
      t->straggle_ns = STRAGGLE_NS;
    t->slow_attn = s->ranks > 1 && s->rank == s->ranks / 2;
    t->r.s = (uint64_t)s->seed * 1000003ULL + (uint64_t)k * 7777777ULL + 1;
    t->ngraph_want = s->graphs / s->threads + (k < s->graphs % s->threads);
    if (t->ngraph_want > 8)
      t->ngraph_want = 8;
  }
}

/* Generate everything inside the open transaction. */
static int generate(synth *s)
{
  int rc = SQLITE_OK;
  int64_t empty, built = 0;
  s->next_str = 1;
  s->next_ustr = 2;
  if (s->schema == 3) {          /* rocpd_ustring id 1 is "" */
    sqlite3_bind_int64(s->ins_ustr, 1, 1);
    sqlite3_bind_text(s->ins_ustr, 2, "", -1, SQLITE_STATIC);
    rc = put(s->ins_ustr);
  }
  if (rc == SQLITE_OK)
    rc = string_id(s, "", &empty);     /* rocpd_string id 1 is "" */
  init_threads(s);
  while (rc == SQLITE_OK && built < s->api_want) {
    thr *t = &s->thr[0], saved;
    for (int k = 1; k < s->threads; k++)
      if (s->thr[k].now < t->now)
        t = &s->thr[k];
    saved = *t;
    build_step(s, &s->st, t);
    if (s->st.overflow || s->st.nrows > s->api_want - built) {
      *t = saved;                /* does not fit: a one-row filler */
      t->r.s ^= 0x5555;
      if (t->ngraph < t->ngraph_want)
        t->ngraph_want = t->ngraph;    /* no room left for captures */
      if (t->idx == 0)
        t->hostile_done = 1;
      filler(&s->st, t);
    }
    built += s->st.nrows;
    if (!s->order_end) {
      rc = write_step(s, t->gpu);
      continue;
    }
    queue_step(s, t->gpu);
    int64_t low = s->thr[0].now;   /* no later row ends before this */
    for (int k = 1; k < s->threads; k++)
      if (s->thr[k].now < low)
        low = s->thr[k].now;
    rc = flush_pending(s, low);
  }
  if (rc == SQLITE_OK)
    rc = flush_pending(s, INT64_MAX);
  if (rc == SQLITE_OK)
    rc = write_monitor(s);
  return rc;
}

/* ------------------------------------------------------------ main */

static int on_order(void *ctx, const char *name, const char *val, char *msg, size_t msgsz)
{
  synth *s = ctx;
  if (strcmp(val, "step") && strcmp(val, "end")) {
    snprintf(msg, msgsz, "option '%s' needs 'step' or 'end'", name);
    return 2;
  }
  s->order_end = !strcmp(val, "end");
  return 0;
}

static int parse_args(synth *s, int argc, char **argv, const char **out,
                      int *force)
{
  int no_autograd = 0;
  const rpd_opt opts[] = {
    RPD_OPT_STRING("-o|--output", out),
    RPD_OPT_I64("--seed", &s->seed, 0, INT64_MAX / 2000000, NULL),
    RPD_OPT_I64("--api", &s->api_want, 0, INT64_C(4000000000), NULL),
    RPD_OPT_INT("--gpus", &s->gpus, 1, 64, NULL),
    RPD_OPT_INT("--threads", &s->threads, 1, 4096, NULL),
    RPD_OPT_INT("--schema", &s->schema, 2, 3, NULL),
    RPD_OPT_INT("--graphs", &s->graphs, 0, 4096, NULL),
    RPD_OPT_FLAG("--stackframes", &s->stackframes),
    RPD_OPT_I64("--ranks", &s->ranks, 1, 100000, NULL),
    RPD_OPT_I64("--rank", &s->rank, 0, 99999, NULL),
    RPD_OPT_I64("--clock-skew", &s->clock_skew, 0, INT64_C(1000000000000), NULL),
    RPD_OPT_CALL("--order", on_order, s),
    RPD_OPT_INT("--layers", &s->layers, 1, MAXLAYERS, NULL),
    RPD_OPT_FLAG("--no-autograd", &no_autograd),
    RPD_OPT_FLAG("--force", force),
    RPD_OPT_END(),
  };
  int rc;
  s->seed = 1;
  s->api_want = 10000;
  s->gpus = 2;
  s->schema = 3;
  s->threads = s->graphs = -1;   /* not given: as many as GPUs / threads */
  if ((rc = rpd_cli_options(opts, 0, &argc, argv)))
    return rc;
  if (argc > 0)
    return rpd_usage_error("unknown argument '%s'", argv[0]);
  s->autograd = !no_autograd;
  if (s->stackframes && s->schema != 3)
    return rpd_usage_error("--stackframes needs --schema 3 (v2 has no rocpd_stackframe)");
  if (!*out)
    return rpd_usage_error("no output file (-o OUT.rpd)");
  if (!**out)
    return rpd_usage_error("empty output file name");
  if (s->rank >= s->ranks && (s->ranks || s->rank))
    return rpd_usage_error("--rank %" PRId64 ": need --ranks N with N > R",
                           s->rank);
  s->pid = PID + 1000 * s->rank;
  s->t0 = T0 + s->rank * s->clock_skew;
  if (s->threads < 0)
    s->threads = s->gpus;
  if (s->threads < s->gpus)
    return rpd_usage_error("--threads %d: need at least one thread per GPU (%d)",
                           s->threads, s->gpus);
  if (s->graphs < 0)
    s->graphs = s->threads;
  if (s->graphs > 8 * s->threads)
    return rpd_usage_error("--graphs %d: at most 8 per thread", s->graphs);
  return 0;
}

/* Refuse an existing non-empty OUT unless force (target: OUT with symlinks
 * followed, already known to be a regular file or absent). */
static int check_out(const char *out, const char *target, int force)
{
  struct stat sb;
  if (stat(target, &sb) != 0)
    return 0;
  if (sb.st_size > 0 && !force)
    return rpd_fail("'%s' exists and is not empty; use --force to overwrite", out);
  return 0;
}

/* Indexes are dropped while rows go in and rebuilt at the end (a sort is
 * much faster than a million random index inserts). */
static int defer_indexes(synth *s)
{
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(s->db, "SELECT name, sql FROM sqlite_master "
                              "WHERE type = 'index' AND sql IS NOT NULL",
                              -1, &st, NULL);
  rpd_buf drop = {0};
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    char *d = sqlite3_mprintf("DROP INDEX \"%w\";",
                              (const char *)sqlite3_column_text(st, 0));
    rpd_buf_puts(&drop, d);
    rpd_buf_puts(&s->indexes, (const char *)sqlite3_column_text(st, 1));
    rpd_buf_puts(&s->indexes, ";\n");
    sqlite3_free(d);
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_OK && drop.s)
    rc = sqlite3_exec(s->db, drop.s, NULL, NULL, NULL);
  rpd_buf_free(&drop);
  if (rc != SQLITE_OK)
    return rpd_fail("cannot prepare the trace: %s", sqlite3_errmsg(s->db));
  return 0;
}

/* --ranks: the rank's identity in rocpd_metadata (what rpd-merge reads). */
static int write_rank_meta(synth *s)
{
  char *sql = sqlite3_mprintf(
      "INSERT INTO rocpd_metadata(tag, value) VALUES ('rank', '%lld'), "
      "('world_size', '%lld'), ('hostname', 'synth-node%lld')",
      (long long)s->rank, (long long)s->ranks, (long long)(s->rank / 8));
  int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
  sqlite3_free(sql);
  return rc;
}

/* The trace (rpd_create: a temp file next to OUT's target, removed by
 * common/ on failure, exit or a fatal signal; schema, bulk-load settings;
 * published by rpd_close, gzip'd when OUT ends in .gz). */
static rpd *trace;

static int create_db(synth *s, const char *out, int force)
{
  rpd_create_opts o = { .schema = s->schema, .force = force };
  if (rpd_create(&trace, out, &o) != RPD_OK)
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  s->db = rpd_db(trace);
  if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
    return rpd_fail("cannot write '%s': %s", out, sqlite3_errmsg(s->db));
  if (s->ranks && write_rank_meta(s) != SQLITE_OK)
    return rpd_fail("cannot write '%s': %s", out, sqlite3_errmsg(s->db));
  return defer_indexes(s);
}

/* Fill the trace and publish it (out is the user's name for it); 0 or the
 * exit code. */
static int write_trace(synth *s, const char *out, int force)
{
  int rc = create_db(s, out, force);
  if (rc == 0 && prepare_all(s) != SQLITE_OK)
    rc = rpd_fail("cannot prepare inserts: %s", sqlite3_errmsg(s->db));
  if (rc == 0 && generate(s) != SQLITE_OK)
    rc = rpd_fail("cannot write '%s': %s", out, sqlite3_errmsg(s->db));
  finalize_all(s);
  if (rc == 0 && s->indexes.s &&
      sqlite3_exec(s->db, s->indexes.s, NULL, NULL, NULL) != SQLITE_OK)
    rc = rpd_fail("cannot index '%s': %s", out, sqlite3_errmsg(s->db));
  if (rc == 0 && sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
    rc = rpd_fail("cannot write '%s': %s", out, sqlite3_errmsg(s->db));
  s->db = NULL;
  if (rc == 0 && rpd_close(trace, 1) != RPD_OK)
    rc = rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  else if (rc)
    rpd_close(trace, 0);
  trace = NULL;
  return rc;
}

int main(int argc, char **argv)
{
  static synth s;
  const char *out = NULL;
  char *target = NULL;
  int force = 0, rc;

  if (rpd_cli_init(argc, argv, usage))
    return rpd_cli_status();
  if ((rc = parse_args(&s, argc, argv, &out, &force)) != 0)
    return rc;
  if (rpd_output_check(out, NULL, &target) != RPD_OK)
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  rc = check_out(out, target, force);
  free(target);
  if (rc)
    return rc;
  rc = write_trace(&s, out, force);
  if (rc == 0) {
    printf("rpd-synth: wrote %s (schema v%d, seed %" PRId64 "): api %" PRId64
           ", op %" PRId64 ", api_ops %" PRId64 ", kernelapi %" PRId64
           ", copyapi %" PRId64 ", string %" PRId64 ", ustring %" PRId64
           ", monitor %" PRId64 "\n", out, s.schema, s.seed, s.n_api, s.n_op,
           s.n_link, s.n_kernel, s.n_copy, s.next_str - 1,
           s.schema == 3 ? s.next_ustr - 1 : 0, s.n_mon);
    if (s.stackframes)
      printf("rpd-synth: stackframe %" PRId64 "\n", s.n_frame);
    if (rpd_finish_stdout() != RPD_OK)
      rc = rpd_fail("%s", rpd_errmsg());
  }
  strmap_free(&s.strings);
  rpd_buf_free(&s.indexes);
  free(s.thr);
  for (size_t i = 0; i < s.npend; i++) {
    free(s.pend[i]->ops);
    free(s.pend[i]);
  }
  free(s.pend);
  return rc ? 1 : 0;
}
