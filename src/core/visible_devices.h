/* Which devices a runtime shows, and in what order (internal; the device
 * order in backplane/device.h).
 *
 * Without a selection, devices are numbered by plugin: the built-in "vcpu"
 * type first, then the other device types in byte order of their names,
 * each plugin's devices in its own order. A selection
 * (BACKPLANE_VISIBLE_DEVICES or bp_runtime_options_t.visible_devices) is a
 * comma-separated list of `type:index` (a device as numbered without a
 * selection) or bare `type` (all that type's devices) entries: only the
 * devices listed are shown, in the order listed, and each type's devices are
 * renumbered from 0 in that order (as CUDA_VISIBLE_DEVICES does):
 * "vcpu:1,vcpu:0" shows the second vcpu device as vcpu:0. A plugin none of
 * whose devices is listed is not loaded. Not thread-safe: used while the
 * runtime is created. */
#ifndef BACKPLANE_CORE_VISIBLE_DEVICES_H_
#define BACKPLANE_CORE_VISIBLE_DEVICES_H_

#include <stdbool.h>
#include <stddef.h>

#include "backplane/status.h"

typedef struct bp_runtime bp_runtime_t;

typedef struct bp_visible_entry {
  char *text; /* as written, for messages */
  char *type;
  size_t index;        /* meaningful unless `all` */
  bool all;            /* a bare type */
  bool matched;        /* a plugin had the device */
  size_t type_devices; /* how many a plugin of `type` had; 0: none seen */
} bp_visible_entry_t;

typedef struct bp_visible_devices {
  const char *source; /* "BACKPLANE_VISIBLE_DEVICES" or the option's name */
  bp_visible_entry_t *entries;
  size_t count; /* 0: no selection, every device in the default order */
  char found_types[256]; /* of the plugins selected from, for messages */
} bp_visible_devices_t;

/* Parses `text` (NULL or "": no selection). BP_ERR_INVALID_ARGUMENT naming
 * `source` and the malformed or repeated entry. */
bp_status_t bp_visible_devices_parse(const char *text, const char *source,
                                     bp_visible_devices_t *out);
void bp_visible_devices_release(bp_visible_devices_t *visible);

/* Of a plugin's `count` devices of `type`, those shown, in order: writes
 * their indices into `shown` and each one's place in the runtime's order
 * into `rank` (both `count` long), and returns how many. Marks the entries
 * it matched. */
size_t bp_visible_devices_select(bp_visible_devices_t *visible,
                                 const char *type, size_t count, size_t *shown,
                                 size_t *rank);

/* After loading: BP_ERR_NOT_FOUND naming the first entry no plugin matched
 * (an unknown type, or an index past the type's devices). */
bp_status_t bp_visible_devices_check(const bp_visible_devices_t *visible);

/* Puts the runtime's devices in the order above (by the ranks `select`
 * gave, with a selection) and numbers their ordinals. */
void bp_runtime_order_devices(bp_runtime_t *runtime,
                              const bp_visible_devices_t *visible);

#endif /* BACKPLANE_CORE_VISIBLE_DEVICES_H_ */
