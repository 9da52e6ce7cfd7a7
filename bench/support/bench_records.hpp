#pragma once
/// \file
/// What the MPI benchmark drivers report: records (`Record`: operation, case, ranks, figure, unit,
/// and for timings the anchor and the ratio to it), written as a JSON list that bench/run_all.py merges into bench-results/latest.json,
/// and the small fixed-width table each driver prints on rank 0 as it goes.
/// \code
///   std::vector<tessera::bench::Record> records;
///   records.push_back(Record::timing("halo", "2d-5pt-w1-periodic-8192", 2, mine, "mpi-isend-irecv", theirs));
///   records.push_back(Record::count("halo", "2d-5pt-w1-periodic-8192", 2, "face_bytes", 65536));
///   tessera::bench::write_json("records.json", records, "bench_halo");
/// \endcode

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench_timing.hpp"

namespace tessera::bench {

/// Prints "program: message" on stderr and ends the whole MPI job. Drivers call it when two codes
/// disagree: timings of codes that do not provably do the same work must never be reported.
[[noreturn]] inline void abort_job(const char* program, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", program, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return; this tells the compiler so
}

/// `v` with `digits` significant digits, as JSON and the error messages write numbers.
[[nodiscard]] inline std::string number(double v, int digits = 9) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

/// A double with every digit, so that two values that differ print differently.
[[nodiscard]] inline std::string exact(double v) { return number(v, 17); }

/// One result: a timing of tessera (median, min, max) with or without an anchor, or a property of a
/// case (bytes moved, say) with value = min = max.
struct Record {
  std::string op;
  std::string name;  ///< the "case"
  int ranks = 0;
  std::string metric;
  Summary tessera;
  std::optional<std::string> anchor;  ///< null in the JSON when absent (then no ratio either)
  Summary anchor_value;

  /// Seconds per run of tessera against `anchor`; ratio = tessera / anchor (lower is better).
  [[nodiscard]] static Record timing(std::string op, std::string name, int ranks, const Summary& mine,
                                     std::string anchor, const Summary& theirs) {
    return {std::move(op), std::move(name), ranks, "median_s", mine, std::move(anchor), theirs};
  }
  /// Seconds per run of tessera with nothing to compare against (e.g. plan time).
  [[nodiscard]] static Record timing(std::string op, std::string name, int ranks, const Summary& mine) {
    return {std::move(op), std::move(name), ranks, "median_s", mine, std::nullopt, {}};
  }
  /// A property of the case, such as bytes moved.
  [[nodiscard]] static Record count(std::string op, std::string name, int ranks, std::string metric, double value) {
    return {std::move(op), std::move(name), ranks, std::move(metric), {value, value, value}, std::nullopt, {}};
  }
};

/// The record as one JSON object on one line, keys always in the same order.
[[nodiscard]] inline std::string to_json(const Record& r) {
  std::string out = "{\"op\": \"" + r.op + "\", \"ranks\": " + std::to_string(r.ranks) + ", \"case\": \"" + r.name +
                    "\", \"metric\": \"" + r.metric + "\", \"tessera\": " + number(r.tessera.median);
  if (r.anchor)
    out += ", \"anchor\": \"" + *r.anchor + "\", \"anchor_value\": " + number(r.anchor_value.median) +
           ", \"ratio\": " + number(r.tessera.median / r.anchor_value.median);
  else
    out += ", \"anchor\": null, \"anchor_value\": null, \"ratio\": null";
  out += ", \"min\": " + number(r.tessera.min) + ", \"max\": " + number(r.tessera.max);
  if (r.anchor)
    out += ", \"anchor_min\": " + number(r.anchor_value.min) + ", \"anchor_max\": " + number(r.anchor_value.max);
  return out + "}";
}

/// Writes `records` to `path` as a JSON list, one record per line; aborts the job (naming
/// `program`) if the file cannot be written.
inline void write_json(const std::string& path, const std::vector<Record>& records, const char* program) {
  std::ofstream out(path);
  if (!out) abort_job(program, "cannot write " + path);
  out << "[\n";
  for (std::size_t i = 0; i < records.size(); ++i)
    out << "  " << to_json(records[i]) << (i + 1 < records.size() ? ",\n" : "\n");
  out << "]\n";
  if (!out) abort_job(program, "writing " + path + " failed");
}

/// The fixed-width table a driver prints while it runs: a left-aligned case name, then numeric
/// columns. Prints only where `enabled` (rank 0), and flushes every line, so that a job that
/// aborts later still shows what it measured.
class Table {
 public:
  struct Column {
    std::string header;
    int width = 10;
    int precision = 2;
  };

  Table(bool enabled, std::string name_header, int name_width, std::vector<Column> columns)
      : enabled_(enabled),
        name_header_(std::move(name_header)),
        name_width_(name_width),
        columns_(std::move(columns)) {}

  void print_header() const {
    if (!enabled_) return;
    std::printf("%-*s", name_width_, name_header_.c_str());
    for (const Column& c : columns_) std::printf(" %*s", c.width, c.header.c_str());
    std::printf("\n");
    std::fflush(stdout);
  }

  /// One row: `values` in the columns' formats (as many as there are columns), then `suffix`.
  void print_row(const std::string& name, const std::vector<double>& values, const std::string& suffix = "") const {
    if (!enabled_) return;
    std::printf("%-*s", name_width_, name.c_str());
    for (std::size_t i = 0; i < columns_.size() && i < values.size(); ++i)
      std::printf(" %*.*f", columns_[i].width, columns_[i].precision, values[i]);
    std::printf("%s\n", suffix.c_str());
    std::fflush(stdout);
  }

 private:
  bool enabled_;
  std::string name_header_;
  int name_width_;
  std::vector<Column> columns_;
};

}  // namespace tessera::bench
