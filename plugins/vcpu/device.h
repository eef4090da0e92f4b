/* Virtual devices: the device table and the per-thread current device. The
 * plugin's lifetime (initialize, finalize, init_device, deinit_device), which
 * creates and destroys the table, is lifetime.h.
 *
 * Device ids are 0..count-1 (the "physical" id equals the logical one).
 * `set_device` is per calling thread. Every entry point is thread-safe.
 */
#ifndef BACKPLANE_VCPU_DEVICE_H_
#define BACKPLANE_VCPU_DEVICE_H_

#include <pthread.h>
#include <stddef.h>

#include "arena.h"
#include "backplane/device_ext.h"
#include "comm/task.h"
#include "copier.h"

/* What the streams run for the floors above them, given at initialize:
 * comm_task runs a collective task on a stream's worker and may block
 * (vcpu_comm_run_task, comm/ops.h). */
struct vcpu_command;
typedef struct vcpu_runners {
  void (*comm_task)(const vcpu_comm_task_t *task);
  /* A VCPU_COMMAND_KERNEL (queue.h) on a stream's worker, given its slot;
   * then, after it was traced, kernel_done drops what it holds. */
  void (*kernel)(C_Stream stream, const struct vcpu_command *command,
                 unsigned char *slot);
  void (*kernel_done)(const struct vcpu_command *command);
  /* Called by the last finalize, under the lifetime lock, once the devices
   * are gone (the kernels' block pools stop); NULL: nothing. */
  void (*shutdown)(void);
} vcpu_runners_t;

typedef struct vcpu_device {
  int id;
  struct C_Device_st handle; /* {id}: what stream callbacks receive */
  unsigned jitter_us;        /* BACKPLANE_VCPU_JITTER_US */
  unsigned cores;         /* BACKPLANE_VCPU_CORES; 0: the host's online CPUs */
  vcpu_runners_t runners; /* fixed for the device's life */
  vcpu_arena arena;
  vcpu_copier copier;
  int init_refs; /* init_device minus deinit_device, under lifetime.c's lock */
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

/* Creates the devices the environment asks for (config.h), each running
 * commands with `runners`, and publishes them. C_FAILED (with a message on
 * stderr) if one cannot be made. The caller (lifetime.c) serializes these. */
C_Status vcpu_devices_create(const vcpu_runners_t *runners);
/* Unpublishes and destroys the devices; the caller released what they held. */
void vcpu_devices_destroy(void);

C_Status vcpu_set_device(const C_Device device);
C_Status vcpu_get_device(const C_Device device);
C_Status vcpu_get_device_count(size_t *count);
/* Writes count ids (0..count-1) into `devices`. */
C_Status vcpu_get_device_list(size_t *devices);

#endif /* BACKPLANE_VCPU_DEVICE_H_ */
