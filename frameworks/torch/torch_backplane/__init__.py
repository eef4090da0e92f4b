"""Backplane devices for PyTorch.

Importing torch_backplane makes every Backplane device a PyTorch device of
type "privateuseone" (torch 1.13 cannot rename it): its allocator is
Backplane's caching allocator, its streams and events are Backplane's, and
its aten kernels call the DIOPI op library. The functions below are also
reachable as torch.privateuseone.* (torch._register_device_module).

    import torch, torch_backplane
    x = torch.ones(3, device="privateuseone:0")

BACKPLANE_TORCH_FALLBACKS: ops without a kernel run on the CPU with one
warning each (unset), with a line per call ("1"), or fail with
NotImplementedError ("error"). See docs/pytorch.md.
"""
import sys

import torch

from . import _native
from . import serialization  # noqa: F401 (torch.save/load of devices)
from . import legacy_new  # noqa: F401 (Tensor.new on devices)
from .device import (current_device, device_count, get_device_name,
                     is_available, set_device, synchronize)
from . import generators
from .generators import (Generator, default_generator, get_rng_state,
                         get_rng_state_all, initial_seed, manual_seed,
                         manual_seed_all, seed, seed_all, set_rng_state,
                         set_rng_state_all)
from .streams import (Event, Stream, current_stream, default_stream,
                      stream)
from .memory import (empty_cache, max_memory_allocated, max_memory_reserved,
                     memory_allocated, memory_reserved, memory_stats,
                     reset_peak_memory_stats)

__all__ = [
    "Event", "Stream", "current_stream", "default_stream", "stream",
    "Generator", "default_generator", "default_generators",
    "get_rng_state", "get_rng_state_all", "initial_seed", "manual_seed",
    "manual_seed_all", "seed", "seed_all", "set_rng_state",
    "set_rng_state_all",
    "current_device", "device_count", "empty_cache", "fallback_counts",
    "get_device_name", "is_available", "max_memory_allocated",
    "max_memory_reserved", "memory_allocated", "memory_reserved",
    "memory_stats", "reset_fallback_counts", "reset_peak_memory_stats",
    "set_device", "synchronize",
]


def fallback_counts():
    """{"op.overload": calls} for every op that ran through the CPU
    fallback since the start (or reset_fallback_counts())."""
    import ctypes
    length = ctypes.c_size_t()
    _native.call("fallback_counts", None, 0, ctypes.byref(length))
    buf = ctypes.create_string_buffer(length.value + 1)
    _native.call("fallback_counts", buf, len(buf), ctypes.byref(length))
    counts = {}
    for line in buf.value.decode().splitlines():
        name, count = line.rsplit(" ", 1)
        counts[name] = int(count)
    return counts


def reset_fallback_counts():
    _native.call("reset_fallback_counts")


def __getattr__(name):
    if name == "default_generators":  # made on first use, as torch.cuda's
        return generators.default_generators
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


generators._hook_torch_seeding()


if torch.distributed.is_available():
    from . import distributed  # noqa: F401 (registers the backend)

if not hasattr(torch, "privateuseone"):
    torch._register_device_module("privateuseone", sys.modules[__name__])
