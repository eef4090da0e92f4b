/* `backplane train`, run as a program: the result checks of issue 17
 * (accuracy with the defaults, the same run twice gives the same numbers,
 * 1 device vs 2 devices at the same global batch and seed, checkpoints
 * that survive SIGKILL and refuse corruption) and bad input. */
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool_runner.h"

/* Runs `backplane train ARGS --json`; returns the parsed summary. */
/* The fixed-name files the tests write, in a folder of this process's own
 * (made in main), so concurrent runs never share them. */
static char scratch_dir[] = "/tmp/bp-train-test-XXXXXX";
static char long_json[64];
static char long_svg[64];
static char names_json[64];
static char part_svg[64];
static char w_json[64];
static char w_svg[64];
static char whole_svg[64];

static json_t *train_json(const char *const *args) {
  const char *argv[32] = {"train"};
  size_t n = 1;
  for (; args[n - 1]; n++)
    argv[n] = args[n - 1];
  argv[n++] = "--json";
  argv[n] = NULL;
  tool_run_t run;
  assert_int_equal(tool_run(argv, NULL, &run), 0);
  assert_int_equal(run.exit_code, 0);
  json_t *root = json_loads(run.out, 0, NULL);
  assert_non_null(root);
  tool_run_release(&run);
  return root;
}

static double number(json_t *root, const char *key) {
  json_t *v = json_object_get(root, key);
  assert_true(json_is_number(v));
  return json_number_value(v);
}

static void test_defaults_reach_95_percent(void **state) {
  (void)state;
  json_t *root = train_json((const char *[]){NULL});
  assert_true(number(root, "test_accuracy") >= 0.95);
  assert_int_equal((int)number(root, "ranks"), 2);
  json_t *devices = json_object_get(root, "devices");
  assert_int_equal(json_array_size(devices), 2);
  for (size_t i = 0; i < 2; i++)
    assert_true(number(json_array_get(devices, i), "compute_s") > 0);
  json_decref(root);
}

/* Same arguments twice: every reported loss bit for bit. */
static void test_same_run_twice_same_numbers(void **state) {
  (void)state;
  const char *args[] = {"--epochs", "4", "--seed", "7", NULL};
  json_t *a = train_json(args), *b = train_json(args);
  json_t *la = json_object_get(a, "epoch_loss"),
         *lb = json_object_get(b, "epoch_loss");
  assert_int_equal(json_array_size(la), 4);
  assert_int_equal(json_array_size(lb), 4);
  for (size_t i = 0; i < 4; i++)
    assert_true(json_number_value(json_array_get(la, i)) ==
                json_number_value(json_array_get(lb, i)));
  assert_true(number(a, "final_loss") == number(b, "final_loss"));
  assert_true(number(a, "test_accuracy") == number(b, "test_accuracy"));
  json_decref(a);
  json_decref(b);
}

/* 1 device with batch 64 against 2 devices with 32 each: the same
 * gradients up to float rounding (a mean over 64 samples against the mean
 * of two means over 32), so the losses agree within 1e-3 absolute after 5
 * epochs. The tolerance is far below the loss's own movement per epoch. */
static void test_one_device_matches_two(void **state) {
  (void)state;
  json_t *one =
      train_json((const char *[]){"--devices", "1", "--epochs", "5", NULL});
  json_t *two =
      train_json((const char *[]){"--devices", "2", "--epochs", "5", NULL});
  json_t *l1 = json_object_get(one, "epoch_loss"),
         *l2 = json_object_get(two, "epoch_loss");
  for (size_t i = 0; i < 5; i++)
    assert_true(fabs(json_number_value(json_array_get(l1, i)) -
                     json_number_value(json_array_get(l2, i))) < 1e-3);
  json_decref(one);
  json_decref(two);
}

/* The CNN (conv, pool, ReLU, linear through the op library) learns the
 * digits as well as the MLP: >= 95 % on the test set after 8 epochs. */
static void test_cnn_reaches_95_percent(void **state) {
  (void)state;
  json_t *root = train_json((const char *[]){"--model", "cnn", "--epochs", "8",
                                             "--lr", "0.004", NULL});
  printf("cnn: %.2f %% after 8 epochs\n", 100 * number(root, "test_accuracy"));
  assert_true(number(root, "test_accuracy") >= 0.95);
  assert_string_equal(json_string_value(json_object_get(root, "model")), "cnn");
  json_decref(root);
}

