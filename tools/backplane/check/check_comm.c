/* Collectives: for a plugin with xccl_* functions and at least two devices,
 * one communicator per device made with bp_comm_init_all, each rank driven
 * by a thread of its own, and every result compared with a reference
 * computed here on the host, so a collective that returns success without
 * moving data (Paddle's custom_cpu all_reduce is a barrier) FAILs. Each
 * check SKIPs, with the reason, when the plugin lacks the functions it needs
 * or has a single device. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/comm.h"
#include "backplane/device_ext.h"
#include "check.h"
#include "check_pool.h"
#include "check_report.h"

enum {
  MAX_RANKS = 8,
  COUNT = 1031, /* elements per rank: odd, not a multiple of any block */
  POISON = -7,  /* what output buffers hold before a collective */
  ERROR_BYTES = 512,
};

typedef enum comm_kind {
  KIND_ALL_REDUCE,
  KIND_BROADCAST,
  KIND_ALL_GATHER,
  KIND_REDUCE_SCATTER,
  KIND_SEND_RECV,
} comm_kind;

/* One world over the plugin's first `n` devices; buffers hold n * COUNT
 * float32 each. */
typedef struct comm_world {
  check_ctx_t *ctx;
  size_t n;
  bp_comm_t *comms[MAX_RANKS];
  bp_stream_t *streams[MAX_RANKS];
  float *send[MAX_RANKS], *recv[MAX_RANKS];
} comm_world;

typedef struct rank_job {
  comm_world *world;
  comm_kind kind;
  int in_place;
  size_t rank;
  bp_status_t status;
  char error[ERROR_BYTES];
} rank_job;

/* Rank r's input element j: small integers, so float sums are exact. */
static float input_of(size_t rank, size_t j) {
  return (float)((rank + 1) * 3 + j % 13);
}

/* The rank that broadcasts. */
static size_t root_of(const comm_world *w) {
  return w->n - 1;
}

/* SKIPs `name` and returns false when the plugin lacks communicators, or
 * `function_name` (NULL: only communicators are needed) is not `provided`,
 * or there is a single device. */
static bool can_run(check_ctx_t *ctx, const char *name, bool provided,
                    const char *function_name) {
  const C_DeviceInterface *d = ctx->dispatch;
  if (!d->xccl_get_unique_id_size || !d->xccl_get_unique_id ||
      !d->xccl_comm_init_rank) {
    check_skip(ctx, name, "the plugin provides no collectives");
    return false;
  }
  if (function_name != NULL && !provided) {
    check_skip(ctx, name, "the plugin lacks %s", function_name);
    return false;
  }
  if (ctx->device_count < 2) {
    check_skip(ctx, name, "a single device: nothing to communicate with");
    return false;
  }
  return true;
}

static void world_close(comm_world *w) {
  for (size_t r = 0; r < w->n; r++) {
    bp_device_t *device = w->ctx->devices[r];
    if (w->streams[r])
      bp_stream_synchronize(w->streams[r]);
    bp_comm_destroy(w->comms[r]);
    if (w->send[r])
      bp_device_free(device, w->send[r]);
    if (w->recv[r])
      bp_device_free(device, w->recv[r]);
    if (w->streams[r])
      check_stream_destroy(w->streams[r]);
  }
}

/* Communicators, streams and buffers on every device (up to MAX_RANKS);
 * FAILs `name` and returns false if any is refused. */
static bool world_open(check_ctx_t *ctx, const char *name, comm_world *w) {
  *w = (comm_world){.ctx = ctx};
  w->n = ctx->device_count < MAX_RANKS ? ctx->device_count : MAX_RANKS;
  size_t bytes = w->n * COUNT * sizeof(float);
  bp_status_t status = BP_OK;
  const char *call = "bp_stream_create";
  for (size_t r = 0; r < w->n && status == BP_OK; r++) {
    status = bp_stream_create(ctx->devices[r], &w->streams[r]);
    if (status == BP_OK && (call = "bp_device_malloc"))
      status = bp_device_malloc(ctx->devices[r], bytes, (void **)&w->send[r]);
    if (status == BP_OK)
      status = bp_device_malloc(ctx->devices[r], bytes, (void **)&w->recv[r]);
  }
  if (status == BP_OK && (call = "bp_comm_init_all"))
    status = bp_comm_init_all(ctx->devices, w->n, w->comms);
  if (status != BP_OK) {
    check_fail_call(ctx, name, call, status);
    world_close(w);
    return false;
  }
  return true;
}

