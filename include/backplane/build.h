/*
 * Code generation: builders turn an IR module into a module for a target
 * (TVM's `target.build.<kind>`): a shared object, or OpenCL C or CUDA C
 * source. Builders read the target only, never a device, so building for an
 * absent device works.
 *
 * Two kinds of IR module:
 *  - C source (bp_ir_module_from_c): compiled with the system C compiler
 *    (`cc`, or $BACKPLANE_CC), flags from the target: -march=<mcpu>,
 *    -DBP_NUM_CORES=<num_cores>, -DBP_VECTOR_WIDTH=<vector_width>.
 *  - A tensor-expression IR in JSON (bp_ir_module_parse; docs/framework-
 *    guide.md, "Code generation", has the format): the vcpu and c builders
 *    lower it to C, split the outer loop of each stage into blocks and
 *    vectorize the inner loop by vector_width, then compile it as above.
 *    The opencl and cuda builders (the kinds of the opencl and cuda
 *    plugins) lower it to OpenCL C or CUDA C instead: a kernel per stage,
 *    one work-item (CUDA: thread) per output element in a grid-stride loop
 *    (a reduction's element runs its reduce axes), intermediate stages (not
 *    outputs) in a scratch buffer the plugin allocates per launch, and
 *    descriptor lines telling the plugin which kernels one launch runs. The
 *    module is the source (*.cl, *.cu), which the plugin compiles when it
 *    loads (the OpenCL driver; NVRTC, for the target's `arch`); a failed
 *    compile's log comes back in the load's error. float16/bfloat16
 *    compute in float32 as on the C builders.
 *
 * Every function of the module is an exported `unsigned int fn(void *param)`
 * (the kernel signature) taking a bp_generated_params_t: it returns 0, or
 * nonzero if it could not run (bad block index, out of host memory). The
 * module is a kernel module: bp_built_module_load loads it on a device and
 * each function launches with bp_launch (kernel.h), one block per share of
 * the outer loop. An opencl or cuda function takes the same
 * bp_generated_params_t holding device addresses, so one IR and one
 * argument block run on every builder.
 *
 * Results are cached on disk by the hash of (IR, canonical target, compiler
 * and its version; for opencl and cuda (IR, canonical target): the source
 * is cached, the device compiler's work is not) in $BACKPLANE_CACHE_DIR, else
 * $XDG_CACHE_HOME/backplane, else ~/.cache/backplane; entries are written
 * atomically and checked before use (a corrupt or stale entry is rebuilt, never
 * loaded).
 */
#ifndef BACKPLANE_BUILD_H_
#define BACKPLANE_BUILD_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/kernel.h"
#include "backplane/status.h"
#include "backplane/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The parameter block of a generated function. Tensors are the function's
 * inputs in order, then its outputs in order, each a dense row-major buffer
 * of its dtype (float16/bfloat16 as uint16_t bits). Under bp_launch, block
 * bp_block_index() of bp_block_count() (kernel_device.h) computes its share
 * of the outer loop; called directly, outside a launch, a function computes
 * the whole result as one block. */
#define BP_GENERATED_MAX_TENSORS 16
typedef struct bp_generated_params {
  void *tensors[BP_GENERATED_MAX_TENSORS];
} bp_generated_params_t;

typedef unsigned int (*bp_generated_fn)(void *param);

typedef struct bp_ir_module bp_ir_module_t;

/* Parses and validates a tensor-expression module. Malformed IR (unknown op,
 * shape mismatch, undefined tensor, cyclic stages, reduction over a missing
 * axis, ...) is BP_ERR_INVALID_ARGUMENT naming the function, stage and node. */
BP_API bp_status_t bp_ir_module_parse(const char *json,
                                      bp_ir_module_t **out_module);

/* A C-source module exporting `function_names` (NULL-terminated, at least
 * one), each `unsigned int name(void *param)`. Both are copied. */
BP_API bp_status_t bp_ir_module_from_c(const char *source,
                                       const char *const *function_names,
                                       bp_ir_module_t **out_module);

/* NULL is a no-op. */
BP_API void bp_ir_module_destroy(bp_ir_module_t *module);

BP_API size_t bp_ir_module_function_count(const bp_ir_module_t *module);
/* NULL if out of range. Valid as long as the module. */
BP_API const char *bp_ir_module_function_name(const bp_ir_module_t *module,
                                              size_t index);

typedef struct bp_build_options {
  size_t struct_size;    /* sizeof(bp_build_options_t) */
  const char *cache_dir; /* NULL: the environment / default above */
  int no_cache;          /* nonzero: always build (into a private dir) */
} bp_build_options_t;

typedef struct bp_built_module bp_built_module_t;

/* Builds `module` for `target` (options may be NULL). Thread-safe; several
 * processes may build the same module at once. Errors: BP_ERR_UNSUPPORTED
 * when the kind has no builder, BP_ERR_INVALID_ARGUMENT for IR the builder
 * rejects, BP_ERR_PLUGIN when the compiler fails (its diagnostics in the
 * message). */
BP_API bp_status_t bp_build(const bp_ir_module_t *module,
                            const bp_target_t *target,
                            const bp_build_options_t *options,
                            bp_built_module_t **out_built);

/* The shared object or source (in the cache; *.so, *.cl for opencl, *.cu
 * for cuda); valid as long as `built`. */
BP_API const char *bp_built_module_path(const bp_built_module_t *built);
/* Nonzero when the build was found in the cache. */
BP_API int bp_built_module_from_cache(const bp_built_module_t *built);
/* The generated C source (NULL for C-source modules, cache hits and plugin
 * builders). */
BP_API const char *bp_built_module_source(const bp_built_module_t *built);
/* The number of blocks a launch of `name` should use: the target's
 * num_cores, or 1 when the function cannot be split (opencl: has more than
 * one stage; cuda: the grid, a block of 256 threads per element of the
 * largest stage, at most 8 blocks per multiprocessor). 0 if unknown. */
BP_API uint32_t bp_built_module_blocks(const bp_built_module_t *built,
                                       const char *name);

/* Loads the built shared object as a kernel module of `device` (kernel.h;
 * needs the plugin's kernels extension): every function is reachable with
 * bp_module_function and launches with bp_launch, `bp_built_module_blocks`
 * blocks and a bp_generated_params_t as the argument block. The object is
 * checked against what was built first (BP_ERR_PLUGIN if it changed). The
 * module outlives `built`; unload it with bp_module_unload. */
BP_API bp_status_t bp_built_module_load(const bp_built_module_t *built,
                                        bp_device_t *device,
                                        bp_module_t **out_module);

/* Loads the shared object into this process (once) and finds `name` in it,
 * for a direct host call (one block, no device). BP_ERR_UNSUPPORTED for an
 * opencl or cuda module (source for a device compiler). */
BP_API bp_status_t bp_built_module_function(bp_built_module_t *built,
                                            const char *name,
                                            bp_generated_fn *out_function);

/* Unloads and frees. NULL is a no-op. */
BP_API void bp_built_module_destroy(bp_built_module_t *built);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_BUILD_H_ */
