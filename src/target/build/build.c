/* bp_build: the builder of a target's kind (`target.build.<kind>`), behind
 * the disk cache. Built-in kinds (vcpu, c) lower tensor expressions to C and
 * compile with the system compiler; a plugin kind's builder is called with
 * the IR's and the target's canonical JSON; a plugin kind without one whose
 * devices compile source Backplane lowers to (opencl: OpenCL C, cuda: CUDA
 * C) gets that source as its module. Builders read the target only. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/status.h"
#include "target/build/build_internal.h"
#include "target/build/compiler.h"
#include "target/target_internal.h"

/* Bumped whenever lowering changes what it emits: old entries go stale. */
#define CODEGEN_VERSION "backplane-codegen-6"

struct bp_built_module {
  char path[4300];
  char work_dir[4200]; /* no_cache: the private directory to remove */
  int from_cache;
  int device_only; /* source a device compiles: no direct host call */
  char *source;
  uint64_t checksum;
  size_t function_count;
  char **names;
  uint32_t *blocks;
  pthread_mutex_t lock; /* guards `loaded` */
  loaded_module_t *loaded;
};

static int is_builtin_cpu(const bp_target_t *target) {
  return target->kind->builtin;
}

/* Plugin kinds with no builder of their own whose devices compile source:
 * the module is the lowered source in a file named by `suffix`, which the
 * plugin's kernels extension loads (and its driver compiles) by that name.
 * Their cache key has no compiler part. */
typedef struct source_lowering {
  const char *kind;
  const char *suffix;
  bp_status_t (*lower)(const te_module_t *module, const bp_target_t *target,
                       char **out_source);
  /* The blocks a launch of `function` should use on `cores` cores. */
  uint32_t (*blocks)(const te_function_t *function, int64_t cores);
} source_lowering_t;

static uint32_t cores_as_blocks(int64_t cores) {
  return cores > 0 && cores < UINT32_MAX ? (uint32_t)cores : 1;
}

static bp_status_t lower_opencl(const te_module_t *module,
                                const bp_target_t *target, char **out_source) {
  int64_t lanes = 1;
  (void)bp_target_get_int(target, "vector_width", &lanes);
  return te_lower_to_opencl(module, lanes, out_source);
}

/* A single stage splits by elements; the opencl plugin sizes each stage
 * of a longer function itself. */
static uint32_t opencl_blocks(const te_function_t *function, int64_t cores) {
  return function->tensor_count - function->input_count == 1
             ? cores_as_blocks(cores)
             : 1;
}

/* NVRTC's real architectures: sm_<digits>, then an optional feature
 * letter (sm_90a). */
static int is_nvidia_arch(const char *arch) {
  if (strncmp(arch, "sm_", 3) != 0)
    return 0;
  size_t digits = strspn(arch + 3, "0123456789");
  const char *rest = arch + 3 + digits;
  return digits >= 2 && digits <= 3 &&
         (*rest == '\0' || (rest[0] >= 'a' && rest[0] <= 'z' && !rest[1]));
}

static bp_status_t lower_cuda(const te_module_t *module,
                              const bp_target_t *target, char **out_source) {
  const char *arch = NULL;
  if (bp_target_get_string(target, "arch", &arch) != BP_OK || !arch ||
      !is_nvidia_arch(arch))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_build: target kind 'cuda' needs arch "
                    "sm_<major><minor> (e.g. sm_90), not '%s'",
                    arch ? arch : "(absent)");
  return te_lower_to_cuda(module, arch, out_source);
}

/* Threads per block of the cuda plugin's launches (docs/cuda.md), and how
 * many such blocks keep a streaming multiprocessor full (2048 threads on
 * sm_80 and later; a few more only queue). */
enum { CUDA_BLOCK_THREADS = 256, CUDA_BLOCKS_PER_CORE = 8 };

/* The grid every stage runs on: a thread per element of the largest
 * stage, at most enough blocks to fill every multiprocessor (the kernels'
 * grid-stride loops cover the rest). */
