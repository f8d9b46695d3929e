"""Smoke test of an installed glassgrad wheel, run by tools/build_wheels.sh in a fresh virtual
environment with no compiler on PATH (and by tools/wheel_gpu_check.sh on a GPU machine with
only the driver):

    python wheel_smoke.py [--device cpu|cuda] [--expect-kernels yes|no] [--expect-legacy yes|no|any]

It checks that glassgrad comes from site-packages (not a source tree) and that the wheel put
nothing else there (no C++ headers, libraries or CMake configs), that no compiler or CUDA
toolkit is reachable, trains SimpleCNN for three steps on the device, and reports
glassgrad.cuda's state: on the CPU the reason CUDA is unavailable must be a precise one; with
--device cuda the GPU must be usable and the three steps must match the same steps on the CPU
(with GLASSGRAD_CUDA_IMAGE set, on that kernel image: device_info()['kernel_image'] must name it).
--expect-legacy yes: the wheel must also hold all of NVRTC 12's images (sm_50 to sm_90 and
compute_50). With GLASSGRAD_CUDA_DRIVER_VERSION below 580 (e.g. 550) and --device cuda, the
image that runs must be one of NVRTC 12's.
Prints one line per check; exits 1 at the first failure.
"""
import argparse
import os
import shutil
import sys
import sysconfig
import time

COMPILERS = ("cc", "gcc", "g++", "c++", "clang", "clang++", "nvcc", "ptxas")


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        sys.exit(1)


def train_three_steps(gg, device):
    gg.manual_seed(0)
    model = gg.models.SimpleCNN().to(device)
    opt = gg.SGD(model.parameters(), lr=0.01)  # the seed's optimizer; the loss falls over the 3 steps
    import numpy as np
    rng = np.random.default_rng(0)
    x = gg.tensor(rng.random((32, 1, 28, 28), dtype=np.float32), device=device)
    y = gg.tensor(rng.integers(0, 10, 32), device=device)
    losses = []
    for _ in range(3):
        loss = gg.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    return losses


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    p.add_argument("--expect-kernels", default="yes", choices=("yes", "no"),
                   help="whether the wheel must embed CUDA kernels (release wheels do)")
    p.add_argument("--expect-legacy", default="any", choices=("yes", "no", "any"),
                   help="whether the wheel must embed NVRTC 12's sm_50-sm_70 images (release wheels do)")
    args = p.parse_args()

    print(f"python {sys.version.split()[0]} at {sys.executable}")
    found = {c: shutil.which(c) for c in COMPILERS if shutil.which(c)}
    check(not found, f"no compiler or CUDA toolkit on PATH ({found or 'none of ' + ', '.join(COMPILERS)})")

    start = time.perf_counter()
    import glassgrad as gg
    import_s = time.perf_counter() - start
    site = os.path.realpath(sysconfig.get_paths()["purelib"])
    where = os.path.realpath(os.path.dirname(gg.__file__))
    check(where == os.path.join(site, "glassgrad"), f"glassgrad {gg.__version__} imported from {where} in {import_s:.2f} s")
    strays = [n for n in ("include", "lib", "lib64", "share") if os.path.exists(os.path.join(site, n))]
    strays += [n for n in os.listdir(site) if n.startswith("libglassgrad")]
    check(not strays, f"the wheel installed the Python package only (nothing at site-packages/{strays or '{include,lib,share}'})")

    backend = gg._C.parallel_backend()  # loads the OpenMP module, which the wheel carries beside _C
    loaded = backend[len("OpenMP ("):backend.find(")")] if backend.startswith("OpenMP (") else ""
    check(os.path.realpath(os.path.dirname(loaded) or ".") == where and loaded.endswith("libglassgrad_parallel.so"),
          f"the CPU kernels' OpenMP module loads from the package: {backend}")

    kernels = gg.cuda.built_with_kernels()
    want = args.expect_kernels == "yes"
    check(kernels == want, f"CUDA kernels embedded: {kernels} ({gg.cuda.built_archs() or 'none'})")
    if args.expect_legacy != "any":
        names = [name for name, _, _, _ in gg._C.cuda_legacy_images()]
        legacy = names == ["sm_50", "sm_52", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90",
                           "compute_50"]
        check(legacy == (args.expect_legacy == "yes"),
              f"NVRTC 12 images for Maxwell to Volta and for drivers 525-575 embedded: {legacy} ({names or 'none'})")
    available = gg.cuda.is_available()
    reason = gg.cuda.why_unavailable()
    print(f"      glassgrad.cuda.is_available() = {available}; why_unavailable() = {reason!r}")
    if args.device == "cpu":
        if not available:
            check(len(reason) > 20 and any(k in reason for k in ("libcuda.so.1", "no CUDA kernels", "no CUDA GPU", "cuInit")),
                  "the reason CUDA is unavailable names its cause")
        start = time.perf_counter()
        losses = train_three_steps(gg, "cpu")
        check(all(l == l and abs(l) < 1e3 for l in losses) and losses[-1] < losses[0],
              f"three SimpleCNN steps on the CPU in {time.perf_counter() - start:.2f} s: losses {[round(l, 4) for l in losses]}")
        return

    check(available, "a CUDA GPU is usable with only the driver")
    info = gg.cuda.device_info()
    print(f"      {info['name']}, compute capability {info['compute_capability']}, driver {info['driver_version']}, "
          f"kernel image: {info['kernel_image']}")
    forced = os.environ.get("GLASSGRAD_CUDA_IMAGE", "")
    if forced:
        check(forced in info["kernel_image"], f"GLASSGRAD_CUDA_IMAGE={forced} is the image that runs")
    driver = os.environ.get("GLASSGRAD_CUDA_DRIVER_VERSION", "")
    if driver and not forced:
        major, minor = info["compute_capability"]
        own = f"sm_{major}{minor} machine code (NVRTC 12)"
        check(own in info["kernel_image"], f"GLASSGRAD_CUDA_DRIVER_VERSION={driver}: NVRTC 12's {own} runs")
    start = time.perf_counter()
    gpu = train_three_steps(gg, "cuda")
    gpu_s = time.perf_counter() - start
    cpu = train_three_steps(gg, "cpu")
    close = all(abs(a - b) <= 1e-3 * max(1.0, abs(b)) for a, b in zip(gpu, cpu))
    check(close and gpu[-1] < gpu[0], f"three SimpleCNN steps on the GPU in {gpu_s:.2f} s: losses "
          f"{[round(l, 4) for l in gpu]} (CPU {[round(l, 4) for l in cpu]})")


if __name__ == "__main__":
    main()
