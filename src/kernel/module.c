/* Modules: loading shared objects and op-info manifests, finding and listing
 * their functions, unloading. */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/status.h"
#include "core/plugin_security.h"
#include "core/runtime_internal.h"
#include "core/stream_internal.h"
#include "kernel/function_index.h"
#include "kernel/kernel_internal.h"
#include "kernel/manifest.h"
#include "kernel/variant.h"

static bool ends_with(const char *path, const char *suffix) {
  size_t n = strlen(path), m = strlen(suffix);
  return n >= m && strcmp(path + n - m, suffix) == 0;
}

static bool is_manifest(const char *path) {
  return ends_with(path, ".json");
}

/* The module kind a (non-manifest) file's name says: *.cl OpenCL C,
 * *.spv SPIR-V, *.clbin an OpenCL program binary, else a shared object. */
static int32_t kind_of(const char *path) {
  if (ends_with(path, ".cl"))
    return BP_MODULE_KIND_OPENCL_C;
  if (ends_with(path, ".spv"))
    return BP_MODULE_KIND_SPIRV;
  if (ends_with(path, ".clbin"))
    return BP_MODULE_KIND_OPENCL_BINARY;
  return BP_MODULE_KIND_SHARED_OBJECT;
}

static void free_function(bp_function_t *function) {
  if (function->label != function->op)
    free(function->label);
  if (function->op != function->name)
    free(function->op);
  free(function->name);
  free(function->variant_target);
  free(function->variant_reason);
}

static void unload_parts(bp_module_t *module) {
  for (size_t i = module->part_count; i-- > 0;)
    module->kernels->module_unload(&module->device->c_device, module->parts[i]);
  module->part_count = 0;
}

static void free_module(bp_module_t *module) {
  bp_function_index_free(&module->index);
  for (size_t i = 0; i < module->function_count; ++i)
    free_function(&module->functions[i]);
  while (module->found) {
    bp_function_t *next = module->found->next_found;
    free_function(module->found);
    free(module->found);
    module->found = next;
  }
  pthread_mutex_destroy(&module->lock);
  free(module->functions);
  free(module->parts);
  free(module->path);
  free(module);
}

static void release(bp_module_t *module) {
  unload_parts(module);
  free_module(module);
}

static void free_retired(bp_retired_node_t *node) {
  free_module((bp_module_t *)((char *)node - offsetof(bp_module_t, retired)));
}

/* BP_ERR_INVALID_ARGUMENT naming `what` when `module` was unloaded, reported
 * to the validation layer. */
static bp_status_t check_loaded(const char *what, bp_module_t *module) {
  if (!atomic_load_explicit(&module->unloaded, memory_order_relaxed))
    return BP_OK;
  bp_status_t status =
      bp_error(BP_ERR_INVALID_ARGUMENT, "%s: module %s was already unloaded",
               what, module->path);
  bp_api_refused(module->device, what);
  return status;
}

static bp_status_t out_of_memory(const bp_module_t *module) {
  return bp_error(BP_ERR_OUT_OF_MEMORY,
                  "bp_module_load %s on %s: out of memory", module->path,
                  module->device->name);
}

/* Loads the module of `kind` at `path` as a new part. */
static bp_status_t load_part(bp_module_t *module, const char *path,
                             int32_t kind, const char *op,
                             BP_KernelModule *out_part) {
  char reason[512];
  if (!bp_file_permissions_ok(path, "kernel library", reason, sizeof reason))
    return op ? bp_error(bp_plugin_refusal_status(path),
                         "%s: op \"%s\": kernelSo %s: %s", module->path, op,
                         path, reason)
              : bp_error(bp_plugin_refusal_status(path), "%s: %s", path,
                         reason);
  BP_KernelModule part = NULL;
  C_Status result = module->kernels->module_load_file(&module->device->c_device,
                                                      path, kind, &part);
  if (result != C_SUCCESS) {
    if (op)
      return bp_error(BP_ERR_NOT_FOUND, "%s: op \"%s\": kernelSo %s: %s",
                      module->path, op, path, module->kernels->last_error());
    return bp_kernels_call_failed(module->device, module->kernels,
                                  "module_load_file", result, BP_ERR_NOT_FOUND);
  }
  module->parts[module->part_count++] = part;
  *out_part = part;
  return BP_OK;
}

