/* links: rpd2tracing */
/* test_tracing.c - rpd2tracing's internals (tools/rpd2tracing/), linked
 * from its library: the integer and microsecond formatters, the JSON string
 * escaping (fast path and slow path, each length around the 16-byte steps),
 * whole JSON events from the writer, the protobuf wire encoder (pb.h)
 * against bytes computed by hand from the encoding rules, and the sink's
 * direct (O_DIRECT) writes giving the bytes it was handed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "tracing.h"
#include "pb.h"

/* ------------------------------------------------------------ numbers */

static void check_i64(int64_t v, const char *want)
{
  char buf[32];
  char *e = w_i64(buf, v);
  *e = 0;
  assert_string_equal(buf, want);
}

static void test_w_i64(void **state)
{
  (void)state;
  check_i64(0, "0");
  check_i64(7, "7");
  check_i64(9, "9");
  check_i64(10, "10");
  check_i64(99, "99");
  check_i64(100, "100");
  check_i64(101, "101");
  check_i64(999999999, "999999999");
  check_i64(1000000000, "1000000000");
  check_i64(-1, "-1");
  check_i64(-10, "-10");
  check_i64(1700000000118402, "1700000000118402");
  check_i64(INT64_MAX, "9223372036854775807");
  check_i64(INT64_MIN, "-9223372036854775808");
  /* every power of ten and the number before it (the digit count) */
  int64_t p = 1;
  for (int k = 0; k <= 18; k++, p = k <= 18 ? p * 10 : p) {
    char want[32];
    snprintf(want, sizeof want, "%lld", (long long)p);
    check_i64(p, want);
    snprintf(want, sizeof want, "%lld", (long long)(p - 1));
    check_i64(p - 1, want);
  }
}

static void check_us(int64_t ns, const char *want)
{
  char buf[48];
  memset(buf, 'Z', sizeof buf);   /* the fast path copies 16 bytes ahead */
  char *e = w_us(buf, ns);
  *e = 0;
  assert_string_equal(buf, want);
}

static void test_w_us(void **state)
{
  (void)state;
  check_us(0, "0.000");
  check_us(1, "0.001");
  check_us(999, "0.999");
  check_us(1000, "1.000");
  check_us(1500, "1.500");
  check_us(123456789, "123456.789");
  check_us(999999999, "999999.999");          /* below the cached-seconds path */
  check_us(1000000000, "1000000.000");        /* its first value */
  check_us(-1, "-0.001");
  check_us(-1500, "-1.500");
  check_us(-1000000000, "-1000000.000");
  /* the seconds' digits are cached: same seconds, next second, back */
  check_us(1700000000118402123, "1700000000118402.123");
  check_us(1700000000118402999, "1700000000118402.999");
  check_us(1700000000999999999, "1700000000999999.999");
  check_us(1700000001000000000, "1700000001000000.000");
  check_us(1700000000000000001, "1700000000000000.001");
  check_us(1700000000118402, "1700000000118.402");
  check_us(1700000000127365, "1700000000127.365");
  check_us(INT64_MAX, "9223372036854775.807");
  check_us(INT64_MIN, "-9223372036854775.808");
}

/* ------------------------------------------------------------ strings */

/* w_strn of the NUL-terminated s (its first n bytes) as a C string. */
static void check_str(const char *s, size_t n, const char *want)
{
  static sink k;
  char buf[512];
  assert_true(ESC_MAX(n) + 16 <= sizeof buf);
  memset(buf, 'Z', sizeof buf);
  char *e = w_strn(&k, buf, s, n);
  assert_true((size_t)(e - buf) <= ESC_MAX(n));
  *e = 0;
  assert_string_equal(buf, want);
}

/* check_str of the whole of s. */
static void check_z(const char *s, const char *want) { check_str(s, strlen(s), want); }

