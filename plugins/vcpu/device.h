/* Virtual devices and the plugin's lifetime.
 *
 * `initialize`/`finalize` are reference-counted: the same loaded plugin may be
 * initialised by several runtimes of one process; the devices are created on
 * the first initialize (reading the environment, config.h) and torn down on the
 * last finalize. `init_device`/`deinit_device` are reference-counted per
 * device the same way. A teardown that finds live streams, events or
 * allocations reports them on stderr (counts, bytes), drains and frees them.
 *
 * Device ids are 0..count-1 (the "physical" id equals the logical one).
 * `set_device` is per calling thread. Every entry point is thread-safe, but
 * finalize must not race other calls into the plugin.
 */
#ifndef BACKPLANE_VCPU_DEVICE_H_
#define BACKPLANE_VCPU_DEVICE_H_

#include <pthread.h>
#include <stddef.h>

#include "arena.h"
#include "backplane/device_ext.h"
#include "copier.h"

typedef struct vcpu_device {
  int id;
  struct C_Device_st handle; /* {id}: what stream callbacks receive */
  unsigned jitter_us;        /* BACKPLANE_VCPU_JITTER_US */
  vcpu_arena arena;
  vcpu_copier copier;
  int init_refs; /* init_device minus deinit_device, under the global lock */
  /* Live streams; synchronize_device holds it shared while it waits. */
  pthread_rwlock_t streams_lock;
  struct C_Stream_st *streams;
  pthread_mutex_t events_lock;
  struct C_Event_st *events;
} vcpu_device;

/* The device `device` names, or NULL if `device` is NULL, the plugin is not
 * initialised or the id is out of range. Lock-free. */
vcpu_device *vcpu_device_get(const C_Device device);

/* Same by id (NULL when out of range or not initialised). */
vcpu_device *vcpu_device_at(int id);

/* Number of virtual devices, 0 when not initialised. */
int vcpu_device_count(void);

C_Status vcpu_initialize(void);
C_Status vcpu_finalize(void);
C_Status vcpu_init_device(const C_Device device);
C_Status vcpu_set_device(const C_Device device);
C_Status vcpu_get_device(const C_Device device);
C_Status vcpu_deinit_device(const C_Device device);
C_Status vcpu_get_device_count(size_t *count);
/* Writes count ids (0..count-1) into `devices`. */
C_Status vcpu_get_device_list(size_t *devices);

#endif /* BACKPLANE_VCPU_DEVICE_H_ */