/* The same run on the OpenCL plugin (POCL) and on vcpu: the reference op
 * library serves both (their memory is host-addressable), so every epoch's
 * loss and the accuracy agree. */
static void test_opencl_trains_like_vcpu(void **state) {
  (void)state;
  const char *opencl[] = {"--device", "opencl", "--devices", "1",
                          "--model",  "cnn",    "--epochs",  "3",
                          "--lr",     "0.004",  NULL};
  const char *vcpu[] = {"--device", "vcpu",  "--devices", "1",
                        "--model",  "cnn",   "--epochs",  "3",
                        "--lr",     "0.004", NULL};
  json_t *a = train_json(opencl), *b = train_json(vcpu);
  assert_string_equal(json_string_value(json_object_get(a, "device_type")),
                      "opencl");
  assert_string_equal(json_string_value(json_object_get(b, "device_type")),
                      "vcpu");
  json_t *la = json_object_get(a, "epoch_loss"),
         *lb = json_object_get(b, "epoch_loss");
  assert_int_equal(json_array_size(la), 3);
  for (size_t i = 0; i < 3; i++)
    assert_true(fabs(json_number_value(json_array_get(la, i)) -
                     json_number_value(json_array_get(lb, i))) < 1e-4);
  assert_true(number(a, "test_accuracy") > 0.8);
  assert_true(fabs(number(a, "test_accuracy") - number(b, "test_accuracy")) <
              1e-9);
  json_decref(a);
  json_decref(b);
}

/* A device type with too few devices, or none: refused, naming what there
 * is. */
static void test_device_type_without_enough_devices(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(tool_run((const char *[]){"train", "--device", "nosuch",
                                             "--epochs", "1", NULL},
                            NULL, &run),
                   0);
  assert_int_equal(run.exit_code, 1);
  assert_non_null(strstr(run.err, "--device nosuch"));
  assert_non_null(strstr(run.err, "vcpu: "));
  tool_run_release(&run);
}

/* Slices of the trace named `name` (a prefix when it ends with '*'). */
static size_t slices_named(json_t *root, const char *name) {
  size_t n = 0, i, prefix = strlen(name);
  int any_tail = prefix && name[prefix - 1] == '*';
  json_t *e;
  json_array_foreach(json_object_get(root, "traceEvents"), i, e) {
    const char *ph = json_string_value(json_object_get(e, "ph"));
    const char *event = json_string_value(json_object_get(e, "name"));
    if (ph && event && !strcmp(ph, "X") &&
        (any_tail ? !strncmp(event, name, prefix - 1) : !strcmp(event, name)))
      n++;
  }
  return n;
}

/* The device timeline names each op's work after the op (its callback's
 * label) and each all-reduce after its size, not a generic "callback". */
static void test_trace_names_ops(void **state) {
  (void)state;
  const char *path = names_json;
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"train", "--model", "cnn", "--epochs", "1",
                                "--trace", path, NULL},
               NULL, &run),
      0);
  assert_int_equal(run.exit_code, 0);
  tool_run_release(&run);
  json_t *root = json_load_file(path, 0, NULL);
  assert_non_null(root);
  size_t steps = 22; /* 1437 samples / batch 64, per device */
  assert_true(slices_named(root, "diopiConvolution2d") >= 2 * 2 * steps);
  assert_true(slices_named(root, "diopiConvolution2dBackward") >= 2 * steps);
  assert_true(slices_named(root, "diopiMaxPool2dWithIndices") >= 2 * steps);
  assert_true(slices_named(root, "diopiAdamW") >= 2 * steps);
  /* Four buckets (the layers with parameters) on two devices; conv2's
   * gradient is 32 x 16 x 3 x 3 + 32 floats: 18560 bytes, 18.1 KiB. */
  assert_true(slices_named(root, "all_reduce *") >= 2 * 4 * steps);
  assert_true(slices_named(root, "all_reduce 18.1 KiB") >= 2 * steps);
  assert_int_equal(slices_named(root, "callback"), 0);
  json_decref(root);
  unlink(path);
}

/* OpenCL buffers (not shared virtual memory) are not host-addressable: the
 * reference op library refuses them, saying why, instead of faulting. */