static uint32_t cuda_blocks(const te_function_t *function, int64_t cores) {
  int64_t largest = 1;
  for (size_t s = function->input_count; s < function->tensor_count; s++) {
    int64_t elements = 1;
    for (int d = 0; d < function->tensors[s].rank; d++)
      elements *= function->tensors[s].shape[d];
    largest = elements > largest ? elements : largest;
  }
  int64_t needed = (largest + CUDA_BLOCK_THREADS - 1) / CUDA_BLOCK_THREADS;
  int64_t full = cores > 0 && cores < INT32_MAX / CUDA_BLOCKS_PER_CORE
                     ? cores * CUDA_BLOCKS_PER_CORE
                     : CUDA_BLOCKS_PER_CORE;
  return (uint32_t)(needed < full ? needed : full);
}

static const source_lowering_t source_lowerings[] = {
    {"opencl", ".cl", lower_opencl, opencl_blocks},
    {"cuda", ".cu", lower_cuda, cuda_blocks},
};

static const source_lowering_t *source_lowering_of(const bp_target_t *target) {
  if (target->kind->builtin || target->kind->build)
    return NULL;
  for (size_t i = 0; i < sizeof(source_lowerings) / sizeof(*source_lowerings);
       i++)
    if (!strcmp(target->kind->name, source_lowerings[i].kind))
      return &source_lowerings[i];
  return NULL;
}

/* How the built module's file name ends. */
static const char *module_suffix(const bp_target_t *target) {
  const source_lowering_t *lowering = source_lowering_of(target);
  return lowering ? lowering->suffix : ".so";
}

/* 128-bit key (two FNV-1a passes with different seeds) as 32 hex digits. */
static bp_status_t build_key(const bp_ir_module_t *module,
                             const bp_target_t *target, char *key) {
  char *target_json = NULL;
  const char *compiler = "";
  bp_status_t status = bp_target_to_json(target, &target_json);
  if (status == BP_OK && is_builtin_cpu(target))
    status = compiler_identity(&compiler);
  if (status != BP_OK) {
    free(target_json);
    return status;
  }
  const char *parts[] = {CODEGEN_VERSION, module->canonical, target_json,
                         compiler};
  uint64_t low = TARGET_FNV_SEED, high = 0x84222325cbf29ce4ull;
  for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
    size_t length = strlen(parts[i]) + 1; /* the NUL separates parts */
    low = target_fnv1a(parts[i], length, low);
    high = target_fnv1a(parts[i], length, high);
  }
  free(target_json);
  snprintf(key, 33, "%016" PRIx64 "%016" PRIx64, high, low);
  return BP_OK;
}

static bp_status_t write_file(const char *path, const char *text) {
  FILE *file = fopen(path, "w");
  int failed = !file || fputs(text, file) < 0;
  if (file)
    failed |= fclose(file) != 0;
  return failed ? bp_error(BP_ERR_PLUGIN, "bp_build: cannot write %s", path)
                : BP_OK;
}

/* The built-in builder: C (given, or lowered from tensor expressions),
 * compiled in `dir` into `out_path`. */
static bp_status_t build_cpu(const bp_ir_module_t *module,
                             const bp_target_t *target, const char *dir,
                             const char *out_path, char **out_source) {
  char *source = NULL;
  if (module->te) {
    int64_t lanes = 8;
    (void)bp_target_get_int(target, "vector_width", &lanes);
    bp_status_t status = te_lower_to_c(module->te, lanes, &source);
    if (status != BP_OK)
      return status;
  }
  char source_path[4300];
  snprintf(source_path, sizeof(source_path), "%s/module.c", dir);
  bp_status_t status =
      write_file(source_path, source ? source : module->c_source);
  if (status == BP_OK)
    status = compiler_build_shared(target, dir, "module.c", out_path);
  unlink(source_path);
  if (status == BP_OK)
    *out_source = source;
  else
    free(source);
  return status;
}

/* A source lowering: the module is the source itself. */
static bp_status_t build_source(const source_lowering_t *lowering,
                                const bp_ir_module_t *module,
                                const bp_target_t *target, const char *out_path,
                                char **out_source) {
  if (!module->te)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_build: target kind '%s' lowers tensor-expression IR; "
                    "a C source module builds for the vcpu and c kinds only",
                    target->kind->name);
  char *source = NULL;
  bp_status_t status = lowering->lower(module->te, target, &source);
  if (status == BP_OK)
    status = write_file(out_path, source);
  if (status == BP_OK)
    *out_source = source;
  else
    free(source);
  return status;
}

