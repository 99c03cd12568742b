// A C++ UDF library for the Python tests (ember.load_udfs): a stateful class registered with
// EMBER_REGISTER_UDF. Built as a module whose ember symbols resolve to the Python extension's.
#include <unistd.h>

#include <string>

#include "ember/ember.h"

namespace native_test {

/// Adds `offset` (an init arg) to an int64 column.
class AddOffset {
 public:
  explicit AddOffset(const ember::InitArgs& args) : offset_(args.get<int64_t>("offset")) {}
  ember::Column operator()(const ember::Batch& args) {
    const ember::Column& in = args.column(0);
    ember::ColumnBuilder out(ember::int64(), args.num_rows());
    for (int64_t i = 0; i < args.num_rows(); ++i) {
      if (in.is_null(i)) {
        out.append_null();
      } else {
        out.append(in.value<int64_t>(i) + offset_);
      }
    }
    return out.finish();
  }

 private:
  int64_t offset_;
};

/// The id of the process that runs the call, for every row (which process an actor is in).
class ProcessId {
 public:
  explicit ProcessId(const ember::InitArgs&) {}
  ember::Column operator()(const ember::Batch& args) {
    return ember::Column::repeat(ember::Value{static_cast<int64_t>(::getpid())}, ember::int64(),
                                 args.num_rows());
  }
};

}  // namespace native_test

EMBER_REGISTER_UDF(native_test::AddOffset);
EMBER_REGISTER_UDF(native_test::ProcessId);
