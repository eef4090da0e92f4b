/* Notifies: a flag, a wake-up word and an id that indexes the plugin-wide
 * table device code looks them up in. Record and wait-and-reset run as
 * stream callbacks, so they are ordered with the stream's other work. */
#include <pthread.h>
#include <stdlib.h>

#include "base/park.h"
#include "device.h"
#include "kernels.h"
#include "stream.h"

enum { MAX_NOTIFIES = 4096 };

struct BP_Notify_st {
  uint32_t id;
  int device_id;
  _Atomic unsigned flag;
  vcpu_comm_signal_t signal;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct BP_Notify_st *_Atomic g_table[MAX_NOTIFIES];
static const atomic_bool g_never_aborted = false;

struct BP_Notify_st *vk_notify_lookup(uint32_t id) {
  return id < MAX_NOTIFIES
             ? atomic_load_explicit(&g_table[id], memory_order_acquire)
             : NULL;
}

static bool flag_set(void *context) {
  struct BP_Notify_st *notify = context;
  return atomic_load_explicit(&notify->flag, memory_order_acquire) != 0;
}

bool vk_notify_take(struct BP_Notify_st *notify, uint64_t deadline_ns) {
  if (vcpu_comm_wait(&notify->signal, &g_never_aborted, deadline_ns, flag_set,
                     NULL, notify) != VCPU_COMM_WAIT_READY)
    return false;
  atomic_store_explicit(&notify->flag, 0, memory_order_release);
  return true;
}

void vk_notify_set(struct BP_Notify_st *notify) {
  atomic_store_explicit(&notify->flag, 1, memory_order_release);
  vcpu_comm_signal_progress(&notify->signal);
}

C_Status vk_notify_create(const C_Device device, BP_Notify *out_notify) {
  vcpu_device *dev = vcpu_device_get(device);
  if (!dev || !out_notify)
    return vk_fail(C_ERROR, "notify_create: bad device or out_notify");
  struct BP_Notify_st *notify = calloc(1, sizeof *notify);
  if (!notify)
    return vk_fail(C_FAILED, "notify_create: out of memory");
  notify->device_id = dev->id;
  pthread_mutex_lock(&g_lock);
  uint32_t id = 0;
  while (id < MAX_NOTIFIES && atomic_load(&g_table[id]))
    ++id;
  if (id < MAX_NOTIFIES) {
    notify->id = id;
    atomic_store_explicit(&g_table[id], notify, memory_order_release);
  }
  pthread_mutex_unlock(&g_lock);
  if (id == MAX_NOTIFIES) {
    free(notify);
    return vk_fail(C_FAILED, "notify_create: all %d notify ids are in use",
                   MAX_NOTIFIES);
  }
  *out_notify = notify;
  return C_SUCCESS;
}

C_Status vk_notify_destroy(const C_Device device, BP_Notify notify) {
  if (!vcpu_device_get(device) || !notify)
    return vk_fail(C_ERROR, "notify_destroy: bad device or notify");
  pthread_mutex_lock(&g_lock);
  atomic_store(&g_table[notify->id], NULL);
  pthread_mutex_unlock(&g_lock);
  free(notify);
  return C_SUCCESS;
}

C_Status vk_notify_id(const C_Device device, BP_Notify notify,
                      uint32_t *out_id) {
  if (!vcpu_device_get(device) || !notify || !out_id)
    return vk_fail(C_ERROR, "notify_id: bad argument");
  *out_id = notify->id;
  return C_SUCCESS;
}

static void record_on_stream(C_Device device, C_Stream stream, void *user_data,
                             C_Status *status) {
  (void)device;
  (void)stream;
  (void)status;
  vk_notify_set(user_data);
}

typedef struct notify_wait {
  struct BP_Notify_st *notify;
  uint64_t timeout_ns;
} notify_wait;

static void wait_on_stream(C_Device device, C_Stream stream, void *user_data,
                           C_Status *status) {
  (void)device;
  (void)status;
  notify_wait *wait = user_data;
  if (!vk_notify_take(wait->notify, vcpu_now_ns() + wait->timeout_ns))
    vk_stream_fail(stream, BP_ERR_TIMEOUT,
                   "wait for notify %u passed its timeout of %llu ms",
                   wait->notify->id,
                   (unsigned long long)(wait->timeout_ns / 1000000u));
  free(wait);
}

static C_Status check(vcpu_device *dev, C_Stream stream, BP_Notify notify,
                      const char *what) {
  if (!dev || !notify || !vcpu_stream_of(dev, stream))
    return vk_fail(C_ERROR, "%s: bad device, stream or notify", what);
  if (notify->device_id != dev->id)
    return vk_fail(C_ERROR, "%s: notify %u belongs to device %d, not %d", what,
                   notify->id, notify->device_id, dev->id);
  return C_SUCCESS;
}

C_Status vk_notify_record(const C_Device device, C_Stream stream,
                          BP_Notify notify) {
  vcpu_device *dev = vcpu_device_get(device);
  C_Status status = check(dev, stream, notify, "notify_record");
  if (status != C_SUCCESS)
    return status;
  vcpu_command command = {.kind = VCPU_COMMAND_CALLBACK,
                          .callback = {record_on_stream, notify, &dev->handle}};
  vcpu_stream_enqueue(stream, &command);
  return C_SUCCESS;
}

C_Status vk_notify_wait(const C_Device device, C_Stream stream,
                        BP_Notify notify, uint64_t timeout_ns) {
  vcpu_device *dev = vcpu_device_get(device);
  C_Status status = check(dev, stream, notify, "notify_wait");
  if (status != C_SUCCESS)
    return status;
  notify_wait *wait = malloc(sizeof *wait);
  if (!wait)
    return vk_fail(C_FAILED, "notify_wait: out of memory");
  wait->notify = notify;
  wait->timeout_ns = vk_timeout_ns(timeout_ns);
  vcpu_command command = {.kind = VCPU_COMMAND_CALLBACK,
                          .callback = {wait_on_stream, wait, &dev->handle}};
  vcpu_stream_enqueue(stream, &command);
  return C_SUCCESS;
}
