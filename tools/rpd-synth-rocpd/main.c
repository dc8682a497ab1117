/* rpd-synth-rocpd - write a deterministic synthetic rocprofv3 database
 * (rocprofiler-sdk "rocpd" schema, what `rocprofv3` writes by default since
 * ROCm 7) of any size, for tests and benchmarks of rpd-import.
 *
 * One set of per-guid tables per process (rocpd_region_<guid>, ...), the
 * UNION ALL views over them (rocpd_region, ...) and the derived views users
 * query (regions, kernels, ...).  Every table rocprofv3 fills is filled:
 * strings, node, processes, threads, agents, queues, streams, code object,
 * kernel symbols (two of them truncate to the same short name "kentry"),
 * events with args, HIP/HSA/marker/RCCL regions, kernel dispatches, memory
 * copies, allocations, samples, PMC counters and events.  The same options
 * always give the same bytes.  See docs/rpd-synth-rocpd.md. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-synth-rocpd [OPTIONS] -o OUT.db",
  .about = "Write a deterministic synthetic rocprofv3 database (rocpd schema).",
  .quiet = "no summary line",
  .notes =
    "Kernel identity case: dispatch i runs symbol i % 12 (symbols 0..8 are\n"
    "ordinary kernels); i % 12 = 9 or 10 runs ck_tile kentry A, i % 12 = 11\n"
    "runs kentry B: different full names, the same truncated name 'kentry'.\n"
    "Prints one summary line (rows per table) on stdout.\n",
};

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpd.h"
#include "synth.h"
#include "util/num.h"

/* ------------------------------------------------------------ data */

/* Fixed strings of every guid; ids are their index + 1. */
enum { S_HIP_CAT = 1, S_HSA_CAT, S_MARKER_CAT, S_RCCL_CAT, S_KD_CAT, S_COPY_CAT,
       S_ALLOC_CAT, S_LAUNCH, S_MEMCPY, S_HSA_FN, S_RCCL_FN, S_FWD, S_BWD,
       S_H2D, S_D2H, S_TRACK, S_NSTR };
static const char *const strs[S_NSTR] = { NULL,
  "HIP_RUNTIME_API_EXT", "HSA_CORE_API", "MARKER_CORE_API", "RCCL_API",
  "KERNEL_DISPATCH", "MEMORY_COPY", "MEMORY_ALLOCATION", "hipLaunchKernel",
  "hipMemcpyAsync", "hsa_signal_store_screlease", "ncclAllReduce", "forward",
  "backward", "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST",
  "host_sample"
};

/* Kernel symbols: full (demangled) name and rocprofv3's truncated name. */
typedef struct ksym {
  const char *full, *truncated;
  int base_ns;
} ksym;
static const ksym syms[] = {
  { "void gemm_kernel<float, 64>(float*, float const*, float const*, int)", "gemm_kernel", 9000 },
  { "void softmax_warp_forward<float, float, 10>(float*, float const*, int)", "softmax_warp_forward", 2000 },
  { "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, int)", "rms_norm_kernel", 1500 },
  { "void vllm::paged_attention_v1_kernel<c10::BFloat16, 128, 16>(c10::BFloat16*, int)", "paged_attention_v1_kernel", 7000 },
  { "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int, float*)", "vectorized_elementwise_kernel", 800 },
  { "Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI16x16x16x1(int, int)", "Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI16x16x16x1", 11000 },
  { "void rotary_embedding_kernel<c10::Half, true>(long const*, c10::Half*, int)", "rotary_embedding_kernel", 1200 },
  { "void reduce_kernel<512, 1>(float*, float const*, int)", "reduce_kernel", 2500 },
  { "__amd_rocclr_copyBuffer", "__amd_rocclr_copyBuffer.kd", 600 },
  { "void ck_tile::kentry<1, ck_tile::BatchedGemmKernel<ck_tile::TileGemmShape<ck_tile::sequence<256, 256, 64> >, float> >(ck_tile::BatchedGemmKernelArgs)", "kentry", 17000 },
  { "void ck_tile::kentry<1, ck_tile::BatchedGemmKernel<ck_tile::TileGemmShape<ck_tile::sequence<128, 128, 32> >, float> >(ck_tile::BatchedGemmKernelArgs)", "kentry", 17400 },
};
enum { NSYMS = sizeof syms / sizeof syms[0], NGPUS = 2 };

