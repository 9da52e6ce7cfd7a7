#include "copy_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tessera::detail {

namespace {

// Contiguous rows copied by one call that add up to at least this many bytes are written with
// non-temporal (streaming) stores: far beyond L2, and what is written is not read again soon by
// this core (a message buffer that MPI copies out once, or an array section a remap fills), so
// the ordinary stores' read-for-ownership of every destination line is a third of the memory
// traffic for nothing. glibc's memcpy does the same for one large copy; the rows of a pack are
// many medium copies, which it would not stream. Measured here (bench_pack, 64 MiB in runs of
// 512 B / 4 KiB / 64 KiB, one core, AMD EPYC), throughput as a share of one 64 MiB memcpy:
// unpack 78 / 87 / 108 % with ordinary stores, 98 / 90 / 120 % streaming; but pack, which reads
// the runs apart and writes one contiguous buffer, 74 / 69 / 84 % with ordinary stores and
// 50 / 55 / 95 % streaming: packs stream only rows of kStreamMinPackRow bytes or more.
constexpr std::size_t kStreamBytes = std::size_t{8} << 20;
constexpr std::size_t kStreamMinRow = 256;  // shorter rows: the head and tail would dominate
constexpr std::size_t kStreamMinPackRow = std::size_t{32} << 10;

/// memcpy with non-temporal stores for the 64-byte-aligned middle (SSE2, every x86-64); callers
/// end with `stream_fence()` before anything else may read what was written.
void stream_copy(std::byte* to, const std::byte* from, std::size_t bytes) {
#if defined(__SSE2__)
  // Whole cache lines only: a line written partly by streaming stores costs a read of it anyway.
  const std::size_t head = std::min(bytes, (64 - (reinterpret_cast<std::uintptr_t>(to) & 63)) & 63);
  std::memcpy(to, from, head);
  to += head, from += head, bytes -= head;
  const std::size_t blocks = bytes / 64;
  for (std::size_t b = 0; b < blocks; ++b, to += 64, from += 64) {
    const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
    const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 16));
    const __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 32));
    const __m128i x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(to), x0);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + 16), x1);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + 32), x2);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + 48), x3);
  }
  std::memcpy(to, from, bytes % 64);
#else
  std::memcpy(to, from, bytes);
#endif
}

