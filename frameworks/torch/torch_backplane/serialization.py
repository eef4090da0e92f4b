"""torch.save / torch.load of tensors on Backplane devices.

torch 1.13 tags and restores the storages of cpu, cuda, mps and meta only,
and its Python bindings refuse a PrivateUse1 storage as an argument (the
storage copy behind UntypedStorage.cpu(), Tensor.set_ behind
torch._utils._rebuild_tensor). Importing this module registers the location
"privateuseone:N" with torch.serialization (a device storage is saved with its
device and loaded back there, or where map_location says) and routes those two
steps for device storages through the bridge (_C._tensor_of_storage: a tensor
viewing the storage; copies are the bridge's copy kernels). Other storages
take PyTorch's own path."""
import torch
import torch._utils

from . import _C

_TYPE = "privateuseone"


def _bytes_of(storage):
    """A uint8 tensor over a device storage's memory (no copy)."""
    return _C._tensor_of_storage(storage, torch.uint8, 0, [storage.nbytes()],
                                 [])


def _tag(storage):
    device = storage.device
    if device.type == _TYPE:
        return f"{_TYPE}:{device.index or 0}"
    return None


def _restore(storage, location):
    if not location.startswith(_TYPE):
        return None
    index = torch.device(location).index or 0
    count = torch.privateuseone.device_count()
    if index >= count:
        raise RuntimeError(
            f"Attempting to deserialize object on {_TYPE} device {index} but "
            f"there are only {count} such devices (torch_backplane); use "
            f"torch.load's map_location to map the storages to an existing "
            f"device")
    host = torch.empty(0, dtype=torch.uint8).set_(storage)
    return host.to(f"{_TYPE}:{index}").storage()._storage


_storage_cpu = torch.UntypedStorage.cpu


def _device_storage_cpu(self):
    if self.device.type == _TYPE:
        return _bytes_of(self).cpu().storage()._storage
    return _storage_cpu(self)


_rebuild_tensor = torch._utils._rebuild_tensor


def _rebuild_device_tensor(storage, storage_offset, size, stride):
    untyped = storage.untyped()
    if untyped.device.type == _TYPE:
        return _C._tensor_of_storage(untyped, storage.dtype, storage_offset,
                                     list(size), list(stride))
    return _rebuild_tensor(storage, storage_offset, size, stride)


torch.UntypedStorage.cpu = _device_storage_cpu
torch._utils._rebuild_tensor = _rebuild_device_tensor
torch.serialization.register_package(30, _tag, _restore)
