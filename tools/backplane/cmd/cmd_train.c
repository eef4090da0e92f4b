/* `backplane train`: data-parallel training of a digits classifier (the
 * MLP or the CNN) on the devices of any plugin whose op library has the
 * model's ops (tools/backplane/train/train.h), with a progress bar on a
 * terminal, plain lines otherwise, or one JSON object (--json); at the end
 * the test accuracy, samples/s and each device's time split. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backplane/layers.h"

#include "cli/cli_json.h"
#include "cli/cli_options.h"
#include "cli/cli_output.h"
#include "cli/cli_paths.h"
#include "commands.h"
#include "trace_svg.h"
#include "train/train.h"
#include "train/train_device.h"
#include "train/train_run.h"
#include "train/train_world.h"

typedef struct train_args {
  train_config_t config;
  train_run_options_t run;
  size_t processes;
  const char *trace, *svg;
  double svg_from_ms, svg_to_ms; /* to < 0: the whole run */
  int json;
} train_args_t;

static int usage(const char *why, const char *word) {
  fprintf(stderr, "backplane train: %s%s%s%s (see 'backplane train --help')\n",
          why, word ? " '" : "", word ? word : "", word ? "'" : "");
  return 2;
}

static int parse_size(const char *text, size_t min, size_t max, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || end == text || *end || text[0] == '-' || v < min || v > max)
    return -1;
  *out = (size_t)v;
  return 0;
}

/* "FROM:TO", milliseconds, 0 <= FROM < TO. */
static int parse_window(const char *text, double *from, double *to) {
  char *end, *second;
  errno = 0;
  *from = strtod(text, &end);
  if (errno || end == text || *end != ':')
    return -1;
  *to = strtod(end + 1, &second);
  if (errno || second == end + 1 || *second || !(*from >= 0) || !(*to > *from))
    return -1;
  return 0;
}

static int parse_float(const char *text, float *out) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || *end || !(v >= 0) || v > 10)
    return -1;
  *out = (float)v;
  return 0;
}

/* Takes the options of train out of argv; what is left goes to
 * cli_options_parse (--plugin-path, --json). */
static int take_options(int *argc, char **argv, train_args_t *a) {
  int kept = 0;
  for (int i = 0; i < *argc; i++) {
    const char *w = argv[i];
    const char *v = i + 1 < *argc ? argv[i + 1] : NULL;
    size_t seed;
    int value = 1;
    if (!strcmp(w, "--no-overlap")) {
      a->config.overlap = 0;
      value = 0;
    } else if (!v && (!strcmp(w, "--devices") || !strcmp(w, "--processes") ||
                      !strcmp(w, "--batch") || !strcmp(w, "--epochs") ||
                      !strcmp(w, "--seed") || !strcmp(w, "--lr") ||
                      !strcmp(w, "--checkpoint") || !strcmp(w, "--data") ||
                      !strcmp(w, "--ops") || !strcmp(w, "--trace") ||
                      !strcmp(w, "--model") || !strcmp(w, "--device") ||
                      !strcmp(w, "--svg") || !strcmp(w, "--svg-window") ||
                      !strcmp(w, "--checkpoint-every"))) {
      return usage("missing value after", w);
    } else if (!strcmp(w, "--devices")) {
      if (parse_size(v, 1, TRAIN_MAX_RANKS, &a->config.local_ranks))
        return usage("--devices takes 1 to 8, not", v);
    } else if (!strcmp(w, "--processes")) {
      if (parse_size(v, 1, 1u << 20, &a->processes))
        return usage("--processes takes a count, not", v);
    } else if (!strcmp(w, "--batch")) {
      if (parse_size(v, 1, 1u << 20, &a->config.batch))
        return usage("--batch takes a positive count, not", v);
    } else if (!strcmp(w, "--epochs")) {
      if (parse_size(v, 1, 100000, &a->config.epochs))
        return usage("--epochs takes 1 to 100000, not", v);
    } else if (!strcmp(w, "--seed")) {
      if (parse_size(v, 0, SIZE_MAX, &seed))
        return usage("--seed takes a non-negative integer, not", v);
      a->config.seed = seed;
    } else if (!strcmp(w, "--lr")) {
      if (parse_float(v, &a->config.lr))
        return usage("--lr takes a number in [0, 10], not", v);
    } else if (!strcmp(w, "--checkpoint")) {
      a->run.checkpoint_dir = v;
    } else if (!strcmp(w, "--checkpoint-every")) {
      if (parse_size(v, 1, SIZE_MAX, &a->run.checkpoint_every))
        return usage("--checkpoint-every takes a positive count, not", v);
    } else if (!strcmp(w, "--data")) {
      a->config.data_path = v;
    } else if (!strcmp(w, "--ops")) {
      a->config.ops_path = v;
    } else if (!strcmp(w, "--model")) {
      a->config.model = v;
    } else if (!strcmp(w, "--device")) {
      a->config.device_type = v;
    } else if (!strcmp(w, "--trace")) {
      a->trace = v;
    } else if (!strcmp(w, "--svg")) {
      a->svg = v;
    } else if (!strcmp(w, "--svg-window")) {
      if (parse_window(v, &a->svg_from_ms, &a->svg_to_ms))
        return usage("--svg-window takes FROM_MS:TO_MS (0 <= FROM < TO), not",
                     v);
    } else {
      argv[kept++] = argv[i];
      continue;
    }
    i += value;
  }
  *argc = kept;
  return 0;
}

