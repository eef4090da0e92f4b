/* Kernel checks (the plugin's kernels extension): the conformance kernel
 * library loads and lists its functions; launches on one stream run in
 * order; every block sees its index and the count; arguments are copied at
 * launch; a kernel's non-zero code becomes a sticky stream error that
 * bp_stream_reset clears; a kernel past its timeout gives BP_ERR_TIMEOUT
 * promptly; a notify goes from a stream to a kernel and back. Every line
 * SKIPs, with the reason, when the plugin has no kernels extension; the
 * lines whose kernels take device pointers SKIP when the plugin cannot
 * take such param blocks (BP_ERR_UNSUPPORTED); the error-code
 * line SKIPs when the module (OpenCL C, CUDA C) lacks its kernel, the notify
 * line then goes from stream to stream (host-side notifies only), and it
 * SKIPs with the plugin's reason when the plugin has no notifies. The module
 * is the one cli_kernels_load picks for the device type. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "check_pool.h"
#include "check_report.h"
#include "cli/cli_kernels.h"
#include "cli/cli_timing.h"
#include "kernels/conformance_kernels.h"

enum {
  ORDERED_LAUNCHES = 64,
  MAX_BLOCKS = 7,
  SLEEP_MS = 1000,
  TIMEOUT_MS = 50
};

typedef struct kernels {
  check_ctx_t *ctx;
  bp_device_t *device;
  bp_module_t *module;
  bp_stream_t *stream;
  int *memory; /* 128 ints of device memory (host-addressable or not) */
} kernels_t;

static const char *const names[] = {
    "kernels.launch_order", "kernels.block_indices", "kernels.args_copied",
    "kernels.error_code",   "kernels.timeout",       "kernels.notify"};
/* The first lines of `names` pass device pointers in their param blocks. */
enum { POINTER_LINES = 3 };

static bp_status_t launch(kernels_t *k, const char *name, uint32_t blocks,
                          const void *args, size_t size, uint32_t timeout_ms) {
  bp_function_t *function = NULL;
  bp_status_t status = bp_module_function(k->module, name, &function);
  bp_launch_config_t config = {.timeout_ms = timeout_ms};
  return status == BP_OK
             ? bp_launch(function, blocks, args, size, &config, k->stream)
             : status;
}

/* Reads n ints of k->memory back to the host after the stream drained. */
static bp_status_t read_back(kernels_t *k, int *out, size_t n) {
  bp_status_t status = bp_stream_synchronize(k->stream);
  return status == BP_OK
             ? bp_copy(NULL, out, k->device, k->memory, n * sizeof(int), NULL)
             : status;
}

static bp_status_t zero(kernels_t *k) {
  return bp_memset(k->device, k->memory, 0, 128 * sizeof(int), NULL);
}

static void launch_order(kernels_t *k) {
  int log[ORDERED_LAUNCHES + 1];
  bp_status_t status = zero(k);
  for (int i = 0; i < ORDERED_LAUNCHES && status == BP_OK; ++i) {
    append_param p = {k->memory + 1, k->memory, i};
    status = launch(k, "append_kernel", 1, &p, sizeof p, 0);
  }
  if (status == BP_OK)
    status = read_back(k, log, ORDERED_LAUNCHES + 1);
  if (status != BP_OK)
    return check_fail_call(k->ctx, names[0], "launch append_kernel", status);
  for (int i = 0; i < ORDERED_LAUNCHES; ++i)
    if (log[1 + i] != i)
      return check_fail(k->ctx, names[0],
                        "launch %d ran at position %d of %d (log holds %d)", i,
                        i, ORDERED_LAUNCHES, log[1 + i]);
  check_pass(k->ctx, names[0], "%d launches ran in stream order",
             ORDERED_LAUNCHES);
}

static void block_indices(kernels_t *k) {
  int seen[MAX_BLOCKS];
  for (uint32_t blocks = 1; blocks <= MAX_BLOCKS; blocks += 3) {
    block_param p = {k->memory};
    bp_status_t status = zero(k);
    if (status == BP_OK)
      status = launch(k, "block_kernel", blocks, &p, sizeof p, 0);
    if (status == BP_OK)
      status = read_back(k, seen, blocks);
    if (status != BP_OK)
      return check_fail_call(k->ctx, names[1], "launch block_kernel", status);
    for (uint32_t b = 0; b < blocks; ++b)
      if (seen[b] != (int)(blocks * 1000 + b))
        return check_fail(k->ctx, names[1],
                          "block %u of %u saw %d (expected index %u, count "
                          "%u as count*1000+index)",
                          b, blocks, seen[b], b, blocks);
  }
  check_pass(k->ctx, names[1], "blocks 1, 4 and 7 each saw index and count");
}

