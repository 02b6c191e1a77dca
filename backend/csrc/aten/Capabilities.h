// The spyre capability table: the single source of truth for which aten
// operators the device runs, in which dtypes, at which internal precision and
// with which layout constraints. The emulating kernel checks it on every call;
// Python reads it through torch.ops.spyre.capabilities() (JSON).
#pragma once

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spyre::caps {

enum class Precision {
  kExact,    // data movement and integer work: bit-exact with CPU
  kFloat16,  // float32 operands and results are rounded through float16
};

enum class Layout {
  kAny,         // any strides
  kContiguous,  // every spyre input must be contiguous
};

enum class Kind {
  kEmulated,  // runs through the boxed emulating kernel (checked here)
  kNative,    // a dedicated spyre kernel (tensor creation, views, copies)
  kComposite, // never reaches the device itself: torch decomposes it into
              // rows above (listed so configs can name user-level ops)
};

using DtypeSet = uint64_t;  // bit i set <=> ScalarType(i) supported

constexpr DtypeSet dtype_bit(c10::ScalarType t) {
  return DtypeSet{1} << static_cast<int>(t);
}

struct OpCapability {
  std::string name;               // op family as users know it, e.g. "add"
  std::vector<std::string> aten;  // aten operators reaching the device
  DtypeSet dtypes;                // dtypes the device computes in
  Precision precision;
  Layout layout;
  Kind kind;
  DtypeSet storage_dtypes = 0;    // further dtypes it only holds and moves
};

const std::vector<OpCapability>& table();

// Documented agreement with CPU float32 for float16-precision rows on float32
// data of O(1) magnitude (two roundings of 2^-11 plus the op's own error).
inline constexpr double kFloat16Rtol = 1e-2;
inline constexpr double kFloat16Atol = 1e-2;

// Looks an operator up by its aten base name ("add" for aten::add.Tensor,
// aten::add_.Tensor and aten::add.out). nullptr when unsupported.
const OpCapability* find(std::string_view aten_base_name);

// "aten::add_" -> "add"; "aten::__and__" -> "__and__".
std::string base_name(std::string_view qualified_name);

// True for compute dtypes and, for data-movement rows, storage dtypes.
bool supports(const OpCapability& cap, c10::ScalarType dtype);

// Names of the dtypes in a set, in ScalarType order, e.g. "float16, float32".
std::string dtype_names(DtypeSet set);

// The whole table as JSON (schema documented in backend/README.md).
std::string to_json();

} // namespace spyre::caps
