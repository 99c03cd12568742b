// ember::init: the start-up every runner needs from main(), in one place.
#include "ember/init.h"

#include "udf/process/worker_entry.h"

namespace ember {

void init(int argc, char** argv) {
  // A worker process serves its driver here and never returns.
  process::enter_from_main(argc, argv);
}

}  // namespace ember
