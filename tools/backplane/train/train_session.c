/* A training session: the data, the op library, the ranks of this process,
 * and the step loop's bookkeeping (ring of steps in flight, epoch uploads,
 * time split). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"
#include "train_data.h"
#include "train_device.h"
#include "train_error.h"
#include "train_layers.h"
#include "train_model.h"
#include "train_rank.h"
#include "train_rng.h"

#define NO_EPOCH SIZE_MAX

struct train_session {
  bp_runtime_t *runtime;
  train_config_t config;
  train_data_t data;
  bp_ops_library_t *library;
  train_ops_t ops;
  train_model_t model;
  size_t world, local, steps_per_epoch, total_steps;
  int64_t rank_batch;
  train_rank_t ranks[TRAIN_MAX_RANKS];

  size_t next_step;    /* steps enqueued */
  size_t first_step;   /* the first step this session enqueued */
  size_t retired;      /* steps whose times were added up */
  uint64_t rng;        /* the shuffling generator */
  uint64_t epoch_rng;  /* its state when the staged epoch was drawn */
  size_t staged_epoch; /* the epoch on the devices, or NO_EPOCH */
  uint32_t *order;     /* the staged epoch's sample order */
  float *staging_x;    /* host copy of the staged epoch */
  int64_t *staging_y;
  train_times_t times[TRAIN_MAX_RANKS];
};

#define CALL(what, call)                                                       \
  do {                                                                         \
    bp_status_t s_ = (call);                                                   \
    if (s_ != BP_OK)                                                           \
      return train_fail_call(s_, what);                                        \
  } while (0)

void train_config_defaults(train_config_t *config) {
  memset(config, 0, sizeof *config);
  config->local_ranks = 2;
  config->batch = 64;
  config->epochs = 20;
  config->lr = 2e-3f;
  config->weight_decay = 1e-2f;
  config->overlap = 1;
  config->model = "mlp";
}

size_t train_session_steps_per_epoch(const train_session_t *s) {
  return s->steps_per_epoch;
}
size_t train_session_total_steps(const train_session_t *s) {
  return s->total_steps;
}
size_t train_session_step_index(const train_session_t *s) {
  return s->next_step;
}
size_t train_session_param_count(const train_session_t *s) {
  return s->model.param_count;
}
size_t train_session_samples_per_step(const train_session_t *s) {
  return s->config.batch;
}
size_t train_session_world_size(const train_session_t *s) {
  return s->world;
}
size_t train_session_local_ranks(const train_session_t *s) {
  return s->local;
}
size_t train_session_first_rank(const train_session_t *s) {
  return s->config.first_rank;
}
const char *train_session_model(const train_session_t *s) {
  return s->model.description;
}
const char *train_session_device_type(const train_session_t *s) {
  return s->config.device_type;
}

bp_status_t train_config_check(const train_config_t *c) {
  train_model_t model;
  bp_status_t status = train_model_init(c->model, &model);
  if (status)
    return status;
  size_t world = c->world_size ? c->world_size : c->local_ranks;
  if (c->local_ranks < 1 || c->local_ranks > TRAIN_MAX_RANKS)
    return train_fail(BP_ERR_INVALID_ARGUMENT,
                      "%zu devices: a process drives 1 to %d", c->local_ranks,
                      TRAIN_MAX_RANKS);
  if (c->world_size && c->first_rank + c->local_ranks > c->world_size)
    return train_fail(BP_ERR_INVALID_ARGUMENT,
                      "ranks %zu..%zu do not fit a world of %zu", c->first_rank,
                      c->first_rank + c->local_ranks - 1, c->world_size);
  if (c->batch == 0 || c->batch % world != 0)
    return train_fail(BP_ERR_INVALID_ARGUMENT,
                      "batch %zu does not divide across %zu ranks (give a "
                      "multiple of %zu)",
                      c->batch, world, world);
  if (c->batch > TRAIN_DIGITS_SAMPLES - TRAIN_DIGITS_TEST)
    return train_fail(BP_ERR_INVALID_ARGUMENT,
                      "batch %zu is larger than the %d training samples",
                      c->batch, TRAIN_DIGITS_SAMPLES - TRAIN_DIGITS_TEST);
  if (c->epochs == 0)
    return train_fail(BP_ERR_INVALID_ARGUMENT, "epochs must be at least 1");
  return BP_OK;
}

