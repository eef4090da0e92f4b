/* Reading generated modules' descriptor lines, and the architecture they
 * compile for. */
#include "generated_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/kernel_ext.h"
#include "cu.h"

bool cu_generated_source(const void *data, size_t size) {
  size_t n = strlen(BP_CUDA_GENERATED_MARKER);
  return data && size >= n && memcmp(data, BP_CUDA_GENERATED_MARKER, n) == 0;
}

void cu_generated_free(cu_generated_module_t *module) {
  for (size_t f = 0; f < module->function_count; ++f) {
    cu_generated_function_t *function = &module->functions[f];
    free(function->name);
    for (size_t s = 0; s < function->stage_count; ++s)
      free(function->stages[s].kernel);
    free(function->stages);
  }
  free(module->functions);
  memset(module, 0, sizeof *module);
}

/* The next word of `*line` (split at spaces, NUL-terminated in place). */
static char *next_word(char **line) {
  char *word = *line + strspn(*line, " \t\r");
  if (*word == '\0')
    return NULL;
  char *end = word + strcspn(word, " \t\r");
  *line = *end ? end + 1 : end;
  *end = '\0';
  return word;
}

static bool read_number(char **line, uint64_t *out) {
  char *word = next_word(line), *end = NULL;
  if (!word || word[0] < '0' || word[0] > '9')
    return false;
  *out = strtoull(word, &end, 10);
  return *end == '\0';
}

/* `keyword` then a number. */
static bool read_field(char **line, const char *keyword, uint64_t *out) {
  char *word = next_word(line);
  return word && strcmp(word, keyword) == 0 && read_number(line, out);
}

/* What the lines read so far left open. */
typedef struct parse_state {
  size_t capacity;    /* of module->functions */
  size_t stages_read; /* of the last function */
} parse_state_t;

static bool last_complete(const cu_generated_module_t *module,
                          const parse_state_t *state) {
  return module->function_count == 0 ||
         state->stages_read ==
             module->functions[module->function_count - 1].stage_count;
}

/* "<name> params <n> <bytes>... scratch <bytes> stages <k>" */
static C_Status parse_function(cu_generated_module_t *module, char *line,
                               parse_state_t *state) {
  if (!last_complete(module, state))
    return C_ERROR;
  if (module->function_count == state->capacity) {
    size_t grown = state->capacity ? state->capacity * 2 : 8;
    cu_generated_function_t *more =
        realloc(module->functions, grown * sizeof *more);
    if (!more)
      return C_FAILED;
    module->functions = more;
    state->capacity = grown;
  }
  cu_generated_function_t *function =
      &module->functions[module->function_count++];
  memset(function, 0, sizeof *function);
  state->stages_read = 0;
  char *name = next_word(&line);
  uint64_t params = 0, stages = 0;
  if (!name || !read_field(&line, "params", &params) ||
      params > CU_GENERATED_MAX_PARAMS)
    return C_ERROR;
  function->param_count = (size_t)params;
  for (size_t p = 0; p < function->param_count; ++p)
    if (!read_number(&line, &function->param_bytes[p]))
      return C_ERROR;
  if (!read_field(&line, "scratch", &function->scratch_bytes) ||
      !read_field(&line, "stages", &stages) || stages == 0 ||
      stages > CU_GENERATED_MAX_STAGES || next_word(&line))
    return C_ERROR;
  function->name = strdup(name);
  function->stages = calloc((size_t)stages, sizeof *function->stages);
  if (!function->name || !function->stages)
    return C_FAILED;
  function->stage_count = (size_t)stages;
  return C_SUCCESS;
}

/* "<kernel> items <elements>", for the last function. */
static C_Status parse_stage(cu_generated_module_t *module, char *line,
                            parse_state_t *state) {
  if (module->function_count == 0 || last_complete(module, state))
    return C_ERROR;
  cu_generated_stage_t *stage =
      &module->functions[module->function_count - 1].stages[state->stages_read];
  char *kernel = next_word(&line);
  if (!kernel || !read_field(&line, "items", &stage->items) || next_word(&line))
    return C_ERROR;
  if (!(stage->kernel = strdup(kernel)))
    return C_FAILED;
  state->stages_read++;
  return C_SUCCESS;
}

