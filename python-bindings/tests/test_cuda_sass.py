"""The embedded CUDA machine code keeps glassgrad's promises on every architecture it holds:
every kernel the runtime launches is there (SASS of each architecture, and the PTX), nothing
else is, no kernel uses tensor-core or asynchronous-copy instructions, and no block needs more
than 48 KB of shared memory. The kernel list comes from the build itself: the registry of
CUDA functions the launchers load (glassgrad.cuda.kernel_names(), core-runtime/src/cuda/functions.h).

Needs no GPU, only cuobjdump (the test extras install it). When the build has CUDA kernels
these tests never skip: a missing cuobjdump fails, with the command that installs it. The
pytest summary ends with the number of kernels and architectures checked and the largest
register and shared-memory figures; GLASSGRAD_CUDA_RESOURCES=<file> also writes the
per-kernel table there.
"""
import hashlib
import os
import re

import pytest

import cuda_sass
import glassgrad
from glassgrad import _C

pytestmark = pytest.mark.cuda_build
needs_kernels = pytest.mark.skipif(not glassgrad.cuda.built_with_kernels(), reason="this build has no CUDA kernels")


def _nvcc_archs():
    """nvcc's part of built_archs(): 'sm_75, sm_90 + PTX compute_75' (NVRTC's follows a ';', or
    stands alone in a build of CUDA 12 images only)."""
    first = glassgrad.cuda.built_archs().split(";")[0]
    return "" if first.startswith("NVRTC") else first


def _full_build():
    """A build for every architecture (GLASSGRAD_CUDA_ARCHS=all, or ON without a GPU): what
    wheels and CI build; it must hold every CUDA 12 image."""
    return "every architecture" in glassgrad.cuda.build_note()


# The CUDA 12 images of a full build (cmake/cuda_select.py: NVRTC_ALL_SM, NVRTC_ALL_PTX).
FULL_NVRTC_IMAGES = ["sm_50", "sm_52", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90",
                     "compute_50"]


def _built_sass_archs():
    """'sm_75, sm_90 + PTX compute_75' -> ['sm_75', 'sm_90']"""
    return re.findall(r"\bsm_\w+", _nvcc_archs().split("+")[0])


def _built_ptx_archs():
    return ["sm_" + a for a in re.findall(r"\bcompute_(\w+)", _nvcc_archs())]


@pytest.fixture(scope="module")
def fatbin(tmp_path_factory):
    if not glassgrad.cuda.built_with_kernels():
        pytest.skip("this build has no CUDA kernels")
    cuobjdump = cuda_sass.find_cuobjdump()
    if cuobjdump is None:
        pytest.fail("this build embeds CUDA kernels but cuobjdump is not installed, so their machine code "
                    f"cannot be checked\n  fix: {cuda_sass.CUOBJDUMP_FIX}", pytrace=False)
    path = tmp_path_factory.mktemp("fatbin") / "glassgrad_kernels.fatbin"
    path.write_bytes(_C.cuda_fatbin())
    images, ptx_text = {}, ""
    if _nvcc_archs():  # else a build of CUDA 12 images only: no fatbin
        images = cuda_sass.parse_sass(cuda_sass.run_cuobjdump(cuobjdump, "--dump-sass", str(path)))
        cuda_sass.add_resources(images, cuda_sass.run_cuobjdump(cuobjdump, "--dump-resource-usage", str(path)))
        ptx_text = cuda_sass.run_cuobjdump(cuobjdump, "--dump-ptx", str(path))
    return {"images": images, "ptx": cuda_sass.parse_ptx_entries(ptx_text), "ptx_text": ptx_text,
            "cuobjdump": cuobjdump, "legacy": _legacy_images(cuobjdump, path.parent)}