static bp_status_t create_comms(train_session_t *s) {
  bp_comm_t *comms[TRAIN_MAX_RANKS];
  if (!s->config.world_size) {
    bp_device_t *devices[TRAIN_MAX_RANKS];
    for (size_t r = 0; r < s->local; r++)
      devices[r] = s->ranks[r].device;
    CALL("bp_comm_init_all", bp_comm_init_all(devices, s->local, comms));
  } else {
    CALL("bp_comm_group_start", bp_comm_group_start(s->runtime));
    bp_status_t status = BP_OK;
    size_t made = 0;
    for (; made < s->local && !status; made++)
      status = bp_comm_init_rank(s->ranks[made].device, s->world,
                                 s->config.comm_id, s->config.comm_id_size,
                                 s->config.first_rank + made, &comms[made]);
    bp_status_t end = bp_comm_group_end(s->runtime);
    if (status || end) {
      for (size_t r = 0; r + 1 < made; r++)
        bp_comm_destroy(comms[r]);
      return train_fail_call(status ? status : end, "bp_comm_init_rank");
    }
  }
  for (size_t r = 0; r < s->local; r++)
    s->ranks[r].comm = comms[r];
  return BP_OK;
}

static bp_status_t upload_params(train_session_t *s, const float *params) {
  size_t bytes = s->model.param_count * sizeof(float);
  for (size_t r = 0; r < s->local; r++) {
    train_rank_t *rank = &s->ranks[r];
    CALL("bp_stream_synchronize", bp_stream_synchronize(rank->compute));
    CALL("bp_copy",
         bp_copy(rank->device, rank->params, NULL, params, bytes, NULL));
  }
  return BP_OK;
}

