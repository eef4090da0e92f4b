/* `backplane memory`: the caching allocator of each device (of --plugin
 * NAME, or of every plugin): its sizing (seed 003's hints, with the defaulted
 * ones marked) and its statistics. Words after the options:
 *   replay         first replays a few iterations of a training trace on the
 *                  first device, keeping its parameters allocated, so there
 *                  is something to look at;
 *   snapshot FILE  writes the first device's JSON snapshot to FILE;
 *   svg FILE       writes its picture (one row per chunk) to FILE (also
 *                  --svg FILE, as `train` and `trace` take it).
 * With --json, prints every device's snapshot as a JSON array.
 * Any other word names an existing saved snapshot to read instead of
 * opening a runtime (else it is a usage error):
 * an allocator history (BACKPLANE_MEMORY_HISTORY, bp_memory_history_dump)
 * is summarized per device and stream (--json: the summary's JSON), and
 * either kind is drawn by --svg FILE. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backplane/backplane.h"
#include "bench/alloc_trace.h"
#include "cli/cli_format.h"
#include "cli/cli_json.h"
#include "cli/cli_options.h"
#include "cli/cli_output.h"
#include "cli/cli_runtime.h"
#include "commands.h"

enum { REPLAY_ITERATIONS = 3 };

typedef struct memory_request {
  bool replay;
  const char *input_path; /* a saved snapshot to read */
  const char *snapshot_path;
  const char *svg_path;
} memory_request_t;

static int parse_words(const cli_options_t *options, memory_request_t *out) {
  for (size_t i = 0; i < options->positional_count; i++) {
    const char *word = options->positional[i];
    const char **path = !strcmp(word, "snapshot") ? &out->snapshot_path
                        : !strcmp(word, "svg")    ? &out->svg_path
                                                  : NULL;
    if (!strcmp(word, "replay")) {
      out->replay = true;
    } else if (path && i + 1 < options->positional_count) {
      *path = options->positional[++i];
    } else if (!path && !out->input_path && access(word, F_OK) == 0) {
      out->input_path = word;
    } else {
      /* A mistyped word, not a missing file: SNAPSHOT must exist. */
      fprintf(stderr,
              "backplane memory: unexpected '%s': not a word of the command "
              "nor an existing snapshot file (usage: backplane memory "
              "[--plugin NAME] [--json] [replay] [snapshot FILE] [--svg "
              "FILE] | SNAPSHOT [--json] [--svg FILE])\n",
              word);
      return 2;
    }
  }
  if (out->input_path &&
      (out->replay || out->snapshot_path || options->plugin)) {
    fprintf(stderr, "backplane memory: SNAPSHOT takes only --json and --svg "
                    "FILE\n");
    return 2;
  }
  return 0;
}

static int device_allocate(void *context, size_t size, void **out_ptr) {
  return (int)bp_device_malloc(context, size, out_ptr);
}
static int device_release(void *context, void *ptr) {
  return (int)bp_device_free(context, ptr);
}

/* Replays a small training trace, leaving the setup allocations (the
 * parameters) live; *out_slots holds them for the caller to free. */
static bp_status_t replay(bp_device_t *device, alloc_trace_t *trace,
                          void ***out_slots) {
  alloc_trace_shape_t shape = {.layers = 4,
                               .batch = 4,
                               .sequence = 128,
                               .hidden = 256,
                               .heads = 4,
                               .vocabulary = 8000};
  if (!alloc_trace_training(&shape, trace))
    return BP_ERR_OUT_OF_MEMORY;
  void **slots = calloc(trace->slots, sizeof *slots);
  alloc_trace_target_t target = {device, device_allocate, device_release};
  int failed = !slots || alloc_trace_run(trace, true, slots, &target);
  for (int i = 0; i < REPLAY_ITERATIONS && !failed; i++)
    failed = alloc_trace_run(trace, false, slots, &target);
  *out_slots = slots;
  return failed ? BP_ERR_OUT_OF_MEMORY : BP_OK;
}

