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

static const char *const known_libraries[] = {"AICPUKernel", "CUSTAICPUKernel"};

static void free_op(bp_manifest_op_t *op) {
  free(op->op);
  free(op->library);
  free(op->kernel_so);
  free(op->function);
}

void bp_manifest_free(bp_manifest_t *manifest) {
  if (!manifest)
    return;
  for (size_t i = 0; i < manifest->count; ++i)
    free_op(&manifest->ops[i]);
  free(manifest->ops);
  free(manifest);
}

/* The string value of opInfo[key]: non-empty, without an embedded NUL. */
static bp_status_t string_field(const char *path, const char *op, json_t *info,
                                const char *key, const char **out) {
  json_t *value = json_object_get(info, key);
  if (!value)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": opInfo has no \"%s\"", path, op, key);
  if (!json_is_string(value) || json_string_length(value) == 0 ||
      strlen(json_string_value(value)) != json_string_length(value))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": \"%s\" must be a non-empty string", path,
                    op, key);
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

static bp_status_t parse_op(const char *path, const char *name, json_t *entry,
                            bool allow_outside, bp_manifest_op_t *out) {
  if (name[0] == '\0')
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: an op has an empty name",
                    path);
  json_t *info =
      json_is_object(entry) ? json_object_get(entry, "opInfo") : NULL;
  if (!json_is_object(info))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": no \"opInfo\" object", path, name);
  const char *library, *kernel_so, *function;
  bp_status_t status = string_field(path, name, info, "opKernelLib", &library);
  if (status == BP_OK)
    status = string_field(path, name, info, "kernelSo", &kernel_so);
  if (status == BP_OK)
    status = string_field(path, name, info, "functionName", &function);
  if (status != BP_OK)
    return status;
  bool known = false;
  for (size_t i = 0; i < sizeof known_libraries / sizeof *known_libraries; ++i)
    known = known || strcmp(library, known_libraries[i]) == 0;
  if (!known)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": unknown opKernelLib \"%s\" (expected "
                    "AICPUKernel or CUSTAICPUKernel)",
                    path, name, library);
  if (!allow_outside && (kernel_so[0] == '/' || climbs_out(kernel_so)))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": kernelSo \"%s\" leaves the manifest's "
                    "folder (absolute or \"..\"); not allowed by the options",
                    path, name, kernel_so);
  out->op = strdup(name);
  out->library = strdup(library);
  out->kernel_so = resolve(path, kernel_so);
  out->function = strdup(function);
  if (!out->op || !out->library || !out->kernel_so || !out->function) {
    free_op(out);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory", path,
                    name);
  }
  return BP_OK;
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
                             bp_manifest_t **out_manifest) {
  char reason[512];
  if (!bp_plugin_permissions_ok(path, reason, sizeof reason))
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: refused: %s", path, reason);
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
  else if ((unsigned long long)st.st_size > BP_MANIFEST_MAX_BYTES)
    status = bp_error(BP_ERR_INVALID_ARGUMENT,
                      "%s: %lld bytes, larger than the %u-byte limit of a "
                      "manifest",
                      path, (long long)st.st_size, BP_MANIFEST_MAX_BYTES);
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
