/* Active device and active stream per thread (core/active.h). */
#include "core/active.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "core/runtime_internal.h"

typedef enum entry_kind {
  ACTIVE_DEVICE, /* key: the serial of the plugin's first device */
  ACTIVE_STREAM, /* key: the device's serial */
} entry_kind_t;

typedef struct active_entry {
  entry_kind_t kind;
  uint64_t key;
  void *value;           /* bp_device_t * or bp_stream_t * */
  uint64_t value_serial; /* the stream's, for ACTIVE_STREAM */
  uint64_t epoch;        /* the device's active_epoch when last checked */
} active_entry_t;

typedef struct active_table {
  active_entry_t *entries;
  size_t count, capacity;
} active_table_t;

static _Thread_local active_table_t thread_table;

/* Frees a thread's table when the thread exits. */
static pthread_key_t table_key;
static pthread_once_t table_key_once = PTHREAD_ONCE_INIT;

static void free_table(void *entries) {
  free(entries);
}
static void create_table_key(void) {
  pthread_key_create(&table_key, free_table);
}

static active_entry_t *find(entry_kind_t kind, uint64_t key) {
  for (size_t i = 0; i < thread_table.count; ++i)
    if (thread_table.entries[i].kind == kind &&
        thread_table.entries[i].key == key)
      return &thread_table.entries[i];
  return NULL;
}

static void forget(active_entry_t *entry) {
  *entry = thread_table.entries[--thread_table.count];
}

static bp_status_t put(entry_kind_t kind, uint64_t key, void *value,
                       uint64_t value_serial, uint64_t epoch) {
  active_entry_t *entry = find(kind, key);
  if (!entry) {
    if (thread_table.count == thread_table.capacity) {
      size_t capacity = thread_table.capacity ? 2 * thread_table.capacity : 8;
      active_entry_t *grown =
          realloc(thread_table.entries, capacity * sizeof *grown);
      if (!grown)
        return bp_error(BP_ERR_OUT_OF_MEMORY,
                        "active device/stream table: out of memory");
      pthread_once(&table_key_once, create_table_key);
      pthread_setspecific(table_key, grown);
      thread_table.entries = grown;
      thread_table.capacity = capacity;
    }
    entry = &thread_table.entries[thread_table.count++];
  }
  *entry = (active_entry_t){kind, key, value, value_serial, epoch};
  return BP_OK;
}

static uint64_t plugin_key(const bp_plugin_t *plugin) {
  return plugin->devices[0].serial;
}

static uint64_t epoch_of(bp_device_t *device) {
  return atomic_load_explicit(&device->active_epoch, memory_order_acquire);
}

void bp_stream_forget_active(bp_stream_t *stream) {
  if (atomic_load_explicit(&stream->ever_active, memory_order_relaxed))
    atomic_fetch_add_explicit(&stream->device->active_epoch, 1,
                              memory_order_release);
}

bp_status_t bp_stream_active_refused(const char *function) {
  return bp_error(BP_ERR_INVALID_ARGUMENT,
                  "%s: BP_STREAM_ACTIVE names no device here; resolve it "
                  "with bp_stream_get_active",
                  function);
}

/* Whether `entry`'s stream is still registered on `device`. */
static bool still_alive(bp_device_t *device, const active_entry_t *entry) {
  bool alive = false;
  pthread_mutex_lock(&device->lock);
  const bp_registry_node_t *head = &device->streams.head;
  for (const bp_registry_node_t *node = head->next; node != head && !alive;
       node = node->next)
    alive = (const void *)node == entry->value &&
            ((const bp_stream_t *)node)->serial == entry->value_serial;
  pthread_mutex_unlock(&device->lock);
  return alive;
}

static bp_status_t active_stream(bp_device_t *device, bp_stream_t **out) {
  active_entry_t *entry = find(ACTIVE_STREAM, device->serial);
  if (entry) {
    uint64_t epoch = epoch_of(device);
    if (entry->epoch == epoch || still_alive(device, entry)) {
      entry->epoch = epoch;
      *out = entry->value;
      return BP_OK;
    }
    forget(entry); /* destroyed: back to the default */
  }
  return bp_stream_default_internal(device, out);
}

bp_status_t bp_stream_resolve_active(bp_device_t *device,
                                     bp_stream_t **stream) {
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "BP_STREAM_ACTIVE: the call names no device (host to "
                    "host)");
  return active_stream(device, stream);
}