def _legacy_images(cuobjdump, folder):
    """NVRTC 12's images (the CUDA 12 ones): per image its functions (ELF symbols or PTX entries),
    resources, PTX text, and SASS opcodes where this cuobjdump's nvdisasm still reads them
    (CUDA 13.2+ refuses sm_50 to sm_70)."""
    out = {}
    for name, arch, is_ptx, data in _C.cuda_legacy_images():
        path = folder / (name + (".ptx" if is_ptx else ".cubin"))
        path.write_bytes(data)
        img = {"arch": arch, "ptx": is_ptx, "elf_arch": None if is_ptx else cuda_sass.cubin_arch(data)}
        if is_ptx:
            text = data.decode()
            img.update(text=text, functions=set(re.findall(r"\.entry\s+(\w+)", text)))
        else:
            # From the ELF symbol table itself: CUDA 13.0's cuobjdump lists only part of an
            # sm_50 cubin's symbols (it reads no architecture from these headers).
            img["functions"] = cuda_sass.cubin_entry_functions(data)
            resources = {}
            cuda_sass.add_resources(resources, "Fatbin elf code:\narch = " + name + "\n" +
                                    cuda_sass.run_cuobjdump(cuobjdump, "--dump-resource-usage", str(path)))
            img["resources"] = resources.get(name, {})
            try:
                img["sass"] = cuda_sass.parse_sass(cuda_sass.run_cuobjdump(cuobjdump, "--dump-sass", str(path)))
            except RuntimeError as e:
                # CUDA 13.2+'s nvdisasm calls sm_50-sm_70 deprecated; 13.0's reads no architecture
                # from their ELF headers. Either way the image is checked through its PTX.
                if "deprecated" not in str(e) and "does not contain Cuda architecture" not in str(e):
                    raise
                img["sass"] = None  # this nvdisasm no longer disassembles the architecture
        out[name] = img
    return out


