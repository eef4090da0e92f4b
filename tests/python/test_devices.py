import threading

import pytest

import backplane


def test_devices_lists_every_device_in_ordinal_order():
    devs = backplane.devices()
    assert [d.ordinal for d in devs] == list(range(len(devs)))
    vcpus = [d.name for d in devs if d.type == "vcpu"]
    assert vcpus == ["vcpu:0", "vcpu:1"]
    assert all(backplane.device(d.name) == d for d in devs)


def test_device_by_name_and_short_name(dev0):
    assert backplane.device("vcpu") == dev0
    assert backplane.device("vcpu:1").index == 1
    assert backplane.device("vcpu:1") != dev0
    assert backplane.device("cpu") is None
    assert repr(dev0) == "backplane.device('vcpu:0')"
    assert len({dev0, backplane.device("vcpu:0")}) == 1


def test_unknown_devices_raise_with_the_runtime_message():
    with pytest.raises(backplane.NotFoundError, match='device type "acme"'):
        backplane.device("acme:0")
    with pytest.raises(backplane.Error) as info:
        backplane.device("vcpu:7")
    assert info.value.status_name.startswith("BP_ERR_")
    with pytest.raises(ValueError, match="bad device index"):
        backplane.device("vcpu:x")
    with pytest.raises(TypeError):
        backplane.device(0)


def test_attributes_are_properties_and_unknown_answers_are_none(dev0):
    attrs = dev0.attributes()
    assert len(attrs) == 17
    assert dev0.exist == 1
    assert dev0.total_global_memory == attrs["total_global_memory"] > 0
    assert isinstance(dev0.device_name, str) and dev0.device_name
    # vcpu cannot answer these: None, never 0.
    assert dev0.max_clock_rate is None
    assert dev0.image_pitch_alignment is None


def test_memory_info_and_stats_follow_allocations(dev0):
    total, free = dev0.memory_info()
    assert 0 < free <= total == dev0.total_global_memory
    before = dev0.memory_stats()["allocated_bytes"]["current"]
    t = backplane.empty((1024,), "float32", dev0)
    after = dev0.memory_stats()["allocated_bytes"]["current"]
    assert after >= before + 4096
    del t
    dev0.synchronize()
    assert dev0.memory_stats()["allocated_bytes"]["current"] == before


def test_objects_are_not_constructed_directly():
    with pytest.raises(TypeError, match="cannot be created directly"):
        backplane.Device()
    with pytest.raises(TypeError, match="cannot be created directly"):
        backplane.Tensor()


def test_error_classes_map_statuses():
    assert issubclass(backplane.OutOfMemoryError, MemoryError)
    assert issubclass(backplane.TimeoutError, TimeoutError)
    codes = {cls.status for cls in (
        backplane.InvalidArgumentError, backplane.NotFoundError,
        backplane.OutOfMemoryError, backplane.UnsupportedError,
        backplane.NotReadyError, backplane.PluginError,
        backplane.TimeoutError, backplane.AbortedError,
        backplane.InternalError, backplane.PeerLostError)}
    assert codes == set(range(1, 11))
    assert backplane.NotFoundError.status_name == "BP_ERR_NOT_FOUND"
    assert backplane.PeerLostError.status_name == "BP_ERR_PEER_LOST"


def test_synchronize_releases_the_gil(dev0):
    # Another Python thread runs while this one waits in synchronize.
    ran = []
    t = threading.Thread(target=lambda: ran.append(sum(range(1000))))
    big = backplane.zeros((1 << 24,), "uint8", dev0)
    t.start()
    big.copy_to(dev0)
    dev0.synchronize()
    t.join()
    assert ran == [499500]
