"""The training workloads the benchmarks share, in glassgrad and (when importable) PyTorch with
the same initial weights: SimpleCNN (the seed's model, Fashion-MNIST shaped input) and
ResNet-18 (CIFAR variant, [N, 3, 32, 32]).

A training step is: logits = model(x); loss = cross_entropy(logits, y); loss.backward();
optimizer.step(); optimizer.zero_grad(). SimpleCNN uses the seed's plain SGD (lr 0.01);
ResNet-18 uses SGD with momentum 0.9 (lr 0.01), its usual recipe, so the step also holds one
momentum buffer per parameter.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Tuple

import numpy as np

import glassgrad as gg
from common import numpy_state


@dataclass(frozen=True)
class ModelSpec:
    name: str
    input_shape: Tuple[int, int, int]  # C, H, W
    classes: int
    momentum: float
    width: int = 64                    # ResNet-18 only: width of the first stage (64 is the real model)

    @property
    def label(self) -> str:
        if self.name == "ResNet18" and self.width != 64:
            return f"ResNet18(width {self.width})"
        return self.name


SIMPLE_CNN = ModelSpec("SimpleCNN", (1, 28, 28), 10, 0.0)
RESNET18 = ModelSpec("ResNet18", (3, 32, 32), 10, 0.9)


def resnet18(width: int = 64) -> ModelSpec:
    return ModelSpec("ResNet18", (3, 32, 32), 10, 0.9, width)


def gg_model(spec: ModelSpec) -> gg.Module:
    if spec.name == "SimpleCNN":
        return gg.models.SimpleCNN(spec.classes)
    return gg.models.ResNet18(spec.classes, width=spec.width)


def random_batch(spec: ModelSpec, batch: int, seed: int = 0) -> Tuple[np.ndarray, np.ndarray]:
    """Random images in [0, 1) and labels: timing and memory do not depend on the values, and
    random data (not zeros) keeps every code path honest."""
    rng = np.random.default_rng(seed)
    x = rng.random((batch,) + spec.input_shape, dtype=np.float32)
    y = rng.integers(0, spec.classes, batch).astype(np.int64)
    return x, y


def gg_step(spec: ModelSpec, model: gg.Module, item_before_backward: bool = False) -> Callable:
    """The training step as a function of (x, y) tensors; returns the loss tensor. The optimizer
    is step.optimizer. item_before_backward: the loss is read with .item() before backward(), as
    a script printing its loss before stepping does."""
    opt = gg.SGD(model.parameters(), lr=0.01, momentum=spec.momentum)

    def step(x, y):
        loss = gg.cross_entropy(model(x), y)
        if item_before_backward:
            loss.item()
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    step.optimizer = opt
    return step


@dataclass(frozen=True)
class StepData:
    """What both libraries' side of a training-step benchmark start from: the glassgrad model's
    initial weights and one random batch, as NumPy arrays."""
    state: Dict[str, np.ndarray]
    xn: np.ndarray
    yn: np.ndarray


def gg_setup(spec: ModelSpec, batch: int) -> Tuple[gg.Module, gg.Tensor, gg.Tensor, StepData]:
    """glassgrad's side: the seeded model and the batch as realized tensors, (model, x, y, data)."""
    gg.manual_seed(0)
    model = gg_model(spec)
    xn, yn = random_batch(spec, batch)
    x, y = gg.tensor(xn), gg.tensor(yn)
    gg.realize(x, y)
    return model, x, y, StepData(numpy_state(model), xn, yn)


def torch_twin(torch, spec: ModelSpec, data: StepData, device: str):
    """PyTorch's side on `device`: the model with the same weights, its training step and the
    batch, (model, step, x, y)."""
    model = torch_model(torch, spec, data.state, device)
    x, y = torch.from_numpy(data.xn).to(device), torch.from_numpy(data.yn).to(device)
    return model, torch_step(torch, spec, model), x, y


