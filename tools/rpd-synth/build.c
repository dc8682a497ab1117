/* build.c - rpd-synth's workload: the kernel catalog and what one step of
 * a thread does (layers, attention, MLP, sampler, copies, graphs, idle
 * gaps, hostile names), built into a step buffer in end order. */
#include "synth.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A device address as the tracer prints one ("0x7f..."), into buf. */
void synth_gaddr(char *buf, uint64_t v)
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
  synth_gaddr(sbuf, strtoull(t->kstream, NULL, 16));
  synth_gaddr(gbuf, g->graph);
  synth_gaddr(ebuf, g->exec);
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
  synth_gaddr(ebuf, g->exec);
  synth_gaddr(sbuf, strtoull(t->kstream, NULL, 16));
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
void synth_build_step(synth *s, step *st, thr *t)
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
void synth_filler(step *st, thr *t)
{
  int64_t start = t->now;
  st->nrows = st->nops = st->overflow = 0;
  cpu(t, 500, 1500);
  add_row(st, t, "hipGetLastError", "hip", start, t->now);
  cpu(t, 500, 1500);
}
