// The "acme" device of docs/adopting.md: the smallest privateuse1 backend an adopter might
// build on their own, against the torch they test (no Bazel, no code of this repository).
// Memory is host memory from its own allocator; tensors are created and copied here, and
// views share that memory, every other op runs through the boxed CPU fallback. Built by tools/ci/test_adoption.py
// with g++ (see build_command there, and docs/adopting.md "An out-of-tree device").

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include <cstdlib>
#include <cstring>

namespace acme {

void release(void* ptr) { std::free(ptr); }

// Host memory tagged with the privateuse1 device, so tensors report device acme:0.
struct Allocator final : c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) override {
    void* data = nbytes ? std::malloc(nbytes) : nullptr;
    TORCH_CHECK(data || !nbytes, "acme: out of memory allocating ", nbytes, " bytes");
    return {data, data, &release, c10::Device(c10::DeviceType::PrivateUse1, 0)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    std::memcpy(dest, src, count);
  }
};

Allocator allocator;
REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &allocator);
C10_REGISTER_GUARD_IMPL(PrivateUse1, c10::impl::NoOpDeviceGuardImpl<c10::DeviceType::PrivateUse1>);

constexpr c10::DispatchKeySet kKeys{c10::DispatchKey::PrivateUse1};

at::Tensor empty(c10::IntArrayRef size, std::optional<at::ScalarType> dtype, std::optional<at::Layout>,
                 std::optional<at::Device>, std::optional<bool>, std::optional<at::MemoryFormat> format) {
  return at::detail::empty_generic(size, &allocator, kKeys, c10::dtype_or_default(dtype), format);
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride, std::optional<at::ScalarType> dtype,
                         std::optional<at::Layout>, std::optional<at::Device>, std::optional<bool>) {
  return at::detail::empty_strided_generic(size, stride, &allocator, kKeys, c10::dtype_or_default(dtype));
}

// A CPU tensor over the same host memory (the device's memory is host memory).
at::Tensor on_host(const at::Tensor& t) {
  if (t.is_cpu()) return t;
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options().device(at::kCPU));
}

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool) {
  on_host(dst).copy_(on_host(self));
  return dst;
}

const at::Tensor& resize_to(const at::Tensor& self, c10::IntArrayRef size, std::optional<at::MemoryFormat>) {
  auto* impl = self.unsafeGetTensorImpl();
  int64_t numel = c10::multiply_integers(size);
  size_t needed = (impl->storage_offset() + numel) * self.dtype().itemsize();
  if (needed > impl->storage().nbytes()) {
    c10::DataPtr fresh = allocator.allocate(needed);
    if (impl->storage().nbytes()) std::memcpy(fresh.get(), impl->storage().data(), impl->storage().nbytes());
    impl->storage().set_data_ptr_noswap(std::move(fresh));
    impl->storage().set_nbytes(needed);
  }
  impl->set_sizes_contiguous(size);
  return self;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  resize_to(dst, self.sizes(), std::nullopt);
  return copy_from(self, dst, false);
}

void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) { at::native::cpu_fallback(op, stack); }

}  // namespace acme

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", TORCH_FN(acme::empty));
  m.impl("empty_strided", TORCH_FN(acme::empty_strided));
  m.impl("_copy_from", TORCH_FN(acme::copy_from));
  m.impl("_copy_from_and_resize", TORCH_FN(acme::copy_from_and_resize));
  m.impl("resize_", TORCH_FN(acme::resize_to));
  // Views share the device's storage: ATen's own device-independent implementations.
  m.impl("view", TORCH_FN(at::native::view));
  m.impl("as_strided", TORCH_FN(at::native::as_strided_tensorimpl));
  m.impl("_reshape_alias", TORCH_FN(at::native::_reshape_alias));
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) { m.fallback(torch::CppFunction::makeFromBoxedFunction<&acme::fallback>()); }
