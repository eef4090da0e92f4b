/* Resolving the layer configuration, and bp_runtime_create_layered, which
 * hands its options to the loader through a thread-local for the duration of
 * bp_runtime_create. */
#include "layers/layer_config.h"

#include <stdlib.h>
#include <string.h>

#include "base/status.h"

static _Thread_local const bp_layer_options_t *pending_options;

BP_API bp_status_t bp_runtime_create_layered(
    const bp_runtime_options_t *options, const bp_layer_options_t *layers,
    bp_runtime_t **out_runtime) {
  if (layers && layers->struct_size < sizeof(bp_layer_options_t))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_runtime_create_layered: layers->struct_size is %zu; "
                    "set it to sizeof(bp_layer_options_t)",
                    layers->struct_size);
  const bp_layer_options_t *saved = pending_options;
  pending_options = layers;
  bp_status_t status = bp_runtime_create(options, out_runtime);
  pending_options = saved;
  return status;
}

static const char *pick(const char *option, const char *variable,
                        const char *fallback) {
  if (option)
    return option;
  const char *value = getenv(variable);
  return value ? value : fallback;
}

static bp_status_t parse_layers(const char *list, unsigned *out_enabled) {
  static const struct {
    const char *name;
    unsigned bit;
  } known[] = {{"fault", BP_LAYER_FAULT},
               {"trace", BP_LAYER_TRACE},
               {"validation", BP_LAYER_VALIDATION}};
  *out_enabled = 0;
  for (const char *p = list; *p;) {
    size_t length = strcspn(p, ", ");
    if (length > 0) {
      size_t k = 0;
      while (k < sizeof known / sizeof known[0] &&
             (strlen(known[k].name) != length ||
              memcmp(known[k].name, p, length) != 0))
        ++k;
      if (k == sizeof known / sizeof known[0])
        return bp_error(BP_ERR_INVALID_ARGUMENT,
                        "BACKPLANE_LAYERS: unknown layer \"%.*s\" (known: "
                        "validation, trace, fault)",
                        (int)length, p);
      *out_enabled |= known[k].bit;
    }
    p += length;
    p += strspn(p, ", ");
  }
  return BP_OK;
}

bp_status_t bp_layer_config_resolve(bp_layer_config_t *out) {
  const bp_layer_options_t none = {.struct_size = sizeof none,
                                   .validation_abort = -1};
  const bp_layer_options_t *o = pending_options ? pending_options : &none;
  bp_status_t status =
      parse_layers(pick(o->layers, "BACKPLANE_LAYERS", ""), &out->enabled);
  if (status != BP_OK)
    return status;
  out->fault = pick(o->fault, "BACKPLANE_FAULT", "");
  out->validation_log =
      pick(o->validation_log, "BACKPLANE_VALIDATION_LOG", NULL);
  if (out->validation_log && !*out->validation_log)
    out->validation_log = NULL;
  if (o->validation_abort >= 0) {
    out->validation_abort = o->validation_abort > 0;
  } else {
    const char *abort_env = getenv("BACKPLANE_VALIDATION_ABORT");
    out->validation_abort = abort_env && strcmp(abort_env, "1") == 0;
  }
  out->trace_file = pick(o->trace_file, "BACKPLANE_TRACE_FILE", "");
  if (!*out->trace_file)
    out->trace_file = "backplane-trace.json";
  return BP_OK;
}
