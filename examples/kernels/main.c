/*
 * Seed 004's custom communication operators on Backplane, host side: two
 * ranks (two vcpu devices of this process, one host thread each; or, with
 * --processes, two processes of one device each) load the op-info manifest,
 * prepare the kernel's resource context for their communicator, and launch:
 *
 *   kernels_example p2p  <kernels.json> [--processes]
 *       rank 0 sends, rank 1 receives
 *   kernels_example ring <kernels.json> [--processes]
 *       custom ring all-reduce, checked against bp_comm_all_reduce
 *
 * Each rank, step for step like the seed: record notify 0 on its stream,
 * launch the op's kernel with its parameter block (tag, communicator name,
 * input/output, count, data type, op type, resource context) and a timeout,
 * wait-and-reset notify 1 on the stream with a timeout, synchronize, check.
 * Exits 0 only when the data arrived.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backplane/backplane.h"
#include "op_param.h"

#define NRANKS 2
#define COUNT 4096

#define CHECK(call)                                                            \
  do {                                                                         \
    bp_status_t check_status_ = (call);                                        \
    if (check_status_ != BP_OK) {                                              \
      fprintf(stderr, "rank %zu: %s failed: %s: %s\n", rank->index, #call,     \
              bp_status_name(check_status_), bp_last_error());                 \
      goto cleanup;                                                            \
    }                                                                          \
  } while (0)

typedef struct rank {
  size_t index;
  bp_device_t *device;
  bp_comm_t *comm;
  const char *manifest;
  int ring;      /* else p2p */
  float *result; /* host copy of the output */
  int ok;
} rank_t;

static float input_value(size_t rank, size_t i) {
  return (float)((rank + 1) * 1000 + i % 997);
}

/* Rank 1 must hold rank 0's input; rank 0 has nothing to check. */
static int check_p2p(const rank_t *rank) {
  for (size_t i = 0; rank->index == 1 && i < COUNT; ++i)
    if (rank->result[i] != input_value(0, i)) {
      fprintf(stderr, "p2p: element %zu is %g, sent %g\n", i,
              (double)rank->result[i], (double)input_value(0, i));
      return 0;
    }
  if (rank->index == 1)
    printf("p2p: %d floats sent by rank 0 arrived at rank 1\n", COUNT);
  return 1;
}

/* The built-in all-reduce of the same input (every rank calls it) must
 * give this rank's kernel result. */
static int check_ring(const rank_t *rank, bp_stream_t *stream, void *input) {
  size_t bytes = COUNT * sizeof(float);
  float *expected = malloc(bytes);
  int ok =
      expected &&
      bp_comm_all_reduce(input, input, COUNT, BP_DTYPE_FLOAT32, BP_REDUCE_SUM,
                         rank->comm, stream) == BP_OK &&
      bp_copy(NULL, expected, rank->device, input, bytes, stream) == BP_OK &&
      bp_stream_synchronize(stream) == BP_OK;
  if (!ok)
    fprintf(stderr, "rank %zu: built-in all_reduce failed: %s\n", rank->index,
            bp_last_error());
  for (size_t i = 0; ok && i < COUNT; ++i)
    if (rank->result[i] != expected[i]) {
      fprintf(stderr, "ring: rank %zu element %zu is %g, all_reduce %g\n",
              rank->index, i, (double)rank->result[i], (double)expected[i]);
      ok = 0;
    }
  free(expected);
  if (ok)
    printf("ring all-reduce kernel: rank %zu's %d floats match "
           "bp_comm_all_reduce\n",
           rank->index, COUNT);
  return ok;
}

static void *run_rank(void *arg) {
  rank_t *rank = arg;
  bp_device_t *device = rank->device;
  bp_module_t *module = NULL;
  bp_stream_t *stream = NULL;
  bp_notify_t *notifies[2] = {NULL, NULL};
  void *input = NULL, *output = NULL, *comm_buffer = NULL, *resources = NULL;
  size_t bytes = COUNT * sizeof(float);
  size_t comm_bytes = (NRANKS - 1) * bytes;

  CHECK(bp_module_load(device, rank->manifest, &module));
  bp_function_t *function = NULL;
  CHECK(bp_module_function(
      module, rank->ring ? "CustomRingAllReduce" : "CustomP2P", &function));
  CHECK(bp_stream_create(device, &stream));
  CHECK(bp_notify_create(device, &notifies[0]));
  CHECK(bp_notify_create(device, &notifies[1]));
  uint32_t ids[2];
  CHECK(bp_notify_id(notifies[0], &ids[0]));
  CHECK(bp_notify_id(notifies[1], &ids[1]));
  CHECK(bp_device_malloc(device, bytes, &input));
  CHECK(bp_device_malloc(device, bytes, &output));
  CHECK(bp_device_malloc(device, comm_bytes, &comm_buffer));
  CHECK(bp_device_malloc(device, sizeof(bp_kernel_resources_t), &resources));

  float *host = malloc(bytes);
  for (size_t i = 0; host && i < COUNT; ++i)
    host[i] = input_value(rank->index, i);
  bp_status_t copied = host ? bp_copy(device, input, NULL, host, bytes, NULL)
                            : BP_ERR_OUT_OF_MEMORY;
  free(host);
  CHECK(copied);
  CHECK(bp_memset(device, output, 0, bytes, stream));

  /* Once per communicator: the resource context, in device memory. Every
   * rank calls this (it waits for the others' buffers). */
  bp_kernel_resources_t context;
  CHECK(bp_comm_kernel_resources(rank->comm, "example-world", comm_buffer,
                                 comm_bytes, ids, 2, &context));
  CHECK(bp_copy(device, resources, NULL, &context, sizeof context, stream));

  op_param param;
  memset(&param, 0, sizeof param);
  snprintf(param.tag, sizeof param.tag, "%s-%zu", rank->ring ? "ring" : "p2p",
           rank->index);
  snprintf(param.comm_name, sizeof param.comm_name, "example-world");
  param.input = input;
  param.output = output;
  param.count = COUNT;
  param.data_type = BP_DTYPE_FLOAT32;
  param.op_type =
      rank->ring ? OP_ALL_REDUCE : (rank->index == 0 ? OP_SEND : OP_RECEIVE);
  param.peer = (uint32_t)(1 - rank->index);
  param.resources = resources;

  /* The host stream tells the device thread to start ... */
  CHECK(bp_notify_record(notifies[0], stream));
  bp_launch_config_t config = {.timeout_ms = 27 * 68 * 1000};
  CHECK(bp_launch(function, 1, &param, sizeof param, &config, stream));
  /* ... and waits for the device thread's notify. */
  CHECK(bp_notify_wait(notifies[1], stream, CUSTOM_TIMEOUT_MS));
  CHECK(bp_copy(NULL, rank->result, device, output, bytes, stream));
  CHECK(bp_stream_synchronize(stream));
  rank->ok = rank->ring ? check_ring(rank, stream, input) : check_p2p(rank);

cleanup:
  bp_device_free(device, resources);
  bp_device_free(device, comm_buffer);
  bp_device_free(device, output);
  bp_device_free(device, input);
  bp_notify_destroy(notifies[1]);
  bp_notify_destroy(notifies[0]);
  bp_stream_destroy(stream);
  bp_module_unload(module);
  return NULL;
}

