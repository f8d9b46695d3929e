"""A stand-in for TensorFlow 1's `tensorflow.examples.tutorials.mnist.input_data`, which scripts of
the TensorFlow 1 years read MNIST through (`mnist = input_data.read_data_sets(path, one_hot=True)`,
`mnist.train.images`, `mnist.train.next_batch(n)`): TensorFlow 2 no longer has it. Tests copy this
file into a run folder as tensorflow/examples/tutorials/mnist/input_data.py. The images are
seeded random digits-like arrays (float32 in [0, 1], 784 pixels), the labels one-hot over ten
classes; next_batch goes through them in order and wraps around."""
import numpy as np


class DataSet:
    def __init__(self, n, seed, one_hot):
        rng = np.random.RandomState(seed)
        self.images = (rng.rand(n, 784) < 0.2).astype(np.float32)
        labels = rng.randint(0, 10, n)
        self.labels = np.eye(10, dtype=np.float32)[labels] if one_hot else labels
        self.num_examples = n
        self._next = 0

    def next_batch(self, batch_size):
        rows = np.arange(self._next, self._next + batch_size) % self.num_examples
        self._next += batch_size
        return self.images[rows], self.labels[rows]


class Datasets:
    def __init__(self, one_hot):
        self.train, self.validation, self.test = (DataSet(n, seed, one_hot) for n, seed in ((256, 0), (64, 1), (64, 2)))


def read_data_sets(train_dir, one_hot=False, **kwargs):
    return Datasets(one_hot)
