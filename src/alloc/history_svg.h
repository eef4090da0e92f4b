/* A history snapshot drawn as SVG (internal; bp_memory_snapshot_to_svg
 * calls it for a snapshot whose format is the history's): per device a
 * timeline of live bytes, one step line per stream and one for the
 * device, reserved (chunk) bytes dashed, the peak of live bytes marked. */
#ifndef BACKPLANE_ALLOC_HISTORY_SVG_H_
#define BACKPLANE_ALLOC_HISTORY_SVG_H_

#include <jansson.h>

#include "backplane/status.h"

/* The caller free()s *out_svg; errors as bp_timeline_build's. */
bp_status_t bp_history_svg(json_t *root, const char *function, char **out_svg);

#endif /* BACKPLANE_ALLOC_HISTORY_SVG_H_ */