# cuobjdump's formats, abridged from its real output: the parser must see every opcode (with
# predicates and modifiers), every architecture and each function's resources.
SASS_SAMPLE = """
Fatbin elf code:
================
arch = sm_75
code version = [1,8]

	code for sm_75
		Function : gg_good_f32
	.headerflags	@"EF_CUDA_SM75"
        /*0000*/                   MOV R1, c[0x0][0x28] ;                 /* 0x00000a0000017a02 */
        /*0010*/              @!P0 FFMA.FTZ R2, R3, R4, R2 ;              /* 0x0000000403027223 */
		Function : gg_bad_f32
        /*0000*/                   HMMA.16816.F32 R4, R8, R12, R4 ;       /* 0x0000000c0804723c */
        /*0010*/              @UP0 LDGSTS.E.BYPASS.128 [R2], [R4.64] ;    /* 0x0000000004027fae */
        /*0020*/                   EXIT ;                                 /* 0x000000000000794d */
"""
RESOURCE_SAMPLE = """
Fatbin ptx code:
================
arch = sm_75

Fatbin elf code:
================
arch = sm_75

Resource usage:
 Common:
  GLOBAL:0
 Function gg_good_f32:
  REG:39 STACK:0 SHARED:256 LOCAL:0 CONSTANT[0]:416 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function gg_bad_f32:
  REG:255 STACK:8 SHARED:65536 LOCAL:16 CONSTANT[0]:400 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def test_parser_reads_opcodes_resources_and_flags_tensor_core_instructions():
    images = cuda_sass.parse_sass(SASS_SAMPLE)
    cuda_sass.add_resources(images, RESOURCE_SAMPLE)
    assert sorted(images) == ["sm_75"]
    good, bad = images["sm_75"]["gg_good_f32"], images["sm_75"]["gg_bad_f32"]
    assert good.opcodes == ["MOV", "FFMA"] and cuda_sass.forbidden_opcodes(good) == []
    assert cuda_sass.forbidden_opcodes(bad) == ["HMMA", "LDGSTS"]
    assert (good.registers, good.shared_bytes, good.local_bytes) == (39, 256, 0)
    assert (bad.registers, bad.shared_bytes, bad.local_bytes) == (255, 65536, 16)
    assert bad.shared_bytes > cuda_sass.SHARED_LIMIT_BYTES
    assert cuda_sass.FORBIDDEN_PTX.search("    cp.async.ca.shared.global [%r1], [%rd2], 16;")
    assert not cuda_sass.FORBIDDEN_PTX.search("    fma.rn.f32 %f3, %f1, %f2, %f3;")


def test_ptx_and_cubin_checks_of_the_nvrtc_images_see_what_they_look_for():
    ptx = ("\tadd.rn.f16 %rs3, %rs1, %rs2;\n\tfma.rn.f16x2 %r4, %r1, %r2, %r3;\n"
           "\tatom.global.add.f64 %fd2, [%rd1], %fd1;\n\t@%p1 nanosleep.u32 100;\n"
           "\tfma.rn.f32 %f3, %f1, %f2, %f3;\n\tatom.global.add.f32 %f2, [%rd1], %f1;\n"
           "\tcvt.rn.f32.f64 %f1, %fd1;\n\tshfl.sync.bfly.b32 %r2, %r1, 16, 31, -1;\n")
    found = cuda_sass.NEWER_THAN_SM50_PTX.findall(ptx)
    assert found == ["add.rn.f16", "fma.rn.f16x2", "atom.global.add.f64", "nanosleep"], found
    header = bytearray(64)
    header[:5] = b"\x7fELF\x02"
    header[0x30:0x34] = (0x3D053D).to_bytes(4, "little")  # what ptxas writes for sm_61
    assert cuda_sass.cubin_arch(bytes(header)) == (61, 61)
    with pytest.raises(ValueError):
        cuda_sass.cubin_arch(b"// PTX text")


@needs_kernels
def test_kernel_registry_is_not_empty_and_names_are_unique():
    names = glassgrad.cuda.kernel_names()
    assert len(names) > 50, names
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"gg_\w+", n) for n in names), [n for n in names if not re.fullmatch(r"gg_\w+", n)]


def test_the_fatbin_holds_sass_for_exactly_the_built_architectures(fatbin):
    assert sorted(fatbin["images"]) == sorted(_built_sass_archs()), glassgrad.cuda.built_archs()


def test_every_registered_kernel_is_in_the_sass_of_every_architecture(fatbin):
    want = set(glassgrad.cuda.kernel_names())
    for arch, functions in sorted(fatbin["images"].items()):
        missing = sorted(want - set(functions))
        assert not missing, f"{arch}: kernels the runtime launches are not in the fatbin: {missing}"
        unlaunched = sorted(set(functions) - want)
        assert not unlaunched, (f"{arch}: kernels in the fatbin that no launcher declares (declare them in the "
                                f"launcher's FunctionNames, core-runtime/src/cuda/functions.h, or delete them): "
                                f"{unlaunched}")


def test_every_registered_kernel_is_in_the_ptx(fatbin):
    ptx_archs = _built_ptx_archs()
    if not ptx_archs:
        pytest.skip(f"this build embeds no PTX ({glassgrad.cuda.built_archs()})")
    assert sorted(fatbin["ptx"]) == sorted(ptx_archs)
    want = set(glassgrad.cuda.kernel_names())
    for arch, entries in fatbin["ptx"].items():
        assert entries == want, (f"PTX {arch}: missing {sorted(want - entries)}, "
                                 f"not declared {sorted(entries - want)}")


def test_no_kernel_uses_tensor_core_or_async_copy_instructions(fatbin):
    bad = []
    for arch, functions in sorted(fatbin["images"].items()):
        for name, f in sorted(functions.items()):
            assert f.opcodes, f"{arch} {name}: no instructions read (has cuobjdump's output format changed?)"
            ops = cuda_sass.forbidden_opcodes(f)
            if ops:
                bad.append(f"{name} ({arch}): {', '.join(ops)}")
        # The parser reads real instructions: the float GEMMs multiply-add on the FP32 units.
        assert "FFMA" in functions["gg_matmul_f32"].opcodes, arch
    assert not bad, "tensor-core / async-copy instructions in the CUDA kernels:\n  " + "\n  ".join(bad)
    ptx_bad = sorted(set(cuda_sass.FORBIDDEN_PTX.findall(fatbin["ptx_text"])))
    assert not ptx_bad, f"tensor-core / async-copy PTX in the CUDA kernels: {ptx_bad}"


def test_no_kernel_needs_more_than_48_kb_of_shared_memory_per_block(fatbin):
    # The launchers pass no dynamic shared memory (launch_raw), so the static figure is a block's whole use.
    images = fatbin["images"]
    if not images:
        pytest.skip(f"this build has no nvcc fatbin ({glassgrad.cuda.built_archs()}); its CUDA 12 images are "
                    "checked by test_nvrtc_images_use_only_what_their_architecture_has")
    rows = [f for functions in images.values() for f in functions.values()]
    unread = sorted(f"{f.name} ({f.arch})" for f in rows if f.registers is None or f.shared_bytes is None)
    assert not unread, f"no resource usage read for: {unread}"
    over = sorted(f"{f.name} ({f.arch}): {f.shared_bytes} bytes" for f in rows
                  if f.shared_bytes > cuda_sass.SHARED_LIMIT_BYTES)

    regs = max(rows, key=lambda f: f.registers)
    shared = max(rows, key=lambda f: f.shared_bytes)
    spills = sorted({f.name for f in rows if f.local_bytes})
    archs = sorted(images, key=lambda a: int(re.sub(r"\D", "", a)))
    cuda_sass.REPORT[:] = [
        f"{len(glassgrad.cuda.kernel_names())} kernels x {len(archs)} architectures ({', '.join(archs)}"
        f"{' + PTX ' + ', '.join(a.replace('sm_', 'compute_') for a in _built_ptx_archs()) if _built_ptx_archs() else ''}"
        f") checked with "
        f"{fatbin['cuobjdump']}",
        f"most registers per thread: {regs.registers} ({regs.name}, {regs.arch})",
        f"most static shared memory per block: {shared.shared_bytes} bytes ({shared.name}, {shared.arch}); "
        f"limit {cuda_sass.SHARED_LIMIT_BYTES}",
        f"kernels with local memory (spills or local arrays): {', '.join(spills) if spills else 'none'}",
    ]
    out = os.environ.get("GLASSGRAD_CUDA_RESOURCES")
    if out:
        with open(out, "w") as fh:
            fh.write("\n".join(cuda_sass.resource_table(images)) + "\n")
    assert not over, (f"kernels above {cuda_sass.SHARED_LIMIT_BYTES} bytes of static shared memory per block "
                      "(the limit of Maxwell/Pascal GPUs):\n  " + "\n  ".join(over))


needs_legacy = pytest.mark.skipif(not _C.cuda_legacy_packing(),
                                  reason="this build has no NVRTC 12 images (GLASSGRAD_CUDA_LEGACY, docs/cuda.md)")


def test_a_full_build_holds_every_cuda_12_image():
    """Wheels and CI build for every architecture: then the CUDA 12 images are all there, for
    Maxwell to Volta and for Turing to Hopper under drivers 525 to 575."""
    if not _full_build():
        pytest.skip(f"not a build for every architecture: {glassgrad.cuda.build_note()}")
    assert [row[0] for row in _C.cuda_legacy_packing()] == FULL_NVRTC_IMAGES, glassgrad.cuda.built_archs()
    assert _built_sass_archs() == ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"]


@needs_legacy
def test_every_cuda_12_image_unpacks_to_the_bytes_nvrtc_wrote():
    """The CUDA 12 images are embedded packed, one xz stream per architecture major
    (core-runtime/cmake/pack_images.py, docs/cuda.md "Image sizes"): each unpacks to the size and
    SHA-256 that the packer recorded from NVRTC's output files, the images of a group tile its
    unpacked bytes, and the packed streams are less than a third of the images (a wheel deflates
    them to a quarter: packing must do better than that)."""
    packing = _C.cuda_legacy_packing()
    images = _C.cuda_legacy_images()
    assert [img[0] for img in images] == [row[0] for row in packing]
    groups = {}
    for (name, _, _, data), (_, group, packed, group_size, offset, size, sha) in zip(images, packing):
        assert len(data) == size and hashlib.sha256(data).hexdigest() == sha, f"{name} does not unpack to NVRTC's bytes"
        groups.setdefault(group, (packed, group_size, []))[2].append((offset, size))
    for group, (_, group_size, spans) in groups.items():
        ends = [0] + [o + s for o, s in spans]
        assert [o for o, _ in spans] == ends[:-1] and ends[-1] == group_size, (group, spans, group_size)
    packed_total = sum(p for p, _, _ in groups.values())
    raw_total = sum(g for _, g, _ in groups.values())
    assert packed_total * 3 < raw_total, f"{packed_total} packed bytes for {raw_total} of images"


@needs_legacy
def test_nvrtc_images_hold_every_registered_kernel_and_nothing_else(fatbin):
    want = set(glassgrad.cuda.kernel_names())
    legacy = fatbin["legacy"]
    assert legacy, glassgrad.cuda.built_archs()
    for name, img in sorted(legacy.items()):
        assert img["functions"] == want, (f"NVRTC image {name}: missing {sorted(want - img['functions'])}, "
                                          f"not declared {sorted(img['functions'] - want)}")


@needs_legacy
def test_nvrtc_images_use_only_what_their_architecture_has(fatbin):
    """Each cubin is machine code of its own architecture (its ELF header's target, which ptxas
    sets when it assembles for that architecture and refuses any instruction it lacks); the PTX
    (in a full build) targets sm_50 and holds no instruction compute capability 5.0 lacks
    (tensor cores, async copies, FP16 arithmetic, FP64 atomics, ...); where nvdisasm still reads
    the cubins, their SASS is checked too; and no block needs more than 48 KB of shared memory."""
    legacy = fatbin["legacy"]
    wrong = {n: img["elf_arch"] for n, img in legacy.items()
             if not img["ptx"] and img["elf_arch"] != (img["arch"], img["arch"])}
    assert not wrong, f"NVRTC cubins whose ELF header names another architecture: {wrong}"
    if "compute_50" in legacy:
        ptx = legacy["compute_50"]["text"]
        assert re.search(r"^\.target sm_50\b", ptx, re.M), ptx[:400]
        bad = sorted(set(cuda_sass.FORBIDDEN_PTX.findall(ptx)))
        assert not bad, f"tensor-core / async-copy PTX in the compute_50 image: {bad}"
        newer = sorted(set(cuda_sass.NEWER_THAN_SM50_PTX.findall(ptx)))
        assert not newer, f"PTX instructions compute capability 5.0 lacks in the compute_50 image: {newer}"
    over, unread, disassembled = [], [], []
    for name, img in sorted(legacy.items()):
        if img["ptx"]:
            continue
        functions = img["resources"]
        unread += [f"{n} ({name})" for n in img["functions"] if n not in functions or functions[n].shared_bytes is None]
        over += [f"{f.name} ({name}): {f.shared_bytes} bytes" for f in functions.values()
                 if (f.shared_bytes or 0) > cuda_sass.SHARED_LIMIT_BYTES]
        if img["sass"] is not None:
            disassembled.append(name)
            for fn in img["sass"].get(name, {}).values():
                assert not cuda_sass.forbidden_opcodes(fn), (name, fn.name, cuda_sass.forbidden_opcodes(fn))
    assert not unread, f"no resource usage read for: {unread}"
    assert not over, f"NVRTC images above {cuda_sass.SHARED_LIMIT_BYTES} bytes of shared memory per block: {over}"
    rows = [f for img in legacy.values() if not img["ptx"] for f in img["resources"].values()]
    regs = max(rows, key=lambda f: f.registers)
    shared = max(rows, key=lambda f: f.shared_bytes)
    cuda_sass.REPORT.append(
        f"NVRTC 12 images: {', '.join(sorted(legacy))}; most registers {regs.registers} ({regs.name}, {regs.arch}), "
        f"most shared memory {shared.shared_bytes} bytes ({shared.name}, {shared.arch}); SASS disassembled for "
        f"{', '.join(disassembled) or 'none (this nvdisasm no longer reads sm_50-sm_70)'}")
