"""Backplane from Python: devices, streams, events, tensors with DLPack both
ways, kernels (Module, Function), collectives (backplane.comm), standard ops
(backplane.ops), tracing and the allocator history (backplane.memory).

    import backplane, numpy as np
    dev = backplane.device("vcpu:0")
    a = backplane.from_numpy(np.ones(4, np.float32), device=dev)
    backplane.ops.add(a, a, a, alpha=1.0)
    print(backplane.to_numpy(a))            # [2. 2. 2. 2.]

Work for a device goes to the innermost ``with stream:`` of that device on
the calling thread, else to the device's default stream. See docs/python.md.
"""
import atexit as _atexit
import contextlib as _contextlib

from . import _backplane
from ._backplane import (  # noqa: F401  (re-exported)
    AbortedError, Comm, Device, Error, Event, Function, Generator,
    InternalError, InvalidArgumentError, Module, NotFoundError, NotReadyError,
    OpsLibrary, OutOfMemoryError, PeerLostError, PluginError, Stream, Tensor,
    TimeoutError, UnsupportedError, current_stream, device, devices,
    library_dir, range_pop, range_push)

__all__ = [
    "AbortedError", "Comm", "Device", "Error", "Event", "Function",
    "Generator", "InternalError", "InvalidArgumentError", "Module",
    "NotFoundError", "NotReadyError", "OpsLibrary", "OutOfMemoryError",
    "PeerLostError", "PluginError", "Stream", "Tensor", "TimeoutError", "UnsupportedError",
    "comm", "current_stream", "device", "devices", "empty", "from_dlpack",
    "from_numpy", "library_dir", "load_module", "memory", "ops", "range", "range_pop",
    "range_push", "synchronize",
    "to_numpy", "trace", "zeros",
]

#: Backplane's version (BP_VERSION_STRING of backplane/version.h, the one
#: the extension was built with).
__version__ = _backplane.__version__

_atexit.register(_backplane._shutdown)


def _dtype_name(dtype):
    if dtype is None or isinstance(dtype, str):
        return dtype
    import numpy
    return numpy.dtype(dtype).name


def empty(shape, dtype="float32", device=None, unified=False):
    """An uninitialized tensor: host memory when device is None, else the
    device's caching allocator on its active stream (or unified memory)."""
    return _backplane.empty(shape, _dtype_name(dtype), device, unified)


def zeros(shape, dtype="float32", device=None, unified=False):
    """Like empty(), filled with zero bytes."""
    return _backplane.zeros(shape, _dtype_name(dtype), device, unified)


def from_dlpack(x, copy=None):
    """A Tensor over x's memory (anything with __dlpack__, e.g. a NumPy
    array or a PyTorch CPU tensor).

    Without a copy when DLPack can hand the memory over (host memory, or a
    device of this runtime, in a dtype Backplane has); the result then has
    is_borrowed True and writes show through. Otherwise (no __dlpack__, a
    byte order, dtype or device DLPack cannot express) the result is a copy
    in host memory Backplane owns (is_borrowed False), unless copy=False,
    which raises instead; copy=True always copies."""
    if copy is not True:
        try:
            return _backplane.from_dlpack(x)
        except (BufferError, TypeError, RuntimeError):
            if copy is False:
                raise
    import numpy
    a = numpy.asarray(x)
    t = empty(a.shape, a.dtype.name)  # host memory Backplane owns
    to_numpy(t)[...] = a  # one copy (byte order converted if need be)
    return t


def from_numpy(array, device=None):
    """A Tensor with array's contents: a view of its memory (no copy, see
    from_dlpack) when device is None, else a copy on that device (of any
    array, strided ones included)."""
    t = from_dlpack(array)
    if device is None:
        return t
    if not t.is_contiguous:  # copies go between contiguous tensors
        import numpy
        t = from_dlpack(numpy.ascontiguousarray(array))
    return t.copy_to(device)


class _ArrayView:
    """A host-visible tensor as NumPy's array interface (writable, unlike
    numpy.from_dlpack's read-only arrays); the array keeps it alive."""

    def __init__(self, tensor):
        import numpy
        tensor.synchronize()  # the host reads next
        self.tensor = tensor
        self.__array_interface__ = {
            "version": 3,
            "data": (tensor.data_ptr(), False),
            "shape": tensor.shape,
            "typestr": numpy.dtype(tensor.dtype).str,
            "strides": tuple(s * tensor.itemsize for s in tensor.strides),
        }


def to_numpy(tensor):
    """A NumPy array of tensor: a writable view (no copy) of host-visible
    memory, else a host copy, complete when this returns."""
    import numpy
    if not tensor.host_visible:
        tensor = tensor.copy_to(None)
    return numpy.asarray(_ArrayView(tensor))


def load_module(path, device):
    """Loads a kernel module (a shared object or an op-info manifest *.json)
    for device: Module(device, path). Use it in a with statement, or call
    unload(), to unload it."""
    return Module(device, path)


def synchronize(device=None):
    """Waits for all work on device (every device when None)."""
    for d in ([_backplane.device(device)] if isinstance(device, str)
              else [device] if device is not None else devices()):
        d.synchronize()


@_contextlib.contextmanager
def range(name):  # noqa: A001  (the NVTX name)
    """A named range of the block on the calling thread, like NVTX's
    push/pop: in a trace (backplane.trace, or the trace layer) it is a slice
    on the thread's host track, nested ranges inside it."""
    range_push(name)
    try:
        yield
    finally:
        range_pop()


@_contextlib.contextmanager
def trace(path):
    """Records the plugins' trace events of the block and writes them to
    path as Chrome trace-event JSON (Perfetto, chrome://tracing). Every
    device is synchronized at the end of the block, so its work is in."""
    profile = _backplane.Profile()
    profile.start()
    try:
        yield profile
    finally:
        synchronize()
        profile.stop()
        profile.export_chrome(path)


from . import _tensor  # noqa: E402,F401  (Tensor's Python methods)
from . import comm, memory, ops  # noqa: E402  (they import the names above)
