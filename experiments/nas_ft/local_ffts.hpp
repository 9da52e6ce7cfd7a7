#pragma once
/// \file
/// A batch of in-place local FFTs (FFTW's advanced interface) over a dense block whose storage moves:
/// tessera gives an array new storage at every redistribution, so the plan is made once on a scratch
/// block of the same shape (FFTW_MEASURE may overwrite what it plans on) and run with
/// `fftw_execute_dft` on wherever the data is now. FFTW allows that only for arrays of the plan's
/// alignment; storage of another alignment gets a one-off FFTW_ESTIMATE plan (which does not touch the
/// data while planning), counted in `replans()`.
#include <fftw3.h>

#include <complex>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

namespace npb_ft {

class LocalFfts {
 public:
  /// `howmany` transforms of the `lengths` (1-D or 2-D, row-major) starting `dist` elements apart,
  /// their elements `stride` apart; `sign` FFTW_FORWARD or FFTW_BACKWARD; `flags` the planner's.
  /// No transform when howmany is 0 (a rank that owns nothing in this phase).
  LocalFfts(std::vector<int> lengths, std::int64_t howmany, std::int64_t stride, std::int64_t dist, int sign,
            unsigned flags)
      : lengths_(std::move(lengths)),
        howmany_(static_cast<int>(howmany)),
        stride_(static_cast<int>(stride)),
        dist_(static_cast<int>(dist)),
        sign_(sign) {
    if (howmany_ == 0) return;
    std::int64_t last = static_cast<std::int64_t>(howmany_ - 1) * dist_;  // the largest index the batch touches
    std::int64_t step = stride_;
    for (auto it = lengths_.rbegin(); it != lengths_.rend(); ++it) {
      last += static_cast<std::int64_t>(*it - 1) * step;
      step *= *it;
    }
    scratch_ = fftw_alloc_complex(static_cast<std::size_t>(last + 1));
    if (scratch_ == nullptr) throw std::bad_alloc();
    plan_ = make_plan(scratch_, flags);
    alignment_ = fftw_alignment_of(reinterpret_cast<double*>(scratch_));
  }
  ~LocalFfts() {
    if (plan_ != nullptr) fftw_destroy_plan(plan_);
    fftw_free(scratch_);
  }
  LocalFfts(const LocalFfts&) = delete;
  LocalFfts& operator=(const LocalFfts&) = delete;

  /// Transforms the block at `data` in place.
  void run(std::complex<double>* data) {
    if (howmany_ == 0) return;
    auto* x = reinterpret_cast<fftw_complex*>(data);  // std::complex<double> is double[2] ([complex.numbers])
    if (fftw_alignment_of(reinterpret_cast<double*>(x)) == alignment_) {
      fftw_execute_dft(plan_, x, x);
      return;
    }
    ++replans_;
    fftw_plan once = make_plan(x, FFTW_ESTIMATE);
    fftw_execute(once);
    fftw_destroy_plan(once);
  }
  /// How many runs needed a plan of their own (storage of another alignment than the scratch block).
  [[nodiscard]] long replans() const noexcept { return replans_; }

 private:
  fftw_plan make_plan(fftw_complex* x, unsigned flags) const {
    fftw_plan p = fftw_plan_many_dft(static_cast<int>(lengths_.size()), lengths_.data(), howmany_, x, nullptr, stride_,
                                     dist_, x, nullptr, stride_, dist_, sign_, flags);
    if (p == nullptr) throw std::runtime_error("FFTW could not plan a local batch of transforms");
    return p;
  }

  std::vector<int> lengths_;
  int howmany_, stride_, dist_, sign_;
  fftw_complex* scratch_ = nullptr;
  fftw_plan plan_ = nullptr;
  int alignment_ = 0;
  long replans_ = 0;
};

}  // namespace npb_ft
