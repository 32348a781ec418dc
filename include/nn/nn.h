/* nn's embedding API: a C ABI for running nn inside a host application.
 *
 * A host creates isolated interpreter states (any number, each used by one
 * thread at a time; two states run in two threads at once), runs source
 * text or files in them, looks up and calls the functions they define with
 * tensors and scalars, passes its own memory in as tensors without copying
 * and reads results back the same way, limits a state's memory and time,
 * and cancels a run from another thread. Every call returns a status; an
 * error's message, class and source location are read from the state's
 * last error. No C++ exception crosses this interface, and no input makes
 * it abort: a wrong argument is NN_INVALID_ARGUMENT with a message.
 *
 * Values (nn_value) are handles the host owns and frees with
 * nn_value_free; a handle works with the state that made it only, and
 * may outlive it (the state's memory goes with its last handle). A state
 * and its handles are used by one thread at a time, but nn_cancel.
 * docs/embedding.md is the guide, and examples/embed/ a complete program. */
#ifndef NN_NN_H
#define NN_NN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NN_API_VERSION 1

typedef struct nn_state nn_state;
typedef struct nn_value nn_value;
typedef struct nn_error nn_error;

typedef enum nn_status {
  NN_OK = 0,
  NN_ERROR = 1,            /* the program raised an error (nn_last_error) */
  NN_OUT_OF_MEMORY = 2,    /* the system's memory or the state's memory limit ran out */
  NN_CANCELLED = 3,        /* nn_cancel stopped the run */
  NN_TIME_LIMIT = 4,       /* the run passed the time limit */
  NN_EXIT = 5,             /* the program called exit() (nn_error_exit_status) */
  NN_INVALID_ARGUMENT = 6, /* the host passed something wrong (nn_last_error says what) */
  NN_STEP_LIMIT = 7        /* the run passed its step limit (nn_set_step_limit) */
} nn_status;

typedef enum nn_mode {
  NN_MODE_GRAPH = 0, /* functions compiled to static graphs (the default) */
  NN_MODE_EAGER = 1  /* op by op */
} nn_mode;

typedef enum nn_dtype { NN_F32 = 0, NN_F64 = 1, NN_I32 = 2, NN_I64 = 3, NN_BOOL = 4 } nn_dtype;

typedef enum nn_kind {
  NN_KIND_NONE = 0,
  NN_KIND_BOOL = 1,
  NN_KIND_INT = 2,
  NN_KIND_FLOAT = 3,
  NN_KIND_STR = 4,
  NN_KIND_TENSOR = 5,
  NN_KIND_TUPLE = 6,
  NN_KIND_LIST = 7,
  NN_KIND_DICT = 8,
  NN_KIND_FUNCTION = 9, /* a function, lambda, builtin or bound method */
  NN_KIND_OTHER = 10    /* a module, range, dtype, ... */
} nn_kind;

/* The library's version ("0.1.0") and NN_API_VERSION as it was built, for
 * a host to check that the library it loaded matches the header. */
const char* nn_version(void);
int nn_api_version(void);

/* ---- states ---- */

typedef struct nn_options {
  size_t size;             /* sizeof(nn_options): set by nn_options_init */
  nn_mode mode;            /* NN_MODE_GRAPH */
  int jit;                 /* graph mode: compile fused kernels to native code (1) */
  int cpu_devices;         /* 1: "cpu" only; N: also the logical cpu:1 .. cpu:N-1 */
  const char* search_path; /* ':'-separated folders `import` searches first; NULL: none */
  const char* library_dir; /* nn's library modules (optim, nn, ...); NULL: the installed ones */
  int device_plugins;      /* load device plugins, which add cuda:N where there is a GPU (1) */
  const char* plugin_path; /* ':'-separated folders of plugins; NULL: $NN_PLUGIN_PATH, else
                              the folder of libnn.so (or of the host, linked statically) */
} nn_options;

/* Fills `options` with the defaults. */
void nn_options_init(nn_options* options);

/* A new state; `options` may be NULL (the defaults). NULL only when memory
 * runs out or `options` is malformed. */
nn_state* nn_state_new(const nn_options* options);
/* Frees a state and what it holds but the values of handles still alive
 * (freed with the last of them); NULL is ignored. */
void nn_state_free(nn_state* state);

/* Where the state writes print() output (stream 1) and warnings and the
 * script's writes to sys.stderr (stream 2):
 * `write(context, stream, text, length)`. NULL: stdout and stderr (the
 * default). */
typedef void (*nn_write_fn)(void* context, int stream, const char* text, size_t length);
void nn_set_output(nn_state* state, nn_write_fn write, void* context);

/* ---- running code ---- */

