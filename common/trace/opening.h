/* opening.h - what the files that open a trace share: open.c (opening,
 * writing, closing), files.c (temp files, the input's kind, writable checks),
 * gz.c (gzip and plain copies), readonly.c (read-only and WAL traces) and
 * detect.c (schema detection).  Private to common/trace/.  Each keeps its
 * short name in the code and is the symbol rpd__NAME in the library, so
 * that nothing else can collide with it. */
#ifndef RPD_OPENING_H
#define RPD_OPENING_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "rpd.h"
#include "internal.h"

/* What the first bytes of a file say it is (sniff). */
enum { KIND_SQLITE = 1, KIND_GZIP = 2 };

/* "SQLite format 3" and its NUL: the first 16 bytes of a database. */
#define sqlite_magic rpd__sqlite_magic
extern const char sqlite_magic[16];

/* The temp file list lives in outfile.c (rpd_cleanup_temps). */
#define temp_forget rpd__temp_forget
#define temp_remove rpd__temp_remove

/* files.c */
#define temp_next_to rpd__temp_next_to
int temp_next_to(const char *path, char **tmp, int *fdp);
#define reclaim_near rpd__reclaim_near
void reclaim_near(const char *path);
#define temp_in_dir rpd__temp_in_dir
int temp_in_dir(const char *dir, char **tmp, int *fdp);
#define tmpdir rpd__tmpdir
const char *tmpdir(void);
#define dir_of rpd__dir_of
char *dir_of(const char *path);
#define ends_with rpd__ends_with
int ends_with(const char *s, const char *suffix);
#define errno_status rpd__errno_status
int errno_status(int err, const char *what);
#define write_all rpd__write_all
int write_all(int fd, const char *p, size_t n);
#define stat_input rpd__stat_input
int stat_input(const char *path, struct stat *st);
#define sniff rpd__sniff
int sniff(const char *path, int *kind);
#define check_writable_file rpd__check_writable_file
int check_writable_file(const char *path, const struct stat *st, const char *msg);
#define check_writable_dir rpd__check_writable_dir
int check_writable_dir(const char *dir, const char *msg);
#define new_file_mode rpd__new_file_mode
mode_t new_file_mode(void);
#define fsync_dir rpd__fsync_dir
void fsync_dir(const char *dir);

/* gz.c */
#define gunzip_to rpd__gunzip_to
int gunzip_to(const char *src, int dst_fd);
#define gzip_to rpd__gzip_to
int gzip_to(const char *src, int dst_fd);
#define copy_to rpd__copy_to
int copy_to(const char *src, int dst_fd);

/* open.c */
#define busy_timeout_ms rpd__busy_timeout_ms
int busy_timeout_ms(void);
#define open_db rpd__open_db
int open_db(rpd *r, int writable, int is_temp);
#define make_work_copy rpd__make_work_copy
int make_work_copy(rpd *r, const char *near, int kind);

/* readonly.c */
#define open_db_read rpd__open_db_read
int open_db_read(rpd *r);
#define open_read rpd__open_read
int open_read(rpd *r);

/* detect.c */
#define detect rpd__detect
int detect(sqlite3 *db, int *schema);

#endif
