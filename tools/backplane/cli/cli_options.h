/* Option parsing shared by every command. Every command accepts
 * `--plugin-path DIR` (repeatable: each is searched, in order, before the
 * usual plugin search) and `--json`; the other options only where the
 * command asks for them. Not thread-safe (it is run once, from main). */
#ifndef BACKPLANE_CLI_OPTIONS_H_
#define BACKPLANE_CLI_OPTIONS_H_

#include <stddef.h>

typedef enum cli_option_flags {
  CLI_OPT_PLUGIN = 1u << 0,     /* --plugin NAME */
  CLI_OPT_QUICK = 1u << 1,      /* --quick: small sizes, few repetitions */
  CLI_OPT_POSITIONAL = 1u << 2, /* bare words, e.g. bench names */
  CLI_OPT_COMM = 1u << 3,       /* --op NAME, --ranks N, --transport NAME,
                                   --dead-peer */
} cli_option_flags_t;

typedef struct cli_options {
  char *plugin_path;  /* ':'-joined --plugin-path values; NULL if none */
  const char *plugin; /* --plugin NAME (points into argv); NULL if none */
  int json;           /* --json */
  int quick;          /* --quick */
  /* --op, --ranks, --transport (point into argv; NULL if absent). Only
   * stored here: the command judges the values. */
  const char *comm_op, *comm_ranks, *comm_transport, *comm_hosts;
  int comm_dead_peer; /* --dead-peer */
  size_t positional_count;
  char **positional; /* the bare words, pointing into argv */
} cli_options_t;

/* Parses the words after the command name. `accepted` is a mask of
 * cli_option_flags_t. Returns 0 on success; on a bad word prints a message
 * naming it on stderr and returns 2 (the usage exit code), leaving *out
 * released. */
int cli_options_parse(const char *command, int argc, char **argv,
                      unsigned accepted, cli_options_t *out);

/* Frees what cli_options_parse allocated. Safe on a zeroed struct. */
void cli_options_release(cli_options_t *options);

#endif /* BACKPLANE_CLI_OPTIONS_H_ */
