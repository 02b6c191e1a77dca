#include "Emulate.h"

#include "../Capabilities.h"
#include "Minimal.h"

#include "../../runtime/SpyreClaim.h"
#include "../../runtime/SpyreDevice.h"
#include "../../runtime/SpyreFaults.h"
#include "../../runtime/SpyreGenerator.h"

// EmptyTensor.h rather than ATen/ops/empty*.h: same allocations, a third of
// the compile time.
#include <ATen/EmptyTensor.h>
#include <ATen/core/Tensor.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spyre::native {
namespace {

using c10::IValue;

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::string_view(value) == "1";
}

bool is_spyre(const at::Tensor& t) {
  return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1;
}

// Calls fn on every tensor inside an argument (Tensor, Tensor[], Tensor?[]).
template <typename Fn>
void for_each_tensor(const IValue& v, Fn&& fn) {
  if (v.isTensor()) {
    fn(v.toTensor());
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorVector()) {
      fn(t);
    }
  } else if (v.isList()) {
    for (const IValue& item : v.toListRef()) {
      if (item.isTensor()) {
        fn(item.toTensor());
      }
    }
  }
}

// ---- decision: may this call run, and how? (no side effects) ----

enum class Mode { kEmulate, kExactOnHost };

struct Decision {
  Mode mode;
  bool round_float32;  // float32 operands/results go through float16
};

struct CallFacts {
  std::string qualified_name;  // aten::add.Tensor
  std::string base;            // add
  std::vector<c10::ScalarType> dtypes;  // spyre tensors and dtype= arguments
  bool all_contiguous = true;
};

Decision decide(const CallFacts& facts, bool cpu_fallback) {
  const caps::OpCapability* cap = caps::find(facts.base);
  if (cap == nullptr) {
    TORCH_CHECK_NOT_IMPLEMENTED(
        cpu_fallback, "spyre: aten::", facts.base, " is not supported (",
        facts.qualified_name, "); set SPYRE_CPU_FALLBACK=1 to run it on the CPU");
    return {Mode::kExactOnHost, false};
  }
  for (c10::ScalarType dtype : facts.dtypes) {
    if (!caps::supports(*cap, dtype)) {
      TORCH_CHECK_TYPE(
          cpu_fallback, "spyre: aten::", facts.base, " does not support dtype ",
          c10::getDtypeNames(dtype).first, " (supported: ", caps::dtype_names(cap->dtypes),
          "); set SPYRE_CPU_FALLBACK=1 to run it on the CPU");
      return {Mode::kExactOnHost, false};
    }
  }
  if (cap->layout == caps::Layout::kContiguous && !facts.all_contiguous) {
    TORCH_CHECK_NOT_IMPLEMENTED(
        cpu_fallback, "spyre: aten::", facts.base,
        " requires contiguous inputs; call .contiguous() first");
    return {Mode::kExactOnHost, false};
  }
  return {Mode::kEmulate, cap->precision == caps::Precision::kFloat16};
}

// ---- glue: gather facts, move data, run the CPU kernel, move back ----

struct DeviceFacts {
  std::optional<c10::Device> device;
};

CallFacts gather_facts(const c10::FunctionSchema& schema, c10::ArrayRef<IValue> args,
                       DeviceFacts& where) {
  CallFacts facts;
  facts.qualified_name = schema.name();
  if (!schema.overload_name().empty()) {
    facts.qualified_name += "." + schema.overload_name();
  }
  facts.base = caps::base_name(schema.name());
  for (size_t i = 0; i < args.size(); ++i) {
    const IValue& v = args[i];
    // out= buffers are results, not operands: comparisons write bool, argmax
    // writes int64, whatever the input dtype.
    const bool operand = !schema.arguments()[i].is_out();
    for_each_tensor(v, [&](const at::Tensor& t) {
      if (!t.defined()) {
        return;
      }
      if (!is_spyre(t)) {
        // Python scalars arrive as 0-dim CPU tensors; anything else is a
        // device mismatch, as on any accelerator.
        TORCH_CHECK(t.dim() == 0 && t.device().is_cpu(),
                    "spyre: ", facts.qualified_name, " got a tensor on ", t.device(),
                    "; expected all tensors on spyre (0-dim CPU tensors are allowed)");
        return;
      }
      if (where.device.has_value()) {
        TORCH_CHECK(*where.device == t.device(),
                    "spyre: ", facts.qualified_name,
                    " expected all tensors on the same device, got ", *where.device,
                    " and ", t.device());
      } else {
        where.device = t.device();
      }
      if (operand) {
        facts.dtypes.push_back(t.scalar_type());
        facts.all_contiguous = facts.all_contiguous && t.is_contiguous();
      }
    });
  }
  // dtype= keyword arguments (sum(x, dtype=torch.float64)) are requests to
  // compute in that dtype, so they are checked like operands.
  for (size_t i = 0; i < args.size(); ++i) {
    if (schema.arguments()[i].name() == "dtype" && args[i].isInt()) {
      facts.dtypes.push_back(static_cast<c10::ScalarType>(args[i].toInt()));
    }
  }
  return facts;
}

