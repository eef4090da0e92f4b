/* The tool's own standard output, kept apart from what plugins print.
 *
 * Plugins run inside the tool and may write to stdout while they load, in
 * InitPlugin, in initialize or in any call; mixed into the tool's output that
 * would corrupt what a `--json` caller parses. cli_output_claim, called once
 * at start-up before any plugin is loaded, moves the tool's standard output
 * to a private descriptor and points descriptor 1 (and so the `stdout` that
 * plugins share with the tool) at stderr. From then on the tool writes its
 * own output through cli_out() only. Not thread-safe: claim from main before
 * starting threads; cli_out() may then be used from any thread. */
#ifndef BACKPLANE_CLI_OUTPUT_H_
#define BACKPLANE_CLI_OUTPUT_H_

#include <stdio.h>

/* Claims the standard output as described above. Returns 0, or -1 if the
 * descriptors could not be rearranged: cli_out() is then plain stdout. */
int cli_output_claim(void);

/* Where the tool's own output goes: the claimed standard output, or stdout
 * before (or without) a claim. */
FILE *cli_out(void);

/* For a child process about to exec a command of the user's: points
 * descriptor 1 back at the claimed standard output. Call cli_out()'s fflush
 * in the parent before forking. Returns 0, or -1 (errno set). */
int cli_output_give_back(void);

#endif /* BACKPLANE_CLI_OUTPUT_H_ */
