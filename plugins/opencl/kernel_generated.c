/* Generated modules: OpenCL C source that Backplane's opencl builder lowered
 * from tensor-expression IR (BP_OPENCL_GENERATED_MARKER on its first line).
 *
 * The contract (docs/plugin-guide.md, "Generated OpenCL modules"): per
 * function, a descriptor line
 *
 *   //@bp function <name> params <n> <bytes>... scratch <bytes> stages <k>
 *
 * then k lines "//@bp stage <kernel> items <elements>" in run order. A launch
 * of <name> takes the vcpu builder's parameter block (bp_generated_params_t):
 * its first n 64-bit words are device pointers to tensors of the given
 * sizes. Every stage kernel takes, per word, a `global uchar *` and a
 * `ulong` byte offset, then a `global uchar *` scratch buffer. The plugin
 * sets the pointer as an SVM pointer with offset 0 (SVM path) or as the
 * cl_mem behind it with the offset into it (buffer path), so the same param
 * block works on both paths.
 *
 * Scratch (the intermediate stages) is a buffer created per launch and
 * released as soon as the stages are enqueued: OpenCL frees a released
 * buffer only once the commands that use it completed, so it is freed in
 * stream order, and two launches of one function on two streams never share
 * it. The stages run one after another on the stream's in-order queue, each
 * with one work-item per item (capped; the kernels loop over the rest). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_internal.h"
#include "memory.h"

/* Most device pointers in a parameter block: bp_generated_params_t's. */
enum { OCL_GENERATED_MAX_PARAMS = 16 };
/* Most work-groups of one stage; the kernels' grid-stride loops cover the
 * rest of the items. */
enum { OCL_GENERATED_MAX_GROUPS = 65536 };

bool ocl_generated_source(const void *data, size_t size) {
  size_t n = strlen(BP_OPENCL_GENERATED_MARKER);
  return size >= n && memcmp(data, BP_OPENCL_GENERATED_MARKER, n) == 0;
}

void ocl_generated_free(struct BP_KernelModule_st *module) {
  for (size_t f = 0; f < module->generated_count; ++f) {
    ocl_generated_function_t *function = &module->generated[f];
    free(function->name);
    free(function->param_bytes);
    for (size_t s = 0; s < function->stage_count; ++s)
      free(function->stages[s].kernel);
    free(function->stages);
  }
  free(module->generated);
  module->generated = NULL;
  module->generated_count = 0;
}

/* The next whitespace-separated word of `*line`, NUL-terminated in place. */
static char *next_word(char **line) {
  char *word = *line + strspn(*line, " \t");
  if (*word == '\0')
    return NULL;
  char *end = word + strcspn(word, " \t");
  *line = *end ? end + 1 : end;
  *end = '\0';
  return word;
}

static bool read_count(char **line, const char *keyword, uint64_t *out) {
  char *word = next_word(line);
  if (!word || strcmp(word, keyword) != 0 || !(word = next_word(line)))
    return false;
  char *end = NULL;
  unsigned long long value = strtoull(word, &end, 10);
  *out = value;
  return *end == '\0' && word[0] != '-';
}

/* "<name> params <n> <bytes>... scratch <bytes> stages <k>" */
static bool parse_function(char *line, ocl_generated_function_t *function) {
  char *name = next_word(&line);
  uint64_t params = 0, stages = 0;
  if (!name || !read_count(&line, "params", &params) ||
      params > OCL_GENERATED_MAX_PARAMS)
    return false;
  function->name = strdup(name);
  function->param_bytes = calloc(params ? params : 1, sizeof(uint64_t));
  if (!function->name || !function->param_bytes)
    return false;
  function->param_count = params;
  for (uint64_t p = 0; p < params; ++p) {
    char *word = next_word(&line), *end = NULL;
    if (!word)
      return false;
    function->param_bytes[p] = strtoull(word, &end, 10);
    if (*end != '\0')
      return false;
  }
  if (!read_count(&line, "scratch", &function->scratch_bytes) ||
      !read_count(&line, "stages", &stages) || stages == 0 || stages > 1u << 16)
    return false;
  function->stages = calloc(stages, sizeof *function->stages);
  function->stage_count = function->stages ? stages : 0;
  return function->stages != NULL;
}

