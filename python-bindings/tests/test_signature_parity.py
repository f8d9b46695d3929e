"""Every public name glassgrad shares with PyTorch takes PyTorch's parameters: torch.* (as
glassgrad.torch gives them to a port), Tensor methods, the torch.nn layers' __init__ and forward,
torch.nn.functional, torch.linalg/special (torch.fft: glassgrad has none yet), torch.optim,
torch.optim.lr_scheduler and torch.utils.data, and the methods of those classes (Module.cuda,
register_buffer, Optimizer.zero_grad, ...), each compared with torch 2.14's parameter names,
order, kinds and defaults by signature_survey.py (torch's Python signatures; for its C functions
the operator schemas its binding is made from, or the documented text where there is none).

Every difference found is fixed or listed in ALLOWED below with the reason, word for word: a
new difference, or a listed one that changed or went away, fails the test (the list only
shrinks). `PYTHONPATH=python-bindings python3 python-bindings/tests/signature_survey.py` prints
the differences. Skipped without torch."""
import pytest

torch = pytest.importorskip("torch")
import signature_survey  # noqa: E402  (imports torch's internals: after the skip)

ALLOWED = {
    # torch's schemas say reduction=Mean (1), but its Python parser reads that default with atol
    # ("Mean" -> 0): called without one, these return the unreduced loss, and glassgrad's do too
    'torch.binary_cross_entropy_with_logits': "reduction defaults to 0, torch's to 1",
    'torch.cosine_embedding_loss': "reduction defaults to 0, torch's to 1",
    'torch.ctc_loss': "reduction defaults to 0, torch's to 1 or 1",
    'torch.hinge_embedding_loss': "reduction defaults to 0, torch's to 1",
    'torch.kl_div': "reduction defaults to 0, torch's to 1",
    'torch.margin_ranking_loss': "reduction defaults to 0, torch's to 1",
    'torch.triplet_margin_loss': "reduction defaults to 0, torch's to 1",
    # torch.wait's C binding names its one parameter arg0 (torch.jit.wait's Python names it future)
    'torch.wait': "no parameter arg0; positional 0 is future, torch's is arg0",
    # torch's documentation names these parameters (A, B, L, x, tau, src, indices_or_sections); its C
    # binding takes another name (input, input2, other, sections). glassgrad takes the documented
    # name, which scripts written from the documentation use (positional calls agree).
    'linalg.cholesky': "no parameter input; positional 0 is A, torch's is input",
    'linalg.cholesky_ex': "no parameter input; positional 0 is A, torch's is input",
    'linalg.cond': "no parameter input; positional 0 is A, torch's is input",
    'linalg.eig': "no parameter input; positional 0 is A, torch's is input",
    'linalg.eigh': "no parameter input; positional 0 is A, torch's is input",
    'linalg.eigvals': "no parameter input; positional 0 is A, torch's is input",
    'linalg.eigvalsh': "no parameter input; positional 0 is A, torch's is input",
    'linalg.householder_product': "no parameter input; positional 0 is A, torch's is input",
    'linalg.ldl_factor': "no parameter input; positional 0 is A, torch's is input",
    'linalg.ldl_factor_ex': "no parameter input; positional 0 is A, torch's is input",
    'linalg.lstsq': "no parameter b; no parameter input; positional 0 is A, torch's is input; positional 1 is B, torch's is b",
    'linalg.matrix_exp': "no parameter input; positional 0 is A, torch's is input",
    'linalg.matrix_norm': "no parameter input; positional 0 is A, torch's is input",
    'linalg.matrix_power': "no parameter input; positional 0 is A, torch's is input",
    'linalg.solve_triangular': "no parameter input; positional 0 is A, torch's is input",
    'linalg.tensorinv': "no parameter input; positional 0 is A, torch's is input",
    'linalg.tensorsolve': "no parameter input; no parameter other; positional 0 is A, torch's is input; positional 1 is B, torch's is other",
    'linalg.vector_norm': "no parameter input; positional 0 is x, torch's is input",
    'torch.cholesky_inverse': "no parameter input; positional 0 is L, torch's is input",
    'torch.cholesky_solve': "no parameter input; no parameter input2; positional 0 is B, torch's is input; positional 1 is L, torch's is input2",
    'Tensor.cholesky_solve': "no parameter input2; positional 0 is L, torch's is input2",
    'torch.orgqr': "no parameter input2; positional 1 is tau, torch's is input2",
    'Tensor.orgqr': "no parameter input2; positional 0 is tau, torch's is input2",
    'torch.matrix_exp': "no parameter input; positional 0 is A, torch's is input",
    'Tensor.copy_': 'no parameter other',
    'torch.tensor_split': "positional 1 is indices_or_sections, torch's is indices/sections/tensor_indices_or_sections",
    'Tensor.tensor_split': "positional 0 is indices_or_sections, torch's is indices/sections/tensor_indices_or_sections",
    'torch.dsplit': "no parameter indices; no parameter sections; positional 1 is indices_or_sections, torch's is indices/sections",
    'torch.hsplit': "no parameter indices; no parameter sections; positional 1 is indices_or_sections, torch's is indices/sections",
    'torch.vsplit': "no parameter indices; no parameter sections; positional 1 is indices_or_sections, torch's is indices/sections",
    # Tensor.where's documented text names its second parameter y; torch's binding takes other, as
    # glassgrad does (x.where(c, other=y)).
    'Tensor.where': "no parameter y; positional 1 is other, torch's is y",
    # Deprecated overloads glassgrad does not take: add/sub(input, alpha, other) with a positional
    # alpha; std/var's unbiased=None reads as torch's True unless correction is given (the same
    # results).
    'torch.add': "takes 2 positional arguments, torch's (input, other, alpha) 3; takes 2 positional arguments, torch's (input, other, alpha, out) 3",
    'torch.sub': "takes 2 positional arguments, torch's (input, other, alpha) 3; takes 2 positional arguments, torch's (input, other, alpha, out) 3",
    'torch.subtract': "takes 2 positional arguments, torch's (input, other, alpha) 3",
    'Tensor.add': "takes 1 positional arguments, torch's (other, alpha) 2",
    'Tensor.add_': "takes 1 positional arguments, torch's (other, alpha) 2",
    'Tensor.sub': "takes 1 positional arguments, torch's (other, alpha) 2",
    'Tensor.sub_': "takes 1 positional arguments, torch's (other, alpha) 2",
    'Tensor.subtract': "takes 1 positional arguments, torch's (other, alpha) 2",
    'Tensor.subtract_': "takes 1 positional arguments, torch's (other, alpha) 2",
    'linalg.matrix_rank': "no parameter input; positional 0 is A, torch's is input",
    'linalg.pinv': "no parameter input; positional 0 is A, torch's is input",
    'torch.std': "unbiased defaults to None, torch's to True or True or True",
    'torch.var': "unbiased defaults to None, torch's to True or True or True",
    'torch.std_mean': "unbiased defaults to None, torch's to True or True",
    'torch.var_mean': "unbiased defaults to None, torch's to True or True",
    'Tensor.std': "unbiased defaults to None, torch's to True or True",
    'Tensor.var': "unbiased defaults to None, torch's to True or True",
    # Overloads one Python signature cannot spell: isin's Scalar forms (element=, test_element=),
    # result_type's (glassgrad takes *operands), bernoulli's p (None: the input's values are the
    # probabilities, torch's first overload) and normal's functional form.
    'torch.isin': 'no parameter element; no parameter test_element',
    'torch.result_type': 'no parameter other; no parameter scalar; no parameter tensor',
    'torch.bernoulli': "p defaults to None, torch's to 0.5",
    'torch.normal': 'no parameter input; no parameter pin_memory',
    # Not supported: mm/bmm/addmm/baddbmm's out_dtype (torch runs it on CUDA only), and sparse
    # layouts beyond COO (to_dense's masked_grad, to_sparse's
    # layouts, sparse_coo_tensor's is_coalesced).
    'torch.mm': "no parameter out_dtype; takes 2 positional arguments, torch's (input, mat2, out_dtype) 3; takes 2 positional arguments, torch's (input, mat2, out_dtype, out) 3",
    'torch.bmm': "no parameter out_dtype; takes 2 positional arguments, torch's (input, mat2, out_dtype) 3; takes 2 positional arguments, torch's (input, mat2, out_dtype, out) 3",
    'torch.addmm': "no parameter out_dtype; takes 3 positional arguments, torch's (input, mat1, mat2, out_dtype, beta, alpha) 4; takes 3 positional arguments, torch's (input, mat1, mat2, out_dtype, beta, alpha, out) 4",
    'torch.baddbmm': "no parameter out_dtype; takes 3 positional arguments, torch's (input, batch1, batch2, out_dtype, beta, alpha) 4; takes 3 positional arguments, torch's (input, batch1, batch2, out_dtype, beta, alpha, out) 4",
    'Tensor.mm': "no parameter out_dtype; takes 1 positional arguments, torch's (mat2, out_dtype) 2",
    'Tensor.bmm': "no parameter out_dtype; takes 1 positional arguments, torch's (mat2, out_dtype) 2",
    'Tensor.addmm': "no parameter out_dtype; takes 2 positional arguments, torch's (mat1, mat2, out_dtype, beta, alpha) 3",
    'Tensor.baddbmm': "no parameter out_dtype; takes 2 positional arguments, torch's (batch1, batch2, out_dtype, beta, alpha) 3",
    'Tensor.to_dense': "no parameter dtype; no parameter masked_grad; takes 0 positional arguments, torch's (dtype, masked_grad) 1",
    'Tensor.to_sparse': "no parameter blocksize; no parameter dense_dim; no parameter layout; no parameter sparse_dim; takes 0 positional arguments, torch's (sparse_dim) 1",
    'torch.sparse_coo_tensor': 'no parameter is_coalesced; no parameter layout; no parameter pin_memory',
    # torch's internals or spellings a script does not use: F.elu_'s scale/input_scale and
    # F.rrelu_'s generator (private arguments of the C functions), torch.dropout(input, p, train)
    # (glassgrad.dropout is F.dropout: positional calls agree), the positional-only parameters
    # of is_tensor/is_storage/typename/set_default_dtype/set_default_tensor_type/set_num_threads/
    # set_num_interop_threads (glassgrad also takes the keyword), compile's fn, save's format, einsum(equation,
    # *operands), norm's dtype before out and tensordot's keyword-only out, trapezoid's dx=None
    # (1 when x is not given), Sampler's data_source, random_split's generator=None (the default
    # generator).
    'F.elu_': "no parameter input_scale; no parameter scale; takes 2 positional arguments, torch's (input, alpha, scale, input_scale) 4",
    'F.rrelu_': "no parameter generator; takes 4 positional arguments, torch's (input, lower, upper, training, generator) 5",
    'torch.dropout': "no parameter train; positional 2 is training, torch's is train",
    'torch.is_tensor': "obj is positional or keyword, torch's is positional-only",
    'torch.is_storage': "obj is positional or keyword, torch's is positional-only",
    'torch.typename': "obj is positional or keyword, torch's is positional-only",
    'torch.set_default_dtype': "d is positional or keyword, torch's is positional-only",
    'torch.set_default_tensor_type': "t is positional or keyword, torch's is positional-only",
    'torch.set_num_threads': "no parameter int; positional 0 is n, torch's is int",
    'torch.set_num_interop_threads': "no parameter int; positional 0 is num, torch's is int",
    'torch.compile': "parameter 0 is fn, torch's is model",
    'torch.save': "parameter 2 is format, torch's is pickle_module",
    'torch.einsum': "parameter 0 is equation, torch's is args; extra parameter operands must be keyword-only",
    'torch.norm': "parameter 4 is dtype, torch's is out",
    'torch.tensordot': "out is keyword-only, torch's is positional or keyword",
    'torch.trapezoid': "dx defaults to None, torch's to 1",
    'torch.trapz': "dx defaults to None, torch's to 1.0",
    'torch.cumulative_trapezoid': "dx defaults to None, torch's to 1",
    'utils.data.Sampler': 'extra parameter data_source must be keyword-only',
    'utils.data.random_split': "generator defaults to None, torch's to <torch._C.Generator object>",
    # glassgrad gives a default where torch requires the argument (a call torch takes works).
    'nn.Module.to_empty': "device defaults to None, torch's is required",
    'optim.LBFGS.step': "closure defaults to None, torch's is required",
    # Tensor methods given as torch.* functions (torch.detach(x), torch.is_signed(x)): the tensor
    # is their self, so torch's input= keyword is not taken (positional calls agree).
    'torch.detach': "no parameter input; takes 0 positional arguments, torch's (input) 1",
    'torch.is_conj': "no parameter input; takes 0 positional arguments, torch's (input) 1",
    'torch.is_neg': "no parameter input; takes 0 positional arguments, torch's (input) 1",
    'torch.is_same_size': "no parameter input; positional 0 is other, torch's is input; takes 1 positional arguments, torch's (input, other) 2",
    'torch.is_signed': "no parameter input; takes 0 positional arguments, torch's (input) 1",
    'torch.resolve_conj': "no parameter input; takes 0 positional arguments, torch's (input) 1",
    'torch.resolve_neg': "no parameter input; takes 0 positional arguments, torch's (input) 1",
    'torch.split_with_sizes': "no parameter input; positional 0 is split_sizes, torch's is input; positional 1 is dim, torch's is split_sizes; takes 2 positional arguments, torch's (input, split_sizes, dim) 3",
    # The lazy layers' forward dispatches (input, *args, **kwargs) to the layer they become, whose
    # forward has torch's parameters.
    'nn.LazyBatchNorm1d.forward': 'extra parameter args must be keyword-only',
    'nn.LazyBatchNorm2d.forward': 'extra parameter args must be keyword-only',
    'nn.LazyBatchNorm3d.forward': 'extra parameter args must be keyword-only',
    'nn.LazyConv1d.forward': 'extra parameter args must be keyword-only',
    'nn.LazyConv2d.forward': 'extra parameter args must be keyword-only',
    'nn.LazyConv3d.forward': 'extra parameter args must be keyword-only',
    'nn.LazyConvTranspose1d.forward': "parameter 1 is args, torch's is output_size",
    'nn.LazyConvTranspose2d.forward': "parameter 1 is args, torch's is output_size",
    'nn.LazyConvTranspose3d.forward': "parameter 1 is args, torch's is output_size",
    'nn.LazyInstanceNorm1d.forward': 'extra parameter args must be keyword-only',
    'nn.LazyInstanceNorm2d.forward': 'extra parameter args must be keyword-only',
    'nn.LazyInstanceNorm3d.forward': 'extra parameter args must be keyword-only',
    'nn.LazyLinear.forward': 'extra parameter args must be keyword-only',
    # LBFGS's maximize is new in torch 2.14; glassgrad follows 2.11-2.13 (tests/torch_versions.py).
}


