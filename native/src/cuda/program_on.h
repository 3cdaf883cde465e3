// The fused program evaluator (program.cu) with inputs that may already be on the device and an
// output that may stay there: the device-resident path (resident.cu) calls it directly.
#pragma once
#include <vector>

#include "../program.h"

namespace gf {
namespace cuda {

// inputs[i] is a device pointer where onDevice[i], host memory elsewhere. outOnDevice (programs
// without a reduction only): out is a device buffer of n elements; else host memory as in
// runProgram. Returns when the result is complete.
void runProgramOn(const Program& p, const std::vector<InputView>& inputs, const std::vector<char>& onDevice, void* out, bool outOnDevice);

}  // namespace cuda
}  // namespace gf
