"""pip install --no-build-isolation ./python

Builds the _backplane extension (limited API, one abi3 wheel for CPython
>= 3.9) with Debian's python3-setuptools; nothing comes from a package
index. It links the Backplane it finds, in this order: BACKPLANE_PREFIX
(an install prefix: include/ and lib/ or lib/<multiarch>/), pkg-config
backplane (an installed Backplane), then the build tree beside this
directory (../build, or BACKPLANE_BUILD_DIR with BACKPLANE_SOURCE_DIR). The library directory is
written into the extension's RPATH, so libbackplane and its plugins are
found at run time without LD_LIBRARY_PATH.
"""
import glob
import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("BACKPLANE_SOURCE_DIR", os.path.dirname(HERE))


def _pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args, "backplane"], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.split()


def _locate():
    """(include directories, library directory) of a Backplane."""
    prefix = os.environ.get("BACKPLANE_PREFIX")
    if prefix:
        libs = [d for d in glob.glob(os.path.join(prefix, "lib*")) +
                glob.glob(os.path.join(prefix, "lib", "*-linux-gnu"))
                if os.path.exists(os.path.join(d, "libbackplane.so"))]
        if not libs:
            sys.exit(f"BACKPLANE_PREFIX={prefix}: no libbackplane.so")
        return [os.path.join(prefix, "include")], libs[0]
    cflags, libs = _pkg_config("--cflags"), _pkg_config("--libs-only-L")
    if cflags is not None and libs:
        return ([f[2:] for f in cflags if f.startswith("-I")], libs[0][2:])
    build = os.environ.get("BACKPLANE_BUILD_DIR",
                           os.path.join(SOURCE, "build"))
    lib = os.path.join(build, "lib")
    if not os.path.exists(os.path.join(lib, "libbackplane.so")):
        sys.exit("no Backplane found: build it first (make), install it, or "
                 "set BACKPLANE_PREFIX or BACKPLANE_BUILD_DIR")
    return [os.path.join(SOURCE, "include")], lib


def _header(include_dirs):
    for d in include_dirs:
        path = os.path.join(d, "backplane", "diopi", "functions.h")
        if os.path.exists(path):
            return path
    sys.exit("backplane/diopi/functions.h not found")


INCLUDES, LIBDIR = _locate()


class BuildPy(build_py):
    """Also writes backplane/_op_signatures.py from the DIOPI header."""

    def run(self):
        super().run()
        out = os.path.join(self.build_lib, "backplane", "_op_signatures.py")
        subprocess.run([sys.executable,
                        os.path.join(HERE, "tools", "gen_op_signatures.py"),
                        _header(INCLUDES), out], check=True)


setup(
    name="backplane",
    version="0.1.0",
    description="Backplane, a vendor-neutral device runtime, from Python",
    packages=["backplane"],
    package_data={"backplane": ["*.pyi", "py.typed"]},
    python_requires=">=3.9",
    cmdclass={"build_py": BuildPy},
    ext_modules=[Extension(
        "backplane._backplane",
        sources=sorted(glob.glob(os.path.join("src", "*.c"))),
        include_dirs=INCLUDES,
        library_dirs=[LIBDIR],
        runtime_library_dirs=[LIBDIR],
        libraries=["backplane", "dl"],
        define_macros=[("Py_LIMITED_API", "0x03090000")],
        extra_compile_args=["-std=c11", "-fvisibility=hidden",
                            "-D_GNU_SOURCE"],
        py_limited_api=True)],
    options={"bdist_wheel": {"py_limited_api": "cp39"}},
)