/* Symbol index of dispatch i: the identity case (see the usage text). */
static int sym_of(int64_t i)
{
  int s = (int)(i % 12);
  return s <= 8 ? s : (s <= 10 ? 9 : 10);
}

typedef struct { uint64_t s; } rng;

static uint64_t rng_next(rng *r)   /* splitmix64 */
{
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Table insert statements of the guid being written, by rocpd_tables[] index. */
enum { T_META, T_STR, T_NODE, T_PROC, T_THREAD, T_AGENT, T_QUEUE, T_STREAM, T_PMC,
       T_CO, T_SYM, T_TRACK, T_EVENT, T_ARG, T_PMCEV, T_REGION, T_SAMPLE, T_KD,
       T_COPY, T_ALLOC };

typedef struct gen {
  sqlite3 *db;
  rng r;
  int64_t dispatches;
  int guids;
  char guid[40], sfx[40];
  sqlite3_stmt *ev, *arg, *region, *kd, *copy, *alloc, *pmcev, *sample;
  int64_t nid, pid, tid[2];
  int64_t corr, n_rows[32];           /* by rocpd_tables index */
} gen;

/* Run SQL with a sticky rc (SQLITE_OK while all went well). */
static int exec(gen *g, int rc, const char *sql)
{
  return rc ? rc : sqlite3_exec(g->db, sql, NULL, NULL, NULL);
}

/* The per-guid table name of rocpd_tables[t], quoted: caller sqlite3_free()s. */
static char *qt(const gen *g, int t)
{
  return sqlite3_mprintf("\"%w_%w\"", rocpd_tables[t].name, g->sfx);
}

static int create_tables(gen *g)
{
  int rc = SQLITE_OK;
  for (int t = 0; t < rocpd_ntables && !rc; t++) {
    char *n = qt(g, t);
    char *sql = t == T_META
      ? sqlite3_mprintf("CREATE TABLE %s (\"id\" INTEGER NOT NULL PRIMARY KEY"
                        " AUTOINCREMENT, %s)", n, rocpd_tables[t].cols)
      : sqlite3_mprintf("CREATE TABLE %s (\"id\" INTEGER NOT NULL PRIMARY KEY"
                        " AUTOINCREMENT, \"guid\" TEXT DEFAULT %Q NOT NULL, %s)",
                        n, g->guid, rocpd_tables[t].cols);
    rc = exec(g, rc, sql);
    sqlite3_free(sql);
    sqlite3_free(n);
  }
  return rc;
}

/* Prepare "INSERT INTO <table t>(cols) VALUES (?, ...)" with n params. */
static int gen_prepare(gen *g, int t, const char *cols, int n, sqlite3_stmt **st)
{
  char q[128] = "";
  for (int i = 0; i < n && 3 * i + 3 < (int)sizeof q; i++)
    strcat(q, i ? ",?" : "?");
  char *tn = qt(g, t);
  char *sql = sqlite3_mprintf("INSERT INTO %s(%s) VALUES (%s)", tn, cols, q);
  int rc = sqlite3_prepare_v2(g->db, sql, -1, st, NULL);
  sqlite3_free(sql);
  sqlite3_free(tn);
  return rc;
}

/* Bind int64 values 1..n and step once (counting a row of table t). */
static int put(gen *g, sqlite3_stmt *st, int t, int n, const int64_t *v)
{
  for (int i = 0; i < n; i++)
    sqlite3_bind_int64(st, i + 1, v[i]);
  int s = sqlite3_step(st);
  sqlite3_reset(st);
  if (s != SQLITE_DONE)
    return s;
  g->n_rows[t]++;
  return SQLITE_OK;
}

/* The fixed rows of one guid: metadata, strings, node, process, threads,
 * agents, queues, streams, pmc counters, code object, symbols, track. */
static int fixed_rows(gen *g, int k)
{
  int rc = SQLITE_OK;
  char *sql;
#define RUN(...) do { sql = sqlite3_mprintf(__VA_ARGS__); rc = exec(g, rc, sql); \
                      sqlite3_free(sql); } while (0)
  char *tn[32];
  for (int t = 0; t < rocpd_ntables; t++)
    tn[t] = qt(g, t);
  RUN("INSERT INTO %s(tag, value) VALUES ('schema_version', '3'), ('uuid', '_%q'),"
      " ('guid', %Q)", tn[T_META], g->sfx, g->guid);
  for (int s = 1; s < S_NSTR; s++)
    RUN("INSERT INTO %s(id, string) VALUES (%d, %Q)", tn[T_STR], s, strs[s]);
  RUN("INSERT INTO %s(id, hash, machine_id, system_name, hostname, release, version,"
      " hardware_name, domain_name) VALUES (%lld, %lld, 'synth-machine-%d', 'Linux',"
      " 'synth-host', '6.8.0', '#1 SMP', 'x86_64', '(none)')", tn[T_NODE],
      (long long)g->nid, (long long)g->nid, k);
  RUN("INSERT INTO %s(id, nid, ppid, pid, init, fini, start, end, command) VALUES"
      " (%lld, %lld, 1, %lld, %lld, %lld, %lld, %lld, 'python3 synth.py --run %d')",
      tn[T_PROC], (long long)g->pid, (long long)g->nid, (long long)g->pid,
      (long long)(1000000 + g->pid), (long long)(2000000000000LL + g->pid),
      (long long)(1000000 + g->pid), (long long)(2000000000000LL + g->pid), k);
  for (int i = 0; i < 2; i++)
    RUN("INSERT INTO %s(id, nid, ppid, pid, tid, name, start, end) VALUES"
        " (%lld, %lld, 1, %lld, %lld, 'python3', 0, 0)", tn[T_THREAD],
        (long long)g->tid[i], (long long)g->nid, (long long)g->pid,
        (long long)g->tid[i]);
  RUN("INSERT INTO %s(id, nid, pid, type, absolute_index, logical_index, type_index,"
      " uuid, name, model_name, vendor_name, product_name, user_name) VALUES"
      " (0, %lld, %lld, 'CPU', 0, 0, 0, 0, 'Synth CPU', '', 'CPU', 'Synth CPU', 'Synth CPU')",
      tn[T_AGENT], (long long)g->nid, (long long)g->pid);
  for (int i = 0; i < NGPUS; i++) {
    RUN("INSERT INTO %s(id, nid, pid, type, absolute_index, logical_index, type_index,"
        " uuid, name, model_name, vendor_name, product_name, user_name) VALUES"
        " (%d, %lld, %lld, 'GPU', %d, %d, %d, %d, 'gfx942', 'mi300x', 'AMD',"
        " 'AMD Instinct MI300X', 'AMD Instinct MI300X')", tn[T_AGENT], i + 1,
        (long long)g->nid, (long long)g->pid, i + 1, i + 1, i, 1000 + i);
    RUN("INSERT INTO %s(id, nid, pid, name) VALUES (%d, %lld, %lld, 'Queue %d')",
        tn[T_QUEUE], i + 1, (long long)g->nid, (long long)g->pid, i);
    RUN("INSERT INTO %s(id, nid, pid, name) VALUES (%d, %lld, %lld, 'Stream %d')",
        tn[T_STREAM], i + 1, (long long)g->nid, (long long)g->pid, i);
  }
  RUN("INSERT INTO %s(id, nid, pid, name) VALUES (0, %lld, %lld, 'Default Stream')",
      tn[T_STREAM], (long long)g->nid, (long long)g->pid);
  RUN("INSERT INTO %s(id, nid, pid, agent_id, target_arch, event_code, instance_id,"
      " name, symbol, description, component, value_type, block, expression,"
      " is_constant, is_derived) VALUES (1, %lld, %lld, 1, 'GPU', 4, 0, 'SQ_WAVES',"
      " 'SQ_WAVES', 'Waves dispatched', 'sq', 'ABS', 'SQ', '', 0, 0), (2, %lld, %lld,"
      " 1, 'GPU', 0, 0, 'GRBM_COUNT', 'GRBM_COUNT', 'GPU clock cycles', 'grbm', 'ABS',"
      " 'GRBM', '', 0, 0)", tn[T_PMC], (long long)g->nid, (long long)g->pid,
      (long long)g->nid, (long long)g->pid);
  RUN("INSERT INTO %s(id, nid, pid, agent_id, uri, load_base, load_size, load_delta,"
      " storage_type, extdata) VALUES (1, %lld, %lld, 1, 'file:///synth/kernels.hsaco',"
      " 139000000000000, 65536, 0, 'FILE', '{\"size\":88}')", tn[T_CO],
      (long long)g->nid, (long long)g->pid);
  for (int s = 0; s < NSYMS; s++)
    RUN("INSERT INTO %s(id, nid, pid, code_object_id, kernel_name, display_name,"
        " kernel_object, kernarg_segment_size, kernarg_segment_alignment,"
        " group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count,"
        " accum_vgpr_count, extdata) VALUES (%d, %lld, %lld, 1, '_Z%dsynth_kernel_%d.kd',"
        " %Q, %d, 64, 16, %d, 0, 32, 64, 0, json_object('size', 88, 'kernel_id', %d,"
        " 'formatted_kernel_name', %Q, 'demangled_kernel_name', %Q,"
        " 'truncated_kernel_name', %Q))", tn[T_SYM], s + 1, (long long)g->nid,
        (long long)g->pid, s + 1, s + 1, syms[s].full, 139000000001000 + 64 * s,
        (s % 3) * 1024, s + 1, syms[s].full, syms[s].full, syms[s].truncated);
  RUN("INSERT INTO %s(id, nid, pid, tid, name_id) VALUES (1, %lld, %lld, %lld, %d)",
      tn[T_TRACK], (long long)g->nid, (long long)g->pid, (long long)g->tid[0], S_TRACK);
#undef RUN
  for (int t = 0; t < rocpd_ntables; t++)
    sqlite3_free(tn[t]);
  g->n_rows[T_META] += 3;
  g->n_rows[T_STR] += S_NSTR - 1;
  g->n_rows[T_NODE]++;
  g->n_rows[T_PROC]++;
  g->n_rows[T_THREAD] += 2;
  g->n_rows[T_AGENT] += 1 + NGPUS;
  g->n_rows[T_QUEUE] += NGPUS;
  g->n_rows[T_STREAM] += 1 + NGPUS;
  g->n_rows[T_PMC] += 2;
  g->n_rows[T_CO]++;
  g->n_rows[T_SYM] += NSYMS;
  g->n_rows[T_TRACK]++;
  return rc;
}

