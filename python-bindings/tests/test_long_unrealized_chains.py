"""A long chain of recorded, never-realized ops is released without recursing once per op: a
Python loop of 200,000 `x = x + 1` (or of `N[i, j] += 1` counts, as a bigram notebook writes)
leaves one node holding the next, and dropping the last handle used to overflow the C++ stack
and kill the interpreter. Run in a child process, so a crash fails this test, not the run."""
import os
import subprocess
import sys
import textwrap

import glassgrad as gg

BINDINGS = os.path.dirname(os.path.dirname(os.path.abspath(gg.__file__)))


def _run(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([BINDINGS, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=600)


def test_dropping_a_200000_op_chain_returns_normally():
    done = _run("""
        import glassgrad as gg
        x = gg.zeros(3)
        for _ in range(200_000):
            x = x + 1
        del x
        y = gg.zeros(2)
        for _ in range(1000):
            y = y * 2
        print("released", y.sum().item())
    """)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "released 0.0" in done.stdout


def test_in_place_counts_recorded_in_a_loop_are_released_and_realize_after_a_long_chain():
    done = _run("""
        import glassgrad as gg
        counts = gg.zeros((27, 27), dtype=gg.int32)
        for k in range(60_000):
            counts[k % 27, (k * 7) % 27] += 1
        del counts
        small = gg.zeros((3, 3), dtype=gg.int32)
        for k in range(30):
            small[k % 3, (k * 2) % 3] += 1
        print("total", small.sum().item(), small[0, 0].item())
    """)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "total 30 10" in done.stdout  # k = 0, 3, ..., 27 land on [0, 0]
