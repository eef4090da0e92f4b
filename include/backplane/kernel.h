/*
 * Kernels: user code a device runs, launched by name on a stream (the way
 * CANN launches AI-CPU kernels, Ascend seed 004).
 *
 * A module is a shared object of kernels, or an op-info JSON manifest naming
 * one shared object and function per op:
 *   {"<OpName>": {"opInfo": {"opKernelLib": "AICPUKernel",
 *                            "kernelSo": "libmy_kernel.so",
 *                            "functionName": "MyKernel"}}, ...}
 * `kernelSo` is resolved relative to the manifest's folder and may not leave
 * it (no "..", no absolute path) unless the options allow it; opKernelLib is
 * "AICPUKernel" or "CUSTAICPUKernel". Files writable by group or others are
 * refused, as plugins are.
 *
 * Kernel variants: an op may list several kernels, each for the targets a
 * predicate describes (target.h), beside or instead of opInfo:
 *   "variants": [{"target": {"kind": "vcpu", "min_num_cores": 4},
 *                 "kernelSo": "libmy_mc.so", "functionName": "MyKernelMC"},
 *                {"kernelSo": "libmy.so", "functionName": "MyKernel"}]
 * Predicate clauses: "kind" (required) equals the target's kind; `<attr>`
 * equals the attribute (a string-array attribute such as `keys` must contain
 * every listed string); `min_<attr>` / `max_<attr>` bound an integer
 * attribute. Loading picks, for the device's canonical target
 * (bp_target_from_device), the satisfied variant with the most clauses;
 * ties go to the earlier one (opInfo, the default, counts as last and has
 * none; a variant without "target" is a default too, at most one per op).
 * Only the chosen variant's kernelSo is loaded. A predicate naming an
 * unknown attribute or a value of the wrong type fails the load
 * (BP_ERR_INVALID_ARGUMENT naming the op and "variant <i>"); an op with no
 * satisfied variant fails it with BP_ERR_NOT_FOUND naming the op, the
 * device's target and each predicate's failed clause. A predicate of a kind
 * not registered here is accepted unchecked and matches nothing. A kernel is
 * `unsigned int fn(void *param)`: 0 is success. Device code uses
 * kernel_device.h.
 *
 * Failures of enqueued work are stream errors, never silent: a kernel
 * returning non-zero leaves its stream in an error state naming the kernel,
 * the op and the code (BP_ERR_PLUGIN); a launch or a notify wait passing its
 * timeout leaves BP_ERR_TIMEOUT. bp_stream_query / bp_stream_synchronize
 * report it until bp_stream_reset or the stream's destruction; work enqueued
 * after it still runs. A kernel that passed its timeout is abandoned: its
 * thread may run on, but no wait is endless.
 *
 * All of this needs the plugin's kernels extension (kernel_ext.h); without
 * it every call is BP_ERR_UNSUPPORTED, saying so. Calls are thread-safe
 * except destroying/unloading an object another thread still uses.
 */
#ifndef BACKPLANE_KERNEL_H_
#define BACKPLANE_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/comm.h"
#include "backplane/device.h"
#include "backplane/kernel_types.h"
#include "backplane/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bp_module bp_module_t;
typedef struct bp_function bp_function_t;
typedef struct bp_notify bp_notify_t;

/* Largest argument block of one launch, in bytes. */
#define BP_LAUNCH_MAX_ARGS 4096
/* Largest manifest read, in bytes, unless the options raise it. */
#define BP_MANIFEST_MAX_BYTES (1u << 20)
/* The timeout of a launch or notify wait that names none: HCCL's
 * 27 * 68 s. */
#define BP_KERNEL_DEFAULT_TIMEOUT_MS (27u * 68u * 1000u)

typedef struct bp_module_options {
  /* Let a manifest's kernelSo be absolute or climb out of its folder. */
  int allow_outside_manifest_folder;
  /* The largest manifest to read, in bytes; 0: BP_MANIFEST_MAX_BYTES. A
   * larger one is refused (BP_ERR_INVALID_ARGUMENT naming this cap). */
  size_t max_manifest_bytes;
} bp_module_options_t;

/* Loads a manifest (*.json), a device-format module the plugin builds
 * (*.cl OpenCL C source, *.spv SPIR-V, *.clbin an OpenCL program binary) or
 * a shared object (any other name) for `device`. A relative `path` (a bare
 * name too) is taken against the working folder, never the dynamic loader's
 * search path, and a manifest's kernelSo against the manifest's folder.
 * Errors name the file, the op and the reason: BP_ERR_INVALID_ARGUMENT for
 * malformed or oversized manifests and refused paths, BP_ERR_NOT_FOUND for
 * missing files and symbols, BP_ERR_UNSUPPORTED without the extension.
 * `options` may be NULL. */
BP_API bp_status_t bp_module_load(bp_device_t *device, const char *path,
                                  bp_module_t **out_module);
BP_API bp_status_t bp_module_load_with_options(
    bp_device_t *device, const char *path, const bp_module_options_t *options,
    bp_module_t **out_module);

