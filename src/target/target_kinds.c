/* The registry of target kinds: the built-in `vcpu` and `c`, then whatever
 * bp_target_kind_register() and loaded plugins (target_kind_acquire) add.
 * Process-wide (like the built-ins), guarded by one mutex; a registered kind is
 * copied and then never changes. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "target/target_internal.h"

/* Attributes every kind has (TVM adds the same ones to each kind). */
static const BP_TargetAttrSchema common_attrs[] = {
    {"keys", BP_TARGET_ATTR_STRING_ARRAY, 1, 0, 0, ""},
    {"libs", BP_TARGET_ATTR_STRING_ARRAY, 1, 0, 0, ""},
    {"device", BP_TARGET_ATTR_STRING, 0, 0, 0, NULL},
    {"tag", BP_TARGET_ATTR_STRING, 0, 0, 0, NULL},
};
enum { COMMON_ATTR_COUNT = sizeof(common_attrs) / sizeof(common_attrs[0]) };

/* The CPU-like attributes of both built-in kinds. vector_width counts
 * float32 lanes (8: 256-bit vectors). */
static const BP_TargetAttrSchema cpu_attrs[] = {
    {"num_cores", BP_TARGET_ATTR_INT, 1, 1, 1, NULL},
    {"max_num_threads", BP_TARGET_ATTR_INT, 1, 1, 1, NULL},
    {"warp_size", BP_TARGET_ATTR_INT, 1, 1, 1, NULL},
    {"max_shared_memory_per_block", BP_TARGET_ATTR_INT, 1, 0, 0, NULL},
    {"vector_width", BP_TARGET_ATTR_INT, 1, 8, 1, NULL},
    {"mcpu", BP_TARGET_ATTR_STRING, 0, 0, 0, NULL},
};
enum { CPU_ATTR_COUNT = sizeof(cpu_attrs) / sizeof(cpu_attrs[0]) };

typedef struct kind_node {
  target_kind_t kind;
  /* Registered for loaded plugins (target_kind_acquire): the extension they
   * share and how many hold it; NULL and 0 for a host's or built-in kind. */
  const BP_TargetKindExtension *plugin_kind;
  size_t plugin_refs;
  struct kind_node *next;
} kind_node_t;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;
static kind_node_t *registry_head; /* in registration order */

static int valid_name(const char *name) {
  if (!name || !*name)
    return 0;
  for (const char *p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
      return 0;
  return 1;
}

static char *copy_string(const char *text) {
  return text ? strdup(text) : NULL;
}

static void kind_free(target_kind_t *kind) {
  for (size_t i = 0; kind->attrs && i < kind->attr_count; i++) {
    free(kind->attrs[i].name);
    free(kind->attrs[i].default_string);
  }
  free(kind->attrs);
  free(kind->name);
  free(kind->device_type);
}

static bp_status_t copy_attr(target_attr_def_t *out,
                             const BP_TargetAttrSchema *in, const char *kind) {
  if (!valid_name(in->name))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_register: kind '%s' has an attribute "
                    "with an invalid name",
                    kind);
  if (in->type < BP_TARGET_ATTR_INT || in->type > BP_TARGET_ATTR_STRING_ARRAY)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_register: attribute '%s' of kind '%s' has "
                    "unknown type %d",
                    in->name, kind, (int)in->type);
  out->name = strdup(in->name);
  out->type = (BP_TargetAttrType)in->type;
  out->has_default = in->has_default != 0;
  out->default_int = in->default_int;
  out->min_int = in->min_int;
  out->default_string = copy_string(in->default_string);
  if (!out->name || (in->default_string && !out->default_string))
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_target_kind_register: out of "
                                          "memory");
  if (out->type == BP_TARGET_ATTR_INT && out->has_default &&
      out->default_int < out->min_int)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_register: attribute '%s' of kind '%s' "
                    "has a default below its minimum",
                    in->name, kind);
  return BP_OK;
}

/* Copies `ext` into `kind` (schema attributes, then the common ones with the
 * kind's default keys). */
