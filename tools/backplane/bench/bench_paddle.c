/* paddle: PaddlePaddle on the Paddle bridge (frameworks/paddle) over vcpu
 * beside Paddle's own CPU place, in one run of examples/paddle/
 * bench_paddle.py under the project venv's Python (BP_VENV_PYTHON): the
 * LeNet training step's samples/s (budget >= 1.0x Paddle CPU) and a
 * 1-element add enqueued and synchronized (budget <= 2 us above Paddle
 * CPU's). With BACKPLANE_BENCH_PADDLE_CUSTOM_CPU naming a built
 * libpaddle-custom-cpu.so (PaddleCustomDevice's reference plugin), the same
 * add on custom_cpu:0 too, in the same process: the floor of any plugin.
 * Skipped, saying so, without the venv or the built bridge. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli/cli_paths.h"

enum { FULL_REPS = 5 };

/* A folder for CUSTOM_DEVICE_ROOT holding links to the bridge and to
 * custom_cpu (Paddle takes one folder). The bridge finds libbackplane by
 * LD_LIBRARY_PATH then, since its $ORIGIN is the link's folder. */
typedef struct plugin_root {
  char dir[64], bridge[128], custom_cpu[128];
} plugin_root_t;

static void plugin_root_remove(plugin_root_t *root) {
  unlink(root->bridge);
  unlink(root->custom_cpu);
  rmdir(root->dir);
}

static bp_status_t plugin_root_make(bench_ctx_t *ctx, plugin_root_t *root,
                                    const char *bridge, const char *custom) {
  if (access(custom, R_OK) != 0) {
    fprintf(stderr,
            "backplane bench paddle: BACKPLANE_BENCH_PADDLE_CUSTOM_CPU=%s is "
            "not a readable file (expected a built libpaddle-custom-cpu.so)\n",
            custom);
    return BP_ERR_INVALID_ARGUMENT;
  }
  snprintf(root->dir, sizeof root->dir, "/tmp/bp_bench_paddle_XXXXXX");
  if (mkdtemp(root->dir) == NULL)
    return bench_error(ctx, "mkdtemp", BP_ERR_INTERNAL);
  snprintf(root->bridge, sizeof root->bridge, "%s/libbackplane_paddle.so",
           root->dir);
  snprintf(root->custom_cpu, sizeof root->custom_cpu,
           "%s/libpaddle-custom-cpu.so", root->dir);
  if (symlink(bridge, root->bridge) != 0 ||
      symlink(custom, root->custom_cpu) != 0) {
    plugin_root_remove(root);
    return bench_error(ctx, "symlink", BP_ERR_INTERNAL);
  }
  return BP_OK;
}

bp_status_t bench_paddle(bench_ctx_t *ctx) {
  char bridge[1024], probe[1200], lib[1024];
  cli_path_beside_binary("lib/backplane/paddle", bridge, sizeof bridge);
  cli_path_beside_binary("lib", lib, sizeof lib);
  snprintf(probe, sizeof probe, "%s/libbackplane_paddle.so", bridge);
  if (access(BP_VENV_PYTHON, X_OK) != 0 || access(probe, R_OK) != 0) {
    fprintf(stderr,
            "bench paddle: needs %s (scripts/setup-venv.sh) and the "
            "bridge built (%s): skipped\n",
            BP_VENV_PYTHON, probe);
    return BP_OK;
  }
  const char *custom = getenv("BACKPLANE_BENCH_PADDLE_CUSTOM_CPU");
  plugin_root_t root = {{0}, {0}, {0}};
  if (custom && *custom) {
    bp_status_t status = plugin_root_make(ctx, &root, probe, custom);
    if (status != BP_OK)
      return status;
  }
  char command[PATH_MAX + 3072];
  snprintf(command, sizeof command,
           "cd %s/examples/paddle && CUSTOM_DEVICE_ROOT=%s%s%s "
           "BACKPLANE_VISIBLE_DEVICES=vcpu:0 GLOG_minloglevel=2 %s "
           "bench_paddle.py %zu 2>/dev/null",
           BP_SOURCE_DIR, root.dir[0] ? root.dir : bridge,
           root.dir[0] ? " LD_LIBRARY_PATH=" : "", root.dir[0] ? lib : "",
           BP_VENV_PYTHON, bench_reps(ctx, FULL_REPS));
  FILE *out = popen(command, "r");
  if (out == NULL) {
    if (root.dir[0])
      plugin_root_remove(&root);
    return bench_error(ctx, "popen", BP_ERR_INTERNAL);
  }
  char line[512], name[64], unit[32], baseline[64];
  double value, baseline_value;
  size_t found = 0, expected = root.dir[0] ? 3 : 2;
  while (fgets(line, sizeof line, out)) {
    if (sscanf(line, "%63s %lf %31s %63s %lf", name, &value, unit, baseline,
               &baseline_value) != 5)
      continue;
    bench_result_t result = {
        .value = value,
        .unit = unit,
        .baseline = "Paddle CPU place",
        .baseline_value = baseline_value,
    };
    if (strcmp(name, "cnn_train_step") == 0) {
      result.bench_case = "LeNet training step, bridge over vcpu";
      result.budget = BENCH_BUDGET_MIN_RATIO;
      result.limit = 1.0;
      result.budget_text = ">= 1.0x";
    } else if (strcmp(name, "small_add") == 0) {
      result.bench_case = "1-element add + sync, bridge over vcpu";
      result.budget = BENCH_BUDGET_MAX_EXTRA;
      result.limit = 2.0;
      result.budget_text = "<= 2 us extra";
    } else if (strcmp(name, "small_add_custom_cpu") == 0) {
      result.bench_case = "1-element add + sync, custom_cpu (floor)";
    } else {
      continue;
    }
    bench_record(ctx, &result);
    ++found;
  }
  int status = pclose(out);
  if (root.dir[0])
    plugin_root_remove(&root);
  if (status != 0 || found != expected) {
    fprintf(stderr, "bench paddle: %s exited with %d after %zu of %zu cases\n",
            command, status, found, expected);
    return BP_ERR_INTERNAL;
  }
  return BP_OK;
}