/* "<kernel> items <elements>" */
static bool parse_stage(char *line, ocl_generated_stage_t *stage) {
  char *kernel = next_word(&line);
  if (!kernel || !read_count(&line, "items", &stage->items))
    return false;
  stage->kernel = strdup(kernel);
  return stage->kernel != NULL;
}

/* Descriptor lines read so far. */
typedef struct parse_state {
  size_t capacity;    /* of module->generated */
  size_t stages_read; /* of the last function */
} parse_state_t;

/* The last function has all the stage lines it declared. */
static bool last_complete(const struct BP_KernelModule_st *module,
                          const parse_state_t *state) {
  return module->generated_count == 0 ||
         state->stages_read ==
             module->generated[module->generated_count - 1].stage_count;
}

static bool add_function(struct BP_KernelModule_st *module, char *line,
                         parse_state_t *state) {
  if (!last_complete(module, state))
    return false;
  if (module->generated_count == state->capacity) {
    size_t grown = state->capacity ? state->capacity * 2 : 8;
    ocl_generated_function_t *more =
        realloc(module->generated, grown * sizeof *more);
    if (!more)
      return false;
    module->generated = more;
    state->capacity = grown;
  }
  ocl_generated_function_t *function =
      &module->generated[module->generated_count++];
  memset(function, 0, sizeof *function);
  state->stages_read = 0;
  return parse_function(line, function);
}

/* One descriptor line (the text after "//@bp "); false when malformed. */
static bool parse_line(struct BP_KernelModule_st *module, char *line,
                       parse_state_t *state) {
  char *keyword = next_word(&line);
  if (keyword && strcmp(keyword, "function") == 0)
    return add_function(module, line, state);
  if (keyword && strcmp(keyword, "stage") == 0) {
    if (module->generated_count == 0)
      return false;
    ocl_generated_function_t *function =
        &module->generated[module->generated_count - 1];
    return state->stages_read < function->stage_count &&
           parse_stage(line, &function->stages[state->stages_read++]);
  }
  return keyword && strcmp(keyword, "generated-opencl") == 0;
}

C_Status ocl_generated_parse(struct BP_KernelModule_st *module,
                             const char *source, size_t size) {
  char *text = malloc(size + 1);
  if (!text)
    return ocl_fail(C_FAILED, "out of host memory");
  memcpy(text, source, size);
  text[size] = '\0';
  parse_state_t state = {0, 0};
  C_Status status = C_SUCCESS;
  size_t line_number = 0;
  for (char *line = text, *end; line && status == C_SUCCESS;
       line = end ? end + 1 : NULL) {
    end = strchr(line, '\n');
    if (end)
      *end = '\0';
    ++line_number;
    if (strncmp(line, "//@bp ", 6) == 0 &&
        !parse_line(module, line + 6, &state))
      status = ocl_fail(C_ERROR,
                        "generated module, line %zu is malformed or out of "
                        "place (see \"Generated OpenCL modules\" in the "
                        "plugin guide)",
                        line_number);
  }
  free(text);
  if (status == C_SUCCESS && !last_complete(module, &state))
    status = ocl_fail(C_ERROR,
                      "generated module: function '%s' has fewer "
                      "stage lines than it declares",
                      module->generated[module->generated_count - 1].name);
  if (status == C_SUCCESS && module->generated_count == 0)
    status = ocl_fail(C_ERROR, "generated module: no //@bp function line");
  if (status != C_SUCCESS)
    return status;
  module->names = calloc(module->generated_count, sizeof *module->names);
  if (!module->names)
    return ocl_fail(C_FAILED, "out of host memory");
  for (size_t f = 0; f < module->generated_count; ++f)
    module->names[f] = module->generated[f].name;
  module->name_count = module->generated_count;
  return C_SUCCESS;
}

