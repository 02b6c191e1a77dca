#include "Capabilities.h"

#include <c10/util/Exception.h>

#include <sstream>
#include <unordered_map>

namespace spyre::caps {
namespace {

using c10::ScalarType;

constexpr DtypeSet kFloat = dtype_bit(ScalarType::Half) | dtype_bit(ScalarType::Float) |
    dtype_bit(ScalarType::BFloat16);
constexpr DtypeSet kInt = dtype_bit(ScalarType::Int) | dtype_bit(ScalarType::Long);
constexpr DtypeSet kBool = dtype_bit(ScalarType::Bool);
constexpr DtypeSet kNumeric = kFloat | kInt;
constexpr DtypeSet kAll = kNumeric | kBool;
constexpr DtypeSet kIntBool = kInt | kBool;
// Bytes the device can hold and move but not compute on: tensors of these
// dtypes can be created, filled, viewed and copied, and nothing else.
constexpr DtypeSet kStorageOnly = dtype_bit(ScalarType::Double) |
    dtype_bit(ScalarType::ComplexFloat) | dtype_bit(ScalarType::ComplexDouble) |
    dtype_bit(ScalarType::Byte) | dtype_bit(ScalarType::Char) | dtype_bit(ScalarType::Short);

constexpr auto F16 = Precision::kFloat16;
constexpr auto EXACT = Precision::kExact;
constexpr auto ANY = Layout::kAny;
constexpr auto CONTIG = Layout::kContiguous;
constexpr auto EMU = Kind::kEmulated;
constexpr auto NATIVE = Kind::kNative;
constexpr auto COMPOSITE = Kind::kComposite;

// Each row: op family, the aten operators that reach the device for it,
// dtypes, precision, layout, kind. Composite ops (linear, softmax, matmul...)
// are listed under the primitives they decompose into.
std::vector<OpCapability> build_table() {
  return {
      // --- tensor existence and movement (dedicated kernels) ---
      {"empty", {"empty", "empty_strided"}, kAll, EXACT, ANY, NATIVE, kStorageOnly},
      {"copy", {"_copy_from", "_copy_from_and_resize"}, kAll, EXACT, ANY, NATIVE, kStorageOnly},
      {"view", {"view", "_reshape_alias", "as_strided", "unfold"}, kAll, EXACT, ANY, NATIVE, kStorageOnly},
      {"resize", {"resize"}, kAll, EXACT, ANY, NATIVE, kStorageOnly},
      {"set", {"set"}, kAll, EXACT, ANY, NATIVE, kStorageOnly},
      {"item", {"_local_scalar_dense"}, kAll, EXACT, ANY, NATIVE, kStorageOnly},
      // --- creation and fill ---
      {"fill", {"fill"}, kAll, EXACT, ANY, EMU, kStorageOnly},
      {"zero", {"zero"}, kAll, EXACT, ANY, EMU, kStorageOnly},
      {"arange", {"arange"}, kNumeric, EXACT, ANY, EMU},
      {"linspace", {"linspace"}, kFloat, F16, ANY, EMU},
      {"eye", {"eye"}, kAll, EXACT, ANY, EMU},
      {"tril", {"tril"}, kAll, EXACT, ANY, EMU},
      {"triu", {"triu"}, kAll, EXACT, ANY, EMU},
      // --- random ---
      {"normal", {"normal"}, kFloat, F16, ANY, EMU},
      {"uniform", {"uniform"}, kFloat, F16, ANY, EMU},
      {"random", {"random"}, kAll, EXACT, ANY, EMU},
      {"bernoulli", {"bernoulli"}, kFloat, F16, ANY, EMU},
      {"randperm", {"randperm"}, kInt, EXACT, ANY, EMU},
      // --- elementwise unary ---
      {"abs", {"abs"}, kNumeric, F16, ANY, EMU},
      {"neg", {"neg"}, kNumeric, F16, ANY, EMU},
      {"exp", {"exp"}, kFloat, F16, ANY, EMU},
      {"log", {"log"}, kFloat, F16, ANY, EMU},
      {"sqrt", {"sqrt"}, kFloat, F16, ANY, EMU},
      {"rsqrt", {"rsqrt"}, kFloat, F16, ANY, EMU},
      {"reciprocal", {"reciprocal"}, kFloat, F16, ANY, EMU},
      {"sin", {"sin"}, kFloat, F16, ANY, EMU},
      {"cos", {"cos"}, kFloat, F16, ANY, EMU},
      {"tanh", {"tanh", "tanh_backward"}, kFloat, F16, ANY, EMU},
      {"sigmoid", {"sigmoid", "sigmoid_backward"}, kFloat, F16, ANY, EMU},
      {"erf", {"erf"}, kFloat, F16, ANY, EMU},
      {"floor", {"floor"}, kNumeric, F16, ANY, EMU},
      {"ceil", {"ceil"}, kNumeric, F16, ANY, EMU},
      {"round", {"round"}, kNumeric, F16, ANY, EMU},
      {"sign", {"sign"}, kNumeric, F16, ANY, EMU},
      // --- activations ---
      {"relu", {"relu", "threshold", "threshold_backward"}, kNumeric, F16, ANY, EMU},
      {"gelu", {"gelu", "gelu_backward"}, kFloat, F16, ANY, EMU},
      {"silu", {"silu", "silu_backward"}, kFloat, F16, ANY, EMU},
      {"leaky_relu", {"leaky_relu", "leaky_relu_backward"}, kFloat, F16, ANY, EMU},
      {"hardtanh", {"hardtanh", "hardtanh_backward"}, kFloat, F16, ANY, EMU},
      {"elu", {"elu", "elu_backward"}, kFloat, F16, ANY, EMU},
      {"softplus", {"softplus", "softplus_backward"}, kFloat, F16, ANY, EMU},
      // --- elementwise binary ---
      {"add", {"add"}, kNumeric, F16, ANY, EMU},
      {"sub", {"sub"}, kNumeric, F16, ANY, EMU},
      {"mul", {"mul"}, kAll, F16, ANY, EMU},
      {"div", {"div"}, kNumeric, F16, ANY, EMU},
      {"pow", {"pow"}, kNumeric, F16, ANY, EMU},
      {"maximum", {"maximum"}, kNumeric, F16, ANY, EMU},
      {"minimum", {"minimum"}, kNumeric, F16, ANY, EMU},
      {"remainder", {"remainder"}, kNumeric, F16, ANY, EMU},
      {"lerp", {"lerp"}, kFloat, F16, ANY, EMU},
      {"addcmul", {"addcmul"}, kFloat, F16, ANY, EMU},
      {"addcdiv", {"addcdiv"}, kFloat, F16, ANY, EMU},
      // --- comparisons and logic ---
      {"eq", {"eq"}, kAll, F16, ANY, EMU},
      {"ne", {"ne"}, kAll, F16, ANY, EMU},
      {"lt", {"lt"}, kNumeric, F16, ANY, EMU},
      {"le", {"le"}, kNumeric, F16, ANY, EMU},
      {"gt", {"gt"}, kNumeric, F16, ANY, EMU},
      {"ge", {"ge"}, kNumeric, F16, ANY, EMU},
      {"isnan", {"isnan"}, kFloat, EXACT, ANY, EMU},
      {"logical_not", {"logical_not"}, kAll, EXACT, ANY, EMU},
      {"logical_and", {"logical_and"}, kAll, EXACT, ANY, EMU},
      {"logical_or", {"logical_or"}, kAll, EXACT, ANY, EMU},
      {"bitwise_and", {"bitwise_and"}, kIntBool, EXACT, ANY, EMU},
      {"bitwise_or", {"bitwise_or"}, kIntBool, EXACT, ANY, EMU},
      {"equal", {"equal"}, kAll, EXACT, ANY, EMU},
      // --- selection ---
      {"where", {"where"}, kAll, EXACT, ANY, EMU},
      {"clamp", {"clamp", "clamp_min", "clamp_max"}, kNumeric, F16, ANY, EMU},
      {"masked_fill", {"masked_fill"}, kAll, EXACT, ANY, EMU},
      {"index_select", {"index_select"}, kAll, EXACT, ANY, EMU},
      {"gather", {"gather"}, kAll, EXACT, ANY, EMU},
      {"scatter", {"scatter", "scatter_add"}, kNumeric, EXACT, ANY, EMU},
      {"index", {"index", "_index_put_impl", "index_put"}, kAll, EXACT, ANY, EMU},
      {"nonzero", {"nonzero"}, kAll, EXACT, ANY, EMU},
      // --- reductions ---
      {"sum", {"sum"}, kAll, F16, ANY, EMU},
      {"mean", {"mean"}, kFloat, F16, ANY, EMU},
      {"prod", {"prod"}, kNumeric, F16, ANY, EMU},
      {"amax", {"amax"}, kNumeric, F16, ANY, EMU},
      {"amin", {"amin"}, kNumeric, F16, ANY, EMU},
      {"max", {"max"}, kNumeric, F16, ANY, EMU},
      {"min", {"min"}, kNumeric, F16, ANY, EMU},
      {"argmax", {"argmax"}, kNumeric, F16, ANY, EMU},
      {"argmin", {"argmin"}, kNumeric, F16, ANY, EMU},
      {"var", {"var", "std", "var_mean", "std_mean"}, kFloat, F16, ANY, EMU},
      {"norm", {"linalg_vector_norm", "norm"}, kFloat, F16, ANY, EMU},
      {"all", {"all"}, kAll, EXACT, ANY, EMU},
      {"any", {"any"}, kAll, EXACT, ANY, EMU},
      {"cumsum", {"cumsum"}, kNumeric, F16, CONTIG, EMU},
      {"sort", {"sort"}, kNumeric, F16, CONTIG, EMU},
      {"topk", {"topk"}, kNumeric, F16, CONTIG, EMU},
      // --- linear algebra ---
      {"mm", {"mm"}, kFloat, F16, ANY, EMU},
      {"bmm", {"bmm"}, kFloat, F16, ANY, EMU},
      {"addmm", {"addmm"}, kFloat, F16, ANY, EMU},
      {"baddbmm", {"baddbmm"}, kFloat, F16, ANY, EMU},
      {"dot", {"dot"}, kFloat, F16, ANY, EMU},
      {"mv", {"mv", "addmv"}, kFloat, F16, ANY, EMU},
      // --- normalisation, softmax and losses ---
      {"softmax", {"_softmax", "_softmax_backward_data"}, kFloat, F16, ANY, EMU},
      {"log_softmax", {"_log_softmax", "_log_softmax_backward_data"}, kFloat, F16, ANY, EMU},
      // layer_norm and batch_norm both reach the device as native_batch_norm.
      {"batch_norm", {"native_batch_norm", "native_batch_norm_backward"}, kFloat, F16, ANY, EMU},
      {"dropout", {"native_dropout", "native_dropout_backward"}, kFloat, F16, ANY, EMU},
      {"nll_loss", {"nll_loss_forward", "nll_loss_backward"}, kFloat | kInt, F16, ANY, EMU},
      {"mse_loss", {"mse_loss", "mse_loss_backward"}, kFloat, F16, ANY, EMU},
      {"embedding", {"embedding_dense_backward"}, kFloat | kInt, F16, ANY, EMU},
      // --- shape and layout (data movement) ---
      {"cat", {"cat"}, kAll, EXACT, ANY, EMU},
      {"flip", {"flip"}, kAll, EXACT, ANY, EMU},
      {"roll", {"roll"}, kAll, EXACT, ANY, EMU},
      // --- user-level ops torch decomposes onto the rows above ---
      {"linear", {}, kFloat, F16, ANY, COMPOSITE},
      {"matmul", {}, kFloat, F16, ANY, COMPOSITE},
      {"layer_norm", {}, kFloat, F16, ANY, COMPOSITE},
      {"cross_entropy", {}, kFloat, F16, ANY, COMPOSITE},
      {"stack", {}, kAll, EXACT, ANY, COMPOSITE},
      {"clone", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"to", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"full", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"zeros", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"ones", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"randn", {}, kFloat, F16, ANY, COMPOSITE},
      {"rand", {}, kFloat, F16, ANY, COMPOSITE},
      {"randint", {}, kNumeric, EXACT, ANY, COMPOSITE},
      {"reshape", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"transpose", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"permute", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"expand", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"squeeze", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"unsqueeze", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"select", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"slice", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"narrow", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"split", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"chunk", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"contiguous", {}, kAll, EXACT, ANY, COMPOSITE, kStorageOnly},
      {"masked_select", {}, kAll, EXACT, ANY, COMPOSITE},
  };
}

} // namespace

const std::vector<OpCapability>& table() {
  static const std::vector<OpCapability> rows = build_table();
  return rows;
}

const OpCapability* find(std::string_view aten_base_name) {
  static const auto index = [] {
    std::unordered_map<std::string, const OpCapability*> by_aten;
    for (const OpCapability& cap : table()) {
      for (const std::string& aten : cap.aten) {
        auto [it, fresh] = by_aten.emplace(aten, &cap);
        TORCH_INTERNAL_ASSERT(fresh, "spyre: aten::", aten, " listed twice in the capability table");
      }
    }
    return by_aten;
  }();
  auto it = index.find(std::string(aten_base_name));
  return it == index.end() ? nullptr : it->second;
}

std::string base_name(std::string_view qualified_name) {
  std::string_view name = qualified_name;
  if (auto colons = name.find("::"); colons != std::string_view::npos) {
    name = name.substr(colons + 2);
  }
  // In-place variants end in one underscore; dunder names (__and__) keep theirs.
  bool dunder = name.size() >= 2 && name.substr(name.size() - 2) == "__";
  if (!dunder && !name.empty() && name.back() == '_') {
    name.remove_suffix(1);
  }
  return std::string(name);
}

bool supports(const OpCapability& cap, c10::ScalarType dtype) {
  return ((cap.dtypes | cap.storage_dtypes) & dtype_bit(dtype)) != 0;
}

namespace {

// Python spelling (torch.float16), not the C++ one (Half).
std::vector<std::string> dtype_list(DtypeSet set) {
  std::vector<std::string> names;
  for (int i = 0; i < static_cast<int>(ScalarType::NumOptions); ++i) {
    if (set & (DtypeSet{1} << i)) {
      names.emplace_back(c10::getDtypeNames(static_cast<ScalarType>(i)).first);
    }
  }
  return names;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kEmulated:
      return "emulated";
    case Kind::kNative:
      return "native";
    case Kind::kComposite:
      return "composite";
  }
  return "unknown";
}

void json_string_list(std::ostringstream& out, const std::vector<std::string>& items) {
  out << '[';
  for (size_t i = 0; i < items.size(); ++i) {
    out << (i ? ", " : "") << '"' << items[i] << '"';
  }
  out << ']';
}

} // namespace

