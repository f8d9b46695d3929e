// Step observers: a list of callbacks composed into the executor's single StepObserver, so the
// anomaly mode and Python hooks can be on at the same time and the executor knows neither.
#include <memory>
#include <utility>
#include <vector>

#include "glassgrad/runtime/debug.h"

namespace glassgrad {
namespace debug {

namespace {

using ObserverList = std::vector<std::pair<int, StepObserver>>;

// Replaced, never mutated, so a callback that adds or removes observers cannot invalidate the
// list being walked.
std::shared_ptr<const ObserverList>& observers() {
  static auto* list = new std::shared_ptr<const ObserverList>(std::make_shared<ObserverList>());
  return *list;
}

int g_next_id = 0;
thread_local double g_last_step_seconds = 0.0;  // each thread's executor times its own steps
int g_anomaly_id = -1;

void install(std::shared_ptr<const ObserverList> list) {
  observers() = std::move(list);
  if (observers()->empty()) {
    set_step_observer(nullptr);
    return;
  }
  set_step_observer([](size_t index, const Plan& plan, const PlanStep& step, const std::vector<Tensor>& inputs,
                       const std::vector<Tensor>& outputs) {
    const std::shared_ptr<const ObserverList> snapshot = observers();
    // An observer may run a plan of its own (a Python hook computing with glassgrad), which sets
    // the step time again: each observer reads the time of the step it is called for.
    const double seconds = g_last_step_seconds;
    for (const auto& o : *snapshot) {
      g_last_step_seconds = seconds;
      o.second(index, plan, step, inputs, outputs);
    }
  });
}

}  // namespace

int add_step_observer(StepObserver observer) {
  auto list = std::make_shared<ObserverList>(*observers());
  const int id = g_next_id++;
  list->emplace_back(id, std::move(observer));
  install(std::move(list));
  return id;
}

void remove_step_observer(int id) {
  auto list = std::make_shared<ObserverList>();
  for (const auto& o : *observers()) {
    if (o.first != id) list->push_back(o);
  }
  install(std::move(list));
}

void set_detect_anomaly(bool on) {
  if (on && g_anomaly_id < 0) {
    g_anomaly_id = add_step_observer(&check_step_outputs);
  } else if (!on && g_anomaly_id >= 0) {
    remove_step_observer(g_anomaly_id);
    g_anomaly_id = -1;
  }
}

bool detect_anomaly() { return g_anomaly_id >= 0; }

double last_step_seconds() { return g_last_step_seconds; }

void set_last_step_seconds(double seconds) { g_last_step_seconds = seconds; }

}  // namespace debug
}  // namespace glassgrad
