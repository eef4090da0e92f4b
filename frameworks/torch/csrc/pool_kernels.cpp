// The pooling kernels' shared pieces (pool_kernels.h).
#include "pool_kernels.h"

namespace torch_backplane {

std::vector<int64_t> pooled_shape(const char *name, const at::Tensor &self,
                                  const PoolWindow &w, bool ceil_mode) {
  int64_t dims = static_cast<int64_t>(w.k.size());
  TORCH_CHECK(self.dim() == dims + 1 || self.dim() == dims + 2, name,
              ": expected a ", dims + 1, "-D or ", dims + 2, "-D input, got ",
              self.dim(), "-D");
  std::vector<int64_t> shape = self.sizes().vec();
  for (size_t i = 0; i < w.k.size(); i++) {
    int64_t &size = shape[shape.size() - w.k.size() + i];
    size = pooled_size(size, w.k[i], w.s[i], w.p[i], w.d[i], ceil_mode);
  }
  return shape;
}

} // namespace torch_backplane