static void args_copied(kernels_t *k) {
  int log[2];
  sleep_param nap = {20};
  append_param p = {k->memory + 1, k->memory, 7};
  bp_status_t status = zero(k);
  if (status == BP_OK)
    status = launch(k, "sleep_kernel", 1, &nap, sizeof nap, 0);
  if (status == BP_OK)
    status = launch(k, "append_kernel", 1, &p, sizeof p, 0);
  p.value = 8; /* after the launch returned, before it ran */
  if (status == BP_OK)
    status = read_back(k, log, 2);
  if (status != BP_OK)
    return check_fail_call(k->ctx, names[2], "launch", status);
  if (log[1] != 7)
    return check_fail(k->ctx, names[2],
                      "the kernel saw %d: arguments changed after bp_launch "
                      "reached it (expected 7)",
                      log[1]);
  check_pass(k->ctx, names[2], "the kernel saw the arguments of launch time");
}

/* true (after a SKIP line) when the module has no `function`: a format
 * without it (OpenCL C and CUDA C kernels return no codes). */
static bool skipped_without(kernels_t *k, const char *line,
                            const char *function) {
  bp_function_t *found = NULL;
  if (bp_module_function(k->module, function, &found) == BP_OK)
    return false;
  check_skip(k->ctx, line, "the conformance module has no %s", function);
  return true;
}

static void error_code(kernels_t *k) {
  if (skipped_without(k, names[3], "fail_kernel"))
    return;
  fail_param bad = {42};
  bp_status_t status = launch(k, "fail_kernel", 2, &bad, sizeof bad, 0);
  if (status != BP_OK)
    return check_fail_call(k->ctx, names[3], "launch fail_kernel", status);
  status = bp_stream_synchronize(k->stream);
  char message[512];
  snprintf(message, sizeof message, "%s", bp_last_error());
  bp_status_t again = bp_stream_query(k->stream);
  bp_status_t reset = bp_stream_reset(k->stream);
  bp_status_t after = bp_stream_synchronize(k->stream);
  if (status == BP_OK)
    return check_fail(k->ctx, names[3],
                      "a kernel returning 42 left its stream healthy");
  if (!strstr(message, "fail_kernel") || !strstr(message, "42"))
    return check_fail(k->ctx, names[3],
                      "the stream error does not name the kernel and code: %s",
                      message);
  if (again != status || reset != BP_OK || after != BP_OK)
    return check_fail(
        k->ctx, names[3], "not sticky until reset: query %s, reset %s, then %s",
        bp_status_name(again), bp_status_name(reset), bp_status_name(after));
  check_pass(k->ctx, names[3], "%s, sticky until bp_stream_reset",
             bp_status_name(status));
}

static void timeout(kernels_t *k) {
  sleep_param nap = {SLEEP_MS};
  uint64_t start = cli_now_ns();
  bp_status_t status =
      launch(k, "sleep_kernel", 1, &nap, sizeof nap, TIMEOUT_MS);
  if (status == BP_OK)
    status = bp_stream_synchronize(k->stream);
  double waited_ms = (double)(cli_now_ns() - start) / 1e6;
  char message[512];
  snprintf(message, sizeof message, "%s", bp_last_error());
  bp_stream_reset(k->stream);
  if (status != BP_ERR_TIMEOUT)
    return check_fail(k->ctx, names[4],
                      "a %d ms kernel with a %d ms timeout gave %s", SLEEP_MS,
                      TIMEOUT_MS, bp_status_name(status));
  if (!strstr(message, "sleep_kernel"))
    return check_fail(k->ctx, names[4],
                      "the timeout does not name the "
                      "kernel: %s",
                      message);
  if (waited_ms >= SLEEP_MS)
    return check_fail(k->ctx, names[4],
                      "synchronize waited %.0f ms: as long as the kernel ran",
                      waited_ms);
  check_pass(k->ctx, names[4], "BP_ERR_TIMEOUT after %.0f ms (timeout %d ms)",
             waited_ms, TIMEOUT_MS);
}

