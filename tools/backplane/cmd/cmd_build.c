/* `backplane build IR.json --target T [-o module.so] [--plugin-path DIR]
 * [--json]`: builds a tensor-expression module (or, with a .c file, C source
 * exporting the functions named by --function) for a target, through the
 * cache, and optionally copies the module (a shared object, OpenCL C for
 * opencl, CUDA C for cuda) to -o. No device is needed; a plugin's target
 * kind (opencl, cuda) is found by loading the plugins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/backplane.h"
#include "cli/cli_json.h"
#include "cli/cli_output.h"
#include "cli/cli_runtime.h"
#include "commands.h"

typedef struct build_args {
  const char *input, *target, *output;
  const char *functions[17]; /* --function NAME, for C source */
  size_t function_count;
  char *plugin_words[16]; /* --plugin-path DIR pairs, for cli_options */
  int plugin_word_count;
  int json;
} build_args_t;

static int usage(const char *why, const char *word) {
  fprintf(stderr, "backplane build: %s '%s' (see 'backplane build --help')\n",
          why, word);
  return 2;
}

static int parse_args(int argc, char **argv, build_args_t *args) {
  memset(args, 0, sizeof(*args));
  for (int i = 0; i < argc; i++) {
    const char *word = argv[i];
    int takes_value = !strcmp(word, "--target") || !strcmp(word, "-o") ||
                      !strcmp(word, "--function") ||
                      !strcmp(word, "--plugin-path");
    if (takes_value && i + 1 >= argc)
      return usage("missing value after", word);
    if (!strcmp(word, "--target"))
      args->target = argv[++i];
    else if (!strcmp(word, "-o"))
      args->output = argv[++i];
    else if (!strcmp(word, "--function") && args->function_count < 16)
      args->functions[args->function_count++] = argv[++i];
    else if (!strcmp(word, "--plugin-path") && args->plugin_word_count < 16) {
      args->plugin_words[args->plugin_word_count++] = argv[i];
      args->plugin_words[args->plugin_word_count++] = argv[++i];
    } else if (!strcmp(word, "--json"))
      args->json = 1;
    else if (word[0] == '-' || args->input)
      return usage("unexpected argument", word);
    else
      args->input = word;
  }
  if (!args->input || !args->target)
    return usage("needs an input file and --target", args->input ? "" : "");
  return 0;
}

static char *read_file(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  char *text = NULL;
  if (fseek(file, 0, SEEK_END) == 0) {
    long size = ftell(file);
    if (size >= 0 && size < (64L << 20) && fseek(file, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)size + 1)) != NULL) {
      size_t got = fread(text, 1, (size_t)size, file);
      text[got] = '\0';
    }
  }
  fclose(file);
  return text;
}

static int copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
  char buffer[65536];
  size_t length;
  int failed = !in || !out;
  while (!failed && (length = fread(buffer, 1, sizeof(buffer), in)) > 0)
    failed = fwrite(buffer, 1, length, out) != length;
  if (in)
    fclose(in);
  if (out)
    failed |= fclose(out) != 0;
  return failed ? -1 : 0;
}

/* A plugin's target kind (opencl, ...) exists only while a runtime holds
 * the plugin: on an unknown kind, load the plugins (*runtime, which the
 * caller destroys after the target) and parse again. */
static bp_status_t parse_target(build_args_t *args, bp_target_t **out,
                                bp_runtime_t **runtime) {
  bp_status_t status = bp_target_parse(args->target, out);
  if (status != BP_ERR_NOT_FOUND)
    return status;
  cli_options_t options;
  if (cli_options_parse("build", args->plugin_word_count, args->plugin_words, 0,
                        &options) == 0 &&
      cli_runtime_open(&options, runtime) == BP_OK)
    status = bp_target_parse(args->target, out);
  cli_options_release(&options);
  return status;
}

static int fail(const char *what) {
  fprintf(stderr, "backplane build: %s: %s\n", what, bp_last_error());
  return 1;
}

int cmd_build(int argc, char **argv) {
  build_args_t args;
  int result = parse_args(argc, argv, &args);
  if (result)
    return result;
  char *text = read_file(args.input);
  if (!text) {
    fprintf(stderr, "backplane build: cannot read '%s'\n", args.input);
    return 1;
  }
  size_t length = strlen(args.input);
  int is_c = length > 2 && !strcmp(args.input + length - 2, ".c");
  bp_ir_module_t *module = NULL;
  bp_target_t *target = NULL;
  bp_runtime_t *runtime = NULL;
  bp_built_module_t *built = NULL;
  if (is_c && !args.function_count) {
    fprintf(stderr, "backplane build: C source needs --function NAME\n");
    result = 2;
  } else if ((is_c ? bp_ir_module_from_c(text, args.functions, &module)
                   : bp_ir_module_parse(text, &module)) != BP_OK) {
    result = fail(args.input);
  } else if (parse_target(&args, &target, &runtime) != BP_OK) {
    result = fail("--target");
  } else if (bp_build(module, target, NULL, &built) != BP_OK) {
    result = fail(args.input);
  } else if (args.output &&
             copy_file(bp_built_module_path(built), args.output)) {
    fprintf(stderr, "backplane build: cannot write '%s'\n", args.output);
    result = 1;
  }
  if (!result) {
    const char *path = args.output ? args.output : bp_built_module_path(built);
    const char *built_path = bp_built_module_path(built);
    size_t built_length = strlen(built_path);
    /* OpenCL C or CUDA C: stage kernels that the plugin runs per launch */
    int device_source =
        built_length > 3 && (!strcmp(built_path + built_length - 3, ".cl") ||
                             !strcmp(built_path + built_length - 3, ".cu"));
    char *target_json = NULL;
    (void)bp_target_to_json(target, &target_json);
    json_t *functions = json_array();
    for (size_t f = 0; f < bp_ir_module_function_count(module); f++) {
      const char *name = bp_ir_module_function_name(module, f);
      json_array_append_new(
          functions,
          json_pack("{s:s, s:I}", "name", name, "blocks",
                    (json_int_t)bp_built_module_blocks(built, name)));
    }
    if (args.json) {
      result = cli_json_print(json_pack(
                   "{s:s, s:o*, s:b, s:o}", "module", path, "target",
                   target_json ? json_loads(target_json, 0, NULL) : NULL,
                   "from_cache", bp_built_module_from_cache(built), "functions",
                   functions))
                   ? 1
                   : 0;
    } else {
      fprintf(cli_out(), "built %s%s\n  target %s\n", path,
              bp_built_module_from_cache(built) ? " (from the cache)" : "",
              target_json ? target_json : "?");
      for (size_t f = 0; f < json_array_size(functions); f++) {
        json_t *entry = json_array_get(functions, f);
        const char *name = json_string_value(json_object_get(entry, "name"));
        long long blocks =
            (long long)json_integer_value(json_object_get(entry, "blocks"));
        if (device_source)
          fprintf(cli_out(),
                  "  function %s: kernels %s__s0... in one launch "
                  "(bp_generated_params_t param), %lld block(s)\n",
                  name, name, blocks);
        else
          fprintf(cli_out(),
                  "  function %s: unsigned int %s(void *param), %lld "
                  "block(s)\n",
                  name, name, blocks);
      }
      json_decref(functions);
    }
    free(target_json);
  }
  bp_built_module_destroy(built);
  bp_target_destroy(target);
  if (runtime)
    bp_runtime_destroy(runtime);
  bp_ir_module_destroy(module);
  free(text);
  return result;
}
