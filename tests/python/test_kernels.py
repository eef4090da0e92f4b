"""Kernels from Python: modules (shared objects and manifests) loaded on a
vcpu device, functions found by name, launched with bytes, ctypes and
buffer parameter blocks; the run's errors raised from the stream. The
kernels are the C kernel tests' library (tests/kernel), its path in
$BP_TEST_KERNELS; their parameter structs are conformance_kernels.h's."""
import ctypes
import json
import shutil
import struct
import threading

import numpy as np
import pytest

import backplane


class BlockParam(ctypes.Structure):  # block_param: int *seen
    _fields_ = [("seen", ctypes.c_void_p)]


class AppendParam(ctypes.Structure):  # append_param
    _fields_ = [("log", ctypes.c_void_p), ("position", ctypes.c_void_p),
                ("value", ctypes.c_int)]


def sleep_args(ms):  # sleep_param: unsigned ms
    return struct.pack("I", ms)


@pytest.fixture
def module(kernels_path, dev0):
    with backplane.load_module(kernels_path, device=dev0) as m:
        yield m


def test_a_kernel_writes_into_a_tensor_per_block(module, dev0):
    seen = backplane.zeros((4,), "int32", dev0)
    fn = module["block_kernel"]
    fn.launch(BlockParam(seen.data_ptr), blocks=4, tensors=[seen])
    # Each block writes blocks * 1000 + its index (conformance_kernels.c).
    np.testing.assert_array_equal(backplane.to_numpy(seen),
                                  [4000, 4001, 4002, 4003])


def test_parameter_blocks_from_bytes_and_buffers(module, dev0):
    log = backplane.zeros((2,), "int32", dev0)
    position = backplane.zeros((1,), "int32", dev0)
    fn = module.function("append_kernel")
    # bytes laid out as append_param (two pointers, an int, padding).
    fn.launch(struct.pack("PPi", log.data_ptr, position.data_ptr, 17))
    # The same struct as a NumPy record: any buffer-protocol object.
    record = np.zeros(1, np.dtype([("log", "u8"), ("position", "u8"),
                                   ("value", "i4")], align=True))
    record[0] = (log.data_ptr, position.data_ptr, 29)
    fn.launch(memoryview(record))
    np.testing.assert_array_equal(backplane.to_numpy(log), [17, 29])
    np.testing.assert_array_equal(backplane.to_numpy(position), [2])


def test_module_lists_and_names_its_functions(module, kernels_path, dev0):
    assert {"empty_kernel", "block_kernel", "fail_kernel"} <= set(
        module.functions)
    fn = module["empty_kernel"]
    assert (fn.name, fn.op) == ("empty_kernel", "empty_kernel")
    assert fn.module is module and module.loaded
    assert module.device == dev0 and module.path == kernels_path


def test_manifest_ops_by_op_and_function_name(kernels_path, dev0, tmp_path):
    shutil.copy(kernels_path, tmp_path / "libkernels.so")
    (tmp_path / "libkernels.so").chmod(0o644)
    manifest = {op: {"opInfo": {"opKernelLib": "AICPUKernel",
                                "kernelSo": "libkernels.so",
                                "functionName": fn}}
                for op, fn in (("Blocks", "block_kernel"),
                               ("Nothing", "empty_kernel"))}
    (tmp_path / "ops.json").write_text(json.dumps(manifest))
    with backplane.Module(dev0, tmp_path / "ops.json") as m:
        assert m.functions == ("Blocks", "Nothing")
        by_op, by_name = m["Blocks"], m["block_kernel"]
        assert (by_op.op, by_op.name) == ("Blocks", "block_kernel")
        assert by_name.name == "block_kernel"
        seen = backplane.zeros((2,), "int32", dev0)
        by_op.launch(BlockParam(seen.data_ptr), blocks=2, tensors=[seen])
        np.testing.assert_array_equal(backplane.to_numpy(seen), [2000, 2001])
    assert not m.loaded


def test_a_bare_manifest_name_loads_from_the_working_folder(
        kernels_path, dev0, tmp_path, monkeypatch):
    shutil.copy(kernels_path, tmp_path / "libkernels.so")
    (tmp_path / "libkernels.so").chmod(0o644)
    (tmp_path / "kernels.json").write_text(json.dumps(
        {"Blocks": {"opInfo": {"opKernelLib": "AICPUKernel",
                               "kernelSo": "libkernels.so",
                               "functionName": "block_kernel"}}}))
    monkeypatch.chdir(tmp_path)
    # kernelSo is found beside the manifest, not on the loader's path.
    with backplane.load_module("kernels.json", device=dev0) as m:
        assert m.functions == ("Blocks",)
        seen = backplane.zeros((2,), "int32", dev0)
        m["Blocks"].launch(BlockParam(seen.data_ptr), blocks=2, tensors=[seen])
        np.testing.assert_array_equal(backplane.to_numpy(seen), [2000, 2001])


