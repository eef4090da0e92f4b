/* Device discovery and set-up, the device table and the current device. */
#include "device.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "memory.h"

static ocl_device_t *g_devices;
static int g_count;
static _Thread_local int t_current;

ocl_device_t *ocl_device_get(const C_Device device) {
  if (!device || device->id < 0 || device->id >= g_count)
    return NULL;
  return &g_devices[device->id];
}

int ocl_device_count(void) {
  return g_count;
}

static const char *type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU)
    return "gpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR)
    return "accelerator";
  if (type & CL_DEVICE_TYPE_CPU)
    return "cpu";
  return "custom";
}

static void device_string(cl_device_id device, cl_device_info what, char *out,
                          size_t capacity) {
  if (clGetDeviceInfo(device, what, capacity, out, NULL) != CL_SUCCESS)
    out[0] = '\0';
  out[capacity - 1] = '\0';
}

/* Fills what the device reports; false (with a message) if it cannot be
 * driven. */
static bool describe(ocl_device_t *dev, const ocl_config_t *config) {
  cl_device_id id = dev->device;
  cl_device_type type = 0;
  cl_device_svm_capabilities svm = 0;
  cl_uint align_bits = 0;
  cl_ulong global = 0, max_alloc = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, NULL) ||
      clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global,
                      NULL) ||
      clGetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
                      &max_alloc, NULL) ||
      clGetDeviceInfo(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                      &align_bits, NULL)) {
    ocl_fail(C_FAILED, "clGetDeviceInfo failed on an OpenCL device");
    return false;
  }
  /* Before OpenCL 2.0 the query does not exist: no SVM. */
  if (clGetDeviceInfo(id, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL) !=
      CL_SUCCESS)
    svm = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_NUMERIC_VERSION, sizeof dev->version,
                      &dev->version, NULL) != CL_SUCCESS)
    dev->version = CL_MAKE_VERSION(1, 2, 0);
  device_string(id, CL_DEVICE_NAME, dev->name, sizeof dev->name);
  device_string(id, CL_DEVICE_VENDOR, dev->vendor, sizeof dev->vendor);
  device_string(id, CL_DRIVER_VERSION, dev->driver_version,
                sizeof dev->driver_version);
  strcpy(dev->type_name, type_name(type));
  dev->base_align = align_bits / 8 > 512 ? align_bits / 8 : 512;
  dev->max_alloc = (size_t)max_alloc;
  dev->capacity = (size_t)global;
  if (config->memory_limit && config->memory_limit < dev->capacity)
    dev->capacity = config->memory_limit;
  bool coarse = (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
  dev->fine_grained_svm = (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
  if (config->memory == OCL_MEMORY_SVM && !coarse) {
    ocl_fail(C_FAILED,
             "BACKPLANE_OPENCL_MEMORY=svm but %s has no coarse-grained SVM",
             dev->name);
    return false;
  }
  dev->svm = coarse && config->memory != OCL_MEMORY_BUFFER;
  return true;
}

static bool set_up(ocl_device_t *dev) {
  cl_int error = CL_SUCCESS;
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform, 0};
  dev->context =
      clCreateContext(properties, 1, &dev->device, NULL, NULL, &error);
  if (!dev->context) {
    ocl_fail(C_FAILED, "clCreateContext on %s: %s", dev->name,
             ocl_error_name(error));
    return false;
  }
  cl_queue_properties queue[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE,
                                 0};
  dev->sync_queue = clCreateCommandQueueWithProperties(
      dev->context, dev->device, queue, &error);
  if (!dev->sync_queue) {
    ocl_fail(C_FAILED, "clCreateCommandQueueWithProperties on %s: %s",
             dev->name, ocl_error_name(error));
    return false;
  }
  pthread_mutex_init(&dev->memory_lock, NULL);
  pthread_mutex_init(&dev->queues_lock, NULL);
  if (!ocl_memory_set_up(dev))
    return false;
  return true;
}

static void tear_down(ocl_device_t *dev) {
  if (dev->sync_queue) {
    clFinish(dev->sync_queue);
    ocl_memory_tear_down(dev);
    clReleaseCommandQueue(dev->sync_queue);
    pthread_mutex_destroy(&dev->memory_lock);
    pthread_mutex_destroy(&dev->queues_lock);
    free(dev->queues);
  }
  if (dev->context)
    clReleaseContext(dev->context);
}

static void release_all(ocl_device_t *devices, int count) {
  for (int i = 0; i < count; ++i)
    tear_down(&devices[i]);
  free(devices);
}

/* Appends the kept devices of `platform` to *devices. */
static bool add_platform(cl_platform_id platform, const ocl_config_t *config,
                         ocl_device_t **devices, int *count) {
  char platform_name[256] = "";
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name,
                    platform_name, NULL);
  platform_name[sizeof platform_name - 1] = '\0';
  cl_uint found = 0;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &found) !=
          CL_SUCCESS ||
      found == 0)
    return true;
  cl_device_id *ids = calloc(found, sizeof *ids);
  ocl_device_t *grown = realloc(*devices, (*count + found) * sizeof **devices);
  if (!ids || !grown) {
    free(ids);
    ocl_fail(C_FAILED, "out of host memory");
    return false;
  }
  *devices = grown;
  bool ok = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, found, ids, NULL) ==
            CL_SUCCESS;
  for (cl_uint i = 0; ok && i < found; ++i) {
    ocl_device_t *dev = &(*devices)[*count];
    *dev = (ocl_device_t){.platform = platform, .device = ids[i]};
    strcpy(dev->platform_name, platform_name);
    ok = describe(dev, config);
    if (ok && !ocl_config_keeps(config->devices, dev->type_name, platform_name,
                                dev->name))
      continue;
    if (ok)
      ok = set_up(dev);
    if (!ok) {
      tear_down(dev);
      break;
    }
    dev->id = *count;
    dev->handle.id = *count;
    (*count)++;
  }
  free(ids);
  return ok;
}