/* Runs source text in the state's main module; `name` is the file name its
 * errors show (NULL: "<host>"). Names it defines stay defined for later
 * runs and calls. */
nn_status nn_run_string(nn_state* state, const char* code, const char* name);
/* Runs a script file in the state's main module. */
nn_status nn_run_file(nn_state* state, const char* path);

/* A global of the main module (a function, a tensor, ...) as a new handle
 * in *out; NN_ERROR (a NameError) when it is not defined. */
nn_status nn_get_global(nn_state* state, const char* name, nn_value** out);
/* Defines or replaces a global of the main module; NN_INVALID_ARGUMENT
 * from a host function while the state is running. */
nn_status nn_set_global(nn_state* state, const char* name, const nn_value* value);

/* Calls `function` with `nargs` positional arguments; the result is a new
 * handle in *result (which may be NULL to drop it). */
nn_status nn_call(nn_state* state, const nn_value* function, nn_value* const* args, size_t nargs,
                  nn_value** result);
/* nn_call with keyword arguments besides: `nkw` names and values. */
nn_status nn_call_kw(nn_state* state, const nn_value* function, nn_value* const* args, size_t nargs,
                     const char* const* kwnames, nn_value* const* kwargs, size_t nkw, nn_value** result);
/* nn_call of the global function `name`. */
nn_status nn_call_global(nn_state* state, const char* name, nn_value* const* args, size_t nargs,
                         nn_value** result);

/* ---- host functions ---- */

/* A function of the host application that scripts call by name. It gets
 * the call's positional arguments (handles nn owns, valid during the call)
 * and stores its result in *result (a new handle it made, or NULL for
 * None). It returns NN_OK, or NN_ERROR after nn_raise to raise an error at
 * the script's call. It may make and read values but not run code on the
 * state, which is running. */
typedef nn_status (*nn_host_fn)(void* context, nn_state* state, nn_value* const* args, size_t nargs,
                                nn_value** result);
/* Makes `name` the host function `fn`, called with `context`, for code
 * compiled from now on: it resolves as a builtin does (ahead of the
 * builtins; a global of that name shadows it), and scripts call it like
 * any function, in both modes. Each call is an effect: graph mode makes
 * it in program order with the other effects, one at a time, never
 * dropped, merged or moved (possibly from one of its worker threads). */
nn_status nn_register_function(nn_state* state, const char* name, nn_host_fn fn, void* context);
/* Inside a host function: the error its call raises when the function
 * returns NN_ERROR. `type` names a Python exception class ("ValueError";
 * NULL or unknown: "RuntimeError"). */
nn_status nn_raise(nn_state* state, const char* type, const char* message);

/* ---- limits and cancellation ---- */

/* Caps the bytes of host memory the state holds at once: its tensors on
 * its CPU devices, and the strs, lists, tuples, dicts and tensor handles
 * its code makes. An allocation past it fails with NN_OUT_OF_MEMORY at the
 * operation that asked (the state stays usable); a size the script
 * computes (s * n, list(range(n)), a join, a format width) is refused
 * before anything is allocated. 0: no cap (the default). Memory passed in
 * by nn_tensor_wrap is the host's and does not count. */
nn_status nn_set_memory_limit(nn_state* state, size_t bytes);
/* Bytes of host memory the state holds now, as the limit counts them. */
size_t nn_memory_used(const nn_state* state);
/* Stops each later run or call that takes longer than `seconds` of wall
 * time with NN_TIME_LIMIT, at its next operation, loop iteration or call.
 * 0: no limit (the default). */
nn_status nn_set_time_limit(nn_state* state, double seconds);
/* Stops each later run or call with NN_STEP_LIMIT once it has taken
 * `steps` steps: a step is one loop iteration or one function call.
 * Unlike time, the count is the same on every machine and every run of the
 * same code in the same mode (graph mode inlines some calls, which then
 * take no step). A budget of work that a script cannot escape, as long as
 * its operations are bounded too (nn_set_memory_limit). 0: no limit (the
 * default). */
nn_status nn_set_step_limit(nn_state* state, uint64_t steps);
/* Stops the state's current run or call with NN_CANCELLED at its next
 * operation, loop iteration or call; callable from any thread (not from a
 * signal handler). The script cannot catch it. Without a run in progress
 * it does nothing. */
void nn_cancel(nn_state* state);

/* ---- errors ---- */

/* The error of the state's last failed call, valid until the next call on
 * the state; NULL when the last call succeeded. */
