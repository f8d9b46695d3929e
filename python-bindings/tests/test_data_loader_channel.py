"""The DataLoader's pipes (_utils/channel.py): messages come out whole and in order whether the
reader finds several in one read, or one larger than a read; a get with nothing there times out;
a pipe whose writers have all gone raises EOFError; a write to a pipe whose reader has gone
raises BrokenPipeError."""
import multiprocessing
import os
import queue

import numpy as np
import pytest

from glassgrad.utils.data._utils import channel

CTX = multiprocessing.get_context("fork")


def test_several_messages_come_out_of_one_read_in_order(monkeypatch):
    pipe = channel.ResultPipe(CTX)
    reads = []
    real_read = os.read
    monkeypatch.setattr(channel.os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    try:
        for k in range(20):
            pipe.put((k, "batch", [k] * k))
        assert [pipe.get(timeout=1) for _ in range(20)] == [(k, "batch", [k] * k) for k in range(20)]
        assert len(reads) == 1  # every message was waiting: one system call for all of them
        with pytest.raises(queue.Empty):
            pipe.get(timeout=0.01)
    finally:
        pipe.close()


def test_a_message_larger_than_a_read_and_the_pipe_arrives_whole():
    pipe = channel.IndexPipe(CTX)
    big = np.arange(600_000, dtype=np.int64)  # 4.8 MB: more than a read and the pipe's buffer
    writer = CTX.Process(target=_put_all, args=(pipe, [("small", 1), big, ("after", 2)]))
    writer.start()
    try:
        assert pipe.get(timeout=10) == ("small", 1)
        np.testing.assert_array_equal(pipe.get(timeout=10), big)
        assert pipe.get(timeout=10) == ("after", 2)
    finally:
        writer.join(timeout=10)
        pipe.close()
    assert writer.exitcode == 0


def _put_all(pipe, items):
    for item in items:
        pipe.put(item)


def test_every_writer_gone_is_eof_and_a_reader_gone_is_a_broken_pipe():
    pipe = channel.ResultPipe(CTX)
    pipe.put("last")
    pipe._writer.close()
    assert pipe.get(timeout=1) == "last"
    with pytest.raises(EOFError):
        pipe.get(timeout=1)
    pipe.close()
    index = channel.IndexPipe(CTX)
    index.started()  # the reading end closed, as when the worker has died
    with pytest.raises(BrokenPipeError):
        index.put((0, [1, 2]))
    index.close()