static int prepare_guid(gen *g)
{
  int rc = gen_prepare(g, T_EVENT, "category_id, stack_id, parent_stack_id, correlation_id",
                4, &g->ev);
  if (!rc)
    rc = gen_prepare(g, T_ARG, "event_id, position, type, name, value", 5, &g->arg);
  if (!rc)
    rc = gen_prepare(g, T_REGION, "nid, pid, tid, start, end, name_id, event_id", 7, &g->region);
  if (!rc)
    rc = gen_prepare(g, T_KD, "nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id,"
              " stream_id, start, end, private_segment_size, group_segment_size,"
              " workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x,"
              " grid_size_y, grid_size_z, region_name_id, event_id", 20, &g->kd);
  if (!rc)
    rc = gen_prepare(g, T_COPY, "nid, pid, tid, start, end, name_id, dst_agent_id, dst_address,"
              " src_agent_id, src_address, size, queue_id, stream_id, region_name_id,"
              " event_id", 15, &g->copy);
  if (!rc)
    rc = gen_prepare(g, T_ALLOC, "nid, pid, tid, agent_id, start, end, address, size,"
              " queue_id, stream_id, event_id, type, level", 13, &g->alloc);
  if (!rc)
    rc = gen_prepare(g, T_PMCEV, "event_id, pmc_id, value", 3, &g->pmcev);
  if (!rc)
    rc = gen_prepare(g, T_SAMPLE, "track_id, timestamp, event_id", 3, &g->sample);
  return rc;
}

