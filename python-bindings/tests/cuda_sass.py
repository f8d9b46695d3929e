"""Reads the embedded CUDA fatbin with cuobjdump: the SASS of every function per architecture,
the PTX entry points, and each function's registers and static shared memory.

cuobjdump comes from the CUDA toolkit or from the `nvidia-cuda-cuobjdump` wheel (a test extra,
with `nvidia-cuda-nvdisasm`, which cuobjdump runs to print SASS); find_cuobjdump() looks in
both places. Used by test_cuda_sass.py; the conftest prints the report it collects.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import struct
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

# Tensor-core (matrix) instructions of every generation and the asynchronous copies of sm_80+:
# glassgrad's kernels run on FP32/FP64 CUDA cores of any GPU from compute capability 5.0.
# SASS opcodes are compared without their modifiers (HMMA.16816.F32 -> HMMA).
FORBIDDEN_SASS = frozenset({
    "HMMA", "HGMMA", "IMMA", "IGMMA", "BMMA", "BGMMA", "DMMA", "QMMA", "QGMMA", "OMMA",
    "UTCHMMA", "UTCQMMA", "UTCIMMA", "UTCOMMA",    # sm_100 tensor-core MMAs
    "LDGSTS", "UBLKCP", "UTMALDG", "UTMASTG",      # cp.async, bulk and TMA copies
    "LDSM",                                        # ldmatrix (feeds tensor cores)
})
FORBIDDEN_PTX = re.compile(r"\b(wmma\.|mma\.sync|wgmma|cp\.async|ldmatrix|tcgen05)")
# PTX instructions compute capability 5.0 lacks (the PTX ISA's target requirements): FP16
# arithmetic (sm_53), FP64 atomic add (sm_60), nanosleep / match (sm_70), redux / mbarrier /
# bf16 (sm_80), elect / setmaxnreg / griddepcontrol (sm_90). ptxas refuses them for sm_50 too;
# this names the instruction when a kernel gains one.
NEWER_THAN_SM50_PTX = re.compile(
    r"^\s*(?:@!?%p\d+\s+)?((?:add|sub|mul|fma|neg|abs|min|max)\S*\.f16(?:x2)?\b|atom\S*\.add\.f64|red\S*\.add\.f64|"
    r"nanosleep|match\.|redux\.|mbarrier\.|\S*\.bf16\b|elect\.|setmaxnreg|griddepcontrol)", re.M)
# The static shared memory a block may use on every GPU glassgrad supports (Maxwell to now).
SHARED_LIMIT_BYTES = 48 * 1024

CUOBJDUMP_FIX = ("install it with the test extras (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm, "
                 "or bash tools/setup.sh --test), or put the CUDA toolkit's bin directory on PATH")


def find_cuobjdump() -> Optional[str]:
    """The nvidia-cuda-cuobjdump wheel's binary (site-packages/nvidia/cu*/bin), else the CUDA
    toolkit's (PATH, CUDA_HOME, CUDA_PATH, /usr/local/cuda); None when neither is there."""
    for entry in sys.path:
        for found in sorted(glob.glob(os.path.join(entry or ".", "nvidia", "cu*", "bin", "cuobjdump")), reverse=True):
            if os.access(found, os.X_OK):
                return found
    found = shutil.which("cuobjdump")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "cuobjdump"), os.X_OK):
            return os.path.join(root, "bin", "cuobjdump")
    return None


def run_cuobjdump(cuobjdump: str, option: str, fatbin: str) -> str:
    """cuobjdump's output; its own directory goes first on PATH so that it finds the nvdisasm
    installed next to it."""
    env = dict(os.environ, PATH=os.path.dirname(cuobjdump) + os.pathsep + os.environ.get("PATH", ""))
    r = subprocess.run([cuobjdump, option, fatbin], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{cuobjdump} {option} {fatbin} failed (exit {r.returncode}): {r.stderr.strip()}\n"
                           f"  fix: if it cannot find nvdisasm, {CUOBJDUMP_FIX}")
    return r.stdout


@dataclass
class Function:
    """One function of one architecture's SASS."""
    name: str
    arch: str                       # "sm_90"
    opcodes: List[str] = field(default_factory=list)   # without modifiers, in program order
    registers: Optional[int] = None
    shared_bytes: Optional[int] = None   # static shared memory per block
    local_bytes: Optional[int] = None    # spills and local arrays per thread


_SECTION = re.compile(r"^Fatbin (elf|ptx) code:")
_ARCH = re.compile(r"^\s*arch = (sm_\w+)")
_CODE_FOR = re.compile(r"^\s*code for (sm_\w+)")
_FUNCTION = re.compile(r"^\s*Function : (\S+)")
# "/*0070*/   @!P0 FFMA.FTZ R2, R3, R4, R2 ;   /* 0x... */": the opcode after an optional predicate.
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")
_RESOURCE_FUNCTION = re.compile(r"^\s*Function (\S+):\s*$")
_RESOURCES = re.compile(r"REG:(\d+).*?SHARED:(\d+).*?LOCAL:(\d+)")


