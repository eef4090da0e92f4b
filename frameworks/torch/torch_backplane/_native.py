"""The bridge's shared library: loaded into PyTorch (its static constructors
register the PrivateUse1 allocator, device guard and kernels) and called
through ctypes for what PyTorch has no Python hook for."""
import ctypes

import torch  # noqa: F401 (the extension needs torch's libraries loaded)

from . import _C

lib = ctypes.CDLL(_C.__file__)
lib.torch_backplane_last_error.restype = ctypes.c_char_p
lib.torch_backplane_device_name.argtypes = [
    ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
lib.torch_backplane_memory_stats.argtypes = [
    ctypes.c_int, ctypes.POINTER(ctypes.c_uint64)]
lib.torch_backplane_fallback_counts.argtypes = [
    ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]


def call(name, *args):
    """Calls torch_backplane_<name>; a failure is a RuntimeError carrying
    Backplane's error text."""
    if getattr(lib, "torch_backplane_" + name)(*args) != 0:
        raise RuntimeError(lib.torch_backplane_last_error().decode())


def get_int(name, *args):
    out = ctypes.c_int()
    call(name, *args, ctypes.byref(out))
    return out.value
