/* The commands of `backplane`, in the order `backplane help` lists them.
 * BP_COMMAND(name, usage, summary, options): one entry per command,
 * implemented as `int cmd_<name>(int argc, char **argv)` (the words after
 * the name; returns the exit code). `options` is what `backplane NAME
 * --help` lists: every option and word the command accepts, one line each,
 * with its default. No include guard: included once per expansion. */

/* The options every command takes. */
#define BP_HELP_PLUGIN_PATH                                                    \
  "  --plugin-path DIR   search DIR (or load one .so) for plugins first; "     \
  "repeatable; default: none (BACKPLANE_PLUGIN_PATH, CUSTOM_DEVICE_ROOT, "     \
  "the built-in plugins)\n"
#define BP_HELP_JSON                                                           \
  "  --json              one JSON document on stdout; default: text\n"

BP_COMMAND(info, "[--json]",
           "plugins (native/fallback/missing functions), devices, rejects",
           BP_HELP_JSON BP_HELP_PLUGIN_PATH)
BP_COMMAND(
    check, "[--plugin NAME] [--quick] [--json]",
    "conformance suite: one PASS/FAIL/SKIP line per check",
    "  --plugin NAME       check only the plugin of device type NAME; "
    "default: every loaded plugin\n"
    "  --quick             copies up to 4 MiB, fewer repetitions; default: "
    "up to 64 MiB\n" BP_HELP_JSON BP_HELP_PLUGIN_PATH
    "environment: BACKPLANE_CHECK_GATE_MS caps how long a held stream waits "
    "for the checker (default 15000)\n")
BP_COMMAND(
    bench,
    "NAME...|all [--plugin NAME] [--quick] [--json]\n"
    "           comm: [--op all_reduce|broadcast|reduce|all_gather|"
    "reduce_scatter]\n"
    "                 [--ranks 2..8] [--transport threads|shm]",
    "budgets measured against baselines in the same run",
    "  NAME...|all         the benches to run (a wrong name lists them); "
    "required\n"
    "  --plugin NAME       the plugin to measure; default: vcpu if loaded, "
    "else the first plugin\n"
    "  --quick             small sizes, few repetitions; default: full\n"
    "  --op OP             comm bench: the collective; default: all_reduce "
    "(or BACKPLANE_BENCH_COMM_OP)\n"
    "  --ranks N           comm bench: 2 to 8 ranks; default: 2 (or "
    "BACKPLANE_BENCH_COMM_RANKS)\n"
    "  --transport T       comm bench: threads or shm; default: threads (or "
    "BACKPLANE_BENCH_COMM_TRANSPORT)\n" BP_HELP_JSON BP_HELP_PLUGIN_PATH)
BP_COMMAND(
    memory,
    "[--plugin NAME] [--json] [replay] [snapshot FILE] [--svg FILE] | "
    "SNAPSHOT [--json] [--svg FILE]",
    "caching allocator: sizing (defaults marked), stats, snapshot, SVG; "
    "a saved snapshot or allocator history summarized and drawn",
    "  --plugin NAME       only the devices of plugin NAME; default: every "
    "plugin's\n"
    "  replay              first replay a few training iterations on the "
    "first device; default: off\n"
    "  snapshot FILE       write the first device's JSON snapshot to FILE; "
    "default: none\n"
    "  svg FILE            write its picture to FILE; default: "
    "none\n"
    "  --svg FILE          the same as svg FILE (the form of train and "
    "trace); default: none\n"
    "  SNAPSHOT            a file written by BACKPLANE_MEMORY_HISTORY or "
    "bp_memory_history_dump\n"
    "                      (or by snapshot FILE): its summary per device "
    "and stream (peak\n"
    "                      live bytes, when, what is live at the end); "
    "--svg FILE draws it\n" BP_HELP_JSON BP_HELP_PLUGIN_PATH)
BP_COMMAND(
    trace, "[-o FILE] [--svg FILE] [--plugin-path DIR] -- COMMAND...",
    "run COMMAND under the trace layer; Chrome trace JSON, SVG timeline",
    "  -o, --output FILE   the Chrome trace; default: backplane-trace.json\n"
    "  --svg FILE          also draw the timeline into FILE; default: none\n"
    "  -- COMMAND...       the program to run and its arguments; "
    "required\n" BP_HELP_PLUGIN_PATH)