def parse_sass(text: str) -> Dict[str, Dict[str, Function]]:
    """cuobjdump --dump-sass output -> {arch: {function name: Function}}."""
    images: Dict[str, Dict[str, Function]] = {}
    arch, current = None, None
    for line in text.splitlines():
        m = _CODE_FOR.match(line)
        if m:
            arch, current = m.group(1), None
            images.setdefault(arch, {})
            continue
        m = _FUNCTION.match(line)
        if m and arch:
            current = images[arch].setdefault(m.group(1), Function(m.group(1), arch))
            continue
        m = _INSTRUCTION.match(line)
        if m and current is not None:
            current.opcodes.append(m.group(1))
    return images


def add_resources(images: Dict[str, Dict[str, Function]], text: str) -> None:
    """Fills registers / static shared / local bytes from cuobjdump --dump-resource-usage."""
    elf, arch, name = False, None, None
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            elf, arch, name = m.group(1) == "elf", None, None
            continue
        m = _ARCH.match(line)
        if m:
            arch = m.group(1)
            continue
        m = _RESOURCE_FUNCTION.match(line)
        if m:
            name = m.group(1)
            continue
        m = _RESOURCES.search(line)
        if m and elf and arch and name:
            f = images.setdefault(arch, {}).setdefault(name, Function(name, arch))
            f.registers, f.shared_bytes, f.local_bytes = (int(g) for g in m.groups())
            name = None


def parse_ptx_entries(text: str) -> Dict[str, set]:
    """cuobjdump --dump-ptx output -> {ptx arch ("sm_75" for compute_75): entry names}."""
    entries: Dict[str, set] = {}
    ptx, arch = False, None
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            ptx, arch = m.group(1) == "ptx", None
            continue
        m = _ARCH.match(line)
        if m and ptx:
            arch = m.group(1)
            entries.setdefault(arch, set())
            continue
        m = re.match(r"^\s*\.(?:visible\s+)?\.entry\s+(\w+)", line)
        if m and arch:
            entries[arch].add(m.group(1))
    return entries


def cubin_arch(data: bytes) -> Tuple[int, int]:
    """A CUDA cubin's (ELF) target architectures as its header records them: (e_flags' low byte,
    its third byte), both 61 for a cubin ptxas assembled for sm_61 (cuobjdump --dump-elf prints
    "sm=61, flags = 0x3d053d")."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not a 64-bit ELF cubin")
    flags = int.from_bytes(data[0x30:0x34], "little")
    return flags & 0xFF, (flags >> 16) & 0xFF


def cubin_entry_functions(data: bytes) -> Set[str]:
    """The kernels (global FUNC symbols marked as entries, st_other's STO_CUDA_ENTRY bit 0x10) of a
    64-bit little-endian ELF cubin, read from its symbol table: the same list as cuobjdump
    --dump-elf-symbols' ENTRY rows, also for architectures a newer cuobjdump no longer reads."""
    cubin_arch(data)  # a 64-bit ELF, or ValueError
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    # Elf64_Shdr: name, type, flags, addr, offset, size, link, info, addralign, entsize
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strings = sections[sec[6]][4]
        for off in range(sec[4], sec[4] + sec[5], sec[9]):
            st_name, st_info, st_other = struct.unpack_from("<IBB", data, off)
            if st_info & 0xF == 2 and st_info >> 4 == 1 and st_other & 0x10:  # STT_FUNC, STB_GLOBAL
                names.add(data[strings + st_name:data.index(b"\0", strings + st_name)].decode())
    return names


def forbidden_opcodes(f: Function) -> List[str]:
    return sorted({op for op in f.opcodes if op in FORBIDDEN_SASS})


def resource_table(images: Dict[str, Dict[str, Function]]) -> List[str]:
    """One line per (function, architecture): registers, static shared bytes, local bytes."""
    rows = [f"{'function':<40} {'arch':<7} {'regs':>5} {'shared':>7} {'local':>6}"]
    for arch in sorted(images, key=lambda a: int(re.sub(r"\D", "", a))):
        for name in sorted(images[arch]):
            f = images[arch][name]
            rows.append(f"{name:<40} {arch:<7} {f.registers if f.registers is not None else '?':>5} "
                        f"{f.shared_bytes if f.shared_bytes is not None else '?':>7} "
                        f"{f.local_bytes if f.local_bytes is not None else '?':>6}")
    return rows


# Lines the conftest prints in pytest's terminal summary ("CUDA kernels checked").
REPORT: List[str] = []
