// The minimal kernel tier: what spyre tensors need to exist, be viewed,
// resized and moved. Device memory is host memory, so these reuse ATen's
// generic CPU-side helpers wherever they do not assume the CPU allocator.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Storage.h>

#include <optional>

namespace spyre::native {

at::Tensor empty_memory_format(
    at::IntArrayRef size,
    std::optional<at::ScalarType> dtype,
    std::optional<at::Layout> layout,
    std::optional<at::Device> device,
    std::optional<bool> pin_memory,
    std::optional<at::MemoryFormat> memory_format);

at::Tensor empty_strided(
    at::IntArrayRef size,
    at::IntArrayRef stride,
    std::optional<at::ScalarType> dtype,
    std::optional<at::Layout> layout,
    std::optional<at::Device> device,
    std::optional<bool> pin_memory);

at::Tensor as_strided(
    const at::Tensor& self,
    at::IntArrayRef size,
    at::IntArrayRef stride,
    std::optional<int64_t> storage_offset);

at::Tensor view(const at::Tensor& self, at::IntArrayRef size);
at::Tensor reshape_alias(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride);
at::Tensor unfold(const at::Tensor& self, int64_t dimension, int64_t size, int64_t step);

const at::Tensor& resize_(
    const at::Tensor& self,
    at::IntArrayRef size,
    std::optional<at::MemoryFormat> memory_format);

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking);
at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst);

at::Scalar local_scalar_dense(const at::Tensor& self);

at::Tensor& set_source_storage(at::Tensor& self, at::Storage source);
at::Tensor& set_source_storage_offset(
    at::Tensor& self,
    at::Storage source,
    int64_t storage_offset,
    at::IntArrayRef size,
    at::IntArrayRef stride);
at::Tensor& set_source_tensor(at::Tensor& self, const at::Tensor& source);
at::Tensor& set_empty(at::Tensor& self);

// A CPU tensor sharing `t`'s bytes (same sizes, strides and offset).
at::Tensor host_alias(const at::Tensor& t);

} // namespace spyre::native
