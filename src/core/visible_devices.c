/* The runtime's device order and BACKPLANE_VISIBLE_DEVICES
 * (core/visible_devices.h). */
#include "core/visible_devices.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "core/device_table.h"
#include "core/runtime_internal.h"

/* A plugin has at most this many devices (the loader's limit), so an
 * entry's place and a device's index fit one rank. */
#define MAX_DEVICES_PER_PLUGIN 4096

/* The type the default order puts first. */
#define FIRST_TYPE "vcpu"

void bp_visible_devices_release(bp_visible_devices_t *visible) {
  for (size_t i = 0; i < visible->count; ++i) {
    free(visible->entries[i].text);
    free(visible->entries[i].type);
  }
  free(visible->entries);
  visible->entries = NULL;
  visible->count = 0;
}

static bool same_device(const bp_visible_entry_t *a,
                        const bp_visible_entry_t *b) {
  return strcmp(a->type, b->type) == 0 &&
         (a->all || b->all || a->index == b->index);
}

/* Fills `entry` from `text` (one entry, trimmed, not empty). */
static bp_status_t parse_entry(char *text, const char *source,
                               bp_visible_entry_t *entry) {
  entry->text = strdup(text);
  char *colon = strchr(text, ':');
  if (colon)
    *colon = '\0';
  entry->type = strdup(text);
  if (!entry->text || !entry->type)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_runtime_create: out of memory");
  entry->all = colon == NULL;
  if (colon) {
    const char *digits = colon + 1;
    char *end = NULL;
    errno = 0;
    unsigned long long index = strtoull(digits, &end, 10);
    if (!*digits || *end || errno || *digits < '0' || *digits > '9' ||
        index >= MAX_DEVICES_PER_PLUGIN || !*text)
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "bp_runtime_create: %s entry \"%s\" is not a device "
                      "type or type:index (e.g. vcpu or vcpu:1)",
                      source, entry->text);
    entry->index = (size_t)index;
  }
  return BP_OK;
}

bp_status_t bp_visible_devices_parse(const char *text, const char *source,
                                     bp_visible_devices_t *out) {
  *out = (bp_visible_devices_t){.source = source};
  if (!text || !*text)
    return BP_OK;
  char *copy = strdup(text);
  size_t capacity = 1;
  for (const char *p = text; *p; ++p)
    capacity += *p == ',';
  out->entries = calloc(capacity, sizeof *out->entries);
  if (!copy || !out->entries) {
    free(copy);
    free(out->entries);
    out->entries = NULL;
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_runtime_create: out of memory");
  }
  bp_status_t status = BP_OK;
  char *rest = copy;
  for (char *item; status == BP_OK && (item = strsep(&rest, ",")) != NULL;) {
    while (*item == ' ')
      ++item;
    size_t n = strlen(item);
    while (n && item[n - 1] == ' ')
      item[--n] = '\0';
    if (!n) {
      status = bp_error(BP_ERR_INVALID_ARGUMENT,
                        "bp_runtime_create: %s \"%s\" has an empty entry",
                        source, text);
      break;
    }
    bp_visible_entry_t *entry = &out->entries[out->count++];
    status = parse_entry(item, source, entry);
    for (size_t i = 0; status == BP_OK && i + 1 < out->count; ++i)
      if (same_device(&out->entries[i], entry))
        status = bp_error(BP_ERR_INVALID_ARGUMENT,
                          "bp_runtime_create: %s lists a device twice (\"%s\" "
                          "and \"%s\")",
                          source, out->entries[i].text, entry->text);
  }
  free(copy);
  if (status != BP_OK)
    bp_visible_devices_release(out);
  return status;
}

size_t bp_visible_devices_select(bp_visible_devices_t *visible,
                                 const char *type, size_t count, size_t *shown,
                                 size_t *rank) {
  if (!visible->count) {
    for (size_t i = 0; i < count; ++i)
      shown[i] = rank[i] = i;
    return count;
  }
  size_t used = strlen(visible->found_types);
  snprintf(visible->found_types + used, sizeof visible->found_types - used,
           "%s%s", used ? ", " : "", type);
  size_t n = 0;
  for (size_t e = 0; e < visible->count; ++e) {
    bp_visible_entry_t *entry = &visible->entries[e];
    if (strcmp(entry->type, type) != 0)
      continue;
    entry->type_devices = count;
    for (size_t i = 0; i < count; ++i)
      if (entry->all || entry->index == i) {
        shown[n] = i;
        rank[n++] = e * MAX_DEVICES_PER_PLUGIN + i;
        entry->matched = true;
      }
  }
  return n;
}

bp_status_t bp_visible_devices_check(const bp_visible_devices_t *visible) {
  for (size_t e = 0; e < visible->count; ++e) {
    const bp_visible_entry_t *entry = &visible->entries[e];
    if (entry->matched)
      continue;
    if (entry->type_devices) /* a bare type matches every device */
      return bp_error(BP_ERR_NOT_FOUND,
                      "bp_runtime_create: %s entry \"%s\": %s has no device "
                      "%zu (it has %zu, numbered from 0)",
                      visible->source, entry->text, entry->type, entry->index,
                      entry->type_devices);
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_runtime_create: %s entry \"%s\": no plugin provides "
                    "device type \"%s\" (found: %s)",
                    visible->source, entry->text, entry->type,
                    *visible->found_types ? visible->found_types : "none");
  }
  return BP_OK;
}

/* The default order: FIRST_TYPE, then the other types by name; within a
 * type, by index. */
static int compare_default(const void *a, const void *b) {
  const bp_device_t *x = *(bp_device_t *const *)a;
  const bp_device_t *y = *(bp_device_t *const *)b;
  const char *tx = x->plugin->device_type, *ty = y->plugin->device_type;
  int first_x = strcmp(tx, FIRST_TYPE) == 0,
      first_y = strcmp(ty, FIRST_TYPE) == 0;
  if (first_x != first_y)
    return first_y - first_x;
  int by_type = strcmp(tx, ty);
  if (by_type)
    return by_type;
  return (x->index > y->index) - (x->index < y->index);
}

static int compare_rank(const void *a, const void *b) {
  const bp_device_t *x = *(bp_device_t *const *)a;
  const bp_device_t *y = *(bp_device_t *const *)b;
  return (x->visible_rank > y->visible_rank) -
         (x->visible_rank < y->visible_rank);
}

void bp_runtime_order_devices(bp_runtime_t *runtime,
                              const bp_visible_devices_t *visible) {
  if (runtime->device_count)
    qsort(runtime->devices, runtime->device_count, sizeof *runtime->devices,
          visible->count ? compare_rank : compare_default);
  for (size_t i = 0; i < runtime->device_count; ++i)
    runtime->devices[i]->ordinal = i;
}
