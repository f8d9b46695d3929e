"""Module.type(dst_type): PyTorch applies Tensor.type(dst_type) to every parameter, buffer and
parameter gradient, floating or not (BatchNorm's integer num_batches_tracked becomes float64
under model.type(torch.DoubleTensor)); dst_type is a dtype, a typed tensor class
(torch.FloatTensor, torch.cuda.DoubleTensor) or its name, as Tensor.type takes."""
from __future__ import annotations


def type_all(module, dst_type) -> None:
    """Converts module's parameters, buffers and gradients (_module_apply.install: all or none)."""
    from ._module_apply import install
    from .module import Parameter, _leaf_for
    pairs, grads = [], []
    for t in list(module.parameters()) + list(module.buffers()):
        new = t.detach().type(dst_type)
        if new.dtype == t.dtype and new.device == t.device:
            continue
        if isinstance(t, Parameter) and t.requires_grad and not (new.dtype.is_floating_point or new.dtype.is_complex):
            raise RuntimeError(f"data set to a tensor that requires gradients must be floating point or complex "
                               f"dtype\n  Module.type({dst_type!r}): the parameter {list(t.shape)} {t.dtype} "
                               f"requires grad and would become {new.dtype}\n  fix: a floating type "
                               f"(model.type(torch.FloatTensor)), or requires_grad_(False) on the parameters first")
        pairs.append((t, _leaf_for(t, new._raw())))
        if isinstance(t, Parameter) and t.grad is not None:  # a buffer is a new tensor (install)
            grads.append((t, t.grad.type(dst_type)))
    install(module, pairs)
    for t, grad in grads:
        t.grad = grad
