// Conv2DGeometry (glassgrad/autodiff/conv_geometry.h): reading the attributes, once.
#include "glassgrad/autodiff/conv_geometry.h"

namespace glassgrad {

int64_t conv_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_lo, int64_t pad_hi, int64_t dilation) {
  const int64_t span = in + pad_lo + pad_hi - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  return span / stride + 1;
}

Conv2DGeometry Conv2DGeometry::from(const Shape& input, const Shape& weight, const Attrs& a) {
  Conv2DGeometry g;
  g.n = input[0], g.c = input[1], g.h = input[2], g.w = input[3];
  g.k = weight[0], g.r = weight[2], g.s = weight[3];
  if (a.has("stride")) {
    const auto& st = a.ints("stride");
    g.sh = st[0], g.sw = st[1];
  }
  if (a.has("padding")) {
    const auto& p = a.ints("padding");
    g.pt = p[0], g.pb = p[1], g.pl = p[2], g.pr = p[3];
  }
  if (a.has("dilation")) {
    const auto& d = a.ints("dilation");
    g.dh = d[0], g.dw = d[1];
  }
  g.groups = a.i("groups", 1);
  g.ho = conv_output_size(g.h, g.r, g.sh, g.pt, g.pb, g.dh);
  g.wo = conv_output_size(g.w, g.s, g.sw, g.pl, g.pr, g.dw);
  return g;
}

}  // namespace glassgrad
