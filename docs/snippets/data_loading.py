"""A DataLoader with worker processes feeding the GPU (docs/data-loading.md). tests/test_docs.py
runs this file in a temporary directory (on the CPU there; on a GPU machine the same lines pin the
batches and copy them asynchronously)."""
import numpy as np

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from glassgrad.utils.data import DataLoader, IterableDataset, get_worker_info
from glassgrad.vision import datasets, transforms

# --8<-- [start:dataset]
transform = transforms.Compose([
    transforms.RandomCrop(32, padding=4),
    transforms.RandomHorizontalFlip(),
    transforms.ToTensor(),
    transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)),
])
train_set = datasets.FakeData(size=256, image_size=(3, 32, 32), num_classes=10, transform=transform)
# With the files: datasets.CIFAR10("data", train=True, download=True, transform=transform)
# --8<-- [end:dataset]

# --8<-- [start:loader]
device = gg.accelerator.current_accelerator() if gg.accelerator.is_available() else gg.device("cpu")
loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=2, drop_last=True,
                    pin_memory=device.type == "cuda", persistent_workers=True)
# --8<-- [end:loader]

# --8<-- [start:train]
gg.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Linear(16 * 16 * 16, 10)).to(device)
optimizer = gg.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for epoch in range(2):
    for images, labels in loader:            # glassgrad tensors on the CPU (pinned on a GPU machine)
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
# --8<-- [end:train]
assert images.shape == (64, 3, 32, 32) and labels.dtype == "int64"


# --8<-- [start:iterable]
class Lines(IterableDataset):
    """Each worker reads its own share of the lines (here: every num_workers-th)."""

    def __init__(self, lines):
        self.lines = lines

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for line in self.lines[start::step]:
            yield np.array([len(word) for word in line.split()][:3] + [0] * (3 - len(line.split()[:3])))


lines = ["the quick brown fox", "jumps over", "the lazy dog", "and runs", "far away now"]
for batch in DataLoader(Lines(lines), batch_size=2, num_workers=2):
    print(batch.numpy().tolist())
# --8<-- [end:iterable]


# --8<-- [start:errors]
class Damaged(gg.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f"cannot decode image {i}")
        return np.zeros(3, np.float32)


try:
    for batch in DataLoader(Damaged(), batch_size=4, num_workers=2):
        pass
except ValueError as e:
    print(str(e).splitlines()[0])  # Caught ValueError in DataLoader worker process 1 while fetching index 5.
# --8<-- [end:errors]
