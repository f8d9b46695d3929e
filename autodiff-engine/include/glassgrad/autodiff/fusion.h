// Fusion passes. Each rewrites a graph so that fewer, larger kernels run and fewer
// intermediates are stored. Every rewrite but the conv + BatchNorm fold for inference (below)
// computes exactly the same numbers (same operations in the same order), which the tests check
// against the unfused plan.
//
//   Elementwise chains: a connected group of elementwise nodes on float tensors of one output
//   shape, whose intermediates are read only inside the group, becomes one FusedElementwise
//   node running a small register program (see FusedProgram).
//
//   Activations: Conv2D (with or without bias), BatchNorm2DTrain or BatchNorm2DInference
//   followed by a ReLU become one node with attrs activation="relu" (fused_relu() reads it);
//   ReLUBackward(g, x) then reads the fused output instead of x (x > 0 exactly when
//   relu(x) > 0), so x need not be stored.
//
//   Max-pool backward through a ReLU: ReLUBackward(MaxPool2DBackward(g, x), y), where the pooling
//   read x = relu(y) (or x = y, the output of a Conv2D/BatchNorm with the ReLU fused), becomes
//   MaxPool2DBackward(g, x) with activation="relu": the kernel masks its own output with x > 0
//   (the same mask as y > 0), one pass over the pooling input's gradient instead of two.
//
//   Residual blocks (CPU plans): BatchNorm2DTrain whose output only an Add reads, with a
//   residual of the same shape, becomes BatchNorm2DTrain(x, gamma, beta, residual) writing
//   y = bn(x) + residual in its normalizing pass (and the activation pass then adds the block's
//   ReLU): one pass over the block's output instead of three (BatchNorm, Add, ReLU), and neither
//   the normalized nor the pre-ReLU tensor is stored.
//
//   BatchNorm state updates: BatchNorm2DTrain (not the residual form), the BatchNormUpdateStats
//   reading its mean and var, and the AddScalarInPlace of the same layer (num_batches_tracked:
//   the layer's one such node, an int64 scalar read by nothing else) become one
//   BatchNorm2DTrainUpdate, which writes the running statistics and the counter where it writes
//   mean and var: three launches a layer become one. The running statistics must be read by the
//   update alone (it now runs where the BatchNorm ran). Same arithmetic, same numbers.
//
//   Linear bias: MatMul(a, b) whose output only an Add reads, the Add's other input a bias [N]
//   (N the product's columns, same dtype and device; the Add's output the product's shape),
//   becomes MatMul(a, b, bias): the kernel adds bias[j] to each output as it stores it, one pass
//   over the product's output fewer (a GPT layer's four Linear layers: four passes over
//   [B*T, 384..1536] a step). The same sum, rounded the same way: the product's float result
//   plus the bias.
//
//   Dropout + residual: Dropout(x, seed) whose output only an Add reads, with an addend of the
//   same shape, dtype and device, becomes Dropout(x, seed, residual): y = dropout(x) + residual
//   in the masking pass (a transformer block's two residual Adds a layer). The product rounds
//   before the sum, as the unfused plan's did.
//
//   Pieces joined after a copying reshape: Concat along the last axis of values each made by a
//   Reshape that merges a piece's axes d.. into one (the gradients of q, k and v, [B, T, H, D]
//   views of attention's [B, H, T, D] gradients, merged to [B, T, H*D] and joined into
//   [B, T, 3*H*D] for the projection's gradient) becomes a Concat of the pieces themselves
//   along a new axis d ([B, T, 3, H, D], read through their strides), whose output is reshaped
//   to the old one as a view: each element is copied once instead of twice.
//
//   Conv + BatchNorm for inference: Conv2D followed by BatchNorm2DInference becomes one Conv2D
//   whose weights and bias are folded: w' = w * s, b' = (b - mean) * s + beta with
//   s = gamma / sqrt(var + eps) (a few per-channel nodes compute them from the parameters).
//   Rounding differs from the unfused plan by a few ulps.
//
// Fused nodes carry NodeMeta::role of the group's last node and a `fused` attribute naming what
// was fused; Plan::str prints it after the step's number among the fused steps, e.g. for
// (relu(a * b) * 0.5).sum():
//   #0   FusedElementwise        $0, $1 -> $2  {fused='Mul+ReLU+MulScalar', program=[2, 0, 1,
//        10, 2, -1, 14, 3, -1], scalars=[0, 0, 0.5]} [fusion 0: Mul+ReLU+MulScalar]
// The originals become dead and dead-code elimination removes them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "glassgrad/autodiff/elementwise.h"
#include "glassgrad/autodiff/graph.h"

