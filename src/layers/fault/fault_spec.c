#include "layers/fault/fault_spec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"

static bp_status_t bad_rule(const char *rule, size_t length, const char *why) {
  return bp_error(BP_ERR_INVALID_ARGUMENT, "BACKPLANE_FAULT: rule \"%.*s\": %s",
                  (int)length, rule, why);
}

static bool parse_status(const char *text, size_t length, C_Status *out) {
  static const struct {
    const char *name;
    C_Status status;
  } names[] = {{"C_FAILED", C_FAILED},
               {"C_ERROR", C_ERROR},
               {"C_INTERNAL_ERROR", C_INTERNAL_ERROR}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    if (strlen(names[i].name) == length &&
        memcmp(names[i].name, text, length) == 0) {
      *out = names[i].status;
      return true;
    }
  }
  return false;
}

/* Parses the whole of [text, text + length) as an unsigned number. */
static bool parse_u64(const char *text, size_t length, uint64_t *out) {
  char buffer[32];
  if (length == 0 || length >= sizeof buffer || text[0] == '-')
    return false;
  memcpy(buffer, text, length);
  buffer[length] = '\0';
  char *end;
  errno = 0;
  unsigned long long value = strtoull(buffer, &end, 10);
  if (errno || *end)
    return false;
  *out = value;
  return true;
}

static bool parse_probability(const char *text, size_t length, double *out) {
  char buffer[32];
  if (length == 0 || length >= sizeof buffer)
    return false;
  memcpy(buffer, text, length);
  buffer[length] = '\0';
  char *end;
  errno = 0;
  double value = strtod(buffer, &end);
  if (errno || *end || !(value >= 0.0 && value <= 1.0))
    return false;
  *out = value;
  return true;
}

static bp_status_t parse_rule(const char *rule, size_t length,
                              bp_fault_spec_t *spec) {
  if (length > 5 && memcmp(rule, "seed=", 5) == 0)
    return parse_u64(rule + 5, length - 5, &spec->seed)
               ? BP_OK
               : bad_rule(rule, length, "seed is not a number");
  const char *colon = memchr(rule, ':', length);
  if (!colon)
    return bad_rule(rule, length, "expected FUNCTION:N or FUNCTION:p=P");
  int fn = bp_layer_function_find(rule, (size_t)(colon - rule));
  if (fn < 0)
    return bad_rule(rule, length,
                    "unknown function (use a C_DeviceInterface function "
                    "that takes a device, e.g. device_memory_allocate, or "
                    "module_load or launch of the kernels extension)");
  const char *value = colon + 1;
  size_t value_length = length - (size_t)(value - rule);
  bp_fault_rule_t parsed = {.active = true, .status = C_FAILED};
  const char *status_at = NULL;
  for (size_t i = 0; i < value_length; ++i)
    if (value[i] == '=' && i + 1 < value_length && value[i + 1] == 'C')
      status_at = value + i;
  if (status_at) {
    size_t status_length = value_length - (size_t)(status_at + 1 - value);
    if (!parse_status(status_at + 1, status_length, &parsed.status))
      return bad_rule(rule, length,
                      "status must be C_FAILED, C_ERROR or C_INTERNAL_ERROR");
    value_length = (size_t)(status_at - value);
  }
  if (value_length > 2 && memcmp(value, "p=", 2) == 0) {
    if (!parse_probability(value + 2, value_length - 2, &parsed.probability))
      return bad_rule(rule, length, "p must be a number in [0, 1]");
  } else if (!parse_u64(value, value_length, &parsed.nth) || parsed.nth == 0) {
    return bad_rule(rule, length, "N must be a call number >= 1");
  }
  spec->rules[fn] = parsed;
  return BP_OK;
}

bp_status_t bp_fault_spec_parse(const char *text, bp_fault_spec_t *out) {
  bp_fault_spec_t spec;
  memset(&spec, 0, sizeof spec);
  for (const char *p = text; *p;) {
    size_t length = strcspn(p, ",");
    if (length > 0) {
      bp_status_t status = parse_rule(p, length, &spec);
      if (status != BP_OK)
        return status;
    }
    p += length;
    if (*p == ',')
      ++p;
  }
  *out = spec;
  return BP_OK;
}
