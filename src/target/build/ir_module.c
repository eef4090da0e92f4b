/* IR modules: a parsed tensor-expression module or C source, each with the
 * canonical JSON that keys the build cache. */
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "target/build/build_internal.h"

static bp_status_t set_names(bp_ir_module_t *module, size_t count) {
  module->names = calloc(count + 1, sizeof(char *));
  module->name_count = count;
  return module->names ? BP_OK
                       : bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory");
}

bp_status_t bp_ir_module_parse(const char *json, bp_ir_module_t **out_module) {
  if (!json || !out_module)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_ir_module_parse: %s is NULL",
                    json ? "out_module" : "json");
  json_error_t error;
  json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &error);
  if (!root)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "IR: malformed JSON at line %d column %d: %s", error.line,
                    error.column, error.text);
  bp_ir_module_t *module = calloc(1, sizeof(*module));
  bp_status_t status =
      module ? te_module_parse(root, &module->te)
             : bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory");
  if (status == BP_OK)
    status = set_names(module, module->te->function_count);
  for (size_t f = 0; status == BP_OK && f < module->name_count; f++)
    if (!(module->names[f] = strdup(module->te->functions[f].name)))
      status = bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory");
  if (status == BP_OK &&
      !(module->canonical = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS)))
    status = bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory");
  json_decref(root);
  if (status != BP_OK) {
    bp_ir_module_destroy(module);
    return status;
  }
  *out_module = module;
  return BP_OK;
}

bp_status_t bp_ir_module_from_c(const char *source,
                                const char *const *function_names,
                                bp_ir_module_t **out_module) {
  if (!source || !function_names || !function_names[0] || !out_module)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ir_module_from_c: source, function_names (with at "
                    "least one name) and out_module are required");
  size_t count = 0;
  while (function_names[count])
    count++;
  bp_ir_module_t *module = calloc(1, sizeof(*module));
  bp_status_t status =
      module ? set_names(module, count)
             : bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory");
  json_t *names = json_array();
  for (size_t i = 0; status == BP_OK && i < count; i++) {
    module->names[i] = strdup(function_names[i]);
    if (!module->names[i] ||
        json_array_append_new(names, json_string(function_names[i])))
      status = bp_error(BP_ERR_INVALID_ARGUMENT,
                        "bp_ir_module_from_c: function name %zu is not valid "
                        "UTF-8 (or out of memory)",
                        i);
  }
  json_t *canonical =
      json_pack("{s:s, s:O}", "c_source", source, "functions", names);
  if (status == BP_OK && !canonical)
    status = bp_error(BP_ERR_INVALID_ARGUMENT,
                      "bp_ir_module_from_c: source is not valid UTF-8");
  if (status == BP_OK && (!(module->c_source = strdup(source)) ||
                          !(module->canonical = json_dumps(
                                canonical, JSON_COMPACT | JSON_SORT_KEYS))))
    status = bp_error(BP_ERR_OUT_OF_MEMORY, "IR: out of memory");
  json_decref(canonical);
  json_decref(names);
  if (status != BP_OK) {
    bp_ir_module_destroy(module);
    return status;
  }
  *out_module = module;
  return BP_OK;
}

void bp_ir_module_destroy(bp_ir_module_t *module) {
  if (!module)
    return;
  te_module_free(module->te);
  free(module->c_source);
  for (size_t i = 0; module->names && i < module->name_count; i++)
    free(module->names[i]);
  free(module->names);
  free(module->canonical);
  free(module);
}

size_t bp_ir_module_function_count(const bp_ir_module_t *module) {
  return module ? module->name_count : 0;
}

const char *bp_ir_module_function_name(const bp_ir_module_t *module,
                                       size_t index) {
  return module && index < module->name_count ? module->names[index] : NULL;
}
