// The DIOPI headers and the operator face are self-contained C++17: an op
// library or a framework written in C++ includes them first.
#include "backplane/diopi/diopi_register.h"
#include "backplane/diopi/diopirt.h"
#include "backplane/diopi/functions.h"
#include "backplane/diopi/functions_backplane.h"
#include "backplane/ops.h"

static_assert(DIOPI_VERSION == 1000, "DIOPI 1.0");
static_assert(diopiNoImplement == 13, "DIOPI's value");
static_assert(diopi_dtype_bfloat16 == 12, "DIOPI's value");
static_assert(sizeof(diopiSize_t) == 16, "pointer + int64");
static_assert(sizeof(diopiScalar_t) == 16, "dtype + union");

// A function pointer of each kind, so every declaration is parsed and used.
extern "C" int diopi_headers_cxx17_signatures(void) {
  decltype(&diopiAdd) add = nullptr;
  decltype(&diopiConvolution2dBackward) conv = nullptr;
  decltype(&diopiGridSamplerBackward) sampler = nullptr;
  decltype(&diopiRequireTensor) require = &diopiRequireTensor;
  decltype(&bp_ops_library_open) open = &bp_ops_library_open;
  decltype(&diopiRegisterDeviceMallocFunc) reg = &diopiRegisterDeviceMallocFunc;
  return (add == nullptr) + (conv == nullptr && sampler == nullptr) +
         (require != nullptr) + (open != nullptr) + (reg != nullptr);
}
