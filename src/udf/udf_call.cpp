// Calling a stateless UDF inline: chunking by batch_size, result checks and error wording.
#include "udf/udf_call.h"

#include <exception>

#include "ember/error.h"

namespace ember {

namespace {

// Adds the UDF's name to a message that does not already carry it.
std::string named(const UdfSpec& spec, const std::string& message) {
  const std::string tag = "udf '" + spec.name + "'";
  if (message.find(tag) != std::string::npos) return message;
  return tag + ": " + message;
}

Column call_chunk(const UdfSpec& spec, const Batch& chunk) {
  Column result;
  try {
    result = spec.function(chunk);
  } catch (const UdfError& e) {
    throw UdfError(named(spec, e.what()));
  } catch (const std::exception& e) {
    throw UdfError("udf '" + spec.name + "' failed on " + describe_args(chunk) + ": " + e.what());
  } catch (...) {
    throw UdfError("udf '" + spec.name + "' failed on " + describe_args(chunk) +
                   ": unknown exception");
  }
  check_udf_result(spec, result, chunk.num_rows());
  return result;
}

}  // namespace

namespace {

// list(T) -> fixed_size_list(T, n) when every non-null list has n items; otherwise unchanged.
void fit_fixed_size(const DataType& declared, Column& result) {
  if (declared.id() != TypeId::FixedSizeList || result.type() != list(declared.element())) return;
  for (int64_t i = 0; i < result.size(); ++i) {
    const auto [first, last] = result.list_range(i);
    if (!result.is_null(i) && last - first != declared.list_size()) return;
  }
  ColumnBuilder b(declared, result.size());
  for (int64_t i = 0; i < result.size(); ++i) b.append_from(result, i);
  result = b.finish();
}

}  // namespace

void check_udf_result(const UdfSpec& spec, Column& result, int64_t expected_rows) {
  if (spec.return_type) fit_fixed_size(*spec.return_type, result);
  const bool type_ok = !spec.return_type || result.type() == *spec.return_type;
  if (result.size() == expected_rows && type_ok) return;
  throw wrong_result(spec, result_shape(result, expected_rows));
}

std::string result_shape(const Column& result, int64_t expected_rows) {
  return "returned " + std::to_string(result.size()) + " rows of " + result.type().to_string() +
         ", expected " + std::to_string(expected_rows) + " rows";
}

UdfError wrong_result(const UdfSpec& spec, const std::string& shape) {
  std::string text = "udf '" + spec.name + "' " + shape;
  if (spec.return_type) text += " of " + spec.return_type->to_string();
  return UdfError(text);
}

std::string describe_args(const Batch& args) {
  const int n = args.num_columns();
  std::string out = std::to_string(n) + (n == 1 ? " arg" : " args");
  if (n > 0) {
    out += " (";
    for (int i = 0; i < n; ++i) {
      if (i > 0) out += ", ";
      out += args.schema().field(i).name + ": " + args.schema().field(i).type.to_string();
    }
    out += ")";
  }
  return out + ", " + std::to_string(args.num_rows()) + " rows";
}

Column call_stateless(const UdfSpec& spec, const Batch& args) {
  if (!spec.function) {
    throw Error("udf '" + spec.name + "' has no function to call inline");
  }
  const int64_t rows = args.num_rows();
  if (rows == 0 && spec.return_type) return Column::nulls(*spec.return_type, 0);
  // A non-positive batch_size is rejected when the Udf is built; here it means "all rows".
  const int64_t chunk = spec.batch_size > 0 ? spec.batch_size : std::max<int64_t>(rows, 1);
  if (rows <= chunk) return call_chunk(spec, args);
  std::vector<Column> parts;
  parts.reserve(static_cast<size_t>((rows + chunk - 1) / chunk));
  for (int64_t start = 0; start < rows; start += chunk) {
    parts.push_back(call_chunk(spec, args.slice(start, std::min(chunk, rows - start))));
  }
  return Column::concat(parts);
}

}  // namespace ember