def _survey():
    found, hows = signature_survey.survey()
    return {k: "; ".join(v) for k, v in found.items()}, hows


FOUND, HOWS = _survey()


def test_the_survey_covers_every_part_of_the_api():
    spaces = {label.split(".")[0] for label in HOWS}
    assert {"torch", "Tensor", "nn", "F", "linalg", "special", "optim", "lr_scheduler", "utils"} <= spaces
    assert sum(1 for label in HOWS if label.endswith(".forward")) > 100  # the layers' forward methods
    assert {"nn.Module.cuda", "nn.Module.register_buffer", "optim.Optimizer.zero_grad"} <= set(HOWS)
    assert len(HOWS) > 1400
    # the C functions are compared through their schemas (else their documented text), not skipped
    assert sum(1 for how in HOWS.values() if how == "schema") > 800
    assert sorted(label for label, how in HOWS.items() if how == "none") == sorted(SKIPPED)


# torch C functions with neither an operator schema nor a documented signature: not compared
SKIPPED = ["Tensor.map2_", "Tensor.new", "torch.is_anomaly_check_nan_enabled", "torch.is_anomaly_enabled",
           "torch.is_vulkan_available", "torch.set_anomaly_enabled", "torch.spmm"] + [f"torch.{name}" for name in (
    "clear_autocast_cache", "get_autocast_cpu_dtype", "get_autocast_dtype", "get_autocast_gpu_dtype",
    "is_autocast_cache_enabled", "is_autocast_cpu_enabled", "is_autocast_enabled", "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype", "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled",
    "set_autocast_gpu_dtype")]


def test_no_new_difference():
    new = {label: FOUND[label] for label in sorted(set(FOUND) - set(ALLOWED))}
    assert not new, "".join(f"\n  {label}: {problems}" for label, problems in new.items()) + \
        "\n  fix: take torch's parameter (name, place, default), or add it to ALLOWED with the reason"


@pytest.mark.parametrize("label", sorted(ALLOWED))
def test_allowed_difference_is_still_the_same(label):
    assert FOUND.get(label) == ALLOWED[label], (
        f"{label} now differs as {FOUND.get(label)!r}: update its ALLOWED entry (or drop it, when the "
        f"difference is gone)")


def test_reported_keyword_calls():
    # the reported misses, by name: a layer's input=, the factories' pin_memory=, out= on aliases
    assert "nn.Linear.forward" in HOWS and "nn.Linear.forward" not in FOUND
    for label in ("torch.zeros", "torch.tensor", "torch.arccos", "Tensor.float", "torch.randint", "linalg.norm"):
        assert label in HOWS and label not in FOUND, FOUND.get(label)
