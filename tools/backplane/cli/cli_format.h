/* Human-readable formatting of sizes. */
#ifndef BACKPLANE_CLI_FORMAT_H_
#define BACKPLANE_CLI_FORMAT_H_

#include <stddef.h>

/* "0 B", "4099 B", "4 KiB", "64 MiB", "23.4 GiB": a size moves to the next
 * unit while it is a whole number of that unit or at least 10 of it; whole
 * numbers print as integers, the rest with one decimal. Writes into `buffer`
 * and returns it. */
const char *cli_format_bytes(size_t bytes, char *buffer, size_t buffer_size);

#endif /* BACKPLANE_CLI_FORMAT_H_ */
