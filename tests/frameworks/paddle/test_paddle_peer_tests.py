"""PaddleCustomDevice's custom_cpu operator tests (backends/custom_cpu/tests/
unittests/test_<op>_op.py, OpTest from Paddle's test/legacy_test) against the
bridge, for the ops the bridge registers: each file runs in its own process
(peer_op_test_runner.py) with `custom_cpu` read as `backplane`, and a case
passes only if every kernel it ran was the bridge's. Their code is not part
of this repository: BP_PADDLE_CUSTOM_DEVICE_DIR names a checkout
(docs/paddle.md); without it the test is skipped (exit 77) and says so.
OpTest comes from the checkout's Paddle submodule (Paddle/test/legacy_test),
or from the folder BP_PADDLE_OP_TEST_DIR names (a copy of Paddle's
test/legacy_test: op_test.py and the modules it imports). Prints, per file,
how many cases passed, were skipped (each with its reason) and failed."""
import json
import os
import subprocess
import sys

CHECKOUT = os.environ.get("BP_PADDLE_CUSTOM_DEVICE_DIR", "")
if not CHECKOUT:
    print("SKIP: BP_PADDLE_CUSTOM_DEVICE_DIR names no PaddleCustomDevice "
          "checkout (docs/paddle.md, Peer tests)")
    sys.exit(77)

import bridge_env  # noqa: E402,F401

# The custom_cpu unit test files (test_<name>.py, PaddleCustomDevice
# 77090b64) whose kernels the bridge registers.
FILES = ["argsort_op", "cast_op", "compare_op", "concat_op",
         "elementwise_mul_op", "fill_constant_op", "matmul_v2_op", "mean_op",
         "reduce_op", "reshape_op", "sgd_op", "slice_op", "softmax_op",
         "softmax_with_cross_entropy_op", "transpose_op", "uniform_random_op"]

# Cases not run, per file ("Class" or "Class.method", shell-style patterns),
# with the reason. Each fails on Paddle's own CPU place as well (the same
# file with CustomPlace("custom_cpu", 0) read as CPUPlace(), under the same
# adaptations, Paddle 3.3.1): the test code no longer fits Paddle 3, so it
# says nothing about the bridge.
LAYERS = ("uses paddle.base.layers.{}, which Paddle 3 removed; fails on "
          "Paddle's CPU too")
PIR_ONLY = ("calls a Paddle 3 static API, which takes PIR values only, in a "
            "legacy-IR program (OpTest needs FLAGS_enable_pir_api=0); fails "
            "on Paddle's CPU too")
ZERO_D = ("expects shape (1,) where Paddle 3 gives a 0-D tensor; fails on "
          "Paddle's CPU too")
SKIPS = {
    "argsort_op": {
        "TestArgsortOp*.test_backward":
            "setUp adds a list to the tuple input_shape (a bug in the test); "
            "fails on Paddle's CPU too",
        "TestStableArgsortImperative*":
            "setUp calls init / reads input_data, which the class never "
            "defines (a bug in the test); fails on Paddle's CPU too",
    },
    "compare_op": {
        "*_float32.test_errors": LAYERS.format("<compare op>"),
        "*_float64.test_errors": LAYERS.format("<compare op>"),
        "*_int32.test_errors": LAYERS.format("<compare op>"),
        "*_int64.test_errors": LAYERS.format("<compare op>"),
        "TestCompareOpError": LAYERS.format("greater_equal"),
        "TestCompareOpPlace": LAYERS.format("less_than"),
        "TestCase_greater_than.test_api": PIR_ONLY,
        "TestCase_greater_than.test_attr_name": PIR_ONLY,
        "TestCase_greater_than.test_bool_api_4": PIR_ONLY,
        "TestCase_greater_than.test_bool_broadcast_api_4": PIR_ONLY,
        "TestCase_greater_than.test_broadcast_api_?": PIR_ONLY,
        "TestCase_equal.test_api_float":
            "feeds a 0-D value to an input of shape [1], which Paddle 3 "
            "rejects; fails on Paddle's CPU too",
        "TestCase_not_equal.test_not_equal":
            "expects not_equal(1.2e-8, 1.1e-8) to be false (an old "
            "tolerance); Paddle 3 compares exactly; fails on Paddle's CPU too",
    },
    "elementwise_mul_op": {
        "TestElementwiseMulOpError": LAYERS.format("elementwise_mul")},
    "matmul_v2_op": {"TestMatMulOp.test_check_output": ZERO_D},
    "mean_op": {"TestMeanOp*": LAYERS.format("mean")},
    "reduce_op": {
        "API_TestSumOp.test_static":
            "calls paddle.static.data in dygraph mode (an earlier case of "
            "the file turned it on); fails on Paddle's CPU too",
        "TestAllAPI.test_static": PIR_ONLY,
        "TestAnyAPI.test_static": PIR_ONLY,
        "TestReduceSumOpError": LAYERS.format("reduce_sum"),
    },
    "reshape_op": {
        "TestReshapeAPI.test_*_api": LAYERS.format("reshape"),
        "TestStaticReshape_.test_*_api": LAYERS.format("reshape"),
    },
    "slice_op": {
        "TestSliceAPI.test_1":
            "builds a legacy-IR program with Paddle 3's paddle.slice and "
            "fill_constant, whose results differ there; fails on Paddle's "
            "CPU too",
        "TestSliceApiWithLoDTensorArray": LAYERS.format("create_array"),
        "TestSliceOp_decs_dim_4.test_check_output": ZERO_D,
        "TestSliceOp_decs_dim_6.test_check_output": ZERO_D,
    },
    "transpose_op": {"TestTransposeOpError": LAYERS.format("transpose")},
    "uniform_random_op": {
        "TestUniformDtype.test_default_dtype":
            "expects a float16 uniform to raise TypeError; Paddle 3 makes "
            "one; fails on Paddle's CPU too",
        "TestUniformRandomBatchSizeLikeOpError":
            LAYERS.format("uniform_random_batch_size_like"),
        "TestUniformRandomDygraphMode": LAYERS.format("uniform_random"),
        "TestUniformRandomOpError": LAYERS.format("uniform_random"),
        "TestUniformRandomOpApi":
            "uses paddle.base.initializer.Uniform, which Paddle 3 removed; "
            "fails on Paddle's CPU too",
        "TestUniformRandomOp_*API*": LAYERS.format("nn"),
    },
}

