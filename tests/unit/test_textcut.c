/* test_textcut.c - names cut in the middle for terminal tables
 * (rpd_text_cut, rpd_text_cut_apart, rpd_text_apart) and tables fitted to
 * a width (rpd_out_fit): exact cut texts, UTF-8 boundaries, four GEMM
 * names of mytrace that a cut at the end makes identical and a cut at
 * their difference keeps apart, a fitted table's line widths with its
 * numbers whole, CSV untouched. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "textcut.h"

/* Four of mytrace's GEMM kernels: equal heads, equal tails. */
static const char *const gemm[] = {
  "Cijk_Alik_Bljk_F8HS_BH_BiasSH_AS_SAB_SAV_UserArgs_MT256x224x128_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
  "AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA8_GRVWB8_GSUAMB_IU1_K1_LBSPPA1024_LBSPPB128_LBSPPM0_LPA8_LPB8_"
  "LPM0_LRVW8_LWPMn1_MIAV0_MIWT8_7_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NEPBS16_NLCA1_NLCB1_ONLL0_PGR2_"
  "PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW8_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VWA8_VWB1_WSGRA0_"
  "WSGRB0_WG32_8_1_WGMXCC1_WGMXCCG0",
  "Cijk_Alik_Bljk_F8HS_BH_BiasSH_AS_SAB_SAV_UserArgs_MT256x224x128_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
  "AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA8_GRVWB8_GSUAMB_IU1_K1_LBSPPA512_LBSPPB128_LBSPPM0_LPA8_LPB8_"
  "LPM0_LRVW8_LWPMn1_MIAV0_MIWT4_14_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NEPBS16_NLCA1_NLCB1_ONLL0_PGR2_"
  "PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW4_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VWA4_VWB1_WSGRA0_"
  "WSGRB0_WG32_8_1_WGMXCC1_WGMXCCG0",
  "Cijk_Alik_Bljk_F8HS_BH_BiasSH_AS_SAB_SAV_UserArgs_MT32x16x1024_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
  "AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA16_GRVWB16_GSUAMB_IU1_K1_LBSPPA1024_LBSPPB1024_LBSPPM0_LPA32_"
  "LPB32_LPM0_LRVW16_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NEPBS16_NLCA1_NLCB1_ONLL0_"
  "PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW1_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VWA1_VWB1_"
  "WSGRA0_WSGRB0_WG32_8_1_WGMXCC1_WGMXCCG0",
  "Cijk_Alik_Bljk_F8HS_BH_BiasSH_AS_SAB_SAV_UserArgs_MT64x32x256_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
  "AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA16_GRVWB16_GSUAMB_IU1_K1_LBSPPA512_LBSPPB256_LBSPPM0_LPA32_"
  "LPB32_LPM0_LRVW16_LWPMn1_MIAV0_MIWT2_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NEPBS16_NLCA1_NLCB1_ONLL0_"
  "PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW2_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VWA2_VWB1_"
  "WSGRA0_WSGRB0_WG32_8_1_WGMXCC1_WGMXCCG0",
};

