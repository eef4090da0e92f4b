/*
 * Backplane vendor face: the kernels extension.
 *
 * Paddle's table cannot run user code on a device. A plugin that can exports
 * this extension in its BackplanePluginExtensions() chain (device_ext.h):
 * modules loaded from a file or from bytes, functions found by name, launches
 * on a stream with a block count, argument bytes and a config, notifies a
 * stream and device code signal each other through, and the stream errors
 * launches leave behind. Backplane's kernel API (kernel.h) uses it; without
 * it every kernel call is BP_ERR_UNSUPPORTED. Fields are only ever appended;
 * the host reads a field only if `base.struct_size` covers it.
 *
 * Every function is thread-safe. A C_Status other than C_SUCCESS comes with
 * an explanation from last_error() on the calling thread.
 */
#ifndef BACKPLANE_KERNEL_EXT_H_
#define BACKPLANE_KERNEL_EXT_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "backplane/kernel_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BP_KernelModule_st *BP_KernelModule;
typedef struct BP_KernelFunction_st *BP_KernelFunction;
typedef struct BP_Notify_st *BP_Notify;

/* What the bytes of a module are. Vendors number their own formats from
 * BP_MODULE_KIND_VENDOR up. */
typedef enum BP_ModuleKind {
  BP_MODULE_KIND_SHARED_OBJECT = 1, /* host ELF: `unsigned int fn(void *)` */
  BP_MODULE_KIND_OPENCL_C = 2,      /* OpenCL C source text (*.cl) */
  BP_MODULE_KIND_SPIRV = 3,         /* a SPIR-V module (*.spv) */
  BP_MODULE_KIND_OPENCL_BINARY = 4, /* an OpenCL program binary (*.clbin) */
  BP_MODULE_KIND_VENDOR = 0x10000,
} BP_ModuleKind;

/* The first line of OpenCL C source that Backplane's opencl builder
 * generated from tensor-expression IR: descriptor lines ("//@bp function",
 * "//@bp stage") then say which kernels one launch of each function runs and
 * which arguments are device pointers (docs/plugin-guide.md, "Generated
 * OpenCL modules"). */
#define BP_OPENCL_GENERATED_MARKER "//@bp generated-opencl 1"
/* The same for CUDA C from the cuda builder; the next line, `//@bp arch
 * sm_XY`, names the architecture it was built for (docs/cuda.md, "Generated
 * modules"). */
#define BP_CUDA_GENERATED_MARKER "//@bp generated-cuda 1"

/* Launch attributes; struct_size versions it like an extension. */
typedef struct BP_LaunchConfig {
  size_t struct_size;
  uint64_t timeout_ns; /* > 0: the launch fails with BP_ERR_TIMEOUT after it */
} BP_LaunchConfig;

typedef struct BP_KernelExtension {
  BP_ExtensionBase base; /* type = BP_EXTENSION_KERNELS */

  /* Loads a module of `kind` from a file (the host has already refused
   * group/other-writable files) or from `size` bytes (copied). The module
   * stays usable until module_unload; its code stays mapped until the last
   * block that runs it has returned. */
  C_Status (*module_load_file)(const C_Device device, const char *path,
                               int32_t kind, BP_KernelModule *out_module);
  C_Status (*module_load_data)(const C_Device device, const void *data,
                               size_t size, int32_t kind,
                               BP_KernelModule *out_module);
  /* The host drains the device's streams first. */
  C_Status (*module_unload)(const C_Device device, BP_KernelModule module);
  /* C_FAILED when the module has no function `name`. The handle lives as
   * long as the module. */
  C_Status (*module_get_function)(const C_Device device, BP_KernelModule module,
                                  const char *name,
                                  BP_KernelFunction *out_function);
  /* Writes up to `capacity` names (static for the module's life) into
   * `names` and the total into *out_count. A module of a format without a
   * symbol table may report 0. */
  C_Status (*module_function_names)(const C_Device device,
                                    BP_KernelModule module, const char **names,
                                    size_t capacity, size_t *out_count);

  /* Enqueues `blocks` runs of `function` (block i sees index i), in order
   * with the stream's other work; the `args_size` bytes at `args` are copied
   * before this returns and every block gets a pointer to that copy. The
   * launch completes when every block has returned. A block returning
   * non-zero, or the launch passing config->timeout_ns, leaves a sticky
   * error on the stream (stream_error) naming `label` (for messages; may be
   * NULL) and the code; the stream runs on. `config` may be NULL. */
  C_Status (*launch)(const C_Device device, C_Stream stream,
                     BP_KernelFunction function, uint32_t blocks,
                     const void *args, size_t args_size,
                     const BP_LaunchConfig *config, const char *label);

  /* *out_status = 0 while the stream is healthy, else the bp_status_t of its
   * first failure (BP_ERR_PLUGIN for a kernel's non-zero code,
   * BP_ERR_TIMEOUT) with a NUL-terminated explanation in `message`
   * (`capacity` bytes, may be NULL). The error stays until stream_reset or
   * the stream's destruction. */
  C_Status (*stream_error)(const C_Device device, C_Stream stream,
                           int32_t *out_status, char *message, size_t capacity);
  C_Status (*stream_reset)(const C_Device device, C_Stream stream);

  /* Notifies: flags with a device-wide id that device code names them by.
   * record sets the flag in stream order; wait enqueues a wait for it,
   * resetting it when it comes; past timeout_ns (0: the plugin's default) the
   * stream gets a sticky BP_ERR_TIMEOUT and runs on. */
  C_Status (*notify_create)(const C_Device device, BP_Notify *out_notify);
  C_Status (*notify_destroy)(const C_Device device, BP_Notify notify);
  C_Status (*notify_id)(const C_Device device, BP_Notify notify,
                        uint32_t *out_id);
  C_Status (*notify_record)(const C_Device device, C_Stream stream,
                            BP_Notify notify);
  C_Status (*notify_wait)(const C_Device device, C_Stream stream,
                          BP_Notify notify, uint64_t timeout_ns);

  /* Prepares the resource context of a custom communication kernel for one
   * rank: publishes `local` (size bytes, device memory of `device`) to the
   * communicator's peers, waits (bounded) until every rank did, and fills
   * *out with every rank's buffer mapped for this rank and a channel per
   * peer. Also names the communicator `name` for device code on `device`
   * (bp_device_comm_acquire). Call it on every rank, like a collective. */
  C_Status (*comm_kernel_resources)(const C_Device device, C_CCLComm comm,
                                    const char *name, void *local, size_t size,
                                    bp_kernel_resources_t *out);

  /* Why the calling thread's last call above failed (never NULL). */
  const char *(*last_error)(void);

  /* Optional (NULL, or not covered by struct_size: the host maps the
   * C_Status, C_ERROR to BP_ERR_INVALID_ARGUMENT). The bp_status_t the
   * calling thread's last failed call above stands for, e.g.
   * BP_ERR_UNSUPPORTED for a well-formed request this device cannot do, or
   * 0 to let the host map its C_Status. */
  int32_t (*last_status)(void);
} BP_KernelExtension;

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_KERNEL_EXT_H_ */
