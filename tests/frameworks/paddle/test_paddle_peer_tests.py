"""PaddleCustomDevice's custom_cpu operator tests (backends/custom_cpu/tests/
unittests/test_<op>_op.py, OpTest from Paddle's test/legacy_test) against the
bridge, for the ops the bridge registers: each file runs in its own process
with `custom_cpu` read as `backplane`. Their code is not part of this
repository: BP_PADDLE_CUSTOM_DEVICE_DIR names a checkout (docs/paddle.md);
without it the test is skipped (exit 77) and says so. OpTest comes from the
checkout's Paddle submodule (Paddle/test/legacy_test), or from the folder
BP_PADDLE_OP_TEST_DIR names (a copy of Paddle's test/legacy_test: op_test.py
and the modules it imports)."""
import os
import subprocess
import sys

CHECKOUT = os.environ.get("BP_PADDLE_CUSTOM_DEVICE_DIR", "")
if not CHECKOUT:
    print("SKIP: BP_PADDLE_CUSTOM_DEVICE_DIR names no PaddleCustomDevice "
          "checkout (docs/paddle.md, Peer tests)")
    sys.exit(77)

import bridge_env  # noqa: E402,F401

# The custom_cpu unit test files (test_<name>_op.py, PaddleCustomDevice
# 77090b64) whose kernels the bridge registers.
OPS = ["argsort", "cast", "compare", "concat", "elementwise_mul",
       "fill_constant", "matmul_v2", "mean", "reduce", "reshape", "sgd",
       "slice", "softmax", "softmax_with_cross_entropy", "transpose",
       "uniform_random"]

UNITTESTS = os.path.join(CHECKOUT, "backends", "custom_cpu", "tests",
                         "unittests")
LEGACY = os.environ.get("BP_PADDLE_OP_TEST_DIR") or os.path.join(
    CHECKOUT, "Paddle", "test", "legacy_test")
# The checkout's own python/tests holds the white_list package OpTest reads.
SHARED = os.path.join(CHECKOUT, "python", "tests")
# Runs one test file with custom_cpu read as backplane.
RUNNER = ("import sys, unittest\n"
          "path = sys.argv[1]\n"
          "src = open(path).read().replace('custom_cpu', 'backplane')\n"
          "scope = {'__name__': 'peer', '__file__': path}\n"
          "exec(compile(src, path, 'exec'), scope)\n"
          "suite = unittest.TestSuite()\n"
          "for value in list(scope.values()):\n"
          "    if isinstance(value, type) and issubclass(value, "
          "unittest.TestCase):\n"
          "        suite.addTests(unittest.defaultTestLoader."
          "loadTestsFromTestCase(value))\n"
          "result = unittest.TextTestRunner(verbosity=1).run(suite)\n"
          "sys.exit(0 if result.wasSuccessful() else 1)\n")


def main():
    if not os.path.isdir(UNITTESTS):
        print(f"FAIL: {CHECKOUT} has no {UNITTESTS}")
        return 1
    if not os.path.exists(os.path.join(LEGACY, "op_test.py")):
        print(f"FAIL: no op_test.py in {LEGACY}: clone PaddleCustomDevice "
              "with --recursive (its Paddle submodule), or name a copy of "
              "Paddle's test/legacy_test in BP_PADDLE_OP_TEST_DIR")
        return 1
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [UNITTESTS, LEGACY, SHARED, os.environ.get("PYTHONPATH", "")]))
    failed, ran = [], 0
    for op in OPS:
        path = os.path.join(UNITTESTS, f"test_{op}_op.py")
        if not os.path.exists(path):
            continue
        ran += 1
        out = subprocess.run([sys.executable, "-c", RUNNER, path], env=env,
                             capture_output=True, text=True, timeout=300)
        status = "ok" if out.returncode == 0 else "FAILED"
        print(f"{os.path.basename(path)}: {status}", flush=True)
        if out.returncode != 0:
            failed.append(op)
            print(out.stderr[-2000:])
    print(f"{ran - len(failed)} of {ran} custom_cpu op test files passed")
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
