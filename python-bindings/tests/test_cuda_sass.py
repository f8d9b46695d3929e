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
import os
import re

import pytest

import cuda_sass
import glassgrad
from glassgrad import _C

pytestmark = pytest.mark.cuda_build
needs_kernels = pytest.mark.skipif(not glassgrad.cuda.built_with_kernels(), reason="this build has no CUDA kernels")


def _built_sass_archs():
    """'sm_75, sm_90 + PTX compute_75' -> ['sm_75', 'sm_90']"""
    return re.findall(r"\bsm_\w+", glassgrad.cuda.built_archs().split("+")[0])


def _built_ptx_archs():
    return ["sm_" + a for a in re.findall(r"\bcompute_(\w+)", glassgrad.cuda.built_archs())]


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
    images = cuda_sass.parse_sass(cuda_sass.run_cuobjdump(cuobjdump, "--dump-sass", str(path)))
    cuda_sass.add_resources(images, cuda_sass.run_cuobjdump(cuobjdump, "--dump-resource-usage", str(path)))
    ptx_text = cuda_sass.run_cuobjdump(cuobjdump, "--dump-ptx", str(path))
    return {"images": images, "ptx": cuda_sass.parse_ptx_entries(ptx_text), "ptx_text": ptx_text,
            "cuobjdump": cuobjdump}


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
