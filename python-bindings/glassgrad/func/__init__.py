"""torch.func's names (docs/autograd.md, "torch.func"): functional_call, stack_module_state and
replace_all_batch_norm_modules_, the transforms grad, grad_and_value, vjp, jvp, linearize,
jacrev, jacfwd, hessian, and vmap (also glassgrad.vmap, as torch.vmap); functionalize and
debug_unwrap (_functionalize.py); rearrange, einops' patterns (_rearrange.py).

The transforms are built on glassgrad's reverse mode (autograd.grad, with create_graph=True
when they nest); jacfwd computes the same Jacobian by reverse mode. vmap runs the function once
per index of the mapped dimension and stacks the results: vmap's values, batch-size calls'
cost. The per-sample-gradients pattern runs as PyTorch writes it:

    params = {k: v.detach() for k, v in model.named_parameters()}
    def loss_of(params, x, y):
        return F.cross_entropy(functional_call(model, params, (x.unsqueeze(0),)), y.unsqueeze(0))
    per_sample = vmap(grad(loss_of), in_dims=(None, 0, 0))(params, data, targets)
"""
from ._functional_call import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._vmap import vmap
from ._functionalize import debug_unwrap, functionalize
from ._rearrange import rearrange

__all__ = ["debug_unwrap", "functionalize", "functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize",
           "rearrange", "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]