C_Status ocl_generated_function(struct BP_KernelModule_st *module,
                                const char *name,
                                struct BP_KernelFunction_st **out) {
  const ocl_generated_function_t *generated = NULL;
  for (size_t f = 0; f < module->generated_count && !generated; ++f)
    if (strcmp(module->generated[f].name, name) == 0)
      generated = &module->generated[f];
  if (!generated)
    return ocl_fail(C_FAILED, "no function \"%s\" in the generated module",
                    name);
  size_t n = strlen(name);
  struct BP_KernelFunction_st *function = calloc(1, sizeof *function + n + 1);
  if (!function)
    return ocl_fail(C_FAILED, "out of host memory");
  function->module = module;
  function->generated = generated;
  pthread_mutex_init(&function->lock, NULL);
  memcpy(function->name, name, n + 1);
  function->stages = calloc(generated->stage_count, sizeof *function->stages);
  C_Status status =
      function->stages ? C_SUCCESS : ocl_fail(C_FAILED, "out of host memory");
  for (size_t s = 0; status == C_SUCCESS && s < generated->stage_count; ++s) {
    status = ocl_function_create(module, generated->stages[s].kernel,
                                 &function->stages[s]);
    if (status == C_SUCCESS &&
        function->stages[s]->arg_count != 2 * generated->param_count + 1)
      status = ocl_fail(C_ERROR,
                        "generated function \"%s\": stage kernel \"%s\" takes "
                        "%u arguments, not the %zu its descriptor implies",
                        name, generated->stages[s].kernel,
                        function->stages[s]->arg_count,
                        2 * generated->param_count + 1);
  }
  if (status != C_SUCCESS) {
    ocl_function_destroy(function);
    return status;
  }
  *out = function;
  return C_SUCCESS;
}

/* The arguments of every stage: each parameter word resolved (retained
 * buffers in `regions`) and the scratch buffer. */
static C_Status resolve_params(ocl_device_t *dev,
                               const ocl_generated_function_t *generated,
                               const void *args, size_t args_size,
                               ocl_region_t *regions) {
  if (args_size < generated->param_count * sizeof(uint64_t))
    return ocl_fail(
        C_ERROR,
        "launch %s: the param block has %zu bytes, but the "
        "function takes %zu device pointers (bp_generated_params_t)",
        generated->name, args_size, generated->param_count);
  for (size_t p = 0; p < generated->param_count; ++p) {
    uint64_t word;
    memcpy(&word, (const char *)args + p * sizeof word, sizeof word);
    C_Status status =
        word ? ocl_memory_resolve(dev, (const void *)(uintptr_t)word,
                                  generated->param_bytes[p], &regions[p])
             : C_ERROR;
    if (status != C_SUCCESS) {
      char reason[512];
      snprintf(reason, sizeof reason, "%s",
               word ? ocl_last_error() : "it is NULL");
      for (size_t q = 0; q < p; ++q)
        ocl_region_release(&regions[q]);
      return ocl_fail(C_ERROR,
                      "launch %s: tensor %zu of the param block (%llu "
                      "bytes): %s",
                      generated->name, p,
                      (unsigned long long)generated->param_bytes[p], reason);
    }
  }
  return C_SUCCESS;
}

