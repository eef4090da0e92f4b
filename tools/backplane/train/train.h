/* Data-parallel training on Backplane, the engine of `backplane train` and
 * `backplane bench train`: a classifier of the handwritten-digits data set
 * (the MLP 64-256-256-10 or a LeNet-style CNN, train_model.h; ReLU,
 * cross-entropy, AdamW), data parallel over the ranks of a communicator, on
 * any device type whose op library has the model's ops.
 *
 * Every step, on every rank of this process: forward and backward through
 * the model's layers with the standard-op library (DIOPI functions) on the
 * rank's compute stream, the gradient all-reduced (average) with bp_comm,
 * then one AdamW op on the flat parameter buffer. With overlap, each layer's
 * gradient all-reduce runs
 * on a second (comm) stream as soon as its backward is done, while the
 * compute stream goes on with the layer below; streams are ordered by
 * events, the host never synchronizes a device inside a step.
 *
 * The op library runs each op on its stream's thread alone
 * (BACKPLANE_OPS_THREADS=1, unless the environment sets it before the
 * first session): the ranks already keep the cores busy.
 *
 * A session is driven by one thread; it is not thread-safe. Errors are
 * bp_status_t with a message from train_last_error() (the failing call,
 * device and reason). */
#ifndef BACKPLANE_TRAIN_TRAIN_H_
#define BACKPLANE_TRAIN_TRAIN_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/backplane.h"

enum {
  TRAIN_MAX_RANKS = 8, /* ranks driven by one process */
  TRAIN_INPUTS = 64,   /* an 8x8 image */
  TRAIN_HIDDEN = 256,  /* the MLP's hidden widths */
  TRAIN_CLASSES = 10,
};

typedef struct train_config {
  const char *data_path; /* digits.csv.gz; NULL: TRAIN_DIGITS_PATH */
  /* The DIOPI op library (.so); NULL: the one the devices' plugin names
   * (bp_ops_library_for_device), else reference_ops_path. */
  const char *ops_path;
  const char *reference_ops_path; /* Backplane's reference library */
  const char *model;              /* "mlp" (default) or "cnn" (train_model.h) */
  /* The devices' type; NULL: the first plugin with local_ranks devices
   * (train_device.h). */
  const char *device_type;
  size_t local_ranks;     /* devices this process drives (default 2) */
  size_t batch;           /* global batch, over every rank (default 64) */
  size_t epochs;          /* default 20 */
  uint64_t seed;          /* parameter init and shuffling (default 0) */
  float lr, weight_decay; /* AdamW (defaults 2e-3, 1e-2) */
  int overlap; /* 1: per-layer all-reduce on the comm stream (default) */
  /* A world over several processes: this process's ranks are
   * first_rank..first_rank+local_ranks-1 of world_size, joined with the
   * communicator id `comm_id` (comm_id_size bytes, from
   * bp_comm_get_unique_id). world_size 0: one process, local ranks only. */
  size_t world_size, first_rank;
  const void *comm_id;
  size_t comm_id_size;
} train_config_t;

/* The defaults above (data and ops paths left NULL). */
void train_config_defaults(train_config_t *config);
/* BP_ERR_INVALID_ARGUMENT, with a message, for a configuration no session
 * can run (counts out of range, a batch that does not divide across the
 * world's ranks); checked again by train_session_create. */
bp_status_t train_config_check(const train_config_t *config);

/* Where Debian's python3-sklearn puts the data set. */
#define TRAIN_DIGITS_PATH                                                      \
  "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"

/* Where the time of a rank went, in seconds, from events on its streams:
 * compute (ops on the compute stream), communication (all-reduces on the
 * stream that ran them) and waiting (the compute stream idle, waiting for
 * the last all-reduce before the optimizer). */
typedef struct train_times {
  double compute, communication, waiting;
} train_times_t;

typedef struct train_session train_session_t;

/* Loads the data, opens the op library on `runtime`'s devices
 * 0..local_ranks-1 of the configured type, builds the communicator, allocates
 * every buffer once and initializes the parameters (identical on every rank,
 * from `seed`). A batch that does not divide across the ranks, a missing data
 * set or too few devices is BP_ERR_INVALID_ARGUMENT / BP_ERR_NOT_FOUND with a
 * message. */
bp_status_t train_session_create(bp_runtime_t *runtime,
                                 const train_config_t *config,
                                 train_session_t **out_session);
/* Synchronizes, then releases everything. NULL is a no-op. */
void train_session_destroy(train_session_t *session);

/* The message of the last failure on this thread. */
const char *train_last_error(void);

size_t train_session_steps_per_epoch(const train_session_t *session);
size_t train_session_total_steps(const train_session_t *session);
/* Steps done so far (the next step's index). */
size_t train_session_step_index(const train_session_t *session);
size_t train_session_param_count(const train_session_t *session);
/* The global batch: samples a step consumes over the whole world. */
size_t train_session_samples_per_step(const train_session_t *session);
size_t train_session_world_size(const train_session_t *session);
size_t train_session_local_ranks(const train_session_t *session);
/* The world rank of this process's first local rank (0 in one process). */
size_t train_session_first_rank(const train_session_t *session);
/* The model's description ("MLP 64-256-256-10") and the devices' type. */
const char *train_session_model(const train_session_t *session);
const char *train_session_device_type(const train_session_t *session);

/* Enqueues one step on every local rank and returns without waiting for it
 * (the host stays at most a few steps ahead of the devices). */
bp_status_t train_session_step(train_session_t *session);
/* Waits for every enqueued step. */
bp_status_t train_session_synchronize(train_session_t *session);
/* The mean over the world's ranks of the loss of step `step`, which must be
 * one of the last few steps and complete (after train_session_synchronize,
 * the last one). Ranks of other processes are not included: their mean is
 * this process's ranks' mean. */
bp_status_t train_session_loss(train_session_t *session, size_t step,
                               double *out_loss);

/* Copies local rank `rank`'s parameters (param_count floats) to `out`;
 * synchronizes first. */
bp_status_t train_session_read_params(train_session_t *session, size_t rank,
                                      float *out);
/* Test accuracy (fraction in [0, 1]) of the current parameters, on local
 * rank 0; synchronizes first. */
bp_status_t train_session_evaluate(train_session_t *session,
                                   double *out_accuracy);
/* Where each local rank's time went since creation (synchronizes). */
bp_status_t train_session_times(train_session_t *session, size_t rank,
                                train_times_t *out_times);

/* Every world rank's times, world_size entries in rank order: a collective
 * (an all-reduce) that every rank of the world calls; synchronizes. In one
 * process it is train_session_times of each local rank. */
bp_status_t train_session_world_times(train_session_t *session,
                                      train_times_t *out_times);

/* The state a checkpoint holds: parameters, AdamW moments, the step count
 * and the shuffling generator. Save synchronizes first; load replaces the
 * state on every local rank (sizes must match). Files: train_checkpoint.h. */
typedef struct train_state {
  uint64_t step;      /* steps done */
  uint64_t rng_state; /* the shuffling generator at the start of the epoch */
  uint64_t seed, batch;
  size_t param_count;
  float *params, *exp_avg, *exp_avg_sq; /* param_count each */
} train_state_t;

/* Fills `state` (its arrays allocated by the caller, param_count each). */
bp_status_t train_session_save_state(train_session_t *session,
                                     train_state_t *state);
bp_status_t train_session_load_state(train_session_t *session,
                                     const train_state_t *state);

#endif /* BACKPLANE_TRAIN_TRAIN_H_ */
