"""python -m backplane ARGS...: the `backplane` command that came with the
package, run with ARGS (the `backplane` script of `pip install .` is the
same entry point)."""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def executable():
    """The path of the `backplane` command beside the package: bin/ inside
    it in a wheel, build/bin for build/python/backplane in a build tree;
    None when neither is there."""
    for path in (os.path.join(_HERE, "bin", "backplane"),
                 os.path.join(_HERE, "..", "..", "bin", "backplane")):
        if os.access(path, os.X_OK):
            return os.path.normpath(path)
    return None


def main(argv=None):
    """Replaces this process with the command (its exit status is ours)."""
    args = sys.argv[1:] if argv is None else list(argv)
    path = executable()
    if path is None:
        sys.exit("backplane: no bin/backplane beside the package "
                 f"({_HERE})")
    sys.stdout.flush()
    sys.stderr.flush()
    # `bench python` measures this interpreter (with this package).
    os.environ.setdefault("BACKPLANE_PYTHON", sys.executable)
    os.execv(path, [path] + args)


if __name__ == "__main__":
    main()