/* Sets stage `kernel`'s arguments and enqueues it; *done is its event. */
static cl_int enqueue_stage(struct C_Stream_st *stream,
                            const struct BP_KernelFunction_st *stage,
                            uint64_t items, size_t param_count,
                            const ocl_region_t *regions, cl_mem scratch,
                            cl_event *done) {
  cl_int error = CL_SUCCESS;
  for (size_t p = 0; p < param_count && error == CL_SUCCESS; ++p) {
    cl_ulong offset = regions[p].svm ? 0 : regions[p].offset;
    error = regions[p].svm
                ? clSetKernelArgSVMPointer(stage->kernel, (cl_uint)(2 * p),
                                           regions[p].svm)
                : clSetKernelArg(stage->kernel, (cl_uint)(2 * p),
                                 sizeof(cl_mem), &regions[p].buffer);
    if (error == CL_SUCCESS)
      error = clSetKernelArg(stage->kernel, (cl_uint)(2 * p + 1), sizeof offset,
                             &offset);
  }
  if (error == CL_SUCCESS)
    error = clSetKernelArg(stage->kernel, (cl_uint)(2 * param_count),
                           sizeof(cl_mem), scratch ? &scratch : NULL);
  size_t local = stage->local_size;
  uint64_t groups = items / local + (items % local != 0);
  if (groups == 0)
    groups = 1;
  if (groups > OCL_GENERATED_MAX_GROUPS)
    groups = OCL_GENERATED_MAX_GROUPS;
  size_t global = (size_t)groups * local;
  if (error == CL_SUCCESS)
    error = clEnqueueNDRangeKernel(stream->queue, stage->kernel, 1, NULL,
                                   &global, &local, 0, NULL, done);
  return error;
}

C_Status ocl_generated_launch(ocl_device_t *dev, struct C_Stream_st *stream,
                              struct BP_KernelFunction_st *function,
                              const void *args, size_t args_size,
                              uint64_t timeout_ns, const char *label) {
  const ocl_generated_function_t *generated = function->generated;
  ocl_region_t regions[OCL_GENERATED_MAX_PARAMS] = {{0}};
  C_Status status = resolve_params(dev, generated, args, args_size, regions);
  if (status != C_SUCCESS)
    return status;
  cl_int error = CL_SUCCESS;
  cl_mem scratch = NULL;
  if (generated->scratch_bytes)
    scratch = clCreateBuffer(dev->context, CL_MEM_READ_WRITE,
                             (size_t)generated->scratch_bytes, NULL, &error);
  if (error != CL_SUCCESS) {
    for (size_t p = 0; p < generated->param_count; ++p)
      ocl_region_release(&regions[p]);
    return ocl_fail(ocl_status_of(error) == C_FAILED ? C_FAILED : C_ERROR,
                    "launch %s on %s: cannot allocate its %llu bytes of "
                    "scratch: %s",
                    generated->name, dev->name,
                    (unsigned long long)generated->scratch_bytes,
                    ocl_error_name(error));
  }
  cl_event *done = calloc(generated->stage_count, sizeof *done);
  size_t enqueued = 0;
  if (!done)
    error = CL_OUT_OF_HOST_MEMORY;
  /* The kernels' arguments stay set between clSetKernelArg and the enqueue
   * that copies them. */
  pthread_mutex_lock(&function->lock);
  for (; error == CL_SUCCESS && enqueued < generated->stage_count; ++enqueued)
    error = enqueue_stage(
        stream, function->stages[enqueued], generated->stages[enqueued].items,
        generated->param_count, regions, scratch, &done[enqueued]);
  pthread_mutex_unlock(&function->lock);
  if (error != CL_SUCCESS && enqueued)
    --enqueued; /* the failed stage has no event */
  /* Released buffers live on until the enqueued commands complete. */
  if (scratch)
    clReleaseMemObject(scratch);
  for (size_t p = 0; p < generated->param_count; ++p)
    ocl_region_release(&regions[p]);
  clFlush(stream->queue);
  for (size_t s = 0; s < enqueued && status == C_SUCCESS; ++s) {
    status = ocl_launch_track(stream, done[s], timeout_ns,
                              generated->stages[s].kernel, label);
    done[s] = NULL;
  }
  for (size_t s = 0; s < enqueued; ++s)
    if (done[s])
      clReleaseEvent(done[s]);
  free(done);
  if (error != CL_SUCCESS)
    return ocl_fail(ocl_status_of(error) == C_FAILED ? C_FAILED : C_ERROR,
                    "launch %s on %s: stage %zu of %zu: %s", generated->name,
                    dev->name, enqueued + 1, generated->stage_count,
                    ocl_error_name(error));
  return status;
}
