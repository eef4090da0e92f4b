/* Plugin lifetime: reference counts, and releasing what devices still hold. */
#include "lifetime.h"

#include <pthread.h>
#include <stdio.h>

#include "event.h"
#include "memory.h"
#include "stream.h"

static pthread_mutex_t g_lifetime_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_initialize_refs; /* under g_lifetime_lock */

/* Drains and frees whatever the device still holds, saying so if anything. */
static void release_resources(vcpu_device *device, const char *when) {
  size_t streams = vcpu_streams_destroy_all(device);
  size_t events = vcpu_events_destroy_all(device);
  vcpu_arena_usage_info usage = vcpu_arena_usage(&device->arena);
  if (streams == 0 && events == 0 && usage.live_count == 0)
    return;
  fprintf(stderr,
          "backplane vcpu: %s of device %d found %zu live stream(s) (drained "
          "and destroyed), %zu live event(s), %zu live allocation(s) of %zu "
          "bytes; released\n",
          when, device->id, streams, events, usage.live_count,
          usage.live_bytes);
  if (usage.live_count != 0)
    vcpu_arena_reset(&device->arena);
}

C_Status vcpu_initialize(const vcpu_runners_t *runners) {
  if (!runners)
    return C_ERROR;
  C_Status status = C_SUCCESS;
  pthread_mutex_lock(&g_lifetime_lock);
  if (g_initialize_refs == 0)
    status = vcpu_devices_create(runners);
  if (status == C_SUCCESS)
    g_initialize_refs++;
  pthread_mutex_unlock(&g_lifetime_lock);
  return status;
}

C_Status vcpu_finalize(void) {
  C_Status status = C_SUCCESS;
  pthread_mutex_lock(&g_lifetime_lock);
  if (g_initialize_refs == 0) {
    status = C_ERROR;
  } else if (--g_initialize_refs == 0) {
    /* The runners every device copied; read before the devices go. */
    void (*shutdown)(void) =
        vcpu_device_count() > 0 ? vcpu_device_at(0)->runners.shutdown : NULL;
    for (int id = 0; id < vcpu_device_count(); ++id)
      release_resources(vcpu_device_at(id), "finalize");
    vcpu_host_memory_release_all();
    vcpu_devices_destroy();
    if (shutdown) /* under the lock: a new initialize waits for it */
      shutdown();
  }
  pthread_mutex_unlock(&g_lifetime_lock);
  return status;
}

C_Status vcpu_init_device(const C_Device device) {
  pthread_mutex_lock(&g_lifetime_lock);
  vcpu_device *dev = vcpu_device_get(device);
  if (dev)
    dev->init_refs++;
  pthread_mutex_unlock(&g_lifetime_lock);
  return dev ? C_SUCCESS : C_ERROR;
}

C_Status vcpu_deinit_device(const C_Device device) {
  C_Status status = C_ERROR;
  pthread_mutex_lock(&g_lifetime_lock);
  vcpu_device *dev = vcpu_device_get(device);
  if (dev && dev->init_refs > 0) {
    if (--dev->init_refs == 0)
      release_resources(dev, "deinit_device");
    status = C_SUCCESS;
  }
  pthread_mutex_unlock(&g_lifetime_lock);
  return status;
}
