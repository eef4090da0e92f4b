/* bp_launch: checks, then one call into the plugin's kernels extension. */
#include "base/status.h"
#include "core/active.h"
#include "core/stream_internal.h"
#include "kernel/kernel_internal.h"

/* BP_ERR_INVALID_ARGUMENT for a misuse the core refuses before any plugin
 * call, reported to the validation layer. */
static __attribute__((cold)) bp_status_t refuse(bp_device_t *device,
                                                bp_status_t status) {
  bp_api_refused(device, "bp_launch");
  return status;
}

BP_API bp_status_t bp_launch(bp_function_t *function, uint32_t blocks,
                             const void *args, size_t args_size,
                             const bp_launch_config_t *config,
                             bp_stream_t *stream) {
  if (!function || !stream)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_launch: function or stream is NULL");
  bp_module_t *module = function->module;
  bp_device_t *device = module->device;
  if (atomic_load_explicit(&module->unloaded, memory_order_relaxed))
    return refuse(device, bp_error(BP_ERR_INVALID_ARGUMENT,
                                   "bp_launch: kernel %s (op %s) of module %s, "
                                   "which was already unloaded",
                                   function->name, function->op, module->path));
  bp_status_t status = bp_stream_resolve(device, &stream);
  if (status != BP_OK)
    return status;
  if (stream->device != device)
    return refuse(device,
                  bp_error(BP_ERR_INVALID_ARGUMENT,
                           "bp_launch: kernel %s: the stream belongs to %s, "
                           "the module to %s",
                           function->op, stream->device->name, device->name));
  if (blocks == 0)
    return refuse(device,
                  bp_error(BP_ERR_INVALID_ARGUMENT,
                           "bp_launch: kernel %s on %s: blocks must be at "
                           "least 1",
                           function->op, device->name));
  if (args_size > BP_LAUNCH_MAX_ARGS || (args_size && !args))
    return refuse(device, bp_error(BP_ERR_INVALID_ARGUMENT,
                                   "bp_launch: kernel %s on %s: %zu argument "
                                   "bytes at %p (at most %d, non-NULL)",
                                   function->op, device->name, args_size, args,
                                   BP_LAUNCH_MAX_ARGS));
  if ((status = bp_device_enter(device)) != BP_OK)
    return status;
  BP_LaunchConfig native_config = {
      .struct_size = sizeof native_config,
      .timeout_ns = bp_kernel_timeout_ns(config ? config->timeout_ms : 0)};
  atomic_store_explicit(&stream->may_have_failed, true, memory_order_relaxed);
  C_Status result = module->kernels->launch(
      &device->c_device, stream->native, function->native, blocks, args,
      args_size, &native_config, function->label);
  if (result != C_SUCCESS)
    return bp_kernels_call_failed(device, module->kernels, "launch", result,
                                  bp_status_from_c(result));
  return BP_OK;
}
