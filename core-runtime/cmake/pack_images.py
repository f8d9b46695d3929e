"""Packs the CUDA 12 kernel images (nvrtc_legacy.py's cubins and PTX) for embedding, and writes
the C++ file that embeds them: the images of one architecture major (sm_50 and sm_52; sm_60 and
sm_61; sm_70 and sm_75; sm_80, sm_86 and sm_89; sm_90; the PTX) are concatenated and compressed
into one xz stream (LZMA2), which the runtime unpacks with the system's liblzma
(src/cuda/packed_images.cpp) when a GPU loads one of them. Run by
GlassgradLegacy.cmake:

    python pack_images.py --out legacy_embed.cpp --pack-dir DIR --cubin-driver 12000 \
        --ptx-driver 12090 IMAGE...

Why a group and why xz (docs/cuda.md, "Image sizes"): the images are ~8 MB each, 94 MB in all;
a wheel deflates its files, which leaves 23 MB of them. LZMA2 with a dictionary holding the whole
group finds what the images of one major share (the sm_8x cubins differ little), and its
position bits set to the instructions' width (8 bytes up to sm_6x, 16 from sm_70) model SASS
better than the defaults: 7.8 MB in all. A cubin's driver must read no new fatbin format, so a
CUDA 12 driver from 525 loads what the runtime unpacks exactly as NVRTC wrote it; the table
records each image's SHA-256 so a test can prove that (test_cuda_sass.py).

The streams use CRC32 checks. Compression is
deterministic: the same images give the same bytes.
"""
import argparse
import concurrent.futures
import hashlib
import lzma
import os
import re


def image_arch(path):
    """'.../sm_86.cubin' -> ('sm_86', 86, False); '.../compute_50.ptx' -> ('compute_50', 50, True)"""
    name = os.path.splitext(os.path.basename(path))[0]
    m = re.fullmatch(r"(sm|compute)_(\d+)", name)
    if not m:
        raise SystemExit(f"pack_images: {path} is not named sm_<arch>.cubin or compute_<arch>.ptx")
    return name, int(m.group(2)), m.group(1) == "compute"


def group_name(arch, is_ptx):
    """The images packed together: PTX alone, cubins by the architecture's major."""
    return "ptx" if is_ptx else f"sm_{arch // 10}x"


def lzma_filters(group, size):
    """LZMA2 with a dictionary as large as the group (so a later image finds an earlier one's
    code) and, for machine code, no literal context and positions at the instruction width."""
    opts = dict(id=lzma.FILTER_LZMA2, preset=9, dict_size=max(1 << 20, min(size, 1 << 28)))
    if group != "ptx":
        arch = int(group[3:-1])
        width_bits = 4 if arch >= 7 else 3  # 16-byte instructions from Volta, 8-byte before
        opts.update(lc=0, lp=width_bits, pb=width_bits)
    return [opts]


def pack(group, data):
    """xz stream of `data` (one group's images, concatenated)."""
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32,
                         filters=lzma_filters(group, len(data)))


def _pack_job(job):
    group, data = job
    return group, pack(group, data)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="the C++ file to write")
    p.add_argument("--pack-dir", required=True, help="where the packed groups go")
    p.add_argument("--cubin-driver", type=int, required=True, help="oldest driver that loads the cubins")
    p.add_argument("--ptx-driver", type=int, required=True, help="oldest driver whose JIT reads the PTX")
    p.add_argument("--jobs", type=int, default=0, help="groups compressed at once (default: one per core)")
    p.add_argument("images", nargs="+")
    args = p.parse_args()

    groups = {}  # name -> [(image name, arch, is_ptx, bytes)], in the order given
    for path in args.images:
        name, arch, is_ptx = image_arch(path)
        with open(path, "rb") as f:
            groups.setdefault(group_name(arch, is_ptx), []).append((name, arch, is_ptx, f.read()))
    jobs = [(g, b"".join(img[3] for img in imgs)) for g, imgs in groups.items()]
    workers = max(1, min(len(jobs), args.jobs or os.cpu_count() or 1))
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        packed = dict(pool.map(_pack_job, jobs))

    os.makedirs(args.pack_dir, exist_ok=True)
    asm, decls, rows = [], [], []
    for g, imgs in groups.items():
        path = os.path.join(os.path.abspath(args.pack_dir), g + ".xz")
        with open(path, "wb") as f:
            f.write(packed[g])
        sym = f"gg_legacy_{g}"
        decls.append(f'extern "C" const unsigned char {sym}_begin[], {sym}_end[];')
        asm += ['    ".balign 64\\n"',
                f'    ".global {sym}_begin\\n.hidden {sym}_begin\\n{sym}_begin:\\n"',
                f'    ".incbin \\"{path}\\"\\n"',
                f'    ".global {sym}_end\\n.hidden {sym}_end\\n{sym}_end:\\n"']
        total = sum(len(img[3]) for img in imgs)
        offset = 0
        for name, arch, is_ptx, data in imgs:
            driver = args.ptx_driver if is_ptx else args.cubin_driver
            rows.append(f'      {{"{name}", {arch}, {str(is_ptx).lower()}, {driver}, "{g}", {sym}_begin, {sym}_end, '
                        f'{total}u, {offset}u, {len(data)}u, "{hashlib.sha256(data).hexdigest()}"}},')
            offset += len(data)

    text = "\n".join([
        "// Generated by core-runtime/cmake/pack_images.py: the CUDA 12 (NVRTC) kernel images, packed",
        "// into one xz stream per architecture major and embedded with .incbin; legacy_image_bytes()",
        "// unpacks one (src/cuda/packed_images.cpp).",
        '#include "glassgrad/runtime/cuda.h"',
        "",
        *decls,
        "__asm__(",
        '    ".section .rodata\\n"',
        *asm,
        '    ".previous\\n");',
        "",
        "namespace glassgrad {",
        "namespace cuda {",
        "const std::vector<LegacyImage>& legacy_images() {",
        "  static const std::vector<LegacyImage> images{",
        *rows,
        "  };",
        "  return images;",
        "}",
        "}  // namespace cuda",
        "}  // namespace glassgrad",
        ""])
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.out)
    raw = sum(len(img[3]) for imgs in groups.values() for img in imgs)
    print(f"pack_images: {len(args.images)} images, {raw / 1e6:.1f} MB -> {sum(map(len, packed.values())) / 1e6:.1f} MB "
          f"in {len(groups)} xz streams ({', '.join(f'{g} {len(b) / 1e6:.2f}' for g, b in packed.items())})")


if __name__ == "__main__":
    main()
