/* links: raptor */
/* test_raptor_names.c - raptor's kernel names and categories
 * (raptor/names.c, linked from libraptor.a): the FNV-1a hash, interning
 * (one id per name, stable across the table's growth), the sequence key's
 * "(trace start)" name, and the categories: the built-in set in its file
 * order, the idle / _Other / _Latency / communication indices, the LAST
 * matching category winning, a file of the user's with its own _Other, and
 * a missing file's message. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rpd.h"
#include "raptor.h"

#define FNV_BASIS 14695981039346656037ULL

static void test_hash(void **state)
{
  (void)state;
  /* the published FNV-1a 64-bit values */
  assert_true(hash_bytes("", 0, FNV_BASIS) == FNV_BASIS);
  assert_true(hash_bytes("a", 1, FNV_BASIS) == 0xaf63dc4c8601ec8cULL);
  assert_true(hash_bytes("foobar", 6, FNV_BASIS) == 0x85944171f73967e8ULL);
  /* chained: the hash of a whole = the hash of its parts in turn */
  assert_true(hash_bytes("bar", 3, hash_bytes("foo", 3, FNV_BASIS)) == 0x85944171f73967e8ULL);
  islots t;
  islots_init(&t, 16);
  assert_int_equal(t.cap, 16);
  for (size_t i = 0; i < t.cap; i++) assert_int_equal(t.v[i], -1);
  free(t.v);
}

static void test_intern(void **state)
{
  (void)state;
  raptor R;
  raptor_init(&R);
  assert_int_equal(name_intern(&R, "gemm"), 0);
  assert_int_equal(name_intern(&R, "add"), 1);
  assert_int_equal(name_intern(&R, "gemm"), 0);
  assert_int_equal(name_intern(&R, ""), 2);
  assert_int_equal(R.res.nnames, 3);
  /* 5000 names: the slot table grows (1024, 2048, ...) and keeps every id */
  char buf[32];
  for (int i = 0; i < 5000; i++) {
    snprintf(buf, sizeof buf, "kernel_%d", i);
    assert_int_equal(name_intern(&R, buf), 3 + i);
  }
  assert_int_equal(R.res.nnames, 5003);
  assert_true(R.name_slots.cap >= 2 * 5003);
  for (int i = 4999; i >= 0; i -= 7) {
    snprintf(buf, sizeof buf, "kernel_%d", i);
    assert_int_equal(name_intern(&R, buf), 3 + i);
    assert_string_equal(R.res.names[3 + i], buf);
  }
  assert_int_equal(name_intern(&R, "gemm"), 0);
  assert_int_equal(name_intern(&R, "add"), 1);
  assert_int_equal(R.res.nnames, 5003);
  raptor_free(&R);
}

static void test_key_start(void **state)
{
  (void)state;
  raptor R;
  raptor_init(&R);   /* --kernelseq-len 2: the missing predecessors' name */
  name_intern(&R, "k0");
  int32_t id = key_start_name(&R);
  assert_int_equal(id, 1);
  assert_string_equal(R.res.names[id], "(trace start)");
  assert_int_equal(key_start_name(&R), 1);
  R.opt.seqlen = 0;      /* kernel name only: no predecessors */
  assert_int_equal(key_start_name(&R), -1);
  R.opt.seqlen = 2;
  R.opt.reference_ops = 1;   /* the reference leaves those ops out */
  assert_int_equal(key_start_name(&R), -1);
  raptor_free(&R);
}

/* The built-in categories (raptor/categories.json's order) after the idle
 * one; the last match wins. */
static void test_builtin(void **state)
{
  (void)state;
  raptor R;
  raptor_init(&R);
  assert_int_equal(categories_load(&R), 0);
  assert_null(R.err);
  assert_int_equal(R.res.ncats, 16);
  assert_string_equal(R.res.catname[0], "_GPU_Idle");
  assert_string_equal(R.res.catname[1], "Memory");
  assert_string_equal(R.res.catname[7], "GEMM");
  assert_string_equal(R.res.catname[15], "SILU");
  assert_int_equal(R.res.cat_other, 16);
  assert_int_equal(R.res.cat_latency, 17);
  assert_string_equal(R.res.catname[16], "_Other");
  assert_string_equal(R.res.catname[17], "_Latency");
  assert_int_equal(R.res.cat_comm, 9);
  assert_string_equal(R.res.catname[9], "_COMM");

  assert_int_equal(category_of(&R, "GAP <=10us"), 0);
  assert_int_equal(category_of(&R, "GAP 10us-20us"), 0);
  assert_int_equal(category_of(&R, "Cijk_Ailk_Bljk_SB_MT64x32x16"), 7);
  assert_int_equal(category_of(&R, "ncclDevKernel_Generic_4"), 9);
  assert_int_equal(category_of(&R, "mystery_kernel"), 16);
  /* Memory (^Copy[A-Z]) then CopyD2D: the later one */
  assert_int_equal(category_of(&R, "CopyDeviceToDevice"), 8);
  assert_int_equal(category_of(&R, "CopyHostToDevice"), 1);
  /* Elementwise then aten */
  assert_int_equal(category_of(&R, "void at::native::vectorized_elementwise_kernel<4>"), 10);
  /* Reduction, _COMM, then vllm */
  assert_int_equal(category_of(&R, "void vllm::cross_device_reduce_1stage<half>"), 11);
  /* Attention then DecodeAttn */
  assert_int_equal(category_of(&R, "paged_attention_v1_kernel"), 13);
  assert_int_equal(category_of(&R, "FLASH_fwd"), 6);
  assert_null(R.cat_error);
  raptor_free(&R);
}

/* A file of the user's that names _Other itself: its index is kept, only
 * _Latency is added; no communication category. */
static void test_file(void **state)
{
  (void)state;
  char path[] = "/tmp/test_raptor_names_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char *json = "{\"A\": [\"^a\"], \"_Other\": [\"zzz\"], \"B\": [\"b$\"]}\n";
  assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
  close(fd);
  raptor R;
  raptor_init(&R);
  R.opt.cat_file = path;
  assert_int_equal(categories_load(&R), 0);
  assert_int_equal(R.res.ncats, 4);
  assert_string_equal(R.res.catname[1], "A");
  assert_int_equal(R.res.cat_other, 2);
  assert_int_equal(R.res.cat_latency, 4);
  assert_string_equal(R.res.catname[4], "_Latency");
  assert_int_equal(R.res.cat_comm, -1);
  assert_int_equal(category_of(&R, "ab"), 3);     /* A and B: the last */
  assert_int_equal(category_of(&R, "ax"), 1);
  assert_int_equal(category_of(&R, "zzz"), 2);
  assert_int_equal(category_of(&R, "x"), 2);      /* no match: _Other */
  raptor_free(&R);
  unlink(path);

  /* a missing file: exit code 1 and one line naming it */
  raptor_init(&R);
  R.opt.cat_file = path;
  assert_int_equal(categories_load(&R), 1);
  assert_non_null(R.err);
  assert_int_equal(R.err_usage, 0);
  assert_non_null(strstr(R.err, "cannot open category file '/tmp/test_raptor_names_"));
  assert_null(strchr(R.err, '\n'));
  raptor_free(&R);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hash),
    cmocka_unit_test(test_intern),
    cmocka_unit_test(test_key_start),
    cmocka_unit_test(test_builtin),
    cmocka_unit_test(test_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