/* A plugin kind's builder, through JSON. */
static bp_status_t build_extension(const bp_ir_module_t *module,
                                   const bp_target_t *target,
                                   const char *out_path) {
  char *target_json = NULL, message[1024] = "";
  bp_status_t status = bp_target_to_json(target, &target_json);
  if (status != BP_OK)
    return status;
  C_Status result = target->kind->build(module->canonical, target_json,
                                        out_path, message, sizeof(message));
  free(target_json);
  message[sizeof(message) - 1] = '\0';
  if (result != C_SUCCESS)
    return bp_error(result == C_ERROR ? BP_ERR_INVALID_ARGUMENT : BP_ERR_PLUGIN,
                    "bp_build: target.build.%s failed: %s", target->kind->name,
                    message);
  if (access(out_path, R_OK))
    return bp_error(BP_ERR_PLUGIN,
                    "bp_build: target.build.%s reported success but wrote no "
                    "module",
                    target->kind->name);
  return BP_OK;
}

/* Blocks per function: the target's cores for a function whose blocks
 * split it (C: by its first axis), else 1; a source lowering's own rule. */
static bp_status_t fill_functions(bp_built_module_t *built,
                                  const bp_ir_module_t *module,
                                  const bp_target_t *target) {
  int64_t cores = 1;
  (void)bp_target_get_int(target, "num_cores", &cores);
  const source_lowering_t *lowering = source_lowering_of(target);
  built->function_count = module->name_count;
  built->names = calloc(module->name_count, sizeof(char *));
  built->blocks = calloc(module->name_count, sizeof(uint32_t));
  if (!built->names || !built->blocks)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_build: out of memory");
  for (size_t f = 0; f < module->name_count; f++) {
    if (!(built->names[f] = strdup(module->names[f])))
      return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_build: out of memory");
    const te_function_t *function =
        module->te ? &module->te->functions[f] : NULL;
    if (function && lowering)
      built->blocks[f] = lowering->blocks(function, cores);
    else
      built->blocks[f] =
          !function || function->splittable ? cores_as_blocks(cores) : 1;
  }
  return BP_OK;
}

/* Builds into a fresh directory under `parent` (`parent` is at most 4096
 * bytes: a cache directory or $TMPDIR); the object is built->path. */
static bp_status_t build_fresh(const bp_ir_module_t *module,
                               const bp_target_t *target, const char *parent,
                               bp_built_module_t *built) {
  int length = snprintf(built->work_dir, sizeof(built->work_dir),
                        "%s/build.XXXXXX", parent);
  if (length < 0 || (size_t)length >= sizeof(built->work_dir) ||
      !mkdtemp(built->work_dir))
    return bp_error(BP_ERR_PLUGIN, "bp_build: cannot create a directory in %s",
                    parent);
  snprintf(built->path, sizeof(built->path), "%s/module%s", built->work_dir,
           module_suffix(target));
  if (target->kind->builtin)
    return build_cpu(module, target, built->work_dir, built->path,
                     &built->source);
  const source_lowering_t *lowering = source_lowering_of(target);
  if (lowering)
    return build_source(lowering, module, target, built->path, &built->source);
  return build_extension(module, target, built->path);
}

