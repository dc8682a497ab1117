/* peaks.c - the GPU peak table, arch files and the roofline. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pm.h"

/* Dense (no sparsity) peaks from the vendors' datasheets, see
 * docs/rpd-perfmodel.md.  link GB/s: the GPU's peer links summed, one
 * direction (half the datasheets' bidirectional figure); 0 where no single
 * per-rank figure exists (an MI250X rank is one of its two dies, whose
 * links differ).  Longer names first where one contains another. */
static const rpd_perf_arch arches[] = {
  /* name      fp64   fp32   tf32    bf16    fp16    fp8     vec32  TB/s  link GB/s */
  {"MI355X", 78.6, 157.3, 0, 2516.6, 2516.6, 5033.2, 157.3, 8.0, 537.6},
  {"MI325X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 163.4, 6.0, 448},
  {"MI300X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 163.4, 5.3, 448},
  {"MI250X", 95.7, 95.7, 0, 383.0, 383.0, 0, 47.9, 3.2768, 0},
  {"MI210", 45.3, 45.3, 0, 181.0, 181.0, 0, 22.6, 1.6384, 150},
  {"H100", 66.9, 0, 494.7, 989.4, 989.4, 1978.9, 66.9, 3.35, 450},
  {"H200", 66.9, 0, 494.7, 989.4, 989.4, 1978.9, 66.9, 4.8, 450},
  {"GB200", 40.0, 0, 1250.0, 2500.0, 2500.0, 5000.0, 80.0, 8.0, 900},
  {"B200", 37.0, 0, 1100.0, 2250.0, 2250.0, 4500.0, 75.0, 7.7, 900},
  {"A100", 19.5, 0, 156.0, 312.0, 312.0, 0, 19.5, 2.039, 300},
};

const rpd_perf_arch *rpd_perf_arch_at(int i)
{
  return i >= 0 && i < (int)(sizeof arches / sizeof arches[0]) ? &arches[i] : NULL;
}

/* Case-insensitive strstr. */
static int contains_ci(const char *hay, const char *needle)
{
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0) return 1;
  return 0;
}

const rpd_perf_arch *rpd_perf_arch_find(const char *name)
{
  const rpd_perf_arch *a;
  if (!name || !*name) return NULL;
  for (int i = 0; (a = rpd_perf_arch_at(i)); i++)
    if (strcasecmp(a->name, name) == 0) return a;
  for (int i = 0; (a = rpd_perf_arch_at(i)); i++)
    if (contains_ci(name, a->name)) return a;
  return NULL;
}

int rpd_perf_arch_load(const char *path, rpd_perf_arch *out)
{
  struct { const char *key; double *v; } keys[] = {
    {"fp64", &out->fp64}, {"fp32", &out->fp32}, {"tf32", &out->tf32},
    {"bf16", &out->bf16}, {"fp16", &out->fp16}, {"fp8", &out->fp8},
    {"vec_fp32", &out->vec_fp32}, {"hbm_tbs", &out->hbm_tbs},
    {"link_gbs", &out->link_gbs},
  };
  char line[256];
  int lineno = 0, rc = RPD_OK;
  FILE *f = fopen(path, "r");
  memset(out, 0, sizeof *out);
  if (!f) return rpd_seterr(RPD_EIO, "cannot read arch file '%s'", path);
  while (rc == RPD_OK && fgets(line, sizeof line, f)) {
    char key[32], val[64], extra[2];
    int n, found = 0;
    lineno++;
    if (strchr(line, '#')) *strchr(line, '#') = 0;
    n = sscanf(line, "%31s %63s %1s", key, val, extra);
    if (n <= 0) continue;
    if (n != 2) {
      rc = rpd_seterr(RPD_EPARSE, "arch file '%s' line %d: expected 'key value'",
                      path, lineno);
      break;
    }
    if (strcmp(key, "name") == 0) {
      snprintf(out->name, sizeof out->name, "%.31s", val);
      continue;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
      if (strcmp(key, keys[i].key) == 0) {
        char *end;
        *keys[i].v = strtod(val, &end);
        found = *end == 0 && *keys[i].v >= 0 && isfinite(*keys[i].v);
        if (!found)
          rc = rpd_seterr(RPD_EPARSE, "arch file '%s' line %d: bad number '%s'",
                          path, lineno, val);
        found = 1;
      }
    if (!found && rc == RPD_OK)
      rc = rpd_seterr(RPD_EPARSE, "arch file '%s' line %d: unknown key '%s'",
                      path, lineno, key);
  }
  fclose(f);
  if (rc == RPD_OK && (!out->name[0] || out->hbm_tbs <= 0))
    rc = rpd_seterr(RPD_EPARSE, "arch file '%s': needs 'name' and 'hbm_tbs'", path);
  return rc;
}

double rpd_perf_peak_tflops(const rpd_perf_arch *a, const char *spec)
{
  const char *us;
  if (!a || !spec) return 0;
  if (strncmp(spec, "vector", 6) == 0) return a->vec_fp32;
  if (strncmp(spec, "matrix", 6) != 0 || !(us = strchr(spec, '_'))) return 0;
  us++;
  if (strcmp(us, "bf16") == 0) return a->bf16;
  if (strcmp(us, "fp16") == 0) return a->fp16;
  if (strcmp(us, "fp8") == 0) return a->fp8;
  if (strcmp(us, "fp64") == 0) return a->fp64;
  if (strcmp(us, "fp32") == 0) return a->fp32 > 0 ? a->fp32 : a->tf32;
  return 0;
}

void rpd_perf_roofline(const rpd_perf_arch *arch, const char *spec, double flops,
                       double bytes, double kernel_ns, rpd_perf_roof *r)
{
  double peak = rpd_perf_peak_tflops(arch, spec);
  double bw = arch ? arch->hbm_tbs : 0;
  double t_compute = -1, t_mem = -1;
  r->tflops_s = r->tb_s = r->flops_per_byte = -1;
  r->pct_compute = r->pct_bw = r->roofline_ns = -1;
  r->bound = NULL;
  if (flops >= 0 && bytes > 0) r->flops_per_byte = flops / bytes;
  if (kernel_ns > 0) {
    if (flops >= 0) r->tflops_s = flops / kernel_ns / 1e3;  /* flop/ns = GFLOP/s */
    if (bytes >= 0) r->tb_s = bytes / kernel_ns / 1e3;
  }
  if (peak > 0 && flops >= 0) {
    t_compute = flops / (peak * 1e3);  /* ns */
    if (r->tflops_s >= 0) r->pct_compute = 100 * r->tflops_s / peak;
  }
  if (bw > 0 && bytes >= 0) {
    t_mem = bytes / (bw * 1e3);
    if (r->tb_s >= 0) r->pct_bw = 100 * r->tb_s / bw;
  }
  if (t_compute >= 0 && t_mem >= 0) {
    r->bound = t_compute >= t_mem ? "compute" : "memory";
    r->roofline_ns = t_compute >= t_mem ? t_compute : t_mem;
  }
}