/* ---- Output -------------------------------------------------------------- */

static void format_eta(double seconds, char *out, size_t size) {
  if (seconds >= 60)
    snprintf(out, size, "%dm%02ds", (int)(seconds / 60), (int)seconds % 60);
  else
    snprintf(out, size, "%.1fs", seconds);
}

/* A bar redrawn in place on a terminal; a line per epoch otherwise. */
static void show_progress(const train_progress_t *p, void *user) {
  int tty = *(const int *)user;
  FILE *out = cli_out();
  char eta[32];
  format_eta(p->eta_seconds, eta, sizeof eta);
  if (tty) {
    enum { WIDTH = 24 };
    int filled = (int)(WIDTH * p->step / (p->total_steps ? p->total_steps : 1));
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
      bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(out,
            "\r[%s] step %zu/%zu  epoch %zu/%zu  loss %.4f  %.0f samples/s  "
            "ETA %s   ",
            bar, p->step, p->total_steps, p->epoch, p->epochs, p->loss,
            p->samples_per_second, eta);
    if (p->step == p->total_steps)
      fputc('\n', out);
    fflush(out);
  } else if (p->epoch_end) {
    fprintf(out,
            "epoch %3zu/%zu  step %5zu/%zu  loss %.4f  %.0f samples/s  ETA "
            "%s\n",
            p->epoch, p->epochs, p->step, p->total_steps, p->loss,
            p->samples_per_second, eta);
  }
}

/* "vcpu:1": the device of world rank `w` (every process drives the same
 * number of devices, of one type). */
static void rank_device(const train_args_t *a, const train_summary_t *s,
                        size_t w, char *out, size_t size) {
  snprintf(out, size, "%s:%zu", a->config.device_type, w % s->local_ranks);
}

static void print_summary(const train_args_t *a, const train_summary_t *s,
                          size_t world) {
  FILE *out = cli_out();
  if (s->steps == 0) { /* a finished run resumed: no step, no loss */
    fprintf(out, "test accuracy %.2f %% of the finished run (step %zu)\n",
            100 * s->accuracy, s->resumed_from);
    return;
  }
  fprintf(out,
          "test accuracy %.2f %%  final loss %.4f  %zu steps in %.2f s  "
          "%.0f samples/s (%zu ranks, global batch %zu, overlap %s)\n",
          100 * s->accuracy, s->final_loss, s->steps, s->seconds,
          s->samples_per_second, world, a->config.batch,
          a->config.overlap ? "on" : "off");
  fprintf(out, "%4s  %-10s %12s %14s %12s\n", "rank", "device", "compute ms",
          "communication", "waiting ms");
  for (size_t w = 0; w < s->world_size; w++) {
    char device[64];
    rank_device(a, s, w, device, sizeof device);
    fprintf(out, "%4zu  %-10s %12.1f %11.1f ms %12.1f\n", w, device,
            1e3 * s->world_times[w].compute,
            1e3 * s->world_times[w].communication,
            1e3 * s->world_times[w].waiting);
  }
}

