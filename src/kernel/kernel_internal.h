/* Modules, functions and notifies of the framework face (internal). */
#ifndef BACKPLANE_KERNEL_INTERNAL_H_
#define BACKPLANE_KERNEL_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>

#include "backplane/kernel.h"
#include "backplane/kernel_ext.h"
#include "core/device_table.h"
#include "core/retired.h"

struct bp_function {
  bp_module_t *module;
  char *name; /* the symbol */
  char *op;   /* the manifest's op, or the symbol */
  BP_KernelFunction native;
  /* The kernel variant chosen (kernel/variant.h): its index in the op's
   * "variants" (-1: opInfo or no variants), its predicate (NULL: default)
   * and the reason (NULL: the op lists no variants). Owned. */
  int32_t variant;
  char *variant_target;
  char *variant_reason;
  /* What launches hand the plugin (and so the trace) as their label: the op,
   * with " [variant <i>]" when a variant was chosen. Owned unless == op. */
  char *label;
  struct bp_function *next_found; /* bp_module_t.found list */
};

/* kernel/function_index.h: listed functions by op and function name. */
typedef struct bp_function_index_slot {
  const char *key; /* NULL: empty */
  bp_function_t *function;
} bp_function_index_slot_t;

typedef struct bp_function_index {
  bp_function_index_slot_t *slots; /* mask + 1 of them, or NULL */
  size_t mask;
} bp_function_index_t;

struct bp_module {
  bp_device_t *device;
  const BP_KernelExtension *kernels;
  char *path; /* absolute: the working folder joined to a relative path */
  BP_KernelModule *parts; /* one per distinct shared object */
  size_t part_count;
  bp_function_t *functions; /* the listed ones */
  size_t function_count;
  bp_function_index_t index; /* of `functions`, built once they are loaded */
  /* Functions of a shared object found by name but not listed; guarded by
   * `lock`, freed with the module. */
  pthread_mutex_t lock;
  bp_function_t *found;
  /* Set by bp_module_unload, which then retires the module (core/retired.h)
   * instead of freeing it: a function of it passed again is refused. */
  atomic_bool unloaded;
  bp_retired_node_t retired;
};

struct bp_notify {
  bp_device_t *device;
  const BP_KernelExtension *kernels;
  BP_Notify native;
  uint32_t id;
};

/* A framework-face timeout (0: BP_KERNEL_DEFAULT_TIMEOUT_MS) in the
 * extension's nanoseconds. */
static inline uint64_t bp_kernel_timeout_ns(uint32_t timeout_ms) {
  return (uint64_t)(timeout_ms ? timeout_ms : BP_KERNEL_DEFAULT_TIMEOUT_MS) *
         1000000u;
}

/* The device's kernels extension after entering the device, or an error
 * naming `what`: BP_ERR_INVALID_ARGUMENT for a NULL device,
 * BP_ERR_UNSUPPORTED when the plugin has no kernels extension. */
bp_status_t bp_kernels_of(bp_device_t *device, const char *what,
                          const BP_KernelExtension **out_kernels);

/* Sets bp_error for a failed extension call, with the plugin's reason. */
bp_status_t bp_kernels_call_failed(const bp_device_t *device,
                                   const BP_KernelExtension *kernels,
                                   const char *function, C_Status result,
                                   bp_status_t status);

#endif /* BACKPLANE_KERNEL_INTERNAL_H_ */
