/* `backplane bench NAME...|all`: runs benches of bench_list.h against one
 * plugin (--plugin NAME, default vcpu if loaded, else the first plugin) and
 * prints each result with its baseline, ratio and budget. The comm bench's
 * --op, --ranks, --transport and --hosts are checked before anything runs (a
 * bad value, or one given without the comm bench, exits 2). Missing a budget is
 * reported, not an error: the exit code is 0 when every bench ran. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "cli/cli_options.h"
#include "cli/cli_output.h"
#include "cli/cli_runtime.h"
#include "commands.h"

typedef struct bench_entry {
  const char *name;
  bp_status_t (*run)(bench_ctx_t *ctx);
  const char *summary;
} bench_entry_t;

static const bench_entry_t benches[] = {
#define BP_BENCH(name, summary) {#name, bench_##name, summary},
#include "bench/bench_list.h"
#undef BP_BENCH
};
enum { BENCH_COUNT = sizeof(benches) / sizeof(benches[0]) };

static void print_benches(FILE *out) {
  fprintf(out,
          "usage: backplane bench NAME...|all [--plugin NAME] [--quick] "
          "[--json]\n"
          "         comm: [--op all_reduce|broadcast|reduce|all_gather|"
          "reduce_scatter]\n"
          "               [--ranks 2..%d] [--transport threads|shm|mpi]\n"
          "               [--hosts H: H hosts as network namespaces, "
          "mpi and hybrid\n"
          "                against MPI_Allreduce across them (root)]\n"
          "               [--dead-peer: time how soon a SIGKILLed rank "
          "process is noticed]\n"
          "benches:\n",
          BENCH_COMM_MAX_RANKS);
  for (size_t i = 0; i < BENCH_COUNT; i++)
    fprintf(out, "  %-10s %s\n", benches[i].name, benches[i].summary);
  fprintf(out, "  %-10s %s\n", "all", "every bench above, in this order");
}

/* Marks the benches named on the command line; returns -1 on an unknown
 * name. */
static int select_benches(const cli_options_t *options, int *selected) {
  for (size_t p = 0; p < options->positional_count; p++) {
    const char *name = options->positional[p];
    int all = !strcmp(name, "all"), found = all;
    for (size_t i = 0; i < BENCH_COUNT; i++) {
      if (all || !strcmp(name, benches[i].name))
        selected[i] = found = 1;
    }
    if (!found) {
      fprintf(stderr, "backplane bench: unknown bench '%s'\n", name);
      return -1;
    }
  }
  return 0;
}

/* Parses the comm bench's options into *out; returns 0 or 2. */
static int comm_settings(const cli_options_t *options, const int *selected,
                         bench_comm_settings_t *out) {
  int comm_selected = 0;
  for (size_t i = 0; i < BENCH_COUNT; i++)
    comm_selected |= selected[i] && !strcmp(benches[i].name, "comm");
  if (!comm_selected &&
      (options->comm_op || options->comm_ranks || options->comm_transport ||
       options->comm_hosts || options->comm_dead_peer)) {
    fprintf(stderr, "backplane bench: --op, --ranks, --transport, --hosts and "
                    "--dead-peer are options of the comm bench only\n");
    return 2;
  }
  out->dead_peer = options->comm_dead_peer;
  return bench_comm_settings_parse(options->comm_op, options->comm_ranks,
                                   options->comm_transport, options->comm_hosts,
                                   out);
}

static bp_status_t prepare(bench_ctx_t *ctx, const cli_options_t *options) {
  const char *name = options->plugin;
  if (!name && bp_runtime_plugin_count(ctx->runtime) > 0) {
    bp_plugin_info_t info;
    size_t vcpu;
    if (cli_runtime_find_plugin_quietly(ctx->runtime, "vcpu", &vcpu) == BP_OK)
      name = "vcpu";
    else if (bp_runtime_plugin_info(ctx->runtime, 0, &info) == BP_OK)
      name = info.device_type;
  }
  if (!name) {
    fprintf(stderr, "backplane bench: no plugin is loaded\n");
    return BP_ERR_NOT_FOUND;
  }
  bp_status_t status =
      cli_runtime_find_plugin(ctx->runtime, name, &ctx->plugin_index);
  if (status != BP_OK)
    return status;
  ctx->plugin_name = name;
  ctx->dispatch = bp_runtime_plugin_dispatch(ctx->runtime, ctx->plugin_index);
  status = bp_device_get(ctx->runtime, name, 0, &ctx->device);
  if (status != BP_OK) {
    fprintf(stderr, "backplane bench: %s has no device: %s\n", name,
            bp_last_error());
    return status;
  }
  if (bp_device_get(ctx->runtime, name, 1, &ctx->peer) != BP_OK)
    ctx->peer = NULL;
  return BP_OK;
}

static int run_benches(bench_ctx_t *ctx, const int *selected) {
  bench_report_begin(ctx);
  int failed = 0;
  for (size_t i = 0; i < BENCH_COUNT; i++) {
    if (!selected[i])
      continue;
    ctx->bench = benches[i].name;
    if (benches[i].run(ctx) != BP_OK)
      failed = 1;
  }
  if (bench_report_end(ctx))
    failed = 1;
  if (!ctx->json && ctx->budgets_missed)
    fprintf(cli_out(), "%zu budget%s not met\n", ctx->budgets_missed,
            ctx->budgets_missed == 1 ? "" : "s");
  return failed;
}

int cmd_bench(int argc, char **argv) {
  cli_options_t options;
  int result = cli_options_parse("bench", argc, argv,
                                 CLI_OPT_PLUGIN | CLI_OPT_QUICK |
                                     CLI_OPT_POSITIONAL | CLI_OPT_COMM,
                                 &options);
  if (result)
    return result;
  int selected[BENCH_COUNT] = {0};
  if (options.positional_count == 0 || select_benches(&options, selected)) {
    print_benches(stderr);
    cli_options_release(&options);
    return 2;
  }
  bench_ctx_t ctx = {.quick = options.quick, .json = options.json};
  if (comm_settings(&options, selected, &ctx.comm)) {
    cli_options_release(&options);
    return 2;
  }
  /* bench train runs on up to 4 vcpu devices (vcpu reads this once). */
  setenv("BACKPLANE_VCPU_DEVICES", "4", 0);
  if (cli_runtime_open(&options, &ctx.runtime) != BP_OK) {
    cli_options_release(&options);
    return 1;
  }
  result = prepare(&ctx, &options) == BP_OK ? run_benches(&ctx, selected) : 1;
  bp_runtime_destroy(ctx.runtime);
  cli_options_release(&options);
  return result;
}
