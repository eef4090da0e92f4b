/* The DeviceAPI contract (TVM's, in the framework guide): the active device
 * goes through the plugin's set_device/get_device, per thread; bp_copy
 * hands pageable host buffers back on return; bp_copy_tensor copies
 * strided tensors right. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_gate.h"
#include "check_pool.h"
#include "check_report.h"

/* What the plugin's get_device says this thread's device is, or -1. It is
 * asked with `bound`'s own handle (the device this thread is bound to, so
 * taking the handle binds nothing); the id it writes there is put back. */
static int plugin_current(const check_ctx_t *ctx, bp_device_t *bound) {
  C_Device handle = bp_device_c_handle(bound);
  if (!handle)
    return -1;
  int own = handle->id;
  C_Status status = ctx->dispatch->get_device(handle);
  int reported = handle->id;
  handle->id = own;
  return status == C_SUCCESS ? reported : -1;
}

typedef struct other_thread {
  check_ctx_t *ctx;
  bp_device_t *device;
  int seen; /* get_device after set_active, -1 on failure */
} other_thread_t;

static void *set_elsewhere(void *arg) {
  other_thread_t *t = arg;
  t->seen = bp_device_set_active(t->device) == BP_OK
                ? plugin_current(t->ctx, t->device)
                : -1;
  return NULL;
}

/* The plugin's id of `device`, or -1 (with a FAIL) when the runtime has no
 * handle for it (bp_device_c_handle gives NULL when binding failed). */
static int plugin_id(check_ctx_t *ctx, const char *name, bp_device_t *device) {
  C_Device handle = bp_device_c_handle(device);
  if (!handle)
    check_fail(ctx, name, "bp_device_c_handle(%s) gave no handle: %s",
               bp_device_name(device), bp_last_error());
  return handle ? handle->id : -1;
}

void check_active_device(check_ctx_t *ctx) {
  const char *name = "device_api.active_device";
  for (size_t i = 0; i < ctx->device_count; ++i) {
    bp_device_t *device = ctx->devices[i];
    bp_status_t status = bp_device_set_active(device);
    if (status != BP_OK) {
      check_fail_call(ctx, name, "bp_device_set_active", status);
      return;
    }
    int id = plugin_id(ctx, name, device);
    if (id < 0)
      return;
    int seen = plugin_current(ctx, device);
    if (seen != id) {
      check_fail(ctx, name, "get_device reports %d after set_device(%s, id %d)",
                 seen, bp_device_name(device), id);
      return;
    }
  }
  /* Per thread: another thread's choice leaves this one's alone. */
  bp_device_t *last = ctx->devices[ctx->device_count - 1];
  other_thread_t other = {ctx, ctx->devices[0], -1};
  pthread_t thread;
  if (pthread_create(&thread, NULL, set_elsewhere, &other) != 0) {
    check_fail(ctx, name, "could not start a thread");
    return;
  }
  pthread_join(thread, NULL);
  int mine = plugin_current(ctx, last);
  int first = plugin_id(ctx, name, ctx->devices[0]);
  int last_id = first < 0 ? -1 : plugin_id(ctx, name, last);
  if (last_id < 0)
    return;
  if (other.seen != first || mine != last_id) {
    check_fail(ctx, name,
               "per thread: the other thread sees %d (expected %d), this one "
               "%d after the other's set_device (expected %d)",
               other.seen, first, mine, last_id);
    return;
  }
  bp_device_t *active = NULL;
  bp_status_t status =
      bp_device_get_active(ctx->runtime, ctx->info.device_type, &active);
  if (status != BP_OK || active != last) {
    check_fail(ctx, name, "bp_device_get_active gives %s (%s), expected %s",
               active ? bp_device_name(active) : "nothing",
               bp_status_name(status), bp_device_name(last));
    return;
  }
  check_pass(ctx, name,
             "set_device/get_device agree on %zu device(s), per thread",
             ctx->device_count);
}