/* Issues rank job->rank's part of the collective and waits for it. */
static bp_status_t issue(rank_job *job) {
  comm_world *w = job->world;
  size_t r = job->rank, n = w->n;
  bp_comm_t *comm = w->comms[r];
  bp_stream_t *stream = w->streams[r];
  float *send = job->in_place ? w->recv[r] : w->send[r];
  switch (job->kind) {
  case KIND_ALL_REDUCE:
    return bp_comm_all_reduce(send, w->recv[r], COUNT, BP_DTYPE_FLOAT32,
                              BP_REDUCE_SUM, comm, stream);
  case KIND_BROADCAST:
    return bp_comm_broadcast(w->recv[r], COUNT, BP_DTYPE_FLOAT32, root_of(w),
                             comm, stream);
  case KIND_ALL_GATHER:
    return bp_comm_all_gather(send, w->recv[r], COUNT, BP_DTYPE_FLOAT32, comm,
                              stream);
  case KIND_REDUCE_SCATTER:
    return bp_comm_reduce_scatter(w->send[r], w->recv[r], COUNT,
                                  BP_DTYPE_FLOAT32, BP_REDUCE_SUM, comm,
                                  stream);
  case KIND_SEND_RECV: {
    bp_runtime_t *runtime = w->ctx->runtime;
    bp_status_t status = bp_comm_group_start(runtime);
    if (status == BP_OK)
      status = bp_comm_send(w->send[r], COUNT, BP_DTYPE_FLOAT32, (r + 1) % n,
                            comm, stream);
    if (status == BP_OK)
      status = bp_comm_recv(w->recv[r], COUNT, BP_DTYPE_FLOAT32,
                            (r + n - 1) % n, comm, stream);
    bp_status_t ended = bp_comm_group_end(runtime);
    return status != BP_OK ? status : ended;
  }
  }
  return BP_ERR_INTERNAL;
}

static void *rank_main(void *argument) {
  rank_job *job = argument;
  bp_status_t status = issue(job);
  if (status == BP_OK)
    status = bp_stream_synchronize(job->world->streams[job->rank]);
  if (status == BP_OK) { /* the query is an optional extension */
    status = bp_comm_async_error(job->world->comms[job->rank]);
    if (status == BP_ERR_UNSUPPORTED)
      status = BP_OK;
  }
  job->status = status;
  if (status != BP_OK) {
    snprintf(job->error, sizeof job->error, "%s", bp_last_error());
    /* The peers would wait for this rank until the collective deadline. */
    for (size_t r = 0; r < job->world->n; r++)
      bp_comm_abort(job->world->comms[r]);
  }
  return NULL;
}

/* What rank r's recv buffer must hold afterwards; returns its length. */
static size_t expected(const comm_world *w, comm_kind kind, size_t r,
                       float *out) {
  size_t n = w->n;
  switch (kind) {
  case KIND_ALL_REDUCE:
  case KIND_REDUCE_SCATTER: {
    size_t base = kind == KIND_REDUCE_SCATTER ? r * COUNT : 0;
    for (size_t i = 0; i < COUNT; i++) {
      out[i] = 0;
      for (size_t p = 0; p < n; p++)
        out[i] += input_of(p, base + i);
    }
    return COUNT;
  }
  case KIND_BROADCAST:
    for (size_t i = 0; i < COUNT; i++)
      out[i] = input_of(root_of(w), i);
    return COUNT;
  case KIND_ALL_GATHER:
    for (size_t p = 0; p < n; p++)
      for (size_t i = 0; i < COUNT; i++)
        out[p * COUNT + i] = input_of(p, i);
    return n * COUNT;
  case KIND_SEND_RECV:
    for (size_t i = 0; i < COUNT; i++)
      out[i] = input_of((r + n - 1) % n, i);
    return COUNT;
  }
  return 0;
}