static void test_reference_ops_refuse_buffers(void **state) {
  (void)state;
  setenv("BACKPLANE_OPENCL_MEMORY", "buffer", 1);
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"train", "--device", "opencl", "--devices", "1",
                                "--epochs", "1", NULL},
               NULL, &run),
      0);
  unsetenv("BACKPLANE_OPENCL_MEMORY");
  assert_int_equal(run.exit_code, 1);
  if (!strstr(run.err, "cannot address its memory"))
    fail_msg("no reason given: %s", run.err);
  tool_run_release(&run);
}

/* Backplane's entries in /dev/shm, as one string of names. */
static char *shm_names(void) {
  DIR *dir = opendir("/dev/shm");
  size_t size = 1;
  char *names = calloc(1, size);
  for (struct dirent *e; dir && (e = readdir(dir));) {
    if (strncmp(e->d_name, "bpvcpu-", 7) != 0 &&
        !strstr(e->d_name, "backplane"))
      continue;
    size += strlen(e->d_name) + 1;
    names = realloc(names, size);
    strcat(strcat(names, e->d_name), "/");
  }
  if (dir)
    closedir(dir);
  return names;
}

/* Fails if an entry that was not in `before` stays in /dev/shm. Other
 * programs (tests running in parallel) may make short-lived entries of
 * their own, so a new one must outlive a 3 s grace period to count. */
static void expect_no_new_shm(const char *before) {
  for (int tries = 0;; tries++) {
    char *now = shm_names(), *left = NULL;
    for (char *name = strtok(now, "/"); name && !left; name = strtok(NULL, "/"))
      if (!strstr(before, name))
        left = name;
    if (!left || tries == 30) {
      if (left)
        fail_msg("/dev/shm/%s left behind", left);
      free(now);
      return;
    }
    free(now);
    nanosleep(&(struct timespec){0, 100000000}, NULL);
  }
}

static void expect_refused(const char *const *args, const char *why) {
  const char *argv[32] = {"train"};
  size_t n = 1;
  for (; args[n - 1]; n++)
    argv[n] = args[n - 1];
  argv[n] = NULL;
  char *before = shm_names();
  tool_run_t run;
  assert_int_equal(tool_run(argv, NULL, &run), 0);
  if (run.exit_code == 0)
    fail_msg("%s: accepted", why);
  assert_true(run.exit_code > 0 && run.exit_code < 128); /* not a crash */
  tool_run_release(&run);
  expect_no_new_shm(before);
  free(before);
}

static void test_bad_input_is_refused(void **state) {
  (void)state;
  expect_refused((const char *[]){"--frobnicate", NULL}, "unknown option");
  expect_refused((const char *[]){"--batch", "63", NULL}, "batch 63 on 2");
  expect_refused((const char *[]){"--processes", "3", "--batch", "64", NULL},
                 "batch 64 on 3 processes");
  expect_refused((const char *[]){"--data", "/nonexistent/digits.csv.gz", NULL},
                 "missing data set");
  expect_refused((const char *[]){"--processes", "100000", NULL},
                 "too many processes");
  expect_refused((const char *[]){"--devices", "0", NULL}, "0 devices");
  expect_refused((const char *[]){"--epochs", "x", NULL}, "epochs x");
  expect_refused((const char *[]){"--model", "resnet", NULL},
                 "a model it does not know");
  expect_refused((const char *[]){"--svg", w_svg, "--svg-window", "5:2", NULL},
                 "window ending before it starts");
  expect_refused((const char *[]){"--svg", w_svg, "--svg-window", "5", NULL},
                 "window without an end");
}

static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)n + 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

static size_t slices_in(const char *path) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t count = 0;
  char line[4096];
  while (fgets(line, sizeof line, f))
    count += strstr(line, "class=\"slice\"") != NULL;
  fclose(f);
  return count;
}

/* The largest time label on an SVG's axis, in ms (0 when it has none). */
static double last_tick_ms(const char *path) {
  size_t size;
  char *svg = read_file(path, &size);
  assert_non_null(svg);
  svg[size] = '\0';
  double last = 0;
  for (const char *at = svg; (at = strstr(at, " ms</text>")) != NULL; at++) {
    const char *start = at;
    while (start > svg && start[-1] != '>')
      start--;
    double ms = strtod(start, NULL);
    last = ms > last ? ms : last;
  }
  free(svg);
  return last;
}

/* --svg-window draws a part of the run: slices on an axis that ends at the
 * window's end, where the whole run's axis goes on (slice counts cannot be
 * compared: the whole picture merges sub-pixel slices, the more the longer
 * the run); a window past the run's end has none and fails. */