static void print_config(const bp_allocator_config_t *c) {
  static const char *const names[] = {"min_chunk_size",  "max_chunk_size",
                                      "max_alloc_size",  "extra_padding_size",
                                      "init_alloc_size", "realloc_size"};
  const size_t values[] = {c->min_chunk_size,  c->max_chunk_size,
                           c->max_alloc_size,  c->extra_padding_size,
                           c->init_alloc_size, c->realloc_size};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    char text[32];
    if (values[i] == SIZE_MAX)
      snprintf(text, sizeof text, "unlimited");
    else
      cli_format_bytes(values[i], text, sizeof text);
    fprintf(cli_out(), "  %-20s %12s%s\n", names[i], text,
            c->defaulted & 1u << i ? "  (default)" : "");
  }
}

static void print_stat(const char *name, const bp_memory_stat_t *s) {
  char current[32], peak[32], allocated[32], freed[32];
  fprintf(cli_out(), "  %-22s %12s %12s %12s %12s\n", name,
          cli_format_bytes(s->current, current, sizeof current),
          cli_format_bytes(s->peak, peak, sizeof peak),
          cli_format_bytes(s->allocated, allocated, sizeof allocated),
          cli_format_bytes(s->freed, freed, sizeof freed));
}

static int print_device(bp_device_t *device) {
  bp_allocator_config_t config;
  bp_memory_stats_t s;
  if (bp_device_allocator_config(device, &config) != BP_OK ||
      bp_device_memory_stats(device, &s) != BP_OK) {
    fprintf(stderr, "backplane memory: %s: %s\n", bp_device_name(device),
            bp_last_error());
    return 1;
  }
  fprintf(cli_out(), "%s\n", bp_device_name(device));
  print_config(&config);
  fprintf(cli_out(), "  %-22s %12s %12s %12s %12s\n", "", "current", "peak",
          "allocated", "freed");
  print_stat("allocated_bytes", &s.allocated_bytes);
  print_stat("reserved_bytes", &s.reserved_bytes);
  print_stat("active_bytes", &s.active_bytes);
  print_stat("inactive_split_bytes", &s.inactive_split_bytes);
  print_stat("requested_bytes", &s.requested_bytes);
  fprintf(cli_out(),
          "  num_alloc_retries %llu, num_ooms %llu, num_device_alloc %llu, "
          "num_device_free %llu\n\n",
          (unsigned long long)s.num_alloc_retries,
          (unsigned long long)s.num_ooms,
          (unsigned long long)s.num_device_alloc,
          (unsigned long long)s.num_device_free);
  return 0;
}

static json_t *device_json(bp_device_t *device) {
  char *text;
  if (bp_device_memory_snapshot(device, &text) != BP_OK)
    return json_pack("{s:s, s:s}", "device", bp_device_name(device), "error",
                     bp_last_error());
  json_t *snapshot = json_loads(text, 0, NULL);
  free(text);
  return snapshot;
}

static int write_text(const char *path, const char *text) {
  FILE *file = fopen(path, "w");
  bool ok = file && fputs(text, file) >= 0;
  if (file && fclose(file) != 0)
    ok = false;
  if (!ok)
    fprintf(stderr, "backplane memory: cannot write %s\n", path);
  return ok ? 0 : 1;
}

/* Writes the snapshot and/or picture of `device`. */
static int write_files(bp_device_t *device, const memory_request_t *request) {
  if (!request->snapshot_path && !request->svg_path)
    return 0;
  char *json = NULL, *svg = NULL;
  int result = 0;
  if (bp_device_memory_snapshot(device, &json) != BP_OK ||
      (request->svg_path && bp_memory_snapshot_to_svg(json, &svg) != BP_OK)) {
    fprintf(stderr, "backplane memory: %s\n", bp_last_error());
    result = 1;
  }
  if (!result && request->snapshot_path)
    result = write_text(request->snapshot_path, json);
  if (!result && svg)
    result = write_text(request->svg_path, svg);
  free(json);
  free(svg);
  return result;
}

