/* A host application embedding nn through its C API (include/nn/nn.h):
 * it loads a model script, trains it on data held in its own arrays
 * (passed in without copying), reads the predictions back in place, and
 * shows what an error and a time limit look like to a host.
 *
 *   host MODEL.nn LIBRARY_DIR
 *
 * Built with the project (build/examples/embed/host) and run by the tests. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <nn/nn.h>

enum { N = 200, FEATURES = 2 };

/* Two clusters around (-1, -1) and (1, 1), from a fixed linear
 * congruential sequence so that every run sees the same data. */
static void make_data(float* x, int64_t* y) {
  uint32_t s = 12345;
  for (int i = 0; i < N; ++i) {
    y[i] = i % 2;
    for (int j = 0; j < FEATURES; ++j) {
      s = s * 1664525u + 1013904223u;
      float noise = (float)(s >> 8) / (float)(1u << 24) - 0.5f;
      x[i * FEATURES + j] = (y[i] ? 1.0f : -1.0f) + noise;
    }
  }
}

static int check(nn_state* state, nn_status status, const char* what) {
  if (status == NN_OK) return 1;
  fprintf(stderr, "%s failed:\n%s", what, nn_error_text(nn_last_error(state)));
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL.nn LIBRARY_DIR\n", argv[0]);
    return 2;
  }
  nn_options options;
  nn_options_init(&options);
  options.library_dir = argv[2];
  nn_state* state = nn_state_new(&options);
  if (!state) return 1;
  if (!check(state, nn_run_file(state, argv[1]), "loading the model")) return 1;

  float* x = malloc(sizeof(float) * N * FEATURES);
  int64_t* y = malloc(sizeof(int64_t) * N);
  make_data(x, y);
  int64_t xshape[] = {N, FEATURES}, yshape[] = {N};
  nn_value* args[4] = {nn_tensor_wrap(state, NN_F32, xshape, 2, x, NULL, NULL),
                       nn_tensor_wrap(state, NN_I64, yshape, 1, y, NULL, NULL), nn_int(state, 2),
                       nn_int(state, 100)};
  nn_value* params = NULL;
  if (!check(state, nn_call_global(state, "train", args, 4, &params), "training")) return 1;

  nn_value* query[2] = {params, args[0]};
  nn_value* predicted = NULL;
  if (!check(state, nn_call_global(state, "predict", query, 2, &predicted), "predicting")) return 1;
  const int64_t* labels = nn_tensor_data(predicted);
  int correct = 0;
  for (int i = 0; i < N; ++i) correct += labels[i] == y[i];
  printf("trained on %d points: accuracy %.3f\n", N, (double)correct / N);

  /* A wrong call: the error names the operation and its source line. */
  int64_t wrong[] = {N / FEATURES, FEATURES * 2};
  nn_value* bad = nn_tensor_wrap(state, NN_F32, wrong, 2, x, NULL, NULL);
  query[1] = bad;
  nn_status status = nn_call_global(state, "predict", query, 2, NULL);
  const nn_error* error = nn_last_error(state);
  printf("a wrong shape: status %d, %s at %s:%d:%d\n", (int)status, nn_error_type(error), nn_error_file(error),
         nn_error_line(error), nn_error_column(error));
  fputs(nn_error_text(error), stdout);

  /* A run that never ends stops at the time limit; the state goes on. */
  nn_set_time_limit(state, 0.1);
  status = nn_run_string(state, "while True:\n    pass\n", "forever.nn");
  printf("an endless loop: %s\n", status == NN_TIME_LIMIT ? "stopped by the time limit" : "not stopped");
  nn_set_time_limit(state, 0);
  check(state, nn_run_string(state, "print('still running:', 6 * 7)\n", NULL), "running on");
  fflush(stdout);

  nn_value_free(bad);
  nn_value_free(predicted);
  nn_value_free(params);
  for (int i = 0; i < 4; ++i) nn_value_free(args[i]);
  nn_state_free(state);
  free(x);
  free(y);
  return 0;
}
