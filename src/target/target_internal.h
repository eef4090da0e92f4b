/* Targets inside libbackplane: kinds (a registry of schemas) and the target
 * object. A kind is immutable once registered and lives until unregistered;
 * a target points at its kind. */
#ifndef BACKPLANE_TARGET_INTERNAL_H_
#define BACKPLANE_TARGET_INTERNAL_H_

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/target_ext.h"

/* One attribute of a kind, its schema attributes then the common ones. */
typedef struct target_attr_def {
  char *name;
  BP_TargetAttrType type;
  int has_default;
  int64_t default_int, min_int;
  char *default_string; /* STRING; STRING_ARRAY: comma-separated */
} target_attr_def_t;

typedef struct target_kind {
  char *name;
  char *device_type;
  size_t attr_count;
  target_attr_def_t *attrs;
  C_Status (*from_device)(const C_Device device, char *json, size_t capacity);
  BP_TargetBuildFn build; /* the extension's builder; NULL for none */
  int builtin;
} target_kind_t;

typedef struct target_value {
  int present;
  int64_t i;      /* INT */
  char *s;        /* STRING */
  char **strings; /* STRING_ARRAY, NULL-terminated */
} target_value_t;

struct bp_target {
  const target_kind_t *kind;
  target_value_t *values; /* kind->attr_count, in the kind's order */
  bp_target_t *host;      /* NULL if none */
};

/* The kind called `name`, or NULL (no error set). Thread-safe. */
const target_kind_t *target_kind_find(const char *name);
/* The kind whose device_type is `device_type`, or NULL. Thread-safe. */
const target_kind_t *target_kind_for_device(const char *device_type);
/* A loaded plugin's kind (its BP_TargetKindExtension), registered at load
 * and released at unload: holders of the same extension share the kind,
 * which goes with the last one; errors as bp_target_kind_register. While
 * held, bp_target_kind_unregister refuses it. Thread-safe. */
bp_status_t target_kind_acquire(const BP_TargetKindExtension *kind);
void target_kind_release(const BP_TargetKindExtension *kind);
/* The index of attribute `name` in `kind`, or -1. */
int target_kind_attr_index(const target_kind_t *kind, const char *name);

/* A new target from a JSON object ({"kind": ..., attributes..., "host":
 * ...}); validates and fills defaults. `what` names the input in messages
 * ("target", "target of vcpu:0"). */
bp_status_t target_from_json_object(const json_t *object, const char *what,
                                    bp_target_t **out_target);

/* The canonical JSON object of `target` (a new reference), or NULL when out
 * of memory. */
json_t *target_json_object(const bp_target_t *target);

/* Splits a comma-separated list into a NULL-terminated array ("" gives an
 * empty array); NULL when out of memory. Free with target_strings_free. */
char **target_strings_split(const char *text);
void target_strings_free(char **strings);

/* Target predicates of kernel variants (core/target_hooks.h has the
 * rules): check against the kinds' schemas, match against canonical JSON. */
bp_status_t target_predicate_check(const char *predicate, char *why,
                                   size_t capacity);
int target_predicate_match(const char *target_json, const char *predicate,
                           char *why, size_t capacity);

/* FNV-1a, 64 bits: the hash of targets and build keys. */
uint64_t target_fnv1a(const void *data, size_t size, uint64_t seed);
#define TARGET_FNV_SEED 0xcbf29ce484222325ull

#endif /* BACKPLANE_TARGET_INTERNAL_H_ */
