/* Runtimes created and destroyed on several threads at once, each loading
 * the vcpu and the opencl plugin (whose InitPlugin both fill their
 * collective slots from vcpu's comm library) and running a one-rank
 * all-reduce on a device of each: runtime creation is safe from any thread
 * (docs/framework-guide.md), so this must be clean under ThreadSanitizer and
 * every result right. OpenCL devices are used where an OpenCL platform
 * exists (POCL in CI); without one the opencl plugin is rejected and only
 * vcpu runs, said on stdout. */
#include <pthread.h>
#include <stdio.h>

#include "support/runtime_fixture.h"

enum { THREADS = 4, ROUNDS = 3, COUNT = 64 };

typedef struct worker {
  int index;
  bp_status_t status;
  char failure[512];
  size_t opencl_runs;
} worker_t;

static bp_status_t note(worker_t *w, bp_status_t status, const char *what) {
  if (status != BP_OK && w->status == BP_OK) {
    w->status = status;
    snprintf(w->failure, sizeof w->failure, "thread %d: %s: %s", w->index, what,
             bp_last_error());
  }
  return status;
}

/* A one-rank all-reduce (sum) on the first device of `type`: the output is
 * the input. BP_ERR_NOT_FOUND when the runtime has no such device. */
static bp_status_t one_rank_all_reduce(worker_t *w, bp_runtime_t *runtime,
                                       const char *type) {
  bp_device_t *device = NULL;
  if (bp_device_get(runtime, type, 0, &device) != BP_OK)
    return BP_ERR_NOT_FOUND;
  float in[COUNT], out[COUNT] = {0};
  for (int i = 0; i < COUNT; ++i)
    in[i] = (float)(w->index * 1000 + i);
  bp_stream_t *stream = NULL;
  bp_comm_t *comm = NULL;
  void *send = NULL, *recv = NULL;
  bp_status_t status =
      note(w, bp_stream_create(device, &stream), "bp_stream_create");
  if (status == BP_OK)
    status = note(w, bp_comm_init_all(&device, 1, &comm), "bp_comm_init_all");
  if (status == BP_OK)
    status = note(w, bp_device_malloc(device, sizeof in, &send), "malloc");
  if (status == BP_OK)
    status = note(w, bp_device_malloc(device, sizeof out, &recv), "malloc");
  if (status == BP_OK)
    status = note(w, bp_copy(device, send, NULL, in, sizeof in, NULL), "copy");
  if (status == BP_OK)
    status = note(w,
                  bp_comm_all_reduce(send, recv, COUNT, BP_DTYPE_FLOAT32,
                                     BP_REDUCE_SUM, comm, stream),
                  "bp_comm_all_reduce");
  if (status == BP_OK)
    status = note(w, bp_stream_synchronize(stream), "synchronize");
  if (status == BP_OK)
    status =
        note(w, bp_copy(NULL, out, device, recv, sizeof out, NULL), "copy");
  if (status == BP_OK && memcmp(in, out, sizeof in) != 0)
    status = note(w, BP_ERR_INTERNAL, "the all-reduce's output differs");
  if (comm)
    note(w, bp_comm_destroy(comm), "bp_comm_destroy");
  bp_device_free(device, send);
  bp_device_free(device, recv);
  if (stream)
    note(w, bp_stream_destroy(stream), "bp_stream_destroy");
  return status;
}

static void *create_use_destroy(void *arg) {
  worker_t *w = arg;
  bp_runtime_options_t options =
      fixture_options(BP_VCPU_PLUGIN ":" BP_OPENCL_PLUGIN);
  for (int round = 0; round < ROUNDS && w->status == BP_OK; ++round) {
    bp_runtime_t *runtime = NULL;
    if (note(w, bp_runtime_create(&options, &runtime), "bp_runtime_create") !=
        BP_OK)
      break;
    if (one_rank_all_reduce(w, runtime, "vcpu") == BP_ERR_NOT_FOUND)
      note(w, BP_ERR_NOT_FOUND, "no vcpu device");
    if (one_rank_all_reduce(w, runtime, "opencl") == BP_OK)
      w->opencl_runs++;
    bp_runtime_destroy(runtime);
  }
  return NULL;
}

static void runtimes_are_created_concurrently_with_both_plugins(void **state) {
  (void)state;
  pthread_t threads[THREADS];
  worker_t workers[THREADS] = {{0}};
  for (int i = 0; i < THREADS; ++i) {
    workers[i].index = i;
    assert_int_equal(
        pthread_create(&threads[i], NULL, create_use_destroy, &workers[i]), 0);
  }
  size_t opencl_runs = 0;
  for (int i = 0; i < THREADS; ++i) {
    assert_int_equal(pthread_join(threads[i], NULL), 0);
    if (workers[i].status != BP_OK)
      fail_msg("%s", workers[i].failure);
    opencl_runs += workers[i].opencl_runs;
  }
  printf("%d threads x %d runtimes; all-reduce on opencl in %zu of them%s\n",
         THREADS, ROUNDS, opencl_runs,
         opencl_runs ? "" : " (no OpenCL platform: vcpu only)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(runtimes_are_created_concurrently_with_both_plugins),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