static void finalize_guid(gen *g)
{
  sqlite3_stmt **v[] = { &g->ev, &g->arg, &g->region, &g->kd, &g->copy, &g->alloc,
                         &g->pmcev, &g->sample };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    sqlite3_finalize(*v[i]);
    *v[i] = NULL;
  }
}

/* An event row; returns its id in *id. */
static int event(gen *g, int cat, int64_t stack, int64_t *id)
{
  int64_t v[4] = { cat, stack, 0, 0 };
  int rc = put(g, g->ev, T_EVENT, 4, v);
  *id = sqlite3_last_insert_rowid(g->db);
  return rc;
}

/* One argument row of event ev. */
static int arg(gen *g, int64_t ev, int pos, const char *type, const char *name,
               const char *value)
{
  sqlite3_bind_int64(g->arg, 1, ev);
  sqlite3_bind_int(g->arg, 2, pos);
  sqlite3_bind_text(g->arg, 3, type, -1, SQLITE_STATIC);
  sqlite3_bind_text(g->arg, 4, name, -1, SQLITE_STATIC);
  sqlite3_bind_text(g->arg, 5, value, -1, SQLITE_TRANSIENT);
  return put(g, g->arg, T_ARG, 0, NULL);
}

/* A region (category cat, name) of thread tid over [start, end] with nargs
 * args; *corr_out = its correlation (stack) id. */