static bp_status_t fill_function(bp_module_t *module, bp_function_t *function,
                                 BP_KernelModule part, const char *name,
                                 const char *op) {
  BP_KernelFunction native = NULL;
  C_Status result = module->kernels->module_get_function(
      &module->device->c_device, part, name, &native);
  if (result != C_SUCCESS)
    return bp_error(BP_ERR_NOT_FOUND,
                    "%s: op \"%s\": no function \"%s\" in its kernel "
                    "library: %s",
                    module->path, op ? op : name, name,
                    module->kernels->last_error());
  function->module = module;
  function->native = native;
  function->variant = -1;
  function->name = strdup(name);
  function->op = op ? strdup(op) : function->name;
  function->label = function->op;
  if (!function->name || !function->op)
    return out_of_memory(module);
  return BP_OK;
}

/* The manifest's folder with symlinks resolved, into `folder`. */
static bp_status_t manifest_folder(const bp_module_t *module,
                                   char folder[PATH_MAX]) {
  char *copy = strdup(module->path);
  if (!copy)
    return out_of_memory(module);
  strrchr(copy, '/')[1] = '\0'; /* module->path is absolute */
  bool ok = realpath(copy, folder) != NULL;
  free(copy);
  if (!ok)
    return bp_error(BP_ERR_NOT_FOUND, "%s: its folder cannot be resolved",
                    module->path);
  return BP_OK;
}

/* kernelSo must stay inside the manifest's folder (resolved) after symlinks
 * too. */
static bp_status_t check_inside(const bp_module_t *module, const char *folder,
                                const char *op, const char *kernel_so) {
  char target[PATH_MAX];
  if (!realpath(kernel_so, target))
    return bp_error(BP_ERR_NOT_FOUND, "%s: op \"%s\": kernelSo %s: not found",
                    module->path, op, kernel_so);
  size_t n = strlen(folder);
  if (strncmp(target, folder, n) != 0 || target[n] != '/')
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: op \"%s\": kernelSo %s resolves to %s, outside the "
                    "manifest's folder",
                    module->path, op, kernel_so, target);
  return BP_OK;
}

static bp_status_t load_manifest(bp_module_t *module, bool allow_outside,
                                 size_t max_bytes) {
  char folder[PATH_MAX] = "";
  bp_status_t status = allow_outside ? BP_OK : manifest_folder(module, folder);
  bp_manifest_t *manifest = NULL;
  if (status == BP_OK)
    status =
        bp_manifest_read(module->path, allow_outside, max_bytes, &manifest);
  if (status != BP_OK)
    return status;
  module->parts = calloc(manifest->count, sizeof *module->parts);
  module->functions = calloc(manifest->count, sizeof *module->functions);
  char **part_paths = calloc(manifest->count, sizeof *part_paths);
  if (!module->parts || !module->functions || !part_paths)
    status = out_of_memory(module);
  char no_target[256] = "";
  char *target_json =
      status == BP_OK ? bp_variant_device_target(module->device, manifest,
                                                 no_target, sizeof no_target)
                      : NULL;
  for (size_t i = 0; status == BP_OK && i < manifest->count; ++i) {
    const bp_manifest_op_t *op = &manifest->ops[i];
    const bp_manifest_variant_t *variant = NULL;
    char *reason = NULL;
    status = bp_variant_choose(module->path, op, module->device->name,
                               target_json, no_target, &variant, &reason);
    BP_KernelModule part = NULL;
    for (size_t p = 0; status == BP_OK && p < module->part_count && !part; ++p)
      if (strcmp(part_paths[p], variant->kernel_so) == 0)
        part = module->parts[p];
    if (status == BP_OK && !part && !allow_outside)
      status = check_inside(module, folder, op->op, variant->kernel_so);
    if (status == BP_OK && !part) {
      part_paths[module->part_count] = variant->kernel_so;
      status = load_part(module, variant->kernel_so,
                         BP_MODULE_KIND_SHARED_OBJECT, op->op, &part);
    }
    if (status == BP_OK) {
      bp_function_t *function = &module->functions[i];
      status = fill_function(module, function, part, variant->function, op->op);
      module->function_count++; /* freed by release() even when partial */
      if (status == BP_OK)
        status = bp_variant_note(function, variant, reason);
      else
        free(reason);
    } else {
      free(reason);
    }
  }
  free(target_json);
  free(part_paths);
  bp_manifest_free(manifest);
  return status;
}