static void test_svg_window(void **state) {
  (void)state;
  const char *whole[] = {"--epochs", "1",       "--trace", w_json,
                         "--svg",    whole_svg, NULL};
  json_decref(train_json(whole));
  const char *part[] = {"--epochs",     "1",     "--trace",
                        w_json,         "--svg", part_svg,
                        "--svg-window", "0:5",   NULL};
  json_decref(train_json(part));
  assert_true(slices_in(part_svg) > 0);
  assert_true(last_tick_ms(part_svg) <= 5.0);
  assert_true(last_tick_ms(whole_svg) > 5.0);
  /* A window later in the run: its axis starts at the window's start (the
   * time since the trace's first event), not at 0. Windows of 5 and 20 ms:
   * a 1 ms one could fall in a gap when a loaded machine stalls the run. */
  const char *later[] = {"--epochs",     "1",     "--trace",
                         w_json,         "--svg", part_svg,
                         "--svg-window", "20:40", NULL};
  json_decref(train_json(later));
  size_t size;
  char *svg = read_file(part_svg, &size);
  assert_non_null(svg);
  svg[size] = '\0';
  assert_non_null(strstr(svg, ">20 ms</text>"));
  assert_null(strstr(svg, ">0 ms</text>"));
  free(svg);
  expect_refused((const char *[]){"--epochs", "1", "--trace", w_json, "--svg",
                                  part_svg, "--svg-window", "1000000:1000001",
                                  NULL},
                 "window past the end");
  unlink(w_json);
  unlink(whole_svg);
  unlink(part_svg);
}

/* A long run's picture stays small (sub-pixel slices and arrows are
 * merged; a 2-epoch run made 3.6 MB before), and its legend names the ops
 * by colour. 3 epochs: a 3.6 MB trace, 0.3 MB of picture. */
static void test_svg_bounded_with_legend(void **state) {
  (void)state;
  const char *args[] = {"--epochs", "3",      "--trace", long_json,
                        "--svg",    long_svg, NULL};
  json_decref(train_json(args));
  size_t size;
  char *svg = read_file(long_svg, &size);
  assert_non_null(svg);
  svg[size] = '\0';
  printf("3-epoch timeline: %zu bytes\n", size);
  assert_true(size < 1000000);
  assert_non_null(strstr(svg, "class=\"legend\""));
  assert_non_null(strstr(svg, ">diopiLinearBackward "));
  free(svg);
  unlink(long_json);
  unlink(long_svg);
}

/* Two rank processes on shared memory: they train, rank 0 reports both
 * ranks' time split, and they leave nothing. */
static void test_two_processes(void **state) {
  (void)state;
  char *before = shm_names();
  json_t *root =
      train_json((const char *[]){"--processes", "2", "--epochs", "4", NULL});
  assert_int_equal((int)number(root, "ranks"), 2);
  assert_true(number(root, "test_accuracy") >= 0.9);
  /* Rank 1's row too, gathered from its process. */
  json_t *devices = json_object_get(root, "devices");
  assert_int_equal(json_array_size(devices), 2);
  for (size_t i = 0; i < 2; i++) {
    json_t *row = json_array_get(devices, i);
    assert_int_equal((int)number(row, "rank"), (int)i);
    assert_true(number(row, "compute_s") > 0);
    assert_true(number(row, "communication_s") > 0);
  }
  json_decref(root);
  expect_no_new_shm(before);
  free(before);
}

/* ---- Checkpoints ----------------------------------------------------------
 */

static int spawn_train(const char *dir, const char *epochs) {
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    execl(BP_TOOL_PATH, BP_TOOL_PATH, "train", "--epochs", epochs,
          "--checkpoint", dir, "--checkpoint-every", "10", (char *)NULL);
    _exit(127);
  }
  return pid;
}

