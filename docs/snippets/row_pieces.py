"""The CPU elementwise loop's schedule in NumPy: rows of the collapsed iteration space, cut into
pieces along their length when there are too few rows to give every thread a share (a dense
tensor is one row), then split into one contiguous range of pieces a thread. docs/cpu-threads.md
walks through it; the check runs an SGD-with-momentum update piece by piece against the whole
update and glassgrad's kernel on 1 and 2 threads."""
import numpy as np

import glassgrad as gg

PIECE = 64          # kRowPieceElems (core-runtime/kernels/cpu/loops.h): 256 bytes of float32
GRAIN = 32768       # elements a thread must have before a second thread is woken


# --8<-- [start:pieces]
def pieces(rows, n, threads, grain=GRAIN):
    """The (row, first element, length) of each call of the inner loop, and the thread that
    makes it (parallel_for: chunk c of `items` takes [items c / chunks, items (c + 1) / chunks))."""
    per_row = 1
    if threads > 1 and rows < 4 * threads and rows * n >= 2 * grain:
        per_row = min(-(-4 * threads // rows), -(-n // PIECE))   # about four pieces a thread
    length = -(-(-(-n // per_row)) // PIECE) * PIECE            # a multiple of PIECE elements
    items = rows * per_row
    item_grain = max(1, grain // min(length, n))
    chunks = 1 if threads == 1 or items < 2 * item_grain else min(threads, -(-items // item_grain))
    calls = []
    for c in range(chunks):
        for i in range(items * c // chunks, items * (c + 1) // chunks):
            row, start = divmod(i, per_row)
            start *= length
            if start < n:
                calls.append((c, row, start, min(length, n - start)))
    return calls
# --8<-- [end:pieces]


# --8<-- [start:check]
def sgd_momentum(p, g, buf, lr=np.float32(0.1), momentum=np.float32(0.9)):
    """PyTorch's rule (torch/optim/sgd.py), element by element: buf = m buf + g; p -= lr buf."""
    buf[:] = momentum * buf + g
    p -= lr * buf


rng = np.random.default_rng(0)
n = 512 * 256 * 9                                 # ResNet-18's layer4.0.conv1 weight: one dense row
p0, g = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
calls = pieces(1, n, threads=2)
assert {c for c, *_ in calls} == {0, 1}           # both threads take part
assert all(start % PIECE == 0 for _, _, start, _ in calls)
seen = np.zeros(n, np.int64)
p, buf = p0.copy(), np.zeros(n, np.float32)
for _, _, start, length in calls:                 # piece by piece, in any order
    seen[start:start + length] += 1
    sgd_momentum(p[start:start + length], g[start:start + length], buf[start:start + length])
assert (seen == 1).all()
whole, whole_buf = p0.copy(), np.zeros(n, np.float32)
sgd_momentum(whole, g, whole_buf)
assert np.array_equal(p, whole)                   # each element's arithmetic is its own
assert len(pieces(1, 1000, threads=2)) == 1       # under the grain: one call, one thread
for threads in (1, 2):
    gg.set_num_threads(threads)
    w = gg.Parameter(p0.copy())
    opt = gg.optim.SGD([w], lr=0.1, momentum=0.9)
    (w * gg.tensor(g)).sum().backward()
    opt.step()
    assert np.array_equal(w.detach().numpy(), whole), threads
gg.set_num_threads(0)
print(f"{len(calls)} pieces of {calls[0][3]} elements on 2 threads give the whole update's bits")
# --8<-- [end:check]
