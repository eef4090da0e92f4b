/* Plugin lifetime, device table and per-thread current device. */
#include "device.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "event.h"
#include "kernel/kernels.h"
#include "memory.h"
#include "stream.h"

typedef struct vcpu_runtime {
  int device_count;
  vcpu_device devices[];
} vcpu_runtime;

static pthread_mutex_t g_lifetime_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_initialize_refs; /* under g_lifetime_lock */
static _Atomic(vcpu_runtime *) g_runtime;
static _Thread_local int t_current_device;

vcpu_device *vcpu_device_at(int id) {
  vcpu_runtime *runtime =
      atomic_load_explicit(&g_runtime, memory_order_acquire);
  if (!runtime || id < 0 || id >= runtime->device_count)
    return NULL;
  return &runtime->devices[id];
}

vcpu_device *vcpu_device_get(const C_Device device) {
  return device ? vcpu_device_at(device->id) : NULL;
}

int vcpu_device_count(void) {
  vcpu_runtime *runtime =
      atomic_load_explicit(&g_runtime, memory_order_acquire);
  return runtime ? runtime->device_count : 0;
}

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

static void destroy_device(vcpu_device *device) {
  vcpu_copier_shutdown(&device->copier);
  vcpu_arena_destroy(&device->arena);
  pthread_rwlock_destroy(&device->streams_lock);
  pthread_mutex_destroy(&device->events_lock);
}

static int create_device(vcpu_device *device, int id,
                         const vcpu_config *config) {
  char name[48];
  snprintf(name, sizeof name, "backplane-vcpu-%d", id);
  int error =
      vcpu_arena_create(&device->arena, config->memory_per_device, name);
  if (error != 0)
    return error;
  device->id = id;
  device->handle.id = id;
  device->jitter_us = config->jitter_us;
  device->init_refs = 0;
  device->streams = NULL;
  device->events = NULL;
  vcpu_copier_init(&device->copier);
  pthread_rwlock_init(&device->streams_lock, NULL);
  pthread_mutex_init(&device->events_lock, NULL);
  return 0;
}

static C_Status create_runtime(void) {
  vcpu_config config = vcpu_config_from_environment();
  vcpu_runtime *runtime =
      calloc(1, sizeof *runtime +
                    (size_t)config.device_count * sizeof runtime->devices[0]);
  if (!runtime)
    return C_FAILED;
  for (int id = 0; id < config.device_count; ++id) {
    int error = create_device(&runtime->devices[id], id, &config);
    if (error != 0) {
      fprintf(stderr,
              "backplane vcpu: cannot create the %zu-byte memory arena of "
              "device %d: %s\n",
              config.memory_per_device, id, strerror(error));
      while (id-- > 0)
        destroy_device(&runtime->devices[id]);
      free(runtime);
      return C_FAILED;
    }
  }
  runtime->device_count = config.device_count;
  atomic_store_explicit(&g_runtime, runtime, memory_order_release);
  return C_SUCCESS;
}

static void destroy_runtime(void) {
  vcpu_runtime *runtime = atomic_load(&g_runtime);
  for (int id = 0; id < runtime->device_count; ++id)
    release_resources(&runtime->devices[id], "finalize");
  vcpu_host_memory_release_all();
  vk_shutdown();
  atomic_store(&g_runtime, NULL);
  for (int id = 0; id < runtime->device_count; ++id)
    destroy_device(&runtime->devices[id]);
  free(runtime);
}

C_Status vcpu_initialize(void) {
  C_Status status = C_SUCCESS;
  pthread_mutex_lock(&g_lifetime_lock);
  if (g_initialize_refs == 0)
    status = create_runtime();
  if (status == C_SUCCESS)
    g_initialize_refs++;
  pthread_mutex_unlock(&g_lifetime_lock);
  return status;
}

C_Status vcpu_finalize(void) {
  C_Status status = C_SUCCESS;
  pthread_mutex_lock(&g_lifetime_lock);
  if (g_initialize_refs == 0)
    status = C_ERROR;
  else if (--g_initialize_refs == 0)
    destroy_runtime();
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

C_Status vcpu_set_device(const C_Device device) {
  if (!vcpu_device_get(device))
    return C_ERROR;
  t_current_device = device->id;
  return C_SUCCESS;
}

C_Status vcpu_get_device(const C_Device device) {
  if (!device || vcpu_device_count() == 0)
    return C_ERROR;
  /* A thread that never called set_device (or whose device vanished with a
   * re-initialisation to fewer devices) is on device 0. */
  device->id = t_current_device < vcpu_device_count() ? t_current_device : 0;
  return C_SUCCESS;
}

C_Status vcpu_get_device_count(size_t *count) {
  int devices = vcpu_device_count();
  if (!count || devices == 0)
    return C_ERROR;
  *count = (size_t)devices;
  return C_SUCCESS;
}

C_Status vcpu_get_device_list(size_t *devices) {
  int count = vcpu_device_count();
  if (!devices || count == 0)
    return C_ERROR;
  for (int id = 0; id < count; ++id)
    devices[id] = (size_t)id;
  return C_SUCCESS;
}
