#include "trace.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "device.h"
#include "reduce/call.h"
#include "reduce/reduce.h"

typedef void (*add_event_fn)(C_Profiler prof, void *event);

/* The active profilers (NULL: free slot) and how many there are. */
static _Atomic(C_Profiler) g_active[VCPU_TRACE_MAX_PROFILERS];
static atomic_int g_active_count;
static _Atomic(add_event_fn) g_add_device_event;
/* Workers inside vcpu_trace_command: deactivating waits for them, so no
 * report reaches a profiler after stop_tracing or finalize returned. */
static atomic_int g_reporting;

static bool is_active(C_Profiler prof) {
  for (int i = 0; i < VCPU_TRACE_MAX_PROFILERS; ++i)
    if (atomic_load(&g_active[i]) == prof)
      return true;
  return false;
}

/* Takes a free slot for `prof`; false when every slot is taken. */
static bool activate(C_Profiler prof) {
  for (int i = 0; i < VCPU_TRACE_MAX_PROFILERS; ++i) {
    C_Profiler expected = NULL;
    if (atomic_compare_exchange_strong(&g_active[i], &expected, prof)) {
      atomic_fetch_add(&g_active_count, 1);
      return true;
    }
  }
  return false;
}

static void deactivate(C_Profiler prof) {
  for (int i = 0; i < VCPU_TRACE_MAX_PROFILERS; ++i) {
    C_Profiler expected = prof;
    if (prof && atomic_compare_exchange_strong(&g_active[i], &expected, NULL))
      atomic_fetch_sub(&g_active_count, 1);
  }
  while (atomic_load(&g_reporting) != 0)
    sched_yield();
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

C_Status vcpu_profiler_initialize(C_Profiler prof, void **user_data) {
  if (!prof || !user_data)
    return C_ERROR;
  void *symbol = dlsym(RTLD_DEFAULT, "profiler_add_device_trace_event");
  if (!symbol)
    return C_ERROR;
  add_event_fn add;
  memcpy(&add, &symbol, sizeof add);
  atomic_store(&g_add_device_event, add);
  *user_data = NULL;
  return C_SUCCESS;
}

C_Status vcpu_profiler_finalize(C_Profiler prof, void *user_data) {
  (void)user_data;
  deactivate(prof);
  return prof ? C_SUCCESS : C_ERROR;
}

C_Status vcpu_profiler_prepare_tracing(C_Profiler prof, void *user_data) {
  (void)user_data;
  return prof && atomic_load(&g_add_device_event) ? C_SUCCESS : C_ERROR;
}

C_Status vcpu_profiler_start_tracing(C_Profiler prof, void *user_data) {
  (void)user_data;
  if (!prof || !atomic_load(&g_add_device_event))
    return C_ERROR;
  return is_active(prof) || activate(prof) ? C_SUCCESS : C_FAILED;
}

C_Status vcpu_profiler_stop_tracing(C_Profiler prof, void *user_data) {
  (void)user_data;
  deactivate(prof);
  return prof ? C_SUCCESS : C_ERROR;
}

/* Records went to the host as each command finished: nothing is buffered. */
C_Status vcpu_profiler_collect_trace_data(C_Profiler prof, uint64_t start_ns,
                                          void *user_data) {
  (void)start_ns;
  (void)user_data;
  return prof ? C_SUCCESS : C_ERROR;
}

/* The vcpu device whose arena holds [ptr, ptr + size), or -1 for host. */
static int owner_of(const void *ptr, size_t size) {
  for (int id = 0; id < vcpu_device_count(); ++id) {
    vcpu_device *device = vcpu_device_at(id);
    if (device && vcpu_arena_contains(&device->arena, ptr, size))
      return id;
  }
  return -1;
}

/* "h2d", "d2h", "d2d" (one device) or "p2p" (two devices). */
static const char *copy_direction(const void *dst, const void *src,
                                  size_t size) {
  int to = owner_of(dst, size), from = owner_of(src, size);
  if (from < 0)
    return to < 0 ? "h2h" : "h2d";
  if (to < 0)
    return "d2h";
  return to == from ? "d2d" : "p2p";
}

uint64_t vcpu_trace_begin(void) {
  return atomic_load_explicit(&g_active_count, memory_order_relaxed) ? now_ns()
                                                                     : 0;
}

static void report_command(int device_id, const void *stream,
                           const vcpu_command *command,
                           const unsigned char *slot, uint64_t start_ns) {
  add_event_fn add = atomic_load(&g_add_device_event);
  if (!add)
    return;
  char args[160], name_buffer[160];
  const char *name = "callback", *category = "callback";
  switch ((vcpu_command_kind)command->kind) {
  case VCPU_COMMAND_COPY:
    name = copy_direction(command->copy.dst, command->copy.src,
                          command->copy.size);
    category = "copy";
    snprintf(args, sizeof args, "{\"bytes\":%zu,\"direction\":\"%s\"}",
             command->copy.size, name);
    break;
  case VCPU_COMMAND_CALLBACK:
    snprintf(args, sizeof args, "{}");
    break;
  case VCPU_COMMAND_COMM:
    name = command->comm.kind == VCPU_COMM_TASK_BATCH
               ? "comm_group"
               : vcpu_comm_kind_name((vcpu_comm_kind_t)command->comm.kind);
    category = "collective";
    if (command->comm.kind != VCPU_COMM_TASK_BATCH) { /* "all_reduce 1.2 MiB" */
      double bytes =
          (double)command->comm.call.count *
          (double)vcpu_comm_dtype_size((C_DataType)command->comm.dtype);
      const char *unit = bytes >= 1048576 ? "MiB" : bytes >= 1024 ? "KiB" : "B";
      double scaled = bytes >= 1048576 ? bytes / 1048576
                      : bytes >= 1024  ? bytes / 1024
                                       : bytes;
      snprintf(name_buffer, sizeof name_buffer, "%s %.*f %s", name,
               unit[0] == 'B' ? 0 : 1, scaled, unit);
      name = name_buffer;
    }
    /* Not the communicator's name: it may be destroyed once the task ran. */
    if (command->comm.kind == VCPU_COMM_TASK_BATCH)
      snprintf(args, sizeof args, "{}");
    else
      snprintf(args, sizeof args, "{\"seq\":%llu}",
               (unsigned long long)command->comm.call.seq);
    break;
  case VCPU_COMMAND_RECORD:
  case VCPU_COMMAND_WAIT:
    name = command->kind == VCPU_COMMAND_RECORD ? "event_record" : "event_wait";
    category = "event";
    snprintf(args, sizeof args, "{\"event\":\"%p\",\"generation\":%llu}",
             (void *)command->event.event,
             (unsigned long long)command->event.generation);
    break;
  case VCPU_COMMAND_KERNEL: /* its module is held until after this */
    snprintf(name_buffer, sizeof name_buffer, "kernel %s",
             command->kernel.name);
    name = name_buffer;
    category = "kernel";
    /* Op names are identifiers (a manifest's keys): no JSON escaping. */
    snprintf(args, sizeof args, "{\"blocks\":%u,\"op\":\"%.*s\"}",
             command->kernel.blocks, (int)VCPU_KERNEL_LABEL_SIZE - 1,
             (const char *)slot);
    break;
  case VCPU_COMMAND_STOP:
    return;
  }
  BP_TraceEvent event = {.struct_size = sizeof event,
                         .name = name,
                         .category = category,
                         .start_ns = start_ns,
                         .end_ns = now_ns(),
                         .device_id = device_id,
                         .stream_id = (uint64_t)(uintptr_t)stream,
                         .args_json = args};
  for (int i = 0; i < VCPU_TRACE_MAX_PROFILERS; ++i) {
    C_Profiler prof = atomic_load(&g_active[i]);
    if (prof)
      add(prof, &event);
  }
}

void vcpu_trace_command(int device_id, const void *stream,
                        const vcpu_command *command, const unsigned char *slot,
                        uint64_t start_ns) {
  atomic_fetch_add(&g_reporting, 1);
  report_command(device_id, stream, command, slot, start_ns);
  atomic_fetch_sub(&g_reporting, 1);
}
