/*
 * Backplane vendor face: the target-kind extension.
 *
 * A target is the description of a device that code generators read instead
 * of querying the device (target.h). Backplane knows the kinds `vcpu` and
 * `c`; a plugin adds its own kind by exporting this extension in its
 * BackplanePluginExtensions() chain (device_ext.h), or a host registers one
 * with bp_target_kind_register(). Fields are only ever appended; Backplane
 * reads a field only if `base.struct_size` covers it.
 */
#ifndef BACKPLANE_TARGET_EXT_H_
#define BACKPLANE_TARGET_EXT_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "backplane/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The type of one target attribute. */
typedef enum BP_TargetAttrType {
  BP_TARGET_ATTR_INT = 1,          /* a JSON integer, `-name=12` */
  BP_TARGET_ATTR_STRING = 2,       /* a JSON string, `-name=text` */
  BP_TARGET_ATTR_STRING_ARRAY = 3, /* a JSON array of strings, `-name=a,b` */
} BP_TargetAttrType;

/* One attribute of a kind's schema. Every kind also has the common
 * attributes `keys`, `libs` (string arrays), `device`, `tag` (strings) and
 * `host` (a nested target); a schema must not repeat them. */
typedef struct BP_TargetAttrSchema {
  const char *name; /* [a-z0-9_]+ */
  int32_t type;     /* a BP_TargetAttrType */
  /* Nonzero: the attribute takes the default below when not given.
   * Zero: it stays absent from the target until given. */
  int32_t has_default;
  int64_t default_int;        /* BP_TARGET_ATTR_INT */
  int64_t min_int;            /* BP_TARGET_ATTR_INT: smallest valid value */
  const char *default_string; /* STRING; STRING_ARRAY: comma-separated */
} BP_TargetAttrSchema;

/* Builds a module for a target of this kind: `target.build.<name>`.
 * `ir_json` is the IR module's canonical JSON (build.h), `target_json` the
 * target's canonical JSON. Writes a shared object whose every IR function is
 * an exported `unsigned int fn(void *param)` at `out_path`. On failure
 * returns C_FAILED (or C_ERROR for IR it does not accept) with a
 * NUL-terminated reason in `message` (`capacity` bytes). Must not query a
 * device. Called from any thread; must be thread-safe. */
typedef C_Status (*BP_TargetBuildFn)(const char *ir_json,
                                     const char *target_json,
                                     const char *out_path, char *message,
                                     size_t capacity);

typedef struct BP_TargetKindExtension {
  BP_ExtensionBase base;   /* type = BP_EXTENSION_TARGET_KIND */
  const char *name;        /* the kind, e.g. "mychip"; [a-z0-9_]+ */
  const char *device_type; /* the plugin device_type it describes */
  const BP_TargetAttrSchema *attrs;
  size_t attr_count;
  const char *default_keys; /* comma-separated, e.g. "mychip,gpu" */
  /* The canonicalizer (TVM's target parser run on a live device): writes a
   * JSON object of attributes read from `device` into `json`
   * (`capacity` bytes, NUL-terminated), e.g. `{"arch": "v3"}`. They override
   * the defaults and the generic device-attribute mapping, and are
   * validated against the schema. NULL: only the generic mapping. */
  C_Status (*from_device)(const C_Device device, char *json, size_t capacity);
  /* NULL: the kind has no code generator (bp_build says so). */
  BP_TargetBuildFn build;
} BP_TargetKindExtension;

/* Adds a kind (copied: names, schema and defaults; the function pointers
 * must stay valid until unregistered). Kinds are process-wide, like the
 * built-in ones. BP_ERR_INVALID_ARGUMENT for a malformed extension (bad
 * name, struct_size too small, repeated or reserved attribute),
 * BP_ERR_INVALID_ARGUMENT naming the kind if it exists already. Thread-safe. */
BP_API bp_status_t bp_target_kind_register(const BP_TargetKindExtension *kind);

/* Removes a kind added by bp_target_kind_register; targets of that kind
 * must be destroyed first. BP_ERR_NOT_FOUND for unknown or built-in kinds. */
BP_API bp_status_t bp_target_kind_unregister(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_TARGET_EXT_H_ */
