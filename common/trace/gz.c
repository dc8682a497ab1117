/* gz.c - copies of a trace's file: gunzip (with its gzip-bomb limits),
 * gzip, plain copy, each with the progress line. */
#define _GNU_SOURCE
#include "rpd.h"
#include "internal.h"
#include "opening.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define IOBUF (1 << 20)

/* The size of the open file fd (progress totals), -1 if unknown. */
static int64_t fd_size(int fd)
{
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
}

/* The progress line of a file copy: done of total bytes (total < 0:
 * unknown); only rpd_progress_end says 100%. */
static void copy_progress(const char *what, int64_t done, int64_t total)
{
  rpd_progress_bytes(what, total > 0 && done >= total ? total - 1 : done, total);
}

/* Limits on what a .gz may inflate to: past GZ_FREE bytes, at most
 * GZ_MAX_RATIO times the compressed size (SQLite traces compress 3-10x;
 * zeros compress 1000x, which is what a gzip bomb is made of). */
#define GZ_FREE ((int64_t)64 << 20)
#define GZ_MAX_RATIO 50

static int gz_too_big(int64_t out, int64_t in)
{
  return out > GZ_FREE && out / GZ_MAX_RATIO > in;
}

static int gz_bomb(void)
{
  return rpd_seterr(RPD_EGZIP, "gzip data inflating to more than %d times its size "
                    "(a gzip bomb?); decompress it yourself if it is genuine", GZ_MAX_RATIO);
}

/* The first 100 inflated bytes (the SQLite header, n of them): RPD_OK and
 * *limit = the database size the header gives (-1 when it gives none), or
 * an error before anything big was written.  `compressed` is the size of
 * the .gz. */
static int sqlite_header_of_gz(const unsigned char *h, size_t n, int64_t compressed, int64_t *limit)
{
  unsigned page;
  uint32_t pages;

  *limit = -1;
  if (n == 0) return RPD_OK;                  /* empty: said after the copy */
  if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
    return rpd_seterr(RPD_ENOTDB, "not an SQLite database (compressed twice?)");
  if (n < sizeof sqlite_magic || memcmp(h, sqlite_magic, sizeof sqlite_magic) != 0)
    return rpd_seterr(RPD_ENOTDB, "not an SQLite database (the gzip data holds something else)");
  if (n < 100) return RPD_OK;                 /* a header cut short: SQLite says */
  page = (unsigned)h[16] << 8 | h[17];
  if (page == 1) page = 65536;
  if (page < 512 || (page & (page - 1)))
    return rpd_seterr(RPD_ENOTDB, "not an SQLite database (bad page size in the header)");
  pages = (uint32_t)h[28] << 24 | (uint32_t)h[29] << 16 | (uint32_t)h[30] << 8 | h[31];
  /* the size is valid when the change counter matches "version valid for"
   * (every SQLite since 3.7.0 writes it so) */
  if (pages && memcmp(h + 24, h + 92, 4) == 0) {
    *limit = (int64_t)pages * page;
    if (compressed > 0 && gz_too_big(*limit, compressed)) return gz_bomb();
  }
  return RPD_OK;
}

/* Decompress the gzip file src into the open file dst_fd.  Checked as it
 * goes: the SQLite header first (nothing big is written for what is not a
 * database), the inflate ratio, and that nothing but further gzip members
 * follows the data (gzip(1) ignores trailing garbage; we refuse it). */
