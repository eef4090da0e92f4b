"""The devices' random number generators, as torch.cuda's: each device has
a default generator (default_generators), seeded by manual_seed /
manual_seed_all / seed / seed_all and by torch.manual_seed and torch.seed
(importing the package hooks them, as torch 2.x does for a custom device);
Generator(device) makes one more. They are torch.Generator objects over the
op library's counter-based generator: manual_seed, seed, initial_seed,
get_state and set_state (16 bytes: seed and offset) work on them, and a
device's random ops (uniform_, normal_, bernoulli_, dropout, randint,
randperm, multinomial) take them as generator=. torch 1.13's
torch.Generator(device="privateuseone") refuses every device but cpu and
cuda, so use Generator("privateuseone:0") from here."""
import functools
import os

import torch

from . import _C
from .device import _index, current_device, device_count

_UINT64 = (1 << 64) - 1


def Generator(device=None):
    """A new torch.Generator of the device (default: the current one),
    seeded with PyTorch's default seed, as CUDA's."""
    return _C._new_generator(_index(device))


def default_generator(device=None):
    return _C._default_generator(_index(device))


def get_rng_state(device=None):
    """The default generator's state: a uint8 CPU tensor."""
    return default_generator(device).get_state()


def set_rng_state(new_state, device=None):
    default_generator(device).set_state(new_state)


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def manual_seed(seed):
    """Seeds the current device's default generator."""
    default_generator(current_device()).manual_seed(seed)


def manual_seed_all(seed):
    """Seeds every device's default generator; before the first draw this
    starts nothing (the generators take the seed when they are made)."""
    seed = int(seed)
    if not -(1 << 63) <= seed <= _UINT64:
        raise RuntimeError(f"seed {seed} is outside [-2**63, 2**64 - 1]")
    _C._manual_seed_all(seed & _UINT64)  # negative: as torch's (two's
    # complement)


def seed():
    """Seeds the current device's default generator with a random number."""
    default_generator(current_device()).seed()


def seed_all():
    """Seeds every device's default generator with one random number."""
    manual_seed_all(int.from_bytes(os.urandom(8), "little"))


def initial_seed():
    return default_generator(current_device()).initial_seed()


def _hook_torch_seeding():
    """torch.manual_seed(s) and torch.seed() also seed the devices (torch
    1.13 seeds only cpu and cuda there)."""
    plain_manual_seed, plain_seed = torch.random.manual_seed, torch.random.seed

    @functools.wraps(plain_manual_seed)
    def manual_seed_with_devices(seed):
        generator = plain_manual_seed(seed)
        manual_seed_all(generator.initial_seed())
        return generator

    @functools.wraps(plain_seed)
    def seed_with_devices():
        value = plain_seed()
        manual_seed_all(value)
        return value

    torch.manual_seed = torch.random.manual_seed = manual_seed_with_devices
    torch.seed = torch.random.seed = seed_with_devices


def __getattr__(name):
    # default_generators is made on first use: it starts the runtime.
    if name == "default_generators":
        return tuple(default_generator(i) for i in range(device_count()))
    raise AttributeError(name)
