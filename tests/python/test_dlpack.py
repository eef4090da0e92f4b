import numpy as np
import pytest

import backplane


def test_numpy_takes_host_tensors_without_a_copy():
    t = backplane.zeros((3, 4), "float32")
    a = np.from_dlpack(t)
    assert a.ctypes.data == t.data_ptr() and a.shape == (3, 4)
    backplane.to_numpy(t)[1, 2] = 7.0  # a writable view of the same memory
    assert a[1, 2] == 7.0
    assert t.__dlpack_device__() == (1, 0)  # kDLCPU


def test_from_dlpack_borrows_numpy_memory():
    a = np.arange(12, dtype=np.int16).reshape(3, 4)
    t = backplane.from_dlpack(a)
    assert t.is_borrowed and t.data_ptr() == a.ctypes.data
    assert t.shape == (3, 4) and t.dtype == "int16"
    a[0, 0] = 99
    assert backplane.to_numpy(t)[0, 0] == 99


def test_strided_views_keep_their_strides():
    a = np.arange(20, dtype=np.float64).reshape(4, 5)[:, 1::2]
    t = backplane.from_dlpack(a)
    assert t.strides == (5, 2) and not t.is_contiguous
    np.testing.assert_array_equal(backplane.to_numpy(t), a)


def test_round_trip_keeps_the_pointer():
    a = np.ones(8, np.float32)
    assert np.from_dlpack(backplane.from_dlpack(a)).ctypes.data == a.ctypes.data


def test_copies_when_dlpack_cannot_express_it():
    swapped = np.arange(6, dtype=">i4")  # byte-swapped: no DLPack form
    t = backplane.from_dlpack(swapped)
    assert not t.is_borrowed and t.dtype == "int32"
    np.testing.assert_array_equal(backplane.to_numpy(t), np.arange(6))
    with pytest.raises(BufferError):
        backplane.from_dlpack(swapped, copy=False)
    assert backplane.from_dlpack([1.5, 2.5]).dtype == "float64"
    forced = backplane.from_dlpack(np.ones(3), copy=True)
    assert not forced.is_borrowed


def test_device_tensors_refuse_export_and_name_the_way_out(dev0):
    d = backplane.zeros((4,), "float32", dev0)
    with pytest.raises(BufferError, match="copy_to"):
        np.from_dlpack(d)
    assert d.__dlpack_device__() == (12, dev0.ordinal)  # kDLExtDev
    assert backplane.from_dlpack(d) is d


def test_export_waits_for_pending_device_work(dev0):
    src = backplane.from_numpy(np.full(1 << 20, 3, np.int32), dev0)
    host = backplane.empty((1 << 20,), "int32")
    host.copy_(src, non_blocking=True)
    assert (np.from_dlpack(host) == 3).all()


def test_capsule_released_without_consumer_frees_nothing_twice():
    t = backplane.zeros((4,), "float32")
    capsule = t.__dlpack__()
    del capsule  # unconsumed: its destructor releases the export
    assert backplane.to_numpy(t).sum() == 0