static void test_w_strn_plain(void **state)
{
  (void)state;
  check_str("", 0, "\"\"");
  check_str("a", 1, "\"a\"");
  check_str("ab", 2, "\"ab\"");
  check_str("abc", 3, "\"abc\"");
  check_str("hipLaunchKernel", 15, "\"hipLaunchKernel\"");
  check_str("hipLaunchKernel!", 16, "\"hipLaunchKernel!\"");
  check_str("hipLaunchKernel!?", 17, "\"hipLaunchKernel!?\"");
  check_str("<script>alert('rpd')</script>&amp;_kernel", 41,
            "\"<script>alert('rpd')</script>&amp;_kernel\"");
}

static void test_w_strn_escapes(void **state)
{
  (void)state;
  check_str("a\"b", 3, "\"a\\\"b\"");
  check_str("a\\b", 3, "\"a\\\\b\"");
  check_str("\t", 1, "\"\\t\"");
  check_str("x\ny\rz", 5, "\"x\\ny\\rz\"");
  check_str("\b\f", 2, "\"\\b\\f\"");
  check_str("\x01", 1, "\"\\u0001\"");
  check_str("\x1f ctl", 5, "\"\\u001f ctl\"");
  /* DEL and printable ASCII stay as they are */
  check_str("~\x7f", 2, "\"~\x7f\"");
  /* the kernel name of the bench trace */
  check_z("kernel_\"quoted\"_name<'single'>", "\"kernel_\\\"quoted\\\"_name<'single'>\"");
  check_z("void evil\\path<\\\"x\\\\y\\\">(char const*)",
            "\"void evil\\\\path<\\\\\\\"x\\\\\\\\y\\\\\\\">(char const*)\"");
  /* valid UTF-8 is copied; invalid bytes become U+FFFD (EF BF BD) */
  check_str("t \xc3\xa9\xe6\x97\xa5", 7, "\"t \xc3\xa9\xe6\x97\xa5\"");
  check_str("bad\xff\xfe" "end", 8, "\"bad\xef\xbf\xbd\xef\xbf\xbd" "end\"");
  check_str("\xc3", 1, "\"\xef\xbf\xbd\"");   /* a cut 2-byte sequence */
}

/* A special byte at every position of strings of 1 to 40 bytes: the 16-byte
 * steps, the overlapping last step, the padded short step and the 8-byte
 * steps each see it at their start, middle and end. */
static void test_w_strn_positions(void **state)
{
  (void)state;
  for (size_t n = 1; n <= 40; n++) {
    for (size_t at = 0; at <= n; at++) {   /* at == n: none */
      char s[64], want[128];
      size_t w = 0;
      want[w++] = '"';
      for (size_t i = 0; i < n; i++) {
        s[i] = (char)('a' + i % 26);
        if (i == at) {
          s[i] = '"';
          want[w++] = '\\';
        }
        want[w++] = s[i];
      }
      s[n] = 0;
      want[w++] = '"';
      want[w] = 0;
      check_str(s, n, want);
    }
  }
}

/* ------------------------------------------------------------ JSON events */

static void sink_mem(sink *s)
{
  memset(s, 0, sizeof *s);
  s->cap = 1 << 16;
  s->buf = rpd_xmalloc(s->cap);
  s->fd = -1;
  s->prealloc = -1;
  s->wb = -1;
}

