"""The typed stubs cover what the extension exports, so editors complete
every name (and no stub names something that does not exist)."""
import ast
import pathlib

import backplane
from backplane import _backplane


def stub_names():
    path = pathlib.Path(backplane.__file__).with_name("_backplane.pyi")
    tree = ast.parse(path.read_text())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    return classes, functions


def members(node):
    names = set()
    for n in node.body:
        if isinstance(n, ast.FunctionDef):
            names.add(n.name)
        elif isinstance(n, ast.AnnAssign):
            names.add(n.target.id)
    return names


def test_every_export_has_a_stub_and_every_stub_an_export():
    classes, functions = stub_names()
    exported = {n for n in dir(_backplane) if not n.startswith("__")}
    assert exported == set(classes) | functions


def test_class_stubs_list_the_public_members():
    classes, _ = stub_names()
    for name, node in classes.items():
        cls = getattr(_backplane, name)
        if issubclass(cls, BaseException):
            continue
        public = {m for m in dir(cls) if not m.startswith("_")}
        public |= {m for m in ("__enter__", "__exit__", "__dlpack__",
                               "__dlpack_device__") if hasattr(cls, m)}
        assert public <= members(node) | {"__init__"}, name
