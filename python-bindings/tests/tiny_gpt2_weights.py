"""Initial weights of the tiny GPT-2 the script ports train from the same start as PyTorch
(test_build_nanogpt_ports.py, test_llm_c_ports.py): 2 blocks, 32 wide, 64 positions, in
named_parameters order (the token embedding, tied to lm_head, once). LayerNorm scales near 1, the
rest small, each drawn in that order from one seeded generator."""
import numpy as np

# (a LayerNorm scale?, shape) of one block's parameters, in order
_BLOCK = [(True, (32,)), (False, (32,)), (False, (96, 32)), (False, (96,)), (False, (32, 32)), (False, (32,)),
          (True, (32,)), (False, (32,)), (False, (128, 32)), (False, (128,)), (False, (32, 128)), (False, (32,))]


def tiny_gpt2_weights(vocab: int, seed: int = 0) -> dict:
    """{'p00': wte [vocab, 32], 'p01': wpe [64, 32], ...}: float32 arrays for np.savez."""
    rng = np.random.default_rng(seed)
    shapes = [(False, (vocab, 32)), (False, (64, 32))] + _BLOCK + _BLOCK + [(True, (32,)), (False, (32,))]
    return {f"p{k:02d}": (1.0 + 0.1 * rng.standard_normal(shape) if scale else 0.02 * rng.standard_normal(shape))
            .astype(np.float32) for k, (scale, shape) in enumerate(shapes)}