BP_COMMAND(
    optest,
    "[--ops LIB.so] [--device D] [--filter TEXT] [--exclude TEXT] "
    "[--data DIR] [--quick] [--json]",
    "DIOPI op library vs PyTorch baselines: PASS/FAIL/XFAIL/XPASS/NOIMPL/SKIP, "
    "timed",
    "  --ops LIB.so        the op library; default: the one the device's "
    "plugin names (backplane info), else the reference library\n"
    "  --device D          the device, TYPE:N; default: vcpu:0 (a library "
    "with its own device: that one)\n"
    "  --filter TEXT       only cases whose name or op contains TEXT; "
    "default: every case\n"
    "  --exclude TEXT      not the cases whose name contains TEXT; default: "
    "none left out\n"
    "  --data DIR          the cases and PyTorch's results (and its "
    "KNOWN_FAILURES.txt: XFAIL, XPASS); default: the source tree's "
    "tests/data/ops\n"
    "  --quick             time the checked call only; default: the median "
    "of 5 more\n" BP_HELP_JSON BP_HELP_PLUGIN_PATH)
BP_COMMAND(
    target, "[--device D] [--json] [TARGET]",
    "a canonical target: parsed from TARGET, or a device's",
    "  TARGET              a target to parse (short form or JSON, quoted or "
    "not); default: none\n"
    "  --device D          the target of device D (an ordinal or a name "
    "such as vcpu:1); default: every device's\n"
    "  --json              the target as a JSON object; default: text that "
    "TARGET parses back\n" BP_HELP_PLUGIN_PATH)
BP_COMMAND(
    build,
    "IR.json|SOURCE.c --target T [-o module.so] [--function NAME]... "
    "[--json]",
    "build a module for a target (no device needed; cached)",
    "  IR.json|SOURCE.c    the module: tensor-expression IR, or C source; "
    "required\n"
    "  --target T          the target to build for (as `backplane target` "
    "takes it); required\n"
    "  -o FILE             copy the built module to FILE; default: it stays "
    "in the cache\n"
    "  --function NAME     a function of the C source to export; repeatable, "
    "required for C source\n" BP_HELP_JSON BP_HELP_PLUGIN_PATH)
BP_COMMAND(
    train,
    "[--model mlp|cnn] [--device TYPE] [--devices N | --processes N]\n"
    "           [--batch N] [--epochs N] [--seed N]"
    " [--lr X] [--no-overlap] [--checkpoint DIR] "
    "[--checkpoint-every K]\n"
    "           [--data FILE] [--ops LIB.so] [--trace FILE] [--svg FILE]\n"
    "           [--svg-window FROM_MS:TO_MS] [--json]",
    "data-parallel training of an MLP or a CNN on the digits set: ops, "
    "all-reduce, AdamW",
    "  --model mlp|cnn     the MLP 64-256-256-10 or a LeNet-style CNN; "
    "default: mlp\n"
    "  --device TYPE       the plugin whose devices are the ranks; default: "
    "the first with enough devices\n"
    "  --devices N         ranks as devices of this process, 1 to 8; "
    "default: 2\n"
    "  --processes N       ranks as processes (this one and N-1 it starts); "
    "default: one process\n"
    "  --batch N           the global batch, split evenly over the ranks; "
    "default: 64\n"
    "  --epochs N          passes over the training set, 1 to 100000; "
    "default: 20\n"
    "  --seed N            initialization and shuffling; default: 0\n"
    "  --lr X              AdamW's learning rate, 0 to 10; default: 0.002\n"
    "  --no-overlap        all-reduce after the backward pass, not during "
    "it; default: overlap on\n"
    "  --checkpoint DIR    resume from DIR's checkpoint if there is one, "
    "and write one there; default: none\n"
    "  --checkpoint-every K  steps between checkpoints; default: 50\n"
    "  --data FILE         the digits set (digits.csv.gz); default: "
    "python3-sklearn's copy\n"
    "  --ops LIB.so        the op library; default: the one the device's "
    "plugin names (backplane info), else the reference library\n"
    "  --trace FILE        write the run's Chrome trace to FILE; default: "
    "none (backplane-train-trace.json with --svg)\n"
    "  --svg FILE          draw the run's timeline into FILE; default: "
    "none\n"
    "  --svg-window FROM_MS:TO_MS  draw only that part of the run; default: "
    "the whole run\n" BP_HELP_JSON BP_HELP_PLUGIN_PATH)
BP_COMMAND(env, "",
           "every BACKPLANE_ variable read: its value and whether it is set "
           "or the default",
           "  (no options)\n")

#undef BP_HELP_PLUGIN_PATH
#undef BP_HELP_JSON
