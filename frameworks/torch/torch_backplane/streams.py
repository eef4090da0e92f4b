"""Streams and events, as torch.cuda.Stream / torch.cuda.Event are for CUDA:
Backplane streams and events behind the bridge's device guard (the same
ones PyTorch's autograd and DDP use). torch 1.13 has no device-generic
torch.Stream, so these are the bridge's own classes."""
import contextlib
import ctypes

from . import _native
from .device import _index

_lib = _native.lib
_lib.torch_backplane_stream_from_pool.argtypes = [
    ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
_lib.torch_backplane_current_stream.argtypes = [
    ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
_lib.torch_backplane_set_stream.argtypes = [
    ctypes.c_int, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)]
_lib.torch_backplane_stream_query.argtypes = [
    ctypes.c_int, ctypes.c_int64, ctypes.POINTER(ctypes.c_int)]
_lib.torch_backplane_stream_synchronize.argtypes = [ctypes.c_int,
                                                    ctypes.c_int64]
_lib.torch_backplane_event_record.argtypes = [
    ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int64]
_lib.torch_backplane_event_block.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                             ctypes.c_int64]
_lib.torch_backplane_event_query.argtypes = [ctypes.c_void_p,
                                             ctypes.POINTER(ctypes.c_int)]
_lib.torch_backplane_event_synchronize.argtypes = [ctypes.c_void_p]
_lib.torch_backplane_event_destroy.argtypes = [ctypes.c_void_p, ctypes.c_int]


class Stream:
    """A stream of a device: a new one from the pool, or (stream_id given)
    an existing one; id 0 is the device's default stream."""

    def __init__(self, device=None, stream_id=None):
        self.device_index = _index(device)
        if stream_id is None:
            out = ctypes.c_int64()
            _native.call("stream_from_pool", self.device_index,
                         ctypes.byref(out))
            stream_id = out.value
        self.id = stream_id

    def __eq__(self, other):
        return (isinstance(other, Stream) and
                (self.device_index, self.id) == (other.device_index, other.id))

    def __hash__(self):
        return hash((self.device_index, self.id))

    def __repr__(self):
        return f"<torch_backplane.Stream device={self.device_index} id={self.id}>"

    def query(self):
        """True when all work queued on the stream has finished."""
        done = ctypes.c_int()
        _native.call("stream_query", self.device_index, self.id,
                     ctypes.byref(done))
        return bool(done.value)

    def synchronize(self):
        _native.call("stream_synchronize", self.device_index, self.id)

    def wait_event(self, event):
        """Later work on this stream waits for `event`."""
        _native.call("event_block", event._handle, self.device_index, self.id)

    def wait_stream(self, other):
        """Later work on this stream waits for the work queued on `other`
        so far."""
        self.wait_event(other.record_event())

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event


def current_stream(device=None):
    index = _index(device)
    out = ctypes.c_int64()
    _native.call("current_stream", index, ctypes.byref(out))
    return Stream(index, out.value)


def default_stream(device=None):
    return Stream(_index(device), 0)


@contextlib.contextmanager
def stream(s):
    """Makes `s` the current stream of its device inside the block."""
    previous = ctypes.c_int64()
    _native.call("set_stream", s.device_index, s.id, ctypes.byref(previous))
    try:
        yield s
    finally:
        _native.call("set_stream", s.device_index, previous.value,
                     ctypes.byref(ctypes.c_int64()))


class Event:
    """A point in a stream (a Backplane event, created on first record)."""

    def __init__(self):
        self._handle = ctypes.c_void_p()
        self._device = None

    def record(self, s=None):
        s = s or current_stream()
        if self._device is not None and self._device != s.device_index:
            raise ValueError("an event stays on the device it was first "
                             "recorded on")
        _native.call("event_record", ctypes.byref(self._handle),
                     s.device_index, s.id)
        self._device = s.device_index

    def query(self):
        done = ctypes.c_int()
        _native.call("event_query", self._handle, ctypes.byref(done))
        return bool(done.value)

    def synchronize(self):
        _native.call("event_synchronize", self._handle)

    def wait(self, s=None):
        (s or current_stream()).wait_event(self)

    def __del__(self):
        if self._handle and self._device is not None:
            _lib.torch_backplane_event_destroy(self._handle, self._device)
