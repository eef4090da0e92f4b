/* Copy and memset checks: every direction (h2d, d2h, d2d, p2p), synchronous
 * and on a stream, at sizes 0, 1, 4099, 4 KiB and the large size, with a
 * random pattern. Destinations are poisoned first (the complement of the
 * pattern, so a copy that does nothing is caught at every byte), and a guard
 * beyond the copied range must stay untouched. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "check_pattern.h"
#include "check_pool.h"
#include "check_report.h"
#include "cli/cli_format.h"

enum { GUARD = 64 };

typedef enum copy_direction { H2D, D2H, D2D, P2P } copy_direction_t;

/* Where the leg under test runs: synchronously, or on a stream of the source
 * or destination device. */
typedef enum copy_mode { SYNC, SRC_STREAM, DST_STREAM } copy_mode_t;

/* The outcome of one size; `why` says more for FAILED and UNSUPPORTED. */
typedef enum case_result {
  CASE_OK,
  CASE_FAILED,
  CASE_UNSUPPORTED, /* the plugin lacks the function under test */
} case_result_t;

typedef struct copy_env {
  bp_device_t *dev0, *dev1; /* dev1 == dev0 with one device */
  bp_stream_t *stream0, *stream1;
  unsigned char *src, *dst, *expect; /* host, capacity + 2 * GUARD */
  void *d1, *d2;                     /* on dev0 */
  void *d3;                          /* on dev1 */
  size_t capacity;
  size_t sizes[5];
} copy_env_t;

static bp_status_t setup(check_ctx_t *ctx, check_pool_t *pool,
                         copy_env_t *env) {
  env->dev0 = ctx->devices[0];
  env->dev1 = ctx->device_count > 1 ? ctx->devices[1] : ctx->devices[0];
  env->capacity = check_large_size(ctx);
  size_t sizes[5] = {0, 1, 4099, 4096, env->capacity};
  memcpy(env->sizes, sizes, sizeof(sizes));
  size_t span = env->capacity + 2 * GUARD;
  env->src = check_pool_host_memory(pool, span);
  env->dst = check_pool_host_memory(pool, span);
  env->expect = check_pool_host_memory(pool, span);
  if (!env->src || !env->dst || !env->expect)
    return BP_ERR_OUT_OF_MEMORY;
  bp_status_t status;
  if ((status = check_pool_stream(pool, env->dev0, &env->stream0)) ||
      (status = check_pool_stream(pool, env->dev1, &env->stream1)) ||
      (status = check_pool_device_memory(pool, env->dev0, span, &env->d1)) ||
      (status = check_pool_device_memory(pool, env->dev0, span, &env->d2)) ||
      (status = check_pool_device_memory(pool, env->dev1, span, &env->d3)))
    return status;
  return BP_OK;
}

/* Copies with `mode`; for SYNC a NULL stream. Synchronizes the stream. */
static bp_status_t copy(copy_env_t *env, copy_mode_t mode,
                        bp_device_t *dst_device, void *dst,
                        bp_device_t *src_device, const void *src, size_t size) {
  bp_stream_t *stream = NULL;
  if (mode != SYNC) {
    bp_device_t *owner = mode == SRC_STREAM ? src_device : dst_device;
    stream = owner == env->dev0 ? env->stream0 : env->stream1;
  }
  bp_status_t status = bp_copy(dst_device, dst, src_device, src, size, stream);
  if (status == BP_OK && stream)
    status = bp_stream_synchronize(stream);
  return status;
}

/* Reports a failed call at `step`; the step under test being unsupported is
 * CASE_UNSUPPORTED rather than a failure. */
static case_result_t call_failed(const char *step, const char *tested,
                                 bp_status_t status, const char *size_text,
                                 char *why, size_t why_size) {
  snprintf(why, why_size, "size %s: %s: %s: %s", size_text, step,
           bp_status_name(status), bp_last_error());
  return status == BP_ERR_UNSUPPORTED && step == tested ? CASE_UNSUPPORTED
                                                        : CASE_FAILED;
}

static const char *const COPY_STEP = "the copy";
static const char *const MEMSET_STEP = "the memset";

