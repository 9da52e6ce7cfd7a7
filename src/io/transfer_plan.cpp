#include "transfer_plan.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "tessera/core/error.hpp"

namespace tessera::io::detail {

namespace {

// What H5Dwrite/H5Dread get on a rank that selects nothing: HDF5 refuses a null buffer even then.
alignas(16) std::byte nothing[16];

std::vector<hsize_t> to_hsize(const std::vector<index_t>& v) { return {v.begin(), v.end()}; }

Hid empty_memory_space() {
  const hsize_t one = 1;
  Hid space = checked_id(H5Screate_simple(1, &one, nullptr), H5Sclose, "H5Screate_simple (memory)");
  check_h5(H5Sselect_none(space.get()), "H5Sselect_none (memory)");
  return space;
}

/// Copies `count` elements of `size` bytes from `from` (`from_stride` bytes apart) to `to`
/// (`to_stride` bytes apart): one memcpy when both sides are contiguous.
void copy_strided(const std::byte* from, std::ptrdiff_t from_stride, std::byte* to, std::ptrdiff_t to_stride,
                  std::size_t count, std::size_t size) {
  const auto contiguous = static_cast<std::ptrdiff_t>(size);
  if (from_stride == contiguous && to_stride == contiguous) {
    std::memcpy(to, from, count * size);
    return;
  }
  for (std::size_t k = 0; k < count; ++k)
    std::memcpy(to + static_cast<std::ptrdiff_t>(k) * to_stride, from + static_cast<std::ptrdiff_t>(k) * from_stride,
                size);
}

/// Calls visit(i) for every index tuple i in [0, count) (row-major), nothing if any count is 0.
template <class Visit>
void for_each_index(const std::vector<index_t>& count, Visit&& visit) {
  for (const index_t c : count)
    if (c <= 0) return;
  std::vector<index_t> i(count.size(), 0);
  for (;;) {
    visit(static_cast<const std::vector<index_t>&>(i));
    std::size_t d = count.size();
    while (d > 0 && ++i[d - 1] == count[d - 1]) i[--d] = 0;
    if (d == 0) return;
  }
}

}  // namespace

TransferPlan::TransferPlan(const CheckpointRequest& request, const ArraySelection& array, std::string_view where)
    : rank_(request.domain_extents.size()), element_size_(array.element_size) {
  const auto dims = to_hsize(request.domain_extents);
  file_space_ = checked_id(H5Screate_simple(static_cast<int>(rank_), dims.data(), nullptr), H5Sclose,
                           "H5Screate_simple (dataset)");
  select_file(array);
  if (array.patches.empty())
    memory_space_ = empty_memory_space();
  else if (array.patches.size() > 1)
    stage_rows(array, where);
  else if (!select_patch_in_place(array.patches.front()))
    stage_patch(array.patches.front());  // column-major: not describable in place
}

void TransferPlan::select_file(const ArraySelection& array) {
  check_h5(H5Sselect_none(file_space_.get()), "H5Sselect_none (dataset)");
  std::vector<hsize_t> start(rank_), stride(rank_), count(rank_), block(rank_);
  bool first = true;
  for (const PatchSelection& patch : array.patches) {
    // The owned set of a patch is the product of its per-axis section lists; each combination of
    // one section per axis is one hyperslab (start, stride, count, block).
    std::vector<index_t> sections(rank_);
    for (std::size_t d = 0; d < rank_; ++d) sections[d] = static_cast<index_t>(patch.global[d].size());
    for_each_index(sections, [&](const std::vector<index_t>& at) {
      for (std::size_t d = 0; d < rank_; ++d) {
        const Section1& s = patch.global[d][static_cast<std::size_t>(at[d])];
        start[d] = static_cast<hsize_t>(s.first);
        stride[d] = static_cast<hsize_t>(std::max<index_t>(s.stride, 1));
        count[d] = static_cast<hsize_t>(s.run_count);
        block[d] = static_cast<hsize_t>(s.run_length);
      }
      check_h5(H5Sselect_hyperslab(file_space_.get(), first ? H5S_SELECT_SET : H5S_SELECT_OR, start.data(),
                                   stride.data(), count.data(), block.data()),
               "H5Sselect_hyperslab (dataset)");
      first = false;
    });
  }
}

bool TransferPlan::select_patch_in_place(const PatchSelection& patch) {
  // In place only if the patch is dense row-major behind `data`: along axis d >= 1 memory holds
  // strides[d-1] / strides[d] elements (the local extent, unless the storage pads rows).
  std::vector<hsize_t> dims(rank_);
  dims[0] = static_cast<hsize_t>(patch.extents[0]);
  bool dense = patch.strides[rank_ - 1] == 1;
  for (std::size_t d = 1; d < rank_ && dense; ++d) {
    dense = patch.strides[d] > 0 && patch.strides[d - 1] % patch.strides[d] == 0 &&
            patch.strides[d - 1] / patch.strides[d] >= patch.extents[d];
    dims[d] = static_cast<hsize_t>(dense ? patch.strides[d - 1] / patch.strides[d] : 0);
  }
  if (!dense) return false;
  memory_space_ =
      checked_id(H5Screate_simple(static_cast<int>(rank_), dims.data(), nullptr), H5Sclose, "H5Screate_simple (memory)");
  const auto start = to_hsize(patch.owned_lo), count = to_hsize(patch.owned_count);
  check_h5(H5Sselect_hyperslab(memory_space_.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
           "H5Sselect_hyperslab (memory)");
  in_place_ = patch.data;
  return true;
}

void TransferPlan::stage_patch(const PatchSelection& patch) {
  // Local indices grow with global ones along every axis, so the row-major order of the owned
  // local box is the file order of the patch's selection, whatever the strides.
  std::vector<index_t> prefix(patch.owned_count.begin(), patch.owned_count.end() - 1);
  if (patch.owned_count.back() > 0) {
    for_each_index(prefix, [&](const std::vector<index_t>& i) {
      index_t offset = patch.owned_lo[rank_ - 1] * patch.strides[rank_ - 1];
      for (std::size_t d = 0; d + 1 < rank_; ++d) offset += (patch.owned_lo[d] + i[d]) * patch.strides[d];
      rows_.push_back(strided_row(patch, offset));
    });
  }
  finish_staging();
}

TransferPlan::Row TransferPlan::strided_row(const PatchSelection& patch, index_t offset) const {
  const auto size = static_cast<index_t>(element_size_);
  return {static_cast<std::byte*>(patch.data) + offset * size, static_cast<std::size_t>(patch.owned_count.back()),
          static_cast<std::ptrdiff_t>(patch.strides[rank_ - 1] * size)};
}

void TransferPlan::finish_staging() {
  std::size_t total = 0;
  for (const Row& r : rows_) total += r.count * element_size_;
  staging_.resize(total);
  if (total == 0) {
    memory_space_ = empty_memory_space();
    return;
  }
  const hsize_t elements = total / element_size_;
  memory_space_ = checked_id(H5Screate_simple(1, &elements, nullptr), H5Sclose, "H5Screate_simple (staging)");
}

void TransferPlan::stage_rows(const ArraySelection& array, std::string_view where) {
  // Every row of every patch, keyed by its global position (the indices along axes 0..N-2, then
  // the first index along the last axis); sorted, the keys give the file's row-major order
  // because the patches are disjoint boxes.
  std::vector<index_t> keys;
  std::vector<Row> rows;
  for (const PatchSelection& patch : array.patches) {
    for (std::size_t d = 0; d < rank_; ++d)
      if (patch.global[d].size() != 1 || patch.global[d].front().run_count != 1)
        fail(ErrorCode::internal, where, ": a rank with several patches has one that is not a dense box",
             " (axis ", d, "): please report this");
    std::vector<index_t> prefix(patch.owned_count.begin(), patch.owned_count.end() - 1);
    if (patch.owned_count.back() <= 0) continue;
    for_each_index(prefix, [&](const std::vector<index_t>& i) {
      index_t offset = patch.owned_lo[rank_ - 1] * patch.strides[rank_ - 1];
      for (std::size_t d = 0; d + 1 < rank_; ++d) {
        keys.push_back(patch.global[d].front().first + i[d]);
        offset += (patch.owned_lo[d] + i[d]) * patch.strides[d];
      }
      keys.push_back(patch.global[rank_ - 1].front().first);
      rows.push_back(strided_row(patch, offset));
    });
  }
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t n = rank_;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(keys.begin() + static_cast<std::ptrdiff_t>(a * n),
                                        keys.begin() + static_cast<std::ptrdiff_t>((a + 1) * n),
                                        keys.begin() + static_cast<std::ptrdiff_t>(b * n),
                                        keys.begin() + static_cast<std::ptrdiff_t>((b + 1) * n));
  });
  for (const std::size_t k : order) rows_.push_back(rows[k]);
  finish_staging();
}

const void* TransferPlan::prepare_write() {
  if (in_place_) return in_place_;
  if (staging_.empty()) return nothing;
  std::byte* at = staging_.data();
  const auto size = static_cast<std::ptrdiff_t>(element_size_);
  for (const Row& r : rows_) {
    copy_strided(r.memory, r.stride, at, size, r.count, element_size_);
    at += r.count * element_size_;
  }
  return staging_.data();
}

void* TransferPlan::read_buffer() noexcept {
  if (in_place_) return in_place_;
  return staging_.empty() ? static_cast<void*>(nothing) : static_cast<void*>(staging_.data());
}

void TransferPlan::finish_read() {
  std::byte* at = staging_.data();
  const auto size = static_cast<std::ptrdiff_t>(element_size_);
  for (const Row& r : rows_) {
    copy_strided(at, size, r.memory, r.stride, r.count, element_size_);
    at += r.count * element_size_;
  }
}

}  // namespace tessera::io::detail
