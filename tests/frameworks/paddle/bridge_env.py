"""Shared set-up of the Paddle bridge tests: import before paddle.

CTest passes BP_PADDLE_BRIDGE_DIR (the folder holding only
libbackplane_paddle.so); this points CUSTOM_DEVICE_ROOT at it, turns Paddle's
CPU fallback off (FLAGS_enable_api_kernel_fallback=0) so that every kernel a
test runs is the bridge's, and exits 77 (CTest: skipped) with the reason when
Paddle is not installed. It only looks for Paddle: a test that drives Paddle
in child processes alone pays no Paddle start of its own (2-3 s).
"""
import importlib.util
import os
import sys

os.environ["CUSTOM_DEVICE_ROOT"] = os.environ["BP_PADDLE_BRIDGE_DIR"]
os.environ.setdefault("FLAGS_enable_api_kernel_fallback", "0")
os.environ.setdefault("GLOG_minloglevel", "2")

missing = [name for name in ("numpy", "paddle")
           if importlib.util.find_spec(name) is None]
if missing:
    print(f"SKIP: {sys.executable} cannot import {', '.join(missing)}; "
          "scripts/setup-venv.sh installs it into .venv")
    sys.exit(77)

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "..",
                        "examples", "paddle")
