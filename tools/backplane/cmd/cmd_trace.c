/* `backplane trace [-o FILE] [--svg FILE] [--plugin-path DIR] -- COMMAND...`:
 * runs COMMAND with the trace layer added to BACKPLANE_LAYERS and
 * BACKPLANE_TRACE_FILE set to FILE (default backplane-trace.json), so every
 * runtime it destroys writes its trace there; then optionally draws the
 * trace as an SVG timeline. Exit code: COMMAND's when it failed, 1 when no
 * trace was written or the picture failed, 2 for bad usage, else 0. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_output.h"
#include "commands.h"
#include "trace_svg.h"

typedef struct trace_args {
  const char *output;
  const char *svg;
  char **command;
} trace_args_t;

static int usage(const char *why) {
  fprintf(stderr,
          "backplane trace: %s\nusage: backplane trace [-o FILE] [--svg "
          "FILE] [--plugin-path DIR] -- COMMAND...\n",
          why);
  return 2;
}

/* Prepends `dir` to BACKPLANE_PLUGIN_PATH. */
static int add_plugin_path(const char *dir) {
  const char *old = getenv("BACKPLANE_PLUGIN_PATH");
  size_t size = strlen(dir) + (old ? strlen(old) + 1 : 0) + 1;
  char *value = malloc(size);
  if (!value)
    return -1;
  snprintf(value, size, "%s%s%s", dir, old && *old ? ":" : "", old ? old : "");
  int result = setenv("BACKPLANE_PLUGIN_PATH", value, 1);
  free(value);
  return result;
}

static int parse(int argc, char **argv, trace_args_t *out) {
  *out = (trace_args_t){.output = "backplane-trace.json"};
  int i = 0;
  for (; i < argc && strcmp(argv[i], "--") != 0; ++i) {
    const char *word = argv[i];
    int has_value = i + 1 < argc && strcmp(argv[i + 1], "--") != 0;
    if ((!strcmp(word, "-o") || !strcmp(word, "--output")) && has_value)
      out->output = argv[++i];
    else if (!strcmp(word, "--svg") && has_value)
      out->svg = argv[++i];
    else if (!strcmp(word, "--plugin-path") && has_value) {
      if (add_plugin_path(argv[++i]) != 0)
        return usage("out of memory");
    } else {
      char why[160];
      snprintf(why, sizeof why, "unexpected '%s' (options go before --)", word);
      return usage(why);
    }
  }
  if (i + 1 >= argc)
    return usage("no COMMAND after --");
  out->command = argv + i + 1;
  return 0;
}

/* BACKPLANE_LAYERS with "trace" added when it is not already listed. */
static int enable_trace_layer(void) {
  const char *old = getenv("BACKPLANE_LAYERS");
  if (!old || !*old)
    return setenv("BACKPLANE_LAYERS", "trace", 1);
  for (const char *p = old; *p;) {
    size_t length = strcspn(p, ", ");
    if (length == 5 && strncmp(p, "trace", 5) == 0)
      return 0;
    p += length;
    p += strspn(p, ", ");
  }
  size_t size = strlen(old) + sizeof ",trace";
  char *value = malloc(size);
  if (!value)
    return -1;
  snprintf(value, size, "%s,trace", old);
  int result = setenv("BACKPLANE_LAYERS", value, 1);
  free(value);
  return result;
}

/* Runs the command and returns its exit code (128 + signal if killed). */
static int run(char **command) {
  fflush(cli_out());
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "backplane trace: fork: %s\n", strerror(errno));
    return 1;
  }
  if (child == 0) {
    if (cli_output_give_back() == 0)
      execvp(command[0], command);
    fprintf(stderr, "backplane trace: cannot run '%s': %s\n", command[0],
            strerror(errno));
    _exit(127);
  }
  int status;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "backplane trace: waitpid: %s\n", strerror(errno));
      return 1;
    }
  }
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

static int draw(json_t *root, const char *path) {
  FILE *out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "backplane trace: cannot write '%s': %s\n", path,
            strerror(errno));
    return 1;
  }
  char error[128];
  int failed = trace_svg_write(root, out, error, sizeof error);
  if (fclose(out) != 0 && !failed) {
    failed = 1;
    snprintf(error, sizeof error, "%s", strerror(errno));
  }
  if (failed) {
    fprintf(stderr, "backplane trace: %s: %s\n", path, error);
    return 1;
  }
  fprintf(cli_out(), "backplane trace: drew %s\n", path);
  return 0;
}

int cmd_trace(int argc, char **argv) {
  trace_args_t args;
  int status = parse(argc, argv, &args);
  if (status != 0)
    return status;
  if (enable_trace_layer() != 0 ||
      setenv("BACKPLANE_TRACE_FILE", args.output, 1) != 0) {
    fprintf(stderr, "backplane trace: cannot set the environment\n");
    return 1;
  }
  if (unlink(args.output) != 0 && errno != ENOENT) {
    fprintf(stderr, "backplane trace: cannot replace '%s': %s\n", args.output,
            strerror(errno));
    return 1;
  }
  int exit_code = run(args.command);
  json_error_t error;
  json_t *root = json_load_file(args.output, 0, &error);
  if (!root) {
    fprintf(stderr,
            "backplane trace: no trace in '%s' (%s): did '%s' create and "
            "destroy a Backplane runtime?\n",
            args.output, error.text, args.command[0]);
    return exit_code ? exit_code : 1;
  }
  fprintf(cli_out(), "backplane trace: wrote %s (%zu events)\n", args.output,
          json_array_size(json_object_get(root, "traceEvents")));
  int drawn = args.svg ? draw(root, args.svg) : 0;
  json_decref(root);
  return exit_code ? exit_code : drawn;
}
