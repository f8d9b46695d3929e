// Launchers of the recurrent ops (kernels/cuda/recurrent.cu): RNNSequence, LSTMSequence,
// GRUSequence and their backward ops (the launch sequence is recurrent_plan.h's, shared with the
// emulated test), and PackSequence / PadPackedSequence. Every launch of a time loop is a plain
// kernel launch on the op's stream, so a compiled step captures the whole loop in its CUDA graph.
#include <algorithm>
#include <string>

#include "cuda/launch.h"
#include "recurrent_plan.h"
#include "registry.h"
#include "glassgrad/autodiff/errors.h"

namespace glassgrad {
namespace cuda {

// The CUDA functions launched here (functions.h): the larger tiles exist for float only, the row
// table upload has no dtype.
const FunctionNames kRecurrentFunctions({"gg_rnn_gemm_nt32x64", "gg_rnn_gemm_nn32x64", "gg_rnn_gemm_tn32x64",
                                         "gg_rnn_gemm_reduce", "gg_lstm_step", "gg_gru_step", "gg_rnn_step",
                                         "gg_lstm_step_back", "gg_gru_step_back", "gg_rnn_step_back", "gg_rnn_combine",
                                         "gg_rnn_colsum", "gg_rnn_copy"},
                                        float_dtypes());
const FunctionNames kRecurrentFixedNames({"gg_rnn_gemm_nt64x128_f32", "gg_rnn_gemm_nn64x128_f32",
                                          "gg_rnn_gemm_tn64x128_f32", "gg_rnn_gemm_nt128x128_f32",
                                          "gg_rnn_gemm_nn128x128_f32", "gg_rnn_gemm_tn128x128_f32",
                                          "gg_rnn_index_fill"});
const FunctionNames kPackFunctions({"gg_pack_gather", "gg_pack_scatter", "gg_pack_fill"},
                                   {DType::Float32, DType::Float64, DType::Int64, DType::UInt8});

namespace {

enum class Family { RNN, LSTM, GRU };

RecurrentCell cell_of(Family f, const Attrs& a) {
  if (f == Family::LSTM) return RecurrentCell::LSTM;
  if (f == Family::GRU) return RecurrentCell::GRU;
  return a.has("nonlinearity") && a.s("nonlinearity") == "relu" ? RecurrentCell::RNNReLU : RecurrentCell::RNNTanh;
}

const char* op_name(Family f, bool backward) {
  if (f == Family::LSTM) return backward ? "LSTMSequenceBackward" : "LSTMSequence";
  if (f == Family::GRU) return backward ? "GRUSequenceBackward" : "GRUSequence";
  return backward ? "RNNSequenceBackward" : "RNNSequence";
}

RecurrentGeometry geometry(RecurrentCell cell, const std::vector<TensorInfo>& in, const RecurrentInputs& pos,
                           const Attrs& a) {
  const Shape* hr = pos.w_hr >= 0 ? &in[static_cast<size_t>(pos.w_hr)].shape : nullptr;
  return RecurrentGeometry::from(cell, in[static_cast<size_t>(pos.x)].shape, in[static_cast<size_t>(pos.w_ih)].shape,
                                 in[static_cast<size_t>(pos.w_hh)].shape, hr, a);
}

std::vector<TensorInfo> infos(const std::vector<Tensor>& ts) {
  std::vector<TensorInfo> out;
  for (const Tensor& t : ts) out.push_back(t.info());
  return out;
}

// Threads the products aim at: 256 a multiprocessor (conv.cpp's base target).
int64_t target_of(const DeviceState& s) { return std::max<int64_t>(1, s.info.multiprocessors) * 256; }

// The launch sequence's launch(name, gx, gy, gz, threads, args...) on the op's stream.
struct Launcher {
  DeviceState& s;
  CUstream stream;
  const LaunchSite& site;
  template <typename... A>
  void operator()(const char* name, unsigned gx, unsigned gy, unsigned gz, unsigned threads, A... args) {
    launch(s, stream, name, Dim3{gx, gy, gz}, Dim3{threads}, site, args...);
  }
};

template <typename T>
T* ptr_or_null(const std::vector<Tensor>& ts, int i) {
  return i >= 0 && static_cast<size_t>(i) < ts.size() && ts[static_cast<size_t>(i)].numel() > 0
             ? ts[static_cast<size_t>(i)].data<T>()
             : nullptr;
}

void require_workspace(const KernelContext& c, const char* op, size_t need) {
  if (need > 0 && (c.workspace == nullptr || c.workspace_bytes < need)) {
    throw InternalError(std::string(op) + " (CUDA): the planned workspace holds " + std::to_string(c.workspace_bytes) +
                        " bytes, the launch sequence needs " + std::to_string(need));
  }
}

template <Family F>
size_t forward_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs& a) {
  const RecurrentCell cell = cell_of(F, a);
  const RecurrentGeometry g = geometry(cell, in, RecurrentInputs::forward(cell, static_cast<int>(in.size())), a);
  const DType dt = in[0].dtype;
  const int64_t target = target_of(state(out.at(0).device.index));
  return static_cast<size_t>(recurrent::forward_workspace_elems(g, dt == DType::Float32, target)) * dtype_size(dt);
}

template <typename T, Family F>
void run_forward(const KernelContext& c, const RecurrentGeometry& g, const RecurrentInputs& pos) {
  const char* op = op_name(F, false);
  LaunchSite site{op, &c};
  DeviceState& s = state_of(c);
  const int64_t target = target_of(s);
  require_workspace(c, op,
                    static_cast<size_t>(recurrent::forward_workspace_elems(g, sizeof(T) == 4, target)) * sizeof(T));
  recurrent::ForwardArgs<T> a{};
  a.x = ptr_or_null<T>(c.inputs, pos.x);
  a.w_ih = ptr_or_null<T>(c.inputs, pos.w_ih);
  a.w_hh = ptr_or_null<T>(c.inputs, pos.w_hh);
  a.h0 = ptr_or_null<T>(c.inputs, pos.h0);
  a.c0 = ptr_or_null<T>(c.inputs, pos.c0);
  a.b_ih = ptr_or_null<T>(c.inputs, pos.b_ih);
  a.b_hh = ptr_or_null<T>(c.inputs, pos.b_hh);
  a.w_hr = ptr_or_null<T>(c.inputs, pos.w_hr);
  a.y = ptr_or_null<T>(c.outputs, 0);
  a.hn = ptr_or_null<T>(c.outputs, 1);
  a.cn = F == Family::LSTM ? ptr_or_null<T>(c.outputs, 2) : nullptr;
  a.reserve = F == Family::RNN ? nullptr : ptr_or_null<T>(c.outputs, F == Family::LSTM ? 3 : 2);
  a.ws = static_cast<T*>(c.workspace);
  Launcher l{s, stream_of(s, &c), site};
  recurrent::run_forward<T>(l, g, target, int64_t(s.info.multiprocessors) * 32, a);
}

template <Family F>
void forward(const KernelContext& c) {
  require_int32_sizes(c, op_name(F, false));
  const RecurrentCell cell = cell_of(F, c.attrs);
  const RecurrentInputs pos = RecurrentInputs::forward(cell, static_cast<int>(c.inputs.size()));
  const RecurrentGeometry g = geometry(cell, infos(c.inputs), pos, c.attrs);
  if (c.inputs[0].dtype() == DType::Float64) {
    run_forward<double, F>(c, g, pos);
  } else {
    run_forward<float, F>(c, g, pos);
  }
}

template <Family F>
size_t backward_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs& a) {
  const RecurrentCell cell = cell_of(F, a);
  const RecurrentInputs pos = RecurrentInputs::backward(cell, static_cast<int>(in.size()));
  const RecurrentGeometry g = geometry(cell, in, pos, a);
  const DType dt = in[static_cast<size_t>(pos.x)].dtype;
  const int64_t target = target_of(state(out.at(0).device.index));
  return static_cast<size_t>(recurrent::backward_layout(g, dt == DType::Float32, target).total) * dtype_size(dt);
}

template <typename T, Family F>
void run_backward(const KernelContext& c, const RecurrentGeometry& g, const RecurrentInputs& pos) {
  const char* op = op_name(F, true);
  LaunchSite site{op, &c};
  DeviceState& s = state_of(c);
  const int64_t target = target_of(s);
  require_workspace(c, op, static_cast<size_t>(recurrent::backward_layout(g, sizeof(T) == 4, target).total) * sizeof(T));
  recurrent::BackwardArgs<T> a{};
  a.grad_y = ptr_or_null<T>(c.inputs, pos.grad_y);
  a.grad_hn = ptr_or_null<T>(c.inputs, pos.grad_hn);
  a.grad_cn = ptr_or_null<T>(c.inputs, pos.grad_cn);
  a.x = ptr_or_null<T>(c.inputs, pos.x);
  a.w_ih = ptr_or_null<T>(c.inputs, pos.w_ih);
  a.w_hh = ptr_or_null<T>(c.inputs, pos.w_hh);
  a.h0 = ptr_or_null<T>(c.inputs, pos.h0);
  a.c0 = ptr_or_null<T>(c.inputs, pos.c0);
  a.y = ptr_or_null<T>(c.inputs, pos.y);
  a.reserve = ptr_or_null<T>(c.inputs, pos.reserve);
  a.w_hr = ptr_or_null<T>(c.inputs, pos.w_hr);
  // Outputs: dx, dw_ih, dw_hh, dh0, [dc0], db (db_ih, db_hh), [dw_hr]; empty ones are not wanted.
  a.dx = ptr_or_null<T>(c.outputs, 0);
  a.dw_ih = ptr_or_null<T>(c.outputs, 1);
  a.dw_hh = ptr_or_null<T>(c.outputs, 2);
  a.dh0 = ptr_or_null<T>(c.outputs, 3);
  const int db = F == Family::LSTM ? 5 : 4;
  a.dc0 = F == Family::LSTM ? ptr_or_null<T>(c.outputs, 4) : nullptr;
  a.db_ih = ptr_or_null<T>(c.outputs, db);
  a.db_hh = F == Family::GRU ? ptr_or_null<T>(c.outputs, db + 1) : nullptr;
  a.dw_hr = F == Family::LSTM ? ptr_or_null<T>(c.outputs, db + 1) : nullptr;
  a.ws = static_cast<T*>(c.workspace);
  Launcher l{s, stream_of(s, &c), site};
  recurrent::run_backward<T>(l, g, target, int64_t(s.info.multiprocessors) * 32, a);
}

template <Family F>
void backward(const KernelContext& c) {
  require_int32_sizes(c, op_name(F, true));
  const RecurrentCell cell = cell_of(F, c.attrs);
  const RecurrentInputs pos = RecurrentInputs::backward(cell, static_cast<int>(c.inputs.size()));
  const RecurrentGeometry g = geometry(cell, infos(c.inputs), pos, c.attrs);
  if (recurrent::backward_layout(g, true, 1).total >= (int64_t(1) << 31)) {
    throw UnsupportedError(ErrorMessage(std::string(op_name(F, true)) + ": the backward's saved gradients of " +
                                        std::to_string(g.rows) + " rows exceed the CUDA kernels' 32-bit indexing")
                               .fix("train on shorter sequences or smaller batches")
                               .str());
  }
  if (c.inputs[static_cast<size_t>(pos.x)].dtype() == DType::Float64) {
    run_backward<double, F>(c, g, pos);
  } else {
    run_backward<float, F>(c, g, pos);
  }
}

// ---- packing ------------------------------------------------------------------------------------

// The packed rows' padded rows (recurrent_geometry.h's PackGeometry), uploaded into the
// workspace in chunks of kernel parameters, so that a CUDA graph replays the upload too.
size_t pack_workspace(const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out, const Attrs& a) {
  const Shape& packed = in[0].rank() == out[0].rank() - 1 ? in[0].shape : out[0].shape;
  return static_cast<size_t>(packed.empty() ? 0 : packed[0]) * sizeof(int32_t);
}

int32_t* upload_rows(const KernelContext& c, const PackGeometry& g, DeviceState& s, const LaunchSite& site) {
  int32_t* table = static_cast<int32_t*>(c.workspace);
  const int64_t rows = g.rows();
  require_workspace(c, site.op, static_cast<size_t>(rows) * sizeof(int32_t));
  GGIndexChunk chunk{};
  for (size_t t = 0; t < g.batch_sizes.size(); ++t) {
    for (int64_t j = 0; j < g.batch_sizes[t]; ++j) {
      chunk.value[chunk.count++] = static_cast<int32_t>(g.padded_row(static_cast<int64_t>(t), g.sequence(j)));
      const bool last = t + 1 == g.batch_sizes.size() && j + 1 == g.batch_sizes[t];
      if (chunk.count == GG_INDEX_CHUNK || last) {
        launch(s, stream_of(s, &c), "gg_rnn_index_fill", Dim3{blocks_for(s, chunk.count, 256)}, Dim3{256}, site, chunk,
               table);
        chunk.start += chunk.count;
        chunk.count = 0;
      }
    }
  }
  return table;
}

void pack(const KernelContext& c) {
  require_int32_sizes(c, "PackSequence");
  const PackGeometry g = PackGeometry::from(c.inputs[0].shape(), c.attrs);
  const Tensor& out = c.outputs[0];
  if (out.numel() == 0) return;
  LaunchSite site{"PackSequence", &c};
  DeviceState& s = state_of(c);
  const int32_t* table = upload_rows(c, g, s, site);
  launch(s, stream_of(s, &c), kname("gg_pack_gather", out.dtype()).c_str(), Dim3{blocks_for(s, out.numel(), 256)},
         Dim3{256}, site, g.rows(), g.feature, table, c.inputs[0].data_ptr(), out.data_ptr());
}

void unpack(const KernelContext& c) {
  require_int32_sizes(c, "PadPackedSequence");
  const Tensor& out = c.outputs[0];
  const PackGeometry g = PackGeometry::from(out.shape(), c.attrs);
  if (out.numel() == 0) return;
  LaunchSite site{"PadPackedSequence", &c};
  DeviceState& s = state_of(c);
  launch(s, stream_of(s, &c), kname("gg_pack_fill", out.dtype()).c_str(), Dim3{blocks_for(s, out.numel(), 256)},
         Dim3{256}, site, out.numel(), c.attrs.f("padding_value", 0.0), out.data_ptr());
  if (g.rows() * g.feature == 0) return;
  const int32_t* table = upload_rows(c, g, s, site);
  launch(s, stream_of(s, &c), kname("gg_pack_scatter", out.dtype()).c_str(),
         Dim3{blocks_for(s, g.rows() * g.feature, 256)}, Dim3{256}, site, g.rows(), g.feature, table,
         c.inputs[0].data_ptr(), out.data_ptr());
}

// The rows' kernels: the launchers with their workspaces.
constexpr KernelEntry rnn_sequence{forward<Family::RNN>, forward_workspace<Family::RNN>, nullptr};
constexpr KernelEntry lstm_sequence{forward<Family::LSTM>, forward_workspace<Family::LSTM>, nullptr};
constexpr KernelEntry gru_sequence{forward<Family::GRU>, forward_workspace<Family::GRU>, nullptr};
constexpr KernelEntry rnn_sequence_backward{backward<Family::RNN>, backward_workspace<Family::RNN>, nullptr};
constexpr KernelEntry lstm_sequence_backward{backward<Family::LSTM>, backward_workspace<Family::LSTM>, nullptr};
constexpr KernelEntry gru_sequence_backward{backward<Family::GRU>, backward_workspace<Family::GRU>, nullptr};
constexpr KernelEntry pack_sequence{pack, pack_workspace, nullptr};
constexpr KernelEntry pad_packed_sequence{unpack, pack_workspace, nullptr};

}  // namespace

void add_recurrent_kernels(std::vector<KernelDef>& k) {
#define GG_OP GG_ADD_CUDA_KERNEL
#include "glassgrad/autodiff/families/recurrent.def"
}

}  // namespace cuda
}  // namespace glassgrad
