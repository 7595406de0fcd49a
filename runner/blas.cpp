// BLAS detection and its thread count (runner/blas.h).
#include "runner/blas.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>

namespace ss::runner {

namespace {
template <class F>
F symbol(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_DEFAULT, name));
}
}  // namespace

std::string BlasInfo::toString() const { return library.empty() ? name : name + " (" + library + ")"; }

BlasInfo detectBlas() {
  BlasInfo info;
  if (void* gemm = ::dlsym(RTLD_DEFAULT, "sgemm_")) {
    Dl_info dl{};
    if (::dladdr(gemm, &dl) && dl.dli_fname) {
      char real[PATH_MAX];
      info.library = ::realpath(dl.dli_fname, real) ? real : dl.dli_fname;
    }
  }
  if (auto config = symbol<char* (*)()>("openblas_get_config")) {
    info.name = config();  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..."
    if (info.name.rfind("OpenBLAS", 0) != 0) info.name = "OpenBLAS " + info.name;
    if (auto threads = symbol<int (*)()>("openblas_get_num_threads")) info.threads = threads();
    info.optimized = true;
  } else if (auto version = symbol<const char* (*)()>("bli_info_get_version_str")) {
    info.name = std::string("BLIS ") + version();
    if (auto threads = symbol<long (*)()>("bli_thread_get_num_threads")) info.threads = static_cast<int>(threads());
    info.optimized = true;
  } else if (info.library.find("/blas/") != std::string::npos) {
    info.name = "reference BLAS (netlib)";
  } else {
    info.name = info.library.empty() ? "unknown BLAS" : info.library.substr(info.library.find_last_of('/') + 1);
  }
  if (info.threads < 1) info.threads = 1;
  return info;
}

void setBlasThreads(int n) {
  if (n < 1) n = 1;
  if (auto set = symbol<void (*)(int)>("openblas_set_num_threads")) set(n);
  if (auto set = symbol<void (*)(long)>("bli_thread_set_num_threads")) set(n);
}

}  // namespace ss::runner
