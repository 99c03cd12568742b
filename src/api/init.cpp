// ember::init: the start-up every runner needs from main(), in one place; ember::cluster().
#include "ember/init.h"

#include "dist/launch.h"
#include "ember/cluster.h"
#include "io/output/upload_guard.h"
#include "udf/process/worker_entry.h"

namespace ember {

void init(int argc, char** argv) {
  // The guard of a write's uploads, started as this program again, serves here and exits.
  serve_upload_guard_if_asked();
  // A worker process serves its driver here and never returns. It comes first: a worker
  // process of a rank inherits the launcher's environment but is no rank itself.
  process::enter_from_main(argc, argv);
  // A write to an object store starts its guard as this program (a worker's command line).
  if (auto command = process::recorded_command_line()) set_upload_guard_command(*command);
  // Under mpirun: every rank but 0 serves rank 0's actors here and exits with its program.
  dist::enter_from_main(argc, argv);
}

ClusterInfo cluster() { return dist::cluster_info(); }

}  // namespace ember
