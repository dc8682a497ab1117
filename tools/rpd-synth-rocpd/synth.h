/* synth.h - rpd-synth-rocpd internals: the schema tables (schema.c) used
 * by the generator (main.c). */
#ifndef RPD_SYNTH_ROCPD_H
#define RPD_SYNTH_ROCPD_H

/* The per-guid tables: base name and columns after "id" and "guid" (our
 * own text of rocprofv3's column names and declared types). */
typedef struct tdef {
  const char *name, *cols;
} tdef;

/* The per-guid tables in creation order (rocpd_metadata first). */
extern const tdef rocpd_tables[];
extern const int rocpd_ntables;
/* CREATE VIEW statements of the derived views (after the rocpd_* views). */
extern const char *const rocpd_views[];
extern const int rocpd_nviews;

#endif
