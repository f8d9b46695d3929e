"""Compiles glassgrad's CUDA kernels with CUDA 12's NVRTC into the CUDA 12 images: for the GPUs
CUDA 13's nvcc no longer targets (Maxwell, Pascal, Volta) and, for Turing to Hopper, the drivers
older than CUDA 13's (525 to 575), which cannot load nvcc 13's machine code. One cubin per
architecture and PTX where asked, from the same sources nvcc compiles (the generated
all_kernels.cu). Run by GlassgradLegacy.cmake:

    python nvrtc_legacy.py --nvrtc LIBNVRTC --source all_kernels.cu -I DIR ... \
        --sm 50 52 60 61 70 75 80 86 89 90 --ptx 50 --out-dir DIR

writes DIR/sm_50.cubin ... and DIR/compute_50.ptx, the images in parallel processes (--jobs,
default one per core: each NVRTC compilation uses one core). NVRTC comes from the nvidia-cuda-nvrtc-cu12
wheel (a build dependency only; nothing of it ships): --nvrtc is its libnvrtc.so.12, or
`--find` prints that path (exit 1 when the wheel is not importable); `--nvrtc LIB --print-version`
prints its version ("12.9"; exit 1 when it is not NVRTC 12).

--cache-dir DIR (GLASSGRAD_FATBIN_CACHE, as for nvcc's fatbin): reuse images compiled by the same
NVRTC with the same options from the same files. NVRTC lists no dependencies, so the key covers
the source, every file under the include directories (more than the kernels read: an unrelated
header change only costs a recompile), and every file the source reaches through #include "..."
(resolved as the preprocessor does: next to the including file, then in the include
directories), such as the headers one folder above kernels/cuda that the kernels share with the
CPU (optimizer_rules.h, winograd_transforms.h).
"""
import argparse
import concurrent.futures
import ctypes
import glob
import hashlib
import os
import re
import shutil
import sys
import time


def find_nvrtc():
    """libnvrtc.so.12 of the nvidia-cuda-nvrtc-cu12 wheel on sys.path, or None."""
    for entry in sys.path:
        hits = sorted(glob.glob(os.path.join(entry or ".", "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.12")))
        if hits:
            return hits[0]
    return None


class Nvrtc:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.check(self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        self.version = (major.value, minor.value)

    def check(self, result, what, log=""):
        if result != 0:
            msg = self.lib.nvrtcGetErrorString(result).decode()
            raise SystemExit(f"nvrtc_legacy: {what} failed: {msg}" + (f"\n{log}" if log else ""))

    def compile(self, source, name, options, want_cubin):
        prog = ctypes.c_void_p()
        self.check(self.lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None),
                   "nvrtcCreateProgram")
        try:
            opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            result = self.lib.nvrtcCompileProgram(prog, len(options), opts)
            size = ctypes.c_size_t()
            self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            self.lib.nvrtcGetProgramLog(prog, log)
            self.check(result, f"compiling {name} ({' '.join(options)})", log.value.decode(errors="replace"))
            get_size, get = ((self.lib.nvrtcGetCUBINSize, self.lib.nvrtcGetCUBIN) if want_cubin
                             else (self.lib.nvrtcGetPTXSize, self.lib.nvrtcGetPTX))
            self.check(get_size(prog, ctypes.byref(size)), "getting the output size")
            out = ctypes.create_string_buffer(size.value)
            self.check(get(prog, out), "getting the output")
            return out.raw if want_cubin else out.value  # PTX: text up to its NUL
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))


_QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def included_files(source, include_dirs):
    """Every file reached from `source` through #include "..." (itself excluded), each resolved
    next to the including file first, then in the include directories. Conditional includes
    count whether or not their branch is taken (a superset: an extra file only costs a
    recompile). <...> includes are NVRTC's own headers and are not followed."""
    seen, todo = set(), [os.path.realpath(source)]
    while todo:
        path = todo.pop()
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for name in _QUOTED_INCLUDE.findall(text):
            for d in [os.path.dirname(path)] + list(include_dirs):
                hit = os.path.realpath(os.path.join(d, name))
                if os.path.isfile(hit):
                    if hit not in seen:
                        seen.add(hit)
                        todo.append(hit)
                    break
    seen.discard(os.path.realpath(source))
    return seen


