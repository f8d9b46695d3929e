"""libstdc++'s sorting algorithms (bits/stl_algo.h, bits/stl_heap.h), replayed step for step on a
list of [value, index] pairs so that equal values end where PyTorch's CPU kernels put them:
std::sort (introsort, then insertion sort), std::nth_element (introselect) and the heap
operations of std::partial_sort (heap_select, sort_heap). `less(a, b)` is the kernel's
comparator on two pairs; the default compares values (NaN compares false both ways). _cpu_tie_order uses
these for torch.mode and torch.topk."""
from __future__ import annotations

from typing import Callable, List

_THRESHOLD = 16  # _S_threshold
Less = Callable[[list, list], bool]


def value_less(a, b) -> bool:
    return a[0] < b[0]


def _adjust_heap(a: List[list], first: int, hole: int, length: int, value, less: Less) -> None:
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    _push_heap(a, first, hole, top, value, less)


def _push_heap(a: List[list], first: int, hole: int, top: int, value, less: Less) -> None:
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def make_heap(a: List[list], first: int, last: int, less: Less = value_less) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap_into(a: List[list], first: int, last: int, result: int, less: Less) -> None:
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, less)


def sort_heap(a: List[list], first: int, last: int, less: Less = value_less) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap_into(a, first, last, last, less)


def heap_select(a: List[list], first: int, middle: int, last: int, less: Less) -> None:
    make_heap(a, first, middle, less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            _pop_heap_into(a, first, middle, i, less)


def _median_to_first(a: List[list], result: int, x: int, y: int, z: int, less: Less) -> None:
    if less(a[x], a[y]):
        m = y if less(a[y], a[z]) else z if less(a[x], a[z]) else x
    else:
        m = x if less(a[x], a[z]) else z if less(a[y], a[z]) else y
    a[result], a[m] = a[m], a[result]


def _partition_pivot(a: List[list], first: int, last: int, less: Less) -> int:
    """__unguarded_partition_pivot: the median of three moved to first, then Hoare's partition."""
    _median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1, less)
    pivot, lo, hi = first, first + 1, last
    while True:
        while less(a[lo], a[pivot]):
            lo += 1
        hi -= 1
        while less(a[pivot], a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _introsort_loop(a: List[list], first: int, last: int, depth: int, less: Less) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            heap_select(a, first, last, last, less)  # __partial_sort(first, last, last)
            sort_heap(a, first, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _linear_insert(a: List[list], i: int, less: Less) -> None:
    value = a[i]
    while less(value, a[i - 1]):
        a[i] = a[i - 1]
        i -= 1
    a[i] = value


def _insertion_sort(a: List[list], first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            value = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i, less)


def std_sort(a: List[list], first: int = 0, last: int = -1, less: Less = value_less) -> None:
    """std::sort(a + first, a + last) (last -1: the end)."""
    last = len(a) if last < 0 else last
    n = last - first
    if n < 2:
        return
    _introsort_loop(a, first, last, 2 * (n.bit_length() - 1), less)
    if n > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):  # __unguarded_insertion_sort
            _linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def nth_element(a: List[list], nth: int, less: Less = value_less) -> None:
    """std::nth_element(a, a + nth, a + len(a))."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)
