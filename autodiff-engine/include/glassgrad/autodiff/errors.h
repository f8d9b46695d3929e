// Typed errors. Library code never aborts or exits: it throws one of these, and the Python
// bindings map each to a Python exception derived from glassgrad.GlassgradError (and from the
// matching builtin: ValueError, TypeError, MemoryError, IndexError, NotImplementedError).
//
// Messages are written for a beginner at midnight: the first line says what went wrong and
// where (layer and op), following lines list every shape/dtype/device involved, and the last
// line starts with "fix:" and holds something that can be copied. ErrorMessage builds that form.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace glassgrad {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};
class ValueError : public Error { using Error::Error; };         // bad argument value
class ShapeError : public ValueError { using ValueError::ValueError; };
class IndexError : public Error { using Error::Error; };         // out-of-range index/slice
class DTypeError : public Error { using Error::Error; };         // -> TypeError
class DeviceError : public Error { using Error::Error; };        // devices do not match
class OutOfMemoryError : public Error { using Error::Error; };   // -> MemoryError
class UnsupportedError : public Error { using Error::Error; };   // -> NotImplementedError
class CudaError : public Error { using Error::Error; };          // a CUDA driver call failed
class CommunicationError : public Error { using Error::Error; }; // a collective failed (rank, backend)
class InternalError : public Error { using Error::Error; };      // a glassgrad bug: please report
// What a tensor's state forbids, where PyTorch raises RuntimeError: an in-place write of a value
// backward still needs, a second backward through a freed graph, a view memory cannot give.
class StateError : public Error { using Error::Error; };

// Builds a multi-line message:
//   <headline>
//     <detail line>
//     ...
//     cause: <likely cause>
//     fix: <copyable fix>
class ErrorMessage {
 public:
  explicit ErrorMessage(std::string headline) : head_(std::move(headline)) {}
  ErrorMessage& detail(const std::string& line) { lines_.push_back(line); return *this; }
  ErrorMessage& cause(const std::string& text) { cause_ = text; return *this; }
  ErrorMessage& fix(const std::string& text) { fix_ = text; return *this; }
  std::string str() const;
  operator std::string() const { return str(); }

 private:
  std::string head_, cause_, fix_;
  std::vector<std::string> lines_;
};

}  // namespace glassgrad
