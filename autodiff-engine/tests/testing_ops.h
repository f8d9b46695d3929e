// Private op schemas for the engine's tests, registered once under names no real op uses.
// They let the pass and planner tests build any graph shape (chains, branches, in-place
// writes, side effects, dense-input ops) without depending on which real ops exist yet.
#pragma once
#include <mutex>

#include "glassgrad/autodiff/autodiff.h"

namespace glassgrad {
namespace testing_ops {

inline TensorInfo f32(Shape s) { return {std::move(s), DType::Float32, Device::cpu()}; }

inline void register_all() {
  static std::once_flag once;
  std::call_once(once, [] {
    OpRegistry& r = OpRegistry::instance();
    {
      OpSchema s;  // y = f(x), any strides
      s.name = "TestUnary";
      s.inputs = {"x"};
      s.outputs = {"y"};
      s.elementwise = true;
      s.strided_inputs = true;
      s.infer = [](const ShapeContext& c) { return std::vector<TensorInfo>{c.in(0)}; };
      s.gradient = [](GradContext& c) {
        if (c.grad_output(0) != kNoValue) c.set_grad(0, c.emit("TestUnary", {c.grad_output(0)}));
      };
      r.add(std::move(s));
    }
    {
      OpSchema s;  // y = f(a, b), equal shapes
      s.name = "TestBinary";
      s.inputs = {"a", "b"};
      s.outputs = {"y"};
      s.elementwise = true;
      s.strided_inputs = true;
      s.infer = [](const ShapeContext& c) {
        if (c.in(0).shape != c.in(1).shape) {
          c.fail(ErrorMessage("shapes differ")
                     .detail("a: " + c.in(0).str())
                     .detail("b: " + c.in(1).str())
                     .fix("give both inputs one shape"));
        }
        return std::vector<TensorInfo>{c.in(0)};
      };
      s.gradient = [](GradContext& c) {
        if (c.grad_output(0) == kNoValue) return;
        for (int i = 0; i < 2; ++i) if (c.needs_grad(i)) c.set_grad(i, c.emit("TestUnary", {c.grad_output(0)}));
      };
      r.add(std::move(s));
    }
    {
      OpSchema s;  // y = f(x), but the kernel needs dense row-major input
      s.name = "TestDense";
      s.inputs = {"x"};
      s.outputs = {"y"};
      s.infer = [](const ShapeContext& c) { return std::vector<TensorInfo>{c.in(0)}; };
      r.add(std::move(s));
    }
    {
      OpSchema s;  // y of attribute `shape` computed from x (changes buffer sizes)
      s.name = "TestProject";
      s.inputs = {"x"};
      s.outputs = {"y"};
      s.infer = [](const ShapeContext& c) {
        TensorInfo t = c.in(0);
        t.shape = c.attrs().ints("shape");
        return std::vector<TensorInfo>{t};
      };
      r.add(std::move(s));
    }
    {
      OpSchema s;  // target <- f(target, value), written in place (like an optimizer update)
      s.name = "TestInplace";
      s.inputs = {"target", "value"};
      s.outputs = {"updated"};
      s.inplace = {{0, 0}};
      s.strided_inputs = true;
      s.infer = [](const ShapeContext& c) { return std::vector<TensorInfo>{c.in(0)}; };
      r.add(std::move(s));
    }
    {
      OpSchema s;  // like TestInplace, but the kernel needs dense inputs
      s.name = "TestInplaceDense";
      s.inputs = {"target", "value"};
      s.outputs = {"updated"};
      s.inplace = {{0, 0}};
      s.infer = [](const ShapeContext& c) { return std::vector<TensorInfo>{c.in(0)}; };
      r.add(std::move(s));
    }
    {
      OpSchema s;  // records something outside the graph (a log, a counter)
      s.name = "TestSideEffect";
      s.inputs = {"x"};
      s.outputs = {"token"};
      s.has_side_effects = true;
      s.strided_inputs = true;
      s.infer = [](const ShapeContext& c) {
        TensorInfo t = c.in(0);
        t.shape = {};
        return std::vector<TensorInfo>{t};
      };
      r.add(std::move(s));
    }
  });
}

}  // namespace testing_ops
}  // namespace glassgrad