/* Runs one direction at one size. */
static case_result_t copy_case(copy_env_t *env, copy_direction_t direction,
                               copy_mode_t mode, size_t size, char *why,
                               size_t why_size) {
  size_t span = size + GUARD;
  check_pattern_fill(env->src, span, check_pattern_seed(direction, mode, size));
  memcpy(env->expect, env->src, size);
  check_pattern_invert(env->expect + size, env->src + size, GUARD);
  check_pattern_invert(env->dst, env->src, span); /* the poison */

  bp_device_t *target_device = direction == P2P ? env->dev1 : env->dev0;
  void *target = direction == P2P   ? env->d3
                 : direction == D2D ? env->d2
                                    : env->d1;
  const char *step = "poisoning the device";
  bp_status_t status = BP_OK;
  switch (direction) {
  case H2D:
    status = copy(env, SYNC, env->dev0, env->d1, NULL, env->dst, span);
    if (status == BP_OK) {
      step = COPY_STEP;
      status = copy(env, mode, env->dev0, env->d1, NULL, env->src, size);
    }
    break;
  case D2H:
    step = "filling the device";
    status = copy(env, SYNC, env->dev0, env->d1, NULL, env->src, size);
    if (status == BP_OK) {
      step = COPY_STEP;
      status = copy(env, mode, NULL, env->dst, env->dev0, env->d1, size);
    }
    break;
  case D2D:
  case P2P:
    status = copy(env, SYNC, target_device, target, NULL, env->dst, span);
    if (status == BP_OK) {
      step = "filling the device";
      status = copy(env, SYNC, env->dev0, env->d1, NULL, env->src, size);
    }
    if (status == BP_OK) {
      step = COPY_STEP;
      status = copy(env, mode, target_device, target, env->dev0, env->d1, size);
    }
    break;
  }
  if (status == BP_OK && direction != D2H) {
    step = "reading the result back";
    status = copy(env, SYNC, NULL, env->dst, target_device, target, span);
  }
  char size_text[32];
  cli_format_bytes(size, size_text, sizeof(size_text));
  if (status != BP_OK)
    return call_failed(step, COPY_STEP, status, size_text, why, why_size);
  size_t at = check_pattern_mismatch(env->dst, env->expect, span);
  if (at == SIZE_MAX)
    return CASE_OK;
  if (at >= size)
    snprintf(why, why_size,
             "size %s: a byte past the end changed (end + %zu), or the "
             "bytes written before the copy did not land",
             size_text, at - size);
  else
    snprintf(why, why_size, "size %s: byte %zu is 0x%02x, expected 0x%02x%s",
             size_text, at, env->dst[at], env->expect[at],
             env->dst[at] == (unsigned char)~env->expect[at]
                 ? " (never written)"
                 : "");
  return CASE_FAILED;
}

static const char *line_name(copy_direction_t direction, copy_mode_t mode) {
  static const char *const names[4][3] = {
      {"copy.h2d.sync", "copy.h2d.stream", "copy.h2d.stream"},
      {"copy.d2h.sync", "copy.d2h.stream", "copy.d2h.stream"},
      {"copy.d2d.sync", "copy.d2d.stream", "copy.d2d.stream"},
      {"copy.p2p.sync", "copy.p2p.src_stream", "copy.p2p.dst_stream"},
  };
  return names[direction][mode];
}

typedef case_result_t (*size_case_fn)(copy_env_t *env,
                                      copy_direction_t direction,
                                      copy_mode_t mode, size_t size, char *why,
                                      size_t why_size);

/* Runs `run` at every size and reports one line: the first failure, SKIP if
 * the function under test is missing, or PASS. */
static void run_line(check_ctx_t *ctx, copy_env_t *env, const char *name,
                     size_case_fn run, copy_direction_t direction,
                     copy_mode_t mode, const char *what) {
  char why[512];
  for (size_t i = 0; i < sizeof(env->sizes) / sizeof(env->sizes[0]); i++) {
    case_result_t result =
        run(env, direction, mode, env->sizes[i], why, sizeof(why));
    if (result == CASE_UNSUPPORTED) {
      check_skip(ctx, name, "not provided: %s", why);
      return;
    }
    if (result == CASE_FAILED) {
      check_fail(ctx, name, "%s", why);
      return;
    }
  }
  char large[32];
  check_pass(ctx, name, "sizes 0, 1, 4099, 4 KiB, %s %s",
             cli_format_bytes(env->capacity, large, sizeof(large)), what);
}

