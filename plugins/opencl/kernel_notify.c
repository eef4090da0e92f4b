/* Notifies, host-side: a one-shot flag per notify. record enqueues a marker
 * whose completion callback sets the flag (or opens the oldest waiting
 * gate); wait enqueues a barrier on a user event (the gate) that the next
 * record opens, or opens it at once if the flag is set (taking the flag).
 * A watchdog thread, running while gates are closed, opens a gate at its
 * deadline and leaves the waiting stream a sticky BP_ERR_TIMEOUT, so the
 * stream runs on and nothing waits forever. OpenCL C has no device-side wait or
 * record the plugin could hand kernels, so ids only name notifies in messages.
 * One lock for all notifies (they are rare); the marker callbacks run on the
 * OpenCL runtime's thread. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backplane/status.h"
#include "kernel_internal.h"

typedef struct notify_gate {
  cl_event gate; /* user event the waiting stream's barrier waits on */
  uint64_t deadline_ns, timeout_ns;
  struct ocl_stream_kernels *kernels; /* the waiting stream's errors */
  struct BP_Notify_st *notify;
  struct notify_gate *next;         /* the notify's gates, oldest first */
  struct notify_gate *next_pending; /* every gate, for the watchdog */
} notify_gate_t;

struct BP_Notify_st {
  uint32_t id;
  ocl_device_t *dev;
  int refs; /* the handle, and each record whose marker has not completed */
  bool set;
  notify_gate_t *gates;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_wake_once = PTHREAD_ONCE_INIT;
static pthread_cond_t g_wake; /* on CLOCK_MONOTONIC */
static notify_gate_t *g_pending;
static uint32_t g_next_id;
/* The watchdog runs while g_pending is not empty, then exits; `joinable`
 * until the next start (or the unload) joins it. */
static bool g_watchdog_running, g_watchdog_joinable;
static pthread_t g_watchdog;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void unref_locked(struct BP_Notify_st *notify) {
  if (--notify->refs == 0)
    free(notify);
}

/* Unlinks `gate` from its notify and the pending list, sets the stream's
 * error if it timed out (before the gate opens: once open, the stream may
 * be destroyed), frees it and returns its user event, which the caller
 * opens with open_gate after unlocking (opening may run OpenCL callbacks,
 * such as on_recorded, that take g_lock). */
static cl_event close_out_locked(notify_gate_t *gate, bool timed_out) {
  for (notify_gate_t **at = &gate->notify->gates; *at; at = &(*at)->next)
    if (*at == gate) {
      *at = gate->next;
      break;
    }
  for (notify_gate_t **at = &g_pending; *at; at = &(*at)->next_pending)
    if (*at == gate) {
      *at = gate->next_pending;
      break;
    }
  if (timed_out)
    ocl_stream_kernels_fail(gate->kernels, BP_ERR_TIMEOUT,
                            "wait for notify %u passed its timeout of %llu "
                            "ms; the stream runs on",
                            gate->notify->id,
                            (unsigned long long)(gate->timeout_ns / 1000000u));
  cl_event event = gate->gate;
  unref_locked(gate->notify);
  free(gate);
  if (g_watchdog_running && !g_pending)
    pthread_cond_broadcast(&g_wake); /* nothing left to watch: let it exit */
  return event;
}

/* Lets the stream waiting on `gate` run on (g_lock not held). */
static void open_gate(cl_event gate) {
  clSetUserEventStatus(gate, CL_COMPLETE);
  clReleaseEvent(gate);
}

static void *watchdog(void *unused) {
  (void)unused;
  pthread_mutex_lock(&g_lock);
  while (g_pending) {
    uint64_t now = now_ns(), next = UINT64_MAX;
    notify_gate_t *expired = NULL;
    for (notify_gate_t *gate = g_pending; gate && !expired;
         gate = gate->next_pending) {
      if (gate->deadline_ns <= now)
        expired = gate;
      else if (gate->deadline_ns < next)
        next = gate->deadline_ns;
    }
    if (expired) {
      cl_event gate = close_out_locked(expired, true);
      pthread_mutex_unlock(&g_lock);
      open_gate(gate);
      pthread_mutex_lock(&g_lock);
    } else {
      struct timespec until = {(time_t)(next / 1000000000u),
                               (long)(next % 1000000000u)};
      /* ETIMEDOUT or a wake-up: look again either way. */
      (void)pthread_cond_timedwait(&g_wake, &g_lock, &until);
    }
  }
  g_watchdog_running = false;
  pthread_mutex_unlock(&g_lock);
  return NULL;
}

static void init_wake(void) {
  pthread_condattr_t attributes;
  pthread_condattr_init(&attributes);
  pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
  pthread_cond_init(&g_wake, &attributes);
  pthread_condattr_destroy(&attributes);
}

/* Wakes the watchdog for a new gate, starting it if it is not running
 * (g_lock held). */
static C_Status wake_watchdog_locked(void) {
  pthread_once(&g_wake_once, init_wake);
  if (g_watchdog_running) {
    pthread_cond_broadcast(&g_wake);
    return C_SUCCESS;
  }
  if (g_watchdog_joinable) /* exited: it no longer takes the lock */
    pthread_join(g_watchdog, NULL);
  g_watchdog_joinable = false;
  int error = pthread_create(&g_watchdog, NULL, watchdog, NULL);
  if (error)
    return ocl_fail(C_FAILED, "notify_wait: cannot start the watchdog: %s",
                    strerror(error));
  g_watchdog_running = g_watchdog_joinable = true;
  return C_SUCCESS;
}

/* At unload: nothing can wait any more (streams drain when destroyed), so
 * the watchdog has exited or is exiting; join it. */
__attribute__((destructor)) static void join_watchdog(void) {
  pthread_mutex_lock(&g_lock);
  bool joinable = g_watchdog_joinable;
  g_watchdog_joinable = false;
  pthread_mutex_unlock(&g_lock);
  if (joinable)
    pthread_join(g_watchdog, NULL);
}

static C_Status check(ocl_device_t *dev, BP_Notify notify, const char *what) {
  if (!dev || !notify)
    return ocl_fail(C_ERROR, "%s: bad device or notify", what);
  if (notify->dev != dev)
    return ocl_fail(C_ERROR, "%s: notify %u belongs to %s, not %s", what,
                    notify->id, notify->dev->name, dev->name);
  return C_SUCCESS;
}

C_Status ocl_notify_create(const C_Device device, BP_Notify *out_notify) {
  ocl_device_t *dev = ocl_device_get(device);
  if (!dev || !out_notify)
    return ocl_fail(C_ERROR, "notify_create: bad device or out_notify");
  struct BP_Notify_st *notify = calloc(1, sizeof *notify);
  if (!notify)
    return ocl_fail(C_FAILED, "notify_create: out of host memory");
  notify->dev = dev;
  notify->refs = 1;
  pthread_mutex_lock(&g_lock);
  notify->id = g_next_id++;
  pthread_mutex_unlock(&g_lock);
  *out_notify = notify;
  return C_SUCCESS;
}

C_Status ocl_notify_destroy(const C_Device device, BP_Notify notify) {
  C_Status status = check(ocl_device_get(device), notify, "notify_destroy");
  if (status != C_SUCCESS)
    return status;
  pthread_mutex_lock(&g_lock);
  /* Nothing may still wait on it (kernel_ext.h); if something does, let
   * it run on rather than wait for a record that cannot come. */
  while (notify->gates) {
    cl_event gate = close_out_locked(notify->gates, false);
    pthread_mutex_unlock(&g_lock);
    open_gate(gate);
    pthread_mutex_lock(&g_lock);
  }
  unref_locked(notify);
  pthread_mutex_unlock(&g_lock);
  return C_SUCCESS;
}

C_Status ocl_notify_id(const C_Device device, BP_Notify notify,
                       uint32_t *out_id) {
  C_Status status = check(ocl_device_get(device), notify, "notify_id");
  if (status == C_SUCCESS && !out_id)
    status = ocl_fail(C_ERROR, "notify_id: out_id is NULL");
  if (status == C_SUCCESS)
    *out_id = notify->id;
  return status;
}

static void CL_CALLBACK on_recorded(cl_event marker, cl_int state, void *arg) {
  (void)marker;
  (void)state; /* a failed stream still reaches this point */
  struct BP_Notify_st *notify = arg;
  pthread_mutex_lock(&g_lock);
  cl_event gate = NULL;
  if (notify->gates)
    gate = close_out_locked(notify->gates, false);
  else
    notify->set = true;
  unref_locked(notify);
  pthread_mutex_unlock(&g_lock);
  if (gate)
    open_gate(gate);
}

C_Status ocl_notify_record(const C_Device device, C_Stream handle,
                           BP_Notify notify) {
  ocl_device_t *dev = ocl_device_get(device);
  struct C_Stream_st *stream = ocl_stream_of(dev, handle);
  C_Status status = check(dev, notify, "notify_record");
  if (status != C_SUCCESS || !stream)
    return status != C_SUCCESS ? status : C_ERROR;
  cl_event marker = NULL;
  cl_int error = clEnqueueMarkerWithWaitList(stream->queue, 0, NULL, &marker);
  pthread_mutex_lock(&g_lock);
  notify->refs++; /* the callback's */
  pthread_mutex_unlock(&g_lock);
  if (error == CL_SUCCESS)
    error = clSetEventCallback(marker, CL_COMPLETE, on_recorded, notify);
  if (marker)
    clReleaseEvent(marker);
  if (error != CL_SUCCESS) {
    pthread_mutex_lock(&g_lock);
    unref_locked(notify);
    pthread_mutex_unlock(&g_lock);
    return ocl_fail(ocl_status_of(error) == C_FAILED ? C_FAILED : C_ERROR,
                    "notify_record %u on %s: %s", notify->id, dev->name,
                    ocl_error_name(error));
  }
  clFlush(stream->queue);
  return C_SUCCESS;
}

C_Status ocl_notify_wait(const C_Device device, C_Stream handle,
                         BP_Notify notify, uint64_t timeout_ns) {
  ocl_device_t *dev = ocl_device_get(device);
  struct C_Stream_st *stream = ocl_stream_of(dev, handle);
  C_Status status = check(dev, notify, "notify_wait");
  if (status != C_SUCCESS || !stream)
    return status != C_SUCCESS ? status : C_ERROR;
  notify_gate_t *gate = calloc(1, sizeof *gate);
  cl_int error = CL_OUT_OF_HOST_MEMORY;
  if (gate)
    gate->gate = clCreateUserEvent(dev->context, &error);
  if (error == CL_SUCCESS)
    error = clEnqueueBarrierWithWaitList(stream->queue, 1, &gate->gate, NULL);
  if (error != CL_SUCCESS) {
    if (gate && gate->gate) {
      clSetUserEventStatus(gate->gate, CL_COMPLETE);
      clReleaseEvent(gate->gate);
    }
    free(gate);
    return ocl_fail(ocl_status_of(error) == C_FAILED ? C_FAILED : C_ERROR,
                    "notify_wait %u on %s: %s", notify->id, dev->name,
                    ocl_error_name(error));
  }
  gate->timeout_ns = timeout_ns ? timeout_ns : OCL_DEFAULT_TIMEOUT_NS;
  uint64_t now = now_ns();
  gate->deadline_ns =
      gate->timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + gate->timeout_ns;
  gate->kernels = stream->kernels;
  gate->notify = notify;
  pthread_mutex_lock(&g_lock);
  notify->refs++; /* the gate's */
  notify_gate_t **last = &notify->gates;
  while (*last)
    last = &(*last)->next;
  *last = gate;
  gate->next_pending = g_pending;
  g_pending = gate;
  cl_event open_now = NULL;
  if (notify->set) {
    notify->set = false;
    open_now = close_out_locked(gate, false);
  } else {
    status = wake_watchdog_locked();
    if (status != C_SUCCESS) /* no deadline without it */
      open_now = close_out_locked(gate, false);
  }
  pthread_mutex_unlock(&g_lock);
  if (open_now)
    open_gate(open_now);
  clFlush(stream->queue);
  return status;
}
