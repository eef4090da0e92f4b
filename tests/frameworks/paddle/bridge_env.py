"""Shared set-up of the Paddle bridge tests: import before paddle.

CTest passes BP_PADDLE_BRIDGE_DIR (the folder holding only
libbackplane_paddle.so); this points CUSTOM_DEVICE_ROOT at it, turns Paddle's
CPU fallback off (FLAGS_enable_api_kernel_fallback=0) so that every kernel a
test runs is the bridge's, and exits 77 (CTest: skipped) with the reason when
Paddle cannot be imported.
"""
import os
import sys

os.environ["CUSTOM_DEVICE_ROOT"] = os.environ["BP_PADDLE_BRIDGE_DIR"]
os.environ.setdefault("FLAGS_enable_api_kernel_fallback", "0")
os.environ.setdefault("GLOG_minloglevel", "2")

try:
    import numpy  # noqa: F401
    import paddle  # noqa: F401
except ImportError as error:
    print(f"SKIP: {sys.executable} cannot import paddle ({error}); "
          "scripts/setup-venv.sh installs it into .venv")
    sys.exit(77)

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "..",
                        "examples", "paddle")
