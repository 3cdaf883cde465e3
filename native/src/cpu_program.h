#pragma once
#include <vector>

#include "pool.h"
#include "program.h"

namespace gf {

// Runs a decoded program on the pool. `out` holds n elements of the program's dtype (no
// reduction) or the partial's fields, float64, field-major.
void runProgramCpu(Pool& pool, const Program& p, const std::vector<InputView>& inputs, void* out);

}  // namespace gf
