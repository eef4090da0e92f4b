"""Devices: Backplane's devices as PyTorch's privateuseone devices."""
import ctypes

import torch

from . import _native

TYPE = "privateuseone"


def device_count():
    return _native.get_int("device_count")


def is_available():
    return device_count() > 0


def current_device():
    return _native.get_int("current_device")


def set_device(device):
    _native.call("set_device", _index(device))


def get_device_name(device=None):
    out = ctypes.c_char_p()
    _native.call("device_name", _index(device), ctypes.byref(out))
    return out.value.decode()


def synchronize(device=None):
    """Waits until all work queued on the device has finished."""
    _native.call("synchronize", _index(device))


def _index(device):
    """None (the current device), an int, "privateuseone:N" or a
    torch.device -> N."""
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    device = torch.device(device)
    if device.type != TYPE:
        raise ValueError(f"expected a {TYPE} device, got {device}")
    return current_device() if device.index is None else device.index