static unsigned char pattern(size_t i, size_t seed) {
  return (unsigned char)((i * 151u + seed * 61u) >> 1 | 1u);
}

/* One size: h2d from a buffer wiped right after bp_copy returns (behind
 * `gate` when streams are asynchronous and the copy fits the pool), then d2h
 * into a buffer read right after it returns. NULL on success, else why. */
static const char *staged_round_trip(check_ctx_t *ctx, bp_stream_t *stream,
                                     check_gate_t *gate, void *d, size_t n,
                                     size_t seed, bp_status_t *out_status) {
  unsigned char *host = malloc(n);
  if (!host)
    return "no host memory";
  for (size_t i = 0; i < n; ++i)
    host[i] = pattern(i, seed);
  int held = ctx->streams == CHECK_STREAMS_ASYNCHRONOUS &&
             n <= 8 * BP_COPY_STAGING_CHUNK;
  bp_status_t status = held ? check_gate_enqueue(gate, stream) : BP_OK;
  if (status == BP_OK)
    status = bp_copy(bp_stream_device(stream), d, NULL, host, n, stream);
  int blocked = held && check_gate_state(gate).timed_out;
  memset(host, 0, n); /* the caller's again */
  check_gate_open(gate);
  if (status == BP_OK && !blocked)
    status = bp_copy(NULL, host, bp_stream_device(stream), d, n, stream);
  const char *why = NULL;
  for (size_t i = 0; status == BP_OK && !blocked && i < n && !why; ++i)
    if (host[i] != pattern(i, seed))
      why = "wrong data: the host buffer was read after bp_copy returned, or "
            "the device->host data was not there on return";
  if (blocked)
    why = "bp_copy (h2d) onto a held stream did not return until the stream "
          "was let go at its deadline: the data must be staged";
  if (status != BP_OK)
    why = "a call failed";
  *out_status = status;
  free(host);
  return why;
}

enum { STAGED_SIZES = 7, GATE_DEADLINE_MS = 15000 };

static void run_staged_copies(check_ctx_t *ctx, bp_stream_t *stream,
                              check_gate_t *gates) {
  const char *name = "device_api.host_buffer_free_on_return";
  const size_t chunk = BP_COPY_STAGING_CHUNK;
  const size_t sizes[STAGED_SIZES] = {1,
                                      4099,
                                      chunk - 1,
                                      chunk,
                                      chunk + 1,
                                      3 * chunk + 7,
                                      ctx->quick ? 9 * chunk : 20 * chunk + 3};
  bp_device_t *device = ctx->devices[0];
  void *d = NULL;
  bp_status_t status = bp_device_malloc(device, sizes[STAGED_SIZES - 1], &d);
  if (status != BP_OK) {
    check_fail_call(ctx, name, "bp_device_malloc", status);
    return;
  }
  for (size_t s = 0; s < STAGED_SIZES; ++s) {
    const char *why =
        staged_round_trip(ctx, stream, &gates[s], d, sizes[s], s, &status);
    if (why) {
      if (status != BP_OK)
        check_fail_call(ctx, name, "bp_copy", status);
      else
        check_fail(ctx, name, "%zu bytes: %s", sizes[s], why);
      break;
    }
    if (s + 1 == STAGED_SIZES)
      check_pass(
          ctx, name, "h2d and d2h from 1 B to %zu B, buffers reused at once%s",
          sizes[s],
          ctx->streams == CHECK_STREAMS_ASYNCHRONOUS ? ", stream held back"
                                                     : "");
  }
  /* Device memory goes once the stream is done with it. */
  if (bp_stream_synchronize(stream) == BP_OK)
    bp_device_free(device, d);
}