namespace glassgrad {

// The register program of a FusedElementwise node. Registers 0..n_inputs-1 hold the inputs
// (broadcast to the output shape); each instruction writes a new register; the last register
// is the output. Encoded in attrs as "program" = [op, a, b, ...] triples (op: an ElementwiseOp
// code, a row of elementwise_ops.def whose output is a float) and "scalars" (one per
// instruction: the row's scalar attribute, 0 without one).
struct FusedInstruction {
  ElementwiseOp op;
  int a = -1, b = -1;   // source registers (b = -1 for unary ops)
  double scalar = 0;
};

struct FusedProgram {
  int n_inputs = 0;
  std::vector<FusedInstruction> code;
  static FusedProgram from_attrs(const Attrs& attrs, int n_inputs);
  void to_attrs(Attrs& attrs) const;
  std::string str() const;  // "r2 = Mul(r0, r1); r3 = ReLU(r2); r4 = MulScalar(r3, 0.5)"
};

// The attribute fuse_activations sets on Conv2D and BatchNorm2D*: "activation" = "relu" (the
// output is relu of the op's); absent or "none": no activation.
bool fused_relu(const Attrs& attrs);
bool has_fused_activation(const Attrs& attrs);  // set to anything but "none"

// Replaces elementwise chains by FusedElementwise nodes. `keep` are values that must stay
// visible (outputs of the plan); `remap` receives (old value -> new value) for those replaced.
// Returns the number of groups formed.
int fuse_elementwise(Graph& g, const std::vector<ValueId>& keep,
                     std::vector<std::pair<ValueId, ValueId>>* remap = nullptr);
int fuse_activations(Graph& g, const std::vector<ValueId>& keep,
                     std::vector<std::pair<ValueId, ValueId>>* remap = nullptr);
int fold_conv_batchnorm(Graph& g, const std::vector<ValueId>& keep,
                        std::vector<std::pair<ValueId, ValueId>>* remap = nullptr);
int fuse_batchnorm_residual(Graph& g, const std::vector<ValueId>& keep,
                            std::vector<std::pair<ValueId, ValueId>>* remap = nullptr);
int fuse_pool_relu_backward(Graph& g, const std::vector<ValueId>& keep,
                            std::vector<std::pair<ValueId, ValueId>>* remap = nullptr);
int fuse_batchnorm_update(Graph& g, const std::vector<ValueId>& keep,
                          std::vector<std::pair<ValueId, ValueId>>* remap = nullptr);
int fuse_matmul_bias(Graph& g, const std::vector<ValueId>& keep,
                     std::vector<std::pair<ValueId, ValueId>>* remap = nullptr);
int fuse_dropout_residual(Graph& g, const std::vector<ValueId>& keep,
                          std::vector<std::pair<ValueId, ValueId>>* remap = nullptr);
int concat_unmerged_pieces(Graph& g, const std::vector<ValueId>& keep,
                           std::vector<std::pair<ValueId, ValueId>>* remap = nullptr);
// All fusion passes in order (conv-BN folding, BN-residual, activations, max-pool backward
// through a ReLU, BN state updates, Linear biases, dropout + residual, Concat of reshaped pieces,
// elementwise chains);
// keep is updated to the values that replace kept ones.
int fuse_all(Graph& g, std::vector<ValueId>& keep);

}  // namespace glassgrad
