"""Exporting the SimpleCNN that train_mnist.py trained and running it in onnxruntime
(docs/export.md). tests/test_docs.py runs this file in a temporary directory: it first trains the
model for a few seconds with train_mnist.py's own main(), as `train_mnist.py --save simple_cnn.pt`
does in full."""
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples-and-tutorials"))
import train_mnist

sys.argv = ["train_mnist.py", "--epochs", "1", "--limit", "3200", "--device", "cpu", "--no-progress",
            "--save", "simple_cnn.pt"]
train_mnist.main()

# --8<-- [start:export]
import glassgrad as gg
import glassgrad.onnx
from train_mnist import SimpleCNN

model = SimpleCNN()
model.load_state_dict(gg.load("simple_cnn.pt"))    # the weights train_mnist.py --save wrote
example = gg.zeros(1, 1, 28, 28)                    # one image: the shapes to trace with
glassgrad.onnx.export(model, example, "simple_cnn.onnx",
                      input_names=["images"], output_names=["logits"],
                      dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}})
# --8<-- [end:export]

# --8<-- [start:run]
import onnxruntime

_, _, X_test, y_test = glassgrad.data.load_fashion_mnist()
images = (X_test[:1000].astype(np.float32) / 255.0)   # [1000, 1, 28, 28], as train_mnist.py scales them
session = onnxruntime.InferenceSession("simple_cnn.onnx", providers=["CPUExecutionProvider"])
logits = session.run(["logits"], {"images": images})[0]
print("onnxruntime accuracy on 1000 test images:", (logits.argmax(axis=1) == y_test[:1000]).mean())

model.eval()                                        # glassgrad's own answer for the same images
with gg.no_grad():
    ours = model(gg.tensor(images)).numpy()
print("largest difference:", np.abs(logits - ours).max())
# --8<-- [end:run]
assert np.abs(logits - ours).max() <= 1e-5 * np.abs(ours).max()
assert (logits.argmax(axis=1) == y_test[:1000]).mean() > 0.5

# --8<-- [start:inspect]
import onnx

proto = onnx.load("simple_cnn.onnx")
print([node.op_type for node in proto.graph.node if node.op_type != "Constant"])
print([init.name for init in proto.graph.initializer][:4])
# --8<-- [end:inspect]

# --8<-- [start:load]
fresh = SimpleCNN()
missing, unexpected = glassgrad.onnx.load_weights(fresh, "simple_cnn.onnx")   # initializers by name
print(missing, unexpected)
# --8<-- [end:load]
fresh.eval()
with gg.no_grad():
    assert np.array_equal(fresh(gg.tensor(images[:7])).numpy(), ours[:7])