static void test_json_events(void **state)
{
  (void)state;
  static conv c;
  static const char want[] =
      "{\"ph\":\"X\",\"cat\":\"api\",\"pid\":100,\"tid\":101,\"name\":\"hip\\\"X\","
      "\"ts\":1700000000001.000,\"dur\":0.500,\"args\":{\"desc\":\"a\\\\b\"}},\n"
      "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"marker\",\"pid\":7,\"tid\":-2,\"name\":\"m\","
      "\"ts\":0.001,\"args\":{\"n\":-42}},\n"
      "{\"ph\":\"C\",\"cat\":\"monitor\",\"pid\":3,\"name\":\"sclk\",\"ts\":2.000,"
      "\"args\":{\"sclk\":1.5}},\n"
      "{\"ph\":\"C\",\"cat\":\"queue\",\"pid\":3,\"name\":\"depth\",\"ts\":2.000,"
      "\"args\":{\"depth\":3}},\n"
      "{\"ph\":\"s\",\"cat\":\"api_op\",\"name\":\"api_op\",\"id\":9,\"pid\":100,\"tid\":101,"
      "\"ts\":1.999}";
  sink_mem(&c.out);
  track_info t = {100, 101, 101, TRACK_API, 0};
  track_info m = {7, -2, -2, TRACK_API, 0};
  arg desc = {"desc", txt_z("a\\b"), 0, 0};
  arg n = {"n", txt_z(NULL), 1, -42};
  json_writer.slice(&c, "api", &t, txt_s("hip\"X", 5), 1700000000001000, 500, &desc, 0);
  json_writer.instant(&c, "marker", &m, txt_z("m"), 1, &n);
  json_writer.counter(&c, "monitor", 3, "sclk", 2000, "sclk", 0, 0, 1.5);
  json_writer.counter(&c, "queue", 3, "depth", 2000, "depth", 1, 3, 0);
  json_writer.flow(&c, 9, &t, 1999, 0);
  assert_int_equal(c.out.len, strlen(want));
  assert_memory_equal(c.out.buf, want, strlen(want));
  assert_int_equal(c.out.nevents, 5);
  free(c.out.buf);
  rpd_buf_free(&c.out.scratch);
}

/* ------------------------------------------------------------ protobuf */

static void check_bytes(const pb *b, const uint8_t *want, size_t n)
{
  assert_int_equal(b->len, n);
  assert_memory_equal(b->p, want, n);
}

