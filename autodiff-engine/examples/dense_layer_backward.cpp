// The autodiff engine from C++, without glassgrad's runtime: record a dense layer
//   y = relu(W x + b),  loss = sum(y)
// as a graph, ask the engine for dloss/dW and dloss/db (gradient rules append backward
// nodes; nothing is computed), compile, and print the forward + backward graph and the plan:
// the schedule of steps and the buffer table a runtime (yours or glassgrad's) would execute.
//
//   dense_layer_backward [plan.dot]   also writes the plan as Graphviz (dot -Tsvg plan.dot)
//
// Shapes: W [4, 3] parameter, x [3, 2] input (two column vectors), b [4, 1] parameter,
// broadcast over the columns.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "glassgrad/autodiff/autodiff.h"

using namespace glassgrad;

int main(int argc, char** argv) {
  // The ops used here. If this build of the engine lacks one, say so and exit with 77
  // (ctest's "skipped") rather than failing with an unknown-op error.
  std::vector<std::string> missing;
  for (const char* op : {"MatMul", "Add", "ReLU", "Sum"}) {
    if (!OpRegistry::instance().find(op)) missing.push_back(op);
  }
  if (!missing.empty()) {
    std::cerr << "this build of the glassgrad autodiff engine lacks the op(s):";
    for (const auto& m : missing) std::cerr << " " << m;
    std::cerr << "\n";
    return 77;
  }

  try {
    const Device cpu = Device::cpu();
    Graph g;
    const ValueId W = g.add_leaf("W", {{4, 3}, DType::Float32, cpu}, ValueKind::Parameter, /*requires_grad=*/true);
    const ValueId b = g.add_leaf("b", {{4, 1}, DType::Float32, cpu}, ValueKind::Parameter, true);
    const ValueId x = g.add_leaf("x", {{3, 2}, DType::Float32, cpu}, ValueKind::Input);

    NodeMeta fc;
    fc.scope = "fc";  // the layer name every error and printout carries
    const ValueId Wx = g.add("MatMul", {W, x}, {}, fc);     // [4, 2]
    const ValueId z = g.add("Add", {Wx, b}, {}, fc);         // [4, 2] + [4, 1] -> [4, 2]
    const ValueId y = g.add("ReLU", {z}, {}, fc);
    NodeMeta head;
    head.scope = "loss";
    const ValueId loss = g.add("Sum", {y}, Attrs{{"dims", std::vector<int64_t>{}}, {"keepdim", false}}, head);
    g.set_name(loss, "loss");

    const std::vector<ValueId> grads = build_backward(g, loss, {W, b});
    const ValueId dW = grads[0], db = grads[1];
    if (dW == kNoValue || db == kNoValue) {
      std::cerr << "expected gradients for W and b\n";
      return 1;
    }
    g.set_name(dW, "dW");
    g.set_name(db, "db");
    if (g.value(dW).info.shape != g.value(W).info.shape || g.value(db).info.shape != g.value(b).info.shape) {
      std::cerr << "gradient shapes differ from their parameters: dW " << shape_str(g.value(dW).info.shape)
                << ", db " << shape_str(g.value(db).info.shape) << "\n";
      return 1;
    }

    std::cout << "== forward + backward graph (" << g.num_nodes() << " nodes)\n" << g.str() << "\n";

    CompileOptions opts;
    opts.outputs = {loss, dW, db};
    const Plan plan = compile(g, opts);
    std::cout << "== backward schedule and buffers\n" << plan.str() << "\n";
    std::cout << "inputs to bind:";
    for (size_t i = 0; i < plan.input_values.size(); ++i) std::cout << " " << g.value_str(plan.input_values[i]);
    std::cout << "\noutputs:";
    for (ValueId v : plan.output_values) std::cout << " " << g.value_str(v);
    std::cout << "\npredicted peak memory: " << format_bytes(plan.predicted_peak_bytes()) << "\n";

    if (argc > 1) {
      std::ofstream(argv[1]) << plan.dot();
      std::cout << "wrote " << argv[1] << " (render with: dot -Tsvg " << argv[1] << " -o plan.svg)\n";
    }
    return 0;
  } catch (const Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
