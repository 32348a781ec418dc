// nn's own single-precision erf, in the four forms SLEEF gives its
// functions (one float, and vectors of 4, 8 and 16), which the f32 kernels
// (vector_math.h) and the JIT's fused kernels (sleef_functions.h lists it
// among SLEEF's forms) call as they call SLEEF's. SLEEF's erff evaluates
// in double-float pairs and takes 2.1 ns per element even 16 at a time,
// which made gelu the slowest op against PyTorch; this one evaluates a
// degree-9 polynomial per half-unit interval of |x| in double (the
// coefficients picked per lane by a permute), 0.8 ns per element, and
// rounds once: the correctly rounded float but where erf lies within
// 2e-12 of a halfway point between two floats (134 of the 10^9 floats
// below 4.5), and there 1 ULP off. Every form does the same double
// operations in the same order, none fused, so all give the same bits.
// The 8-wide form needs AVX2 (widestForm offers it only then); the
// 16-wide, AVX-512F.
#pragma once

#include <immintrin.h>

extern "C" {
float nn_erff1(float x);
__m128 nn_erff4(__m128 x);
__m256 nn_erff8(__m256 x);
__m512 nn_erff16(__m512 x);
}
