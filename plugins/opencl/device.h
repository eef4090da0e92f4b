/* OpenCL devices behind C_Device ids: every device of every platform that
 * passes BACKPLANE_OPENCL_DEVICES (config.h), numbered 0..count-1 in
 * platform order. Each device gets a context of its own, an in-order queue
 * for the synchronous copies, and a memory path (memory.h): coarse-grained
 * SVM or buffers behind a reserved address range.
 *
 * initialize finds and sets up the devices; it fails (C_FAILED, with the
 * reason in ocl_last_error) when there is no OpenCL platform, no device
 * passes the filter, or the settings do not parse. The table is immutable
 * between initialize and finalize, so lookups take no lock. `set_device` is
 * per calling thread. Every entry point is thread-safe.
 */
#ifndef BACKPLANE_OPENCL_DEVICE_H_
#define BACKPLANE_OPENCL_DEVICE_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "allocations.h"
#include "backplane/device_ext.h"
#include "ocl.h"

typedef struct ocl_device {
  int id;
  struct C_Device_st handle; /* {id}: what stream callbacks receive */
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue sync_queue; /* synchronous copies and memsets */
  bool svm;                    /* coarse-grained SVM, else buffers */
  bool fine_grained_svm;       /* unified memory available */
  char name[256];
  char vendor[256];
  char platform_name[256];
  char driver_version[128];
  char type_name[16]; /* "cpu", "gpu", "accelerator", "custom" */
  cl_uint version;    /* CL_DEVICE_NUMERIC_VERSION (CL_MAKE_VERSION) */
  size_t base_align;  /* alignment of device pointers:
                         CL_DEVICE_MEM_BASE_ADDR_ALIGN  in bytes, at least 512 */
  size_t max_alloc;   /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
  size_t capacity;    /* global memory, capped by the configured limit */

  /* Memory (memory.c), all three tables under memory_lock. */
  pthread_mutex_t memory_lock;
  ocl_allocations_t allocations; /* device memory */
  ocl_allocations_t host;        /* pinned host memory: buffer = its cl_mem */
  ocl_allocations_t unified;     /* fine-grained SVM */

  /* The queues of live streams, which ocl_device_finish drains. */
  pthread_mutex_t queues_lock;
  cl_command_queue *queues;
  size_t queue_count, queue_capacity;
} ocl_device_t;

/* The device `device` names, or NULL if it is NULL, out of range or the
 * plugin is not initialised. */
ocl_device_t *ocl_device_get(const C_Device device);

/* Number of devices (0 when not initialised). */
int ocl_device_count(void);

/* Registers / forgets a stream's queue. Add is C_FAILED when out of host
 * memory. */
C_Status ocl_device_add_queue(ocl_device_t *dev, cl_command_queue queue);
void ocl_device_remove_queue(ocl_device_t *dev, cl_command_queue queue);

/* Blocks until everything enqueued on the device so far (its synchronous
 * queue and every stream) has finished: synchronize_device. Takes no lock
 * while it waits, so a stream callback may create or destroy streams. */
C_Status ocl_device_finish(ocl_device_t *dev);
C_Status ocl_synchronize_device(const C_Device device);

C_Status ocl_initialize(void);
C_Status ocl_finalize(void);
C_Status ocl_set_device(const C_Device device);
C_Status ocl_get_device(const C_Device device);
C_Status ocl_get_device_count(size_t *count);
C_Status ocl_get_device_list(size_t *devices);

#endif /* BACKPLANE_OPENCL_DEVICE_H_ */
