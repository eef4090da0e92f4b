"""The cases of PyTorch's open-registration test (the PrivateUse1 extension
point's own test) that apply to torch 1.13, on the backplane device: the
device module, allocation through the registered allocator, factory
functions, copies, printing, storage, and serialization with torch.save and
torch.load (device tensors saved with their device and restored there, or
where map_location says)."""
import io
import unittest

from torch_support import DEVICE, torch, torch_backplane


def round_trip(obj, **load_args):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_args)


class OpenRegistrationTest(unittest.TestCase):
    def test_device_module_is_registered(self):
        self.assertIs(torch.privateuseone, torch_backplane)
        self.assertEqual(torch.privateuseone.device_count(), 2)
        self.assertEqual(torch.device(DEVICE).type, "privateuseone")

    def test_factories_allocate_through_the_backplane_allocator(self):
        torch_backplane.synchronize(0)
        before = torch_backplane.memory_allocated(0)
        made = [torch.empty(256, device=DEVICE),
                torch.empty_strided((4, 8), (1, 4), device=DEVICE),
                torch.zeros(3, 5, device=DEVICE),
                torch.ones(7, dtype=torch.int64, device=DEVICE),
                torch.full((2, 2), 1.5, device=DEVICE),
                torch.randn(6, device=DEVICE)]
        self.assertGreaterEqual(torch_backplane.memory_allocated(0),
                                before + 256 * 4)
        for t in made:
            self.assertEqual(t.device, torch.device(DEVICE))
        self.assertEqual(made[1].stride(), (1, 4))
        self.assertTrue(torch.equal(made[2].cpu(), torch.zeros(3, 5)))
        self.assertTrue(torch.equal(made[3].cpu(), torch.ones(7).long()))
        self.assertTrue(torch.equal(made[4].cpu(), torch.full((2, 2), 1.5)))

    def test_copies_and_to(self):
        host = torch.randn(3, 4)
        dev = host.to(DEVICE, non_blocking=True)
        self.assertTrue(torch.equal(dev.cpu(), host))
        self.assertTrue(torch.equal(dev.to(torch.float64).cpu(),
                                    host.double()))
        self.assertTrue(torch.equal(dev.to("privateuseone:1").cpu(), host))
        self.assertIs(dev.to(DEVICE), dev)

    def test_printing(self):
        self.assertIn("device='privateuseone:0'",
                      repr(torch.tensor([1.0, 2.5], device=DEVICE)))
        self.assertIn("dtype=torch.int32", repr(
            torch.arange(3, dtype=torch.int32).to(DEVICE)))
        self.assertIn("True", repr(torch.ones(2, dtype=torch.bool,
                                              device=DEVICE)))
        # Summarized printing reads the same as the CPU's, device added.
        host = torch.arange(5000.0) / 7
        self.assertEqual(repr(host.to(DEVICE)),
                         repr(host)[:-1] + ", device='privateuseone:0')")

    def test_storage(self):
        x = torch.arange(8.0).to(DEVICE)
        storage = x.storage()
        self.assertEqual(storage.device, torch.device(DEVICE))
        self.assertEqual(storage.size(), 8)
        self.assertEqual(storage.untyped().nbytes(), 32)
        self.assertEqual(x[2:].storage().data_ptr(), storage.data_ptr())
        self.assertEqual(storage.untyped().cpu().nbytes(), 32)
        self.assertEqual(storage.cpu().tolist(), list(range(8)))

    def test_save_and_load_keep_the_device(self):
        x = torch.randn(3, 4).to(DEVICE)
        loaded = round_trip({"x": x, "column": x[:, 1], "n": 3})
        self.assertEqual(loaded["x"].device, torch.device(DEVICE))
        self.assertTrue(torch.equal(loaded["x"].cpu(), x.cpu()))
        self.assertTrue(torch.equal(loaded["column"].cpu(), x[:, 1].cpu()))
        # Views share their storage after loading, as before saving.
        self.assertEqual(loaded["column"].storage().data_ptr(),
                         loaded["x"].storage().data_ptr())
        self.assertEqual(loaded["n"], 3)

    def test_load_maps_locations(self):
        x = torch.randn(5).to("privateuseone:1")
        on_cpu = round_trip(x, map_location="cpu")
        self.assertEqual(on_cpu.device, torch.device("cpu"))
        self.assertTrue(torch.equal(on_cpu, x.cpu()))
        moved = round_trip(x, map_location=DEVICE)
        self.assertEqual(moved.device, torch.device(DEVICE))
        from_host = round_trip(torch.arange(4.0), map_location=DEVICE)
        self.assertEqual(from_host.device, torch.device(DEVICE))
        self.assertTrue(torch.equal(from_host.cpu(), torch.arange(4.0)))

    def test_load_onto_a_missing_device_says_so(self):
        with self.assertRaisesRegex(RuntimeError, "only 2 such devices"):
            round_trip(torch.ones(2), map_location="privateuseone:7")

    def test_module_state_dict_round_trip(self):
        model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3),
                                    torch.nn.BatchNorm2d(2)).to(DEVICE)
        state = round_trip(model.state_dict())
        fresh = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3),
                                    torch.nn.BatchNorm2d(2)).to(DEVICE)
        fresh.load_state_dict(state)
        for name, value in model.state_dict().items():
            self.assertEqual(state[name].device, torch.device(DEVICE))
            self.assertTrue(torch.equal(fresh.state_dict()[name].cpu(),
                                        value.cpu()), name)


if __name__ == "__main__":
    unittest.main()