void check_staged_copies(check_ctx_t *ctx) {
  check_gate_t gates[STAGED_SIZES];
  for (size_t s = 0; s < STAGED_SIZES; ++s)
    check_gate_init(&gates[s], GATE_DEADLINE_MS);
  bp_stream_t *stream = NULL;
  bp_status_t status = bp_stream_create(ctx->devices[0], &stream);
  if (status != BP_OK)
    check_fail_call(ctx, "device_api.host_buffer_free_on_return",
                    "bp_stream_create", status);
  else
    run_staged_copies(ctx, stream, gates);
  for (size_t s = 0; s < STAGED_SIZES; ++s)
    check_gate_open(&gates[s]);
  /* The gates outlive the stream that may still run their callbacks. */
  if (!stream || check_stream_destroy(stream) == BP_OK)
    for (size_t s = 0; s < STAGED_SIZES; ++s)
      check_gate_destroy(&gates[s]);
}

/* bp_copy_tensor on the first device: a 2-d tensor into a pitched one on
 * the device (no host round trip), a transposed host view in and out. */
void check_tensor_copies(check_ctx_t *ctx) {
  const char *name = "device_api.tensor_copies";
  enum { ROWS = 33, COLS = 17, PITCH = 24 };
  bp_device_t *device = ctx->devices[0];
  DLDevice dl = bp_device_to_dl(device), host = {kDLCPU, 0};
  DLDataType i32 = {kDLInt, 32, 1};
  int32_t in[ROWS * COLS], out[ROWS * PITCH], back[COLS * ROWS];
  for (int i = 0; i < ROWS * COLS; ++i)
    in[i] = i * 3 + 1;
  void *a = NULL, *b = NULL;
  bp_status_t status = bp_device_malloc(device, sizeof in, &a);
  if (status == BP_OK)
    status = bp_device_malloc(device, sizeof out, &b);
  if (status == BP_OK)
    status = bp_memset(device, b, 0xff, sizeof out, NULL);
  int64_t shape[2] = {ROWS, COLS}, pitched[2] = {PITCH, 1};
  int64_t transposed_shape[2] = {COLS, ROWS}, transposed[2] = {1, COLS};
  DLTensor h_in = {in, host, 2, i32, shape, NULL, 0};
  DLTensor d_a = {a, dl, 2, i32, shape, NULL, 0};
  DLTensor d_b = {b, dl, 2, i32, shape, pitched, 0};
  DLTensor d_a_t = {a, dl, 2, i32, transposed_shape, transposed, 0};
  DLTensor h_back = {back, host, 2, i32, transposed_shape, NULL, 0};
  if (status == BP_OK)
    status = bp_copy_tensor(ctx->runtime, &h_in, &d_a, NULL);
  if (status == BP_OK)
    status = bp_copy_tensor(ctx->runtime, &d_a, &d_b, NULL);
  if (status == BP_OK)
    status = bp_copy(NULL, out, device, b, sizeof out, NULL);
  if (status == BP_OK)
    status = bp_copy_tensor(ctx->runtime, &d_a_t, &h_back, NULL);
  if (status != BP_OK) {
    check_fail_call(ctx, name, "bp_copy_tensor", status);
  } else {
    int bad = -1;
    for (int r = 0; r < ROWS && bad < 0; ++r)
      for (int c = 0; c < PITCH && bad < 0; ++c)
        if (out[r * PITCH + c] != (c < COLS ? in[r * COLS + c] : -1))
          bad = r * PITCH + c;
    for (int c = 0; c < COLS && bad < 0; ++c)
      for (int r = 0; r < ROWS && bad < 0; ++r)
        if (back[c * ROWS + r] != in[r * COLS + c])
          bad = 100000 + c * ROWS + r;
    if (bad >= 0)
      check_fail(ctx, name, "element %d is wrong (%s)", bad % 100000,
                 bad >= 100000 ? "transposed read" : "pitched device copy");
    else
      check_pass(ctx, name, "compact, pitched and transposed int32 tensors");
  }
  bp_device_free(device, a);
  bp_device_free(device, b);
}
