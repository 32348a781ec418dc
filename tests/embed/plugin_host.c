/* A host linked with libnn.so that loads a device plugin into its state:
 * the plugin (the CUDA one, or the tests' fake cuda:0) resolves nn's
 * symbols from libnn.so. The host passes its own array in, has the script
 * compute on cuda:0, and reads the result back, which nn_tensor_data
 * copies to the host. A second state, without plugins, shows the located
 * error for the same device and the note of why it is missing.
 *
 *   plugin_host PLUGIN_FOLDER          (prints what it saw; exit 0 or 1) */
#include <stdio.h>

#include <nn/nn.h>

static const char* kScript =
    "def scaled(x):\n"
    "    with device('cuda:0'):\n"
    "        y = x + x\n"
    "    return y\n"
    "def where(x):\n"
    "    return str(x.device)\n";

static int failed(nn_state* state, const char* what) {
  fprintf(stderr, "%s failed:\n%s", what, nn_error_text(nn_last_error(state)));
  return 1;
}

static int withPlugin(const char* folder) {
  nn_options options;
  nn_options_init(&options);
  options.plugin_path = folder;
  nn_state* state = nn_state_new(&options);
  if (!state) return 1;
  if (nn_run_string(state, "print(devices())\n", "devices.nn") != NN_OK) return failed(state, "devices()");
  if (nn_run_string(state, kScript, "plugin.nn") != NN_OK) return failed(state, "the script");

  float data[4] = {0.0f, 1.0f, 2.5f, -3.0f};
  int64_t shape[1] = {4};
  nn_value* x = nn_tensor_wrap(state, NN_F32, shape, 1, data, NULL, NULL);
  nn_value* y = NULL;
  nn_value* where = NULL;
  if (nn_call_global(state, "scaled", &x, 1, &y) != NN_OK) return failed(state, "scaled");
  if (nn_call_global(state, "where", &y, 1, &where) != NN_OK) return failed(state, "where");
  printf("result on %s:", nn_get_str(where, NULL));
  const float* out = nn_tensor_data(y);
  if (!out) return failed(state, "nn_tensor_data");
  for (int i = 0; i < 4; ++i) printf(" %g", out[i]);
  printf("\n");
  nn_value_free(where);
  nn_value_free(y);
  nn_value_free(x);
  nn_state_free(state);
  return 0;
}

static int withoutPlugins(void) {
  nn_options options;
  nn_options_init(&options);
  options.device_plugins = 0;
  nn_state* state = nn_state_new(&options);
  if (!state) return 1;
  if (nn_run_string(state, kScript, "plugin.nn") != NN_OK) return failed(state, "the script");
  nn_value* x = nn_float(state, 1.0);
  nn_status status = nn_call_global(state, "scaled", &x, 1, NULL);
  const nn_error* error = nn_last_error(state);
  printf("without plugins: %s at %s:%d:%d\n", nn_error_message(error), nn_error_file(error), nn_error_line(error),
         nn_error_column(error));
  nn_value_free(x);
  nn_state_free(state);
  return status == NN_ERROR ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PLUGIN_FOLDER\n", argv[0]);
    return 2;
  }
  if (withPlugin(argv[1])) return 1;
  return withoutPlugins();
}