static void run_direction(check_ctx_t *ctx, copy_env_t *env,
                          copy_direction_t direction, copy_mode_t mode) {
  run_line(ctx, env, line_name(direction, mode), copy_case, direction, mode,
           "verified");
}

void check_copies(check_ctx_t *ctx) {
  check_pool_t pool = {0};
  copy_env_t env = {0};
  bp_status_t status = setup(ctx, &pool, &env);
  if (status != BP_OK) {
    check_fail_call(ctx, "copy.setup", "allocating buffers and streams",
                    status);
  } else {
    static const copy_direction_t directions[] = {H2D, D2H, D2D};
    for (size_t d = 0; d < 3; d++) {
      run_direction(ctx, &env, directions[d], SYNC);
      run_direction(ctx, &env, directions[d],
                    directions[d] == D2H ? SRC_STREAM : DST_STREAM);
    }
    if (ctx->device_count < 2) {
      check_skip(ctx, "copy.p2p", "needs two devices; the plugin has one");
    } else {
      run_direction(ctx, &env, P2P, SYNC);
      run_direction(ctx, &env, P2P, SRC_STREAM);
      run_direction(ctx, &env, P2P, DST_STREAM);
    }
  }
  check_pool_release(&pool);
}

/* ---- memset ------------------------------------------------------------- */

/* Sets `size` bytes at d1 + GUARD and checks GUARD bytes on either side
 * (`direction` is unused: the signature is size_case_fn's). */
static case_result_t memset_case(copy_env_t *env, copy_direction_t direction,
                                 copy_mode_t mode, size_t size, char *why,
                                 size_t why_size) {
  (void)direction;
  const unsigned char value = 0xA5;
  size_t span = size + 2 * GUARD;
  check_pattern_fill(env->src, span, check_pattern_seed(7, mode, size));
  for (size_t i = GUARD; i < GUARD + size; i++)
    if (env->src[i] == value)
      env->src[i] = (unsigned char)~value;
  memcpy(env->expect, env->src, span);
  memset(env->expect + GUARD, value, size);
  const char *step = "filling the device";
  bp_status_t status =
      copy(env, SYNC, env->dev0, env->d1, NULL, env->src, span);
  if (status == BP_OK) {
    step = MEMSET_STEP;
    bp_stream_t *stream = mode == SYNC ? NULL : env->stream0;
    status = bp_memset(env->dev0, (unsigned char *)env->d1 + GUARD, value, size,
                       stream);
    if (status == BP_OK && stream)
      status = bp_stream_synchronize(stream);
  }
  if (status == BP_OK) {
    step = "reading the result back";
    status = copy(env, SYNC, NULL, env->dst, env->dev0, env->d1, span);
  }
  char size_text[32];
  cli_format_bytes(size, size_text, sizeof(size_text));
  if (status != BP_OK)
    return call_failed(step, MEMSET_STEP, status, size_text, why, why_size);
  size_t at = check_pattern_mismatch(env->dst, env->expect, span);
  if (at == SIZE_MAX)
    return CASE_OK;
  if (at < GUARD || at >= GUARD + size)
    snprintf(why, why_size, "size %s: wrote outside the range (%s byte %zu)",
             size_text, at < GUARD ? "before it," : "after it,",
             at < GUARD ? GUARD - at : at - GUARD - size);
  else
    snprintf(why, why_size, "size %s: byte %zu is 0x%02x, expected 0x%02x",
             size_text, at - GUARD, env->dst[at], value);
  return CASE_FAILED;
}

void check_memset(check_ctx_t *ctx) {
  check_pool_t pool = {0};
  copy_env_t env = {0};
  bp_status_t status = setup(ctx, &pool, &env);
  if (status != BP_OK) {
    check_fail_call(ctx, "memset.setup", "allocating buffers and streams",
                    status);
  } else {
    run_line(ctx, &env, "memset.sync", memset_case, H2D, SYNC,
             "at an offset; neighbours untouched");
    run_line(ctx, &env, "memset.stream", memset_case, H2D, DST_STREAM,
             "at an offset; neighbours untouched");
  }
  check_pool_release(&pool);
}
