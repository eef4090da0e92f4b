/* Parsing of the options every command shares. */
#include "cli_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int append_plugin_path(cli_options_t *out, const char *dir) {
  size_t old_len = out->plugin_path ? strlen(out->plugin_path) : 0;
  size_t len = old_len + (old_len ? 1 : 0) + strlen(dir) + 1;
  char *joined = realloc(out->plugin_path, len);
  if (!joined)
    return -1;
  if (old_len)
    joined[old_len++] = ':';
  strcpy(joined + old_len, dir);
  out->plugin_path = joined;
  return 0;
}

static int fail(const char *command, const char *why, const char *word,
                cli_options_t *out) {
  fprintf(stderr, "backplane %s: %s '%s' (see 'backplane help')\n", command,
          why, word);
  cli_options_release(out);
  return 2;
}

/* Where a comm option's value goes, or NULL if `word` is not one. */
static const char **comm_option(cli_options_t *out, const char *word) {
  if (!strcmp(word, "--op"))
    return &out->comm_op;
  if (!strcmp(word, "--ranks"))
    return &out->comm_ranks;
  if (!strcmp(word, "--transport"))
    return &out->comm_transport;
  if (!strcmp(word, "--hosts"))
    return &out->comm_hosts;
  return NULL;
}

int cli_options_parse(const char *command, int argc, char **argv,
                      unsigned accepted, cli_options_t *out) {
  memset(out, 0, sizeof(*out));
  out->positional = calloc((size_t)argc + 1, sizeof(char *));
  if (!out->positional)
    return fail(command, "out of memory parsing", "options", out);
  for (int i = 0; i < argc; i++) {
    const char *word = argv[i];
    const char **comm_value =
        (accepted & CLI_OPT_COMM) ? comm_option(out, word) : NULL;
    int needs_value =
        !strcmp(word, "--plugin-path") || comm_value ||
        ((accepted & CLI_OPT_PLUGIN) && !strcmp(word, "--plugin"));
    if (needs_value && i + 1 >= argc)
      return fail(command, "missing value after", word, out);
    if (!strcmp(word, "--plugin-path")) {
      if (append_plugin_path(out, argv[++i]))
        return fail(command, "out of memory parsing", word, out);
    } else if ((accepted & CLI_OPT_PLUGIN) && !strcmp(word, "--plugin")) {
      out->plugin = argv[++i];
    } else if (comm_value) {
      *comm_value = argv[++i];
    } else if ((accepted & CLI_OPT_COMM) && !strcmp(word, "--dead-peer")) {
      out->comm_dead_peer = 1;
    } else if (!strcmp(word, "--json")) {
      out->json = 1;
    } else if ((accepted & CLI_OPT_QUICK) && !strcmp(word, "--quick")) {
      out->quick = 1;
    } else if (word[0] == '-') {
      return fail(command, "unknown option", word, out);
    } else if (accepted & CLI_OPT_POSITIONAL) {
      out->positional[out->positional_count++] = argv[i];
    } else {
      return fail(command, "unexpected argument", word, out);
    }
  }
  return 0;
}

void cli_options_release(cli_options_t *options) {
  free(options->plugin_path);
  free(options->positional);
  memset(options, 0, sizeof(*options));
}
