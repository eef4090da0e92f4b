/* Code generation end to end: a fused bias + GELU and a row softmax written
 * in Backplane's tensor-expression IR (bias_gelu.json, row_softmax.json),
 * built for the canonical target of the first vcpu device, loaded on it as
 * kernel modules, launched with bp_launch in the target's number of blocks,
 * and checked against plain C.
 *
 * usage: codegen_example DIR   (the folder holding the two .json files) */
#include <math.h>
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

/* The vcpu device the kernels run on, and a stream of it. */
typedef struct device_ctx {
  bp_device_t *device;
  bp_stream_t *stream;
} device_ctx_t;

/* Loads `built` on the device, launches `name` with the build's blocks and
 * `params`, waits. Nonzero on failure (bp_last_error() says why). */
static int launch(const device_ctx_t *ctx, const bp_built_module_t *built,
                  const char *name, const bp_generated_params_t *params) {
  bp_module_t *module = NULL;
  bp_function_t *function = NULL;
  int failed = bp_built_module_load(built, ctx->device, &module) != BP_OK ||
               bp_module_function(module, name, &function) != BP_OK ||
               bp_launch(function, bp_built_module_blocks(built, name), params,
                         sizeof(*params), NULL, ctx->stream) != BP_OK ||
               bp_stream_synchronize(ctx->stream) != BP_OK;
  if (failed)
    fprintf(stderr, "%s: %s\n", name, bp_last_error());
  if (module && bp_module_unload(module) != BP_OK)
    failed = 1;
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

static int bias_gelu(const char *dir, const bp_target_t *target,
                     const device_ctx_t *ctx) {
  enum { R = 256, C = 1024 };
  bp_built_module_t *built = build(dir, "bias_gelu.json", target);
  if (!built)
    return 1;
  float *x = malloc(sizeof(float) * R * C), *y = malloc(sizeof(float) * R * C);
  float bias[C];
  for (int i = 0; i < R * C; i++)
    x[i] = (float)(rand() % 2001 - 1000) / 250.0f;
  for (int j = 0; j < C; j++)
    bias[j] = (float)(rand() % 201 - 100) / 100.0f;
  bp_generated_params_t params = {{x, bias, y}};
  int failed = launch(ctx, built, "bias_gelu", &params);
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

static int row_softmax(const char *dir, const bp_target_t *target,
                       const device_ctx_t *ctx) {
  enum { R = 512, C = 384 };
  bp_built_module_t *built = build(dir, "row_softmax.json", target);
  if (!built)
    return 1;
  float *x = malloc(sizeof(float) * R * C), *y = malloc(sizeof(float) * R * C);
  for (int i = 0; i < R * C; i++)
    x[i] = (float)(rand() % 2001 - 1000) / 100.0f;
  bp_generated_params_t params = {{x, y}};
  int failed = launch(ctx, built, "row_softmax", &params);
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
  bp_runtime_t *runtime = NULL;
  device_ctx_t ctx = {NULL, NULL};
  bp_target_t *target = NULL;
  char *json = NULL;
  if (bp_runtime_create(NULL, &runtime) != BP_OK ||
      bp_device_get(runtime, "vcpu", 0, &ctx.device) != BP_OK ||
      bp_stream_create(ctx.device, &ctx.stream) != BP_OK ||
      bp_target_from_device(ctx.device, &target) != BP_OK ||
      bp_target_to_json(target, &json) != BP_OK) {
    fprintf(stderr, "no vcpu device: %s\n", bp_last_error());
    bp_target_destroy(target);
    bp_runtime_destroy(runtime);
    return 1;
  }
  printf("target %s\n", json);
  free(json);
  int failed = bias_gelu(dir, target, &ctx) | row_softmax(dir, target, &ctx);
  bp_target_destroy(target);
  (void)bp_stream_destroy(ctx.stream);
  bp_runtime_destroy(runtime);
  printf("%s\n", failed ? "FAILED" : "OK");
  return failed;
}