/* The whole of `path`, NUL-terminated (caller frees), or NULL with a
 * message on stderr. */
static char *read_text(const char *path) {
  FILE *file = fopen(path, "rb");
  char *text = NULL;
  size_t length = 0;
  FILE *buffer = file ? open_memstream(&text, &length) : NULL;
  char chunk[65536];
  size_t n;
  bool ok = buffer != NULL;
  while (ok && (n = fread(chunk, 1, sizeof chunk, file)) > 0)
    ok = fwrite(chunk, 1, n, buffer) == n;
  ok = ok && !ferror(file);
  if (buffer)
    fclose(buffer);
  if (file)
    fclose(file);
  if (!ok) {
    fprintf(stderr, "backplane memory: cannot read %s\n", path);
    free(text);
    return NULL;
  }
  return text;
}

static size_t integer_of(json_t *object, const char *key) {
  return (size_t)json_integer_value(json_object_get(object, key));
}

static void print_history_device(json_t *d) {
  char peak[32], live[32], reserved[32];
  fprintf(cli_out(),
          "%s: %zu alloc(s), %zu free(s) (%zu without their alloc), %zu "
          "chunk(s) taken, %zu given back, %zu oom(s)\n",
          json_string_value(json_object_get(d, "device")),
          integer_of(d, "allocs"), integer_of(d, "frees"),
          integer_of(d, "unmatched_frees"), integer_of(d, "segment_allocs"),
          integer_of(d, "segment_frees"), integer_of(d, "ooms"));
  fprintf(cli_out(),
          "  peak %s live at %.3f ms (event %zu); %s live in %zu block(s) "
          "at the end; reserved peak %s\n",
          cli_format_bytes(integer_of(d, "peak_bytes"), peak, sizeof peak),
          (double)integer_of(d, "peak_time_ns") / 1e6,
          integer_of(d, "peak_event"),
          cli_format_bytes(integer_of(d, "live_bytes"), live, sizeof live),
          integer_of(d, "live_blocks"),
          cli_format_bytes(integer_of(d, "peak_reserved_bytes"), reserved,
                           sizeof reserved));
  size_t i;
  json_t *s;
  json_array_foreach(json_object_get(d, "streams"), i, s) {
    fprintf(cli_out(), "  stream %-18s %6zu alloc(s)  peak %12s  live %12s\n",
            json_string_value(json_object_get(s, "stream")),
            integer_of(s, "allocs"),
            cli_format_bytes(integer_of(s, "peak_bytes"), peak, sizeof peak),
            cli_format_bytes(integer_of(s, "live_bytes"), live, sizeof live));
  }
}

static int print_history(const char *summary_text, bool as_json) {
  json_t *summary = json_loads(summary_text, 0, NULL);
  if (!summary)
    return 1;
  if (as_json)
    return cli_json_print(summary) ? 1 : 0;
  fprintf(cli_out(),
          "memory history: %zu event(s) over %.3f ms, %zu dropped (ring of "
          "%zu)\n",
          integer_of(summary, "events"),
          (double)integer_of(summary, "duration_ns") / 1e6,
          integer_of(summary, "dropped"), integer_of(summary, "max_events"));
  size_t i;
  json_t *d;
  json_array_foreach(json_object_get(summary, "devices"), i, d)
      print_history_device(d);
  json_decref(summary);
  return 0;
}

/* `backplane memory SNAPSHOT`: a saved history is summarized (an allocator
 * snapshot only drawn); --svg draws either. */
