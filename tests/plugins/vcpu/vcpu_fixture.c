/* vcpu test fixture. */
#include "plugins/vcpu/vcpu_fixture.h"

#include <dlfcn.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include <cmocka.h>

vcpu_plugin vcpu;

static struct C_Device_st g_devices[64];

C_Device vcpu_dev(int id) {
  assert_true(id >= 0 && id < 64);
  return &g_devices[id];
}

void vcpu_open(void) {
  memset(&vcpu, 0, sizeof vcpu);
  for (int id = 0; id < 64; ++id)
    g_devices[id].id = id;
  vcpu.handle = dlopen(VCPU_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!vcpu.handle)
    fail_msg("dlopen(%s): %s", VCPU_PLUGIN_PATH, dlerror());
  void (*init_plugin)(CustomRuntimeParams *) =
      (void (*)(CustomRuntimeParams *))dlsym(vcpu.handle, "InitPlugin");
  assert_non_null(init_plugin);
  vcpu.params.size = sizeof(CustomRuntimeParams);
  vcpu.params.interface = &vcpu.table;
  vcpu.table.size = sizeof(C_DeviceInterface);
  init_plugin(&vcpu.params);
  assert_non_null(vcpu.params.device_type);

  BP_PluginExtensionsFn extensions =
      (BP_PluginExtensionsFn)dlsym(vcpu.handle, BP_PLUGIN_EXTENSIONS_SYMBOL);
  assert_non_null(extensions);
  for (const BP_ExtensionBase *ext = extensions(); ext; ext = ext->next) {
    if (ext->type == BP_EXTENSION_DEVICE_ATTRIBUTES)
      vcpu.attributes = (const BP_DeviceAttributesExtension *)ext;
    else if (ext->type == BP_EXTENSION_EVENT_TIMING)
      vcpu.timing = (const BP_EventTimingExtension *)ext;
    else if (ext->type == BP_EXTENSION_STREAM_INLINE)
      vcpu.stream_inline = (const BP_StreamInlineExtension *)ext;
  }
  assert_non_null(vcpu.attributes);
  assert_non_null(vcpu.timing);
  assert_non_null(vcpu.stream_inline);
}

void vcpu_close(void) {
  dlclose(vcpu.handle);
  memset(&vcpu, 0, sizeof vcpu);
}

int vcpu_setup(void **state) {
  (void)state;
  vcpu_open();
  return vcpu.table.initialize() == C_SUCCESS ? 0 : -1;
}

int vcpu_teardown(void **state) {
  (void)state;
  int result = vcpu.table.finalize() == C_SUCCESS ? 0 : -1;
  vcpu_close();
  return result;
}

void vcpu_gate_callback(C_Device device, C_Stream stream, void *gate,
                        C_Status *status) {
  (void)device;
  (void)stream;
  (void)status;
  vcpu_gate *g = gate;
  atomic_store(&g->reached, 1);
  while (!atomic_load(&g->open))
    sched_yield();
}

void vcpu_gate_open(vcpu_gate *gate) {
  atomic_store(&gate->open, 1);
}

void vcpu_gate_wait_reached(vcpu_gate *gate) {
  while (!atomic_load(&gate->reached))
    sched_yield();
}

static uint8_t pattern_byte(size_t i, uint32_t seed) {
  uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u;
  return (uint8_t)(x >> 13 ^ x >> 24);
}

void vcpu_fill(void *buffer, size_t size, uint32_t seed) {
  uint8_t *bytes = buffer;
  for (size_t i = 0; i < size; ++i)
    bytes[i] = pattern_byte(i, seed);
}

int vcpu_matches(const void *buffer, size_t size, uint32_t seed) {
  const uint8_t *bytes = buffer;
  for (size_t i = 0; i < size; ++i)
    if (bytes[i] != pattern_byte(i, seed))
      return 0;
  return 1;
}
