// The schema skeleton of a declared op (family.h): a row's columns, completed by its rules.
#include "glassgrad/autodiff/family.h"

#include <string>

#include "glassgrad/autodiff/errors.h"

namespace glassgrad {

const std::vector<DType>& dtypes_of(DTypeSet set) {
  static const std::vector<DType> sets[] = {
      {DType::Float32, DType::Float64},
      {DType::Float32, DType::Float64, DType::Int64},
      {DType::Float32, DType::Float64, DType::Int64, DType::UInt8},
      {DType::Float32, DType::Float64, DType::Int64, DType::UInt8, DType::Bool},
      {DType::Float32, DType::Float64, DType::Int64, DType::UInt8, DType::Bool, DType::Int8, DType::Int16,
       DType::Int32, DType::Float16, DType::BFloat16},
  };
  return sets[static_cast<int>(set)];
}

OpSchema declared_op(const char* name, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs, const char* formula, void (*rules)(OpSchema&)) {
  OpSchema s;
  s.name = name;
  std::vector<std::string> names;
  for (const std::string& in : inputs) {
    const size_t bracket = in.find('[');
    if (bracket == std::string::npos) {
      names.push_back(in);
      continue;
    }
    const std::string base = in.substr(0, bracket);
    const int count = std::stoi(in.substr(bracket + 1));
    for (int i = 0; i < count; ++i) names.push_back(base + std::to_string(i) + (i > 0 ? "?" : ""));
  }
  for (const std::string& in : names) {
    const bool optional = !in.empty() && in.back() == '?';
    if (optional && s.min_inputs < 0) s.min_inputs = static_cast<int>(s.inputs.size());
    if (!optional && s.min_inputs >= 0) {
      throw InternalError(std::string("op ") + name + ": required input '" + in + "' after an optional one");
    }
    s.inputs.push_back(optional ? in.substr(0, in.size() - 1) : in);
  }
  s.outputs = outputs;
  s.formula = formula;
  rules(s);
  return s;
}

}  // namespace glassgrad