static bp_status_t kind_copy(target_kind_t *kind,
                             const BP_TargetKindExtension *ext) {
  memset(kind, 0, sizeof(*kind));
  kind->name = strdup(ext->name);
  kind->device_type = copy_string(ext->device_type);
  kind->attrs =
      calloc(ext->attr_count + COMMON_ATTR_COUNT, sizeof(*kind->attrs));
  if (!kind->name || !kind->attrs || (ext->device_type && !kind->device_type))
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_target_kind_register: out of memory");
  kind->from_device = ext->from_device;
  kind->build = ext->build;
  for (size_t i = 0; i < ext->attr_count + COMMON_ATTR_COUNT; i++) {
    const BP_TargetAttrSchema *in = i < ext->attr_count
                                        ? &ext->attrs[i]
                                        : &common_attrs[i - ext->attr_count];
    kind->attr_count = i + 1;
    bp_status_t status = copy_attr(&kind->attrs[i], in, ext->name);
    if (status != BP_OK)
      return status;
    for (size_t j = 0; j < i; j++)
      if (!strcmp(kind->attrs[j].name, in->name))
        return bp_error(BP_ERR_INVALID_ARGUMENT,
                        "bp_target_kind_register: kind '%s' names attribute "
                        "'%s' twice (or a common attribute)",
                        ext->name, in->name);
    if (!strcmp(in->name, "kind") || !strcmp(in->name, "host"))
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "bp_target_kind_register: attribute name '%s' of kind "
                      "'%s' is reserved",
                      in->name, ext->name);
  }
  target_attr_def_t *keys = &kind->attrs[ext->attr_count];
  free(keys->default_string);
  keys->default_string = strdup(ext->default_keys ? ext->default_keys : "");
  if (!keys->default_string)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_target_kind_register: out of memory");
  return BP_OK;
}

static kind_node_t *find_locked(const char *name) {
  for (kind_node_t *node = registry_head; node; node = node->next)
    if (!strcmp(node->kind.name, name))
      return node;
  return NULL;
}

/* Adds `ext` as a host's (`plugin` 0) or a plugin's kind; a plugin's kind
 * already registered from the same extension (the same plugin loaded by
 * another runtime) gains a holder instead. */
static bp_status_t register_kind(const BP_TargetKindExtension *ext, int builtin,
                                 int plugin) {
  if (!ext)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_register: kind is NULL");
  if (ext->base.struct_size < sizeof(BP_TargetKindExtension) ||
      ext->base.type != BP_EXTENSION_TARGET_KIND)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_register: not a BP_TargetKindExtension "
                    "(struct_size %zu, type %d)",
                    ext->base.struct_size, (int)ext->base.type);
  if (!valid_name(ext->name))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_register: invalid kind name '%s' "
                    "(expected [a-z0-9_]+)",
                    ext->name ? ext->name : "(null)");
  if (ext->attr_count && !ext->attrs)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_register: kind '%s' has attr_count %zu "
                    "but no attrs",
                    ext->name, ext->attr_count);
  kind_node_t *node = calloc(1, sizeof(*node));
  if (!node)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_target_kind_register: out of memory");
  bp_status_t status = kind_copy(&node->kind, ext);
  if (status != BP_OK) {
    kind_free(&node->kind);
    free(node);
    return status;
  }
  node->kind.builtin = builtin;
  node->plugin_kind = plugin ? ext : NULL;
  node->plugin_refs = plugin ? 1 : 0;
  pthread_mutex_lock(&registry_lock);
  kind_node_t *existing = find_locked(ext->name);
  if (existing && plugin && existing->plugin_kind == ext) {
    existing->plugin_refs++;
    pthread_mutex_unlock(&registry_lock);
    kind_free(&node->kind);
    free(node);
    return BP_OK;
  }
  if (existing) {
    pthread_mutex_unlock(&registry_lock);
    kind_free(&node->kind);
    free(node);
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_register: kind '%s' exists already",
                    ext->name);
  }
  kind_node_t **tail = &registry_head;
  while (*tail)
    tail = &(*tail)->next;
  *tail = node;
  pthread_mutex_unlock(&registry_lock);
  return BP_OK;
}

