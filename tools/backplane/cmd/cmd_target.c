/* `backplane target [--device D] [--json] [TARGET]`: a canonical target.
 * TARGET (JSON or short form, e.g. `vcpu -num_cores=2`, quoted or not) is
 * parsed, validated and printed with its defaults; --device D (an ordinal or
 * a name such as vcpu:1) prints that device's target; neither prints every
 * device's, one line each after the device's name. A target prints as text
 * that TARGET parses back to itself (target_text); --json prints it as a
 * JSON object. */
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

/* Appends `-name=value` for one attribute of the canonical JSON; 0 when
 * the value has no short form (an object such as a host, text with spaces
 * or commas in a list, an empty string). */
static int append_attribute(char *out, size_t size, const char *name,
                            json_t *value) {
  size_t used = strlen(out);
  char *end = out + used;
  size_t left = size - used;
  if (json_is_integer(value))
    return (size_t)snprintf(end, left, " -%s=%" JSON_INTEGER_FORMAT, name,
                            json_integer_value(value)) < left;
  if (json_is_string(value)) {
    const char *text = json_string_value(value);
    return *text && !text[strcspn(text, " \t\n\r")] &&
           (size_t)snprintf(end, left, " -%s=%s", name, text) < left;
  }
  if (!json_is_array(value))
    return 0;
  int written = snprintf(end, left, " -%s=", name);
  size_t i;
  json_t *item;
  json_array_foreach(value, i, item) {
    const char *text = json_string_value(item);
    if (!text || !*text || text[strcspn(text, ", \t\n\r")] || written < 0 ||
        (size_t)written >= left)
      return 0;
    written += snprintf(end + written, left - (size_t)written, "%s%s",
                        i ? "," : "", text);
  }
  return written >= 0 && (size_t)written < left;
}

/* The target as text that `backplane target` parses back to an equal
 * target, as TVM prints a target: the short form (`vcpu -keys=vcpu,cpu
 * -num_cores=2 ...`, every attribute, sorted) when it says everything, else
 * the canonical JSON. The caller frees the result; NULL on failure. */
static char *target_text(const bp_target_t *target) {
  char *json_text = NULL;
  if (bp_target_to_json(target, &json_text) != BP_OK)
    return NULL;
  json_t *json = json_loads(json_text, 0, NULL);
  size_t size = 2 * strlen(json_text) + 64;
  char *text = json ? calloc(size, 1) : NULL;
  int short_form = text != NULL;
  if (short_form)
    snprintf(text, size, "%s", bp_target_kind(target));
  const char *name;
  json_t *value;
  json_object_foreach(json, name, value) {
    if (short_form && strcmp(name, "kind"))
      short_form = append_attribute(text, size, name, value);
  }
  json_decref(json);
  bp_target_t *again = NULL;
  if (short_form && (bp_target_parse(text, &again) != BP_OK ||
                     !bp_target_equal(target, again)))
    short_form = 0;
  bp_target_destroy(again);
  if (short_form) {
    free(json_text);
    return text;
  }
  free(text);
  return json_text;
}

/* One target as a line: its canonical text, after `label` when given. */
static int print_target(const char *label, const bp_target_t *target) {
  char *text = target_text(target);
  if (!text) {
    fprintf(stderr, "backplane target: %s\n", bp_last_error());
    return 1;
  }
  if (label)
    fprintf(cli_out(), "%-10s %s\n", label, text);
  else
    fprintf(cli_out(), "%s\n", text);
  free(text);
  return 0;
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
      failed |= print_target(only ? NULL : bp_device_name(device), target);
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
    result = print_target(NULL, target);
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
