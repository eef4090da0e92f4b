/*
 * Seed 004's custom communication operators on Backplane, host side: two
 * ranks (two vcpu devices of this process, one host thread each) load the
 * op-info manifest, prepare the kernel's resource context for their
 * communicator, and launch:
 *
 *   kernels_example p2p  <kernels.json>  rank 0 sends, rank 1 receives
 *   kernels_example ring <kernels.json>  custom ring all-reduce, checked
 *                                        against bp_comm_all_reduce
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
  rank->ok = 1;

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

/* The built-in all-reduce of the same inputs, into expected[rank]. */
static int builtin_all_reduce(rank_t *ranks, float *expected[NRANKS]) {
  int ok = 1;
  size_t bytes = COUNT * sizeof(float);
  void *buffers[NRANKS] = {NULL};
  bp_stream_t *streams[NRANKS] = {NULL};
  float *host = malloc(bytes);
  for (size_t r = 0; r < NRANKS && host; ++r) {
    for (size_t i = 0; i < COUNT; ++i)
      host[i] = input_value(r, i);
    ok &=
        bp_stream_create(ranks[r].device, &streams[r]) == BP_OK &&
        bp_device_malloc(ranks[r].device, bytes, &buffers[r]) == BP_OK &&
        bp_copy(ranks[r].device, buffers[r], NULL, host, bytes, NULL) == BP_OK;
  }
  free(host);
  for (size_t r = 0; r < NRANKS && ok; ++r)
    ok &= bp_comm_all_reduce(buffers[r], buffers[r], COUNT, BP_DTYPE_FLOAT32, BP_REDUCE_SUM,
                             ranks[r].comm, streams[r]) == BP_OK;
  for (size_t r = 0; r < NRANKS && ok; ++r)
    ok &= bp_copy(NULL, expected[r], ranks[r].device, buffers[r], bytes,
                  streams[r]) == BP_OK &&
          bp_stream_synchronize(streams[r]) == BP_OK;
  for (size_t r = 0; r < NRANKS; ++r) {
    bp_device_free(ranks[r].device, buffers[r]);
    bp_stream_destroy(streams[r]);
  }
  if (!ok)
    fprintf(stderr, "built-in all_reduce failed: %s\n", bp_last_error());
  return ok;
}

static int verify(rank_t *ranks) {
  if (!ranks[0].ok || !ranks[1].ok)
    return 0;
  if (!ranks[0].ring) {
    for (size_t i = 0; i < COUNT; ++i)
      if (ranks[1].result[i] != input_value(0, i)) {
        fprintf(stderr, "p2p: element %zu is %g, sent %g\n", i,
                (double)ranks[1].result[i], (double)input_value(0, i));
        return 0;
      }
    printf("p2p: %d floats sent by rank 0 arrived at rank 1\n", COUNT);
    return 1;
  }
  float *expected[NRANKS];
  int ok = 1;
  for (size_t r = 0; r < NRANKS; ++r)
    ok &= (expected[r] = malloc(COUNT * sizeof(float))) != NULL;
  ok = ok && builtin_all_reduce(ranks, expected);
  for (size_t r = 0; r < NRANKS && ok; ++r)
    for (size_t i = 0; i < COUNT && ok; ++i)
      if (ranks[r].result[i] != expected[r][i]) {
        fprintf(stderr, "ring: rank %zu element %zu is %g, all_reduce %g\n", r,
                i, (double)ranks[r].result[i], (double)expected[r][i]);
        ok = 0;
      }
  for (size_t r = 0; r < NRANKS; ++r)
    free(expected[r]);
  if (ok)
    printf("ring all-reduce kernel: %d floats on %d ranks match "
           "bp_comm_all_reduce\n",
           COUNT, NRANKS);
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "p2p") && strcmp(argv[1], "ring"))) {
    fprintf(stderr, "usage: %s p2p|ring <kernels.json>\n", argv[0]);
    return 2;
  }
  bp_runtime_t *runtime = NULL;
  if (bp_runtime_create(NULL, &runtime) != BP_OK) {
    fprintf(stderr, "runtime: %s\n", bp_last_error());
    return 1;
  }
  rank_t ranks[NRANKS];
  bp_device_t *devices[NRANKS];
  bp_comm_t *comms[NRANKS];
  int ok = 1;
  for (size_t r = 0; r < NRANKS; ++r)
    ok &= bp_device_get(runtime, "vcpu", r, &devices[r]) == BP_OK;
  ok = ok && bp_comm_init_all(devices, NRANKS, comms) == BP_OK;
  if (!ok) {
    fprintf(stderr, "setup: %s\n", bp_last_error());
    bp_runtime_destroy(runtime);
    return 1;
  }
  pthread_t threads[NRANKS];
  for (size_t r = 0; r < NRANKS; ++r) {
    ranks[r] = (rank_t){.index = r,
                        .device = devices[r],
                        .comm = comms[r],
                        .manifest = argv[2],
                        .ring = strcmp(argv[1], "ring") == 0,
                        .result = calloc(COUNT, sizeof(float))};
    pthread_create(&threads[r], NULL, run_rank, &ranks[r]);
  }
  for (size_t r = 0; r < NRANKS; ++r)
    pthread_join(threads[r], NULL);
  ok = verify(ranks);
  for (size_t r = 0; r < NRANKS; ++r) {
    free(ranks[r].result);
    bp_comm_destroy(comms[r]);
  }
  bp_runtime_destroy(runtime);
  return ok ? 0 : 1;
}
