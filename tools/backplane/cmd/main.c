/* `backplane <command> [options]`: dispatches to the command table. */
#include <stdio.h>
#include <string.h>

#include "backplane/version.h"
#include "cli/cli_output.h"
#include "commands.h"

typedef struct cli_command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *usage;
  const char *summary;
  const char *options; /* one line per option, with its default */
} cli_command_t;

static const cli_command_t commands[] = {
#define BP_COMMAND(name, usage, summary, options)                              \
  {#name, cmd_##name, usage, summary, options},
#include "command_list.h"
#undef BP_COMMAND
};

static void print_usage(FILE *out) {
  fprintf(out, "usage: backplane <command> [options]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    fprintf(out, "  %-6s %s\n  %-6s   %s\n", commands[i].name,
            commands[i].usage, "", commands[i].summary);
  fprintf(out, "  %-6s this text\n", "help");
  fprintf(out, "  %-6s print Backplane's version\n", "--version");
  fprintf(out,
          "\noptions of every command:\n"
          "  --plugin-path DIR  search DIR (or one .so) for plugins first; "
          "repeatable\n"
          "  --json             machine-readable output on stdout\n"
          "  --quick            (check, bench) small sizes, few repetitions: "
          "for tests\n"
          "\nenvironment: BACKPLANE_PLUGIN_PATH, CUSTOM_DEVICE_ROOT (plugin "
          "search)\n"
          "exit codes: 0 success, 1 failure (e.g. a FAIL in check), 2 usage\n");
}

/* --help or -h before any "--" (after it, words are another program's). */
static int wants_help(int argc, char **argv) {
  for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
      return 1;
  return 0;
}

int main(int argc, char **argv) {
  /* Before any plugin is loaded: what plugins print goes to stderr. */
  if (cli_output_claim() != 0)
    fprintf(stderr, "backplane: cannot keep stdout apart from plugins' "
                    "output; it may be mixed in\n");
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  const char *name = argv[1];
  if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
    print_usage(cli_out());
    return 0;
  }
  if (!strcmp(name, "--version")) {
    fprintf(cli_out(), "backplane %s\n", BP_VERSION_STRING);
    return 0;
  }
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
    if (strcmp(name, commands[i].name))
      continue;
    if (wants_help(argc - 2, argv + 2)) {
      fprintf(cli_out(), "usage: backplane %s %s\n  %s\n\noptions:\n%s",
              commands[i].name, commands[i].usage, commands[i].summary,
              commands[i].options);
      return 0;
    }
    return commands[i].run(argc - 2, argv + 2);
  }
  fprintf(stderr, "backplane: unknown command '%s'\n\n", name);
  print_usage(stderr);
  return 2;
}