std::string dtype_names(DtypeSet set) {
  std::string out;
  for (const std::string& name : dtype_list(set)) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

std::string to_json() {
  // Names are identifiers from the table above, so no escaping is needed.
  std::ostringstream out;
  out << "{\"version\": 1, \"tolerances\": {\"float16\": {\"float32\": {\"atol\": "
      << kFloat16Atol << ", \"rtol\": " << kFloat16Rtol << "}}, \"exact\": {}}, \"ops\": {";
  bool first = true;
  for (const OpCapability& cap : table()) {
    out << (first ? "" : ", ") << '"' << cap.name << "\": {\"aten\": ";
    first = false;
    json_string_list(out, cap.aten);
    out << ", \"dtypes\": ";
    json_string_list(out, dtype_list(cap.dtypes));
    out << ", \"storage_dtypes\": ";
    json_string_list(out, dtype_list(cap.storage_dtypes));
    out << ", \"precision\": \"" << (cap.precision == Precision::kFloat16 ? "float16" : "exact")
        << "\", \"layout\": \"" << (cap.layout == Layout::kContiguous ? "contiguous" : "any")
        << "\", \"kind\": \"" << kind_name(cap.kind) << "\"}";
  }
  out << "}}";
  return out.str();
}

} // namespace spyre::caps
