"""The user's source line every recorded node carries (glassgrad._trace.user_source, walked in C by
python-bindings/src/bind_frames.cpp): the innermost frame outside the glassgrad package, named by
its file's base name, whatever that file name holds."""
import inspect

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _trace


def _source_from(filename: str, lines_before: int = 0) -> str:
    """user_source() called from code whose file name is `filename`, on line lines_before + 1."""
    ns = {"_trace": _trace}
    exec(compile("\n" * lines_before + "result = _trace.user_source()", filename, "exec"), ns)
    return ns["result"]


def test_the_line_of_the_caller_outside_the_package():
    line = inspect.currentframe().f_lineno + 1
    got = _trace.user_source()
    assert got == f"test_trace_user_source.py:{line}"


@pytest.mark.parametrize("filename, name", [
    ("/some/dir/train.py", "train.py"),
    ("train.py", "train.py"),
    ("C:\\Users\\me\\train.py", "train.py"),        # a Windows path
    ("<string>", "<string>"),                      # exec'd text
    ("/data/\udcff\udcfe.py", "\udcff\udcfe.py"),  # bytes that are not UTF-8 (surrogate escapes)
    ("/tmp/r\u00e9seau/mod\u00e8le.py", "mod\u00e8le.py"),
])
def test_any_file_name_gives_its_base_name(filename, name):
    assert _source_from(filename, lines_before=6) == f"{name}:7"


def test_a_file_inside_the_package_is_skipped_for_its_caller():
    # Code compiled under the package's own directory counts as glassgrad's: the walk goes on to
    # the frame that called it (this test's).
    inner = compile("def f():\n    return _trace.user_source()\n", _trace._PACKAGE_DIR + "/fake_module.py", "exec")
    ns = {"_trace": _trace}
    exec(inner, ns)
    line = inspect.currentframe().f_lineno + 1
    got = ns["f"]()
    assert got == f"test_trace_user_source.py:{line}"


def test_recorded_nodes_carry_the_line_that_recorded_them():
    # A layer defined here, in user code: its op's node names this file's forward line, through
    # Module.__call__ and the functional wrappers of the package.
    class Net(gg.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = gg.nn.Conv2D(1, 2, 3)

        def forward(self, x):
            return self.conv(x) * 2.0  # the line the conv's node names

    net = Net()
    x = gg.tensor(np.random.default_rng(0).standard_normal((1, 1, 5, 5)).astype(np.float32))
    seen = []
    with gg.debug.register_hook(net.conv, lambda n, i, o: seen.append(n)):
        net(x).sum().item()
    lines = [i + 1 for i, text in enumerate(open(__file__).read().splitlines()) if "the line the conv's node names" in text]
    assert [n.source for n in seen] == [f"test_trace_user_source.py:{lines[0]}"]


def test_each_call_site_of_one_function_keeps_its_own_line_on_every_call():
    # The walk remembers lines per code object and instruction: two call sites of one function,
    # asked for again and again (a training loop's steps), each give their own line every time.
    code = compile("def f():\n    a = _trace.user_source()\n\n    b = _trace.user_source()\n    return a, b\n",
                   "/somewhere/loop.py", "exec")
    ns = {"_trace": _trace}
    exec(code, ns)
    for _ in range(3):
        assert ns["f"]() == ("loop.py:2", "loop.py:4")


def test_an_op_records_the_innermost_scope_role_and_the_callers_line():
    # _tensor._op's one runtime call reads the thread's stacks and the user's line itself.
    from glassgrad import _tensor
    rng = np.random.default_rng(1)
    a = gg.tensor(rng.standard_normal((3, 5)).astype(np.float32))
    b = gg.tensor(rng.standard_normal((3, 5)).astype(np.float32))
    with _trace.scope("outer"):
        with _trace.scope("block.fc", role="optimizer", layer="Linear 'block.fc'"):
            line = inspect.currentframe().f_lineno + 1
            out = _tensor._op("Mul", [a, b], None)
    np.testing.assert_allclose(out.numpy(), a.numpy() * b.numpy(), rtol=1e-6)
    (step,) = [s for s in gg._C.last_plan().steps if s["op"] == "Mul"]
    assert (step["scope"], step["role"], step["source"]) == ("block.fc", "optimizer",
                                                             f"test_trace_user_source.py:{line}")
    with pytest.raises(AttributeError):
        _tensor._op("Mul", [a, np.ones((3, 5), np.float32)], None)


def test_nodes_recorded_again_keep_their_own_scope_role_layer_and_line():
    # The runtime interns a node's metadata once per (scope, role, layer, line) it meets and finds
    # it again by those strings (python-bindings/src/bind_lazy.cpp, meta_from_python): by the same
    # objects, or equal ones (a layer label formatted anew each call). Keys that differ in one part
    # only never share metadata, on the first step or any later one. Each step has a new shape, so
    # its plan is compiled from its own nodes (a cached plan would show the first step's).
    from glassgrad import _tensor
    here = "test_trace_user_source.py"
    for rows in (2, 3, 4):
        a = gg.tensor(np.arange(rows * 3, dtype=np.float32).reshape(rows, 3))
        outs, want = [], []
        for scope_name, role in (("blk.a", ""), ("blk.b", ""), ("blk.a", "optimizer")):
            with _trace.scope(scope_name, role=role, layer=f"Linear '{scope_name}'"):
                first = inspect.currentframe().f_lineno + 1
                outs.append(_tensor._op("Mul", [a, a], None))
                outs.append(_tensor._op("Mul", [a, a], None))
            want += [(scope_name, role or "forward", f"{here}:{first}"), (scope_name, role or "forward", f"{here}:{first + 1}")]
        for o in outs:
            o.numpy()
        got = sorted((s["scope"], s["role"], s["source"]) for s in gg._C.last_plan().steps if s["op"] == "Mul")
        if len(got) != len(want):  # realized one by one: the plans of the last values
            pytest.fail(f"expected one plan of {len(want)} Mul steps, got {got}")
        assert got == sorted(want)