static int region(gen *g, int cat, int name, int64_t tid, int64_t start, int64_t end,
                  int nargs, int64_t *corr_out)
{
  static const char *const an[] = { "stream", "function_address", "numBlocks", "sharedMemBytes" };
  static const char *const at[] = { "hipStream_t", "void const*", "dim3", "unsigned int" };
  int64_t ev, corr = ++g->corr;
  int rc = event(g, cat, corr, &ev);
  for (int a = 0; a < nargs && !rc; a++) {
    char val[48];
    snprintf(val, sizeof val, a == 2 ? "{%" PRIu64 ", 1, 1}" : "0x%" PRIx64,
             (uint64_t)(rng_next(&g->r) % (a == 2 ? 4096u : UINT64_C(0x7fffffffffff))));
    rc = arg(g, ev, a, at[a], an[a], val);
  }
  int64_t v[7] = { g->nid, g->pid, tid, start, end, name, ev };
  if (!rc)
    rc = put(g, g->region, T_REGION, 7, v);
  *corr_out = corr;
  return rc;
}

/* Dispatch i of the guid (host time base t0) and what comes with it. */
static int step(gen *g, int64_t i, int64_t t0)
{
  int64_t h = t0 + i * 10000, tid = g->tid[i % 2], corr, ev;
  int gpu = (int)(i % NGPUS), s = sym_of(i);
  int rc = region(g, S_HIP_CAT, S_LAUNCH, tid, h, h + 3000, 4, &corr);
  int64_t start = h + 5000, dur = syms[s].base_ns + (int64_t)(rng_next(&g->r) % 500);
  if (!rc)
    rc = event(g, S_KD_CAT, corr, &ev);
  int64_t kd[20] = { g->nid, g->pid, tid, gpu + 1, s + 1, i + 1, gpu + 1, gpu + 1,
                     start, start + dur, 0, (s % 3) * 1024, 256, 1, 1,
                     4096 * (1 + s % 4), 1, 1, S_LAUNCH, ev };
  if (!rc)
    rc = put(g, g->kd, T_KD, 20, kd);
  for (int p = 1; p <= 2 && !rc && i % 4 == 0; p++) {
    int64_t pv[2] = { ev, p };
    sqlite3_bind_double(g->pmcev, 3, p == 1 ? 64.0 * (1 + s) : (double)dur * 2.1);
    rc = put(g, g->pmcev, T_PMCEV, 2, pv);
  }
  if (!rc && i % 8 == 0)
    rc = region(g, S_HSA_CAT, S_HSA_FN, tid, h + 3100, h + 3400, 2, &corr);
  if (!rc && i % 16 == 0)
    rc = region(g, S_MARKER_CAT, (i / 16) % 2 ? S_BWD : S_FWD, tid, h, h + 9000, 0, &corr);
  if (!rc && i % 32 == 0)
    rc = region(g, S_RCCL_CAT, S_RCCL_FN, tid, h + 3500, h + 4500, 3, &corr);
  if (!rc && i % 32 == 16) {
    int h2d = (i / 32) % 2 == 0;
    rc = region(g, S_HIP_CAT, S_MEMCPY, tid, h + 3500, h + 4000, 3, &corr);
    if (!rc)
      rc = event(g, S_COPY_CAT, corr, &ev);
    int64_t cv[15] = { g->nid, g->pid, tid, h + 4100, h + 4900, h2d ? S_H2D : S_D2H,
                       h2d ? gpu + 1 : 0, 0x7f0000000000 + i, h2d ? 0 : gpu + 1,
                       0x7e0000000000 + i, 1 << (12 + i % 8), gpu + 1, gpu + 1,
                       S_MEMCPY, ev };
    if (!rc)
      rc = put(g, g->copy, T_COPY, 15, cv);
  }
  if (!rc && i % 64 == 0) {
    rc = event(g, S_ALLOC_CAT, 0, &ev);
    int64_t av[11] = { g->nid, g->pid, tid, gpu + 1, h + 100, h + 200,
                       0x7d0000000000 + i, 1 << 20, gpu + 1, gpu + 1, ev };
    sqlite3_bind_text(g->alloc, 12, "ALLOC", -1, SQLITE_STATIC);
    sqlite3_bind_text(g->alloc, 13, "REAL", -1, SQLITE_STATIC);
    if (!rc)
      rc = put(g, g->alloc, T_ALLOC, 11, av);
  }
  if (!rc && i % 16 == 8) {
    rc = event(g, S_HIP_CAT, 0, &ev);
    int64_t sv[3] = { 1, h + 50, ev };
    if (!rc)
      rc = put(g, g->sample, T_SAMPLE, 3, sv);
  }
  return rc;
}

