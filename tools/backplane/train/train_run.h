/* A whole run over a session: resume from a checkpoint, the steps, periodic
 * checkpoints and progress reports, and the summary at the end. */
#ifndef BACKPLANE_TRAIN_RUN_H_
#define BACKPLANE_TRAIN_RUN_H_

#include <stdbool.h>

#include "train.h"

/* What a progress report knows. `loss` is of a recent step that has
 * completed (the host never waits for the newest one to report). */
typedef struct train_progress {
  size_t step, total_steps, epoch, epochs;
  double loss;
  double samples_per_second; /* since the run (or resume) started */
  double eta_seconds;
  bool epoch_end; /* the step ended an epoch */
} train_progress_t;

typedef void (*train_progress_fn_t)(const train_progress_t *progress,
                                    void *user);

typedef struct train_run_options {
  const char *checkpoint_dir;   /* NULL: no checkpoints */
  size_t checkpoint_every;      /* steps between checkpoints (0: 50) */
  train_progress_fn_t progress; /* NULL: none */
  void *progress_user;
  double progress_interval; /* seconds between reports (epoch ends always) */
} train_run_options_t;

typedef struct train_summary {
  size_t steps;        /* run in this invocation */
  size_t resumed_from; /* the step the run started from (a checkpoint's) */
  double seconds;      /* of the step loop */
  double samples_per_second;
  double final_loss;
  double accuracy; /* on the test set */
  size_t local_ranks;
  train_times_t times[TRAIN_MAX_RANKS];
  size_t world_size;
  train_times_t *world_times; /* every world rank's, in rank order */
  double *epoch_loss;         /* last loss of each epoch run (malloc'd) */
  size_t epochs_run;
} train_summary_t;

/* Resumes the session from DIR's checkpoint if there is one: *out_step is
 * its step, or 0 when there is none (the run starts afresh). A corrupt or
 * foreign checkpoint fails, naming it. Every rank process reads the same
 * file: the next checkpoint is written only after a step all ranks take. */
bp_status_t train_run_resume(train_session_t *session, const char *dir,
                             size_t *out_step);

/* Runs the session from where it stands (train_run_resume) to its last
 * step. With a checkpoint directory, world rank 0 writes a checkpoint every
 * `checkpoint_every` steps and at the end (the other ranks hold the same
 * state). Release the summary with train_summary_release. */
bp_status_t train_run(train_session_t *session,
                      const train_run_options_t *options,
                      train_summary_t *out_summary);
void train_summary_release(train_summary_t *summary);

#endif /* BACKPLANE_TRAIN_RUN_H_ */