static void run_to_end(const char *dir, const char *epochs) {
  int status;
  waitpid(spawn_train(dir, epochs), &status, 0);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

/* A run killed with SIGKILL in mid-step, once a checkpoint exists, then
 * resumed, ends with exactly the bytes (parameters, moments, step,
 * generator) of an uninterrupted run's final checkpoint. */
static void test_sigkill_then_resume_matches(void **state) {
  (void)state;
  char whole[] = "/tmp/bp-train-whole-XXXXXX",
       killed[] = "/tmp/bp-train-killed-XXXXXX";
  assert_non_null(mkdtemp(whole));
  assert_non_null(mkdtemp(killed));
  run_to_end(whole, "15");
  char path[256];
  snprintf(path, sizeof path, "%s/checkpoint.bin", killed);
  pid_t pid = spawn_train(killed, "15");
  struct timespec ms = {0, 1000000};
  for (int i = 0; i < 20000 && access(path, F_OK) != 0; i++)
    nanosleep(&ms, NULL);
  nanosleep(&(struct timespec){0, 20000000}, NULL);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  assert_true(WIFSIGNALED(status)); /* it was still training */
  run_to_end(killed, "15");
  size_t a_size, b_size;
  char whole_path[256];
  snprintf(whole_path, sizeof whole_path, "%s/checkpoint.bin", whole);
  char *a = read_file(whole_path, &a_size), *b = read_file(path, &b_size);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(a_size, b_size);
  assert_memory_equal(a, b, a_size);
  free(a);
  free(b);
  unlink(whole_path);
  unlink(path);
  rmdir(whole);
  rmdir(killed);
}

/* The pid of a child of `parent`, or 0 (scans /proc). */
static pid_t child_of(pid_t parent) {
  DIR *proc = opendir("/proc");
  pid_t found = 0;
  for (struct dirent *e; proc && !found && (e = readdir(proc));) {
    char path[300], stat[512];
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *after_name = strrchr(stat, ')'); /* "pid (comm) S ppid" */
    int ppid;
    if (after_name && sscanf(after_name, ") %*c %d", &ppid) == 1 &&
        ppid == parent)
      found = (pid_t)atoi(e->d_name);
  }
  if (proc)
    closedir(proc);
  return found;
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char *slurp(const char *path) {
  size_t size;
  char *text = read_file(path, &size);
  assert_non_null(text);
  text[size] = '\0';
  return text;
}

/* Whether `pid`'s environment holds the entry `entry` ("RANK=1"). */
static int has_environment(pid_t pid, const char *entry) {
  char path[64], all[65536];
  snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
  FILE *f = fopen(path, "rb"); /* /proc files have no size: read them */
  size_t size = f ? fread(all, 1, sizeof all - 1, f) : 0;
  if (f)
    fclose(f);
  all[size] = '\0';
  int found = 0;
  for (size_t at = 0; at < size; at += strlen(all + at) + 1)
    found |= strcmp(all + at, entry) == 0;
  return found;
}

/* The launcher watches its ranks: rank 1 SIGKILLed mid-run ends the
 * command (status 1) within a few seconds, naming the rank, its pid and the
 * signal; /dev/shm keeps nothing. The rank had RANK, WORLD_SIZE,
 * LOCAL_RANK and LOCAL_WORLD_SIZE in its environment. */
static void test_killed_rank_stops_the_run(void **state) {
  (void)state;
  char *before = shm_names();
  char out[] = "/tmp/bp-train-watch-out-XXXXXX",
       err[] = "/tmp/bp-train-watch-err-XXXXXX";
  close(mkstemp(out));
  close(mkstemp(err));
  pid_t pid = fork();
  if (pid == 0) {
    freopen(out, "w", stdout);
    freopen(err, "w", stderr);
    execl(BP_TOOL_PATH, BP_TOOL_PATH, "train", "--processes", "2", "--epochs",
          "1000", (char *)NULL);
    _exit(127);
  }
  struct timespec ms = {0, 1000000};
  pid_t rank1 = 0;
  int training = 0;
  for (int i = 0; i < 20000 && !training; i++) { /* up to ~20 s */
    nanosleep(&ms, NULL);
    if (!rank1)
      rank1 = child_of(pid);
    char *text = slurp(out);
    training = rank1 && strstr(text, "\nepoch ") != NULL;
    free(text);
  }
  assert_true(training);
  assert_true(has_environment(rank1, "RANK=1"));
  assert_true(has_environment(rank1, "WORLD_SIZE=2"));
  assert_true(has_environment(rank1, "LOCAL_RANK=1"));
  assert_true(has_environment(rank1, "LOCAL_WORLD_SIZE=2"));
  double start = seconds_now();
  kill(rank1, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  double seconds = seconds_now() - start;
  printf("killed rank 1: the command ended %.3f s later\n", seconds);
  assert_true(seconds < 5);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 1);
  char *text = slurp(err), expected[96];
  snprintf(expected, sizeof expected, "rank 1 (pid %d) was killed by signal %d",
           (int)rank1, SIGKILL);
  if (!strstr(text, expected))
    fail_msg("'%s' not in: %s", expected, text);
  free(text);
  unlink(out);
  unlink(err);
  expect_no_new_shm(before);
  free(before);
}

/* Two processes started with RANK and WORLD_SIZE in their environment (as
 * torchrun or another launcher starts them), without --processes, join
 * one world and train, and leave no id file behind: a later job of the same
 * name (mpirun recycles job ids with its pid) must not read this one's. */
static void test_ranks_from_a_launcher_join(void **state) {
  (void)state;
  char out[] = "/tmp/bp-train-launched-XXXXXX", job[64];
  close(mkstemp(out));
  snprintf(job, sizeof job, "test-%d", (int)getpid());
  pid_t ranks[2];
  for (int r = 0; r < 2; r++) {
    ranks[r] = fork();
    if (ranks[r] == 0) {
      char rank[8];
      snprintf(rank, sizeof rank, "%d", r);
      setenv("RANK", rank, 1);
      setenv("WORLD_SIZE", "2", 1);
      setenv("BACKPLANE_TRAIN_JOB", job, 1);
      freopen(r == 0 ? out : "/dev/null", "w", stdout);
      execl(BP_TOOL_PATH, BP_TOOL_PATH, "train", "--epochs", "2", (char *)NULL);
      _exit(127);
    }
  }
  for (int r = 0; r < 2; r++) {
    int status;
    waitpid(ranks[r], &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
  }
  char *text = slurp(out);
  assert_non_null(strstr(text, "2 ranks ("));
  assert_non_null(strstr(text, "test accuracy"));
  free(text);
  unlink(out);
  const char *tmp = getenv("TMPDIR");
  char id_file[PATH_MAX];
  snprintf(id_file, sizeof id_file, "%s/backplane-train-%s.id",
           tmp && *tmp ? tmp : "/tmp", job);
  if (access(id_file, F_OK) == 0)
    fail_msg("%s is left behind", id_file);
}

/* `--processes 2` with checkpoints: a run whose rank process 1 is killed
 * with SIGKILL (then the rest of its process group: rank 0 would wait for
 * the dead peer), resumed with --processes 2, says where it resumed and ends
 * with the uninterrupted run's final loss and final checkpoint, byte for
 * byte. Resuming the finished checkpoint again says it is finished. */
static void test_two_processes_killed_then_resumed(void **state) {
  (void)state;
  char whole[] = "/tmp/bp-train-mp-whole-XXXXXX",
       killed[] = "/tmp/bp-train-mp-killed-XXXXXX";
  assert_non_null(mkdtemp(whole));
  assert_non_null(mkdtemp(killed));
  json_t *uninterrupted = train_json(
      (const char *[]){"--processes", "2", "--epochs", "10", "--checkpoint",
                       whole, "--checkpoint-every", "10", NULL});
  double final_loss = number(uninterrupted, "final_loss");
  size_t total = (size_t)number(uninterrupted, "steps");
  json_decref(uninterrupted);

  char path[256];
  snprintf(path, sizeof path, "%s/checkpoint.bin", killed);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    freopen("/dev/null", "w", stdout);
    execl(BP_TOOL_PATH, BP_TOOL_PATH, "train", "--processes", "2", "--epochs",
          "10", "--checkpoint", killed, "--checkpoint-every", "10",
          (char *)NULL);
    _exit(127);
  }
  setpgid(pid, pid);
  struct timespec ms = {0, 1000000};
  for (int i = 0; i < 20000 && access(path, F_OK) != 0; i++)
    nanosleep(&ms, NULL);
  pid_t rank1 = 0;
  for (int i = 0; i < 1000 && !(rank1 = child_of(pid)); i++)
    nanosleep(&ms, NULL);
  assert_true(rank1 > 0);
  kill(rank1, SIGKILL);
  kill(-pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  assert_true(WIFSIGNALED(status));

  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"train", "--processes", "2", "--epochs", "10",
                                "--checkpoint", killed, NULL},
               NULL, &run),
      0);
  assert_int_equal(run.exit_code, 0);
  size_t resumed = 0, of = 0;
  const char *line = strstr(run.out, "resumed from step ");
  assert_non_null(line);
  assert_int_equal(sscanf(line, "resumed from step %zu of %zu", &resumed, &of),
                   2);
  assert_int_equal(of, total);
  assert_true(resumed > 0 && resumed < total); /* it was killed mid-run */
  char expected[64];
  snprintf(expected, sizeof expected, "final loss %.4f ", final_loss);
  assert_non_null(strstr(run.out, expected));
  tool_run_release(&run);

  json_t *again = train_json((const char *[]){
      "--processes", "2", "--epochs", "10", "--checkpoint", killed, NULL});
  assert_int_equal((int)number(again, "steps"), 0);
  assert_true(json_is_null(json_object_get(again, "final_loss")));
  assert_true(json_is_true(json_object_get(again, "already_finished")));
  json_decref(again);
  assert_int_equal(
      tool_run((const char *[]){"train", "--processes", "2", "--epochs", "10",
                                "--checkpoint", killed, NULL},
               NULL, &run),
      0);
  assert_int_equal(run.exit_code, 0);
  assert_non_null(strstr(run.out, "the run is finished"));
  assert_null(strstr(run.out, "final loss"));
  tool_run_release(&run);

  char whole_path[256];
  snprintf(whole_path, sizeof whole_path, "%s/checkpoint.bin", whole);
  size_t a_size, b_size;
  char *a = read_file(whole_path, &a_size), *b = read_file(path, &b_size);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(a_size, b_size);
  assert_memory_equal(a, b, a_size);
  free(a);
  free(b);
  char command[600];
  snprintf(command, sizeof command, "rm -rf '%s' '%s'", whole, killed);
  assert_int_equal(system(command), 0);
}