void round_through_half(at::Tensor& t) {
  if (t.defined() && t.scalar_type() == at::kFloat) {
    t.copy_(t.to(at::kHalf));
  }
}

// A CPU tensor with t's geometry (contiguous when t's strides overlap).
at::Tensor empty_host_like(const at::Tensor& t) {
  if (t.is_non_overlapping_and_dense()) {
    return at::detail::empty_strided_cpu(t.sizes(), t.strides(), t.scalar_type());
  }
  return at::detail::empty_cpu(t.sizes(), t.scalar_type());
}

// Host copy of a spyre operand; float32 operands lose precision here.
at::Tensor to_host(const at::Tensor& t, bool round) {
  if (!is_spyre(t)) {
    return t;
  }
  at::Tensor alias = host_alias(t);
  at::Tensor copy = empty_host_like(alias);
  copy.copy_(alias);
  if (round) {
    round_through_half(copy);
  }
  return copy;
}

// Injected fault `corrupt`: results computed on a sick device come back off, silently.
void corrupt_if_sick(at::Tensor& host, c10::Device device) {
  if (faults::corrupts(physical_device(device.index())) && host.scalar_type() != at::kBool) {
    host = host.add(1);
  }
}

at::Tensor to_spyre(at::Tensor host, c10::Device device, bool round) {
  if (round) {
    round_through_half(host);
  }
  corrupt_if_sick(host, device);
  if (!host.is_non_overlapping_and_dense()) {
    host = host.contiguous();
  }
  at::Tensor out = empty_strided(host.sizes(), host.strides(), host.scalar_type(), at::kStrided,
                                 device, std::nullopt);
  out.copy_(host);
  return out;
}

// out= buffers are write-only: a host buffer of the same geometry is enough,
// which saves a device-to-host copy on every structured op.
at::Tensor host_buffer(const at::Tensor& t) {
  if (!is_spyre(t)) {
    return t;
  }
  return empty_host_like(t);
}

IValue convert_arg(const IValue& v, const c10::Argument& arg, c10::Device device, bool round) {
  if (v.isTensor()) {
    return arg.is_out() ? host_buffer(v.toTensor()) : to_host(v.toTensor(), round);
  }
  if (v.isTensorList()) {
    std::vector<at::Tensor> host;
    for (const at::Tensor& t : v.toTensorVector()) {
      host.push_back(to_host(t, round));
    }
    return host;
  }
  if (v.isList() && arg.type()->isSubtypeOf(*c10::ListType::ofOptionalTensors())) {
    c10::List<std::optional<at::Tensor>> host;
    for (const IValue& item : v.toListRef()) {
      host.push_back(item.isTensor() ? std::optional<at::Tensor>(to_host(item.toTensor(), round))
                                     : std::nullopt);
    }
    return host;
  }
  if (v.isDevice() && v.toDevice().type() == c10::DeviceType::PrivateUse1) {
    return c10::Device(c10::kCPU);
  }
  // Random ops draw from the spyre generator's host-side engine, so spyre
  // seeds govern spyre randomness.
  bool is_generator_arg = arg.type()->kind() == c10::TypeKind::GeneratorType ||
      (arg.type()->kind() == c10::TypeKind::OptionalType &&
       arg.type()->containedType(0)->kind() == c10::TypeKind::GeneratorType);
  if (is_generator_arg) {
    at::Generator gen = v.isGenerator() ? v.toGenerator() : default_generator(device.index());
    if (gen.device().type() == c10::DeviceType::PrivateUse1) {
      return host_generator(gen);
    }
    return gen;
  }
  return v;
}

