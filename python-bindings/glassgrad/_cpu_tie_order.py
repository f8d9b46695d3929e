"""Which of several equal elements PyTorch's CPU kernels return (the index, and so the element
the gradient reaches), replayed on the host where a tie makes it matter:

- torch.kthvalue runs Sedgewick's quickselect (median-of-three pivot, Hoare partition;
  aten/src/ATen/native/Sorting.cpp, quick_select_template) on a copy of the row, NaN ordered
  above every number, and returns the index that lands at position k - 1;
- torch.mode sorts (value, index) pairs by value with std::sort (libstdc++'s introsort: not
  stable beyond 16 elements) and returns the index at the end of the most frequent run
  (aten/src/ATen/native/cpu/TensorCompareKernel.cpp, mode_kernel_impl);
- torch.nanmedian of a row of NaN only runs std::nth_element at position (n - n - 1) / 2, 0 in
  C++'s division, with a comparator under which the NaNs are all equivalent
  (aten/src/ATen/native/Sorting.cpp, median_with_indices_impl): introselect's choice, a function
  of the row's length alone;
- torch.topk runs std::partial_sort of the (value, index) pairs when k * 64 <= n (sorted or
  not), else std::nth_element at k - 1 and, when sorted, std::sort over the first k - 1
  (aten/src/ATen/native/TopKImpl.h), NaN the largest value.
"""
from __future__ import annotations

import functools

import numpy as np

from ._libstdcxx_sort import heap_select, nth_element, sort_heap, std_sort


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



@functools.lru_cache(maxsize=64)
def all_nan_median_index(n: int) -> int:
    """The index torch.nanmedian returns on the CPU for a row of n NaN (n >= 1)."""
    pairs = [[0, i] for i in range(n)]
    nth_element(pairs, 0, lambda a, b: False)  # NaN < NaN and NaN == NaN are false both ways
    return pairs[0][1]


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


def _topk_less(largest: bool):
    """TopKComparator: 'a before b' with NaN the largest value."""
    if largest:
        return lambda a, b: (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]
    return lambda a, b: (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def topk_row(row: list, k: int, largest: bool, sorted_: bool) -> list:
    """The indices torch.topk returns for row (a list of numbers) on the CPU, in its order."""
    less, pairs = _topk_less(largest), [[v, j] for j, v in enumerate(row)]
    if k * 64 <= len(row):  # std::partial_sort, whatever sorted says
        heap_select(pairs, 0, k, len(pairs), less)
        sort_heap(pairs, 0, k, less)
    else:
        nth_element(pairs, k - 1, less)
        if sorted_:
            std_sort(pairs, 0, k - 1, less)
    return [j for _, j in pairs[:k]]


def topk_indices(rows: np.ndarray, indices: np.ndarray, k: int, largest: bool, sorted_: bool) -> np.ndarray:
    """indices (a kernel's top k of each row of the 2-d rows) with the rows where equal values
    decide the indices or their order (a tie among the k + 1 first values in the kernel's
    order) replayed as PyTorch's CPU kernel orders them: the Python loop runs for those only."""
    as_float: np.ndarray = rows.astype(np.float64)
    key = np.where(np.isnan(as_float), np.inf, as_float)  # NaN the largest (a NaN and an inf: a replay too many)
    ordered = np.sort(-key if largest else key, axis=1)[:, :k + 1]
    tied = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    out = indices.copy()
    for r in np.nonzero(tied)[0]:
        row = [float(v) if rows.dtype.kind == "f" else int(v) for v in rows[r].tolist()]
        out[r] = topk_row(row, k, largest, sorted_)
    return out
