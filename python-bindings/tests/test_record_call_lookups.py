"""What the recording call (_C.lazy_record_op, python-bindings/src/bind_lazy.cpp) keeps between
calls stays right: the thread's recording stacks, read once per thread; the op's schema, kept by
the identity of its name's str; and the user's line, walked over the interpreter's frames
(bind_frames.cpp) in generators, under a tracer and across threads."""
import inspect
import sys
import threading

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _tensor, _trace

HERE = "test_record_call_lookups.py"


def _mul_steps():
    # the steps of the plan last run: compiled from the nodes recorded, as long as each check
    # realizes a shape of its own (a cached plan shows the nodes of the call that compiled it)
    return [(s["scope"], s["source"]) for s in gg._C.last_plan().steps if s["op"] == "Mul"]


def _recorded_in(scope_name, rows):
    """Records a Mul under scope_name on the calling thread and realizes it: its (scope, line)."""
    a = gg.tensor(np.full((rows, 2), 2.0, np.float32))
    with _trace.scope(scope_name):
        line = inspect.currentframe().f_lineno + 1
        out = _tensor._op("Mul", [a, a], None)
    np.testing.assert_allclose(out.numpy(), np.full((rows, 2), 4.0, np.float32))
    return _mul_steps(), (scope_name, f"{HERE}:{line}")


def test_each_thread_records_under_its_own_scopes_whichever_recorded_last():
    results = {}
    turn = [threading.Event() for _ in range(4)]

    def worker(name, waits, sets, rows):
        for w, s in zip(waits, sets):
            if w is not None:
                assert turn[w].wait(10)
            results.setdefault(name, []).append(_recorded_in(f"{name}.layer", rows))
            if s is not None:
                turn[s].set()

    # main, a, main, b, a: the threads' recordings alternate, so each call follows one made on
    # another thread
    a = threading.Thread(target=worker, args=("a", [0, 2], [1, 3], 3))
    a.start()
    results.setdefault("main", []).append(_recorded_in("main.layer", 4))
    turn[0].set()
    assert turn[1].wait(10)
    results["main"].append(_recorded_in("main.layer", 5))
    b = threading.Thread(target=worker, args=("b", [None], [2], 6))
    b.start()
    b.join(10)
    a.join(10)
    assert sorted(results) == ["a", "b", "main"]
    for name, runs in results.items():
        for steps, want in runs:
            assert steps == [want], name
    # a thread started after the others ended (a new thread state) reads its own stacks too
    c = threading.Thread(target=worker, args=("c", [None], [None], 7))
    c.start()
    c.join(10)
    assert results["c"][0][0] == [results["c"][0][1]]


def test_an_op_name_made_at_run_time_records_that_op():
    a = gg.tensor(np.full((2, 3), 3.0, np.float32))
    for parts in (["M", "ul"], ["Ad", "d"], ["M", "ul"]):
        name = "".join(parts)  # a new str object each time
        out = _tensor._op(name, [a, a], None)
        np.testing.assert_allclose(out.numpy(), np.full((2, 3), 9.0 if name == "Mul" else 6.0, np.float32))


def test_an_unknown_op_name_raises_every_time():
    a = gg.tensor(np.ones((2, 2), np.float32))
    for _ in range(2):  # a failed lookup is not kept
        with pytest.raises(ValueError, match="Mulx"):
            _tensor._op("Mulx", [a, a], None)


def test_a_generator_frame_gives_its_own_line():
    def gen():
        a = gg.tensor(np.ones((2, 9), np.float32))
        while True:
            yield _tensor._op("Mul", [a, a], None), inspect.currentframe().f_lineno

    g = gen()
    for _ in range(3):
        out, line = next(g)
        out.numpy()
        assert [src for _, src in _mul_steps()] == [f"{HERE}:{line}"]


def test_a_traced_frame_gives_the_line_it_runs():
    # A tracer (a debugger, coverage) sets the frame's line as the interpreter steps: the node
    # still names the line that recorded it.
    def run():
        a = gg.tensor(np.ones((3, 11), np.float32))
        out = _tensor._op("Mul", [a, a], None)
        return out, inspect.currentframe().f_lineno - 1

    def tracer(frame, event, arg):
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        out, line = run()
    finally:
        sys.settrace(old)
    out.numpy()
    assert [src for _, src in _mul_steps()] == [f"{HERE}:{line}"]


def test_a_tensor_still_holding_its_array_is_recorded_from_it():
    # A DataLoader sample keeps its NumPy array until used: its `_h` slot is empty, and reading it
    # goes through Tensor.__getattr__, which makes the handle.
    from glassgrad.utils.data._utils.array_tensor import host_tensor, untouched_array
    t = host_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert untouched_array(t) is not None
    out = _tensor._op("Mul", [t, t], None)
    assert untouched_array(t) is None
    np.testing.assert_allclose(out.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3) ** 2)


def test_a_tensor_type_with_its_own_getattribute_is_asked_for_its_handle():
    reads = []

    class Watched(gg.Tensor):
        __slots__ = ()

        def __getattribute__(self, name):
            if name == "_h":
                reads.append(name)
            return super().__getattribute__(name)

    base = gg.tensor(np.full((2, 2), 3.0, np.float32))
    w = Watched.__new__(Watched)
    w._h = base._h
    reads.clear()
    out = _tensor._op("Mul", [w, base], None, _in_order=True)  # the runtime's read only
    assert reads == ["_h"]
    np.testing.assert_allclose(out.numpy(), np.full((2, 2), 9.0, np.float32))


def test_an_input_that_is_not_a_tensor_raises():
    a = gg.tensor(np.ones((2, 2), np.float32))
    with pytest.raises(AttributeError):
        _tensor._op("Mul", [a, np.ones((2, 2), np.float32)], None)

    class Fake:
        _h = "not a handle"

    with pytest.raises(RuntimeError, match="Unable to cast"):  # pybind11's cast error, as before
        _tensor._op("Mul", [a, Fake()], None, _in_order=True)
