"""The ordinary PyTorch training script (train_digits.py) on a Backplane
device: a LeNet-style CNN on scikit-learn's digits reaches >= 95 % test
accuracy on privateuseone:0 (vcpu) with every op on the device
(BACKPLANE_TORCH_FALLBACKS=error, set by CTest), and its losses follow the
same script on PyTorch's CPU device within 1e-4 over the first steps. The
same script trains on privateuseone:0 backed by OpenCL's first device
(BACKPLANE_VISIBLE_DEVICES=opencl:0; POCL's memory is host-addressable, so
the reference op library computes on it) to the same bar, with the vcpu
run's losses; skipped where the opencl plugin was not built or no OpenCL
platform exists."""
import ctypes
import json
import os
import subprocess
import sys
import unittest

from torch_support import DEVICE, torch, torch_backplane

import train_digits

STEPS_COMPARED = 20

# Run in a process of its own: the devices PyTorch sees are fixed when the
# bridge first starts Backplane's runtime.
ON_OPENCL = """
import json, torch, torch_backplane, train_digits
torch.set_num_threads(1)
name = torch_backplane.get_device_name(0)
losses, accuracy = train_digits.train("privateuseone:0")
print(json.dumps({"device": name, "losses": losses, "accuracy": accuracy,
                  "fallbacks": torch_backplane.fallback_counts()}))
"""


def opencl_platform_count():
    """clGetPlatformIDs through the ICD loader; 0 when there is none."""
    try:
        opencl = ctypes.CDLL("libOpenCL.so.1")
    except OSError:
        return 0
    count = ctypes.c_uint(0)
    if opencl.clGetPlatformIDs(0, None, ctypes.byref(count)) != 0:
        return 0
    return count.value


def start_on_opencl():
    """The OpenCL run, started (it overlaps the vcpu run), or the reason it
    cannot run here."""
    plugin = os.environ.get("BP_OPENCL_PLUGIN")
    if not plugin:
        return "the opencl plugin was not built"
    if opencl_platform_count() == 0:
        return "no OpenCL platform on this machine"
    env = dict(os.environ, BACKPLANE_VISIBLE_DEVICES="opencl:0",
               BACKPLANE_PLUGIN_PATH=plugin)
    env.pop("BACKPLANE_TORCH_DEVICE_TYPE", None)
    return subprocess.Popen([sys.executable, "-c", ON_OPENCL], env=env,
                            cwd=os.path.dirname(os.path.abspath(__file__)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


class TrainTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.opencl = start_on_opencl()
        cls.losses, cls.accuracy = train_digits.train(DEVICE)

    @classmethod
    def tearDownClass(cls):
        if isinstance(cls.opencl, subprocess.Popen) and \
                cls.opencl.poll() is None:
            cls.opencl.kill()
            cls.opencl.communicate()

    def test_cnn_reaches_95_percent_on_the_device(self):
        self.assertGreaterEqual(self.accuracy, 0.95)

    def test_losses_match_the_cpu_run(self):
        cpu_losses, _ = train_digits.train("cpu", epochs=1)
        for step, (ours, cpu) in enumerate(
                zip(self.losses[:STEPS_COMPARED],
                    cpu_losses[:STEPS_COMPARED])):
            self.assertAlmostEqual(ours, cpu, delta=1e-4,
                                   msg=f"step {step + 1}")

    def test_no_op_fell_back_to_the_cpu(self):
        self.assertEqual(torch_backplane.fallback_counts(), {})

    def test_trains_on_an_opencl_device_as_on_vcpu(self):
        if isinstance(self.opencl, str):
            self.skipTest(self.opencl)
        out, err = self.opencl.communicate(timeout=240)
        if "names no device" in err or "has no device" in err:
            self.skipTest("no OpenCL device: " + err.strip()[-300:])
        self.assertEqual(self.opencl.returncode, 0, err[-3000:])
        run = json.loads(out.strip().splitlines()[-1])
        self.assertTrue(run["device"].startswith("opencl"), run["device"])
        self.assertEqual(run["fallbacks"], {})
        self.assertGreaterEqual(run["accuracy"], 0.95)
        for step, (opencl, vcpu) in enumerate(
                zip(run["losses"][:STEPS_COMPARED],
                    self.losses[:STEPS_COMPARED])):
            self.assertAlmostEqual(opencl, vcpu, delta=1e-4,
                                   msg=f"step {step + 1}")


if __name__ == "__main__":
    unittest.main()
