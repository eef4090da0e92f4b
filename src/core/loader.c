#include "core/loader.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backplane/device_layouts.h"
#include "base/log.h"
#include "base/status.h"
#include "core/device_table.h"
#include "core/fallbacks.h"
#include "core/plugin_security.h"
#include "core/runtime_internal.h"
#include "core/visible_devices.h"

/* Zeroed storage InitPlugin writes into, larger than any known layout's:
 * a plugin that ignores the sizes the host asked for scribbles here
 * harmlessly before it is rejected. The probes' params->size is the
 * storage's size, which matches no layout's params (88 or 96 bytes). */
#define BP_INTERFACE_STORAGE 4096
#define BP_PARAMS_STORAGE 512

/* What is known about a plugin between dlopen and acceptance. */
typedef struct load_state {
  bp_runtime_t *runtime;
  const char *path;
  void *handle;
  int initialized; /* initialize() succeeded: finalize on rejection */
  int layout;      /* the layout InitPlugin answered (device_layouts.h) */
  size_t reported_interface_size; /* interface->size as InitPlugin left it */
  C_DeviceInterface native;       /* its table, translated to layout B */
  bp_plugin_t *plugin;
  bp_status_t status; /* of recording a rejection: only out-of-memory fails */
} load_state_t;

static void release_plugin_memory(bp_plugin_t *plugin) {
  if (!plugin)
    return;
  free(plugin->path);
  free(plugin->device_type);
  free(plugin->sub_device_type);
  free(plugin->native_functions);
  free(plugin->fallback_functions);
  free(plugin->missing_functions);
  free(plugin->devices);
  free(plugin);
}

