/* Parsing of `backplane bench comm`'s --op, --ranks and --transport. */
#include "bench_comm_settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[BENCH_COMM_OP_COUNT] = {
    "all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter"};

const char *bench_comm_op_name(bench_comm_op_t op) {
  return op_names[op];
}

static const char *const transport_names[BENCH_COMM_TRANSPORT_COUNT] = {
    "threads", "shm", "mpi"};

const char *bench_comm_transport_name(bench_comm_transport_t transport) {
  return transport_names[transport];
}

static const char *given_or_env(const char *given, const char *variable) {
  return given ? given : getenv(variable);
}

/* Finds `text` among names[0..count) into *out (0), or says which names
 * there are (2). */
static int parse_name(const char *text, const char *what,
                      const char *const *names, int count, int *out) {
  for (int i = 0; i < count; i++)
    if (strcmp(text, names[i]) == 0) {
      *out = i;
      return 0;
    }
  fprintf(stderr, "backplane bench comm: unknown %s '%s' (", what, text);
  for (int i = 0; i < count; i++)
    fprintf(stderr, "%s%s",
            i == 0          ? ""
            : i + 1 < count ? ", "
                            : " or ",
            names[i]);
  fprintf(stderr, ")\n");
  return 2;
}

static int parse_op(const char *text, bench_comm_op_t *out) {
  int index = BENCH_COMM_ALL_REDUCE;
  int failed =
      text ? parse_name(text, "op", op_names, BENCH_COMM_OP_COUNT, &index) : 0;
  *out = (bench_comm_op_t)index;
  return failed;
}

/* `text` as a count 2..max into *out; 2 (a usage error, said on stderr)
 * when it is not one. */
static int parse_count(const char *text, const char *what, int max,
                       size_t *out) {
  char *end = NULL;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 ||
      value < 2 || value > (unsigned long long)max) {
    fprintf(stderr, "backplane bench comm: %s '%s' is not a number 2..%d\n",
            what, text, max);
    return 2;
  }
  *out = (size_t)value;
  return 0;
}

static int parse_ranks(const char *text, size_t *out) {
  *out = 2;
  return text ? parse_count(text, "ranks", BENCH_COMM_MAX_RANKS, out) : 0;
}

static int parse_transport(const char *text, bench_comm_transport_t *out) {
  int index = BENCH_COMM_THREADS;
  int failed = text ? parse_name(text, "transport", transport_names,
                                 BENCH_COMM_TRANSPORT_COUNT, &index)
                    : 0;
  *out = (bench_comm_transport_t)index;
  return failed;
}

/* --hosts: a host count; with it the transport is mpi and the ranks fill
 * the hosts evenly (2 per host unless --ranks says). */
static int parse_hosts(const char *text, const char *ranks,
                       bench_comm_settings_t *out) {
  out->hosts = 0;
  if (text == NULL)
    return 0;
  if (parse_count(text, "hosts", BENCH_COMM_MAX_HOSTS, &out->hosts))
    return 2;
  if (out->transport != BENCH_COMM_MPI &&
      out->transport != BENCH_COMM_THREADS) {
    fprintf(stderr, "backplane bench comm: --hosts runs the ranks under "
                    "mpirun: --transport must be mpi or absent\n");
    return 2;
  }
  out->transport = BENCH_COMM_MPI;
  if (ranks == NULL)
    out->ranks = 2 * out->hosts;
  if (out->ranks % out->hosts != 0 || out->ranks > BENCH_COMM_MAX_RANKS) {
    fprintf(stderr,
            "backplane bench comm: %zu ranks do not fill %zu hosts evenly "
            "(at most %d ranks)\n",
            out->ranks, out->hosts, BENCH_COMM_MAX_RANKS);
    return 2;
  }
  return 0;
}

int bench_comm_settings_parse(const char *op, const char *ranks,
                              const char *transport, const char *hosts,
                              bench_comm_settings_t *out) {
  ranks = given_or_env(ranks, "BACKPLANE_BENCH_COMM_RANKS");
  if (parse_op(given_or_env(op, "BACKPLANE_BENCH_COMM_OP"), &out->op) ||
      parse_ranks(ranks, &out->ranks) ||
      parse_transport(given_or_env(transport, "BACKPLANE_BENCH_COMM_TRANSPORT"),
                      &out->transport) ||
      parse_hosts(given_or_env(hosts, "BACKPLANE_BENCH_COMM_HOSTS"), ranks,
                  out))
    return 2;
  return 0;
}
