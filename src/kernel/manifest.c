#include "kernel/manifest.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backplane/kernel.h"
#include "base/status.h"
#include "core/plugin_security.h"
#include "core/target_hooks.h"

static const char *const known_libraries[] = {"AICPUKernel", "CUSTAICPUKernel"};

static void free_variant(bp_manifest_variant_t *variant) {
  free(variant->library);
  free(variant->kernel_so);
  free(variant->function);
  free(variant->target);
}

static void free_op(bp_manifest_op_t *op) {
  free(op->op);
  for (size_t i = 0; i < op->variant_count; ++i)
    free_variant(&op->variants[i]);
  free(op->variants);
}

void bp_manifest_free(bp_manifest_t *manifest) {
  if (!manifest)
    return;
  for (size_t i = 0; i < manifest->count; ++i)
    free_op(&manifest->ops[i]);
  free(manifest->ops);
  free(manifest);
}

/* Where in an op an entry is, for messages: "opInfo" or "variant <i>". */
static const char *where(int index, char *buffer, size_t capacity) {
  if (index < 0)
    return "opInfo";
  snprintf(buffer, capacity, "variant %d", index);
  return buffer;
}

/* The string value of entry[key]: non-empty, without an embedded NUL.
 * Absent and `optional` leaves *out untouched. */
static bp_status_t string_field(const char *path, const char *op, int index,
                                json_t *entry, const char *key, bool optional,
                                const char **out) {
  char buffer[32];
  json_t *value = json_object_get(entry, key);
  if (!value && optional)
    return BP_OK;
  if (!value)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: op \"%s\": %s has no \"%s\"",
                    path, op, where(index, buffer, sizeof buffer), key);
  if (!json_is_string(value) || json_string_length(value) == 0 ||
      strlen(json_string_value(value)) != json_string_length(value))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": %s: \"%s\" must be a non-empty string",
                    path, op, where(index, buffer, sizeof buffer), key);
  *out = json_string_value(value);
  return BP_OK;
}

static bool climbs_out(const char *relative) {
  for (const char *p = relative; *p;) {
    const char *end = strchr(p, '/');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == 2 && p[0] == '.' && p[1] == '.')
      return true;
    p += n + (end ? 1 : 0);
  }
  return false;
}

/* folder of `path` (with its trailing '/') + `relative`, or `relative` when
 * absolute. */
static char *resolve(const char *path, const char *relative) {
  if (relative[0] == '/')
    return strdup(relative);
  const char *slash = strrchr(path, '/');
  size_t folder = slash ? (size_t)(slash - path) + 1 : 0;
  size_t n = strlen(relative);
  char *out = malloc(folder + n + 1);
  if (out) {
    memcpy(out, path, folder);
    memcpy(out + folder, relative, n + 1);
  }
  return out;
}

/* The predicate of a variant: canonical text and its number of clauses. */
static bp_status_t parse_target(const char *path, const char *op, int index,
                                json_t *target, bp_manifest_variant_t *out) {
  char buffer[32], why[256] = "";
  if (!json_is_object(target))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": %s: \"target\" must be an object", path, op,
                    where(index, buffer, sizeof buffer));
  out->target = json_dumps(target, JSON_COMPACT | JSON_SORT_KEYS);
  out->clauses = json_object_size(target);
  if (!out->target)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory", path,
                    op);
  if (bp_target_hooks.check_predicate(out->target, why, sizeof why) != BP_OK)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: op \"%s\": %s: target %s: %s",
                    path, op, where(index, buffer, sizeof buffer), out->target,
                    why);
  return BP_OK;
}

/* opInfo (index -1) or an entry of "variants" into `out`; on error the
 * caller frees what was filled. */
static bp_status_t parse_variant(const char *path, const char *op, int index,
                                 json_t *entry, const char *default_library,
                                 bool allow_outside,
                                 bp_manifest_variant_t *out) {
  char buffer[32];
  out->index = index;
  const char *library = default_library, *kernel_so, *function;
  bp_status_t status =
      string_field(path, op, index, entry, "opKernelLib", index >= 0, &library);
  if (status == BP_OK)
    status =
        string_field(path, op, index, entry, "kernelSo", false, &kernel_so);
  if (status == BP_OK)
    status =
        string_field(path, op, index, entry, "functionName", false, &function);
  if (status != BP_OK)
    return status;
  bool known = false;
  for (size_t i = 0; i < sizeof known_libraries / sizeof *known_libraries; ++i)
    known = known || strcmp(library, known_libraries[i]) == 0;
  if (!known)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": %s: unknown opKernelLib \"%s\" (expected "
                    "AICPUKernel or CUSTAICPUKernel)",
                    path, op, where(index, buffer, sizeof buffer), library);
  if (!allow_outside && (kernel_so[0] == '/' || climbs_out(kernel_so)))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": %s: kernelSo \"%s\" leaves the manifest's "
                    "folder (absolute or \"..\"); not allowed by the options",
                    path, op, where(index, buffer, sizeof buffer), kernel_so);
  json_t *target = index >= 0 ? json_object_get(entry, "target") : NULL;
  if (target && (status = parse_target(path, op, index, target, out)) != BP_OK)
    return status;
  out->library = strdup(library);
  out->kernel_so = resolve(path, kernel_so);
  out->function = strdup(function);
  if (!out->library || !out->kernel_so || !out->function)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory", path,
                    op);
  return BP_OK;
}

