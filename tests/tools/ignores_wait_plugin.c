/* A deliberately wrong plugin for `backplane check`: vcpu (loaded from its
 * build path, BP_VCPU_PLUGIN) whose stream_wait_event returns success
 * without making the stream wait, so work ordered after another stream's
 * event runs early. Its device type is ignores_wait; vcpu's devices are
 * shared with the vcpu plugin itself (vcpu counts its initializations). The
 * cross-stream checks must FAIL; the rest of vcpu is right. */
#include <dlfcn.h>
#include <stdio.h>

#include "backplane/device_ext.h"

/* The defect. */
static C_Status ignore_wait(const C_Device device, C_Stream stream,
                            C_Event event) {
  (void)device;
  (void)stream;
  (void)event;
  return C_SUCCESS;
}

__attribute__((visibility("default"))) void
InitPlugin(CustomRuntimeParams *params) {
  void *vcpu = dlopen(BP_VCPU_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  void (*init)(CustomRuntimeParams *) =
      vcpu ? (void (*)(CustomRuntimeParams *))dlsym(vcpu, "InitPlugin") : NULL;
  if (!init) {
    fprintf(stderr, "ignores_wait: cannot load %s: %s\n", BP_VCPU_PLUGIN,
            dlerror());
    return;
  }
  init(params);
  params->device_type = "ignores_wait";
  params->interface->stream_wait_event = ignore_wait;
}
