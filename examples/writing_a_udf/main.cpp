// Writing a UDF: argument batches, return types, nulls, ActorContext, and what static state
// means when actors run in worker processes. docs/udfs.md quotes this file.
#include <ember/ember.h>

#include <atomic>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Constructions seen by this process. Under Isolation::Process the actors are constructed in
// worker processes, so the driver's copy stays 0: count with QueryStats::udfs[i].inits instead.
static std::atomic<int> constructions{0};

class Scorer {
 public:
  // Constructed once per actor. The ActorContext says which actor this is and what it holds.
  Scorer(const ember::InitArgs& args, const ember::ActorContext& actor)
      : bonus_(args.get<double>("bonus")) {
    ++constructions;
    // A GPU model would load onto actor.gpu_ids here (distinct devices per actor).
    std::fprintf(stderr, "scorer #%d: %.1f CPU, %zu GPU(s)\n", actor.actor_id, actor.num_cpus,
                 actor.gpu_ids.size());
  }

  // Called with at most batch_size rows; in.column(i) is the i-th argument of the call.
  ember::Column operator()(const ember::Batch& in) {
    const ember::Column& word = in.column(0);                   // utf8
    const ember::Column& weight = in.column(1);                 // float64
    ember::ColumnBuilder out(ember::float64(), in.num_rows());  // the type given to returns()
    for (int64_t row = 0; row < in.num_rows(); ++row) {
      if (word.is_null(row) || weight.is_null(row)) {
        out.append_null();
        continue;
      }
      const auto letters = static_cast<double>(word.value<std::string_view>(row).size());
      out.append(letters * weight.value<double>(row) + bonus_);
    }
    return out.finish();  // exactly in.num_rows() rows, or the query fails with a UdfError
  }

 private:
  double bonus_;
};
EMBER_REGISTER_UDF(Scorer);

// A stateless UDF is a function of the batch, run inline by the pipeline threads. Registered, a
// plain function runs on every rank of a cluster too (a lambda keeps its query on rank 0).
ember::Column exclaim(const ember::Batch& in) {
  ember::ColumnBuilder out(ember::utf8(), in.num_rows());
  for (int64_t row = 0; row < in.num_rows(); ++row) {
    if (in.column(0).is_null(row)) {
      out.append_null();
    } else {
      out.append(std::string(in.column(0).value<std::string_view>(row)) + "!");
    }
  }
  return out.finish();
}
EMBER_REGISTER_FN(exclaim);

int main(int argc, char** argv) {
  ember::init(argc, argv);
  ember::Table words = ember::Table::from_columns(
      {{"word", ember::Column::from(std::vector<std::optional<std::string>>{
                    "ember", std::nullopt, "actor", "udf", "batch"})},
       {"weight", ember::Column::from(
                      std::vector<std::optional<double>>{1.0, 2.0, std::nullopt, 0.5, 1.5})}});
  bool ok = true;

  for (ember::Isolation isolation : {ember::Isolation::Thread, ember::Isolation::Process}) {
    constructions = 0;
    auto score = ember::Udf::cls<Scorer>("score")
                     .returns(ember::float64())
                     .init_args({{"bonus", 0.25}})
                     .batch_size(2)  // 5 rows: calls of 2, 2 and 1 rows
                     .concurrency(2)
                     .num_cpus(0.5)
                     .isolation(isolation);
    ember::QueryResult r =
        ember::from_table(words)
            .with_column("score", score(ember::col("word"), ember::col("weight")))
            .execute();
    const ember::UdfStats& stats = r.stats.udfs[0];
    std::printf("%s\n", r.table.to_string().c_str());
    std::printf("constructions counted by a static: %d, inits reported by ember: %lld\n",
                constructions.load(), static_cast<long long>(stats.inits));
    // Threads: the static counts both actors. Processes: it reads 0 here in the driver.
    const int expected = isolation == ember::Isolation::Thread ? 2 : 0;
    ok = ok && constructions == expected && stats.inits == 2 && stats.batches == 3;
  }

  auto shout = ember::Udf::fn("shout", exclaim).returns(ember::utf8());
  ember::Table loud =
      ember::from_table(words).select({shout(ember::col("word")).alias("loud")}).collect();
  std::printf("%s\n", loud.to_string().c_str());
  const ember::Column shouted = loud.column("loud");
  ok = ok && shouted.value<std::string>(0) == "ember!" && shouted.is_null(1);
  return ok ? 0 : 1;
}