/* The entries of "variants" (if any) then opInfo (if any) into out. */
static bp_status_t parse_variants(const char *path, const char *name,
                                  json_t *info, json_t *variants,
                                  bool allow_outside, bp_manifest_op_t *out) {
  size_t count = json_array_size(variants);
  out->variants = calloc(count + 1, sizeof *out->variants);
  if (!out->variants)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory", path,
                    name);
  const char *library = "AICPUKernel";
  json_t *info_library = json_object_get(info, "opKernelLib");
  if (json_is_string(info_library))
    library = json_string_value(info_library);
  bp_status_t status = BP_OK;
  int defaults = 0;
  for (size_t i = 0; status == BP_OK && i < count; ++i) {
    json_t *entry = json_array_get(variants, i);
    if (!json_is_object(entry))
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: op \"%s\": variant %zu is not an object", path, name,
                      i);
    status = parse_variant(path, name, (int)i, entry, library, allow_outside,
                           &out->variants[out->variant_count++]);
    defaults += !json_object_get(entry, "target");
  }
  if (status == BP_OK && info) {
    status = parse_variant(path, name, -1, info, NULL, allow_outside,
                           &out->variants[out->variant_count++]);
    defaults++;
  }
  if (status == BP_OK && defaults > 1)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": %d defaults (opInfo and variants without "
                    "\"target\"); at most one",
                    path, name, defaults);
  return status;
}

static bp_status_t parse_op(const char *path, const char *name, json_t *entry,
                            bool allow_outside, bp_manifest_op_t *out) {
  if (name[0] == '\0')
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: an op has an empty name",
                    path);
  json_t *info =
      json_is_object(entry) ? json_object_get(entry, "opInfo") : NULL;
  json_t *variants =
      json_is_object(entry) ? json_object_get(entry, "variants") : NULL;
  if (info && !json_is_object(info))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": \"opInfo\" is not an object", path, name);
  if (variants && (!json_is_array(variants) || json_array_size(variants) == 0 ||
                   json_array_size(variants) > BP_MANIFEST_MAX_VARIANTS))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": \"variants\" must be an array of 1 to %d "
                    "objects",
                    path, name, BP_MANIFEST_MAX_VARIANTS);
  if (!info && !variants)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": no \"opInfo\" object (or \"variants\")",
                    path, name);
  out->op = strdup(name);
  if (!out->op)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory", path,
                    name);
  bp_status_t status =
      parse_variants(path, name, info, variants, allow_outside, out);
  if (status != BP_OK) {
    free_op(out);
    memset(out, 0, sizeof *out);
  }
  return status;
}

bp_status_t bp_manifest_parse(const char *text, size_t size, const char *path,
                              bool allow_outside_folder,
                              bp_manifest_t **out_manifest) {
  json_error_t error;
  json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &error);
  if (!root)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: not JSON (line %d, column %d: %s)", path, error.line,
                    error.column, error.text);
  bp_status_t status = BP_OK;
  bp_manifest_t *manifest = calloc(1, sizeof *manifest);
  size_t count = json_is_object(root) ? json_object_size(root) : 0;
  if (!json_is_object(root))
    status = bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: the top level must be an object of ops", path);
  else if (count == 0)
    status = bp_error(BP_ERR_INVALID_ARGUMENT, "%s: names no op", path);
  else if (!manifest || !(manifest->ops = calloc(count, sizeof *manifest->ops)))
    status = bp_error(BP_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
  const char *name;
  json_t *entry;
  if (status == BP_OK) {
    json_object_foreach(root, name, entry) {
      status = parse_op(path, name, entry, allow_outside_folder,
                        &manifest->ops[manifest->count]);
      if (status != BP_OK)
        break;
      manifest->count++;
    }
  }
  json_decref(root);
  if (status != BP_OK) {
    bp_manifest_free(manifest);
    return status;
  }
  *out_manifest = manifest;
  return BP_OK;
}

bp_status_t bp_manifest_read(const char *path, bool allow_outside_folder,
                             size_t max_bytes, bp_manifest_t **out_manifest) {
  char reason[512];
  if (!bp_file_permissions_ok(path, "manifest", reason, sizeof reason))
    return bp_error(bp_plugin_refusal_status(path), "%s: %s", path, reason);
  FILE *file = fopen(path, "rb");
  if (!file)
    return bp_error(BP_ERR_NOT_FOUND, "%s: cannot open: %s", path,
                    strerror(errno));
  struct stat st;
  bp_status_t status = BP_OK;
  if (fstat(fileno(file), &st) != 0 || !S_ISREG(st.st_mode))
    status = bp_error(BP_ERR_INVALID_ARGUMENT, "%s: not a regular file", path);
  else if (st.st_size == 0)
    status = bp_error(BP_ERR_INVALID_ARGUMENT, "%s: empty file", path);
  else if ((unsigned long long)st.st_size > max_bytes)
    status = bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: %lld bytes, larger than the %zu-byte cap on a "
                      "manifest (raise it with "
                      "bp_module_options_t.max_manifest_bytes)",
                      path, (long long)st.st_size, max_bytes);
  char *text = status == BP_OK ? malloc((size_t)st.st_size) : NULL;
  if (status == BP_OK && !text)
    status = bp_error(BP_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
  if (status == BP_OK &&
      fread(text, 1, (size_t)st.st_size, file) != (size_t)st.st_size)
    status = bp_error(BP_ERR_INVALID_ARGUMENT, "%s: short read", path);
  fclose(file);
  if (status == BP_OK)
    status = bp_manifest_parse(text, (size_t)st.st_size, path,
                               allow_outside_folder, out_manifest);
  free(text);
  return status;
}
