"""Shared fixtures: the package comes from the build tree (PYTHONPATH set by
CTest) and BACKPLANE_VCPU_DEVICES=2."""
import os

import numpy as np
import pytest

import backplane


def vcpu_devices():
    """The vcpu devices (other plugins, e.g. opencl, may be loaded too)."""
    return [d for d in backplane.devices() if d.type == "vcpu"]


@pytest.fixture
def vcpus():
    return vcpu_devices()


@pytest.fixture
def dev0():
    return backplane.device("vcpu:0")


@pytest.fixture
def dev1():
    return backplane.device("vcpu:1")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def kernels_path():
    """The C kernel tests' kernel library (tests/kernel), from CTest."""
    path = os.environ.get("BP_TEST_KERNELS")
    if not path:
        pytest.skip("BP_TEST_KERNELS is not set (no vcpu kernel library)")
    return path