/* Both ranks in this process: two devices, one thread each. */
static int run_threads(bp_runtime_t *runtime, const char *manifest, int ring) {
  rank_t ranks[NRANKS];
  bp_device_t *devices[NRANKS];
  bp_comm_t *comms[NRANKS];
  int ok = 1;
  for (size_t r = 0; r < NRANKS; ++r)
    ok &= bp_device_get(runtime, "vcpu", r, &devices[r]) == BP_OK;
  if (!ok || bp_comm_init_all(devices, NRANKS, comms) != BP_OK) {
    fprintf(stderr, "setup: %s\n", bp_last_error());
    return 0;
  }
  pthread_t threads[NRANKS];
  for (size_t r = 0; r < NRANKS; ++r) {
    ranks[r] = (rank_t){.index = r,
                        .device = devices[r],
                        .comm = comms[r],
                        .manifest = manifest,
                        .ring = ring,
                        .result = calloc(COUNT, sizeof(float))};
    pthread_create(&threads[r], NULL, run_rank, &ranks[r]);
  }
  for (size_t r = 0; r < NRANKS; ++r) {
    pthread_join(threads[r], NULL);
    ok &= ranks[r].ok;
    free(ranks[r].result);
    bp_comm_destroy(comms[r]);
  }
  return ok;
}

/* One rank in this process, on its device `index`; the communicator's id
 * comes from rank 0 over `pipe_fds`. */
static int run_process(size_t index, int pipe_fds[2], const char *manifest,
                       int ring) {
  bp_runtime_t *runtime = NULL;
  if (bp_runtime_create(NULL, &runtime) != BP_OK) {
    fprintf(stderr, "rank %zu: runtime: %s\n", index, bp_last_error());
    return 0;
  }
  rank_t rank = {.index = index,
                 .manifest = manifest,
                 .ring = ring,
                 .result = calloc(COUNT, sizeof(float))};
  unsigned char id[4096];
  size_t id_size = 0;
  int ok = bp_device_get(runtime, "vcpu", index, &rank.device) == BP_OK &&
           bp_comm_unique_id_size(rank.device, &id_size) == BP_OK &&
           id_size <= sizeof id;
  if (ok && index == 0)
    ok = bp_comm_get_unique_id(rank.device, id, id_size) == BP_OK &&
         write(pipe_fds[1], id, id_size) == (ssize_t)id_size;
  else if (ok)
    ok = read(pipe_fds[0], id, id_size) == (ssize_t)id_size;
  ok = ok && bp_comm_init_rank(rank.device, NRANKS, id, id_size, index,
                               &rank.comm) == BP_OK;
  if (!ok)
    fprintf(stderr, "rank %zu: setup: %s\n", index, bp_last_error());
  else
    run_rank(&rank);
  ok = ok && rank.ok;
  bp_comm_destroy(rank.comm);
  free(rank.result);
  bp_runtime_destroy(runtime);
  return ok;
}

int main(int argc, char **argv) {
  int processes = argc == 4 && strcmp(argv[3], "--processes") == 0;
  if ((argc != 3 && !processes) ||
      (strcmp(argv[1], "p2p") && strcmp(argv[1], "ring"))) {
    fprintf(stderr, "usage: %s p2p|ring <kernels.json> [--processes]\n",
            argv[0]);
    return 2;
  }
  int ring = strcmp(argv[1], "ring") == 0;
  if (processes) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
      return 1;
    pid_t child = fork();
    if (child == 0) {
      int ok = run_process(1, pipe_fds, argv[2], ring);
      fflush(NULL); /* _exit does not flush stdio */
      _exit(ok ? 0 : 1);
    }
    int ok = child > 0 && run_process(0, pipe_fds, argv[2], ring);
    int status = 1;
    if (child > 0)
      waitpid(child, &status, 0);
    return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
  }
  bp_runtime_t *runtime = NULL;
  if (bp_runtime_create(NULL, &runtime) != BP_OK) {
    fprintf(stderr, "runtime: %s\n", bp_last_error());
    return 1;
  }
  int ok = run_threads(runtime, argv[2], ring);
  bp_runtime_destroy(runtime);
  return ok ? 0 : 1;
}