/* The guid of process k: a fixed pattern from the seed (uuid text form). */
static void make_guid(gen *g, uint64_t seed, int k)
{
  rng r = { seed * 1000003u + (uint64_t)k };
  uint64_t a = rng_next(&r), b = rng_next(&r);
  snprintf(g->guid, sizeof g->guid, "%08x-%04x-%04x-%04x-%012" PRIx64,
           (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xffff,
           (unsigned)(b >> 48), (uint64_t)(b & UINT64_C(0xffffffffffff)));
  for (size_t i = 0; i <= strlen(g->guid); i++)
    g->sfx[i] = g->guid[i] == '-' ? '_' : g->guid[i];
}

static int write_guid(gen *g, uint64_t seed, int k)
{
  make_guid(g, seed, k);
  g->nid = 1966000000 + k;
  g->pid = 4000 + k;
  g->tid[0] = g->pid;
  g->tid[1] = g->pid + 7;
  g->corr = 0;
  int rc = create_tables(g);
  if (!rc)
    rc = fixed_rows(g, k);
  if (!rc)
    rc = prepare_guid(g);
  /* runs back to back in time, as a longer capture would be */
  int64_t t0 = 1000000000000LL + (int64_t)k * (g->dispatches * 10000 + 1000000);
  for (int64_t i = 0; i < g->dispatches && !rc; i++)
    rc = step(g, i, t0);
  finalize_guid(g);
  return rc;
}

/* The UNION ALL views over every guid's tables, then the derived views. */
static int create_views(gen *g, uint64_t seed)
{
  int rc = SQLITE_OK;
  for (int t = 0; t < rocpd_ntables && !rc; t++) {
    rpd_buf b = {0};
    rpd_buf_printf(&b, "CREATE VIEW \"%s\" AS ", rocpd_tables[t].name);
    for (int k = 0; k < g->guids; k++) {
      make_guid(g, seed, k);
      char *n = qt(g, t);
      rpd_buf_printf(&b, "%sSELECT * FROM %s", k ? " UNION ALL " : "", n);
      sqlite3_free(n);
    }
    rc = exec(g, rc, b.s);
    rpd_buf_free(&b);
  }
  for (int v = 0; v < rocpd_nviews; v++)
    rc = exec(g, rc, rocpd_views[v]);
  return rc;
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
  static gen g;
  const char *out = NULL;
  int64_t seed = 1, disp = 1000, guids = 1;
  int force = 0, quiet = 0, rc = 0;
  rpd *r = NULL;
  /* rpd_create's file without an RPD schema: the rocprofv3 tables are
   * this tool's (a temp next to OUT, removed on failure, exit or a fatal
   * signal; bulk-load settings; published gzip'd for OUT.gz) */
  rpd_create_opts co = { .schema = RPD_SCHEMA_NONE, .force = 1 };

  const rpd_opt opts[] = {
    RPD_OPT_STRING("-o|--output", &out, .need = "a file", .arg = "FILE",
                   .help = "the database to write (temp file, renamed at the end)"),
    RPD_OPT_I64("--seed", &seed, 0, INT64_MAX / 2,
                "--seed: '%s' is not a number in 0..4611686018427387903",
                .help = "random seed (default 1): same options = same bytes"),
    RPD_OPT_I64("--dispatches", &disp, 1, INT64_C(100000000),
                "--dispatches: '%s' is not a number in 1..100000000",
                .help = "kernel dispatches per process (default 1000); each has its "
                        "hipLaunchKernel region with 4 args; every 8th an HSA region, every "
                        "16th a marker, every 32nd an RCCL call and a hipMemcpyAsync with "
                        "its memory copy, every 64th an allocation"),
    RPD_OPT_I64("--guids", &guids, 1, 64, "--guids: '%s' is not a number in 1..64",
                .help = "processes, one table set (guid) each (default 1)"),
    RPD_OPT_FLAG("--force", &force, .help = "replace an existing OUT"),
    RPD_OPT_END(),
  };
  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return rpd_cli_status();
  if ((rc = rpd_cli_options(opts, 0, &argc, argv)))
    return rc;
  if (argc > 0)
    return rpd_usage_error("unknown argument '%s'", argv[0]);
  quiet = rpd_quiet;
  if (!out)
    return rpd_usage_error("need -o OUT.db");
  if (rpd_output_check(out, NULL, NULL))
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  if (!force && !access(out, F_OK))
    return rpd_fail("'%s' exists; use --force to replace it", out);
  if (rocpd_ntables != T_ALLOC + 1 || rocpd_ntables > 32)
    return rpd_fail("internal error: schema table list out of step");
  g.r.s = (uint64_t)seed;
  g.dispatches = disp;
  g.guids = (int)guids;
  if (rpd_create(&r, out, &co))
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  g.db = rpd_db(r);
  rc = exec(&g, SQLITE_OK, "BEGIN");
  for (int k = 0; k < g.guids && !rc; k++)
    rc = write_guid(&g, (uint64_t)seed, k);
  if (!rc)
    rc = create_views(&g, (uint64_t)seed);
  rc = exec(&g, rc, "COMMIT");
  if (rc)
    rpd_fail("cannot write '%s': %s", out, g.db ? sqlite3_errmsg(g.db) : "out of memory");
  g.db = NULL;
  if (rc) {
    rpd_close(r, 0);
    return 1;
  }
  if (rpd_close(r, 1))
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  if (!quiet) {
    printf("rpd-synth-rocpd: wrote %s (seed %" PRId64 ", %d guid%s):", out, seed,
           g.guids, g.guids > 1 ? "s" : "");
    static const int shown[] = { T_EVENT, T_ARG, T_REGION, T_KD, T_COPY, T_ALLOC,
                                 T_PMCEV, T_SAMPLE, T_SYM };
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
      printf("%s %s %" PRId64, i ? "," : "", rocpd_tables[shown[i]].name + 6,
             g.n_rows[shown[i]]);
    printf("\n");
    if (rpd_finish_stdout())
      return rpd_fail("%s", rpd_errmsg());
  }
  return 0;
}