/* Fills the ranks' buffers: send with their inputs; recv with the inputs
 * when the call works in place (the data is in recv), POISON otherwise. */
static bp_status_t fill(comm_world *w, comm_kind kind, int in_place,
                        float *host) {
  size_t total = w->n * COUNT;
  bool inputs_in_recv = in_place || kind == KIND_BROADCAST;
  bp_status_t status = BP_OK;
  for (size_t r = 0; r < w->n && status == BP_OK; r++) {
    for (size_t j = 0; j < total; j++)
      host[j] = input_of(r, j);
    bp_device_t *device = w->ctx->devices[r];
    status =
        bp_copy(device, w->send[r], NULL, host, total * sizeof(float), NULL);
    if (!inputs_in_recv)
      for (size_t j = 0; j < total; j++)
        host[j] = POISON;
    if (status == BP_OK)
      status =
          bp_copy(device, w->recv[r], NULL, host, total * sizeof(float), NULL);
  }
  return status;
}

/* The rank whose failure made the others abort, or any failed one. */
static const rank_job *first_failure(const rank_job *jobs, size_t count) {
  const rank_job *failed = NULL;
  for (size_t r = count; r-- > 0;)
    if (jobs[r].status != BP_OK &&
        (!failed || jobs[r].status != BP_ERR_ABORTED))
      failed = &jobs[r];
  return failed;
}

/* Runs one collective on every rank of a fresh world and compares every
 * rank's result with the host reference. */
static void run_case(check_ctx_t *ctx, const char *name, comm_kind kind,
                     int in_place, bool provided, const char *function_name) {
  if (!can_run(ctx, name, provided, function_name))
    return;
  comm_world w;
  if (!world_open(ctx, name, &w))
    return;
  size_t total = w.n * COUNT;
  float *host = malloc(total * sizeof(float));
  float *want = malloc(total * sizeof(float));
  if (host == NULL || want == NULL) {
    check_fail(ctx, name, "out of host memory");
  } else if (fill(&w, kind, in_place, host) != BP_OK) {
    check_fail(ctx, name, "filling the buffers failed: %s", bp_last_error());
  } else {
    rank_job jobs[MAX_RANKS];
    pthread_t threads[MAX_RANKS];
    size_t started = 0;
    for (; started < w.n; started++) {
      jobs[started] = (rank_job){&w, kind, in_place, started, BP_OK, ""};
      if (pthread_create(&threads[started], NULL, rank_main, &jobs[started]))
        break;
    }
    for (size_t r = 0; r < started; r++)
      pthread_join(threads[r], NULL);
    size_t wrong = 0, first_rank = 0, first_index = 0;
    float got_value = 0, want_value = 0;
    const rank_job *failed = NULL;
    for (size_t r = 0; r < started && failed == NULL; r++) {
      if (jobs[r].status != BP_OK) {
        failed = first_failure(jobs, started);
        continue;
      }
      size_t length = expected(&w, kind, r, want);
      if (bp_copy(NULL, host, ctx->devices[r], w.recv[r],
                  length * sizeof(float), NULL) != BP_OK) {
        jobs[r].status = BP_ERR_INTERNAL;
        snprintf(jobs[r].error, sizeof jobs[r].error, "reading the result: %s",
                 bp_last_error());
        failed = &jobs[r];
        continue;
      }
      for (size_t i = 0; i < length; i++) {
        if (host[i] != want[i] && wrong++ == 0) {
          first_rank = r;
          first_index = i;
          got_value = host[i];
          want_value = want[i];
        }
      }
    }
    if (started < w.n)
      check_fail(ctx, name, "cannot start a thread per rank");
    else if (failed != NULL)
      check_fail(ctx, name, "rank %zu: %s: %s", failed->rank,
                 bp_status_name(failed->status), failed->error);
    else if (wrong != 0)
      check_fail(ctx, name,
                 "%zu wrong elements over %zu ranks; first: rank %zu "
                 "element %zu is %g, expected %g%s",
                 wrong, w.n, first_rank, first_index, (double)got_value,
                 (double)want_value,
                 got_value == POISON ||
                         got_value == input_of(first_rank, first_index)
                     ? " (the data did not move)"
                     : "");
    else
      check_pass(ctx, name, "%zu ranks x %d float32, every element right", w.n,
                 COUNT);
  }
  free(host);
  free(want);
  world_close(&w);
}