/// Orders the streaming stores before every later store and before other processes' reads (MPI
/// may hand the buffer to another process).
void stream_fence() noexcept {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

/// `rows` rows of `Bytes` bytes, `to_row` / `from_row` bytes apart: one load and one store each.
template <std::size_t Bytes>
void copy_short_rows(std::byte* to, index_t to_row, const std::byte* from, index_t from_row, index_t rows) {
  for (index_t r = 0; r < rows; ++r) std::memcpy(to + r * to_row, from + r * from_row, Bytes);
}

/// `rows` contiguous rows of `bytes` bytes each, rows `to_row` and `from_row` bytes apart.
void copy_contiguous_rows(std::byte* to, index_t to_row, const std::byte* from, index_t from_row, index_t rows,
                          std::size_t bytes, std::size_t min_stream_row = kStreamMinRow) {
  if (bytes >= min_stream_row && bytes * static_cast<std::size_t>(rows) >= kStreamBytes) {
    for (index_t r = 0; r < rows; ++r) stream_copy(to + r * to_row, from + r * from_row, bytes);
    stream_fence();
    return;
  }
  switch (bytes) {  // short rows (the wrap-around of a ghost layer 1 or 2 wide): fixed-size copies
    case 8:
      return copy_short_rows<8>(to, to_row, from, from_row, rows);
    case 16:
      return copy_short_rows<16>(to, to_row, from, from_row, rows);
    case 24:
      return copy_short_rows<24>(to, to_row, from, from_row, rows);
    case 32:
      return copy_short_rows<32>(to, to_row, from, from_row, rows);
    default:
      for (index_t r = 0; r < rows; ++r) std::memcpy(to + r * to_row, from + r * from_row, bytes);
  }
}

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

// Edge of the square tiles of `copy_tiled`, in elements: two tiles (source and destination) of
// 16 x 16 doubles take 4 KiB, far inside L1 even when their lines all fall in a few cache sets (the
// usual case: power-of-two leading dimensions). The tiles are visited block by block, a block being
// kBlock x kBlock elements (2 x 512 KiB of doubles: inside L2, and few enough pages for the TLB).
// Measured on one core here (AMD EPYC), a 4096^2 block of doubles, both leading dimensions 8192:
// untiled 230 ms, 16x16 tiles 29 ms, 16x16 tiles in 256x256 blocks 25 ms (64x64 tiles: 2-4x slower).
template <std::size_t Size>
inline constexpr index_t kTile = Size <= 8 ? 16 : 8;
inline constexpr index_t kBlock = 256;

/// One block of `copy_tiled`: kTile x kTile tiles, each copied with the inner loop along the
/// destination's unit-stride direction (`rows_inner`: along r), so that a strided side touches
/// each of its cache lines once per tile instead of once per element. Strides in bytes.
template <std::size_t Size>
void copy_tiles(std::byte* dst, index_t ds, index_t dr, const std::byte* src, index_t ss, index_t sr, index_t count,
                index_t rows, bool rows_inner) {
  constexpr index_t T = kTile<Size>;
  for (index_t r0 = 0; r0 < rows; r0 += T) {
    const index_t nr = std::min(T, rows - r0);
    for (index_t e0 = 0; e0 < count; e0 += T) {
      const index_t ne = std::min(T, count - e0);
      std::byte* d = dst + r0 * dr + e0 * ds;
      const std::byte* s = src + r0 * sr + e0 * ss;
      if (nr == T && ne == T) {  // full tile: constant trip counts the compiler unrolls
        if (rows_inner) {
          for (index_t e = 0; e < T; ++e)
            for (index_t r = 0; r < T; ++r) std::memcpy(d + r * dr + e * ds, s + r * sr + e * ss, Size);
        } else {
          for (index_t r = 0; r < T; ++r)
            for (index_t e = 0; e < T; ++e) std::memcpy(d + r * dr + e * ds, s + r * sr + e * ss, Size);
        }
        continue;
      }
      for (index_t r = 0; r < nr; ++r)
        for (index_t e = 0; e < ne; ++e) std::memcpy(d + r * dr + e * ds, s + r * sr + e * ss, Size);
    }
  }
}

/// The tiled form of `copy_2d` for elements of `Size` bytes (strides in elements).
template <std::size_t Size>
void copy_tiled(std::byte* dst, index_t d_step, index_t d_row, const std::byte* src, index_t s_step, index_t s_row,
                index_t count, index_t rows) {
  constexpr auto z = static_cast<index_t>(Size);
  const index_t ds = d_step * z, dr = d_row * z, ss = s_step * z, sr = s_row * z;
  const bool rows_inner = d_row == 1 || (d_step != 1 && s_row == 1);
  for (index_t r0 = 0; r0 < rows; r0 += kBlock)
    for (index_t e0 = 0; e0 < count; e0 += kBlock)
      copy_tiles<Size>(dst + r0 * dr + e0 * ds, ds, dr, src + r0 * sr + e0 * ss, ss, sr, std::min(kBlock, count - e0),
                       std::min(kBlock, rows - r0), rows_inner);
}

/// Copies a two-axis block: element (r, e), r < rows, e < count, lies `r * s_row + e * s_step`
/// elements from `src` and `r * d_row + e * d_step` from `dst`. Rows that are contiguous on both
/// sides are one memcpy each; a block that is strided on either side (a transposed block: one
/// side's `step` is 1 and the other's is a leading dimension) is copied in cache-sized tiles.
void copy_2d(std::byte* dst, index_t d_step, index_t d_row, const std::byte* src, index_t s_step, index_t s_row,
             index_t count, index_t rows, std::size_t es) {
  if (rows == 1 || count == 1) {
    if (rows == 1)
      copy_two_strided(dst, d_step, src, s_step, count, es);
    else
      copy_two_strided(dst, d_row, src, s_row, rows, es);
    return;
  }
  if (d_step == 1 && s_step == 1) {
    const auto e = static_cast<index_t>(es);
    copy_contiguous_rows(dst, d_row * e, src, s_row * e, rows, static_cast<std::size_t>(count) * es);
    return;
  }
  switch (es) {
    case 4:
      copy_tiled<4>(dst, d_step, d_row, src, s_step, s_row, count, rows);
      return;
    case 8:
      copy_tiled<8>(dst, d_step, d_row, src, s_step, s_row, count, rows);
      return;
    case 16:
      copy_tiled<16>(dst, d_step, d_row, src, s_step, s_row, count, rows);
      return;
    default: {
      const auto e = static_cast<index_t>(es);
      for (index_t r = 0; r < rows; ++r)
        copy_two_strided(dst + r * d_row * e, d_step, src + r * s_row * e, s_step, count, es);
    }
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
  if (stride != 1 && rows > 1) {  // strided rows (a transposed block): tiled
    if (gather)
      copy_2d(out, 1, count, in, stride, row_stride, count, rows, es);
    else
      copy_2d(out, stride, row_stride, in, 1, count, count, rows, es);
    return;
  }
  if (stride == 1) {
    const auto b = static_cast<index_t>(bytes);
    if (gather)
      copy_contiguous_rows(out, b, in, row_bytes, rows, bytes, kStreamMinPackRow);
    else
      copy_contiguous_rows(out, row_bytes, in, b, rows, bytes);
    return;
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

/// True if the axis is one run of consecutive positions (the shape of a box's axis).
bool single_run(const Schedule& s, const BlockAxis& axis) {
  return axis.end - axis.begin == 1 && s.runs[axis.begin].run_count == 1;
}

/// Copies between two blocks of the same shape, axis k downwards, from element offsets ao and bo.
void copy_same_shape(const Schedule& s, const Block& a, const Block& b, std::uint32_t k, index_t ao, index_t bo,
                     const std::byte* src, std::byte* dst, std::size_t es) {
  const auto e = static_cast<index_t>(es);
  const BlockAxis& xa = a.axis[k];
  const BlockAxis& xb = b.axis[k];
  const bool innermost = k + 1 == a.axes;
  // The two innermost axes form a 2-D block per run of this axis when the inner one is a single run
  // on both sides (in 3-D, the wrap-around of a ghost layer along the fastest axis: rows of 1 or 2
  // elements): one copy_2d call per run, so short rows go through its fixed-size loops instead of
  // one recursion and memcpy call each.
  const bool inner_plane = k + 2 == a.axes && single_run(s, a.axis[k + 1]) && single_run(s, b.axis[k + 1]);
  for (std::uint32_t r = 0; r < xa.end - xa.begin; ++r) {
    const Section1& ra = s.runs[xa.begin + r];
    const Section1& rb = s.runs[xb.begin + r];
    for (index_t j = 0; j < ra.run_count; ++j) {
      const index_t fa = ra.first + j * ra.stride, fb = rb.first + j * rb.stride;
      if (innermost) {
        copy_two_strided(dst + (bo + fb * xb.stride) * e, xb.stride, src + (ao + fa * xa.stride) * e, xa.stride,
                         ra.run_length, es);
      } else if (inner_plane) {
        const BlockAxis& ia = a.axis[k + 1];
        const BlockAxis& ib = b.axis[k + 1];
        const Section1& inner_a = s.runs[ia.begin];
        copy_2d(dst + (bo + fb * xb.stride + s.runs[ib.begin].first * ib.stride) * e, ib.stride, xb.stride,
                src + (ao + fa * xa.stride + inner_a.first * ia.stride) * e, ia.stride, xa.stride,
                inner_a.run_length, ra.run_length, es);
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
    copy_2d(dst + doff * e, ds, drs, src + so * e, ss, srs, sc, sr, es);
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

bool local_copies_need_staging(const Schedule& s, const void* src, const void* dst) noexcept {
  return !s.local_src.empty() && !s.local_disjoint && src == dst;
}

void copy_locals(const Schedule& s, const std::byte* src, std::byte* dst, std::size_t es, CombineFn combine,
                 std::byte* staging) {
  if (s.local_src.empty()) return;
  if (!local_copies_need_staging(s, src, dst)) {
    for (std::size_t k = 0; k < s.local_src.size(); ++k)
      copy_local_direct(s, s.local_src[k], s.local_dst[k], src, dst, es, combine);
    return;
  }
  pack(s, s.local_src.data(), s.local_src.data() + s.local_src.size(), src, staging, es);
  unpack_blocks(s, s.local_dst.data(), s.local_dst.data() + s.local_dst.size(), dst, staging, es, combine);
}

}  // namespace tessera::detail
