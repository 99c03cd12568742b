// ember::init: the start-up every runner needs from main(), in one place; ember::cluster().
#include "ember/init.h"

#include "dist/launch.h"
#include "ember/cluster.h"
#include "udf/process/worker_entry.h"

namespace ember {

void init(int argc, char** argv) {
  // A worker process serves its driver here and never returns. It comes first: a worker
  // process of a rank inherits the launcher's environment but is no rank itself.
  process::enter_from_main(argc, argv);
  // Under mpirun: every rank but 0 serves rank 0's actors here and exits with its program.
  dist::enter_from_main(argc, argv);
}

ClusterInfo cluster() { return dist::cluster_info(); }

}  // namespace ember
