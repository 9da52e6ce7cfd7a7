#pragma once
// y = A x on tessera: the matrix's nonzeros are a SparseDomain<2> of the n x n index box whose rows
// follow a 1-D distribution (block or cut; columns not split), its values a SparseArray over it;
// x and y are DistArrays over one 1-D domain with the same row distribution. The x entries a rank's
// rows read from other ranks are fetched by a PointFetch (one inspector, then one Mover run per
// product). Shared by examples/chapel_sparse_matvec and bench/sparse.
#include <memory>
#include <optional>
#include <vector>

#include "sparse_matvec.hpp"
#include "tessera/tessera.hpp"

namespace tessera_examples {

/// A 2-D row distribution (spec along rows, columns collapsed) and its 1-D vector counterpart.
inline tessera::Distribution<2> row_distribution(index_t n, int size, const tessera::DimSpec& rows) {
  return tessera::Distribution<2>(tessera::Box<2>({0, 0}, {n, n}), tessera::ProcGrid<2>::with_shape(size, {size, 1}),
                                  {rows, tessera::collapsed()});
}
inline tessera::Distribution<1> vector_distribution(index_t n, int size, const tessera::DimSpec& rows) {
  return tessera::Distribution<1>(tessera::Box<1>({0}, {n}), tessera::ProcGrid<1>::with_shape(size, {size}), {rows});
}

/// The distributed matrix, vectors and the product's plan (see the file comment).
class TesseraMatvec {
 public:
  /// Collective: every rank adds the nonzeros of the rows i with i % size == rank (each goes to the
  /// rank that owns row i: one exchange), sets A's values and x.
  TesseraMatvec(const tessera::Communicator& comm, index_t n, int extra, const tessera::DimSpec& rows)
      : matrix_dom_(comm, row_distribution(n, comm.size(), rows)),
        nz_(matrix_dom_),
        a_(nz_),
        vec_dom_(comm, vector_distribution(n, comm.size(), rows)),
        x_(vec_dom_),
        y_(vec_dom_),
        n_(n) {
    std::vector<Point<2>> mine;
    for (index_t i = comm.rank(); i < n; i += comm.size())
      for (const index_t j : columns_of(i, n, extra)) mine.push_back({i, j});
    nz_.add(mine);
    a_.for_each([](const Point<2>& p, double& v) { v = entry(p[0], p[1]); });
    x_.for_each_owned([](const Point<1>& j, double& v) { v = x_value(j[0]); });
  }

  /// Collective: moves the matrix and both vectors to another row distribution (the sparse
  /// nonzeros and their values follow their parent domain); the product must be planned again.
  void redistribute(const tessera::DimSpec& rows) {
    const int size = matrix_dom_.comm().size();
    matrix_dom_.redistribute(row_distribution(n_, size, rows));
    vec_dom_.redistribute(vector_distribution(n_, size, rows));
    mover_.reset();
  }

  /// Collective: the local CSR structure and the fetch of the x entries other ranks own (the
  /// inspector: two exchanges).
  void plan() {
    const tessera::Communicator& comm = vec_dom_.comm();
    const auto& xdist = vec_dom_.distribution();
    csr_ = LocalCsr{};
    std::vector<Point<1>> far;
    const auto pts = nz_.points();
    const auto vals = a_.values();
    for (std::size_t k = 0; k < pts.size(); ++k) {
      if (csr_.rows.empty() || csr_.rows.back() != pts[k][0]) {
        if (!csr_.rows.empty()) csr_.starts.push_back(static_cast<std::int64_t>(k));
        csr_.rows.push_back(pts[k][0]);
      }
      csr_.values.push_back(vals[k]);
      const Point<1> j{pts[k][1]};
      if (xdist.owner(j) == comm.rank()) {
        csr_.source.push_back(&x_.at(j) - x_.data());
      } else {
        csr_.source.push_back(-1);  // resolved below, once the slots are known
        far.push_back(j);
      }
    }
    csr_.starts.push_back(static_cast<std::int64_t>(pts.size()));
    // Every row holds its diagonal, so a rank's rows are its owned vector indices, in order.
    if (csr_.rows.size() != y_.storage().size())
      tessera::fail(tessera::ErrorCode::internal, "TesseraMatvec: a row without entries");
    fetch_ = std::make_shared<const tessera::PointFetch<1>>(
        comm, xdist, far, [&](const Point<1>& j) -> index_t { return &x_.at(j) - x_.data(); });
    for (std::size_t k = 0; k < pts.size(); ++k)
      if (csr_.source[k] < 0) csr_.source[k] = ~static_cast<std::int64_t>(*fetch_->slot(Point<1>{pts[k][1]}));
    x_far_.assign(fetch_->size(), 0.0);
    mover_.emplace(comm, fetch_->schedule(), sizeof(double));
  }

  /// Collective: y = A x (fetch the far x entries, then the local CSR product).
  void multiply() {
    mover_->run(x_.data(), x_far_.data());
    csr_product(csr_, x_.data(), x_far_.data(), y_.storage());
  }

  [[nodiscard]] const tessera::DistArray<double, 1>& y() const noexcept { return y_; }
  [[nodiscard]] tessera::DistArray<double, 1>& x() noexcept { return x_; }
  [[nodiscard]] const tessera::SparseArray<double, 2>& a() const noexcept { return a_; }
  [[nodiscard]] const LocalCsr& csr() const noexcept { return csr_; }
  [[nodiscard]] std::size_t fetched() const noexcept { return x_far_.size(); }

 private:
  tessera::Domain<2> matrix_dom_;
  tessera::SparseDomain<2> nz_;
  tessera::SparseArray<double, 2> a_;
  tessera::Domain<1> vec_dom_;
  tessera::DistArray<double, 1> x_, y_;
  index_t n_;
  LocalCsr csr_;
  std::shared_ptr<const tessera::PointFetch<1>> fetch_;
  std::vector<double> x_far_;
  std::optional<tessera::Mover> mover_;
};

}  // namespace tessera_examples
