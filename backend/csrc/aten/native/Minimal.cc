#include "Minimal.h"

#include "../../runtime/SpyreAllocator.h"
#include "../../runtime/SpyreDevice.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/from_blob.h>
#include <ATen/EmptyTensor.h>
#include <ATen/ops/_local_scalar_dense_native.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/resize_native.h>
#include <ATen/ops/set_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/DeviceGuard.h>

namespace spyre::native {
namespace {

const c10::DispatchKeySet kSpyreKeys(c10::DispatchKey::PrivateUse1);

c10::Device target_device(std::optional<at::Device> device) {
  return make_device(device.has_value() ? device->index() : -1);
}

bool is_spyre(const at::Tensor& t) {
  return t.device().type() == c10::DeviceType::PrivateUse1;
}

} // namespace

at::Tensor empty_memory_format(
    at::IntArrayRef size,
    std::optional<at::ScalarType> dtype,
    std::optional<at::Layout> layout,
    std::optional<at::Device> device,
    std::optional<bool> pin_memory,
    std::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(!pin_memory.value_or(false), "spyre: pin_memory applies to CPU tensors only");
  TORCH_CHECK(layout.value_or(at::kStrided) == at::kStrided,
              "spyre: only strided tensors are supported, got layout ", *layout);
  c10::DeviceGuard guard(target_device(device));
  return at::detail::empty_generic(
      size, allocator(), kSpyreKeys, c10::dtype_or_default(dtype), memory_format);
}

at::Tensor empty_strided(
    at::IntArrayRef size,
    at::IntArrayRef stride,
    std::optional<at::ScalarType> dtype,
    std::optional<at::Layout> layout,
    std::optional<at::Device> device,
    std::optional<bool> pin_memory) {
  TORCH_CHECK(!pin_memory.value_or(false), "spyre: pin_memory applies to CPU tensors only");
  TORCH_CHECK(layout.value_or(at::kStrided) == at::kStrided,
              "spyre: only strided tensors are supported, got layout ", *layout);
  c10::DeviceGuard guard(target_device(device));
  return at::detail::empty_strided_generic(
      size, stride, allocator(), kSpyreKeys, c10::dtype_or_default(dtype));
}

at::Tensor as_strided(
    const at::Tensor& self,
    at::IntArrayRef size,
    at::IntArrayRef stride,
    std::optional<int64_t> storage_offset) {
  return at::native::as_strided_tensorimpl(self, size, stride, storage_offset);
}

at::Tensor view(const at::Tensor& self, at::IntArrayRef size) {
  return at::native::view(self, size);
}

at::Tensor reshape_alias(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride) {
  return at::native::_reshape_alias(self, size, stride);
}

at::Tensor unfold(const at::Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return at::native::unfold(self, dimension, size, step);
}

// ATen's CPU resize grows storage through the storage's own allocator, which
// for spyre tensors is the spyre allocator, so it applies unchanged.
const at::Tensor& resize_(
    const at::Tensor& self,
    at::IntArrayRef size,
    std::optional<at::MemoryFormat> memory_format) {
  c10::DeviceGuard guard(self.device());
  return at::native::resize_(self, size, memory_format);
}

at::Tensor host_alias(const at::Tensor& t) {
  if (!t.defined() || !is_spyre(t)) {
    return t;
  }
  return at::from_blob(
      t.data_ptr(), t.sizes(), t.strides(), [](void*) {},
      t.options().device(at::kCPU));
}

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool /*non_blocking*/) {
  if (dst.numel() == 0) {
    return dst;
  }
  // Device work is synchronous, so a blocking host copy serves every
  // direction: spyre<->cpu and spyre:i<->spyre:j.
  host_alias(dst).copy_(host_alias(self));
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  if (dst.sizes() != self.sizes()) {
    dst.resize_(self.sizes());
  }
  return copy_from(self, dst, false);
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  return at::native::_local_scalar_dense_cpu(host_alias(self));
}

at::Tensor& set_source_storage(at::Tensor& self, at::Storage source) {
  int64_t numel = static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  return set_source_storage_offset(self, std::move(source), 0, {numel}, {});
}

at::Tensor& set_source_storage_offset(
    at::Tensor& self,
    at::Storage source,
    int64_t storage_offset,
    at::IntArrayRef size,
    at::IntArrayRef stride) {
  return at::native::set_storage_cpu_(self, std::move(source), storage_offset, size, stride);
}

at::Tensor& set_source_tensor(at::Tensor& self, const at::Tensor& source) {
  return at::native::set_tensor_(self, source);
}

// Unlike the CPU kernel, the fresh empty storage must come from spyre.
at::Tensor& set_empty(at::Tensor& self) {
  c10::DeviceGuard guard(self.device());
  at::Storage storage(at::Storage::use_byte_size_t(), 0, allocator(), /*resizable=*/true);
  return set_source_storage_offset(self, std::move(storage), 0, {0}, {});
}

} // namespace spyre::native