/* Drains first: waits for every stream of the module's device (bounded by
 * the launches' timeouts), then unloads; functions of the module are invalid
 * afterwards (the runtime keeps its last 256 unloaded modules readable, so
 * bp_launch of their functions, bp_module_function and a second unload are
 * refused with BP_ERR_INVALID_ARGUMENT). Code of an abandoned (timed-out)
 * kernel stays mapped until it returns.
 * A launch that failed (or timed out) during the drain does not make the
 * unload fail: its error belongs to its stream, which keeps reporting it
 * (bp_stream_query / bp_stream_synchronize) until bp_stream_reset, and the
 * unload neither returns nor clears it. The drain covers every stream of the
 * device, launches of other modules included, so an error returned here
 * could not say whose it was, and the module is unloaded either way. The
 * result is BP_OK once the device is drained and the module unloaded, or
 * the error of the drain itself (the device could not be synchronized),
 * after unloading. NULL is a no-op. */
BP_API bp_status_t bp_module_unload(bp_module_t *module);

/* The function of an op (manifest) or a function name (either kind), by a
 * hash lookup (no scan of the module's list). BP_ERR_NOT_FOUND names the
 * module, how many functions it lists and the (up to 5) listed names
 * nearest to `name`. Valid until unload. */
BP_API bp_status_t bp_module_function(bp_module_t *module, const char *name,
                                      bp_function_t **out_function);
/* Functions a module lists: a manifest's ops in file order; a shared
 * object's exported functions as the plugin reports them. */
BP_API size_t bp_module_function_count(const bp_module_t *module);
BP_API bp_function_t *bp_module_function_at(bp_module_t *module, size_t index);
BP_API const char *bp_function_name(const bp_function_t *function);
/* The manifest's op name, or the function name for a shared object. */
BP_API const char *bp_function_op(const bp_function_t *function);
/* The kernel variant loading chose: its index in the op's "variants", or
 * -1 for opInfo (and for every function of an op without variants). */
BP_API int32_t bp_function_variant(const bp_function_t *function);
/* The chosen variant's predicate as compact JSON with sorted keys, or NULL
 * for a default (opInfo, a variant without "target", no variants). */
BP_API const char *bp_function_variant_target(const bp_function_t *function);
/* Why it was chosen: the device's canonical target, the variant and each
 * other variant with the clause that failed; NULL when the op lists no
 * variants. Valid until unload. */
BP_API const char *bp_function_variant_reason(const bp_function_t *function);

typedef struct bp_launch_config {
  uint32_t timeout_ms; /* 0: BP_KERNEL_DEFAULT_TIMEOUT_MS */
  uint32_t reserved;   /* zero */
} bp_launch_config_t;

/* Enqueues `blocks` (>= 1) runs of `function` on `stream` (a stream of the
 * module's device); the args_size (<= BP_LAUNCH_MAX_ARGS) bytes at `args`
 * are copied before this returns, each block gets a pointer to the copy.
 * `config` may be NULL. Errors of the run are stream errors (above). */
BP_API bp_status_t bp_launch(bp_function_t *function, uint32_t blocks,
                             const void *args, size_t args_size,
                             const bp_launch_config_t *config,
                             bp_stream_t *stream);

/* Notifies: one-shot flags between streams and device code. */
BP_API bp_status_t bp_notify_create(bp_device_t *device,
                                    bp_notify_t **out_notify);
/* NULL is a no-op. Nothing may still wait on it. */
BP_API bp_status_t bp_notify_destroy(bp_notify_t *notify);
/* The id device code names it by (bp_device_notify_wait/record). */
BP_API bp_status_t bp_notify_id(const bp_notify_t *notify, uint32_t *out_id);
/* Sets the notify when the stream reaches this point. */
BP_API bp_status_t bp_notify_record(bp_notify_t *notify, bp_stream_t *stream);
/* Later work on `stream` waits for the notify, which is then reset; after
 * timeout_ms (0: the default) the stream gets a sticky BP_ERR_TIMEOUT and
 * runs on. `stream` must be of the notify's device. */
BP_API bp_status_t bp_notify_wait(bp_notify_t *notify, bp_stream_t *stream,
                                  uint32_t timeout_ms);

/* Prepares the resource context of a custom communication kernel on this
 * rank (call it on every rank, like a collective; bounded by the plugin's
 * communicator timeout): publishes `local` (size bytes of device memory of
 * the communicator's device), names the communicator `name` for that
 * device's code (bp_device_comm_acquire), and fills *out with every rank's
 * buffer and a channel per peer. notify_ids (notify_count <=
 * BP_KERNEL_NOTIFY_SLOTS, may be NULL when 0) are copied into it. */
BP_API bp_status_t bp_comm_kernel_resources(bp_comm_t *comm, const char *name,
                                            void *local, size_t size,
                                            const uint32_t *notify_ids,
                                            size_t notify_count,
                                            bp_kernel_resources_t *out);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_KERNEL_H_ */