void check_comm_init(check_ctx_t *ctx) {
  const char *name = "collectives.init";
  if (!can_run(ctx, name, true, NULL))
    return;
  size_t size = 0;
  bp_status_t status = bp_comm_unique_id_size(ctx->devices[0], &size);
  if (status != BP_OK) {
    check_fail_call(ctx, name, "bp_comm_unique_id_size", status);
    return;
  }
  unsigned char *a = calloc(1, size ? size : 1);
  unsigned char *b = calloc(1, size ? size : 1);
  if (a == NULL || b == NULL) {
    check_fail(ctx, name, "out of host memory");
  } else if (size == 0) {
    check_fail(ctx, name, "the unique id has 0 bytes");
  } else if ((status = bp_comm_get_unique_id(ctx->devices[0], a, size)) !=
                 BP_OK ||
             (status = bp_comm_get_unique_id(ctx->devices[0], b, size)) !=
                 BP_OK) {
    check_fail_call(ctx, name, "bp_comm_get_unique_id", status);
  } else if (memcmp(a, b, size) == 0) {
    check_fail(ctx, name, "two unique ids are the same %zu bytes", size);
  } else {
    comm_world w;
    if (world_open(ctx, name, &w)) {
      size_t bad = w.n;
      for (size_t r = 0; r < w.n && bad == w.n; r++)
        if (bp_comm_rank(w.comms[r]) != r || bp_comm_size(w.comms[r]) != w.n)
          bad = r;
      if (bad != w.n)
        check_fail(ctx, name, "communicator %zu says rank %zu of %zu", bad,
                   bp_comm_rank(w.comms[bad]), bp_comm_size(w.comms[bad]));
      else
        check_pass(ctx, name,
                   "%zu-byte unique ids differ; one communicator per "
                   "device on %zu devices",
                   size, w.n);
      world_close(&w);
    }
  }
  free(a);
  free(b);
}

void check_comm_all_reduce(check_ctx_t *ctx) {
  bool f = ctx->dispatch->xccl_all_reduce != NULL;
  run_case(ctx, "collectives.all_reduce", KIND_ALL_REDUCE, 0, f,
           "xccl_all_reduce");
  run_case(ctx, "collectives.all_reduce.in_place", KIND_ALL_REDUCE, 1, f,
           "xccl_all_reduce");
}

void check_comm_broadcast(check_ctx_t *ctx) {
  run_case(ctx, "collectives.broadcast", KIND_BROADCAST, 1,
           ctx->dispatch->xccl_broadcast != NULL, "xccl_broadcast");
}

void check_comm_all_gather(check_ctx_t *ctx) {
  run_case(ctx, "collectives.all_gather", KIND_ALL_GATHER, 0,
           ctx->dispatch->xccl_all_gather != NULL, "xccl_all_gather");
}

void check_comm_reduce_scatter(check_ctx_t *ctx) {
  run_case(ctx, "collectives.reduce_scatter", KIND_REDUCE_SCATTER, 0,
           ctx->dispatch->xccl_reduce_scatter != NULL, "xccl_reduce_scatter");
}

void check_comm_send_recv(check_ctx_t *ctx) {
  const C_DeviceInterface *d = ctx->dispatch;
  run_case(ctx, "collectives.send_recv", KIND_SEND_RECV, 0,
           d->xccl_send && d->xccl_recv, "xccl_send or xccl_recv");
}