BP_API bp_status_t bp_stream_get_default(bp_device_t *device,
                                         bp_stream_t **out_stream) {
  if (!device || !out_stream)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_get_default: device or out_stream is NULL");
  return bp_stream_default_internal(device, out_stream);
}

BP_API bp_status_t bp_stream_set_active(bp_device_t *device,
                                        bp_stream_t *stream) {
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_set_active: device is NULL");
  if (stream == BP_STREAM_ACTIVE)
    return BP_OK; /* already the active one */
  if (stream && stream->device != device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_set_active: the stream belongs to %s, not %s",
                    stream->device->name, device->name);
  if (!stream || stream->is_default) {
    active_entry_t *entry = find(ACTIVE_STREAM, device->serial);
    if (entry)
      forget(entry);
    return BP_OK;
  }
  atomic_store_explicit(&stream->ever_active, true, memory_order_relaxed);
  return put(ACTIVE_STREAM, device->serial, stream, stream->serial,
             epoch_of(device));
}

BP_API bp_status_t bp_stream_get_active(bp_device_t *device,
                                        bp_stream_t **out_stream) {
  if (!device || !out_stream)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_stream_get_active: device or out_stream is NULL");
  return active_stream(device, out_stream);
}

/* The device of `plugin` whose id get_device reports for this thread.
 * get_device writes the id into the C_Device it gets, and layers take every
 * C_Device for a bp_device_t: it gets a probe with `bound`'s immutable
 * fields, so no live device's id is ever overwritten. */
static bp_status_t reported_device(bp_plugin_t *plugin, bp_device_t *bound,
                                   bp_device_t **out_device) {
  bp_device_t probe = {.c_device = {.id = -1},
                       .plugin = bound->plugin,
                       .observer = bound->observer,
                       .index = bound->index,
                       .ordinal = bound->ordinal,
                       .serial = bound->serial};
  memcpy(probe.name, bound->name, sizeof probe.name);
  C_Status result = plugin->dispatch.get_device(&probe.c_device);
  if (!BP_C_OK(result))
    return bp_plugin_call_error(bound, "get_device", result);
  int reported_id = probe.c_device.id;
  for (size_t i = 0; i < plugin->device_count; ++i)
    if (plugin->devices[i].c_device.id == reported_id) {
      *out_device = &plugin->devices[i];
      return BP_OK;
    }
  return bp_error(BP_ERR_PLUGIN,
                  "%s: get_device reports device id %d, which is none of the "
                  "plugin's devices (bound to %s)",
                  plugin->device_type, reported_id, bound->name);
}

/* Binds the thread to `device` and checks that the plugin agrees. */
static bp_status_t bind_and_confirm(bp_device_t *device, const char *caller) {
  /* Always through set_device, as Paddle's DeviceManager::SetDevice. */
  bp_status_t status = bp_device_enter_slow(device);
  if (status != BP_OK)
    return status;
  bp_device_t *reported = NULL;
  if ((status = reported_device(device->plugin, device, &reported)) != BP_OK)
    return status;
  if (reported != device)
    return bp_error(
        BP_ERR_PLUGIN, "%s: %s: get_device reports %s after set_device(%s)",
        caller, device->plugin->device_type, reported->name, device->name);
  return BP_OK;
}

BP_API bp_status_t bp_device_set_active(bp_device_t *device) {
  if (!device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_set_active: device is NULL");
  bp_status_t status = bind_and_confirm(device, "bp_device_set_active");
  if (status != BP_OK)
    return status;
  return put(ACTIVE_DEVICE, plugin_key(device->plugin), device, device->serial,
             0);
}

BP_API bp_status_t bp_device_get_active(bp_runtime_t *runtime,
                                        const char *device_type,
                                        bp_device_t **out_device) {
  if (!runtime || !out_device)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_device_get_active: runtime or out_device is NULL");
  bp_plugin_t *plugin =
      device_type
          ? bp_runtime_find_plugin(runtime, device_type)
          : (runtime->device_count ? runtime->devices[0]->plugin : NULL);
  if (!plugin)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_device_get_active: no loaded plugin provides device "
                    "type \"%s\"",
                    device_type ? device_type : "(any: no plugin loaded)");
  active_entry_t *entry = find(ACTIVE_DEVICE, plugin_key(plugin));
  bp_device_t *active = entry ? entry->value : &plugin->devices[0];
  bp_status_t status = bind_and_confirm(active, "bp_device_get_active");
  if (status != BP_OK)
    return status;
  *out_device = active;
  return BP_OK;
}
