// The boxed kernel behind every emulated spyre op: check the capability
// table, then compute on host copies the way a float16 device would.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace spyre::native {

// Registered as the PrivateUse1 fallback for every aten operator without a
// dedicated spyre kernel.
void emulate(const c10::OperatorHandle& op, torch::jit::Stack* stack);

} // namespace spyre::native
