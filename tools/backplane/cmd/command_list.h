/* The commands of `backplane`, in the order `backplane help` lists them.
 * BP_COMMAND(name, usage, summary): one line per command, implemented as
 * `int cmd_<name>(int argc, char **argv)` (the words after the name; returns
 * the exit code). No include guard: included once per expansion. */
BP_COMMAND(info, "[--json]",
           "plugins (native/fallback/missing functions), devices, rejects")
BP_COMMAND(check, "[--plugin NAME] [--quick] [--json]",
           "conformance suite: one PASS/FAIL/SKIP line per check")
BP_COMMAND(bench,
           "NAME...|all [--plugin NAME] [--quick] [--json]\n"
           "           comm: [--op all_reduce|broadcast|reduce|all_gather|"
           "reduce_scatter]\n"
           "                 [--ranks 2..8] [--transport threads|shm]",
           "budgets measured against baselines in the same run")
BP_COMMAND(memory,
           "[--plugin NAME] [--json] [replay] [snapshot FILE] [svg FILE]",
           "caching allocator: sizing (defaults marked), stats, snapshot, SVG")
BP_COMMAND(trace, "[-o FILE] [--svg FILE] -- COMMAND...",
           "run COMMAND under the trace layer; Chrome trace JSON, SVG timeline")
BP_COMMAND(
    optest,
    "[--ops LIB.so] [--device D] [--filter TEXT] [--data DIR] "
    "[--quick] [--json]",
    "DIOPI op library vs PyTorch baselines: PASS/FAIL/NOIMPL/SKIP, timed")
BP_COMMAND(target, "[--device D] [--json] [TARGET]",
           "a canonical target: parsed from TARGET, or a device's")
BP_COMMAND(build,
           "IR.json|SOURCE.c --target T [-o module.so] [--function NAME]... "
           "[--json]",
           "build a module for a target (no device needed; cached)")
BP_COMMAND(
    train,
    "[--devices N | --processes N] [--batch N] [--epochs N] "
    "[--seed N]\n"
    "           [--lr X] [--no-overlap] [--checkpoint DIR] "
    "[--checkpoint-every K]\n"
    "           [--data FILE] [--ops LIB.so] [--trace FILE] [--svg FILE]",
    "data-parallel MLP training on the digits set: ops, all-reduce, "
    "AdamW")
