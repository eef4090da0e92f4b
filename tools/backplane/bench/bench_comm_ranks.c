#include "bench_comm_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t bench_comm_rank_args(const bench_ctx_t *ctx, char **argv, size_t at,
                            size_t capacity) {
  static char cmdline[8192], ranks[24], hosts[24];
  FILE *file = fopen("/proc/self/cmdline", "r");
  size_t length = file ? fread(cmdline, 1, sizeof cmdline - 1, file) : 0;
  if (file)
    fclose(file);
  snprintf(ranks, sizeof ranks, "%zu", ctx->comm.ranks);
  snprintf(hosts, sizeof hosts, "%zu", ctx->comm.hosts);
  const char *fixed[] = {"bench",
                         "comm",
                         "--plugin",
                         ctx->plugin_name,
                         "--op",
                         bench_comm_op_name(ctx->comm.op),
                         "--ranks",
                         ranks,
                         "--transport",
                         bench_comm_transport_name(ctx->comm.transport),
                         ctx->quick ? "--quick" : NULL,
                         ctx->comm.hosts ? "--hosts" : NULL,
                         ctx->comm.hosts ? hosts : NULL};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed && at + 1 < capacity; i++)
    if (fixed[i] != NULL)
      argv[at++] = (char *)fixed[i];
  /* --plugin-path DIR or --plugin-path=DIR, as this process was given them */
  for (size_t word = 0; word < length && at + 2 < capacity;
       word += strlen(cmdline + word) + 1) {
    if (strncmp(cmdline + word, "--plugin-path", 13) != 0)
      continue;
    argv[at++] = cmdline + word;
    if (cmdline[word + 13] == '\0' && word + 14 < length)
      argv[at++] = cmdline + word + 14; /* its value, the next word */
  }
  argv[at] = NULL;
  return at;
}

void bench_comm_id_export(const unsigned char *id, size_t size) {
  char hex[2 * BENCH_COMM_ID_BYTES_MAX + 1] = "";
  for (size_t i = 0; i < size && i < BENCH_COMM_ID_BYTES_MAX; i++)
    snprintf(hex + 2 * i, 3, "%02x", id[i]);
  setenv(BENCH_COMM_ID_VARIABLE, hex, 1);
}

size_t bench_comm_id_import(unsigned char *out, size_t capacity) {
  const char *hex = getenv(BENCH_COMM_ID_VARIABLE);
  size_t digits = hex ? strlen(hex) : 0, size = 0;
  unsigned value;
  while (2 * size + 1 < digits && size < capacity &&
         sscanf(hex + 2 * size, "%2x", &value) == 1)
    out[size++] = (unsigned char)value;
  return size;
}
