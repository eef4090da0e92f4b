#include "train_run.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "train_checkpoint.h"
#include "train_error.h"
#include "train_rank.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bp_status_t save(train_session_t *session, const char *dir) {
  size_t n = train_session_param_count(session);
  train_state_t state = {.param_count = n,
                         .params = malloc(n * sizeof(float)),
                         .exp_avg = malloc(n * sizeof(float)),
                         .exp_avg_sq = malloc(n * sizeof(float))};
  bp_status_t status =
      state.params && state.exp_avg && state.exp_avg_sq
          ? train_session_save_state(session, &state)
          : train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  if (!status)
    status = train_checkpoint_write(dir, &state);
  train_checkpoint_release(&state);
  return status;
}

bp_status_t train_run_resume(train_session_t *session, const char *dir,
                             size_t *out_step) {
  *out_step = 0;
  train_state_t state;
  bp_status_t status = train_checkpoint_read(dir, &state);
  if (status == BP_ERR_NOT_FOUND)
    return BP_OK;
  if (status)
    return status;
  status = train_session_load_state(session, &state);
  if (!status)
    *out_step = (size_t)state.step;
  train_checkpoint_release(&state);
  return status;
}

bp_status_t train_run(train_session_t *session,
                      const train_run_options_t *options,
                      train_summary_t *out) {
  memset(out, 0, sizeof *out);
  const char *dir = options->checkpoint_dir;
  size_t every = options->checkpoint_every ? options->checkpoint_every : 50;
  size_t spe = train_session_steps_per_epoch(session);
  size_t total = train_session_total_steps(session);
  size_t first = train_session_step_index(session);
  out->resumed_from = first;
  int writer = dir && train_session_first_rank(session) == 0;
  bp_status_t status = BP_OK;
  out->epoch_loss = calloc(total / spe + 1, sizeof(double));
  if (!out->epoch_loss)
    return train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  double start = now(), last_report = start, loss = 0;
  for (size_t step = first; step < total && !status; step++) {
    if ((status = train_session_step(session)))
      break;
    size_t done = step + 1;
    bool epoch_end = done % spe == 0;
    bool checkpoint = writer && (done % every == 0 || done == total);
    double t = now();
    bool report =
        options->progress && (epoch_end || done == total ||
                              t - last_report >= options->progress_interval);
    if (!report && !epoch_end && !checkpoint)
      continue;
    /* The newest step whose loss is certainly complete without waiting:
     * the step enqueue already waited for done - TRAIN_RING. At an epoch's
     * end, wait for the step itself so the epoch's loss is its own. */
    size_t probe = epoch_end || done == total || done - first < TRAIN_RING
                       ? step
                       : done - TRAIN_RING;
    if ((status = train_session_loss(session, probe, &loss)))
      break;
    if (epoch_end)
      out->epoch_loss[out->epochs_run++] = loss;
    if (checkpoint && (status = save(session, dir)))
      break;
    if (report) {
      double elapsed = t - start;
      double rate = elapsed > 0 ? (double)(done - first) / elapsed : 0;
      train_progress_t p = {
          .step = done,
          .total_steps = total,
          .epoch = (done - 1) / spe + 1,
          .epochs = total / spe,
          .loss = loss,
          .samples_per_second =
              rate * (double)train_session_samples_per_step(session),
          .eta_seconds = rate > 0 ? (double)(total - done) / rate : 0,
          .epoch_end = epoch_end,
      };
      options->progress(&p, options->progress_user);
      last_report = t;
    }
  }
  if (!status)
    status = train_session_synchronize(session);
  double seconds = now() - start;
  if (status)
    return status;
  out->steps = total - first;
  out->seconds = seconds;
  out->samples_per_second =
      seconds > 0
          ? (double)out->steps *
                (double)train_session_samples_per_step(session) / seconds
          : 0;
  out->final_loss = loss;
  if (total > first &&
      (status = train_session_loss(session, total - 1, &out->final_loss)))
    return status;
  out->local_ranks = train_session_local_ranks(session);
  for (size_t r = 0; r < out->local_ranks && !status; r++)
    status = train_session_times(session, r, &out->times[r]);
  out->world_size = train_session_world_size(session);
  out->world_times = calloc(out->world_size, sizeof *out->world_times);
  if (!status && !out->world_times)
    status = train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  if (!status)
    status = train_session_world_times(session, out->world_times);
  if (!status)
    status = train_session_evaluate(session, &out->accuracy);
  return status;
}

void train_summary_release(train_summary_t *summary) {
  free(summary->epoch_loss);
  free(summary->world_times);
  memset(summary, 0, sizeof *summary);
}