def test_launch_config_attributes_are_the_defaults(module, dev0):
    fn = module["block_kernel"]
    assert fn.blocks == 1 and fn.timeout is None
    fn.blocks = 3
    fn.timeout = 5
    assert fn.blocks == 3 and fn.timeout == 5.0
    seen = backplane.zeros((3,), "int32", dev0)
    fn.launch(BlockParam(seen.data_ptr), tensors=[seen])
    np.testing.assert_array_equal(backplane.to_numpy(seen),
                                  [3000, 3001, 3002])
    fn.timeout = None
    assert fn.timeout is None
    with pytest.raises(ValueError):
        fn.blocks = 0


def test_a_failing_kernel_raises_with_its_name(module, dev0):
    s = backplane.Stream(dev0)
    module["fail_kernel"].launch(struct.pack("I", 7), stream=s)
    with pytest.raises(backplane.PluginError) as failure:
        s.synchronize()
    assert "fail_kernel" in str(failure.value)
    assert failure.value.status_name == "BP_ERR_PLUGIN"
    with pytest.raises(backplane.PluginError):
        s.query()  # sticky until reset
    s.reset()
    module["empty_kernel"].launch(stream=s)
    s.synchronize()


def test_a_kernel_past_its_timeout_raises_timeout(module, dev0):
    s = backplane.Stream(dev0)
    sleep = module["sleep_kernel"]
    sleep.launch(sleep_args(1500), timeout=0.05, stream=s)
    with pytest.raises(backplane.TimeoutError) as failure:
        s.synchronize()
    assert isinstance(failure.value, TimeoutError)  # the built-in too
    assert "sleep_kernel" in str(failure.value)
    s.reset()
    sleep.timeout = 0.05  # the default of launches that name none
    sleep.launch(sleep_args(1500), stream=s)
    with pytest.raises(backplane.TimeoutError):
        s.synchronize()
    s.reset()


def test_bad_paths_raise_naming_the_file(dev0, tmp_path):
    with pytest.raises(backplane.NotFoundError, match="missing.so"):
        backplane.Module(dev0, tmp_path / "missing.so")
    (tmp_path / "ops.json").write_text(json.dumps({"Op": {"opInfo": {
        "opKernelLib": "AICPUKernel", "kernelSo": "gone.so",
        "functionName": "empty_kernel"}}}))
    with pytest.raises(backplane.NotFoundError, match="gone.so"):
        backplane.Module(dev0, tmp_path / "ops.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(backplane.InvalidArgumentError, match="bad.json"):
        backplane.load_module(str(tmp_path / "bad.json"), device=dev0)
    with pytest.raises(ValueError):
        backplane.Module(None, tmp_path / "missing.so")
    with pytest.raises(TypeError):
        backplane.Module(dev0, 42)


def test_unknown_function_names_raise_not_found(module):
    with pytest.raises(backplane.NotFoundError, match="no_such_kernel"):
        module["no_such_kernel"]
    with pytest.raises(backplane.NotFoundError):
        module.function("")


def test_bad_launch_arguments_raise(module, dev0, dev1):
    fn = module["empty_kernel"]
    with pytest.raises(ValueError):
        fn.launch(blocks=0)
    with pytest.raises(ValueError):
        fn.launch(timeout=-1)
    with pytest.raises(TypeError):
        fn.launch(5)  # bytes(5) would be five zero bytes: refused
    with pytest.raises(backplane.InvalidArgumentError, match="4097"):
        fn.launch(bytes(4097))  # over BP_LAUNCH_MAX_ARGS
    with pytest.raises(backplane.InvalidArgumentError, match="belongs to"):
        fn.launch(stream=backplane.Stream(dev1))
    with pytest.raises(TypeError):
        fn.launch(tensors=[3])


def test_unload_while_used_waits_then_refuses(kernels_path, dev0):
    m = backplane.load_module(kernels_path, device=dev0)
    sleep = m["sleep_kernel"]
    s = backplane.Stream(dev0)
    sleep.launch(sleep_args(500), stream=s)
    assert not s.query()
    m.unload()  # drains the device's streams first
    assert s.query() and not m.loaded
    with pytest.raises(ValueError, match="unloaded"):
        sleep.launch(sleep_args(1), stream=s)
    with pytest.raises(ValueError):
        m.functions
    with pytest.raises(ValueError):
        m["empty_kernel"]
    m.unload()  # a no-op
    assert "unloaded" in repr(m)


def test_threads_launch_concurrently_on_one_stream(module, dev0):
    """launch() releases the GIL; every launch of four threads lands."""
    log = backplane.zeros((400,), "int32", dev0)
    position = backplane.zeros((1,), "int32", dev0)
    fn, s = module["append_kernel"], backplane.Stream(dev0)

    def launcher(value):
        for _ in range(100):
            fn.launch(AppendParam(log.data_ptr, position.data_ptr, value),
                      stream=s)

    threads = [threading.Thread(target=launcher, args=(v,))
               for v in (1, 2, 3, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    s.synchronize()
    assert backplane.to_numpy(position)[0] == 400
    np.testing.assert_array_equal(
        np.bincount(backplane.to_numpy(log), minlength=5), [0, 100, 100, 100,
                                                            100])
