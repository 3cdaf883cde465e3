// The specialised kernel for random leaf -> scalar ops -> strided region -> reduction over all
// axes (fast.cu). Each returns false, having done nothing, when the program is not of that form
// (or GPUFLOW_CUDA_GENERAL=1 asks for the general interpreter).
#pragma once
#include "../program.h"

namespace gf {
namespace cuda {

bool fastRun(const Program& p, void* out);          // writes the partial into out (doubles)
bool fastBench(const Program& p, int reps, double& ms);  // ms per chunk (kernel + fold), events

}  // namespace cuda
}  // namespace gf
