// glassgrad's runtime from C++: fit y = x W + b by gradient descent. The engine records the
// model and its loss as a graph and appends the backward graph (dloss/dW, dloss/db); compile()
// plans it once; the runtime's Executor runs the plan on the CPU every step with new values
// bound to W and b.
//
//   loss = sum((x W + b - y)^2) / N,   x [N, 3], W [3, 1], b [1, 1], y [N, 1]
//
// The data come from known weights, so the fit must recover them: the program checks that and
// exits 1 otherwise (ctest runs it; tools/run_tests.sh builds it against the installed runtime).
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "glassgrad/autodiff/autodiff.h"
#include "glassgrad/runtime/executor.h"
#include "glassgrad/runtime/parallel.h"
#include "glassgrad/runtime/tensor.h"

using namespace glassgrad;

namespace {

Tensor filled(const Shape& shape, const std::vector<float>& values) {
  Tensor t = Tensor::empty(shape, DType::Float32);
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

}  // namespace

int main() {
  const int64_t N = 64;
  const std::vector<float> w_true{1.5f, -2.0f, 0.5f};
  const float b_true = 0.25f;
  std::mt19937 rng(0);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> xs(N * 3), ys(N);
  for (int64_t n = 0; n < N; ++n) {
    ys[n] = b_true;
    for (int k = 0; k < 3; ++k) {
      xs[n * 3 + k] = normal(rng);
      ys[n] += xs[n * 3 + k] * w_true[k];
    }
  }

  try {
    const Device cpu = Device::cpu();
    Graph g;
    const ValueId W = g.add_leaf("W", {{3, 1}, DType::Float32, cpu}, ValueKind::Parameter, /*requires_grad=*/true);
    const ValueId b = g.add_leaf("b", {{1, 1}, DType::Float32, cpu}, ValueKind::Parameter, true);
    const ValueId x = g.add_leaf("x", {{N, 3}, DType::Float32, cpu}, ValueKind::Input);
    const ValueId y = g.add_leaf("y", {{N, 1}, DType::Float32, cpu}, ValueKind::Input);
    const ValueId pred = g.add("Add", {g.add("MatMul", {x, W}), b});
    const ValueId err = g.add("Sub", {pred, y});
    const ValueId sq = g.add("Sum", {g.add("Mul", {err, err})}, Attrs{{"dims", std::vector<int64_t>{}}, {"keepdim", false}});
    const ValueId loss = g.add("MulScalar", {sq}, Attrs{{"value", 1.0 / static_cast<double>(N)}});
    const std::vector<ValueId> grads = build_backward(g, loss, {W, b});

    CompileOptions opts;
    opts.outputs = {loss, grads[0], grads[1]};
    opts.workspace = Executor::workspace_fn();
    Executor exec(std::make_shared<const Plan>(compile(g, opts)));

    std::vector<float> w(3, 0.0f);
    float bias = 0.0f, last = 0.0f;
    const Tensor xt = filled({N, 3}, xs), yt = filled({N, 1}, ys);
    for (int step = 0; step < 300; ++step) {
      std::map<ValueId, Tensor> bound{{W, filled({3, 1}, w)}, {b, filled({1, 1}, {bias})}, {x, xt}, {y, yt}};
      std::vector<Tensor> inputs;
      for (ValueId v : exec.plan().input_values) inputs.push_back(bound.at(v));
      const std::vector<Tensor> out = exec.run(inputs);  // loss, dW, db
      last = out[0].data<float>()[0];
      for (int k = 0; k < 3; ++k) w[k] -= 0.1f * out[1].data<float>()[k];
      bias -= 0.1f * out[2].data<float>()[0];
      if (step % 100 == 0) std::printf("step %3d  loss %.6f\n", step, last);
    }
    std::printf("fitted W = [%.4f, %.4f, %.4f] (true [1.5, -2, 0.5]), b = %.4f (true 0.25), loss %.2e\n", w[0],
                w[1], w[2], bias, last);
    // The installed package's RUNPATH finds the OpenMP module; the runtime bounded libgomp's spin.
    std::printf("CPU kernels: %s\n", parallel_backend().c_str());
    bool ok = last < 1e-6f && std::fabs(bias - b_true) < 1e-3f;
    for (int k = 0; k < 3; ++k) ok = ok && std::fabs(w[k] - w_true[k]) < 1e-3f;
    if (!ok) {
      std::fprintf(stderr, "the fit did not recover the weights the data were made with\n");
      return 1;
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