static int print_json(const train_args_t *a, const train_summary_t *s,
                      size_t world) {
  json_t *devices = json_array(), *epochs = json_array();
  for (size_t w = 0; w < s->world_size; w++) {
    char device[64];
    rank_device(a, s, w, device, sizeof device);
    json_array_append_new(
        devices,
        json_pack("{s:I, s:s, s:f, s:f, s:f}", "rank", (json_int_t)w, "device",
                  device, "compute_s", s->world_times[w].compute,
                  "communication_s", s->world_times[w].communication,
                  "waiting_s", s->world_times[w].waiting));
  }
  for (size_t e = 0; e < s->epochs_run; e++)
    json_array_append_new(epochs, json_real(s->epoch_loss[e]));
  /* A finished run resumed takes no step: its loss is not known. */
  json_t *root = json_pack(
      "{s:f, s:o, s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:b, s:o, s:o, s:b}",
      "test_accuracy", s->accuracy, "final_loss",
      s->steps ? json_real(s->final_loss) : json_null(), "steps",
      (json_int_t)s->steps, "resumed_from", (json_int_t)s->resumed_from,
      "seconds", s->seconds, "samples_per_second", s->samples_per_second,
      "ranks", (json_int_t)world, "batch", (json_int_t)a->config.batch, "seed",
      (json_int_t)a->config.seed, "overlap", a->config.overlap, "epoch_loss",
      epochs, "devices", devices, "already_finished", s->steps == 0);
  json_object_set_new(root, "model", json_string(a->config.model));
  json_object_set_new(root, "device_type", json_string(a->config.device_type));
  return cli_json_print(root) ? 1 : 0;
}

/* ---- The run ------------------------------------------------------------- */

static bp_status_t open_runtime(const train_args_t *a, const cli_options_t *o,
                                int traced, bp_runtime_t **out) {
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .plugin_path = o->plugin_path};
  bp_layer_options_t layers = {.struct_size = sizeof layers,
                               .layers = traced ? "trace" : NULL,
                               .validation_abort = -1,
                               .trace_file = traced ? a->trace : NULL};
  bp_status_t status = bp_runtime_create_layered(&options, &layers, out);
  if (status)
    fprintf(stderr, "backplane train: cannot create the runtime: %s: %s\n",
            bp_status_name(status), bp_last_error());
  return status;
}

static int draw_svg(const train_args_t *a) {
  const char *trace = a->trace, *svg = a->svg;
  json_error_t error;
  json_t *root = json_load_file(trace, 0, &error);
  FILE *out = root ? fopen(svg, "w") : NULL;
  char why[128] = "";
  int failed = !out || trace_svg_write_window(root, out, a->svg_from_ms,
                                              a->svg_to_ms, why, sizeof why);
  if (out && fclose(out) != 0)
    failed = 1;
  json_decref(root);
  if (failed)
    fprintf(stderr, "backplane train: cannot draw %s from %s: %s\n", svg, trace,
            root ? why : error.text);
  return failed;
}

/* Trains this process's ranks; in a process world, rank 0 spawns the others
 * (--processes) and only rank 0 reports. */