const nn_error* nn_last_error(const nn_state* state);
nn_status nn_error_status(const nn_error* error);
/* The message, e.g. "shape mismatch in matmul: f32[2,3] @ f32[4,5]". */
const char* nn_error_message(const nn_error* error);
/* Python's exception class, e.g. "ValueError", "MemoryError". */
const char* nn_error_type(const nn_error* error);
/* Where it happened: file name, 1-based line and column (0 when the error
 * has no source location: a missing file, a bad argument). */
const char* nn_error_file(const nn_error* error);
int nn_error_line(const nn_error* error);
int nn_error_column(const nn_error* error);
/* Where the failing code ends: its last line, and the column just past
 * its last character (0 without a location). */
int nn_error_end_line(const nn_error* error);
int nn_error_end_column(const nn_error* error);
/* The whole diagnostic as the nn command prints it: message, source line,
 * caret and call trace. */
const char* nn_error_text(const nn_error* error);
/* exit(n)'s n, for NN_EXIT. */
int nn_error_exit_status(const nn_error* error);

/* ---- values ---- */

void nn_value_free(nn_value* value);
nn_kind nn_value_kind(const nn_value* value);
/* A new handle to the same value. */
nn_value* nn_value_copy(const nn_value* value);
/* str(value), as print shows it; the text is owned by the handle. */
const char* nn_value_str(nn_value* value);

nn_value* nn_none(nn_state* state);
nn_value* nn_bool(nn_state* state, int value);
nn_value* nn_int(nn_state* state, int64_t value);
nn_value* nn_float(nn_state* state, double value);
/* A str from `length` bytes of UTF-8 (-1: up to the terminating NUL). */
nn_value* nn_str(nn_state* state, const char* text, ptrdiff_t length);
/* A tuple or list of `n` values (each copied into it). */
nn_value* nn_tuple(nn_state* state, nn_value* const* items, size_t n);
nn_value* nn_list(nn_state* state, nn_value* const* items, size_t n);

/* A dict of `n` str keys and their values (a repeated key: the last value). */
nn_value* nn_dict(nn_state* state, const char* const* keys, nn_value* const* values, size_t n);

/* Reading scalars: NN_INVALID_ARGUMENT when the value is not one (a bool
 * reads as an int and a float; an int as a float). */
nn_status nn_get_bool(const nn_value* value, int* out);
nn_status nn_get_int(const nn_value* value, int64_t* out);
nn_status nn_get_float(const nn_value* value, double* out);
/* The UTF-8 text of a str (owned by the handle) and its length; NULL when
 * the value is not a str. */
const char* nn_get_str(const nn_value* value, size_t* length);
/* Items of a tuple or list: the count (0 for other values), and a new
 * handle to item i (NULL out of range). */
size_t nn_sequence_size(const nn_value* value);
nn_value* nn_sequence_item(const nn_value* value, size_t i);

/* Entries of a dict, in insertion order: the count (0 for other values),
 * key i (owned by the dict; NULL out of range), a new handle to value i,
 * and a new handle to the value of `key` (NULL when absent). */
size_t nn_dict_size(const nn_value* value);
const char* nn_dict_key(const nn_value* value, size_t i);
nn_value* nn_dict_value(const nn_value* value, size_t i);
nn_value* nn_dict_get(const nn_value* value, const char* key);

/* ---- tensors ---- */

/* A tensor on the CPU holding a copy of `data` (row-major, `ndim` dims of
 * `shape`); NULL with the state's last error set when the arguments are
 * wrong or memory runs out. */
nn_value* nn_tensor_copy(nn_state* state, nn_dtype dtype, const int64_t* shape, int ndim, const void* data);
/* A tensor on the CPU over the host's memory `data`, without copying: nn
 * reads it in place and never writes it (tensors are values; results get
 * memory of their own). `data` stays valid and unchanged until nn calls
 * `release(release_context)` (may be NULL), once, when the last tensor on
 * it is gone. It is aligned to the dtype's size. */
nn_value* nn_tensor_wrap(nn_state* state, nn_dtype dtype, const int64_t* shape, int ndim, void* data,
                         void (*release)(void* release_context), void* release_context);
/* A tensor's dtype, number of dims and dims (NULL when not a tensor). */
nn_status nn_tensor_info(const nn_value* tensor, nn_dtype* dtype, int* ndim, const int64_t** shape);
/* The tensor's elements, row-major and contiguous, readable until the
 * handle is freed: in place when the tensor already is so on the CPU,
 * else a copy the handle keeps. NULL (with the state's last error) for a
 * tensor that cannot be read here. */
const void* nn_tensor_data(nn_value* tensor);
/* The number of elements and of bytes of nn_tensor_data. */
int64_t nn_tensor_numel(const nn_value* tensor);
size_t nn_tensor_nbytes(const nn_value* tensor);

#ifdef __cplusplus
}
#endif

#endif /* NN_NN_H */