bp_status_t bp_build(const bp_ir_module_t *module, const bp_target_t *target,
                     const bp_build_options_t *options,
                     bp_built_module_t **out_built) {
  if (!module || !target || !out_built)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_build: %s is NULL",
                    !module   ? "module"
                    : !target ? "target"
                              : "out_built");
  if (options && options->struct_size < sizeof(*options))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_build: options.struct_size %zu is too small",
                    options->struct_size);
  if (!target->kind->builtin && !target->kind->build &&
      !source_lowering_of(target))
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_build: target kind '%s' has no builder "
                    "(target.build.%s)",
                    target->kind->name, target->kind->name);
  bp_built_module_t *built = calloc(1, sizeof(*built));
  if (!built)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_build: out of memory");
  pthread_mutex_init(&built->lock, NULL);
  built->device_only = source_lowering_of(target) != NULL;
  bp_status_t status = fill_functions(built, module, target);
  int use_cache = !(options && options->no_cache);
  build_cache_t cache;
  char key[33];
  if (status == BP_OK && use_cache)
    status = build_cache_open(options, &cache);
  if (status == BP_OK && use_cache)
    status = build_key(module, target, key);
  if (status == BP_OK && use_cache &&
      build_cache_lookup(&cache, key, module_suffix(target), built->path,
                         sizeof(built->path), &built->checksum)) {
    built->from_cache = 1;
  } else if (status == BP_OK) {
    const char *tmp = getenv("TMPDIR");
    status = build_fresh(module, target,
                         use_cache ? cache.dir : (tmp && *tmp ? tmp : "/tmp"),
                         built);
    if (status == BP_OK && use_cache) {
      char built_path[4300];
      snprintf(built_path, sizeof(built_path), "%s", built->path);
      status =
          build_cache_store(&cache, key, module_suffix(target), built_path,
                            built->path, sizeof(built->path), &built->checksum);
    } else if (status == BP_OK &&
               build_cache_checksum(built->path, &built->checksum)) {
      status = bp_error(BP_ERR_PLUGIN, "bp_build: cannot read %s", built->path);
    }
    if (use_cache && *built->work_dir) {
      rmdir(built->work_dir); /* empty now, or holds a failed build's rest */
      built->work_dir[0] = '\0';
    }
  }
  if (status != BP_OK) {
    bp_built_module_destroy(built);
    return status;
  }
  *out_built = built;
  return BP_OK;
}

const char *bp_built_module_path(const bp_built_module_t *built) {
  return built ? built->path : NULL;
}

int bp_built_module_from_cache(const bp_built_module_t *built) {
  return built ? built->from_cache : 0;
}

const char *bp_built_module_source(const bp_built_module_t *built) {
  return built ? built->source : NULL;
}

uint32_t bp_built_module_blocks(const bp_built_module_t *built,
                                const char *name) {
  for (size_t f = 0; built && name && f < built->function_count; f++)
    if (!strcmp(built->names[f], name))
      return built->blocks[f];
  return 0;
}

/* Load only the bytes that were built (or found valid in the cache). */
static bp_status_t check_unchanged(const bp_built_module_t *built,
                                   const char *what) {
  uint64_t checksum = 0;
  if (build_cache_checksum(built->path, &checksum) ||
      checksum != built->checksum)
    return bp_error(BP_ERR_PLUGIN,
                    "%s: %s changed since it was built; not loading it", what,
                    built->path);
  return BP_OK;
}

bp_status_t bp_built_module_load(const bp_built_module_t *built,
                                 bp_device_t *device,
                                 bp_module_t **out_module) {
  if (!built || !device || !out_module)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_built_module_load: %s is NULL",
                    !built    ? "built"
                    : !device ? "device"
                              : "out_module");
  bp_status_t status = check_unchanged(built, "bp_built_module_load");
  if (status == BP_OK)
    status = loaded_module_on_device(built->path, device, out_module);
  return status;
}

bp_status_t bp_built_module_function(bp_built_module_t *built, const char *name,
                                     bp_generated_fn *out_function) {
  if (!built || !name || !out_function)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_built_module_function: %s is NULL",
                    !built  ? "built"
                    : !name ? "name"
                            : "out_function");
  if (!bp_built_module_blocks(built, name))
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_built_module_function: the module has no function "
                    "'%s'",
                    name);
  if (built->device_only)
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_built_module_function: %s is source for a device "
                    "compiler, not host code; load it on a device with "
                    "bp_built_module_load and bp_launch '%s'",
                    built->path, name);
  pthread_mutex_lock(&built->lock);
  bp_status_t status = BP_OK;
  if (!built->loaded) {
    status = check_unchanged(built, "bp_built_module_function");
    if (status == BP_OK)
      status = loaded_module_open(built->path, &built->loaded);
  }
  if (status == BP_OK)
    status = loaded_module_function(built->loaded, name, out_function);
  pthread_mutex_unlock(&built->lock);
  return status;
}

void bp_built_module_destroy(bp_built_module_t *built) {
  if (!built)
    return;
  loaded_module_close(built->loaded);
  if (*built->work_dir) { /* a private build: not in the cache */
    unlink(built->path);
    rmdir(built->work_dir);
  }
  for (size_t f = 0; built->names && f < built->function_count; f++)
    free(built->names[f]);
  free(built->names);
  free(built->blocks);
  free(built->source);
  pthread_mutex_destroy(&built->lock);
  free(built);
}