/* A single-file module: a shared object or a device format (kind_of). */
static bp_status_t load_single(bp_module_t *module) {
  module->parts = calloc(1, sizeof *module->parts);
  if (!module->parts)
    return out_of_memory(module);
  BP_KernelModule part = NULL;
  bp_status_t status =
      load_part(module, module->path, kind_of(module->path), NULL, &part);
  if (status != BP_OK)
    return status;
  size_t count = 0;
  C_Status result = module->kernels->module_function_names(
      &module->device->c_device, part, NULL, 0, &count);
  if (result != C_SUCCESS)
    return bp_kernels_call_failed(module->device, module->kernels,
                                  "module_function_names", result,
                                  BP_ERR_PLUGIN);
  const char **names = calloc(count ? count : 1, sizeof *names);
  module->functions = calloc(count ? count : 1, sizeof *module->functions);
  if (!names || !module->functions) {
    free(names);
    return out_of_memory(module);
  }
  size_t listed = 0;
  result = module->kernels->module_function_names(&module->device->c_device,
                                                  part, names, count, &listed);
  if (listed < count)
    count = listed;
  for (size_t i = 0; status == BP_OK && result == C_SUCCESS && i < count; ++i) {
    status = fill_function(module, &module->functions[i], part, names[i], NULL);
    module->function_count++;
  }
  free(names);
  return status;
}

/* `path` made absolute against the working folder, so that a bare name
 * ("kernels.json") means the file here, never the loader's search path, and
 * a manifest's kernelSo resolves against the manifest's own folder. NULL
 * when out of memory or the working folder is unknown. */
static char *absolute_path(const char *path) {
  if (path[0] == '/')
    return strdup(path);
  char *cwd = getcwd(NULL, 0);
  if (!cwd)
    return NULL;
  size_t n = strlen(cwd), m = strlen(path);
  char *out = malloc(n + 1 + m + 1);
  if (out) {
    memcpy(out, cwd, n);
    out[n] = '/';
    memcpy(out + n + 1, path, m + 1);
  }
  free(cwd);
  return out;
}

BP_API bp_status_t bp_module_load_with_options(
    bp_device_t *device, const char *path, const bp_module_options_t *options,
    bp_module_t **out_module) {
  const BP_KernelExtension *kernels = NULL;
  bp_status_t status = bp_kernels_of(device, "bp_module_load", &kernels);
  if (status != BP_OK)
    return status;
  if (!path || !out_module)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_module_load on %s: path or out_module is NULL",
                    device->name);
  if (path[0] == '\0')
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_module_load on %s: path is empty (expected a file)",
                    device->name);
  bp_module_t *module = calloc(1, sizeof *module);
  if (!module)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_module_load on %s: out of memory",
                    device->name);
  module->device = device;
  module->kernels = kernels;
  pthread_mutex_init(&module->lock, NULL);
  module->path = absolute_path(path);
  if (!module->path)
    status = bp_error(BP_ERR_OUT_OF_MEMORY,
                      "bp_module_load %s on %s: cannot make the path absolute "
                      "(out of memory, or no working folder)",
                      path, device->name);
  else if (is_manifest(path))
    status = load_manifest(
        module, options && options->allow_outside_manifest_folder,
        options && options->max_manifest_bytes ? options->max_manifest_bytes
                                               : BP_MANIFEST_MAX_BYTES);
  else
    status = load_single(module);
  if (status == BP_OK &&
      bp_function_index_build(&module->index, module->functions,
                              module->function_count) != BP_OK)
    status = out_of_memory(module);
  if (status != BP_OK) {
    release(module);
    return status;
  }
  *out_module = module;
  return BP_OK;
}

