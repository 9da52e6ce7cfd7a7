#include "copy_kernels.hpp"

#include <algorithm>
#include <cstring>
#include <span>

namespace tessera::detail {

namespace {

template <std::size_t Size>
void copy_strided_fixed(std::byte* out, const std::byte* in, index_t count, index_t stride_bytes, bool gather) {
  for (index_t e = 0; e < count; ++e) {
    if (gather)
      std::memcpy(out + e * static_cast<index_t>(Size), in + e * stride_bytes, Size);
    else
      std::memcpy(out + e * stride_bytes, in + e * static_cast<index_t>(Size), Size);
  }
}

/// Copies `count` elements between a strided array region and a packed buffer. `gather`: array ->
/// buffer (out = buffer); otherwise buffer -> array (out = array).
void copy_strided(std::byte* out, const std::byte* in, index_t count, index_t stride, std::size_t es, bool gather) {
  const index_t stride_bytes = stride * static_cast<index_t>(es);
  switch (es) {  // fixed sizes let the compiler turn each memcpy into one load and one store
    case 4:
      copy_strided_fixed<4>(out, in, count, stride_bytes, gather);
      return;
    case 8:
      copy_strided_fixed<8>(out, in, count, stride_bytes, gather);
      return;
    case 16:
      copy_strided_fixed<16>(out, in, count, stride_bytes, gather);
      return;
    default:
      for (index_t e = 0; e < count; ++e) {
        if (gather)
          std::memcpy(out + e * static_cast<index_t>(es), in + e * stride_bytes, es);
        else
          std::memcpy(out + e * stride_bytes, in + e * static_cast<index_t>(es), es);
      }
  }
}

template <std::size_t Bytes>
void copy_rows_fixed(std::byte* out, const std::byte* in, index_t rows, index_t row_stride_bytes, bool gather) {
  for (index_t r = 0; r < rows; ++r) {
    if (gather)
      std::memcpy(out + r * static_cast<index_t>(Bytes), in + r * row_stride_bytes, Bytes);
    else
      std::memcpy(out + r * row_stride_bytes, in + r * static_cast<index_t>(Bytes), Bytes);
  }
}

/// `rows` stretches of `count` elements (`stride` apart), `row_stride` elements apart, between the
/// array and a packed buffer. `gather`: array -> buffer (out = buffer).
void copy_group(std::byte* out, const std::byte* in, index_t count, index_t stride, index_t rows, index_t row_stride,
                std::size_t es, bool gather) {
  const std::size_t bytes = static_cast<std::size_t>(count) * es;
  const index_t row_bytes = row_stride * static_cast<index_t>(es);
  if (stride == 1 || count == 1) {  // short contiguous rows: fixed sizes, no memcpy call per row
    switch (bytes) {
      case 8:
        copy_rows_fixed<8>(out, in, rows, row_bytes, gather);
        return;
      case 16:
        copy_rows_fixed<16>(out, in, rows, row_bytes, gather);
        return;
      case 24:
        copy_rows_fixed<24>(out, in, rows, row_bytes, gather);
        return;
      case 32:
        copy_rows_fixed<32>(out, in, rows, row_bytes, gather);
        return;
      default:
        break;
    }
  }
  for (index_t r = 0; r < rows; ++r) {
    std::byte* o = gather ? out + r * static_cast<index_t>(bytes) : out + r * row_bytes;
    const std::byte* i = gather ? in + r * row_bytes : in + r * static_cast<index_t>(bytes);
    if (stride == 1)
      std::memcpy(o, i, bytes);
    else
      copy_strided(o, i, count, stride, es, gather);
  }
}

/// Copies `count` elements between two strided regions (strides in elements).
void copy_two_strided(std::byte* to, index_t to_stride, const std::byte* from, index_t from_stride, index_t count,
                      std::size_t es) {
  const auto e = static_cast<index_t>(es);
  if (to_stride == 1 && from_stride == 1) {
    std::memcpy(to, from, static_cast<std::size_t>(count) * es);
    return;
  }
  const index_t ts = to_stride * e, fs = from_stride * e;
  switch (es) {
    case 8:
      for (index_t i = 0; i < count; ++i) std::memcpy(to + i * ts, from + i * fs, 8);
      return;
    case 4:
      for (index_t i = 0; i < count; ++i) std::memcpy(to + i * ts, from + i * fs, 4);
      return;
    default:
      for (index_t i = 0; i < count; ++i) std::memcpy(to + i * ts, from + i * fs, es);
  }
}

/// True if two blocks have the same axes with runs of the same lengths and counts: their
/// enumerations then pair up run by run, and one recursive walk can copy both at once.
bool same_shape(const Schedule& s, const Block& a, const Block& b) {
  if (a.axes != b.axes) return false;
  for (std::uint32_t k = 0; k < a.axes; ++k) {
    if (a.axis[k].end - a.axis[k].begin != b.axis[k].end - b.axis[k].begin) return false;
    for (std::uint32_t r = 0; r < a.axis[k].end - a.axis[k].begin; ++r) {
      const Section1& x = s.runs[a.axis[k].begin + r];
      const Section1& y = s.runs[b.axis[k].begin + r];
      if (x.run_length != y.run_length || x.run_count != y.run_count) return false;
    }
  }
  return true;
}

/// Copies between two blocks of the same shape, axis k downwards, from element offsets ao and bo.
void copy_same_shape(const Schedule& s, const Block& a, const Block& b, std::uint32_t k, index_t ao, index_t bo,
                     const std::byte* src, std::byte* dst, std::size_t es) {
  const auto e = static_cast<index_t>(es);
  const BlockAxis& xa = a.axis[k];
  const BlockAxis& xb = b.axis[k];
  const bool innermost = k + 1 == a.axes;
  for (std::uint32_t r = 0; r < xa.end - xa.begin; ++r) {
    const Section1& ra = s.runs[xa.begin + r];
    const Section1& rb = s.runs[xb.begin + r];
    for (index_t j = 0; j < ra.run_count; ++j) {
      const index_t fa = ra.first + j * ra.stride, fb = rb.first + j * rb.stride;
      if (innermost) {
        copy_two_strided(dst + (bo + fb * xb.stride) * e, xb.stride, src + (ao + fa * xa.stride) * e, xa.stride,
                         ra.run_length, es);
      } else {
        for (index_t i = 0; i < ra.run_length; ++i)
          copy_same_shape(s, a, b, k + 1, ao + (fa + i) * xa.stride, bo + (fb + i) * xb.stride, src, dst, es);
      }
    }
  }
}

}  // namespace

/// Packs the blocks of one peer (or one local copy) into `buffer`; returns bytes written.
std::size_t pack(const Schedule& s, const Block* first, const Block* last, const std::byte* array, std::byte* buffer,
                 std::size_t es) {
  std::byte* at = buffer;
  for (const Block& b : std::span(first, last))
    s.for_each_stretch_group(b, [&](index_t offset, index_t count, index_t stride, index_t rows, index_t row_stride) {
      copy_group(at, array + offset * static_cast<index_t>(es), count, stride, rows, row_stride, es, true);
      at += static_cast<std::size_t>(count * rows) * es;
    });
  return static_cast<std::size_t>(at - buffer);
}

/// Unpacks `buffer` into the blocks, replacing or combining.
void unpack_blocks(const Schedule& s, const Block* first, const Block* last, std::byte* array, const std::byte* buffer,
                   std::size_t es, CombineFn combine) {
  const std::byte* at = buffer;
  if (combine == nullptr) {
    for (const Block& b : std::span(first, last))
      s.for_each_stretch_group(b, [&](index_t offset, index_t count, index_t stride, index_t rows, index_t row_stride) {
        copy_group(array + offset * static_cast<index_t>(es), at, count, stride, rows, row_stride, es, false);
        at += static_cast<std::size_t>(count * rows) * es;
      });
    return;
  }
  for (const Block& b : std::span(first, last))
    s.for_each_stretch(b, [&](index_t offset, index_t count, index_t stride) {
      std::byte* to = array + offset * static_cast<index_t>(es);
      if (combine == nullptr) {
        if (stride == 1)
          std::memcpy(to, at, static_cast<std::size_t>(count) * es);
        else
          copy_strided(to, at, count, stride, es, false);
      } else if (stride == 1) {
        combine(to, at, count);
      } else {
        for (index_t e = 0; e < count; ++e)
          combine(to + e * stride * static_cast<index_t>(es), at + e * static_cast<index_t>(es), 1);
      }
      at += static_cast<std::size_t>(count) * es;
    });
}

/// Copies block `sb` of `src` onto block `db` of `dst` directly, walking both in lockstep.
void copy_local_direct(const Schedule& s, const Block& sb, const Block& db, const std::byte* src, std::byte* dst,
                       std::size_t es, CombineFn combine) {
  const auto e = static_cast<index_t>(es);
  index_t so, sc, ss, sr, srs, doff, dc, ds, dr, drs;
  if (combine == nullptr && s.as_rows(sb, so, sc, ss, sr, srs) && s.as_rows(db, doff, dc, ds, dr, drs) && sc == dc &&
      sr == dr) {
    // The common case (faces, wrapped columns): equal rows on both sides, one loop.
    for (index_t r = 0; r < sr; ++r)
      copy_two_strided(dst + (doff + r * drs) * e, ds, src + (so + r * srs) * e, ss, sc, es);
    return;
  }
  if (combine == nullptr && same_shape(s, sb, db)) {
    copy_same_shape(s, sb, db, 0, sb.base, db.base, src, dst, es);
    return;
  }
  StretchCursor from(s, sb), to(s, db);
  index_t used_from = 0, used_to = 0;
  while (!from.done() && !to.done()) {
    const index_t n = std::min(from.count() - used_from, to.count() - used_to);
    const std::byte* a = src + (from.offset() + used_from * from.stride()) * e;
    std::byte* b = dst + (to.offset() + used_to * to.stride()) * e;
    if (combine == nullptr) {
      copy_two_strided(b, to.stride(), a, from.stride(), n, es);
    } else if (from.stride() == 1 && to.stride() == 1) {
      combine(b, a, n);
    } else {
      for (index_t i = 0; i < n; ++i) combine(b + i * to.stride() * e, a + i * from.stride() * e, 1);
    }
    used_from += n;
    used_to += n;
    if (used_from == from.count()) from.next(), used_from = 0;
    if (used_to == to.count()) to.next(), used_to = 0;
  }
}

}  // namespace tessera::detail
