"""Which of several equal elements PyTorch's CPU kernels return (the index, and so the element
the gradient reaches), replayed on the host where a tie makes it matter:

- torch.kthvalue runs Sedgewick's quickselect (median-of-three pivot, Hoare partition;
  aten/src/ATen/native/Sorting.cpp, quick_select_template) on a copy of the row, NaN ordered
  above every number, and returns the index that lands at position k - 1;
- torch.mode sorts (value, index) pairs by value with std::sort (libstdc++'s introsort: not
  stable beyond 16 elements) and returns the index at the end of the most frequent run
  (aten/src/ATen/native/cpu/TensorCompareKernel.cpp, mode_kernel_impl).
"""
from __future__ import annotations

import numpy as np


def _gt(x: float, y: float) -> bool:
    """PyTorch's gt_or_nan: x > y, NaN above every number."""
    return (x != x and y == y) or x > y


def select_index(row: list, k: int) -> int:
    """The index of row (a list of numbers) that quickselect places at position k (0-based)."""
    arr = list(row)
    idx = list(range(len(arr)))

    def swap(i: int, j: int) -> None:
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(arr) - 1
    while hi > lo:
        if hi == lo + 1:
            if _gt(arr[lo], arr[hi]):
                swap(lo, hi)
            break
        swap((lo + hi) >> 1, lo + 1)  # median of three: arr[lo + 1] <= arr[lo] <= arr[hi]
        if _gt(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if _gt(arr[lo], arr[hi]):
            swap(lo, hi)
        if _gt(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, arr[lo]
        while True:  # arr[lo + 1] and arr[hi] stop the scans: no bound checks, as the original
            i += 1
            while _gt(pivot, arr[i]):
                i += 1
            j -= 1
            while _gt(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]


def kth_indices(rows: np.ndarray, k: int) -> np.ndarray:
    """For each row of the 2-d rows, the index torch.kthvalue(row, k + 1) returns on the CPU: the
    stable sort's choice where the k-th value occurs once, the replayed quickselect's where it
    is tied (so the Python loop runs for tied rows only)."""
    order = np.argsort(rows, axis=1, kind="stable")  # NumPy orders NaN last, as PyTorch
    chosen = order[:, k].copy()
    value = np.take_along_axis(rows, chosen[:, None], axis=1)
    same = rows == value
    if rows.dtype.kind == "f":
        same |= np.isnan(rows) & np.isnan(value)
    for r in np.nonzero(same.sum(axis=1) > 1)[0]:
        row = [float(v) if rows.dtype.kind == "f" else int(v) for v in rows[r].tolist()]
        chosen[r] = select_index(row, k)
    return chosen



# ---- libstdc++'s std::sort (bits/stl_algo.h, bits/stl_heap.h) on [value, index] pairs, by value ----
_THRESHOLD = 16  # _S_threshold


def _less(a, b) -> bool:
    return a[0] < b[0]  # PyTorch's comparator: the values only (NaN compares false both ways)


def _adjust_heap(a: list, first: int, hole: int, length: int, value) -> None:
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2  # __push_heap
    while hole > top and _less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _heap_sort(a: list, first: int, last: int) -> None:
    """__partial_sort(first, last, last): make_heap, then sort_heap."""
    length = last - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(a, first, parent, length, a[first + parent])
            if parent == 0:
                break
            parent -= 1
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value)


def _median_to_first(a: list, result: int, x: int, y: int, z: int) -> None:
    if _less(a[x], a[y]):
        m = y if _less(a[y], a[z]) else z if _less(a[x], a[z]) else x
    else:
        m = x if _less(a[x], a[z]) else z if _less(a[y], a[z]) else y
    a[result], a[m] = a[m], a[result]


def _partition(a: list, first: int, last: int, pivot: int) -> int:
    while True:
        while _less(a[first], a[pivot]):
            first += 1
        last -= 1
        while _less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _introsort_loop(a: list, first: int, last: int, depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last)
            return
        depth -= 1
        _median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1)
        cut = _partition(a, first + 1, last, first)
        _introsort_loop(a, cut, last, depth)
        last = cut


def _linear_insert(a: list, i: int) -> None:
    value = a[i]
    while _less(value, a[i - 1]):
        a[i] = a[i - 1]
        i -= 1
    a[i] = value


def _insertion_sort(a: list, first: int, last: int) -> None:
    for i in range(first + 1, last):
        if _less(a[i], a[first]):
            value = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i)


def std_sort(pairs: list) -> None:
    """Sorts pairs ([value, index]) in place by value as libstdc++'s std::sort orders them."""
    n = len(pairs)
    if n < 2:
        return
    _introsort_loop(pairs, 0, n, 2 * (n.bit_length() - 1))
    if n > _THRESHOLD:
        _insertion_sort(pairs, 0, _THRESHOLD)
        for i in range(_THRESHOLD, n):  # __unguarded_insertion_sort
            _linear_insert(pairs, i)
    else:
        _insertion_sort(pairs, 0, n)


def mode_index(row: list) -> int:
    """The index torch.mode returns for row (a list of numbers) on the CPU."""
    pairs = [[v, i] for i, v in enumerate(row)]
    std_sort(pairs)
    best_index, best, run = 0, 0, 0
    for i, (v, index) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or v != pairs[i + 1][0]:
            if run > best:
                best_index, best = index, run
            run = 0
    return best_index
