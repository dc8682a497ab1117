/* attach.c - rpd handles over connections the caller owns (rpd_attach),
 * so that no tool fills a struct rpd by hand. */
#include "rpd.h"
#include "internal.h"

#include <stdlib.h>

rpd *rpd_attach(sqlite3 *db, int schema, int flags)
{
  rpd *r = rpd_xcalloc(1, sizeof *r);

  r->db = db;
  r->schema = schema;
  r->flags = flags;
  r->lock_fd = -1;
  return r;
}

void rpd_detach(rpd *r)
{
  if (r)
    rpd__opclass_drop(r);
  free(r);
}