BP_API bp_status_t bp_module_load(bp_device_t *device, const char *path,
                                  bp_module_t **out_module) {
  return bp_module_load_with_options(device, path, NULL, out_module);
}

/* Unloads, then retires the module (kernel_internal.h). */
BP_API bp_status_t bp_module_unload(bp_module_t *module) {
  if (!module)
    return BP_OK;
  bp_status_t status = check_loaded("bp_module_unload", module);
  if (status != BP_OK)
    return status;
  bp_observer_module_unloading(module->device, module->path, module->parts,
                               module->part_count);
  status = bp_device_synchronize(module->device);
  unload_parts(module);
  atomic_store_explicit(&module->unloaded, true, memory_order_relaxed);
  module->retired.release = free_retired;
  bp_retired_add(&module->device->plugin->runtime->retired, &module->retired);
  return status;
}

enum { NEAREST_NAMES = 5 };

static bp_status_t not_found(const bp_module_t *module, const char *name) {
  char nearest[512];
  bp_function_index_nearest(module->functions, module->function_count, name,
                            NEAREST_NAMES, nearest, sizeof nearest);
  return bp_error(BP_ERR_NOT_FOUND,
                  "bp_module_function: %s has no op or function \"%s\" (it "
                  "lists %zu%s%s)",
                  module->path, name, module->function_count,
                  nearest[0] ? "; nearest: " : "", nearest);
}

BP_API bp_status_t bp_module_function(bp_module_t *module, const char *name,
                                      bp_function_t **out_function) {
  if (!module || !name || !out_function)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_module_function: module, name or out_function is "
                    "NULL");
  bp_status_t loaded = check_loaded("bp_module_function", module);
  if (loaded != BP_OK)
    return loaded;
  bp_function_t *listed = bp_function_index_find(&module->index, name);
  if (listed) {
    *out_function = listed;
    return BP_OK;
  }
  bp_status_t status = BP_OK;
  pthread_mutex_lock(&module->lock);
  bp_function_t *found = module->found;
  while (found && strcmp(found->name, name) != 0)
    found = found->next_found;
  if (!found && module->part_count == 1 && !is_manifest(module->path)) {
    found = calloc(1, sizeof *found);
    status = found ? fill_function(module, found, module->parts[0], name, NULL)
                   : out_of_memory(module);
    if (status == BP_OK) {
      found->next_found = module->found;
      module->found = found;
    } else if (found) {
      free_function(found);
      free(found);
      found = NULL;
    }
  }
  pthread_mutex_unlock(&module->lock);
  if (status != BP_OK)
    return status;
  if (!found)
    return not_found(module, name);
  *out_function = found;
  return BP_OK;
}

BP_API size_t bp_module_function_count(const bp_module_t *module) {
  return module ? module->function_count : 0;
}

BP_API bp_function_t *bp_module_function_at(bp_module_t *module, size_t index) {
  return module && index < module->function_count ? &module->functions[index]
                                                  : NULL;
}

BP_API const char *bp_function_name(const bp_function_t *function) {
  return function ? function->name : NULL;
}

BP_API const char *bp_function_op(const bp_function_t *function) {
  return function ? function->op : NULL;
}
