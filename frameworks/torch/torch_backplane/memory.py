"""The caching allocator's own statistics, named as torch.cuda names them."""
import ctypes

from . import _native
from .device import _index

# The order torch_backplane_memory_stats writes them in (c_api.cpp).
_FIELDS = (
    "allocated_bytes.all.current", "allocated_bytes.all.peak",
    "allocated_bytes.all.allocated", "allocated_bytes.all.freed",
    "reserved_bytes.all.current", "reserved_bytes.all.peak",
    "reserved_bytes.all.allocated", "reserved_bytes.all.freed",
    "active_bytes.all.current", "active_bytes.all.peak",
    "requested_bytes.all.current", "requested_bytes.all.peak",
    "num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free",
)


def memory_stats(device=None):
    """A dict of the device's allocator statistics (bytes and counts)."""
    values = (ctypes.c_uint64 * len(_FIELDS))()
    _native.call("memory_stats", _index(device), values)
    return dict(zip(_FIELDS, (int(v) for v in values)))


def memory_allocated(device=None):
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device=None):
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device=None):
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device=None):
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device=None):
    _native.call("reset_peak", _index(device))


def empty_cache(device=None):
    """Waits for the device, then returns its cached free blocks."""
    _native.call("empty_cache", _index(device))
