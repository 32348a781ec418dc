// nn's own single-precision erf, in the four forms SLEEF gives its
// functions (one float, and vectors of 4, 8 and 16), which the f32 kernels
// (vector_math.h) and the JIT's fused kernels (sleef_functions.h lists it
// among SLEEF's forms) call as they call SLEEF's. SLEEF's erff evaluates
// in double-float pairs and takes 2.1 ns per element even 16 at a time,
// which made gelu the slowest op against PyTorch; this one evaluates low-
// degree polynomials in float with fused multiply-adds, the coefficients
// of each lane's interval picked by a permute: 0.27 ns per element, within
// 0.75 ULP of the exact value (SLEEF's: 1 ULP), the correctly rounded
// float but for about 3% of the floats between 1/4 and 1 and fewer
// elsewhere. Every form gives the same bits. The 8-wide form needs AVX2
// and FMA (widestForm offers it only then); the 16-wide, AVX-512F.
#pragma once

#include <immintrin.h>

extern "C" {
float nn_erff1(float x);
__m128 nn_erff4(__m128 x);
__m256 nn_erff8(__m256 x);
__m512 nn_erff16(__m512 x);
}
