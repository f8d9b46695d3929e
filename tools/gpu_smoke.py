"""The smoke test that ends every GPU build (tools/gpu_check.sh): a CUDA tensor, then one Conv2D
training step (convolution, batch norm, ReLU, pooling, a linear layer, cross-entropy, backward,
SGD) on the GPU and on the CPU from the same weights and data, compared. Exits non-zero with the
reason on any failure, so a build that cannot run CUDA work (a crash in the first CUDA call, a
missing kernel image, wrong results) stops the check at once instead of failing every test.

    python3 tools/gpu_smoke.py
"""
import sys

import numpy as np


def main() -> int:
    import glassgrad as gg
    if not gg.cuda.is_available():
        print("smoke test FAILED: CUDA unavailable:", gg.cuda.why_unavailable())
        return 1
    t = gg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3), device="cuda")
    back = (t * 2).numpy()
    if not np.array_equal(back, np.arange(6, dtype=np.float32).reshape(2, 3) * 2):
        print("smoke test FAILED: a CUDA tensor did not round-trip:", back)
        return 1

    def model():
        gg.manual_seed(0)
        return gg.Sequential(gg.Conv2D(3, 8, 3, padding=1), gg.BatchNorm2D(8), gg.ReLU(), gg.MaxPool2D(2),
                             gg.Flatten(), gg.Linear(8 * 4 * 4, 5))

    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 8, 8)).astype(np.float32)
    y = rng.integers(0, 5, 4).astype(np.int64)
    results = {}
    for device in ("cpu", "cuda"):
        m = model().to(device)
        opt = gg.SGD(m.parameters(), lr=0.1)
        loss = gg.cross_entropy(m(gg.tensor(x, device=device)), gg.tensor(y, device=device))
        loss.backward()
        opt.step()
        results[device] = (float(loss.item()), next(iter(m.parameters())).detach().cpu().numpy())
    (lc, wc), (lg, wg) = results["cpu"], results["cuda"]
    if not (np.isfinite(lg) and abs(lg - lc) <= 1e-4 * max(1.0, abs(lc)) and np.allclose(wg, wc, rtol=1e-4, atol=1e-5)):
        print(f"smoke test FAILED: the Conv2D step differs on the GPU: loss {lg} (CPU {lc}), "
              f"largest weight difference {float(np.max(np.abs(wg - wc)))}")
        return 1
    info = gg.cuda.device_info()
    print(f"smoke test ok: {info['name']} ({info['multiprocessors']} SMs), Conv2D step loss {lg:.5f} = CPU {lc:.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