static void test_cut(void **state)
{
  rpd_buf b = {0};
  (void)state;
  assert_string_equal(rpd_text_cut(&b, "short", 10), "short");
  assert_string_equal(rpd_text_cut(&b, "", 10), "");
  /* head a third of the room, the tail the rest */
  assert_string_equal(rpd_text_cut(&b, "abcdefghijklmnopqrstuvwxyz", 12), "abc...uvwxyz");
  assert_int_equal(rpd_text_width(rpd_text_cut(&b, "abcdefghijklmnopqrstuvwxyz", 12)), 12);
  /* a template's parameter list goes first */
  assert_string_equal(rpd_text_cut(&b, "void gemm<128, 64, 2>(float const*, float*, int)", 30),
                      "void gemm<128, 64, 2>(...)");
  /* UTF-8: characters, never bytes, and never half a character */
  assert_string_equal(rpd_text_cut(&b, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                       "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8),
                      "\xc3\xa9...\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
  assert_string_equal(rpd_text_cut(&b, "abcdefgh", 3), "abc");
  rpd_buf_free(&b);
}

static void test_apart(void **state)
{
  rpd_buf b = {0};
  size_t apart[4];
  char *cut[4];
  (void)state;
  /* cut at the end, or head ... tail: the four read the same */
  for (int i = 0; i < 4; i++)
    cut[i] = rpd_xstrdup(rpd_text_cut(&b, gemm[i], 54));
  assert_string_equal(cut[0], cut[1]);
  assert_string_equal(cut[0], cut[2]);
  for (int i = 0; i < 4; i++)
    free(cut[i]);
  rpd_text_apart(gemm, 4, apart);
  assert_int_equal(apart[0], strstr(gemm[0], "1024_LBSPPB128") - gemm[0]);
  assert_int_equal(apart[2], strstr(gemm[2], "32x16x1024") - gemm[2]);
  for (int i = 0; i < 4; i++) {
    cut[i] = rpd_xstrdup(rpd_text_cut_apart(&b, gemm[i], 54, apart[i]));
    assert_int_equal(rpd_text_width(cut[i]), 54);
  }
  assert_string_equal(cut[0], "Cijk_Alik_Bl...LBSPPA1024_LBSPPB128_LBS...CC1_WGMXCCG0");
  assert_string_equal(cut[2], "Cijk_Alik_Bl...MT32x16x1024_MI16x16x1_S...CC1_WGMXCCG0");
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      assert_string_not_equal(cut[i], cut[j]);
  for (int i = 0; i < 4; i++)
    free(cut[i]);
  /* identical strings: their place is where they differ from the rest */
  const char *same[] = { "kernel_a_x", "kernel_a_x", "kernel_b_x" };
  rpd_text_apart(same, 3, apart);
  assert_int_equal(apart[0], 7);
  assert_int_equal(apart[1], 7);
  assert_int_equal(apart[2], 7);
  rpd_buf_free(&b);
}

/* The table of gemm[] with a number column, fitted to width, as text. */
static char *fitted(rpd_fmt fmt, size_t width)
{
  static const char *const names[] = { "name", "calls" };
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  rpd_out *o = rpd_out_new(f, fmt, 2, names);
  rpd_out_fit(o, width);
  for (int i = 0; i < 4; i++) {
    rpd_out_str(o, gemm[i]);
    rpd_out_int(o, 1234567 + i);
    rpd_out_endrow(o);
  }
  assert_int_equal(rpd_out_end(o), RPD_OK);
  fclose(f);
  return text;
}

/* Sequences "A <- B <- C": each row's nearest other differs in B, so one
 * window from rpd_text_apart shows B for rows that differ only in A;
 * rpd_text_cut_distinct moves the windows so every row reads differently
 * (where one window and the tail can tell them apart). */
static void test_cut_distinct(void **state)
{
  static const char *const seq[] = {
    "Cijk_Alik_Bljk_F8HS_UserArgs_MT256x224x128_MI16x16x1_SN_LDSB1_AFC1_WGMXCCG0 <- vllm::rms_norm_kernel<c10::Half, 8>(float) <- tail_kernel_one",
    "Cijk_Alik_Bljk_F8HS_UserArgs_MT256x224x128_MI16x16x1_SN_LDSB1_AFC1_WGMXCCG0 <- vllm::silu_kernel<c10::Half>(float) <- tail_kernel_two",
    "Cijk_Alik_Bljk_F8HS_UserArgs_MT32x16x1024_MI16x16x1_SN_LDSB1_AFC1_WGMXCCG0 <- vllm::rms_norm_kernel<c10::Half, 8>(float) <- tail_kernel_one",
    "Cijk_Alik_Bljk_F8HS_UserArgs_MT32x16x1024_MI16x16x1_SN_LDSB1_AFC1_WGMXCCG0 <- vllm::silu_kernel<c10::Half>(float) <- tail_kernel_two",
    "Cijk_Alik_Bljk_F8HS_UserArgs_MT32x16x1024_MI16x16x1_SN_LDSB1_AFC1_WGMXCCG0 <- vllm::silu_kernel<c10::Half>(float) <- tail_kernel_two",
  };
  rpd_buf b = {0};
  size_t apart[5];
  char *one[5], **cut;
  (void)state;
  rpd_text_apart(seq, 5, apart);
  for (int i = 0; i < 5; i++)
    one[i] = rpd_xstrdup(rpd_text_cut_apart(&b, seq[i], 36, apart[i]));
  assert_string_equal(one[0], one[2]);   /* one window: rows 0 and 2 read the same */
  cut = rpd_text_cut_distinct(seq, 5, 36);
  for (int i = 0; i < 5; i++) {
    assert_true(rpd_text_width(cut[i]) <= 36);
    for (int j = i + 1; j < 5; j++)
      if (strcmp(seq[i], seq[j]))
        assert_string_not_equal(cut[i], cut[j]);
  }
  assert_string_equal(cut[3], cut[4]);   /* the same name reads the same */
  for (int i = 0; i < 5; i++) {
    free(one[i]);
    free(cut[i]);
  }
  free(cut);
  rpd_buf_free(&b);
}

static void test_fit(void **state)
{
  char *t = fitted(RPD_FMT_TABLE, 80), *line, *save = NULL;
  int n = 0;
  (void)state;
  for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
    assert_true(strlen(line) <= 80);
    if (n >= 2)
      if (!strstr(line, "  123456") && !strstr(line, "  1234570"))  /* the number whole */
        fail_msg("line %d: %s", n, line);
  }
  assert_int_equal(n, 6);
  free(t);
  /* four different rows */
  t = fitted(RPD_FMT_TABLE, 80);
  assert_non_null(strstr(t, "LBSPPA1024"));
  assert_non_null(strstr(t, "MT32x16x1024"));
  free(t);
  /* 0: no limit, the names whole; CSV never cut */
  t = fitted(RPD_FMT_TABLE, 0);
  assert_non_null(strstr(t, gemm[3]));
  free(t);
  t = fitted(RPD_FMT_CSV, 80);
  for (int i = 0; i < 4; i++)
    assert_non_null(strstr(t, gemm[i]));
  free(t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cut),
    cmocka_unit_test(test_apart),
    cmocka_unit_test(test_cut_distinct),
    cmocka_unit_test(test_fit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
