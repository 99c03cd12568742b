// Udf::Spec as bytes (a version byte, then every field in declaration order), as text, and as
// a warm-pool key.
#include "udf/udf_spec_codec.h"

#include <limits>
#include <sstream>

#include "resources/resource_units.h"
#include "udf/data_type_codec.h"
#include "udf/failure_policy.h"
#include "udf/init_args_codec.h"
#include "udf/portable_function.h"

namespace ember {

namespace {

/// Bumped whenever the layout below changes.
constexpr uint8_t kSpecVersion = 2;

// Every field of Udf::Spec must be written by encode_udf_spec and read by decode_udf_spec, and
// round-tripped by tests/udf/udf_spec_codec_test.cpp. The size is a tripwire for a field added
// to Udf::Spec and forgotten here (checked where the standard library's sizes are known).
// keep_alive alone is not encoded: it holds objects of this process, not a setting.
#if defined(__GLIBCXX__) && defined(__x86_64__)
static_assert(sizeof(UdfSpec) == 424,
              "Udf::Spec changed: encode/decode/describe the new field in udf_spec_codec.cpp, "
              "round-trip it in tests/udf/udf_spec_codec_test.cpp, then update this size");
#endif

void put_settings(process::MessageWriter& out, const UdfSpec& s) {
  out.put(static_cast<int64_t>(s.batch_size));
  out.put(static_cast<int32_t>(s.concurrency));
  out.put(static_cast<int32_t>(s.max_actors));
  out.put(s.num_cpus);
  out.put(static_cast<uint8_t>(s.num_cpus_set));
  out.put(s.num_gpus);
  out.put(static_cast<int64_t>(s.memory_bytes));
  out.put(static_cast<uint8_t>(s.isolation));
  out.put(static_cast<int32_t>(s.max_retries));
  out.put(static_cast<int64_t>(s.retry_initial.count()));
  out.put(static_cast<int64_t>(s.retry_max.count()));
  out.put(static_cast<uint8_t>(s.on_error));
  out.put(static_cast<int64_t>(s.max_failed_rows));
  out.put(static_cast<int64_t>(s.timeout.count()));
  out.put(static_cast<int32_t>(s.max_concurrency));
}

void get_settings(process::MessageReader& in, UdfSpec& s) {
  s.batch_size = in.get<int64_t>();
  s.concurrency = in.get<int32_t>();
  s.max_actors = in.get<int32_t>();
  s.num_cpus = in.get<double>();
  s.num_cpus_set = in.get<uint8_t>() != 0;
  s.num_gpus = in.get<double>();
  s.memory_bytes = in.get<int64_t>();
  const auto isolation = in.get<uint8_t>();
  if (isolation > static_cast<uint8_t>(Isolation::Process))
    throw Error("udf '" + s.name + "': its settings hold an unknown isolation");
  s.isolation = static_cast<Isolation>(isolation);
  s.max_retries = in.get<int32_t>();
  s.retry_initial = std::chrono::milliseconds(in.get<int64_t>());
  s.retry_max = std::chrono::milliseconds(in.get<int64_t>());
  const auto on_error = in.get<uint8_t>();
  if (on_error > static_cast<uint8_t>(OnError::Skip))
    throw Error("udf '" + s.name + "': its settings hold an unknown on_error policy");
  s.on_error = static_cast<OnError>(on_error);
  s.max_failed_rows = in.get<int64_t>();
  s.timeout = std::chrono::milliseconds(in.get<int64_t>());
  s.max_concurrency = in.get<int32_t>();
}

void find_factory(UdfSpec& s) {
  const detail::UdfFactory* factory = detail::find_udf_factory(s.class_name);
  if (factory == nullptr)
    throw UdfError("udf '" + s.name + "': class '" + s.class_name +
                   "' is not registered in this binary; run the same binary on every rank, "
                   "with EMBER_REGISTER_UDF(" +
                   s.class_name + ") linked into it");
  s.factory = *factory;
}

}  // namespace

std::string encode_udf_spec(const UdfSpec& spec) {
  if (!spec.stateful && spec.portable_kind.empty())
    throw UdfError("udf '" + spec.name +
                   "' is stateless (Udf::fn): its function cannot leave this process; make it "
                   "a registered class (Udf::cls with EMBER_REGISTER_UDF) to run it elsewhere");
  process::MessageWriter out;
  out.put(kSpecVersion);
  out.put(static_cast<uint8_t>(spec.stateful));
  out.put_string(spec.name);
  out.put_string(spec.class_name);
  out.put(static_cast<uint8_t>(spec.return_type.has_value()));
  if (spec.return_type) put_data_type(out, *spec.return_type);
  out.put_string(serialize_init_args(spec.init_args));
  put_settings(out, spec);
  out.put_string(spec.portable_kind);
  out.put_string(spec.portable_payload);
  return out.bytes();
}

std::shared_ptr<UdfSpec> decode_udf_spec(std::string_view bytes) {
  auto spec = std::make_shared<UdfSpec>();
  try {
    auto in = process::MessageReader::unframed(bytes);
    if (const auto version = in.get<uint8_t>(); version != kSpecVersion)
      throw Error("version " + std::to_string(version) + ", expected " +
                  std::to_string(kSpecVersion));
    spec->stateful = in.get<uint8_t>() != 0;
    spec->name = std::string(in.get_string());
    spec->class_name = std::string(in.get_string());
    if (in.get<uint8_t>()) spec->return_type = get_data_type(in);
    spec->init_args = deserialize_init_args(in.get_string());
    get_settings(in, *spec);
    spec->portable_kind = std::string(in.get_string());
    spec->portable_payload = std::string(in.get_string());
    if (in.remaining() != 0) throw Error(std::to_string(in.remaining()) + " bytes left over");
  } catch (const Error& e) {
    throw Error(std::string("a UDF's settings could not be decoded: ") + e.what());
  }
  if (spec->stateful)
    find_factory(*spec);
  else
    spec->function = make_portable_function(spec->portable_kind, spec->portable_payload);
  return spec;
}

std::string describe_udf_spec(const UdfSpec& s) {
  std::ostringstream out;
  out << s.name << ": concurrency " << s.concurrency;
  if (s.max_actors > s.concurrency)
    out << ".." << s.max_actors << " (autoscaling: min " << s.concurrency
        << " reserved, grows to max " << s.max_actors << " when free)";
  out << ", batch size " << s.batch_size << ", per actor " << format_amount(s.num_cpus) << " CPU"
      << (s.num_cpus_set ? "" : " (num_cpus unset: reserves none)") << ", "
      << format_amount(s.num_gpus) << " GPU, " << format_bytes(s.memory_bytes)
      << " memory, isolation " << (s.isolation == Isolation::Process ? "process" : "thread")
      << ", max_retries " << s.max_retries << ", on_error "
      << FailurePolicy::on_error_name(s.on_error);
  if (s.max_retries > 0)
    out << ", retry_backoff " << s.retry_initial.count() << " ms -> " << s.retry_max.count()
        << " ms";
  if (s.on_error != OnError::Raise && s.max_failed_rows != std::numeric_limits<int64_t>::max())
    out << ", max_failed_rows " << s.max_failed_rows;
  if (s.timeout.count() > 0) out << ", timeout " << s.timeout.count() << " ms";
  if (s.max_concurrency > 1) out << ", max_concurrency " << s.max_concurrency;
  return out.str();
}

std::string udf_pool_key(const UdfSpec& spec) {
  // The class name finds a factory in another binary; here the factory itself is compared, so
  // a pool never serves a different C++ type that happens to share the name.
  std::string key = encode_udf_spec(spec);
  key += '\n';
  key += spec.factory ? spec.factory.target_type().name() : "";
  return key;
}

}  // namespace ember
