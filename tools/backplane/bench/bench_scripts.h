/* The Python halves of the benches (`bench python`'s measurements, the
 * PyTorch baselines of `bench ops` and `bench train`, `bench torch`'s
 * measurements): modules of the `backplane` package that came with this
 * binary (build/python/backplane beside build/bin in a build tree; in a
 * wheel, the installed package whose bin/ holds it), run by the interpreter
 * BACKPLANE_PYTHON names (`python -m backplane` sets it to itself), else
 * /usr/bin/python3. */
#ifndef BACKPLANE_TOOLS_BENCH_SCRIPTS_H_
#define BACKPLANE_TOOLS_BENCH_SCRIPTS_H_

#include <stdbool.h>
#include <stddef.h>

/* BACKPLANE_PYTHON, or /usr/bin/python3 when it is unset or empty. */
const char *bench_python_interpreter(void);

/* The directory holding the package (what PYTHONPATH needs) into out;
 * false when no backplane/__init__.py is beside this binary. */
bool bench_python_package(char *out, size_t size);

/* The path of the package's module `file` ("_bench_ops_torch.py") into
 * out; false when the package or the file is missing. */
bool bench_python_script(const char *file, char *out, size_t size);

#endif /* BACKPLANE_TOOLS_BENCH_SCRIPTS_H_ */