/* "<arch>", once. */
static C_Status parse_arch(cu_generated_module_t *module, char *line) {
  char *arch = next_word(&line);
  if (module->arch[0] || !arch || strlen(arch) >= sizeof module->arch ||
      next_word(&line))
    return C_ERROR;
  strcpy(module->arch, arch);
  return C_SUCCESS;
}

/* One descriptor line, the text after "//@bp ". */
static C_Status parse_line(cu_generated_module_t *module, char *line,
                           size_t number, parse_state_t *state) {
  char *keyword = next_word(&line);
  if (keyword && strcmp(keyword, "function") == 0)
    return parse_function(module, line, state);
  if (keyword && strcmp(keyword, "stage") == 0)
    return parse_stage(module, line, state);
  if (keyword && strcmp(keyword, "arch") == 0)
    return parse_arch(module, line);
  /* The marker, on the first line only. */
  return keyword && strcmp(keyword, "generated-cuda") == 0 && number == 1
             ? C_SUCCESS
             : C_ERROR;
}

static C_Status parse_lines(char *text, cu_generated_module_t *module) {
  parse_state_t state = {0, 0};
  size_t number = 0;
  for (char *line = text, *end; line; line = end ? end + 1 : NULL) {
    end = strchr(line, '\n');
    if (end)
      *end = '\0';
    ++number;
    if (strncmp(line, "//@bp ", 6) != 0)
      continue;
    C_Status status = parse_line(module, line + 6, number, &state);
    if (status == C_FAILED)
      return cu_fail(C_FAILED, "out of host memory");
    if (status != C_SUCCESS)
      return cu_fail(C_ERROR,
                     "generated CUDA module, line %zu is malformed or out of "
                     "place (see \"Generated modules\" in docs/cuda.md)",
                     number);
  }
  if (!module->arch[0])
    return cu_fail(C_ERROR, "generated CUDA module: no //@bp arch line");
  if (module->function_count == 0)
    return cu_fail(C_ERROR, "generated CUDA module: no //@bp function line");
  if (!last_complete(module, &state))
    return cu_fail(C_ERROR,
                   "generated CUDA module: function '%s' has fewer stage "
                   "lines than it declares",
                   module->functions[module->function_count - 1].name);
  return C_SUCCESS;
}

C_Status cu_generated_parse(const char *source, size_t size,
                            cu_generated_module_t *out) {
  memset(out, 0, sizeof *out);
  char *text = malloc(size + 1);
  if (!text)
    return cu_fail(C_FAILED, "out of host memory");
  memcpy(text, source, size);
  text[size] = '\0';
  C_Status status = parse_lines(text, out);
  free(text);
  if (status != C_SUCCESS)
    cu_generated_free(out);
  return status;
}

/* "sm_<number>[letter]": the number, and whether a feature letter follows;
 * false for anything else. */
static bool arch_number(const char *arch, unsigned *number, bool *feature) {
  if (strncmp(arch, "sm_", 3) != 0)
    return false;
  size_t digits = strspn(arch + 3, "0123456789");
  const char *rest = arch + 3 + digits;
  if (digits < 2 || digits > 3 ||
      !(*rest == '\0' || (rest[0] >= 'a' && rest[0] <= 'z' && !rest[1])))
    return false;
  *number = (unsigned)strtoul(arch + 3, NULL, 10);
  *feature = *rest != '\0';
  return true;
}

C_Status cu_generated_arch(const char *built_for, const char *device_arch,
                           char *out, size_t capacity) {
  unsigned built = 0, device = 0;
  bool built_feature = false, device_feature = false;
  if (!arch_number(built_for, &built, &built_feature) ||
      !arch_number(device_arch, &device, &device_feature))
    return cu_fail(C_ERROR,
                   "generated CUDA module: arch '%s' (device: '%s') is not "
                   "sm_<major><minor>",
                   built_for, device_arch);
  if (built == device) { /* sm_90a runs on 9.0 devices too */
    snprintf(out, capacity, "%s", built_for);
    return C_SUCCESS;
  }
  if (built_feature || built > device)
    return cu_unsupported("generated CUDA module: built for %s, which a %s "
                          "device cannot run (build it for the device's own "
                          "target, bp_target_from_device)",
                          built_for, device_arch);
  snprintf(out, capacity, "compute_%u", built);
  return C_SUCCESS;
}
