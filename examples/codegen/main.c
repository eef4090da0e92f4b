/* Code generation end to end: a fused bias + GELU and a row softmax written
 * in Backplane's tensor-expression IR (bias_gelu.json, row_softmax.json),
 * built for the vcpu target of the first vcpu device (or `vcpu` when none
 * is present: builders never need the device), run in the target's number
 * of blocks, and checked against plain C.
 *
 * usage: codegen_example DIR   (the folder holding the two .json files) */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/backplane.h"

static char *read_text(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  static char buffer[1 << 16];
  size_t length = fread(buffer, 1, sizeof(buffer) - 1, file);
  fclose(file);
  buffer[length] = '\0';
  return strdup(buffer);
}

/* The target of the first vcpu device, or a plain vcpu target. */
static bp_target_t *vcpu_target(void) {
  bp_runtime_t *runtime = NULL;
  bp_device_t *device;
  bp_target_t *target = NULL;
  if (bp_runtime_create(NULL, &runtime) == BP_OK &&
      bp_device_get(runtime, "vcpu", 0, &device) == BP_OK)
    (void)bp_target_from_device(device, &target);
  bp_runtime_destroy(runtime);
  if (!target && bp_target_parse("vcpu", &target) != BP_OK)
    return NULL;
  return target;
}

typedef struct block_job {
  bp_generated_fn fn;
  bp_generated_params_t params;
  unsigned int result;
} block_job_t;

static void *run_block(void *arg) {
  block_job_t *job = arg;
  job->result = job->fn(&job->params);
  return NULL;
}

/* Launches every block of `fn` on its own thread (what a kernel launch with
 * `blocks` blocks does) and waits for them. */
static int launch(bp_generated_fn fn, uint32_t blocks, void **tensors,
                  size_t count) {
  block_job_t jobs[64];
  pthread_t threads[64];
  if (blocks > 64)
    blocks = 64;
  for (uint32_t b = 0; b < blocks; b++) {
    jobs[b] = (block_job_t){fn, {b, blocks, {NULL}}, 0};
    memcpy(jobs[b].params.tensors, tensors, count * sizeof(void *));
    pthread_create(&threads[b], NULL, run_block, &jobs[b]);
  }
  int failed = 0;
  for (uint32_t b = 0; b < blocks; b++) {
    pthread_join(threads[b], NULL);
    failed |= jobs[b].result != 0;
  }
  return failed;
}

static bp_built_module_t *build(const char *dir, const char *file,
                                const bp_target_t *target) {
  char *text = read_text(dir, file);
  bp_ir_module_t *module = NULL;
  bp_built_module_t *built = NULL;
  if (!text)
    fprintf(stderr, "cannot read %s/%s\n", dir, file);
  else if (bp_ir_module_parse(text, &module) != BP_OK ||
           bp_build(module, target, NULL, &built) != BP_OK)
    fprintf(stderr, "%s: %s\n", file, bp_last_error());
  bp_ir_module_destroy(module);
  free(text);
  return built;
}

static int bias_gelu(const char *dir, const bp_target_t *target) {
  enum { R = 256, C = 1024 };
  bp_built_module_t *built = build(dir, "bias_gelu.json", target);
  bp_generated_fn fn;
  if (!built || bp_built_module_function(built, "bias_gelu", &fn) != BP_OK) {
    bp_built_module_destroy(built);
    return 1;
  }
  float *x = malloc(sizeof(float) * R * C), *y = malloc(sizeof(float) * R * C);
  float bias[C];
  for (int i = 0; i < R * C; i++)
    x[i] = (float)(rand() % 2001 - 1000) / 250.0f;
  for (int j = 0; j < C; j++)
    bias[j] = (float)(rand() % 201 - 100) / 100.0f;
  void *tensors[] = {x, bias, y};
  int failed =
      launch(fn, bp_built_module_blocks(built, "bias_gelu"), tensors, 3);
  double worst = 0;
  for (int i = 0; i < R && !failed; i++)
    for (int j = 0; j < C; j++) {
      float h = x[i * C + j] + bias[j];
      float expected = 0.5f * h * (1.0f + erff(h * 0.70710678f));
      worst = fmax(worst, fabs(y[i * C + j] - expected));
    }
  printf("bias_gelu   [%d x %d], %u blocks: max error %.2g vs plain C\n", R, C,
         bp_built_module_blocks(built, "bias_gelu"), worst);
  free(x);
  free(y);
  bp_built_module_destroy(built);
  return failed || !(worst <= 1e-5);
}

static int row_softmax(const char *dir, const bp_target_t *target) {
  enum { R = 512, C = 384 };
  bp_built_module_t *built = build(dir, "row_softmax.json", target);
  bp_generated_fn fn;
  if (!built || bp_built_module_function(built, "row_softmax", &fn) != BP_OK) {
    bp_built_module_destroy(built);
    return 1;
  }
  float *x = malloc(sizeof(float) * R * C), *y = malloc(sizeof(float) * R * C);
  for (int i = 0; i < R * C; i++)
    x[i] = (float)(rand() % 2001 - 1000) / 100.0f;
  void *tensors[] = {x, y};
  int failed =
      launch(fn, bp_built_module_blocks(built, "row_softmax"), tensors, 2);
  double worst = 0;
  for (int i = 0; i < R && !failed; i++) {
    float max = x[i * C];
    for (int j = 1; j < C; j++)
      max = fmaxf(max, x[i * C + j]);
    double sum = 0;
    for (int j = 0; j < C; j++)
      sum += expf(x[i * C + j] - max);
    for (int j = 0; j < C; j++)
      worst = fmax(worst, fabs(y[i * C + j] - expf(x[i * C + j] - max) / sum));
  }
  printf("row_softmax [%d x %d], %u blocks: max error %.2g vs plain C\n", R, C,
         bp_built_module_blocks(built, "row_softmax"), worst);
  free(x);
  free(y);
  bp_built_module_destroy(built);
  return failed || !(worst <= 1e-6);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  bp_target_t *target = vcpu_target();
  char *json = NULL;
  if (!target || bp_target_to_json(target, &json) != BP_OK) {
    fprintf(stderr, "no vcpu target: %s\n", bp_last_error());
    return 1;
  }
  printf("target %s\n", json);
  free(json);
  int failed = bias_gelu(dir, target) | row_softmax(dir, target);
  bp_target_destroy(target);
  printf("%s\n", failed ? "FAILED" : "OK");
  return failed;
}