/* stream -> notify_kernel -> stream; without notify_kernel (an OpenCL C
 * module: device code there cannot wait for a notify) the middle hop is a
 * second stream's wait and record. */
static void notify_round_trip(kernels_t *k) {
  bp_function_t *function = NULL;
  bool in_kernel =
      bp_module_function(k->module, "notify_kernel", &function) == BP_OK;
  bp_notify_t *to_device = NULL, *to_host = NULL;
  bp_stream_t *device_side = NULL;
  notify_param p = {0, 0, 10000};
  bp_status_t status = bp_notify_create(k->device, &to_device);
  if (status == BP_ERR_UNSUPPORTED)
    return check_skip(k->ctx, names[5], "%s", bp_last_error());
  if (status == BP_OK)
    status = bp_notify_create(k->device, &to_host);
  if (status == BP_OK)
    status = bp_notify_id(to_device, &p.wait_id);
  if (status == BP_OK)
    status = bp_notify_id(to_host, &p.record_id);
  if (status == BP_OK)
    status = bp_stream_create(k->device, &device_side);
  if (status == BP_OK && in_kernel)
    status = bp_launch(function, 1, &p, sizeof p, NULL, device_side);
  if (status == BP_OK && !in_kernel)
    status = bp_notify_wait(to_device, device_side, 10000);
  if (status == BP_OK && !in_kernel)
    status = bp_notify_record(to_host, device_side);
  if (status == BP_OK)
    status = bp_notify_record(to_device, k->stream);
  if (status == BP_OK)
    status = bp_notify_wait(to_host, k->stream, 10000);
  if (status == BP_OK)
    status = bp_stream_synchronize(k->stream);
  if (status == BP_OK)
    status = bp_stream_synchronize(device_side);
  check_stream_destroy(device_side);
  bp_notify_destroy(to_host);
  bp_notify_destroy(to_device);
  if (status != BP_OK)
    return check_fail_call(k->ctx, names[5], "notify round trip", status);
  if (in_kernel)
    check_pass(k->ctx, names[5],
               "stream -> kernel (id %u) -> stream (id %u) within 10 s",
               p.wait_id, p.record_id);
  else
    check_pass(k->ctx, names[5],
               "stream -> stream (id %u) -> stream (id %u) within 10 s; "
               "host-side only: the conformance module has no notify_kernel",
               p.wait_id, p.record_id);
}

void check_kernels(check_ctx_t *ctx) {
  kernels_t k = {.ctx = ctx, .device = ctx->devices[0]};
  bp_status_t status = cli_kernels_load(k.device, &k.module);
  if (status == BP_ERR_UNSUPPORTED) {
    check_skip(ctx, "kernels.module_load", "%s", bp_last_error());
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
      check_skip(ctx, names[i], "no kernels extension");
    return;
  }
  if (status != BP_OK) {
    check_fail_call(ctx, "kernels.module_load", "bp_module_load", status);
    return;
  }
  check_pass(ctx, "kernels.module_load", "%zu functions listed",
             bp_module_function_count(k.module));
  status = bp_stream_create(k.device, &k.stream);
  if (status == BP_OK)
    status = bp_device_malloc(k.device, 128 * sizeof(int), (void **)&k.memory);
  block_param probe = {k.memory};
  if (status == BP_OK)
    status = launch(&k, "block_kernel", 1, &probe, sizeof probe, 0);
  if (status == BP_OK)
    status = bp_stream_synchronize(k.stream);
  if (status == BP_ERR_UNSUPPORTED) {
    /* The plugin cannot take param blocks holding device pointers (the
     * opencl buffer path): say why, and run the checks that pass none. */
    char reason[512];
    snprintf(reason, sizeof reason, "%s", bp_last_error());
    for (size_t i = 0; i < POINTER_LINES; ++i)
      check_skip(ctx, names[i], "the plugin refuses the launch: %s", reason);
    error_code(&k);
    timeout(&k);
    notify_round_trip(&k);
  } else if (status != BP_OK) {
    check_fail_call(ctx, names[0], "setup", status);
  } else {
    launch_order(&k);
    block_indices(&k);
    args_copied(&k);
    error_code(&k);
    timeout(&k);
    notify_round_trip(&k);
  }
  bp_device_free(k.device, k.memory);
  check_stream_destroy(k.stream);
  bp_module_unload(k.module);
}