def torch_model(torch, spec: ModelSpec, state: Dict[str, np.ndarray], device: str):
    """PyTorch's twin of the glassgrad model, loaded with the same weights."""
    nn = torch.nn
    F = torch.nn.functional

    class TorchSimpleCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3)
            self.bn1 = nn.BatchNorm2d(16)
            self.conv2 = nn.Conv2d(16, 32, 3)
            self.bn2 = nn.BatchNorm2d(32)
            self.fc = nn.Linear(800, spec.classes)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
            x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
            return self.fc(torch.flatten(x, 1))

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.shortcut = None
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + (x if self.shortcut is None else self.shortcut(x)))

    class TorchResNet18(nn.Module):
        def __init__(self, w):
            super().__init__()
            self.conv1 = nn.Conv2d(3, w, 3, 1, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(w)
            self.layer1 = nn.Sequential(BasicBlock(w, w), BasicBlock(w, w))
            self.layer2 = nn.Sequential(BasicBlock(w, 2 * w, 2), BasicBlock(2 * w, 2 * w))
            self.layer3 = nn.Sequential(BasicBlock(2 * w, 4 * w, 2), BasicBlock(4 * w, 4 * w))
            self.layer4 = nn.Sequential(BasicBlock(4 * w, 8 * w, 2), BasicBlock(8 * w, 8 * w))
            self.fc = nn.Linear(8 * w, spec.classes)

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.layer4(self.layer3(self.layer2(self.layer1(out))))
            return self.fc(out.mean(dim=(2, 3)))

    m = TorchSimpleCNN() if spec.name == "SimpleCNN" else TorchResNet18(spec.width)
    missing, unexpected = m.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()}, strict=False)
    missing = [k for k in missing if not k.endswith("num_batches_tracked")]
    if missing or unexpected:
        raise RuntimeError(f"PyTorch twin of {spec.label} does not match glassgrad's state_dict: "
                           f"missing {missing}, unexpected {unexpected}")
    return m.to(device)


def torch_step(torch, spec: ModelSpec, model) -> Callable:
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=spec.momentum)
    F = torch.nn.functional

    def step(x, y):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    step.optimizer = opt
    return step


def tensor_bytes(ts) -> int:
    """Bytes held by distinct PyTorch tensors (shared storage counted once)."""
    seen, total = set(), 0
    for t in ts:
        if t is None or t.data_ptr() in seen:
            continue
        seen.add(t.data_ptr())
        total += t.numel() * t.element_size()
    return total


def torch_cpu_allocation_peak(torch, fn) -> int:
    """Highest running total of (allocations - frees) that PyTorch's CPU allocator reports to the
    profiler while fn() runs (bytes held before fn() are not included)."""
    from torch.profiler import ProfilerActivity, profile
    from torch._C._profiler import _EventType

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    events = []
    stack = list(prof.profiler.kineto_results.experimental_event_tree())
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.tag == _EventType.Allocation and str(n.extra_fields.device).startswith("cpu"):
            events.append((n.start_time_ns, n.extra_fields.alloc_size))
    events.sort()
    running = peak = 0
    for _, size in events:
        running += size
        peak = max(peak, running)
    return peak


TORCH_CPU_PEAK_HOW = "held tensors + profiler allocation peak (CPU allocator only; lower bound)"


def torch_step_peak(torch, model, step, x, y, tdev: str, sync):
    """(peak bytes, loss) of one more call of a PyTorch step that has already run once.
    CUDA: torch.cuda.max_memory_allocated over the step. CPU: bytes its tensors hold before the
    step (parameters, buffers, optimizer state, batch) + torch_cpu_allocation_peak(step)."""
    sync()
    if tdev.startswith("cuda"):
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(tdev)
        loss = step(x, y)
        sync()
        return torch.cuda.max_memory_allocated(tdev), float(loss.item())
    state = [v for st in step.optimizer.state.values() for v in st.values() if torch.is_tensor(v)]
    held = tensor_bytes(list(model.parameters()) + list(model.buffers()) + state + [x, y])
    box = {}
    delta = torch_cpu_allocation_peak(torch, lambda: box.setdefault("loss", step(x, y)))
    return held + delta, float(box["loss"].item())


def torch_peak_how(tdev: str) -> str:
    return "torch.cuda.max_memory_allocated" if tdev.startswith("cuda") else TORCH_CPU_PEAK_HOW
