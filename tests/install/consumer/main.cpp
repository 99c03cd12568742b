// Runs a tiny query through the installed (or embedded) ember and checks its answer.
#include <ember/ember.h>

#include <cstdio>

int main(int argc, char** argv) {
  ember::init(argc, argv);
  auto t = ember::range(1000, 4)
               .where(ember::col("id") % ember::lit(int64_t{10}) == ember::lit(int64_t{0}))
               .collect();
  int64_t sum = 0;
  ember::Column c = t.column("id");
  for (int64_t i = 0; i < c.size(); ++i) sum += c.value<int64_t>(i);
  std::printf("rows=%lld sum=%lld\n", static_cast<long long>(t.num_rows()),
              static_cast<long long>(sum));
  return (t.num_rows() == 100 && sum == 49500) ? 0 : 1;
}