def cache_key(nvrtc_version, options, source, include_dirs):
    h = hashlib.sha256(repr((nvrtc_version, options)).encode())
    walked = {os.path.realpath(os.path.join(d, n)) for inc in include_dirs for d, _, names in os.walk(inc)
              for n in names}
    files = [source] + sorted(walked | included_files(source, include_dirs))
    for path in files:
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--find", action="store_true", help="print libnvrtc.so.12's path and exit")
    p.add_argument("--print-version", action="store_true", help="print --nvrtc's version and exit")
    p.add_argument("--nvrtc")
    p.add_argument("--source")
    p.add_argument("-I", dest="include", action="append", default=[])
    p.add_argument("--sm", nargs="*", default=[])
    p.add_argument("--ptx", nargs="*", default=[])
    p.add_argument("--out-dir")
    p.add_argument("--cache-dir", default="")
    p.add_argument("--jobs", type=int, default=0, help="images compiled at once (default: one per core)")
    args = p.parse_args()
    if args.find:
        path = find_nvrtc()
        if not path:
            sys.exit(1)
        print(path)
        return
    nvrtc = Nvrtc(args.nvrtc)
    if nvrtc.version[0] != 12:
        sys.exit(f"nvrtc_legacy: {args.nvrtc} is NVRTC {nvrtc.version}, not 12 (the last to target sm_50-sm_70, "
                 "and the one whose cubins drivers from 525 load)")
    if args.print_version:
        print(f"{nvrtc.version[0]}.{nvrtc.version[1]}")
        return
    with open(args.source) as f:
        source = f.read()
    base = ["-std=c++17", "-default-device"] + [f"-I{d}" for d in args.include]
    os.makedirs(args.out_dir, exist_ok=True)
    jobs = [(f"sm_{a}", True) for a in args.sm] + [(f"compute_{a}", False) for a in args.ptx]
    start = time.perf_counter()
    work = [(args.nvrtc, source, args.source, base, arch, cubin, args.out_dir, args.cache_dir, args.include)
            for arch, cubin in jobs]
    workers = max(1, min(len(work), args.jobs or os.cpu_count() or 1))
    if workers == 1:
        lines = [build_image(*w) for w in work]
    else:  # one process per image: NVRTC compiles one program on one core
        with concurrent.futures.ProcessPoolExecutor(workers) as pool:
            lines = list(pool.map(build_image, *zip(*work)))
    for line in lines:
        print(line, flush=True)
    print(f"NVRTC {nvrtc.version[0]}.{nvrtc.version[1]}: {len(jobs)} images in {time.perf_counter() - start:.1f} s "
          f"({workers} processes)", flush=True)


def build_image(nvrtc_path, source, source_path, base, arch, cubin, out_dir, cache_dir, include):
    """Compiles (or takes from the cache) one image; returns the line to print."""
    start = time.perf_counter()
    nvrtc = Nvrtc(nvrtc_path)
    options = base + [f"-arch={arch}"]
    out = os.path.join(out_dir, arch + (".cubin" if cubin else ".ptx"))
    cached = None
    if cache_dir:
        key = cache_key(nvrtc.version, options, source_path, include)
        cached = os.path.join(cache_dir, f"nvrtc-{key}.{arch}")
        if os.path.exists(cached):
            shutil.copyfile(cached, out)
            return f"NVRTC cache: reusing {cached}"
    image = nvrtc.compile(source, os.path.basename(source_path), options, cubin)
    with open(out, "wb") as f:
        f.write(image)
    if cached:
        os.makedirs(cache_dir, exist_ok=True)
        tmp = f"{cached}.{os.getpid()}.tmp"
        shutil.copyfile(out, tmp)
        os.replace(tmp, cached)  # a concurrent build never reads a half-written entry
    return (f"NVRTC {nvrtc.version[0]}.{nvrtc.version[1]}: {arch} ({len(image)} bytes) in "
            f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
