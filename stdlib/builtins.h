// The builtin functions and methods of language.md §5: the table of their
// implementations, by name.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/interpreter.h"

namespace nn::stdlib {

const std::set<std::string>& builtinNames();
// The builtin function value for `name` (which must be in builtinNames()).
rt::Value makeBuiltin(const std::string& name);
// The builtin function object of that name, made once for the process and
// never changed (null when there is none).
const rt::Value* findBuiltin(const std::string& name);
// Methods and attributes of lists, dicts, strings, tuples and functions.
rt::Value attribute(const rt::Value& obj, const std::string& name, SourceLoc loc);
// The method `name` of lists, dicts, strs or tuples (`receiver`), which a
// bound method calls with its receiver first; null when there is none.
rt::BuiltinFn hostMethod(rt::Kind receiver, const std::string& name);
// The methods named `name` of every receiver kind, or null (a call_method
// node's lookup, made once per node).
const rt::MethodsNamed* methodsNamed(const std::string& name);
// The names attribute() answers for obj, sorted (dir(x)).
std::vector<std::string> attributeNames(const rt::Value& obj);

using BuiltinTable = std::map<std::string, rt::BuiltinFn>;

// The builtins of the tensor ops marked FUNC, and seed() (builtins_tensor.cpp).
void addTensorBuiltins(BuiltinTable& table);
rt::Value tensorAttribute(const rt::Value& obj, const std::string& name, SourceLoc loc);
// PyTorch's tensor methods that are no op of their own (x.to(dtype),
// x.view_as(y), x.narrow, ...; pytorch_methods.cpp), or null.
rt::BuiltinFn pytorchTensorMethod(const std::string& name);
// masked_select(x, mask): x[mask] with both broadcast first (a 1-d tensor).
rt::Value maskedSelect(rt::CallContext& c, rt::Value x, rt::Value mask);
// What a PyTorch tensor attribute nn has no counterpart of (backward,
// numpy, ...) is in nn, for its error message; "" for other names.
std::string pytorchAttributeHint(const std::string& name);
// A tensor's attributes and methods that are not tensor ops (shape, size, ...).
const std::vector<std::string>& tensorAttributeNames();
// A tensor math op applied by a core builtin (abs(t), round(t)).
rt::Value tensorMath(rt::CallContext& c, const rt::Value& x, nn::ir::Op op);
// sum/max/min/all/any applied to a tensor (the core builtins delegate).
rt::Value tensorReduction(rt::CallContext& c, std::vector<rt::Value>& args, ir::Op op);

// devices, device, sync, memory_stats, reset_peak_memory_stats
// (builtins_devices.cpp), and the device a name
// denotes (an error at loc when it does not exist, or the fallback).
void addDeviceBuiltins(BuiltinTable& table);
rt::Device& deviceNamed(rt::Interpreter& interp, const std::string& name, SourceLoc loc);

// einsum (einsum.cpp).
void addEinsumBuiltin(BuiltinTable& table);

// lerp, nan_to_num, count_nonzero, meshgrid, diff, movedim, moveaxis,
// cross, kron and cdist (tensor_composites.cpp), and the function of those that are also
// tensor methods, by name (or null).
void addTensorComposites(BuiltinTable& table);
rt::BuiltinFn tensorCompositeMethod(const std::string& name);

// bmm, mv, dot, vdot, inner, tensordot, trace, addmm, addmv, addr,
// baddbmm and addbmm (tensor_products.cpp), and the function of those that
// are also tensor methods, by name (or null).
void addTensorProducts(BuiltinTable& table);
rt::BuiltinFn tensorProductMethod(const std::string& name);

// slogdet, logdet, matrix_power, eigh, svd and qr (tensor_linalg.cpp), all
// but eigh also tensor methods, by name (or null).
void addTensorLinalg(BuiltinTable& table);
rt::BuiltinFn tensorLinalgMethod(const std::string& name);

// lu, lu_unpack, lu_solve and triangular_solve (lu_decomposition.cpp), and
// the function of those that are also tensor methods, by name (or null).
void addLuDecomposition(BuiltinTable& table);
rt::BuiltinFn luDecompositionMethod(const std::string& name);

// numel, clamp_max and masked_select as functions, dist, pinverse,
// select_scatter, slice_scatter, is_tensor, broadcast_shapes,
// result_type, promote_types and can_cast (torch_functions.cpp), and the
// function of those that are also tensor methods, by name (or null).
void addTorchFunctions(BuiltinTable& table);
rt::BuiltinFn torchFunctionMethod(const std::string& name);

// ndimension, nelement, element_size, is_contiguous, get_device,
// new_tensor, where, sum_to_size, split_with_sizes, conj and the other
// complex queries (tensor_method_extras.cpp), tensor methods, by name (or
// null).
rt::BuiltinFn tensorMethodExtra(const std::string& name);

// gradient (finite_differences.cpp).
void addFiniteDifferences(BuiltinTable& table);

// tile, the stacks, atleast_1d/2d/3d, fliplr, flipud, rot90,
// repeat_interleave, take_along_dim, broadcast_tensors, block_diag,
// cartesian_prod, tensor_split and its kin, unflatten, tril_indices,
// triu_indices, and narrow, select, index_select and unbind as functions
// (tensor_arrange.cpp), and the function of those that are also tensor
// methods, by name (or null).
void addTensorArrangements(BuiltinTable& table);
rt::BuiltinFn tensorArrangeMethod(const std::string& name);

// index_add, index_copy, index_fill, index_reduce, take, put and
// masked_scatter (index_updates.cpp), functions and tensor methods, by
// name (or null).
void addIndexUpdates(BuiltinTable& table);
rt::BuiltinFn indexUpdateMethod(const std::string& name);

// diagonal, diag_embed and diagflat (diagonals.cpp), functions and tensor
// methods, by name (or null).
void addDiagonalEmbeddings(BuiltinTable& table);
rt::BuiltinFn diagonalEmbeddingMethod(const std::string& name);

// trapezoid (trapz) and cumulative_trapezoid (trapezoid.cpp).
void addTrapezoids(BuiltinTable& table);

// equal, is_floating_point, is_complex, is_signed, is_nonzero and
// is_same_size (tensor_predicates.cpp), functions and tensor methods, by
// name (or null).
void addTensorPredicates(BuiltinTable& table);
rt::BuiltinFn tensorPredicateMethod(const std::string& name);

// logspace and the signal windows (windows.cpp).
void addWindows(BuiltinTable& table);

// median, nanmedian, kthvalue, quantile, nanquantile, nansum, nanmean,
// var_mean, std_mean, aminmax, cummax and cummin (tensor_statistics.cpp), and the function
// of those that are also tensor methods, by name (or null).
void addTensorStatistics(BuiltinTable& table);
rt::BuiltinFn tensorStatisticMethod(const std::string& name);

// trunc, fix, frac, deg2rad, rad2deg, sinc, logaddexp, xlogy, heaviside,
// float_power, logit, fmax, fmin, ldexp and polygamma
// (tensor_math_composites.cpp), and the function of those that are also
// tensor methods, by name (or null).
void addTensorMathComposites(BuiltinTable& table);
rt::BuiltinFn tensorMathCompositeMethod(const std::string& name);

// conv_transpose2d (conv_transpose.cpp).
void addConvTranspose(BuiltinTable& table);

// binary_cross_entropy_with_logits and nll_loss (loss_composites.cpp).
void addLossComposites(BuiltinTable& table);
// max_pool2d_with_indices (pool_indices.cpp).
void addPoolIndices(BuiltinTable& table);

// searchsorted, bucketize, isin, bincount, histc and unique
// (tensor_search.cpp),
// and the function of those that are also tensor methods, by name (or
// null).
void addTensorSearches(BuiltinTable& table);
rt::BuiltinFn tensorSearchMethod(const std::string& name);
// multinomial, rand_like, randn_like, randint_like and bernoulli
// (tensor_sampling.cpp).
void addTensorSampling(BuiltinTable& table);

// format, hex, oct, bin, chr, ord (builtins_text.cpp).
void addTextBuiltins(BuiltinTable& table);

// type, isinstance, callable, Tensor and the exception classes
// (builtins_types.cpp).
void addTypeBuiltins(BuiltinTable& table);

// iter, next (builtins_iterators.cpp).
void addIteratorBuiltins(BuiltinTable& table);

// time, and _clock, _sleep, _strftime behind the time module
// (builtins_time.cpp).
void addTimeBuiltins(BuiltinTable& table);

// _libm, the C math library's functions behind the math module, and
// _vector_norm, behind math.hypot and math.dist (builtins_libm.cpp).
void addLibmBuiltin(BuiltinTable& table);

// sys.stdout and sys.stderr (streams.cpp): a stream's methods write and
// flush by name (an AttributeError at loc for any other), and the stream
// print's file= names (None: stdout; an AttributeError unless a stream).
rt::Value streamAttribute(const rt::Value& stream, const std::string& name, SourceLoc loc);
const std::vector<std::string>& streamAttributeNames();
std::ostream& printStream(rt::CallContext& c, const rt::Value* file);

// getattr, hasattr (builtins_attributes.cpp).
void addAttributeBuiltins(BuiltinTable& table);

// grad, value_and_grad, stop_gradient (builtins_grad.cpp).
void addGradBuiltins(BuiltinTable& table);

// load, save, load_csv, save_csv (io.cpp).
void addIoBuiltins(BuiltinTable& table);

// progress (progress.cpp) and _batches, the loader behind data.batches
// (data_batches.cpp).
void addProgressBuiltins(BuiltinTable& table);
void addDataBuiltins(BuiltinTable& table);

// Helpers shared by the builtin implementations.
// Fails with Python's message for a call of c.name with the wrong number
// of arguments (between min and max, SIZE_MAX: no bound).
[[noreturn]] void arityError(rt::CallContext& c, const std::vector<rt::Value>& args, size_t min, size_t max);
inline void checkArity(rt::CallContext& c, const std::vector<rt::Value>& args, size_t min, size_t max) {
  if (args.size() < min || args.size() > max) [[unlikely]]
    arityError(c, args, min, max);
}
std::vector<rt::Value> iterate(const rt::Value& v, SourceLoc loc);
// iterate() with a tensor's rows too (on the tape when one records).
std::vector<rt::Value> iterate(rt::CallContext& c, const rt::Value& v);
int64_t toIndex(const rt::Value& v, SourceLoc loc);

}  // namespace nn::stdlib
