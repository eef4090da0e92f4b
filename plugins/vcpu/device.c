/* The device table and the per-thread current device. */
#include "device.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"

typedef struct vcpu_runtime {
  int device_count;
  vcpu_device devices[];
} vcpu_runtime;

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

static void destroy_device(vcpu_device *device) {
  vcpu_copier_shutdown(&device->copier);
  vcpu_arena_destroy(&device->arena);
  pthread_rwlock_destroy(&device->streams_lock);
  pthread_mutex_destroy(&device->events_lock);
}

static int create_device(vcpu_device *device, int id, const vcpu_config *config,
                         const vcpu_runners_t *runners) {
  char name[48];
  snprintf(name, sizeof name, "backplane-vcpu-%d", id);
  int error =
      vcpu_arena_create(&device->arena, config->memory_per_device, name);
  if (error != 0)
    return error;
  device->id = id;
  device->handle.id = id;
  device->jitter_us = config->jitter_us;
  device->cores = config->cores;
  device->runners = *runners;
  device->init_refs = 0;
  device->streams = NULL;
  device->events = NULL;
  vcpu_copier_init(&device->copier);
  pthread_rwlock_init(&device->streams_lock, NULL);
  pthread_mutex_init(&device->events_lock, NULL);
  return 0;
}

C_Status vcpu_devices_create(const vcpu_runners_t *runners) {
  vcpu_config config = vcpu_config_from_environment();
  vcpu_runtime *runtime =
      calloc(1, sizeof *runtime +
                    (size_t)config.device_count * sizeof runtime->devices[0]);
  if (!runtime)
    return C_FAILED;
  for (int id = 0; id < config.device_count; ++id) {
    int error = create_device(&runtime->devices[id], id, &config, runners);
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

void vcpu_devices_destroy(void) {
  vcpu_runtime *runtime = atomic_load(&g_runtime);
  atomic_store(&g_runtime, NULL);
  for (int id = 0; id < runtime->device_count; ++id)
    destroy_device(&runtime->devices[id]);
  free(runtime);
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
