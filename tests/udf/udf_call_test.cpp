// Inline (stateless) UDF calls: chunking by batch_size, result checks and error wording.
#include "udf/udf_call.h"

#include <gtest/gtest.h>

namespace ember {
namespace {

Batch args_batch(int64_t n) {
  std::vector<std::string> text(static_cast<size_t>(n));
  std::vector<int64_t> num(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    text[size_t(i)] = std::string(size_t(i % 5), 'w');
    num[size_t(i)] = i;
  }
  return Batch(Schema({{"text", utf8()}, {"n", int64()}}), {Column::from(text), Column::from(num)});
}

UdfSpec length_plus_n(int64_t batch_size, std::vector<int64_t>* call_sizes) {
  UdfSpec s;
  s.name = "lenplus";
  s.return_type = int64();
  s.batch_size = batch_size;
  s.function = [call_sizes](const Batch& b) {
    if (call_sizes) call_sizes->push_back(b.num_rows());
    ColumnBuilder out(int64(), b.num_rows());
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      out.append(int64_t(b.column(0).value<std::string_view>(i).size()) +
                 b.column(1).value<int64_t>(i));
    }
    return out.finish();
  };
  return s;
}

TEST(UdfCallTest, ChunksNeverExceedBatchSizeAndResultIsInOrder) {
  for (int64_t bs : {1, 7, 512, 1000, 5000}) {
    std::vector<int64_t> sizes;
    UdfSpec s = length_plus_n(bs, &sizes);
    Batch args = args_batch(1000);
    Column r = call_stateless(s, args);
    ASSERT_EQ(r.size(), 1000);
    for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(r.value<int64_t>(i), i % 5 + i);
    int64_t total = 0;
    for (int64_t n : sizes) {
      EXPECT_LE(n, bs);
      EXPECT_GT(n, 0);
      total += n;
    }
    EXPECT_EQ(total, 1000);
    EXPECT_EQ(int64_t(sizes.size()), (1000 + bs - 1) / bs);
  }
}

TEST(UdfCallTest, DescribeArgs) {
  EXPECT_EQ(describe_args(args_batch(512)), "2 args (text: utf8, n: int64), 512 rows");
  EXPECT_EQ(describe_args(Batch::empty_with_rows(3)), "0 args, 3 rows");
}

std::string udf_error_of(const UdfSpec& s, const Batch& args) {
  try {
    call_stateless(s, args);
  } catch (const UdfError& e) {
    return e.what();
  }
  return "<no UdfError>";
}

TEST(UdfCallTest, WrongLengthOrTypeIsUdfError) {
  UdfSpec s = length_plus_n(100, nullptr);
  s.function = [](const Batch& b) {
    return Column::from(std::vector<std::string>(size_t(b.num_rows() - 2), "x"));
  };
  EXPECT_EQ(udf_error_of(s, args_batch(12)),
            "udf 'lenplus' returned 10 rows of utf8, expected 12 rows of int64");
  s.function = [](const Batch& b) {
    return Column::from(std::vector<double>(size_t(b.num_rows()), 1.0));
  };
  EXPECT_EQ(udf_error_of(s, args_batch(12)),
            "udf 'lenplus' returned 12 rows of float64, expected 12 rows of int64");
}

TEST(UdfCallTest, ThrownExceptionsBecomeUdfErrorsWithNameAndShape) {
  UdfSpec s = length_plus_n(512, nullptr);
  s.function = [](const Batch&) -> Column { throw std::runtime_error("model exploded"); };
  EXPECT_EQ(udf_error_of(s, args_batch(1000)),
            "udf 'lenplus' failed on 2 args (text: utf8, n: int64), 512 rows: model exploded");
  s.function = [](const Batch&) -> Column { throw UdfError("bad input"); };
  EXPECT_EQ(udf_error_of(s, args_batch(3)), "udf 'lenplus': bad input");
  s.function = [](const Batch&) -> Column { throw UdfError("udf 'lenplus' said no"); };
  EXPECT_EQ(udf_error_of(s, args_batch(3)), "udf 'lenplus' said no");
  s.function = [](const Batch&) -> Column { throw 42; };
  EXPECT_NE(udf_error_of(s, args_batch(3)).find("unknown exception"), std::string::npos);
}

}  // namespace
}  // namespace ember