static int run_saved(const cli_options_t *options,
                     const memory_request_t *request) {
  char *text = read_text(request->input_path);
  if (!text)
    return 1;
  char *summary = NULL, *svg = NULL;
  int result = 0;
  if (bp_memory_history_summary(text, &summary) != BP_OK &&
      (!request->svg_path || options->json)) {
    fprintf(stderr, "backplane memory: %s: %s\n", request->input_path,
            bp_last_error());
    result = 1;
  }
  if (!result && summary)
    result = print_history(summary, options->json);
  if (!result && request->svg_path) {
    if (bp_memory_snapshot_to_svg(text, &svg) != BP_OK) {
      fprintf(stderr, "backplane memory: %s: %s\n", request->input_path,
              bp_last_error());
      result = 1;
    } else {
      result = write_text(request->svg_path, svg);
    }
  }
  free(summary);
  free(svg);
  free(text);
  return result;
}

static bool selected(const cli_options_t *options, bp_device_t *device) {
  return !options->plugin || !strcmp(bp_device_type(device), options->plugin);
}

static int run(bp_runtime_t *runtime, const cli_options_t *options,
               const memory_request_t *request) {
  bp_device_t *first = NULL;
  size_t count = bp_device_count(runtime);
  for (size_t i = 0; i < count && !first; i++) {
    bp_device_t *device;
    if (bp_device_at(runtime, i, &device) == BP_OK && selected(options, device))
      first = device;
  }
  if (!first) {
    fprintf(stderr, "backplane memory: no device%s%s\n",
            options->plugin ? " of plugin " : "",
            options->plugin ? options->plugin : "");
    return 1;
  }
  alloc_trace_t trace = {0};
  void **slots = NULL;
  int result = 0;
  if (request->replay && replay(first, &trace, &slots) != BP_OK) {
    fprintf(stderr, "backplane memory: replay on %s: %s\n",
            bp_device_name(first), bp_last_error());
    result = 1;
  }
  json_t *devices = options->json ? json_array() : NULL;
  for (size_t i = 0; i < count && !result; i++) {
    bp_device_t *device;
    if (bp_device_at(runtime, i, &device) != BP_OK ||
        !selected(options, device))
      continue;
    if (devices)
      json_array_append_new(devices, device_json(device));
    else
      result = print_device(device);
  }
  if (!result)
    result = write_files(first, request);
  if (devices)
    result = cli_json_print(devices) || result;
  if (slots) {
    alloc_trace_target_t target = {first, device_allocate, device_release};
    alloc_trace_release_all(&trace, slots, &target);
    free(slots);
  }
  alloc_trace_destroy(&trace);
  return result;
}

/* Takes `--svg FILE` (the form of `train` and `trace`) out of argv into
 * request->svg_path, leaving the other words in order; 2 when FILE is
 * missing. */
static int take_svg_option(int *argc, char **argv, memory_request_t *request) {
  int kept = 0;
  for (int i = 0; i < *argc; i++) {
    if (strcmp(argv[i], "--svg") != 0) {
      argv[kept++] = argv[i];
    } else if (i + 1 < *argc) {
      request->svg_path = argv[++i];
    } else {
      fprintf(stderr, "backplane memory: --svg needs a FILE\n");
      return 2;
    }
  }
  *argc = kept;
  return 0;
}

int cmd_memory(int argc, char **argv) {
  memory_request_t request = {0};
  int result = take_svg_option(&argc, argv, &request);
  if (result)
    return result;
  cli_options_t options;
  result = cli_options_parse("memory", argc, argv,
                             CLI_OPT_PLUGIN | CLI_OPT_POSITIONAL, &options);
  if (result)
    return result;
  result = parse_words(&options, &request);
  if (!result && request.input_path) {
    result = run_saved(&options, &request);
    cli_options_release(&options);
    return result;
  }
  bp_runtime_t *runtime = NULL;
  if (!result && cli_runtime_open(&options, &runtime) != BP_OK)
    result = 1;
  if (!result)
    result = run(runtime, &options, &request);
  bp_runtime_destroy(runtime);
  cli_options_release(&options);
  return result;
}
