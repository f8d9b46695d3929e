"""Drives every OpSpec of the op table (op_specs/): forward against NumPy on odd sizes, on
non-contiguous views, and gradient rules against central finite differences in float64."""
import numpy as np
import pytest

import glassgrad
from glassgrad.testing import check_fused_instruction, check_gradient, fused_cases, run_kernel
from op_specs import SPECS, case_seed


def _cases(spec):
    return [(spec, dt, n) for dt in spec.dtypes for n in spec.sizes]


FORWARD = [c for s in SPECS for c in _cases(s)]


@pytest.mark.parametrize("spec,dtype,n", FORWARD, ids=[f"{s.id}-{d}-{n}" for s, d, n in FORWARD])
def test_forward_matches_numpy(spec, dtype, n):
    rng = np.random.default_rng(case_seed(spec.id, dtype, n))
    arrays = spec.inputs(rng, dtype, n)
    attrs = spec.attrs_for(n)
    want = spec.reference(arrays, attrs)
    variants = [True, False] if spec.noncontiguous else [True]
    for contiguous in variants:
        got = run_kernel(spec.op, arrays, attrs, contiguous=contiguous)
        idx = spec.outputs if spec.outputs is not None else range(len(want))
        for k in idx:
            w = np.asarray(want[k])
            assert got[k].shape == w.shape, f"{spec.id}: output {k} shape {got[k].shape} != {w.shape}"
            assert got[k].dtype == w.dtype, f"{spec.id}: output {k} dtype {got[k].dtype} != {w.dtype}"
            if w.dtype.kind == "f":
                np.testing.assert_allclose(got[k], w, rtol=spec.rtol[dtype], atol=spec.atol[dtype],
                                           err_msg=f"{spec.id} output {k} contiguous={contiguous}")
            else:
                np.testing.assert_array_equal(got[k], w, err_msg=f"{spec.id} output {k} contiguous={contiguous}")


GRADS = [(s, n) for s in SPECS if s.grad and "float64" in s.dtypes for n in s.grad_sizes]


@pytest.mark.parametrize("spec,n", GRADS, ids=[f"{s.id}-{n}" for s, n in GRADS])
def test_gradient_matches_finite_differences(spec, n):
    check_gradient(spec, np.random.default_rng(7), n)


def test_every_op_has_a_cpu_kernel():
    have = {op for op, dev, _ in glassgrad.kernels.registered() if dev == "cpu"}
    missing = sorted(set(glassgrad.kernels.ops()) - have)
    assert not missing, f"ops without a CPU kernel: {missing}"


def test_every_kernel_op_is_in_the_op_table():
    covered = {s.op for s in SPECS}
    have = {op for op, dev, _ in glassgrad.kernels.registered() if dev == "cpu"}
    # Ops exercised only through other tests (e.g. data movement between devices).
    exempt = {"ToDevice", "Full"}
    missing = sorted(have - covered - exempt)
    assert not missing, f"kernels without an op-table entry: {missing}"




FUSED = fused_cases(SPECS)


@pytest.mark.parametrize("spec,dtype", FUSED, ids=[f"{s.id}-{d}" for s, d in FUSED])
def test_fused_instruction_equals_its_op(spec, dtype):
    check_fused_instruction(spec, dtype)


def test_every_fusible_op_has_a_float_op_table_entry():
    fusible = {e["name"] for e in glassgrad.kernels.elementwise_ops() if e["fusible"]}
    missing = sorted(fusible - {s.op for s, _ in FUSED})
    assert not missing, f"fusible ops without a float op-table entry: {missing}"
