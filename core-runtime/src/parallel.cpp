// CPU parallelism through the OpenMP module (parallel_module.h), loaded at first use.
//
// Why a module: libgomp reads GOMP_SPINCOUNT once, in its ELF constructor. Its default spin
// (300000 iterations) makes a waiting thread burn its core between the back-to-back kernels of a
// plan, which on a busy 2-core machine made kernels ten times slower. Linking libgomp into the
// runtime would run that constructor before any code of ours; loading it here, after
// setenv(..., overwrite=0), bounds the spin for every program that uses the runtime (Python or
// C++), and a value the user set is kept. A libgomp the program loaded itself keeps its settings.
#include "glassgrad/runtime/parallel.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "parallel_module.h"

namespace glassgrad {

namespace {

struct Loaded {
  const GlassgradParallelApi* api = nullptr;  // nullptr: serial
  std::string description;
};

#ifdef GLASSGRAD_PARALLEL_MODULE
// The directory of the object this code was linked into: the Python extension (the module sits
// beside it in the package), or a program or library of the user's.
std::string directory_of_this_code() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&directory_of_this_code), &info) == 0 || info.dli_fname == nullptr) return "";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// The program's library search path, as the loader would walk it for a library the program
// itself needs: its RUNPATH (the installed CMake package sets one), LD_LIBRARY_PATH, the system
// directories. Read with dlinfo and tried as absolute paths, because a dlopen by bare name
// searches the RUNPATH of the object that *calls* dlopen, which is not the program when a
// sanitizer's dlopen interceptor stands in between.
std::vector<std::string> program_search_dirs() {
  std::vector<std::string> dirs;
  void* program = dlopen(nullptr, RTLD_LAZY);
  if (program == nullptr) return dirs;
  Dl_serinfo size{};
  if (dlinfo(program, RTLD_DI_SERINFOSIZE, &size) == 0 && size.dls_size >= sizeof(Dl_serinfo)) {
    std::vector<char> storage(size.dls_size);
    auto* info = reinterpret_cast<Dl_serinfo*>(storage.data());
    *info = size;  // dls_size and dls_cnt, as dlinfo(3) prescribes before RTLD_DI_SERINFO
    if (dlinfo(program, RTLD_DI_SERINFO, info) == 0) {
      for (unsigned i = 0; i < info->dls_cnt; ++i) dirs.emplace_back(info->dls_serpath[i].dls_name);
    }
  }
  dlclose(program);
  return dirs;
}

Loaded load_module() {
  setenv("GOMP_SPINCOUNT", kGompSpinCount, /*overwrite=*/0);
  const std::string name = GLASSGRAD_PARALLEL_MODULE;
  // Where to look, in order: the user's override, beside this code, then the program's search
  // path (program_search_dirs), then the loader's own search by name.
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("GLASSGRAD_PARALLEL_LIBRARY"); path != nullptr && *path != '\0')
    candidates.emplace_back(path);
  if (const std::string dir = directory_of_this_code(); !dir.empty()) candidates.push_back(dir + name);
  for (const std::string& dir : program_search_dirs()) candidates.push_back(dir + "/" + name);
  candidates.push_back(name);
  std::string tried;
  for (const std::string& path : candidates) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      // Absent from a searched directory is the usual case: listed only if nothing is found.
      tried += "\n    " + (why != nullptr ? std::string(why) : path);
      continue;
    }
    auto entry = reinterpret_cast<GlassgradParallelEntry>(dlsym(handle, GLASSGRAD_PARALLEL_ENTRY));
    const GlassgradParallelApi* api = entry != nullptr ? entry() : nullptr;
    if (api == nullptr || api->abi_version != GLASSGRAD_PARALLEL_ABI_VERSION) {
      tried += "\n    " + path + ": not a glassgrad OpenMP module of this version";
      dlclose(handle);
      continue;
    }
    const char* spin = std::getenv("GOMP_SPINCOUNT");
    return {api, "OpenMP (" + path + "), GOMP_SPINCOUNT=" + (spin != nullptr ? spin : "?")};
  }
  // Serial is correct, only slower: say so once instead of failing.
  std::fprintf(stderr,
               "glassgrad: CPU kernels run on one thread: the OpenMP module %s could not be loaded; tried:%s\n"
               "  fix: install it beside the program or the library that links the runtime (cmake --install "
               "puts it in the package's lib directory), or set GLASSGRAD_PARALLEL_LIBRARY=/path/to/%s\n",
               name.c_str(), tried.c_str(), name.c_str());
  return {nullptr, "serial (" + name + " not found)"};
}
#endif

const Loaded& loaded() {
#ifdef GLASSGRAD_PARALLEL_MODULE
  static const Loaded l = load_module();  // once, thread-safe (C++11 static initialization)
#else
  static const Loaded l{nullptr, "serial (built without OpenMP)"};
#endif
  return l;
}

std::once_flag g_default_once;
int g_default_threads = 1;

struct RunContext {
  int64_t n, chunks;
  const std::function<void(int64_t, int64_t)>* fn;
  std::exception_ptr error;
  std::mutex mu;
};

// Chunk c covers [n*c/chunks, n*(c+1)/chunks): every index once, sizes differing by at most one.
void run_chunk(void* p, int64_t c) {
  auto* ctx = static_cast<RunContext*>(p);
  const int64_t b = ctx->n * c / ctx->chunks, e = ctx->n * (c + 1) / ctx->chunks;
  try {
    (*ctx->fn)(b, e);
  } catch (...) {
    std::lock_guard<std::mutex> lock(ctx->mu);
    if (!ctx->error) ctx->error = std::current_exception();
  }
}

}  // namespace

std::string parallel_backend() { return loaded().description; }

int get_num_threads() {
  const GlassgradParallelApi* api = loaded().api;
  return api != nullptr ? api->max_threads() : 1;
}

void set_num_threads(int n) {
  const GlassgradParallelApi* api = loaded().api;
  if (api == nullptr) return;
  std::call_once(g_default_once, [api] { g_default_threads = api->max_threads(); });
  api->set_num_threads(n > 0 ? n : g_default_threads);
}

bool in_parallel_region() {
  const GlassgradParallelApi* api = loaded().api;
  return api != nullptr && api->in_parallel() != 0;
}

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const GlassgradParallelApi* api = loaded().api;
  const int threads = api != nullptr ? api->max_threads() : 1;
  if (threads <= 1 || n < 2 * grain || api->in_parallel() != 0) {
    fn(0, n);
    return;
  }
  RunContext ctx{n, std::min<int64_t>(threads, (n + grain - 1) / grain), &fn, nullptr, {}};
  api->run(ctx.chunks, &run_chunk, &ctx);
  if (ctx.error) std::rethrow_exception(ctx.error);
}

}  // namespace glassgrad
