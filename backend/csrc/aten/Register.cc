// Registration only: which spyre kernel serves which operator. Bodies live
// in native/ (aten kernels) and DeviceOps.cc (torch.ops.spyre.*).
#include "DeviceOps.h"
#include "native/Emulate.h"
#include "native/Minimal.h"

#include <torch/library.h>

namespace spyre {
namespace {

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", TORCH_FN(native::empty_memory_format));
  m.impl("empty_strided", TORCH_FN(native::empty_strided));
  m.impl("as_strided", TORCH_FN(native::as_strided));
  m.impl("view", TORCH_FN(native::view));
  m.impl("_reshape_alias", TORCH_FN(native::reshape_alias));
  m.impl("unfold", TORCH_FN(native::unfold));
  m.impl("resize_", TORCH_FN(native::resize_));
  m.impl("_copy_from", TORCH_FN(native::copy_from));
  m.impl("_copy_from_and_resize", TORCH_FN(native::copy_from_and_resize));
  m.impl("_local_scalar_dense", TORCH_FN(native::local_scalar_dense));
  m.impl("set_.source_Storage", TORCH_FN(native::set_source_storage));
  m.impl("set_.source_Storage_storage_offset", TORCH_FN(native::set_source_storage_offset));
  m.impl("set_.source_Tensor", TORCH_FN(native::set_source_tensor));
  m.impl("set_", TORCH_FN(native::set_empty));
}

// Every other operator: the capability-checked emulating kernel.
TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&native::emulate>());
}

TORCH_LIBRARY(spyre, m) {
  m.def("capabilities() -> str", &ops::capabilities);
  m.def("device_count() -> int", &ops::device_count);
  m.def("current_device() -> int", &ops::current_device);
  m.def("set_device(int device) -> ()", &ops::set_device);
  m.def("synchronize(int device=-1) -> ()", &ops::synchronize);
  m.def("memory_stats(int device=-1) -> int[]", &ops::memory_stats);
  m.def("reset_peak_memory_stats(int device=-1) -> ()", &ops::reset_peak_memory_stats);
  m.def("manual_seed(int device, int seed) -> ()", &ops::manual_seed);
  m.def("initial_seed(int device=-1) -> int", &ops::initial_seed);
  m.def("seed(int device=-1) -> int", &ops::seed);
  m.def("get_rng_state(int device=-1) -> Tensor", &ops::get_rng_state);
  m.def("set_rng_state(int device, Tensor state) -> ()", &ops::set_rng_state);
  m.def("_debug_crash(int signal=6) -> ()", &ops::debug_crash);
}

} // namespace
} // namespace spyre