# Cases of a feature the bridge lacks (docs/paddle.md, Kernels), per file,
# with what is missing. Each fails on the bridge with an error naming the
# kernel and the unsupported case, or ran on Paddle's CPU.
SELECTED_ROWS = ("bridge lacks: SelectedRows (sparse rows) tensors: Paddle's "
                 "kernel C API (phi/capi), through which a custom device "
                 "registers kernels, has dense tensors only")
BRIDGE_LIMITS = {
    "sgd_op": {
        "TestSGDOpOptimizeSelectedRows": SELECTED_ROWS},
    "uniform_random_op": {
        "TestUniformRandomOpSelectedRows*": SELECTED_ROWS},
}

HERE = os.path.dirname(os.path.abspath(__file__))
UNITTESTS = os.path.join(CHECKOUT, "backends", "custom_cpu", "tests",
                         "unittests")
LEGACY = os.environ.get("BP_PADDLE_OP_TEST_DIR") or os.path.join(
    CHECKOUT, "Paddle", "test", "legacy_test")
# The checkout's own python/tests holds the white_list package OpTest reads.
SHARED = os.path.join(CHECKOUT, "python", "tests")


def run_file(name, env):
    """Runs test_<name>.py; returns {case: outcome} or None with the
    output of a run that did not finish."""
    path = os.path.join(UNITTESTS, f"test_{name}.py")
    out = subprocess.run(
        [sys.executable, os.path.join(HERE, "peer_op_test_runner.py"), path,
         json.dumps(SKIPS.get(name, {}) | BRIDGE_LIMITS.get(name, {}))],
        env=env, capture_output=True, text=True, timeout=900)
    for line in out.stdout.splitlines():
        if line.startswith("PEER-RESULT "):
            return json.loads(line[len("PEER-RESULT "):]), out
    return None, out


def main():
    if not os.path.isdir(UNITTESTS):
        print(f"FAIL: {CHECKOUT} has no {UNITTESTS}")
        return 1
    if not os.path.exists(os.path.join(LEGACY, "op_test.py")):
        print(f"FAIL: no op_test.py in {LEGACY}: clone PaddleCustomDevice "
              "with --recursive (its Paddle submodule), or name a copy of "
              "Paddle's test/legacy_test in BP_PADDLE_OP_TEST_DIR")
        return 1
    env = dict(os.environ, FLAGS_enable_pir_api="0",
               BACKPLANE_PADDLE_FALLBACKS="1", GLOG_minloglevel="0",
               PYTHONPATH=os.pathsep.join(
                   [UNITTESTS, LEGACY, SHARED,
                    os.environ.get("PYTHONPATH", "")]))
    # BP_PADDLE_PEER_FILES (e.g. "cast_op,mean_op") runs some files only.
    only = os.environ.get("BP_PADDLE_PEER_FILES")
    files = only.split(",") if only else FILES
    totals = {"passed": 0, "skipped": 0, "failed": 0}
    broken = []
    for name in files:
        outcomes, out = run_file(name, env)
        if outcomes is None:
            broken.append(name)
            print(f"test_{name}.py: did not finish (exit {out.returncode})")
            print((out.stdout + out.stderr)[-3000:])
            continue
        counts = {"passed": 0, "skipped": 0, "failed": 0}
        for case, outcome in sorted(outcomes.items()):
            kind = outcome.split(":")[0]
            kind = kind if kind in counts else "failed"
            counts[kind] += 1
            if kind != "passed":
                print(f"  {case}: {outcome}")
        for kind in totals:
            totals[kind] += counts[kind]
        print(f"test_{name}.py: {counts['passed']} passed, "
              f"{counts['skipped']} skipped, {counts['failed']} failed",
              flush=True)
    print(f"{len(files)} custom_cpu op test files: {totals['passed']} cases "
          f"passed, {totals['skipped']} skipped, {totals['failed']} failed"
          + (f"; {len(broken)} files did not finish" if broken else ""))
    return 1 if broken or totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