static bp_status_t create(train_session_t *s, bp_runtime_t *runtime,
                          const train_config_t *config) {
  s->runtime = runtime;
  s->config = *config;
  s->local = config->local_ranks;
  s->world = config->world_size ? config->world_size : config->local_ranks;
  s->staged_epoch = NO_EPOCH;
  bp_status_t status = train_config_check(config);
  if (status)
    return status;
  const char *path = config->data_path ? config->data_path : TRAIN_DIGITS_PATH;
  if ((status = train_data_load(path, &s->data)))
    return status;
  s->rank_batch = (int64_t)(config->batch / s->world);
  s->steps_per_epoch = s->data.train_count / config->batch;
  s->total_steps = s->steps_per_epoch * config->epochs;
  s->rng = config->seed * 0x9e3779b97f4a7c15ull + 1;
  train_model_init(config->model, &s->model);
  if ((status = train_device_type_pick(runtime, config->device_type, s->local,
                                       &s->config.device_type)))
    return status;
  const char *ops_path = config->ops_path;
  bp_device_t *first_device = NULL;
  if (!ops_path &&
      bp_device_get(runtime, s->config.device_type, 0, &first_device) == BP_OK)
    ops_path = bp_ops_library_for_device(first_device);
  if (!ops_path)
    ops_path = config->reference_ops_path;
  if (!ops_path)
    return train_fail(BP_ERR_INVALID_ARGUMENT, "no op library given");
  /* Data parallelism already gives each rank a core: each op runs on its
   * stream's thread alone, unless the user says otherwise. */
  setenv("BACKPLANE_OPS_THREADS", "1", 0);
  CALL("bp_ops_library_open", bp_ops_library_open(ops_path, &s->library));
  if ((status = train_ops_find(s->library, &s->model, &s->ops)))
    return status;
  size_t capacity = s->steps_per_epoch * config->batch;
  s->order = malloc(sizeof(uint32_t) * s->data.train_count);
  s->staging_x = malloc(sizeof(float) * TRAIN_INPUTS * capacity);
  s->staging_y = malloc(sizeof(int64_t) * capacity);
  float *params = malloc(sizeof(float) * s->model.param_count);
  if (!s->order || !s->staging_x || !s->staging_y || !params) {
    free(params);
    return train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  /* Backplane's reference library runs its ops on the host. */
  bool reference = strncmp(bp_ops_library_vendor(s->library),
                           "Backplane reference", 19) == 0;
  for (size_t r = 0; r < s->local && !status; r++) {
    bp_device_t *device;
    bp_status_t found =
        bp_device_get(runtime, s->config.device_type, r, &device);
    if (found)
      status = train_fail(BP_ERR_NOT_FOUND,
                          "%zu devices asked for, but %s:%zu is not there (%s)",
                          s->local, s->config.device_type, r, bp_last_error());
    else if (reference && !train_device_host_addressable(device))
      status = train_fail(BP_ERR_UNSUPPORTED,
                          "the reference op library cannot serve %s: the "
                          "host cannot address its memory; give that "
                          "device's op library with --ops",
                          bp_device_name(device));
    else
      status = train_rank_create(&s->ranks[r], device, &s->ops, &s->model,
                                 s->rank_batch, config->first_rank + r,
                                 config->batch, s->steps_per_epoch, capacity);
  }
  if (!status)
    status = create_comms(s);
  if (!status) {
    train_model_init_params(&s->model, config->seed, params);
    status = upload_params(s, params);
  }
  free(params);
  return status;
}

bp_status_t train_session_create(bp_runtime_t *runtime,
                                 const train_config_t *config,
                                 train_session_t **out_session) {
  if (!runtime || !config || !out_session)
    return train_fail(BP_ERR_INVALID_ARGUMENT,
                      "train_session_create: NULL argument");
  train_session_t *s = calloc(1, sizeof *s);
  if (!s)
    return train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  bp_status_t status = create(s, runtime, config);
  if (status) {
    train_session_destroy(s);
    return status;
  }
  *out_session = s;
  return BP_OK;
}

void train_session_destroy(train_session_t *s) {
  if (!s)
    return;
  for (size_t r = 0; r < s->local; r++)
    if (s->ranks[r].device)
      train_rank_destroy(&s->ranks[r]);
  bp_ops_library_close(s->library);
  train_data_release(&s->data);
  free(s->order);
  free(s->staging_x);
  free(s->staging_y);
  free(s);
}

/* Draws the next epoch's order and uploads it to every rank. */
static bp_status_t stage_epoch(train_session_t *s, size_t epoch) {
  for (size_t r = 0; r < s->local; r++)
    CALL("bp_event_synchronize",
         bp_event_synchronize(s->ranks[r].epoch_staged));
  s->epoch_rng = s->rng;
  train_data_shuffle(&s->rng, s->order, s->data.train_count);
  size_t count = s->steps_per_epoch * s->config.batch;
  for (size_t i = 0; i < count; i++) {
    memcpy(s->staging_x + i * TRAIN_INPUTS,
           s->data.train_x + (size_t)s->order[i] * TRAIN_INPUTS,
           sizeof(float) * TRAIN_INPUTS);
    s->staging_y[i] = s->data.train_y[s->order[i]];
  }
  for (size_t r = 0; r < s->local; r++) {
    train_rank_t *rank = &s->ranks[r];
    CALL("bp_copy",
         bp_copy(rank->device, rank->epoch_x, NULL, s->staging_x,
                 count * TRAIN_INPUTS * sizeof(float), rank->compute));
    CALL("bp_copy", bp_copy(rank->device, rank->epoch_y, NULL, s->staging_y,
                            count * sizeof(int64_t), rank->compute));
    CALL("bp_event_record", bp_event_record(rank->epoch_staged, rank->compute));
  }
  s->staged_epoch = epoch;
  return BP_OK;
}

static double elapsed(bp_event_t *from, bp_event_t *to) {
  float ms = 0;
  return bp_event_elapsed_time(from, to, &ms) == BP_OK ? ms / 1e3 : 0;
}

/* Waits for step `step` on every rank and adds its times up. */
static bp_status_t retire(train_session_t *s, size_t step) {
  size_t slot = step % TRAIN_RING;
  for (size_t r = 0; r < s->local; r++) {
    train_step_events_t *e = &s->ranks[r].events[slot];
    CALL("bp_event_synchronize", bp_event_synchronize(e->end));
    double comm = 0;
    for (size_t l = 0; l < e->reduces; l++)
      comm += elapsed(e->comm_start[l], e->comm_end[l]);
    double gap = elapsed(e->backward_done, e->update_start);
    double wait = e->overlapped ? gap : gap - comm;
    train_times_t *t = &s->times[r];
    t->compute +=
        elapsed(e->start, e->backward_done) + elapsed(e->update_start, e->end);
    t->communication += comm;
    t->waiting += wait > 0 ? wait : 0;
  }
  s->retired = step + 1;
  return BP_OK;
}

static bp_status_t all_reduce(train_session_t *s, size_t offset, size_t count,
                              int on_comm_stream) {
  CALL("bp_comm_group_start", bp_comm_group_start(s->runtime));
  bp_status_t status = BP_OK;
  for (size_t r = 0; r < s->local && !status; r++) {
    train_rank_t *rank = &s->ranks[r];
    float *g = rank->grads + offset;
    status = bp_comm_all_reduce(
        g, g, count, BP_DTYPE_FLOAT32, BP_REDUCE_AVG, rank->comm,
        on_comm_stream ? rank->comm_stream : rank->compute);
  }
  bp_status_t end = bp_comm_group_end(s->runtime);
  if (status || end)
    return train_fail_call(status ? status : end, "bp_comm_all_reduce");
  return BP_OK;
}

/* Backward of every layer, last first; with overlap the gradient of each
 * layer with parameters (a bucket) is all-reduced on the comm stream while
 * the compute stream goes on with the layers below. */
static bp_status_t backward_and_reduce(train_session_t *s, size_t j,
                                       size_t slot) {
  int overlap = s->config.overlap;
  const train_model_t *model = &s->model;
  size_t bucket = 0;
  bp_status_t status;
  for (size_t l = model->layer_count; l-- > 0;) {
    for (size_t r = 0; r < s->local; r++)
      if ((status = train_rank_backward_layer(&s->ranks[r], j, l)))
        return status;
    const train_layer_t *layer = &model->layers[l];
    if (!overlap || !layer->param_size)
      continue;
    for (size_t r = 0; r < s->local; r++) {
      train_rank_t *rank = &s->ranks[r];
      train_step_events_t *e = &rank->events[slot];
      CALL("bp_event_record",
           bp_event_record(e->grad_ready[bucket], rank->compute));
      CALL("bp_stream_wait_event",
           bp_stream_wait_event(rank->comm_stream, e->grad_ready[bucket]));
      CALL("bp_event_record",
           bp_event_record(e->comm_start[bucket], rank->comm_stream));
    }
    if ((status = all_reduce(s, layer->param_offset, layer->param_size, 1)))
      return status;
    for (size_t r = 0; r < s->local; r++)
      CALL("bp_event_record",
           bp_event_record(s->ranks[r].events[slot].comm_end[bucket],
                           s->ranks[r].comm_stream));
    bucket++;
  }
  for (size_t r = 0; r < s->local; r++) {
    train_rank_t *rank = &s->ranks[r];
    train_step_events_t *e = &rank->events[slot];
    e->overlapped = overlap;
    e->reduces = overlap ? bucket : 1;
    CALL("bp_event_record", bp_event_record(e->backward_done, rank->compute));
    if (overlap) /* the last all-reduce covers the earlier ones */
      CALL("bp_stream_wait_event",
           bp_stream_wait_event(rank->compute, e->comm_end[bucket - 1]));
    else
      CALL("bp_event_record", bp_event_record(e->comm_start[0], rank->compute));
  }
  if (!overlap) {
    if ((status = all_reduce(s, 0, model->param_count, 0)))
      return status;
    for (size_t r = 0; r < s->local; r++)
      CALL("bp_event_record",
           bp_event_record(s->ranks[r].events[slot].comm_end[0],
                           s->ranks[r].compute));
  }
  for (size_t r = 0; r < s->local; r++)
    CALL("bp_event_record",
         bp_event_record(s->ranks[r].events[slot].update_start,
                         s->ranks[r].compute));
  return BP_OK;
}

bp_status_t train_session_step(train_session_t *s) {
  size_t step = s->next_step;
  if (step >= s->total_steps)
    return train_fail(BP_ERR_INVALID_ARGUMENT, "the run's %zu steps are done",
                      s->total_steps);
  size_t slot = step % TRAIN_RING;
  bp_status_t status = BP_OK;
  if (step >= s->first_step + TRAIN_RING &&
      (status = retire(s, step - TRAIN_RING)))
    return status;
  size_t epoch = step / s->steps_per_epoch, j = step % s->steps_per_epoch;
  if (s->staged_epoch != epoch && (status = stage_epoch(s, epoch)))
    return status;
  /* The host's part of the step, as nested ranges in a trace. */
  bp_profiler_range_push("step");
  bp_profiler_range_push("forward");
  for (size_t r = 0; r < s->local && !status; r++)
    status = train_rank_forward(&s->ranks[r], j, slot);
  bp_profiler_range_pop();
  bp_profiler_range_push("backward");
  if (!status)
    status = backward_and_reduce(s, j, slot);
  bp_profiler_range_pop();
  bp_profiler_range_push("optimizer");
  for (size_t r = 0; r < s->local && !status; r++)
    status = train_rank_update(&s->ranks[r], slot, (int64_t)step + 1,
                               s->config.lr, s->config.weight_decay);
  bp_profiler_range_pop();
  bp_profiler_range_pop();
  if (!status)
    s->next_step = step + 1;
  return status;
}

bp_status_t train_session_synchronize(train_session_t *s) {
  size_t from = s->retired > s->first_step ? s->retired : s->first_step;
  for (size_t step = from; step < s->next_step; step++) {
    bp_status_t status = retire(s, step);
    if (status)
      return status;
  }
  for (size_t r = 0; r < s->local; r++) {
    CALL("bp_stream_synchronize", bp_stream_synchronize(s->ranks[r].compute));
    CALL("bp_stream_synchronize",
         bp_stream_synchronize(s->ranks[r].comm_stream));
    CALL("bp_comm_async_error", bp_comm_async_error(s->ranks[r].comm));
  }
  return BP_OK;
}

bp_status_t train_session_loss(train_session_t *s, size_t step,
                               double *out_loss) {
  if (step >= s->next_step || step < s->first_step ||
      step + TRAIN_RING < s->next_step)
    return train_fail(BP_ERR_INVALID_ARGUMENT,
                      "the loss of step %zu is not kept (steps %zu..%zu are)",
                      step,
                      s->next_step > TRAIN_RING ? s->next_step - TRAIN_RING : 0,
                      s->next_step ? s->next_step - 1 : 0);
  size_t slot = step % TRAIN_RING;
  double sum = 0;
  for (size_t r = 0; r < s->local; r++) {
    CALL("bp_event_synchronize",
         bp_event_synchronize(s->ranks[r].events[slot].end));
    sum += s->ranks[r].loss_host[slot];
  }
  *out_loss = sum / (double)s->local;
  return BP_OK;
}

static bp_status_t read_device(train_rank_t *rank, const float *src, float *out,
                               size_t count) {
  CALL("bp_copy",
       bp_copy(NULL, out, rank->device, src, count * sizeof(float), NULL));
  return BP_OK;
}

bp_status_t train_session_read_params(train_session_t *s, size_t rank,
                                      float *out) {
  if (rank >= s->local || !out)
    return train_fail(BP_ERR_INVALID_ARGUMENT,
                      "read_params: rank %zu of %zu local ranks", rank,
                      s->local);
  bp_status_t status = train_session_synchronize(s);
  return status ? status
                : read_device(&s->ranks[rank], s->ranks[rank].params, out,
                              s->model.param_count);
}

bp_status_t train_session_times(train_session_t *s, size_t rank,
                                train_times_t *out_times) {
  if (rank >= s->local)
    return train_fail(BP_ERR_INVALID_ARGUMENT, "times: rank %zu of %zu", rank,
                      s->local);
  bp_status_t status = train_session_synchronize(s);
  if (!status)
    *out_times = s->times[rank];
  return status;
}

bp_status_t train_session_world_times(train_session_t *s, train_times_t *out) {
  bp_status_t status = train_session_synchronize(s);
  if (status)
    return status;
  /* Each rank writes its row into zeros; the sum over the world is every
   * row. */
  size_t count = 3 * s->world, bytes = count * sizeof(float);
  float *rows = calloc(count, sizeof(float));
  float *device_rows[TRAIN_MAX_RANKS] = {0};
  if (!rows)
    return train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  for (size_t r = 0; r < s->local && !status; r++) {
    train_rank_t *rank = &s->ranks[r];
    size_t at = 3 * (s->config.first_rank + r);
    memset(rows, 0, bytes);
    rows[at] = (float)s->times[r].compute;
    rows[at + 1] = (float)s->times[r].communication;
    rows[at + 2] = (float)s->times[r].waiting;
    void *p = NULL;
    if ((status = bp_device_malloc(rank->device, bytes, &p)) ||
        (status = bp_copy(rank->device, p, NULL, rows, bytes, NULL)))
      status = train_fail_call(status, "world times: buffers");
    device_rows[r] = p;
  }
  if (!status) {
    status = bp_comm_group_start(s->runtime);
    for (size_t r = 0; r < s->local && !status; r++)
      status = bp_comm_all_reduce(device_rows[r], device_rows[r], count,
                                  BP_DTYPE_FLOAT32, BP_REDUCE_SUM,
                                  s->ranks[r].comm, s->ranks[r].compute);
    bp_status_t end = bp_comm_group_end(s->runtime);
    if (status || end)
      status =
          train_fail_call(status ? status : end, "world times: all-reduce");
  }
  if (!status && (status = bp_stream_synchronize(s->ranks[0].compute)))
    status = train_fail_call(status, "bp_stream_synchronize");
  if (!status && (status = bp_copy(NULL, rows, s->ranks[0].device,
                                   device_rows[0], bytes, NULL)))
    status = train_fail_call(status, "bp_copy");
  for (size_t w = 0; !status && w < s->world; w++)
    out[w] = (train_times_t){rows[3 * w], rows[3 * w + 1], rows[3 * w + 2]};
  for (size_t r = 0; r < s->local; r++) {
    if (s->ranks[r].compute)
      bp_stream_synchronize(s->ranks[r].compute);
    if (device_rows[r])
      bp_device_free(s->ranks[r].device, device_rows[r]);
  }
  free(rows);
  return status;
}

bp_status_t train_session_save_state(train_session_t *s, train_state_t *state) {
  bp_status_t status = train_session_synchronize(s);
  if (status)
    return status;
  train_rank_t *rank = &s->ranks[0];
  size_t n = s->model.param_count;
  if (state->param_count != n)
    return train_fail(BP_ERR_INVALID_ARGUMENT,
                      "state holds %zu parameters, the model has %zu",
                      state->param_count, n);
  if ((status = read_device(rank, rank->params, state->params, n)) ||
      (status = read_device(rank, rank->exp_avg, state->exp_avg, n)) ||
      (status = read_device(rank, rank->exp_avg_sq, state->exp_avg_sq, n)))
    return status;
  state->step = s->next_step;
  state->rng_state = s->staged_epoch == s->next_step / s->steps_per_epoch
                         ? s->epoch_rng
                         : s->rng;
  state->seed = s->config.seed;
  state->batch = s->config.batch;
  return BP_OK;
}

bp_status_t train_session_load_state(train_session_t *s,
                                     const train_state_t *state) {
  size_t n = s->model.param_count;
  if (state->param_count != n || state->seed != s->config.seed ||
      state->batch != s->config.batch || state->step > s->total_steps)
    return train_fail(
        BP_ERR_INVALID_ARGUMENT,
        "the state (%zu parameters, seed %llu, batch %llu, step "
        "%llu) does not fit this run (%zu parameters, seed "
        "%llu, batch %zu, %zu steps)",
        state->param_count, (unsigned long long)state->seed,
        (unsigned long long)state->batch, (unsigned long long)state->step, n,
        (unsigned long long)s->config.seed, s->config.batch, s->total_steps);
  bp_status_t status = train_session_synchronize(s);
  if (status)
    return status;
  for (size_t r = 0; r < s->local; r++) {
    train_rank_t *rank = &s->ranks[r];
    size_t bytes = n * sizeof(float);
    CALL("bp_copy",
         bp_copy(rank->device, rank->params, NULL, state->params, bytes, NULL));
    CALL("bp_copy", bp_copy(rank->device, rank->exp_avg, NULL, state->exp_avg,
                            bytes, NULL));
    CALL("bp_copy", bp_copy(rank->device, rank->exp_avg_sq, NULL,
                            state->exp_avg_sq, bytes, NULL));
  }
  s->next_step = s->first_step = s->retired = (size_t)state->step;
  s->rng = state->rng_state;
  s->staged_epoch = NO_EPOCH;
  return BP_OK;
}

/* The test set through the forward pass on local rank 0, then argmax. The
 * buffers are made for this one call and freed after it. */
bp_status_t train_session_evaluate(train_session_t *s, double *out_accuracy) {
  bp_status_t status = train_session_synchronize(s);
  if (status)
    return status;
  train_rank_t *rank = &s->ranks[0];
  int64_t n = (int64_t)s->data.test_count;
  train_pass_t pass = {0};
  void *x = NULL, *pred = NULL;
  diopiTensorHandle_t x_t = NULL, pred_t = NULL;
  int64_t *host_pred = malloc(sizeof(int64_t) * (size_t)n);
  status = host_pred ? BP_OK
                     : train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  if (!status &&
      ((status = bp_device_malloc(
            rank->device, sizeof(float) * (size_t)(n * TRAIN_INPUTS), &x)) ||
       (status = bp_device_malloc(rank->device, sizeof(int64_t) * (size_t)n,
                                  &pred)) ||
       (status = bp_ops_tensor_wrap(rank->device, pred, diopi_dtype_int64, 1,
                                    &n, NULL, &pred_t)) ||
       (status = bp_copy(rank->device, x, NULL, s->data.test_x,
                         sizeof(float) * (size_t)(n * TRAIN_INPUTS), NULL))))
    status = train_fail_call(status, "evaluate: buffers");
  if (!status)
    status = train_input_wrap(rank->device, &s->model, x, n, &x_t);
  if (!status)
    status = train_pass_create(rank->device, &s->model, n, false, &pass);
  if (!status)
    status =
        train_forward(&rank->exec, &s->model, &rank->layer_params, &pass, x_t);
  const int64_t dim = 1;
  diopiError_t e = diopiSuccess;
  if (!status &&
      (e = s->ops.argmax(rank->ctx, pred_t,
                         pass.out_t[s->model.layer_count - 1], &dim, false)))
    status = train_op_failed(&rank->exec, e, "argmax");
  if (!status && (status = bp_stream_synchronize(rank->compute)))
    status = train_fail_call(status, "bp_stream_synchronize");
  if (!status && (status = bp_copy(NULL, host_pred, rank->device, pred,
                                   sizeof(int64_t) * (size_t)n, NULL)))
    status = train_fail_call(status, "bp_copy");
  if (!status) {
    size_t right = 0;
    for (int64_t i = 0; i < n; i++)
      right += host_pred[i] == s->data.test_y[i];
    *out_accuracy = (double)right / (double)n;
  }
  bp_ops_tensor_destroy(x_t);
  bp_ops_tensor_destroy(pred_t);
  train_pass_destroy(&pass, rank->compute);
  if (x)
    bp_device_free_async(rank->device, x, rank->compute);
  if (pred)
    bp_device_free_async(rank->device, pred, rank->compute);
  free(host_pred);
  return status;
}
