"""Tensor.new (the legacy constructor) on Backplane devices.

torch 1.13's Tensor.new accepts only the device types built into PyTorch
and refuses a privateuseone tensor ("new(): expected key in
DispatchKeySet(CPU, CUDA, ...)"); code that still calls it, torch.optim's
foreach Adamax among it, then fails on a Backplane device. Importing
torch_backplane puts this in front of it for privateuseone tensors, with
the legacy meanings: new() an empty tensor, new(*sizes) or new(torch.Size)
an uninitialized one, new(sequence) one holding the data, new(tensor) that
tensor, all with self's dtype on self's device (or `device=`). Other
tensors take PyTorch's own."""
import torch

_legacy_new = torch.Tensor.new


def _new(self, *args, device=None):
    if self.device.type != "privateuseone":
        if device is None:
            return _legacy_new(self, *args)
        return _legacy_new(self, *args, device=device)
    device = self.device if device is None else torch.device(device)
    if not args:
        return torch.empty(0, dtype=self.dtype, device=device)
    if len(args) == 1 and isinstance(args[0], torch.Tensor):
        if args[0].dtype != self.dtype or args[0].device != device:
            raise TypeError(
                f"new(tensor): expected a {self.dtype} tensor on {device}, "
                f"got {args[0].dtype} on {args[0].device}")
        return args[0]
    if len(args) == 1 and isinstance(args[0], torch.Size):
        return torch.empty(args[0], dtype=self.dtype, device=device)
    if all(isinstance(a, int) for a in args):
        return torch.empty(args, dtype=self.dtype, device=device)
    if len(args) == 1:
        return torch.tensor(args[0], dtype=self.dtype, device=device)
    raise TypeError(f"new(): arguments {args!r} are neither sizes nor data")


torch.Tensor.new = _new