/* The ICD loader keeps its list of vendor drivers in globals and cannot be
 * unloaded cleanly (nor can most drivers): when the host closes this plugin,
 * the loader must stay. Marks the already loaded loader RTLD_NODELETE. */
static void pin_icd_loader(void) {
  dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

C_Status ocl_initialize(void) {
  if (g_devices)
    return C_SUCCESS;
  pin_icd_loader();
  ocl_config_t config;
  if (!ocl_config_read(&config))
    return C_FAILED;
  cl_uint platforms = 0;
  cl_int error = clGetPlatformIDs(0, NULL, &platforms);
  if (error != CL_SUCCESS || platforms == 0)
    return ocl_fail(C_FAILED, "no OpenCL platform found (clGetPlatformIDs: %s)",
                    error != CL_SUCCESS ? ocl_error_name(error)
                                        : "0 platforms");
  cl_platform_id *ids = calloc(platforms, sizeof *ids);
  if (!ids)
    return ocl_fail(C_FAILED, "out of host memory");
  error = clGetPlatformIDs(platforms, ids, NULL);
  ocl_device_t *devices = NULL;
  int count = 0;
  bool ok = error == CL_SUCCESS;
  for (cl_uint i = 0; ok && i < platforms; ++i)
    ok = add_platform(ids[i], &config, &devices, &count);
  free(ids);
  if (!ok) {
    release_all(devices, count);
    return C_FAILED;
  }
  if (count == 0) {
    free(devices);
    if (config.devices[0])
      return ocl_fail(C_FAILED,
                      "no OpenCL device matches BACKPLANE_OPENCL_DEVICES="
                      "\"%s\" (%u platforms searched)",
                      config.devices, platforms);
    return ocl_fail(C_FAILED, "the %u OpenCL platform(s) have no device",
                    platforms);
  }
  g_devices = devices;
  g_count = count;
  return C_SUCCESS;
}

C_Status ocl_device_add_queue(ocl_device_t *dev, cl_command_queue queue) {
  C_Status status = C_SUCCESS;
  pthread_mutex_lock(&dev->queues_lock);
  if (dev->queue_count == dev->queue_capacity) {
    size_t capacity = dev->queue_capacity ? dev->queue_capacity * 2 : 16;
    cl_command_queue *queues = realloc(dev->queues, capacity * sizeof *queues);
    if (queues) {
      dev->queues = queues;
      dev->queue_capacity = capacity;
    } else {
      status = ocl_fail(C_FAILED, "out of host memory");
    }
  }
  if (status == C_SUCCESS)
    dev->queues[dev->queue_count++] = queue;
  pthread_mutex_unlock(&dev->queues_lock);
  return status;
}

void ocl_device_remove_queue(ocl_device_t *dev, cl_command_queue queue) {
  pthread_mutex_lock(&dev->queues_lock);
  for (size_t i = 0; i < dev->queue_count; ++i) {
    if (dev->queues[i] == queue) {
      dev->queues[i] = dev->queues[--dev->queue_count];
      break;
    }
  }
  pthread_mutex_unlock(&dev->queues_lock);
}

C_Status ocl_device_finish(ocl_device_t *dev) {
  /* A snapshot of retained queues, waited for without the lock. */
  pthread_mutex_lock(&dev->queues_lock);
  size_t count = dev->queue_count;
  cl_command_queue *queues = malloc((count + 1) * sizeof *queues);
  if (queues) {
    for (size_t i = 0; i < count; ++i) {
      queues[i] = dev->queues[i];
      clRetainCommandQueue(queues[i]);
    }
  }
  pthread_mutex_unlock(&dev->queues_lock);
  if (!queues)
    return ocl_fail(C_FAILED, "out of host memory");
  cl_int error = clFinish(dev->sync_queue);
  for (size_t i = 0; i < count; ++i) {
    cl_int result = clFinish(queues[i]);
    if (error == CL_SUCCESS)
      error = result;
    clReleaseCommandQueue(queues[i]);
  }
  free(queues);
  if (error != CL_SUCCESS)
    return ocl_fail(ocl_status_of(error), "clFinish on %s: %s", dev->name,
                    ocl_error_name(error));
  return C_SUCCESS;
}

C_Status ocl_synchronize_device(const C_Device device) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev)
    return C_ERROR;
  return ocl_device_finish(dev);
}

C_Status ocl_finalize(void) {
  release_all(g_devices, g_count);
  g_devices = NULL;
  g_count = 0;
  return C_SUCCESS;
}

C_Status ocl_set_device(const C_Device device) {
  if (!ocl_device_get(device))
    return C_ERROR;
  t_current = device->id;
  return C_SUCCESS;
}

C_Status ocl_get_device(const C_Device device) {
  if (!device || g_count == 0)
    return C_ERROR;
  device->id = t_current;
  return C_SUCCESS;
}

C_Status ocl_get_device_count(size_t *count) {
  if (!count)
    return C_ERROR;
  *count = (size_t)g_count;
  return C_SUCCESS;
}

C_Status ocl_get_device_list(size_t *devices) {
  if (!devices)
    return C_ERROR;
  for (int i = 0; i < g_count; ++i)
    devices[i] = (size_t)i;
  return C_SUCCESS;
}
