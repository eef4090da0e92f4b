"""Backplane devices as PyTorch devices: allocation from Backplane's caching
allocator, copies in every direction, printing, storage,
streams and events, the allocator's statistics and its errors
(test_open_registration.py has the cases of PyTorch's open-registration
test)."""
import os
import subprocess
import sys
import unittest

from torch_support import DEVICE, torch, torch_backplane


class DeviceTest(unittest.TestCase):
    def test_devices_are_listed(self):
        self.assertEqual(torch_backplane.device_count(), 2)
        self.assertTrue(torch_backplane.is_available())
        self.assertIn("vcpu", torch_backplane.get_device_name(0))
        self.assertIs(torch.privateuseone, torch_backplane)

    def test_empty_allocates_on_the_device(self):
        x = torch.empty(3, device=DEVICE)
        self.assertEqual(x.device, torch.device(DEVICE))
        self.assertEqual(x.shape, (3,))
        y = torch.empty((2, 5), dtype=torch.float64, device="privateuseone:1")
        self.assertEqual(y.device.index, 1)
        self.assertEqual(y.dtype, torch.float64)

    def test_copies_round_trip_in_every_direction(self):
        host = torch.arange(12, dtype=torch.float32).reshape(3, 4)
        on0 = host.to(DEVICE)
        on1 = on0.to("privateuseone:1")
        back = on1.cpu()
        self.assertTrue(torch.equal(back, host))
        same = torch.empty(3, 4, device=DEVICE)
        same.copy_(on0)
        self.assertTrue(torch.equal(same.cpu(), host))
        into_host = torch.zeros(3, 4)
        into_host.copy_(on1)
        self.assertTrue(torch.equal(into_host, host))

    def test_copies_of_views_and_casts(self):
        host = torch.arange(24, dtype=torch.float32).reshape(4, 6)
        dev = host.to(DEVICE)
        self.assertTrue(torch.equal(dev.t().cpu(), host.t()))
        self.assertTrue(torch.equal(dev[1:3, ::2].cpu(), host[1:3, ::2]))
        dst = torch.zeros(6, 4, device=DEVICE)
        dst.copy_(host.t())
        self.assertTrue(torch.equal(dst.cpu(), host.t()))
        self.assertTrue(torch.equal(dev.to(torch.int64).cpu(),
                                    host.to(torch.int64)))
        self.assertTrue(torch.equal(
            host.to(DEVICE, dtype=torch.float64).cpu(), host.double()))

    def test_cpu_waits_for_queued_work(self):
        x = torch.ones(1 << 16, device=DEVICE)
        for _ in range(8):
            x.add_(1)
        self.assertEqual(float(x.cpu().sum()), 9.0 * (1 << 16))

    def test_printing_and_item(self):
        x = torch.tensor([1.5, -2.0], device=DEVICE)
        self.assertIn("device='privateuseone:0'", repr(x))
        self.assertEqual(x[0].item(), 1.5)

    def test_storage_is_on_the_device(self):
        x = torch.arange(4.0).to(DEVICE)
        s = x.storage()
        self.assertEqual(s.device, torch.device(DEVICE))
        self.assertEqual(s.nbytes(), 16)
        self.assertEqual(x.view(2, 2).storage().data_ptr(), s.data_ptr())

    def test_fill_and_zero(self):
        x = torch.empty(2, 3, device=DEVICE)
        x.fill_(2.5)
        self.assertTrue(torch.equal(x.cpu(), torch.full((2, 3), 2.5)))
        x.zero_()
        self.assertTrue(torch.equal(x.cpu(), torch.zeros(2, 3)))
        self.assertTrue(torch.equal(torch.ones(4, device=DEVICE).cpu(),
                                    torch.ones(4)))

    def test_memory_stats_follow_allocations(self):
        torch_backplane.synchronize(0)
        before = torch_backplane.memory_allocated(0)
        x = torch.empty(1 << 20, dtype=torch.uint8, device=DEVICE)
        self.assertGreaterEqual(torch_backplane.memory_allocated(0),
                                before + (1 << 20))
        self.assertGreaterEqual(torch_backplane.max_memory_allocated(0),
                                before + (1 << 20))
        stats = torch_backplane.memory_stats(0)
        self.assertGreaterEqual(stats["reserved_bytes.all.current"],
                                stats["allocated_bytes.all.current"])
        del x
        torch_backplane.synchronize(0)
        self.assertEqual(torch_backplane.memory_allocated(0), before)
        torch_backplane.empty_cache(0)
        self.assertLessEqual(torch_backplane.memory_reserved(0),
                             stats["reserved_bytes.all.current"])

    def test_out_of_memory_reads_like_cuda(self):
        with self.assertRaises(torch.cuda.OutOfMemoryError) as caught:
            torch.empty(1 << 40, dtype=torch.uint8, device=DEVICE)
        self.assertIsInstance(caught.exception, RuntimeError)
        text = str(caught.exception)
        self.assertIn("Backplane out of memory", text)
        # bp_last_error's own text follows PyTorch's wording.
        self.assertIn("vcpu:0: out of memory", text)
        self.assertIn("Tried to allocate", text)
        self.assertIn("already allocated", text)
        self.assertIn("reserved in total", text)
        self.assertIn("largest free cached block", text)
        # The device is still usable afterwards.
        self.assertEqual(torch.ones(2, device=DEVICE).sum().item(), 2.0)

    def test_missing_op_runs_on_the_cpu_and_is_counted(self):
        torch_backplane.reset_fallback_counts()
        x = torch.arange(1.0, 6.0)
        with self.assertWarnsRegex(UserWarning, "igamma"):
            y = torch.igamma(x.to(DEVICE), x.to(DEVICE))
        self.assertEqual(y.device, torch.device(DEVICE))
        self.assertTrue(torch.equal(y.cpu(), torch.igamma(x, x)))
        counts = torch_backplane.fallback_counts()
        self.assertEqual(sum(n for op, n in counts.items() if "igamma" in op),
                         1, counts)

    def test_streams_and_events_order_work(self):
        side = torch_backplane.Stream(0)
        default = torch_backplane.current_stream(0)
        self.assertEqual(default, torch_backplane.default_stream(0))
        self.assertNotEqual(side, default)
        x = torch.ones(1 << 16, device=DEVICE)
        done = torch_backplane.Event()
        side.wait_stream(default)  # x is written on the default stream
        with torch_backplane.stream(side):
            self.assertEqual(torch_backplane.current_stream(0), side)
            y = x * 3
            done.record()
        self.assertEqual(torch_backplane.current_stream(0), default)
        default.wait_event(done)
        self.assertEqual(y.sum().item(), 3.0 * (1 << 16))
        done.synchronize()
        self.assertTrue(done.query())
        side.synchronize()
        self.assertTrue(side.query())

    def test_out_of_memory_is_counted(self):
        before = torch_backplane.memory_stats(0)["num_ooms"]
        with self.assertRaises(torch.cuda.OutOfMemoryError):
            torch.empty(1 << 40, dtype=torch.uint8, device=DEVICE)
        self.assertEqual(torch_backplane.memory_stats(0)["num_ooms"],
                         before + 1)

    def test_op_library_failure_is_a_runtime_error_with_its_text(self):
        a = torch.ones(2, 3, device=DEVICE)
        b = torch.ones(4, 2, device=DEVICE)
        with self.assertRaisesRegex(
                RuntimeError, r"diopiMm failed .*mat2: expected shape"):
            torch.mm(a, b)
        # The device and its stream stay usable.
        self.assertEqual(float(torch.mm(a, a.t()).sum().item()), 12.0)

    def test_bad_device_index_is_a_runtime_error(self):
        with self.assertRaisesRegex(RuntimeError, "out of range"):
            torch.empty(1, device="privateuseone:7")
        with self.assertRaisesRegex(RuntimeError, "out of range"):
            torch_backplane.synchronize(7)

    def test_visible_devices_naming_none_is_a_runtime_error(self):
        """The runtime starts on first use, so a BACKPLANE_VISIBLE_DEVICES
        naming no device is a RuntimeError there, not an abort at import."""
        probe = ("import torch, torch_backplane\n"
                 "try:\n"
                 "    torch.empty(1, device='privateuseone:0')\n"
                 "except RuntimeError as e:\n"
                 "    print('RuntimeError:', e)\n")
        env = dict(os.environ, BACKPLANE_VISIBLE_DEVICES="nope:0")
        out = subprocess.run([sys.executable, "-c", probe], env=env,
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertIn('RuntimeError: bp_runtime_create failed '
                      '(BP_ERR_NOT_FOUND): bp_runtime_create: '
                      'BACKPLANE_VISIBLE_DEVICES entry "nope:0"', out.stdout)

if __name__ == "__main__":
    unittest.main()