static void test_varint(void **state)
{
  (void)state;
  static const struct {
    uint64_t v;
    uint8_t bytes[10];
    size_t n;
  } cases[] = {
      {0, {0x00}, 1},
      {1, {0x01}, 1},
      {127, {0x7f}, 1},
      {128, {0x80, 0x01}, 2},
      {150, {0x96, 0x01}, 2},            /* the protobuf documentation's example */
      {300, {0xac, 0x02}, 2},
      {16383, {0xff, 0x7f}, 2},
      {16384, {0x80, 0x80, 0x01}, 3},
      {1700000000118402ull, {0x82, 0x9d, 0x80, 0xc1, 0xc1, 0xc4, 0x82, 0x03}, 8},
      {UINT64_MAX, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint8_t q[16];
    memset(q, 0xee, sizeof q);
    assert_int_equal(put_varint(q, cases[i].v), cases[i].n);
    assert_memory_equal(q, cases[i].bytes, cases[i].n);
    assert_int_equal(q[cases[i].n], 0xee);
  }
}

static void test_fields(void **state)
{
  (void)state;
  pb b = {0};
  /* field 1 = 150: key (1 << 3 | 0) = 0x08 */
  pb_varint(&b, 1, 150);
  check_bytes(&b, (const uint8_t[]){0x08, 0x96, 0x01}, 3);
  /* field 2 = "testing": key 0x12, length 7 */
  b.len = 0;
  pb_bytes(&b, 2, "testing", 7);
  check_bytes(&b, (const uint8_t[]){0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'}, 9);
  /* a negative int64 as a varint: ten bytes; field 16 needs a 2-byte key
   * (16 << 3 = 128: 0x80 0x01) */
  b.len = 0;
  pb_varint(&b, 16, (uint64_t)(int64_t)-1);
  check_bytes(&b, (const uint8_t[]){0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                    0xff, 0x01}, 12);
  /* fixed64: field 1, key 0x09, little-endian */
  b.len = 0;
  pb_fixed64(&b, 1, 0x0102030405060708ull);
  check_bytes(&b, (const uint8_t[]){0x09, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01}, 9);
  /* double 1.5 (0x3FF8000000000000) as field 44 (a counter's double
   * value): key 44 << 3 | 1 = 353 = 0xE1 0x02 */
  b.len = 0;
  pb_double(&b, 44, 1.5);
  check_bytes(&b, (const uint8_t[]){0xe1, 0x02, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f}, 10);
  /* a message inside a message: TracePacket { timestamp (8) = 1000,
   * trusted_packet_sequence_id (10) = 1 } as Trace.packet (1) */
  pb inner = {0};
  pb_varint(&inner, 8, 1000);
  pb_varint(&inner, 10, 1);
  b.len = 0;
  pb_bytes(&b, 1, inner.p, inner.len);
  check_bytes(&b, (const uint8_t[]){0x0a, 0x05, 0x40, 0xe8, 0x07, 0x50, 0x01}, 7);
  /* a 200-byte string: its length takes two bytes (0xC8 0x01) */
  char big[200];
  memset(big, 'x', sizeof big);
  b.len = 0;
  pb_bytes(&b, 2, big, sizeof big);
  assert_int_equal(b.len, 203);
  assert_memory_equal(b.p, ((const uint8_t[]){0x12, 0xc8, 0x01}), 3);
  assert_memory_equal(b.p + 3, big, sizeof big);
  free(inner.p);
  free(b.p);
}

/* ------------------------------------------------------------ the sink */

/* A sink on a new file with the direct writes on (when the file takes
 * them): events of every size, one bigger than the buffer (which ends
 * direct mode), then a full flush; the file holds every byte handed in, in
 * order. */
static void test_sink_direct(void **state)
{
  (void)state;
  const char *tmp = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/test_tracing-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  unlink(path);
  for (int big = 0; big < 2; big++) {
    sink s;
    sink_mem(&s);
    s.cap = SINK_CHUNK;
    s.buf = rpd_xrealloc(s.buf, s.cap);
    s.fd = fd;
    s.prealloc = 0;
    s.wb = 0;
    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    sink_try_direct(&s);
    /* 3 MB in pieces of 1 to 5000 bytes, byte i = i * 7 mod 251 */
    size_t total = 3u << 20, done = 0, piece = 1;
    while (done < total) {
      size_t n = piece % 5000 + 1;
      if (n > total - done) n = total - done;
      if (big && done >= total / 2 && done < total / 2 + 5000) n = SINK_CHUNK + 12345;
      if (n > total - done) n = total - done;
      sink_reserve(&s, n);
      assert_true(s.len + n <= s.cap);
      for (size_t i = 0; i < n; i++) s.buf[s.len + i] = (char)((done + i) * 7 % 251);
      s.len += n;
      done += n;
      piece = piece * 31 + 17;
    }
    sink_flush(&s);
    assert_int_equal(s.failed, 0);
    assert_null(s.dio);
    assert_int_equal(s.total, (int64_t)total);
    assert_int_equal(lseek(fd, 0, SEEK_CUR), (off_t)total);
    unsigned char *back = rpd_xmalloc(total);
    assert_int_equal(pread(fd, back, total, 0), (ssize_t)total);
    size_t bad = total;
    for (size_t i = 0; i < total && bad == total; i++)
      if (back[i] != (unsigned char)(i * 7 % 251)) bad = i;
    assert_int_equal(bad, total);
    free(back);
    free(s.buf);
    rpd_buf_free(&s.scratch);
  }
  close(fd);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_w_i64),
      cmocka_unit_test(test_w_us),
      cmocka_unit_test(test_w_strn_plain),
      cmocka_unit_test(test_w_strn_escapes),
      cmocka_unit_test(test_w_strn_positions),
      cmocka_unit_test(test_json_events),
      cmocka_unit_test(test_varint),
      cmocka_unit_test(test_fields),
      cmocka_unit_test(test_sink_direct),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
