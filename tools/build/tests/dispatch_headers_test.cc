// @pydeps//:torch_headers leaves out the per-dispatch-key kernel headers; a backend that
// calls another key's kernels directly opts in with @pydeps//:torch_dispatch_headers.
// This compiles and runs one such call, so the opt-in stays complete.
#include <ATen/CPUFunctions.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>

#include <cstdio>

int main() {
  at::Tensor a = at::ones({3});
  at::Tensor sum = at::cpu::add(a, a, 2.0);
  if (!sum.equal(at::full({3}, 3.0))) {
    std::fprintf(stderr, "at::cpu::add(1, 1, alpha=2) != 3\n");
    return 1;
  }
  return 0;
}
