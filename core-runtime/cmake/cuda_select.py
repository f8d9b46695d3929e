"""Which CUDA kernel images a build of glassgrad compiles, and why (docs/cuda.md, "Which kernels
a build holds"). One implementation of the rule, used at configure time by GlassgradCuda.cmake
and by tools/build_backend.py (whether pip must put CUDA 12's NVRTC into the build environment):

    python cuda_select.py --cuda AUTO --archs "" --legacy AUTO --nvcc 13.0

prints `key=value` lines: nvcc_archs (machine code nvcc compiles, ';'-separated), nvrtc_sm and
nvrtc_ptx (the images CUDA 12's NVRTC compiles), nvrtc_required (1: fail without NVRTC 12), gpus
(what the machine shows) and note (one sentence: what the build holds and why). Exit status 2
with a message on stderr for a setting it cannot read.

The rule (PyTorch's TORCH_CUDA_ARCH_LIST convention: by default, the GPUs the build machine has):
  - GLASSGRAD_CUDA=OFF, or no nvcc: no kernels.
  - GLASSGRAD_CUDA_ARCHS="" (the default): the compute capabilities of the GPUs visible now
    (the driver API, honouring CUDA_VISIBLE_DEVICES; nvidia-smi when the driver library cannot
    be asked). No GPU visible: no kernels under AUTO, every architecture under ON.
    "all": every architecture. "75;86" or "7.5 8.6": those.
  - nvcc compiles the selected architectures it supports; CUDA 12's NVRTC compiles the CUDA 12
    images: the architectures below nvcc's floor (CUDA 13 dropped Maxwell, Pascal and Volta),
    the visible GPUs whose driver is older than nvcc's CUDA (a 535-575 driver cannot load CUDA
    13's machine code), and with "all" (or GLASSGRAD_CUDA_LEGACY=ON) the whole set:
    sm_50 to sm_90 and PTX compute_50. GLASSGRAD_CUDA_LEGACY=OFF: none.
"""
import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys

# Every architecture a build with GLASSGRAD_CUDA_ARCHS=all compiles, by nvcc's major version.
NVCC_ALL = {
    13: [75, 80, 86, 89, 90, 100, 120],
    12: [50, 52, 60, 61, 70, 75, 80, 86, 89, 90],  # 12.8 and later add 100, 120
    11: [50, 52, 60, 61, 70, 75, 80, 86],          # 11.8 adds 89, 90
}
# The CUDA 12 images of a full build: Maxwell to Volta (which CUDA 13 cannot target) and Turing
# to Hopper (for drivers 525 to 575, which cannot load CUDA 13's machine code); PTX of sm_50.
NVRTC_ALL_SM = [50, 52, 60, 61, 70, 75, 80, 86, 89, 90]
NVRTC_ALL_PTX = [50]
NVRTC_MAX = 121  # the newest architecture CUDA 12.9's NVRTC targets


def nvcc_all(version):
    major, minor = version
    archs = list(NVCC_ALL.get(major, NVCC_ALL[13] if major > 13 else NVCC_ALL[11]))
    if major == 12 and minor >= 8:
        archs += [100, 120]
    if major == 11 and minor >= 8:
        archs += [89, 90]
    return archs


def nvcc_floor(version):
    """The oldest architecture nvcc of this version compiles."""
    return 75 if version[0] >= 13 else 50


def parse_archs(text):
    """'75;86', '7.5 8.6', '75,86' -> [75, 86]; 'all' -> 'all'; '' -> None (detect)."""
    text = (text or "").strip()
    if not text:
        return None
    if text.lower() == "all":
        return "all"
    out = []
    for item in re.split(r"[;, ]+", text):
        if not item:
            continue
        m = re.fullmatch(r"(?:sm_)?(\d+)\.(\d)|(?:sm_)?(\d{2,3})", item)
        if not m:
            raise ValueError(f"GLASSGRAD_CUDA_ARCHS entry '{item}' is not a compute capability "
                             f"(write 86 or 8.6, several as '75;86', or 'all' for every architecture)")
        arch = int(m.group(1)) * 10 + int(m.group(2)) if m.group(1) else int(m.group(3))
        if arch not in out:
            out.append(arch)
    return sorted(out)


def version_text(driver_version):
    """cuDriverGetVersion's 12040 -> '12.4'."""
    return f"{driver_version // 1000}.{driver_version % 1000 // 10}"