static int train_here(train_args_t *a, const cli_options_t *options,
                      train_world_t *world, char **argv) {
  bp_runtime_t *runtime = NULL;
  train_session_t *session = NULL;
  train_summary_t summary = {0};
  int code = 1, reporter = world->rank == 0;
  int traced = reporter && a->trace;
  if (open_runtime(a, options, traced, &runtime) != BP_OK)
    return 1;
  bp_status_t status =
      train_device_type_pick(runtime, a->config.device_type,
                             a->config.local_ranks, &a->config.device_type);
  if (status)
    fprintf(stderr, "backplane train: %s\n", train_last_error());
  if (!status && world->kind != TRAIN_WORLD_SINGLE) {
    bp_device_t *device = NULL;
    status = bp_device_get(runtime, a->config.device_type, 0, &device);
    if (status)
      fprintf(stderr, "backplane train: no %s device: %s\n",
              a->config.device_type, bp_last_error());
    else if ((status = train_world_exchange_id(world, device)) ||
             (world->kind == TRAIN_WORLD_SPAWNER &&
              (status = train_world_spawn(world, argv))))
      fprintf(stderr, "backplane train: %s\n", train_last_error());
    a->config.world_size = world->size;
    a->config.first_rank = world->rank;
    a->config.comm_id = world->id;
    a->config.comm_id_size = world->id_size;
  }
  /* The arguments were checked: what fails from here on is a runtime
   * failure (exit 1), whatever its status. */
  if (!status && (status = train_session_create(runtime, &a->config, &session)))
    fprintf(stderr, "backplane train: %s\n", train_last_error());
  if (status)
    goto done;
  size_t resumed = 0, total = train_session_total_steps(session);
  if (a->run.checkpoint_dir &&
      (status = train_run_resume(session, a->run.checkpoint_dir, &resumed))) {
    fprintf(stderr, "backplane train: %s\n", train_last_error());
    goto done;
  }
  int tty = isatty(fileno(cli_out()));
  if (!tty) /* a pipe or a file sees each progress line as it is made */
    setvbuf(cli_out(), NULL, _IOLBF, 0);
  size_t ranks = train_session_world_size(session);
  if (reporter && !a->json) {
    a->run.progress = show_progress;
    a->run.progress_user = &tty;
    a->run.progress_interval = tty ? 0.1 : 1e30;
    fprintf(cli_out(),
            "training %s on digits: %zu rank%s (%s %s), global batch %zu "
            "(%zu per rank), %zu epochs (%zu steps), AdamW lr %g, overlap "
            "%s\n",
            train_session_model(session), ranks, ranks > 1 ? "s" : "",
            train_session_device_type(session),
            world->kind == TRAIN_WORLD_SINGLE ? "devices, one process"
                                              : "devices, a process each",
            a->config.batch, a->config.batch / ranks, a->config.epochs, total,
            (double)a->config.lr, a->config.overlap ? "on" : "off");
    if (resumed == total)
      fprintf(cli_out(),
              "the checkpoint in %s is at the last step (%zu of %zu): the "
              "run is finished, nothing to train\n",
              a->run.checkpoint_dir, resumed, total);
    else if (resumed)
      fprintf(cli_out(), "resumed from step %zu of %zu (checkpoint in %s)\n",
              resumed, total, a->run.checkpoint_dir);
  }
  status = train_run(session, &a->run, &summary);
  if (status) {
    fprintf(stderr, "backplane train: %s\n", train_last_error());
    goto done;
  }
  code = 0;
  if (reporter && a->json)
    code = print_json(a, &summary, ranks);
  else if (reporter)
    print_summary(a, &summary, ranks);
done:
  train_summary_release(&summary);
  train_session_destroy(session);
  /* A rank that failed was named on stderr by the world's watch. */
  if (train_world_join(world, code != 0))
    code = 1;
  bp_runtime_destroy(runtime); /* writes the trace */
  if (traced && code == 0 && a->svg && draw_svg(a))
    code = 1;
  return code;
}

/* vcpu's device count for this run, unless the user set one. */
static void set_vcpu_devices(size_t count) {
  char text[24];
  snprintf(text, sizeof text, "%zu", count < 2 ? 2 : count);
  setenv("BACKPLANE_VCPU_DEVICES", text, 0);
}

int cmd_train(int argc, char **argv) {
  train_args_t a;
  memset(&a, 0, sizeof a);
  a.svg_to_ms = -1;
  train_config_defaults(&a.config);
  /* "backplane train ...", as given: what rank processes run. */
  char *all[argc + 3];
  for (int i = -2; i <= argc; i++)
    all[i + 2] = argv[i];
  if (take_options(&argc, argv, &a))
    return 2;
  cli_options_t options;
  if (cli_options_parse("train", argc, argv, 0, &options))
    return 2;
  a.json = options.json;
  if (a.svg && !a.trace)
    a.trace = "backplane-train-trace.json";
  char ops[PATH_MAX];
  cli_path_reference_ops(ops, sizeof ops);
  a.config.reference_ops_path = ops;
  /* Usage errors (exit 2): a world or configuration the arguments ask for
   * that cannot be run; a world the environment describes wrongly is a
   * failure (1). */
  train_world_t world;
  int code = 2;
  if (train_world_detect(a.processes, &world)) {
    fprintf(stderr, "backplane train: %s\n", train_last_error());
    code = a.processes ? 2 : 1;
  } else {
    if (world.kind != TRAIN_WORLD_SINGLE) {
      a.config.local_ranks = 1;
      a.config.world_size = world.size;
      a.config.first_rank = world.rank;
    }
    if (train_config_check(&a.config)) {
      fprintf(stderr, "backplane train: %s\n", train_last_error());
    } else {
      set_vcpu_devices(a.config.local_ranks);
      code = train_here(&a, &options, &world, all);
    }
  }
  cli_options_release(&options);
  return code;
}
