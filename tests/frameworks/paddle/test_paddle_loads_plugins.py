"""Paddle's own loader takes Backplane's vendor plugins as they are.

With CUSTOM_DEVICE_ROOT naming a folder that holds only the built
libbackplane_vcpu.so, PaddlePaddle 3 lists the `vcpu` device type with as many
devices as the plugin reports (BACKPLANE_VCPU_DEVICES), and tensors placed on
vcpu devices are allocated, copied (host <-> device, device <-> device) and
synchronized by the plugin through Paddle's runtime, on Paddle's default and
custom streams and events. Paddle has no vcpu kernels, so it runs its CPU
kernels on data it copies through the plugin. An allocation larger than the
plugin's device memory (BACKPLANE_VCPU_MEMORY) fails inside Paddle, which
shows that allocations reach the plugin. The opencl plugin is listed and
round-trips a tensor too, in a process of its own (Paddle exits when a
plugin's initialize fails, e.g. with no OpenCL platform).

Run by CTest with the project venv's interpreter (BP_VENV_PYTHON); exits 77
(skipped) when Paddle cannot be imported. Environment: BP_VCPU_PLUGIN (and
optionally BP_OPENCL_PLUGIN), the plugins' paths.
"""

import ctypes
import os
import subprocess
import sys
import tempfile
import unittest

VCPU_DEVICES = 3
VCPU_MEMORY_MB = 64

_root = tempfile.TemporaryDirectory(prefix="bp-paddle-plugins-")
os.symlink(os.environ["BP_VCPU_PLUGIN"],
           os.path.join(_root.name, "libbackplane_vcpu.so"))
# Paddle reads these when it is imported.
os.environ["CUSTOM_DEVICE_ROOT"] = _root.name
os.environ["BACKPLANE_VCPU_DEVICES"] = str(VCPU_DEVICES)
os.environ["BACKPLANE_VCPU_MEMORY"] = f"{VCPU_MEMORY_MB}M"

try:
    import numpy as np
    import paddle
except ImportError as error:
    print(f"SKIP: {sys.executable} cannot import paddle ({error}); "
          "scripts/setup-venv.sh installs it into .venv")
    sys.exit(77)


def vcpu(index):
    return paddle.CustomPlace("vcpu", index)


class VcpuUnderPaddle(unittest.TestCase):
    def test_lists_vcpu_with_the_plugins_device_count(self):
        self.assertEqual(paddle.device.get_all_custom_device_type(), ["vcpu"])
        self.assertEqual(
            sorted(paddle.device.get_available_custom_device()),
            [f"vcpu:{i}" for i in range(VCPU_DEVICES)])

    def test_tensor_round_trip_host_device_host(self):
        data = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
        x = paddle.to_tensor(data, place=vcpu(0))
        self.assertTrue(x.place.is_custom_place())
        self.assertEqual(x.place.custom_device_type(), "vcpu")
        self.assertEqual(x.place.custom_device_id(), 0)
        np.testing.assert_array_equal(x.numpy(), data)
        np.testing.assert_array_equal(x.cpu().numpy(), data)

    def test_copy_between_devices(self):
        data = np.array([1, -2, 3, -4, 5], dtype=np.int64)
        x = paddle.to_tensor(data, place=vcpu(0))
        y = x._copy_to(vcpu(2), True)
        self.assertEqual(y.place.custom_device_id(), 2)
        z = y._copy_to(vcpu(1), False)
        paddle.device.synchronize("vcpu:1")
        np.testing.assert_array_equal(z.numpy(), data)

    def test_set_device_places_new_tensors(self):
        previous = paddle.get_device()
        try:
            paddle.device.set_device("vcpu:1")
            self.assertEqual(paddle.get_device(), "vcpu:1")
            t = paddle.full([2, 3], 7.0)
            self.assertEqual(t.place.custom_device_type(), "vcpu")
            self.assertEqual(t.place.custom_device_id(), 1)
            np.testing.assert_array_equal(t.numpy(), np.full((2, 3), 7.0))
        finally:
            paddle.device.set_device(previous)

    def test_cpu_kernels_run_on_vcpu_tensors(self):
        x = paddle.to_tensor([0.0, 1.0, 2.0, 3.0], place=vcpu(0))
        y = x * 2.0 + 1.0
        self.assertEqual(y.place.custom_device_type(), "vcpu")
        np.testing.assert_array_equal(y.numpy(), [1.0, 3.0, 5.0, 7.0])
        self.assertEqual(float(paddle.sum(y)), 16.0)

    def test_custom_stream_and_event(self):
        x = paddle.to_tensor([1.0, 2.0, 3.0], place=vcpu(0))
        stream = paddle.device.Stream(device="vcpu:0")
        with paddle.device.stream_guard(stream):
            w = x + 10.0
            event = stream.record_event()
        event.synchronize()
        self.assertTrue(event.query())
        stream.synchronize()
        self.assertTrue(stream.query())
        paddle.device.synchronize("vcpu:0")
        np.testing.assert_array_equal(w.numpy(), [11.0, 12.0, 13.0])
        current = paddle.device.current_stream("vcpu:0")
        current.wait_event(event)
        current.synchronize()

    def test_zz_allocation_beyond_device_memory_fails_in_the_plugin(self):
        # Twice the device's memory, as float32 elements.
        elements = 2 * VCPU_MEMORY_MB * (1 << 20) // 4
        with self.assertRaisesRegex(Exception, "CustomDevice|[Mm]emory"):
            big = paddle.empty([elements], dtype="float32").to("vcpu:0")
            big.numpy()  # should never be reached
        small = paddle.to_tensor([4.0], place=vcpu(0))
        np.testing.assert_array_equal(small.numpy(), [4.0])


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


@unittest.skipUnless(os.environ.get("BP_OPENCL_PLUGIN"),
                     "the opencl plugin was not built")
class OpenclUnderPaddle(unittest.TestCase):
    def test_lists_opencl_and_round_trips(self):
        if opencl_platform_count() == 0:
            self.skipTest("no OpenCL platform on this machine")
        with tempfile.TemporaryDirectory(prefix="bp-paddle-opencl-") as root:
            os.symlink(os.environ["BP_OPENCL_PLUGIN"],
                       os.path.join(root, "libbackplane_opencl.so"))
            script = (
                "import numpy as np, paddle\n"
                "print('types', paddle.device.get_all_custom_device_type())\n"
                "d = np.arange(5, dtype=np.float32)\n"
                "x = paddle.to_tensor(d, place=paddle.CustomPlace('opencl', 0))\n"
                "paddle.device.synchronize('opencl:0')\n"
                "print('round trip', bool((x.numpy() == d).all()))\n")
            env = dict(os.environ, CUSTOM_DEVICE_ROOT=root)
            run = subprocess.run([sys.executable, "-c", script], env=env,
                                 capture_output=True, text=True, timeout=240)
        self.assertEqual(run.returncode, 0, run.stderr[-2000:])
        self.assertIn("types ['opencl']", run.stdout)
        self.assertIn("round trip True", run.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
