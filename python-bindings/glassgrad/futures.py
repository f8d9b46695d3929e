"""torch.futures: Future, collect_all, wait_all. glassgrad runs work when it is asked for (the
lazy graph computes on a read), so a Future here is a result slot that is usually completed at
once (glassgrad.jit.fork runs its function before returning); set_result, callbacks and then()
behave as PyTorch's."""
from __future__ import annotations

from typing import Any, Callable, Generic, List, TypeVar

from . import _C

T = TypeVar("T")
S = TypeVar("S")

__all__ = ["Future", "collect_all", "wait_all"]


class Future(Generic[T]):
    """A value that is set once (set_result or set_exception); wait() returns it or raises the
    exception; then(fn) is a Future of fn(this future), run once this one completes."""

    def __init__(self, *, devices=None) -> None:
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._callbacks: List[Callable[["Future[T]"], None]] = []

    def done(self) -> bool:
        return self._done

    def wait(self) -> T:
        if not self._done:
            raise _C.InvalidArgumentError("wait() on a Future nothing completes: glassgrad runs no background work "
                                          "that would set it\n  fix: call set_result(value) first")
        if self._error is not None:
            raise self._error
        return self._value

    def value(self) -> T:
        return self.wait()

    def _complete(self, value: Any, error: BaseException | None) -> None:
        if self._done:
            raise _C.InvalidArgumentError("Attempting to mark a completed Future as complete again. Note that a "
                                          "Future can only be marked completed once.\n  fix: a new Future per result")
        self._done, self._value, self._error = True, value, error
        for callback in self._callbacks:
            callback(self)
        self._callbacks = []

    def set_result(self, result: T) -> None:
        self._complete(result, None)

    def set_exception(self, result: BaseException) -> None:
        self._complete(None, result)

    def add_done_callback(self, callback: Callable[["Future[T]"], None]) -> None:
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def then(self, callback: Callable[["Future[T]"], S]) -> "Future[S]":
        out: Future[S] = Future()

        def run(done: "Future[T]") -> None:
            try:
                out.set_result(callback(done))
            except Exception as e:  # the callback's error is the new future's result
                out.set_exception(e)
        self.add_done_callback(run)
        return out


def collect_all(futures: List[Future]) -> Future[List[Future]]:
    """A Future of the list of futures, completed once all of them are."""
    out: Future[List[Future]] = Future()
    remaining = [len(futures)]

    def one_done(_: Future) -> None:
        remaining[0] -= 1
        if remaining[0] == 0:
            out.set_result(list(futures))
    if not futures:
        out.set_result([])
    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures: List[Future]) -> List:
    """The values of the futures (the first error raised)."""
    return [f.wait() for f in futures]