/* Records the rejection, undoes everything done so far and returns false. */
static bool reject(load_state_t *state, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static bool reject(load_state_t *state, const char *format, ...) {
  char reason[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(reason, sizeof reason, format, args);
  va_end(args);
  if (state->initialized && state->native.finalize)
    state->native.finalize();
  if (state->plugin) {
    for (size_t i = 0; i < state->plugin->device_count; ++i)
      bp_device_teardown(&state->plugin->devices[i]);
    release_plugin_memory(state->plugin);
  }
  if (state->handle)
    dlclose(state->handle);
  state->status = bp_runtime_reject(state->runtime, state->path, "%s", reason);
  return false;
}

typedef void (*init_plugin_fn)(CustomRuntimeParams *);

/* Finds the layout the plugin speaks: calls InitPlugin once per known layout
 * (Backplane's own, B, first) with params->size matching none and
 * interface->size naming that layout. Paddle's version macro accepts when
 * either size matches, so only a plugin's own layout (or every layout, for
 * a plugin that fills whatever it is asked for) leaves device_type set.
 * Last, for a plugin that checks only params->size, layout B's two sizes
 * (88 also being A's, only B can be assumed). The first answer wins; its
 * table is translated to layout B. Sets state->layout to -1 when no probe
 * got an answer. */
static bp_status_t probe_init_plugin(load_state_t *state, init_plugin_fn init,
                                     CustomRuntimeParams *params) {
  static const struct {
    int layout;
    size_t params_size; /* 0: BP_PARAMS_STORAGE, matching no layout */
  } probes[] = {{BP_DEVICE_LAYOUT_B, 0}, {BP_DEVICE_LAYOUT_A, 0},
                {BP_DEVICE_LAYOUT_C, 0}, {BP_DEVICE_LAYOUT_D, 0},
                {BP_DEVICE_LAYOUT_E, 0}, {BP_DEVICE_LAYOUT_B, 88}};
  void *interface_storage = malloc(BP_INTERFACE_STORAGE);
  void *params_storage = malloc(BP_PARAMS_STORAGE);
  if (!interface_storage || !params_storage) {
    free(interface_storage);
    free(params_storage);
    return BP_ERR_OUT_OF_MEMORY;
  }
  state->layout = -1;
  for (size_t i = 0; i < sizeof probes / sizeof *probes && state->layout < 0;
       ++i) {
    int layout = probes[i].layout;
    size_t params_size =
        probes[i].params_size ? probes[i].params_size : BP_PARAMS_STORAGE;
    memset(interface_storage, 0, BP_INTERFACE_STORAGE);
    memset(params_storage, 0, BP_PARAMS_STORAGE);
    CustomRuntimeParams *p = params_storage;
    p->size = params_size;
    p->interface = interface_storage;
    p->interface->size = BP_DeviceLayoutInterfaceSize(layout);
    init(p);
    if (!p->device_type)
      continue;
    state->layout = layout;
    state->reported_interface_size = p->interface->size;
    *params = *p;
    params->size = p->size == params_size ? 0 : p->size;
    params->interface = NULL; /* the storage is freed below */
    BP_DeviceLayoutTranslate(&state->native, BP_DEVICE_LAYOUT_NATIVE,
                             interface_storage, layout);
  }
  free(interface_storage);
  free(params_storage);
  return BP_OK;
}

static bool validate_params(load_state_t *state,
                            const CustomRuntimeParams *params) {
  if (state->layout < 0) {
    char sizes[64] = "";
    for (int layout = 0; layout < BP_DEVICE_LAYOUT_COUNT; ++layout)
      snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%zu",
               layout ? ", " : "", BP_DeviceLayoutInterfaceSize(layout));
    return reject(state,
                  "InitPlugin left device_type NULL for every known layout "
                  "(C_DeviceInterface of %s bytes): built against another "
                  "device_ext.h?",
                  sizes);
  }
  size_t layout_size = BP_DeviceLayoutInterfaceSize(state->layout);
  if (state->reported_interface_size != 0 &&
      state->reported_interface_size != layout_size)
    return reject(state,
                  "plugin's C_DeviceInterface is %zu bytes, Backplane expects "
                  "%zu (the layout %s it answered)",
                  state->reported_interface_size, layout_size,
                  BP_DeviceLayoutName(state->layout));
  if (params->size != 0 &&
      params->size != BP_DeviceLayoutParamsSize(state->layout))
    return reject(state,
                  "plugin's CustomRuntimeParams is %zu bytes, Backplane "
                  "expects %zu (layout %s)",
                  params->size, BP_DeviceLayoutParamsSize(state->layout),
                  BP_DeviceLayoutName(state->layout));
  const CustomRuntimeVersion *v = &params->version;
  if (v->major != 0 || (v->minor < 1 || (v->minor == 1 && v->patch < 1)))
    return reject(state,
                  "plugin ABI version %zu.%zu.%zu is not supported (need "
                  "major 0, at least 0.1.1)",
                  v->major, v->minor, v->patch);
  for (size_t i = 0; i < bp_interface_function_count; ++i) {
    const bp_interface_function_t *fn = &bp_interface_functions[i];
    if (fn->need == BP_SLOT_NEED_REQUIRED &&
        !bp_interface_has(&state->native, fn->offset))
      return reject(state, "required function %s is not set", fn->name);
  }
  const bp_plugin_t *other =
      bp_runtime_find_plugin(state->runtime, params->device_type);
  if (other)
    return reject(state, "device type \"%s\" of %s is already provided by %s",
                  params->device_type, state->path, other->path);
  return true;
}

/* Says which plugin came in and which of its functions are fallbacks. */
static void log_loaded(const bp_plugin_t *plugin) {
  if (!bp_log_enabled(BP_LOG_INFO, "plugins"))
    return;
  char fallbacks[1024] = "";
  size_t used = 0, count = 0;
  for (const char **name = plugin->fallback_functions; name && *name;
       name++, count++)
    if (used < sizeof fallbacks)
      used += (size_t)snprintf(fallbacks + used, sizeof fallbacks - used,
                               "%s%s", count ? ", " : "", *name);
  bp_log(BP_LOG_INFO, "plugins",
         "loaded %s: %s (layout %s), %zu device(s); %zu fallback(s)%s%s",
         plugin->path, plugin->device_type, BP_DeviceLayoutName(plugin->layout),
         plugin->device_count, count, count ? ": " : "", fallbacks);
}

/* Everything after validation: initialize, devices, dispatch. */
static bool accept(load_state_t *state, const CustomRuntimeParams *params) {
  bp_runtime_t *runtime = state->runtime;
  C_DeviceInterface *native = &state->native;
  if (native->initialize) {
    C_Status result = native->initialize();
    if (!BP_C_OK(result)) {
      BP_PluginLastErrorFn why;
      void *symbol = dlsym(state->handle, BP_PLUGIN_LAST_ERROR_SYMBOL);
      memcpy(&why, &symbol, sizeof why);
      const char *text = why ? why() : NULL;
      return reject(state, "initialize returned %s%s%s",
                    bp_c_status_name(result), text && *text ? ": " : "",
                    text && *text ? text : "");
    }
    state->initialized = 1;
  }
  size_t count = 0;
  C_Status result = native->get_device_count(&count);
  if (!BP_C_OK(result))
    return reject(state, "get_device_count returned %s",
                  bp_c_status_name(result));
  if (count == 0)
    return reject(state, "get_device_count reported 0 devices");
  if (count > 4096)
    return reject(state, "get_device_count reported %zu devices (limit 4096)",
                  count);
  size_t *ids = calloc(count, sizeof *ids);
  if (!ids)
    return reject(state, "out of memory while loading");
  for (size_t i = 0; i < count; ++i)
    ids[i] = i;
  result = native->get_device_list(ids);
  if (!BP_C_OK(result)) {
    free(ids);
    return reject(state, "get_device_list returned %s",
                  bp_c_status_name(result));
  }
  /* The devices shown, in order (core/visible_devices.h). */
  size_t *shown = calloc(2 * count, sizeof *shown);
  if (!shown) {
    free(ids);
    return reject(state, "out of memory while loading");
  }
  size_t *rank = shown + count; /* freed with `shown` */
  size_t listed = bp_visible_devices_select(
      &runtime->visible, params->device_type, count, shown, rank);
  for (size_t i = 0; i < listed; ++i)
    shown[i] = ids[shown[i]];
  free(ids);
  ids = shown;
  if (listed == 0) {
    free(ids);
    return reject(state, "hidden: %s lists none of the plugin's %zu %s devices",
                  runtime->visible.source, count, params->device_type);
  }
  count = listed;

  bp_plugin_t *plugin = calloc(1, sizeof *plugin);
  bp_device_t **devices =
      realloc(runtime->devices,
              (runtime->device_count + count) * sizeof *runtime->devices);
  bp_plugin_t **plugins =
      realloc(runtime->plugins, (runtime->plugin_count + 1) * sizeof *plugins);
  if (devices)
    runtime->devices = devices;
  if (plugins)
    runtime->plugins = plugins;
  state->plugin = plugin;
  if (plugin) {
    plugin->path = strdup(state->path);
    plugin->device_type = strdup(params->device_type);
    plugin->sub_device_type =
        strdup(params->sub_device_type ? params->sub_device_type : "");
    plugin->devices = calloc(count, sizeof *plugin->devices);
  }
  if (!plugin || !devices || !plugins || !plugin->path ||
      !plugin->device_type || !plugin->sub_device_type || !plugin->devices) {
    free(ids);
    return reject(state, "out of memory while loading");
  }
  plugin->runtime = runtime;
  plugin->index = runtime->plugin_count;
  plugin->handle = state->handle;
  plugin->version = params->version;
  plugin->layout = state->layout;
  if (state->handle) /* an in-process plugin exports no extensions */
    bp_plugin_extensions_read(state->handle, &plugin->extensions);
  plugin->native = *native;
  plugin->native.size = sizeof(C_DeviceInterface);
  plugin->dispatch = plugin->native;
  bp_fallbacks_install(&plugin->dispatch);
  if (bp_plugin_classify_functions(plugin) != BP_OK) {
    free(ids);
    return reject(state, "out of memory while loading");
  }
  plugin->device_count = count;
  for (size_t i = 0; i < count; ++i) {
    bp_device_setup(&plugin->devices[i], plugin, i, runtime->device_count + i,
                    (int)ids[i]);
    plugin->devices[i].visible_rank = rank[i];
    runtime->devices[runtime->device_count + i] = &plugin->devices[i];
  }
  /* The extensions' owners act on them (e.g. register a target kind). */
  if (bp_plugin_extensions_load(plugin) != BP_OK) {
    free(ids);
    return reject(state, "extensions: %s", bp_last_error());
  }
  /* Splice the runtime's layers into the complete table (core/layer.h). */
  if (bp_plugin_layers_attach(plugin, &runtime->layers) != BP_OK) {
    bp_plugin_extensions_unload(plugin);
    free(ids);
    return reject(state, "layers: %s", bp_last_error());
  }
  free(ids);
  runtime->device_count += count;
  runtime->plugins[runtime->plugin_count++] = plugin;
  log_loaded(plugin);
  return true;
}

/* InitPlugin, validation, acceptance: the steps after finding `init`. */
static void initialize_and_accept(load_state_t *state, init_plugin_fn init) {
  CustomRuntimeParams params = {0};
  if (probe_init_plugin(state, init, &params) != BP_OK)
    reject(state, "out of memory while loading");
  else if (validate_params(state, &params))
    accept(state, &params);
}

bp_status_t bp_plugin_load(bp_runtime_t *runtime, const char *path) {
  load_state_t state = {.runtime = runtime, .path = path};
  bp_log(BP_LOG_DEBUG, "plugins", "opening %s", path);
  char reason[512];
  if (!bp_plugin_permissions_ok(path, reason, sizeof reason)) {
    reject(&state, "%s", reason);
    return state.status;
  }
  struct stat st; /* dlopen of a FIFO would block in open() for ever */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    reject(&state, "not a regular file, so never opened");
    return state.status;
  }
  dlerror();
  state.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!state.handle) {
    const char *error = dlerror();
    reject(&state, "dlopen failed: %s", error ? error : "unknown error");
    return state.status;
  }
  void *symbol = dlsym(state.handle, "InitPlugin");
  init_plugin_fn init;
  memcpy(&init, &symbol, sizeof init);
  if (!init)
    reject(&state, "no InitPlugin symbol (not a runtime plugin)");
  else
    initialize_and_accept(&state, init);
  return state.status;
}

bp_status_t bp_plugin_load_in_process(bp_runtime_t *runtime,
                                      const bp_in_process_plugin_t *entry) {
  load_state_t state = {.runtime = runtime,
                        .path = entry->name ? entry->name : "(in-process)"};
  if (!entry->init_plugin)
    reject(&state, "in-process plugin has no init_plugin function");
  else
    initialize_and_accept(&state, entry->init_plugin);
  return state.status;
}

void bp_plugin_unload(bp_plugin_t *plugin) {
  for (size_t i = plugin->device_count; i-- > 0;)
    bp_device_teardown(&plugin->devices[i]);
  bp_plugin_layers_detach(plugin); /* report, then restore (core/layer.h) */
  bp_plugin_extensions_unload(plugin);
  if (plugin->dispatch.finalize)
    plugin->dispatch.finalize();
  if (plugin->handle)
    dlclose(plugin->handle);
  release_plugin_memory(plugin);
}
