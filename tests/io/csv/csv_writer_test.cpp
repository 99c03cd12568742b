// The CSV writer's text: quoting, nulls, number forms, fields larger than its buffer, and
// output spanning several flushes.
#include "io/csv/csv_writer.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "io/temp_dir.h"

namespace ember {
namespace {

using testing_io::read_file;
using testing_io::TempDir;

std::string write_one(const Batch& batch) {
  TempDir dir;
  {
    CsvWriter w(dir.path(), "out.csv", batch.schema());
    w.write(batch);
    w.commit();
  }
  return read_file(dir.file("out.csv"));
}

TEST(CsvWriter, QuotesOnlyWhatNeedsItAndWritesNumbersExactly) {
  const Schema schema({{"i", int64()}, {"x", float64()}, {"b", boolean()}, {"s", utf8()}});
  const Batch batch(
      schema,
      {Column::from(
           std::vector<std::optional<int64_t>>{-9223372036854775807 - 1, 0, std::nullopt, 42, 7}),
       Column::from(std::vector<std::optional<double>>{3.0, 0.1, 1e300, std::nullopt, -2.5e-8}),
       Column::from(std::vector<std::optional<bool>>{true, false, std::nullopt, true, false}),
       Column::from(std::vector<std::optional<std::string>>{"plain", "a,b", "say \"hi\"", "",
                                                            std::nullopt})});
  EXPECT_EQ(write_one(batch),
            "i,x,b,s\n"
            "-9223372036854775808,3.0,true,plain\n"
            "0,0.1,false,\"a,b\"\n"
            ",1e+300,,\"say \"\"hi\"\"\"\n"
            "42,,true,\"\"\n"
            "7,-2.5e-08,false,\n");
}

TEST(CsvWriter, EdgeSpacesLineBreaksAndInt32Float32) {
  const Schema schema({{"n", int32()}, {"f", float32()}, {"s", utf8()}});
  const Batch batch(schema, {Column::from(std::vector<int32_t>{-5, 2147483647}),
                             Column::from(std::vector<float>{0.5f, 2.0f}),
                             Column::from(std::vector<std::string>{" lead", "two\r\nlines"})});
  EXPECT_EQ(write_one(batch), "n,f,s\n-5,0.5,\" lead\"\n2147483647,2.0,\"two\r\nlines\"\n");
}

TEST(CsvWriter, FieldsLargerThanTheBufferAndManyFlushes) {
  // One quoted field of 6 MB of quotes (12 MB doubled, past the 4 MB flush size), then enough
  // rows to flush several times: every byte must arrive, in order.
  const std::string quotes(6u << 20, '"');
  std::vector<std::string> texts = {quotes};
  std::vector<int64_t> ids = {0};
  for (int64_t i = 1; i < 400000; ++i) {
    texts.push_back("row" + std::to_string(i));
    ids.push_back(i);
  }
  const Batch batch(Schema({{"id", int64()}, {"s", utf8()}}),
                    {Column::from(ids), Column::from(texts)});
  std::string expected = "id,s\n0,\"" + std::string(12u << 20, '"') + "\"\n";
  for (int64_t i = 1; i < 400000; ++i)
    expected += std::to_string(i) + ",row" + std::to_string(i) + "\n";
  const std::string got = write_one(batch);
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

}  // namespace
}  // namespace ember
