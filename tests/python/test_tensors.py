import numpy as np
import pytest

import backplane


def test_empty_and_zeros_describe_themselves(dev0):
    t = backplane.zeros((2, 3, 4), np.int32, dev0)
    assert t.shape == (2, 3, 4) and t.strides == (12, 4, 1)
    assert t.dtype == "int32" and t.itemsize == 4 and t.numel == 24
    assert t.nbytes == 96 and t.ndim == 3 and t.is_contiguous
    assert t.device == dev0 and t.memory == "device" and not t.host_visible
    np.testing.assert_array_equal(backplane.to_numpy(t), np.zeros((2, 3, 4)))
    h = backplane.empty((5,), "float64")
    assert h.device is None and h.memory == "host" and h.host_visible


def test_round_trip_host_device_peer_host(dev0, dev1, rng):
    x = rng.standard_normal((64, 33)).astype(np.float32)
    on0 = backplane.from_numpy(x, device=dev0)
    on1 = on0.copy_to(dev1)
    back = backplane.to_numpy(on1)
    np.testing.assert_array_equal(back, x)
    assert on1.device == dev1 and on1.shape == (64, 33)


def test_copy_into_existing_and_non_blocking(dev0, rng):
    x = rng.integers(0, 100, 1000).astype(np.int64)
    d = backplane.empty((1000,), "int64", dev0)
    assert d.copy_(backplane.from_numpy(x), non_blocking=True) is d
    out = backplane.empty((1000,), "int64")
    out.copy_(d, non_blocking=True)
    np.testing.assert_array_equal(backplane.to_numpy(out), x)  # waits


def test_bad_copies_are_refused(dev0):
    a = backplane.empty((4,), "float32", dev0)
    with pytest.raises(ValueError, match="sizes differ"):
        a.copy_(backplane.empty((5,), "float32"))
    strided = backplane.from_numpy(np.zeros((4, 4), np.float32)[:, ::2])
    with pytest.raises(ValueError, match="contiguous"):
        backplane.empty((8,), "float32", dev0).copy_(strided)
    with pytest.raises(TypeError):
        a.copy_(np.zeros(4))


def test_bad_shapes_and_dtypes(dev0):
    with pytest.raises(ValueError, match="negative"):
        backplane.empty((-1,), "float32", dev0)
    with pytest.raises(ValueError, match="at most 8"):
        backplane.empty((1,) * 9)
    with pytest.raises(TypeError, match="unknown dtype"):
        backplane.empty((1,), "float13")
    with pytest.raises(OverflowError):
        backplane.empty((1 << 40, 1 << 40), "float32", dev0)


def test_out_of_memory_is_an_error_with_the_allocator_message(dev0):
    with pytest.raises(backplane.OutOfMemoryError, match="out of memory") as e:
        backplane.empty((dev0.total_global_memory * 2,), "uint8", dev0)
    assert isinstance(e.value, MemoryError)
    assert "vcpu:0" in str(e.value)


def test_memory_of_a_tensor_used_on_another_stream_waits_for_it(dev0):
    # src is allocated on the default stream and read on s, then freed: its
    # block must not be handed out (and overwritten) before s has read it.
    s = backplane.Stream(dev0)
    n = 1 << 22
    src = backplane.from_numpy(np.arange(n, dtype=np.float32), dev0)
    with s:
        for _ in range(4):  # keep s busy
            copy = src.copy_to(dev0)
    del src
    again = backplane.zeros((n,), "float32", dev0)  # the default stream
    s.synchronize()
    assert again.numel == n
    np.testing.assert_array_equal(backplane.to_numpy(copy),
                                  np.arange(n, dtype=np.float32))


def test_unified_memory_is_host_visible(dev0):
    try:
        u = backplane.zeros((16,), "float32", dev0, unified=True)
    except backplane.UnsupportedError:
        pytest.skip("the plugin has no unified memory")
    assert u.host_visible and u.memory == "unified"
    view = np.from_dlpack(u)
    assert view.ctypes.data == u.data_ptr()
