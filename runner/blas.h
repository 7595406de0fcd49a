#pragma once
// Which BLAS LibTorch's products run on, and its thread count (plain C++: dlsym/dladdr, no Torch headers).
//
// Contract: detectBlas() finds the library that the process's `sgemm_` symbol resolves to (dladdr, then
// realpath through Debian's libblas.so.3 alternative) and names it: OpenBLAS (openblas_get_config), BLIS
// (bli_info_get_version_str), else "reference BLAS (netlib)" when the file lies under .../blas/, else the file
// name. setBlasThreads() sets OpenBLAS's or BLIS's thread count (a no-op for a single-threaded BLAS).
#include <string>

namespace ss::runner {

struct BlasInfo {
  std::string name;      // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
  std::string library;   // "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"
  int threads = 1;       // threads per call (1 for netlib)
  bool optimized = false;  // OpenBLAS or BLIS (false: netlib's reference BLAS, ~30x slower products)
  std::string toString() const;  // "OpenBLAS 0.3.21 ... (/usr/lib/.../libblas.so.3)"
};

BlasInfo detectBlas();
void setBlasThreads(int n);

}  // namespace ss::runner