def _probe_driver():
    """(driver version, [(name, major, minor)]) through libcuda.so.1, or None when the library
    cannot be loaded or initialized (then there is no GPU to ask about either)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    version, count = ctypes.c_int(0), ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDriverGetVersion(ctypes.byref(version)) != 0:
        return None
    if cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return version.value, []
    gpus = []
    for i in range(count.value):
        dev, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
        name = ctypes.create_string_buffer(256)
        if cuda.cuDeviceGet(ctypes.byref(dev), i) != 0:
            continue
        cuda.cuDeviceGetName(name, 255, dev)
        cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
        cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)  # ..._MINOR
        gpus.append((name.value.decode(errors="replace"), major.value, minor.value))
    return version.value, gpus


def _probe_nvidia_smi():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        rows = subprocess.run([smi, "--query-gpu=name,compute_cap", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30).stdout
        header = subprocess.run([smi], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    gpus = []
    for line in rows.splitlines():
        m = re.fullmatch(r"\s*(.+?),\s*(\d+)\.(\d+)\s*", line)
        if m:
            gpus.append((m.group(1), int(m.group(2)), int(m.group(3))))
    m = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", header)
    return (int(m.group(1)) * 1000 + int(m.group(2)) * 10 if m else 0), gpus


def nvcc_version():
    """(major, minor) of the nvcc GlassgradCuda.cmake would find (PATH, $CUDA_HOME, $CUDA_PATH,
    /usr/local/cuda), or None."""
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    for nvcc in [shutil.which("nvcc")] + [os.path.join(r, "bin", "nvcc") for r in roots if r]:
        if nvcc and os.path.exists(nvcc):
            try:
                out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60).stdout
            except (OSError, subprocess.SubprocessError):
                continue
            m = re.search(r"release (\d+)\.(\d+)", out)
            if m:
                return int(m.group(1)), int(m.group(2))
    return None


def visible_gpus():
    """(driver version as cuDriverGetVersion reports it, 0 if unknown; [(name, major, minor)])."""
    return _probe_driver() or _probe_nvidia_smi() or (0, [])


def select(cuda="AUTO", archs="", legacy="AUTO", nvcc=None, probe=None):
    """The images to build: a dict with nvcc_archs, nvrtc_sm, nvrtc_ptx, nvrtc_required, note.
    `nvcc` is (major, minor) or None when nvcc was not found; `probe` is visible_gpus()'s
    result (asked for only when the choice depends on it)."""
    cuda, legacy = cuda.upper() or "AUTO", legacy.upper() or "AUTO"
    for name, value in (("GLASSGRAD_CUDA", cuda), ("GLASSGRAD_CUDA_LEGACY", legacy)):
        if value not in ("AUTO", "ON", "OFF"):
            raise ValueError(f"{name}={value} is not AUTO, ON or OFF")
    wanted = parse_archs(archs)
    out = {"nvcc_archs": [], "nvrtc_sm": [], "nvrtc_ptx": [], "nvrtc_required": False, "gpus": ""}

    def none(why):
        out["note"] = "no CUDA kernels: " + why
        return out

    if cuda == "OFF":
        return none("built with GLASSGRAD_CUDA=OFF")
    if nvcc is None:
        return none("nvcc was not found (GLASSGRAD_CUDA=AUTO builds the kernels when the CUDA toolkit is installed)")
    driver, gpus = (0, [])
    if wanted is None:
        driver, gpus = probe if probe is not None else visible_gpus()
        out["gpus"] = ", ".join(f"{n} ({a}.{b})" for n, a, b in gpus) + (
            f", driver CUDA {version_text(driver)}" if gpus and driver else "")
    if wanted is None and not gpus:
        if cuda == "AUTO":
            return none("no GPU was visible when it was built (GLASSGRAD_CUDA=AUTO builds for the GPUs it sees)")
        wanted = "all"
        why = "every architecture: GLASSGRAD_CUDA=ON and no GPU visible"
    elif wanted is None:
        wanted = sorted({a * 10 + b for _, a, b in gpus})
        why = "the visible GPU" + ("s" if len(gpus) > 1 else "") + ": " + out["gpus"]
    elif wanted == "all":
        why = "every architecture (GLASSGRAD_CUDA_ARCHS=all)"
    else:
        why = "GLASSGRAD_CUDA_ARCHS=" + ",".join(str(a) for a in wanted)

    floor = nvcc_floor(nvcc)
    # CUDA 13's machine code needs a CUDA 13 driver (580 or newer); older drivers get CUDA 12 images.
    old_driver = bool(gpus) and 0 < driver < nvcc[0] * 1000
    if wanted == "all":
        out["nvcc_archs"] = nvcc_all(nvcc)
        if nvcc[0] >= 13 and legacy != "OFF":
            out["nvrtc_sm"], out["nvrtc_ptx"] = list(NVRTC_ALL_SM), list(NVRTC_ALL_PTX)
    else:
        out["nvcc_archs"] = [a for a in wanted if a >= floor]
        if nvcc[0] >= 13 and legacy != "OFF":
            out["nvrtc_sm"] = [a for a in wanted if a < floor or ((old_driver or legacy == "ON") and a <= NVRTC_MAX)]
    if legacy == "ON":
        if nvcc[0] < 13:
            raise ValueError(f"GLASSGRAD_CUDA_LEGACY=ON needs CUDA 13's nvcc (this is {nvcc[0]}.{nvcc[1]}, "
                             "which compiles Maxwell to Volta itself); unset it")
        out["nvrtc_required"] = True
    dropped = [a for a in (wanted if wanted != "all" else []) if a < floor and legacy == "OFF"]
    if dropped:
        raise ValueError(f"sm_{', sm_'.join(map(str, dropped))}: nvcc {nvcc[0]}.{nvcc[1]} does not compile for "
                         f"them and GLASSGRAD_CUDA_LEGACY=OFF forbids CUDA 12's NVRTC, which does")
    if old_driver:
        why += f" (driver older than nvcc's CUDA {nvcc[0]}.{nvcc[1]}: CUDA 12 images too)"
    out["note"] = "CUDA kernels for " + why
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cuda", default="AUTO")
    p.add_argument("--archs", default="")
    p.add_argument("--legacy", default="AUTO")
    p.add_argument("--nvcc", default="", help="nvcc's version, e.g. 13.0 (empty: not found)")
    a = p.parse_args()
    nvcc = tuple(int(x) for x in a.nvcc.split(".")[:2]) if a.nvcc else None
    try:
        out = select(a.cuda, a.archs, a.legacy, nvcc)
    except ValueError as e:
        print(f"glassgrad: {e}", file=sys.stderr)
        sys.exit(2)
    for key in ("nvcc_archs", "nvrtc_sm", "nvrtc_ptx"):
        print(f"{key}={';'.join(map(str, out[key]))}")
    print(f"nvrtc_required={int(out['nvrtc_required'])}")
    print(f"gpus={out['gpus']}")
    print(f"note={out['note']}")


if __name__ == "__main__":
    main()