// Copies a mutated host operand back into the spyre tensor it came from.
void write_back(const at::Tensor& spyre_tensor, at::Tensor host, bool round) {
  if (!is_spyre(spyre_tensor)) {
    return;
  }
  if (round) {
    round_through_half(host);
  }
  corrupt_if_sick(host, spyre_tensor.device());
  if (spyre_tensor.sizes() != host.sizes()) {
    spyre_tensor.resize_(host.sizes());
  }
  spyre_tensor.copy_(host);
}

void trace(const CallFacts& facts, const Decision& decision) {
  std::cerr << "[spyre] " << facts.qualified_name
            << (decision.mode == Mode::kEmulate ? (decision.round_float32 ? " float16" : " exact")
                                                : " cpu-fallback")
            << '\n';
}

} // namespace

void emulate(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const c10::FunctionSchema& schema = op.schema();
  const size_t num_args = schema.arguments().size();
  auto args = torch::jit::last(*stack, num_args);

  DeviceFacts where;
  CallFacts facts = gather_facts(schema, args, where);
  const Decision decision = decide(facts, env_flag("SPYRE_CPU_FALLBACK"));
  if (env_flag("SPYRE_TRACE")) {
    trace(facts, decision);
  }
  for (const c10::Argument& ret : schema.returns()) {
    // A fresh tensor standing in for a view would silently break aliasing.
    TORCH_CHECK_NOT_IMPLEMENTED(
        ret.alias_info() == nullptr || ret.alias_info()->isWrite(),
        "spyre: aten::", facts.base, " is a view operator without a spyre kernel");
  }
  const bool round = decision.round_float32;
  const c10::Device device = where.device.value_or(make_device());
  claim(physical_device(device.index()));
  faults::before_op(physical_device(device.index()));

  std::vector<IValue> originals(args.begin(), args.end());
  torch::jit::drop(*stack, num_args);
  for (size_t i = 0; i < num_args; ++i) {
    stack->push_back(convert_arg(originals[i], schema.arguments()[i], device, round));
  }
  std::vector<IValue> host_args(stack->end() - num_args, stack->end());

  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);

  // Mutated operands (in-place self, out=) go back to their spyre tensors.
  for (size_t i = 0; i < num_args; ++i) {
    const auto* alias = schema.arguments()[i].alias_info();
    if (alias == nullptr || !alias->isWrite()) {
      continue;
    }
    if (originals[i].isTensor()) {
      write_back(originals[i].toTensor(), host_args[i].toTensor(), round);
    } else if (originals[i].isTensorList()) {
      auto spyre_list = originals[i].toTensorVector();
      auto host_list = host_args[i].toTensorVector();
      for (size_t j = 0; j < spyre_list.size(); ++j) {
        write_back(spyre_list[j], host_list[j], round);
      }
    }
  }

  // Results: aliases of mutated operands are the original spyre tensors;
  // fresh tensors are moved onto the device.
  const size_t num_returns = schema.returns().size();
  for (size_t r = 0; r < num_returns; ++r) {
    IValue& out = (*stack)[stack->size() - num_returns + r];
    const auto* ret_alias = schema.returns()[r].alias_info();
    if (ret_alias != nullptr) {
      for (size_t i = 0; i < num_args; ++i) {
        const auto* arg_alias = schema.arguments()[i].alias_info();
        if (arg_alias != nullptr && arg_alias->beforeSets() == ret_alias->beforeSets()) {
          out = originals[i];
          break;
        }
      }
      continue;
    }
    if (out.isTensor() && out.toTensor().defined()) {
      out = to_spyre(out.toTensor(), device, round);
    } else if (out.isTensorList()) {
      std::vector<at::Tensor> moved;
      for (const at::Tensor& t : out.toTensorVector()) {
        moved.push_back(to_spyre(t, device, round));
      }
      out = moved;
    }
  }
}

} // namespace spyre::native