static void register_builtins(void) {
  static const BP_TargetKindExtension builtins[] = {
      {{sizeof(BP_TargetKindExtension), BP_EXTENSION_TARGET_KIND, 0, NULL},
       "vcpu",
       "vcpu",
       cpu_attrs,
       CPU_ATTR_COUNT,
       "vcpu,cpu",
       NULL,
       NULL},
      {{sizeof(BP_TargetKindExtension), BP_EXTENSION_TARGET_KIND, 0, NULL},
       "c",
       NULL,
       cpu_attrs,
       CPU_ATTR_COUNT,
       "cpu",
       NULL,
       NULL},
  };
  for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
    /* Valid static data: only memory can fail, leaving the kind unknown. */
    (void)register_kind(&builtins[i], 1, 0);
}

const target_kind_t *target_kind_find(const char *name) {
  pthread_once(&builtins_once, register_builtins);
  pthread_mutex_lock(&registry_lock);
  kind_node_t *node = name ? find_locked(name) : NULL;
  pthread_mutex_unlock(&registry_lock);
  return node ? &node->kind : NULL;
}

const target_kind_t *target_kind_for_device(const char *device_type) {
  pthread_once(&builtins_once, register_builtins);
  const target_kind_t *found = NULL;
  pthread_mutex_lock(&registry_lock);
  for (kind_node_t *node = registry_head; node && device_type && !found;
       node = node->next)
    if (node->kind.device_type && !strcmp(node->kind.device_type, device_type))
      found = &node->kind;
  pthread_mutex_unlock(&registry_lock);
  return found;
}

int target_kind_attr_index(const target_kind_t *kind, const char *name) {
  for (size_t i = 0; i < kind->attr_count; i++)
    if (!strcmp(kind->attrs[i].name, name))
      return (int)i;
  return -1;
}

bp_status_t bp_target_kind_register(const BP_TargetKindExtension *kind) {
  pthread_once(&builtins_once, register_builtins);
  return register_kind(kind, 0, 0);
}

bp_status_t target_kind_acquire(const BP_TargetKindExtension *kind) {
  pthread_once(&builtins_once, register_builtins);
  return register_kind(kind, 0, 1);
}

void target_kind_release(const BP_TargetKindExtension *kind) {
  pthread_mutex_lock(&registry_lock);
  kind_node_t **link = &registry_head;
  while (*link && (*link)->plugin_kind != kind)
    link = &(*link)->next;
  kind_node_t *node = *link;
  if (node && --node->plugin_refs == 0)
    *link = node->next;
  else
    node = NULL;
  pthread_mutex_unlock(&registry_lock);
  if (node) {
    kind_free(&node->kind);
    free(node);
  }
}

bp_status_t bp_target_kind_unregister(const char *name) {
  pthread_once(&builtins_once, register_builtins);
  if (!name)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_unregister: name is NULL");
  pthread_mutex_lock(&registry_lock);
  kind_node_t **link = &registry_head;
  while (*link && strcmp((*link)->kind.name, name))
    link = &(*link)->next;
  kind_node_t *node = *link;
  int plugin_held = node && node->plugin_refs > 0;
  if (node && !node->kind.builtin && !plugin_held)
    *link = node->next;
  pthread_mutex_unlock(&registry_lock);
  if (!node)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_target_kind_unregister: no target kind '%s'", name);
  if (node->kind.builtin)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_target_kind_unregister: '%s' is a built-in kind", name);
  if (plugin_held)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_unregister: '%s' belongs to a loaded "
                    "plugin (it goes when the plugin is unloaded)",
                    name);
  kind_free(&node->kind);
  free(node);
  return BP_OK;
}

bp_status_t bp_target_kind_list(const char ***out_names) {
  pthread_once(&builtins_once, register_builtins);
  if (!out_names)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_kind_list: out_names is NULL");
  pthread_mutex_lock(&registry_lock);
  size_t count = 0;
  for (kind_node_t *node = registry_head; node; node = node->next)
    count++;
  const char **names = calloc(count + 1, sizeof(*names));
  count = 0;
  for (kind_node_t *node = registry_head; names && node; node = node->next)
    names[count++] = node->kind.name;
  pthread_mutex_unlock(&registry_lock);
  if (!names)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_target_kind_list: out of memory");
  *out_names = names;
  return BP_OK;
}
