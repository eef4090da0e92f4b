/* `backplane target [--device D] [--json] [TARGET]`: a canonical target.
 * TARGET (JSON or short form, e.g. `vcpu -num_cores=2`, quoted or not) is
 * parsed, validated and printed with its defaults; --device D (an ordinal or
 * a name such as vcpu:1) prints that device's target; neither prints every
 * device's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/backplane.h"
#include "cli/cli_json.h"
#include "cli/cli_options.h"
#include "cli/cli_output.h"
#include "cli/cli_runtime.h"
#include "commands.h"

/* The command line split into the target text (bare words and `-name=value`
 * words, joined by spaces), --device's value and the rest for
 * cli_options_parse. */
typedef struct target_args {
  char *text; /* NULL if no target was given */
  const char *device;
  int rest_count;
  char **rest;
} target_args_t;

static int split_args(int argc, char **argv, target_args_t *out) {
  memset(out, 0, sizeof(*out));
  out->rest = calloc((size_t)argc + 1, sizeof(char *));
  size_t length = 1;
  for (int i = 0; i < argc; i++)
    length += strlen(argv[i]) + 1;
  char *text = calloc(length, 1);
  if (!out->rest || !text) {
    free(text);
    fprintf(stderr, "backplane target: out of memory\n");
    return 1;
  }
  for (int i = 0; i < argc; i++) {
    const char *word = argv[i];
    if (!strcmp(word, "--device")) {
      if (i + 1 >= argc) {
        free(text);
        fprintf(stderr, "backplane target: missing value after '--device'\n");
        return 2;
      }
      out->device = argv[++i];
    } else if (!strcmp(word, "--plugin-path") && i + 1 < argc) {
      out->rest[out->rest_count++] = argv[i++];
      out->rest[out->rest_count++] = argv[i];
    } else if (word[0] != '-' || (word[1] != '-' && word[1] != '\0')) {
      if (*text)
        strcat(text, " ");
      strcat(text, word);
    } else {
      out->rest[out->rest_count++] = argv[i];
    }
  }
  if (*text)
    out->text = text;
  else
    free(text);
  return 0;
}

static void release_args(target_args_t *args) {
  free(args->text);
  free(args->rest);
}

/* One target as a line: its label and canonical JSON. */
static void print_target(const char *label, const bp_target_t *target) {
  char *json = NULL;
  if (bp_target_to_json(target, &json) != BP_OK) {
    fprintf(cli_out(), "%s: %s\n", label, bp_last_error());
    return;
  }
  fprintf(cli_out(), "%s: %s\n", label, json);
  free(json);
}

static json_t *target_json(const bp_target_t *target) {
  char *text = NULL;
  if (bp_target_to_json(target, &text) != BP_OK)
    return NULL;
  json_t *json = json_loads(text, 0, NULL);
  free(text);
  return json;
}

/* The device named by `word`: an ordinal or a device name. */
static bp_status_t find_device(bp_runtime_t *runtime, const char *word,
                               bp_device_t **out_device) {
  char *end;
  unsigned long ordinal = strtoul(word, &end, 10);
  if (*word && !*end)
    return bp_device_at(runtime, ordinal, out_device);
  for (size_t d = 0; d < bp_device_count(runtime); d++) {
    bp_device_t *device;
    if (bp_device_at(runtime, d, &device) == BP_OK &&
        !strcmp(bp_device_name(device), word)) {
      *out_device = device;
      return BP_OK;
    }
  }
  return BP_ERR_NOT_FOUND;
}

/* Prints the targets of every device (or of `only`). */
static int device_targets(bp_runtime_t *runtime, const char *only, int json) {
  json_t *array = json ? json_array() : NULL;
  int failed = 0;
  for (size_t d = 0; d < bp_device_count(runtime); d++) {
    bp_device_t *device;
    if (bp_device_at(runtime, d, &device) != BP_OK)
      continue;
    if (only) {
      bp_device_t *wanted;
      if (find_device(runtime, only, &wanted) != BP_OK) {
        fprintf(stderr, "backplane target: no device '%s'\n", only);
        json_decref(array);
        return 1;
      }
      if (wanted != device)
        continue;
    }
    bp_target_t *target;
    bp_status_t status = bp_target_from_device(device, &target);
    if (status != BP_OK) {
      failed |= only != NULL;
      if (json)
        json_array_append_new(array, json_pack("{s:s, s:n, s:s}", "device",
                                               bp_device_name(device), "target",
                                               "error", bp_last_error()));
      else
        fprintf(cli_out(), "%s: none (%s)\n", bp_device_name(device),
                bp_last_error());
      continue;
    }
    if (json)
      json_array_append_new(array, json_pack("{s:s, s:o*}", "device",
                                             bp_device_name(device), "target",
                                             target_json(target)));
    else
      print_target(bp_device_name(device), target);
    bp_target_destroy(target);
  }
  if (json && cli_json_print(array))
    return 1;
  return failed;
}

static int parse_and_print(const char *text, int json) {
  bp_target_t *target;
  if (bp_target_parse(text, &target) != BP_OK) {
    fprintf(stderr, "backplane target: %s\n", bp_last_error());
    return 1;
  }
  int result = 0;
  if (json)
    result = cli_json_print(target_json(target)) ? 1 : 0;
  else
    print_target(bp_target_kind(target), target);
  bp_target_destroy(target);
  return result;
}

int cmd_target(int argc, char **argv) {
  target_args_t args;
  int result = split_args(argc, argv, &args);
  cli_options_t options;
  if (!result)
    result =
        cli_options_parse("target", args.rest_count, args.rest, 0, &options);
  if (result) {
    release_args(&args);
    return result;
  }
  bp_runtime_t *runtime = NULL;
  if (args.text && args.device) {
    fprintf(stderr, "backplane target: give a TARGET or --device, not both\n");
    result = 2;
  } else if (cli_runtime_open(&options, &runtime) != BP_OK) {
    result = 1;
  } else if (args.text) {
    /* Parsed with the runtime open: a plugin's target kind (opencl, ...)
     * exists only while a runtime holds the plugin. */
    result = parse_and_print(args.text, options.json);
  } else {
    result = device_targets(runtime, args.device, options.json);
  }
  if (runtime)
    bp_runtime_destroy(runtime);
  cli_options_release(&options);
  release_args(&args);
  return result;
}