/* Decompress the gzip file src into the open file dst_fd. */
int gunzip_to(const char *src, int dst_fd)
{
  int fd = open(src, O_RDONLY | O_CLOEXEC), rc = RPD_OK, zr, ended = 0;
  enum { INBUF = 1 << 18 };
  unsigned char hdr[100], *in, *out;
  size_t hdr_n = 0;
  int64_t total, in_total = 0, out_total = 0, limit = -1;
  z_stream z;

  if (fd < 0) return errno_status(errno, "cannot read");
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 16) != Z_OK) {           /* gzip wrapper only */
    close(fd);
    return rpd_seterr(RPD_ENOMEM, "out of memory for gzip");
  }
  in = rpd_xmalloc(INBUF);
  out = rpd_xmalloc(IOBUF);
  total = fd_size(fd);
  for (;;) {
    if (z.avail_in == 0) {
      ssize_t n = read(fd, in, INBUF);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) { rc = errno_status(errno, "cannot read"); break; }
      if (n == 0) break;
      in_total += n;
      z.next_in = in;
      z.avail_in = (uInt)n;
    }
    if (ended) {          /* a member ended: another one, or garbage */
      if (z.next_in[0] != 0x1f || (z.avail_in > 1 && z.next_in[1] != 0x8b)) {
        rc = rpd_seterr(RPD_EGZIP, "data after the end of the gzip stream (%" PRId64
                        " bytes); not a clean .gz", (int64_t)z.avail_in +
                        (total > in_total ? total - in_total : 0));
        break;
      }
      inflateReset(&z);
      ended = 0;
    }
    z.next_out = out;
    z.avail_out = IOBUF;
    zr = inflate(&z, Z_NO_FLUSH);
    if (zr == Z_STREAM_END) ended = 1;
    else if (zr != Z_OK && !(zr == Z_BUF_ERROR && z.avail_in == 0)) {
      rc = zr == Z_MEM_ERROR ? rpd_seterr(RPD_ENOMEM, "out of memory for gzip")
                             : rpd_seterr(RPD_EGZIP, "truncated or corrupt gzip data");
      break;
    }
    size_t got = IOBUF - z.avail_out, skip = 0;
    if (hdr_n < sizeof hdr && got) {
      size_t k = got < sizeof hdr - hdr_n ? got : sizeof hdr - hdr_n;
      memcpy(hdr + hdr_n, out, k);
      hdr_n += k;
      if (hdr_n == sizeof hdr && (rc = sqlite_header_of_gz(hdr, hdr_n, total, &limit))) break;
    }
    out_total += (int64_t)got;
    if (gz_too_big(out_total, in_total - z.avail_in)) { rc = gz_bomb(); break; }
    /* SQLite reads no further than the size its header gives: bytes past
     * it are inflated (for the checksum) but not stored */
    if (limit >= 0 && out_total > limit)
      skip = (size_t)(out_total - limit < (int64_t)got ? out_total - limit : (int64_t)got);
    if (got > skip && (rc = write_all(dst_fd, (const char *)out, got - skip))) break;
    copy_progress("decompressing", in_total - z.avail_in, total);
  }
  if (!rc && !ended) rc = rpd_seterr(RPD_EGZIP, "truncated or corrupt gzip data");
  if (!rc && hdr_n < sizeof hdr) rc = sqlite_header_of_gz(hdr, hdr_n, total, &limit);
  rpd_progress_end();
  inflateEnd(&z);
  free(in);
  free(out);
  close(fd);
  return rc;
}

/* Compress the file src into the open file dst_fd (gzip, level from
 * RPD_GZIP_LEVEL, default 6). */
int gzip_to(const char *src, int dst_fd)
{
  const char *lv = getenv("RPD_GZIP_LEVEL");
  char mode[4] = "wb6";
  int fd, dfd, rc = RPD_OK;
  gzFile g;
  char *buf;

  if (lv && lv[0] >= '0' && lv[0] <= '9' && !lv[1]) mode[2] = lv[0];
  if ((fd = open(src, O_RDONLY | O_CLOEXEC)) < 0) return errno_status(errno, "cannot read work file");
  if ((dfd = dup(dst_fd)) < 0) { close(fd); return errno_status(errno, "dup"); }
  if (!(g = gzdopen(dfd, mode))) {
    close(fd);
    close(dfd);
    return rpd_seterr(RPD_ENOMEM, "out of memory for gzip");
  }
  gzbuffer(g, 1 << 18);
  buf = rpd_xmalloc(IOBUF);
  int64_t total = fd_size(fd), done = 0;
  for (;;) {
    ssize_t n = read(fd, buf, IOBUF);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) { rc = errno_status(errno, "cannot read work file"); break; }
    if (n == 0) break;
    copy_progress("compressing", done += n, total);
    if (gzwrite(g, buf, (unsigned)n) != (int)n) {
      int zerr;
      const char *m = gzerror(g, &zerr);
      rc = zerr == Z_ERRNO ? errno_status(errno, "cannot write compressed file")
                           : rpd_seterr(RPD_EIO, "gzip: %s", m);
      break;
    }
  }
  rpd_progress_end();
  free(buf);
  close(fd);
  if (gzclose_w(g) != Z_OK && !rc)
    rc = rpd_seterr(RPD_EIO, "cannot write compressed file: %s", strerror(errno));
  return rc;
}

/* Copy the plain file src into dst_fd. */
int copy_to(const char *src, int dst_fd)
{
  int fd = open(src, O_RDONLY | O_CLOEXEC), rc = RPD_OK;
  char *buf;

  if (fd < 0) return errno_status(errno, "cannot read");
  buf = rpd_xmalloc(IOBUF);
  int64_t total = fd_size(fd), done = 0;
  for (;;) {
    ssize_t n = read(fd, buf, IOBUF);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) { rc = errno_status(errno, "cannot read"); break; }
    if (n == 0) break;
    if ((rc = write_all(dst_fd, buf, (size_t)n))) break;
    copy_progress("copying", done += n, total);
  }
  rpd_progress_end();
  free(buf);
  close(fd);
  return rc;
}
