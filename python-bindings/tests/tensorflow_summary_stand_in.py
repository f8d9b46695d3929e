"""A stand-in for the `tensorflow` package's summary writer (tf.summary.create_file_writer, the
writer's as_default() and flush(), tf.summary.scalar, image and histogram), for ported scripts that
log to TensorBoard through TensorFlow: tests copy this file beside the script as tensorflow.py.
Each summary must be written inside `with writer.as_default():` and hold finite numbers, as
TensorFlow's would; what was written is kept in <log_dir>/summaries.json (kind, tag, shape, dtype,
step), for the tests to read."""
import contextlib
import json
import os

import numpy as np


class _Summary:
    def __init__(self):
        self.active = None

    def create_file_writer(self, log_dir):
        return _Writer(self, log_dir)

    def _record(self, kind, tag, data, step):
        assert self.active is not None, "tf.summary.%s outside `with writer.as_default()`" % kind
        array = np.asarray(data)
        assert np.all(np.isfinite(array.astype(np.float64))), (tag, array)
        self.active.records.append({"kind": kind, "tag": tag, "shape": list(array.shape),
                                    "dtype": str(array.dtype), "step": int(step)})
        self.active.flush()

    def scalar(self, tag, data, step):
        self._record("scalar", tag, data, step)

    def image(self, tag, data, max_outputs=3, step=None):
        self._record("image", tag, data, step)

    def histogram(self, tag, data, buckets=None, step=None):
        self._record("histogram", tag, data, step)


class _Writer:
    def __init__(self, summary, log_dir):
        self.summary, self.log_dir, self.records = summary, log_dir, []
        os.makedirs(log_dir, exist_ok=True)

    @contextlib.contextmanager
    def as_default(self):
        self.summary.active = self
        try:
            yield self
        finally:
            self.summary.active = None

    def flush(self):
        with open(os.path.join(self.log_dir, "summaries.json"), "w") as f:
            json.dump(self.records, f)


summary = _Summary()
