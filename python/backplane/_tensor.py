"""The Python face of backplane.Tensor, added to the extension's type: the
methods NumPy and PyTorch users reach for (numpy(), to(), len(), indexing
as views, data_ptr()) and a repr with the values of small tensors."""
import operator
import warnings

from ._backplane import Tensor

_REPR_VALUES_MAX = 64  # elements; larger tensors show shape and dtype only


class _Address(int):
    """Tensor.data_ptr's value: an int (the old property) that is also
    callable (Tensor.data_ptr(), as in PyTorch). Reading it as an int
    without calling it is deprecated."""

    def __call__(self):
        return int(self)

    def _deprecated(self):
        warnings.warn("Tensor.data_ptr is a method: call data_ptr()",
                      DeprecationWarning, stacklevel=3)
        return int(self)

    def __index__(self):
        return self._deprecated()

    def __eq__(self, other):
        self._deprecated()
        return int(self) == other

    def __hash__(self):
        return int.__hash__(self)


_raw_data_ptr = Tensor.data_ptr


def _data_ptr(self):
    return _Address(_raw_data_ptr.__get__(self))


def numpy(self):
    """A NumPy array with a copy of the values, in host memory (complete
    when this returns). backplane.to_numpy(t) gives a view instead where
    the memory is host-visible."""
    import numpy as np
    from . import to_numpy
    base = self._base
    if self.host_visible or self.is_contiguous or base is None:
        return np.array(to_numpy(self), copy=True)
    # A strided view of device memory: the base comes over whole.
    host = to_numpy(base).reshape(-1)
    offset = (self.data_ptr() - base.data_ptr()) // self.itemsize
    return np.lib.stride_tricks.as_strided(
        host[offset:], self.shape,
        tuple(s * self.itemsize for s in self.strides)).copy()


def to(self, device, non_blocking=False):
    """This tensor on device (a Device, a name such as "vcpu:1", or None /
    "cpu" for host memory): self when it is there already, else a copy."""
    from . import _backplane, from_numpy
    if isinstance(device, str) and device not in ("cpu", "host"):
        device = _backplane.device(device)
    elif device in ("cpu", "host"):
        device = None
    if device == self.device:
        return self
    src = self if self.is_contiguous else from_numpy(self.numpy())
    return src.copy_to(device, non_blocking=non_blocking)


def _len(self):
    if not self.shape:
        raise TypeError("len() of a 0-d tensor")
    return self.shape[0]


def _repr(self):
    where = repr(self.device.name) if self.device is not None else "'cpu'"
    if self.numel <= _REPR_VALUES_MAX:
        import numpy as np
        values = np.array2string(self.numpy(), separator=", ",
                                 prefix="backplane.tensor(")
        return (f"backplane.tensor({values}, dtype={self.dtype}, "
                f"device={where})")
    return (f"backplane.tensor(<{self.numel} values>, shape={self.shape}, "
            f"dtype={self.dtype}, device={where})")


def _getitem(self, index):
    """Basic indexing: ints, slices with a positive step, ... (Ellipsis) and
    None (a new axis of 1), as a view that shares this tensor's memory."""
    if not isinstance(index, tuple):
        index = (index,)
    if sum(i is Ellipsis for i in index) > 1:
        raise IndexError("an index can only have one ellipsis (...)")
    used = sum(i is not None and i is not Ellipsis for i in index)
    if used > len(self.shape):
        raise IndexError(f"too many indices: {used} for a "
                         f"{len(self.shape)}-d tensor")
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index = (index[:at] + (slice(None),) * (len(self.shape) - used) +
                 index[at + 1:])
    else:
        index = index + (slice(None),) * (len(self.shape) - used)
    offset, shape, strides, dim = 0, [], [], 0
    for item in index:
        if item is None:
            shape.append(1)
            strides.append(0)
            continue
        size, stride = self.shape[dim], self.strides[dim]
        if isinstance(item, slice):
            start, stop, step = item.indices(size)
            if step <= 0:
                raise ValueError("a slice step must be positive (views "
                                 "have non-negative strides)")
            count = max(0, (stop - start + step - 1) // step)
            offset += start * stride if count else 0
            shape.append(count)
            strides.append(stride * step)
        else:
            i = operator.index(item)
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for "
                                 f"dimension {dim} of size {size}")
            offset += (i % size) * stride
        dim += 1
    return self._view(offset, tuple(shape), tuple(strides))


Tensor.data_ptr = property(_data_ptr, doc=_raw_data_ptr.__doc__)
Tensor.numpy = numpy
Tensor.to = to
Tensor.__len__ = _len
Tensor.__repr__ = _repr
Tensor.__getitem__ = _getitem