/* Truncated or flipped checkpoints: refused with a message, nothing run. */
static void test_corrupt_checkpoint_refused(void **state) {
  (void)state;
  char dir[] = "/tmp/bp-train-corrupt-XXXXXX";
  assert_non_null(mkdtemp(dir));
  run_to_end(dir, "1");
  char path[256];
  snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
  size_t size;
  char *data = read_file(path, &size);
  assert_non_null(data);
  for (int variant = 0; variant < 2; variant++) {
    FILE *f = fopen(path, "wb");
    if (variant == 0) {
      fwrite(data, 1, size / 2, f); /* truncated */
    } else {
      data[size / 3] ^= 0x40; /* one bit flipped */
      fwrite(data, 1, size, f);
    }
    fclose(f);
    expect_refused((const char *[]){"--epochs", "2", "--checkpoint", dir, NULL},
                   variant ? "flipped bit" : "truncated");
  }
  free(data);
  unlink(path);
  rmdir(dir);
}

int main(void) {
  if (!mkdtemp(scratch_dir)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(long_json, sizeof long_json, "%s/long.json", scratch_dir);
  snprintf(long_svg, sizeof long_svg, "%s/long.svg", scratch_dir);
  snprintf(names_json, sizeof names_json, "%s/names.json", scratch_dir);
  snprintf(part_svg, sizeof part_svg, "%s/part.svg", scratch_dir);
  snprintf(w_json, sizeof w_json, "%s/w.json", scratch_dir);
  snprintf(w_svg, sizeof w_svg, "%s/w.svg", scratch_dir);
  snprintf(whole_svg, sizeof whole_svg, "%s/whole.svg", scratch_dir);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults_reach_95_percent),
      cmocka_unit_test(test_same_run_twice_same_numbers),
      cmocka_unit_test(test_one_device_matches_two),
      cmocka_unit_test(test_cnn_reaches_95_percent),
      cmocka_unit_test(test_opencl_trains_like_vcpu),
      cmocka_unit_test(test_device_type_without_enough_devices),
      cmocka_unit_test(test_reference_ops_refuse_buffers),
      cmocka_unit_test(test_trace_names_ops),
      cmocka_unit_test(test_bad_input_is_refused),
      cmocka_unit_test(test_svg_window),
      cmocka_unit_test(test_svg_bounded_with_legend),
      cmocka_unit_test(test_two_processes),
      cmocka_unit_test(test_sigkill_then_resume_matches),
      cmocka_unit_test(test_two_processes_killed_then_resumed),
      cmocka_unit_test(test_corrupt_checkpoint_refused),
      cmocka_unit_test(test_killed_rank_stops_the_run),
      cmocka_unit_test(test_ranks_from_a_launcher_join),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  unlink(long_json);
  unlink(long_svg);
  unlink(names_json);
  unlink(part_svg);
  unlink(w_json);
  unlink(w_svg);
  unlink(whole_svg);
  rmdir(scratch_dir);
  return failed;
}
