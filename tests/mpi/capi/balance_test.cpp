// Incremental redistribution (weights, cut targets, planned steps, a step gone stale), the
// balancer (policies, the timer's call order, processor-set changes, availability hooks), the
// emulated load and checkpoints, through the C API, each on good and bad input.
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

TEST_F(CApiTest, Weights) {
  const double times[3] = {1.0, 2.0, 3.0}, work[3] = {10, 10, 30};
  double w[3];
  ASSERT_OK(tessera_weights_d3arc(times, 3, 1.0, 1.5, w));
  EXPECT_EQ(w[0], 1.5);
  EXPECT_EQ(w[1], 1.25);
  EXPECT_EQ(w[2], 1.0);
  ASSERT_OK(tessera_weights_inverse_time(times, 3, w));
  EXPECT_EQ(w[1], 0.5);
  ASSERT_OK(tessera_weights_throughput(times, work, 3, w));
  EXPECT_EQ(w[2], 10.0);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_weights_d3arc(times, 3, 2.0, 1.0, w));
  expect_error_mentions({"tessera_weights_d3arc", "'ub' = 1"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_weights_d3arc(times, 0, 1.0, 1.5, w));
  expect_error_mentions({"'times' = {}"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_weights_d3arc(nullptr, 3, 1.0, 1.5, w));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_weights_d3arc(times, 3, 1.0, 1.5, nullptr));
  const double negative[2] = {1.0, -1.0};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_weights_inverse_time(negative, 2, w));
  expect_error_mentions({"'times[1]' = -1"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_weights_throughput(times, negative, 2, w));
  expect_error_mentions({"'work[1]' = -1"});
}

TEST_F(CApiTest, IncrementalStepsAndAStaleStep) {
  // Rows over every rank (D3-ARC's row-wise distribution).
  const std::int64_t shape[2] = {size, 1};
  tessera_grid g = nullptr;
  ASSERT_OK(tessera_grid_create(2, size, shape, &g));
  const tessera_box box = {{0, 0}, {10 * size, 4}};
  const tessera_dim_spec specs[2] = {{}, {}};
  tessera_dist d = nullptr;
  ASSERT_OK(tessera_dist_create(g, &box, specs, nullptr, &d));
  tessera_domain dom = domain_of(d);
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_FLOAT, nullptr, &a));
  const float one = 1;
  ASSERT_OK(tessera_array_fill(a, TESSERA_FLOAT, &one));

  std::vector<double> weights(static_cast<std::size_t>(size), 1.0);
  weights[0] = 3.0;  // rank 0 should get three times the rows of the others
  tessera_dist target = nullptr;
  ASSERT_OK(tessera_cut_target(d, weights.data(), weights.size(), &target));
  tessera_step half = nullptr, full = nullptr;
  ASSERT_OK(tessera_step_plan(dom, target, 0.5, &half));
  ASSERT_OK(tessera_step_plan(dom, target, 1.0, &full));
  tessera_step_info info{};
  ASSERT_OK(tessera_step_info_get(half, &info));
  EXPECT_EQ(info.delta, 0.5);
  if (size > 1) {
    EXPECT_GT(info.blocks, 0);
    EXPECT_EQ(info.elements, info.blocks * 4) << "a logical block is one row of 4";
    EXPECT_EQ(info.bytes, static_cast<std::uint64_t>(info.elements) * sizeof(float));
  } else {
    EXPECT_EQ(info.blocks, 0);
  }
  tessera_dist destination = nullptr;
  ASSERT_OK(tessera_step_destination(full, &destination));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_step_destination(full, nullptr));
  int equal = 0;
  ASSERT_OK(tessera_dist_equal(destination, target, &equal));
  EXPECT_EQ(equal, 1);

  double seconds = -1;
  ASSERT_OK(tessera_step_migrate(dom, half, &seconds));
  EXPECT_GE(seconds, 0.0);
  float total = 0;
  ASSERT_OK(tessera_array_reduce(a, TESSERA_OP_ADD, TESSERA_FLOAT, &total));
  EXPECT_EQ(total, static_cast<float>(40 * size)) << "values kept";
  if (size > 1) {
    // `full` was planned from the distribution before `half` moved it.
    EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_step_migrate(dom, full, nullptr));
    expect_error_mentions({"tessera_step_migrate", "'step' was planned from", "plan the step again"});
  }
  // Bad input.
  tessera_step refused = nullptr;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_step_plan(dom, target, 1.5, &refused));
  expect_error_mentions({"tessera_step_plan", "'delta' = 1.5"});
  tessera_dist no_target = nullptr;
  const std::vector<double> one_too_many(weights.size() + 1, 1.0);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_cut_target(d, one_too_many.data(), one_too_many.size(), &no_target));
  EXPECT_EQ(no_target, nullptr);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_cut_target(d, nullptr, weights.size(), &no_target));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_step_info_get(half, nullptr));
  tessera_grid g1 = nullptr;
  const std::int64_t n = 10;
  ASSERT_OK(tessera_grid_automatic(1, size, &n, nullptr, &g1));
  const tessera_box line = {{0}, {10}};
  tessera_dist one_d = nullptr;
  ASSERT_OK(tessera_dist_create(g1, &line, specs, nullptr, &one_d));
  EXPECT_STATUS(TESSERA_ERR_MISMATCH, tessera_step_plan(dom, one_d, 0.5, &refused));
  tessera_domain dom1 = domain_of(one_d);
  EXPECT_STATUS(TESSERA_ERR_MISMATCH, tessera_step_migrate(dom1, half, nullptr));
  // A cyclic distribution has no boundaries to move.
  tessera_dim_spec cyc[2] = {};
  cyc[0].kind = TESSERA_DIM_CYCLIC;
  tessera_dist cyclic = nullptr;
  ASSERT_OK(tessera_dist_create(g, &box, cyc, nullptr, &cyclic));
  if (size > 1) {
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_cut_target(cyclic, weights.data(), weights.size(), &no_target));
    expect_error_mentions({"tessera_cut_target", "cyclic along axis 0"});
  }
  for (tessera_step* x : {&half, &full}) ASSERT_OK(tessera_step_free(x));
  ASSERT_OK(tessera_array_free(&a));
  for (tessera_domain* x : {&dom, &dom1}) ASSERT_OK(tessera_domain_free(x));
  for (tessera_dist* x : {&d, &target, &destination, &one_d, &cyclic}) ASSERT_OK(tessera_dist_free(x));
  for (tessera_grid* x : {&g, &g1}) ASSERT_OK(tessera_grid_free(x));
}

int withdraw_last_rank(const tessera_availability_context* c, void* user_data) {
  auto* calls = static_cast<int*>(user_data);
  ++*calls;
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return c->rank != size - 1 || size == 1;
}

class BalancerTest : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    const std::int64_t shape[2] = {size, 1};
    ASSERT_OK(tessera_grid_create(2, size, shape, &grid));
    const tessera_box box = {{0, 0}, {8 * size, 3}};
    const tessera_dim_spec specs[2] = {{}, {}};
    ASSERT_OK(tessera_dist_create(grid, &box, specs, nullptr, &rows));
    dom = domain_of(rows);
    ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &a));
  }
  void TearDown() override {
    EXPECT_STATUS(TESSERA_OK, tessera_array_free(&a));
    EXPECT_STATUS(TESSERA_OK, tessera_domain_free(&dom));
    EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&rows));
    EXPECT_STATUS(TESSERA_OK, tessera_grid_free(&grid));
    CApiTest::TearDown();
  }
  tessera_grid grid = nullptr;
  tessera_dist rows = nullptr;
  tessera_domain dom = nullptr;
  tessera_array a = nullptr;
};

TEST_F(BalancerTest, PoliciesAndOptions) {
  for (int k = TESSERA_POLICY_NONE; k <= TESSERA_POLICY_HORIZON; ++k) {
    tessera_policy p;
    ASSERT_OK(tessera_policy_defaults(static_cast<tessera_policy_kind>(k), &p));
    EXPECT_EQ(p.kind, k);
    tessera_balancer b = nullptr;
    ASSERT_OK(tessera_balancer_create(dom, &p, nullptr, &b));
    ASSERT_OK(tessera_balancer_free(&b));
  }
  tessera_policy p;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_policy_defaults(static_cast<tessera_policy_kind>(8), &p));
  expect_error_mentions({"tessera_policy_defaults", "'kind' = 8"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_policy_defaults(TESSERA_POLICY_NONE, nullptr));
  tessera_balancer_options o;
  ASSERT_OK(tessera_balancer_options_defaults(&o));
  EXPECT_EQ(o.interval, 5);
  EXPECT_EQ(o.ub, 1.5);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_options_defaults(nullptr));

  tessera_balancer b = nullptr;
  ASSERT_OK(tessera_policy_defaults(TESSERA_POLICY_STATIC, &p));
  p.delta = 2;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_create(dom, &p, nullptr, &b));
  expect_error_mentions({"tessera_balancer_create", "'delta' = 2"});
  p.kind = static_cast<tessera_policy_kind>(-3);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_create(dom, &p, nullptr, &b));
  expect_error_mentions({"'policy->kind' = -3"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_create(dom, nullptr, nullptr, &b));
  ASSERT_OK(tessera_policy_defaults(TESSERA_POLICY_D3ARC_ADAPTIVE, &p));
  o.interval = 0;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_create(dom, &p, &o, &b));
  expect_error_mentions({"'options.interval' = 0"});
  ASSERT_OK(tessera_balancer_options_defaults(&o));
  o.weights = static_cast<tessera_weight_rule>(9);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_create(dom, &p, &o, &b));
  expect_error_mentions({"'options->weights' = 9"});
  o.weights = TESSERA_WEIGHTS_D3ARC;
  o.lb = 0;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_create(dom, &p, &o, &b));
  o.lb = 1;
  o.weights = TESSERA_WEIGHTS_INVERSE_TIME;
  ASSERT_OK(tessera_balancer_create(dom, &p, &o, &b));
  ASSERT_OK(tessera_balancer_free(&b));
  EXPECT_EQ(b, nullptr);
}

TEST_F(BalancerTest, TimerStepsAndTheirCallOrder) {
  tessera_policy p;
  ASSERT_OK(tessera_policy_defaults(TESSERA_POLICY_STATIC, &p));
  tessera_balancer_options o;
  ASSERT_OK(tessera_balancer_options_defaults(&o));
  o.interval = 2;
  tessera_balancer b = nullptr;
  ASSERT_OK(tessera_balancer_create(dom, &p, &o, &b));
  EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_balancer_timer_stop(b));
  expect_error_mentions({"tessera_balancer_timer_stop", "not running"});
  ASSERT_OK(tessera_balancer_timer_start(b));
  EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_balancer_timer_start(b));
  expect_error_mentions({"running already"});
  tessera_balance_step s{};
  EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_balancer_step(b, &s));
  expect_error_mentions({"tessera_balancer_step", "stop it"});
  ASSERT_OK(tessera_balancer_timer_stop(b));
  ASSERT_OK(tessera_balancer_step(b, &s));
  EXPECT_EQ(s.iteration, 1);
  EXPECT_EQ(s.remap_point, 0);
  // The second step is a remap point: rank 0 reports ten times the others' time.
  ASSERT_OK(tessera_balancer_step_seconds(b, rank == 0 ? 0.1 : 0.01, &s));
  EXPECT_EQ(s.remap_point, 1);
  EXPECT_EQ(s.active_ranks, size);
  if (size > 1) {
    EXPECT_GT(s.imbalance, 0.05);
    EXPECT_EQ(s.delta, 1.0);
    EXPECT_GT(s.elements, 0);
  }
  ASSERT_OK(tessera_balancer_step_seconds(b, 0.01, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_step_seconds(b, -1, &s));
  expect_error_mentions({"'seconds' = -1"});
  ASSERT_OK(tessera_balancer_free(&b));
}

TEST_F(BalancerTest, ProcessorSetChanges) {
  tessera_policy p;
  ASSERT_OK(tessera_policy_defaults(TESSERA_POLICY_NONE, &p));
  tessera_balancer_options o;
  ASSERT_OK(tessera_balancer_options_defaults(&o));
  o.interval = 1;
  tessera_balancer b = nullptr;
  ASSERT_OK(tessera_balancer_create(dom, &p, &o, &b));
  std::vector<double> whole(static_cast<std::size_t>(24 * size));
  for (std::size_t k = 0; k < whole.size(); ++k) whole[k] = static_cast<double>(k);
  ASSERT_OK(tessera_array_scatter_from(a, 0, TESSERA_DOUBLE, whole.data(), rank == 0 ? 24 * size : 0));

  // Only rank 0 holds data; the others become skeletons.
  const int only_zero[1] = {0};
  double seconds = -1;
  ASSERT_OK(tessera_balancer_set_active_ranks(b, only_zero, 1, &seconds));
  size_t patches = 0;
  ASSERT_OK(tessera_array_patch_count(a, &patches));
  EXPECT_EQ(patches, rank == 0 ? 1u : 0u);
  std::vector<double> back(whole.size());
  ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_DOUBLE, back.data(), static_cast<std::int64_t>(back.size())));
  EXPECT_EQ(back, whole);

  // Everybody again, then an availability hook that withdraws the last rank at the next remap point.
  std::vector<int> everybody(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) everybody[static_cast<std::size_t>(r)] = r;
  ASSERT_OK(tessera_balancer_set_active_ranks(b, everybody.data(), everybody.size(), nullptr));
  int calls = 0;
  ASSERT_OK(tessera_balancer_set_availability(b, withdraw_last_rank, &calls));
  tessera_balance_step s{};
  ASSERT_OK(tessera_balancer_step_seconds(b, 0.01, &s));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(s.processor_set_changed, size > 1 ? 1 : 0);
  ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_DOUBLE, back.data(), static_cast<std::int64_t>(back.size())));
  EXPECT_EQ(back, whole);
  ASSERT_OK(tessera_balancer_set_availability(b, nullptr, nullptr));
  ASSERT_OK(tessera_balancer_set_availability_file(b, "/nonexistent/tessera-withdraw.{rank}"));
  ASSERT_OK(tessera_balancer_set_slowdown_threshold(b, 3.0, 2));
  ASSERT_OK(tessera_balancer_step_seconds(b, 0.01, &s));

  const int repeated[2] = {0, 0};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_set_active_ranks(b, repeated, 2, nullptr));
  expect_error_mentions({"tessera_balancer_set_active_ranks", "repeats"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_set_active_ranks(b, nullptr, 1, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_set_availability_file(b, ""));
  expect_error_mentions({"'pattern' = \"\""});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_set_availability_file(b, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_balancer_set_slowdown_threshold(b, 0.5, 2));
  expect_error_mentions({"'factor' = 0.5"});
  tessera_balancer stale = b;
  ASSERT_OK(tessera_balancer_free(&b));
  EXPECT_STATUS(TESSERA_ERR_FREED_HANDLE, tessera_balancer_step_seconds(stale, 0.01, &s));
  EXPECT_STATUS(TESSERA_ERR_NULL_HANDLE, tessera_balancer_timer_start(nullptr));
}

TEST_F(CApiTest, EmulatedLoad) {
  tessera_load load = nullptr;
  ASSERT_OK(tessera_load_parse("1:3@2-5,1:2@4-6", &load));
  double factor = 0, extra = -1;
  ASSERT_OK(tessera_load_factor(load, 1, 4, &factor));
  EXPECT_EQ(factor, 6.0);
  ASSERT_OK(tessera_load_factor(load, 0, 4, &factor));
  EXPECT_EQ(factor, 1.0);
  ASSERT_OK(tessera_load_slow_down(load, 1, 2, 0.001, &extra));
  EXPECT_NEAR(extra, 0.002, 1e-12);
  ASSERT_OK(tessera_load_slow_down(load, 0, 2, 0.001, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_load_slow_down(load, 1, 2, -1, &extra));
  expect_error_mentions({"'section_seconds' = -1"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_load_factor(load, 1, 2, nullptr));
  ASSERT_OK(tessera_load_free(&load));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_load_parse("1:x@2", &load));
  expect_error_mentions({"tessera_load_parse", "\"1:x@2\""});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_load_parse(nullptr, &load));
  EXPECT_EQ(load, nullptr);
}

TEST_F(CApiTest, CheckpointsSaveLoadAndRefuse) {
  // One path on every rank: rank 0's process id.
  int pid = static_cast<int>(getpid());
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const std::string path = "/tmp/tessera-capi-" + std::to_string(pid) + ".h5";
  tessera_dist d = block2(5, 3);
  tessera_domain dom = domain_of(d);
  tessera_array a = nullptr, b = nullptr, idx = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_INT32, nullptr, &a));
  ASSERT_OK(tessera_array_create(dom, TESSERA_INT32, nullptr, &b));
  ASSERT_OK(tessera_array_create(dom, TESSERA_INDEX, nullptr, &idx));
  const std::int32_t seven = 7;
  ASSERT_OK(tessera_array_fill(a, TESSERA_INT32, &seven));
  ASSERT_OK(tessera_checkpoint_save(path.c_str(), a, "a"));
  ASSERT_OK(tessera_checkpoint_load(path.c_str(), b, "a"));
  std::int32_t total = 0;
  ASSERT_OK(tessera_array_reduce(b, TESSERA_OP_ADD, TESSERA_INT32, &total));
  EXPECT_EQ(total, 7 * 15);
  EXPECT_STATUS(TESSERA_ERR_MISMATCH, tessera_checkpoint_load(path.c_str(), b, "missing"));
  expect_error_mentions({"tessera_checkpoint_load", "missing"});
  EXPECT_STATUS(TESSERA_ERR_IO, tessera_checkpoint_load("/nonexistent/dir/none.h5", b, "a"));
  expect_error_mentions({"tessera_checkpoint_load", "/nonexistent/dir/none.h5"});
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_checkpoint_save(path.c_str(), idx, "idx"));
  expect_error_mentions({"TESSERA_INDEX", "checkpoint cannot hold"});
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_checkpoint_load(path.c_str(), idx, "a"));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_checkpoint_save(nullptr, a, "a"));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_checkpoint_save(path.c_str(), a, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_checkpoint_save(path.c_str(), a, ""));
  // A damaged file: rank 0 flips a byte inside the dataset's data (15 int32 sevens, contiguous);
  // the load goes through io::load, which verifies the dataset's checksum.
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::string sevens;
    for (int k = 0; k < 15; ++k) sevens += std::string("\x07\0\0\0", 4);
    const std::size_t at = bytes.find(sevens);
    EXPECT_NE(at, std::string::npos) << "the dataset's bytes are not in the file";
    if (at != std::string::npos) {
      file.clear();
      file.seekp(static_cast<std::streamoff>(at + 4 * 6));
      file.put('\x08');
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_STATUS(TESSERA_ERR_IO, tessera_checkpoint_load(path.c_str(), b, "a"));
  expect_error_mentions({"tessera_checkpoint_load", "dataset 'a'", "fails its checksum", path.c_str()});
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::remove(path.c_str());
    std::remove((path + ".xmf").c_str());
  }
  for (tessera_array* x : {&a, &b, &idx}) ASSERT_OK(tessera_array_free(x));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&d));
}

TEST_F(CApiTest, CommunicatorsAndCollectAll) {
  std::vector<double> all(static_cast<std::size_t>(size));
  ASSERT_OK(tessera_comm_collect_all(world, 2.0 * rank, all.data(), all.size()));
  for (int r = 0; r < size; ++r) EXPECT_EQ(all[static_cast<std::size_t>(r)], 2.0 * r);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_comm_collect_all(world, 1.0, all.data(), all.size() - 1));
  expect_error_mentions({"tessera_comm_collect_all", "'capacity' = "});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_comm_collect_all(world, 1.0, nullptr, all.size()));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_comm_rank(world, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_comm_size(world, nullptr));
  tessera_comm c = nullptr;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_comm_create(MPI_COMM_NULL, &c));
  expect_error_mentions({"'user' = MPI_COMM_NULL"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_comm_create(MPI_COMM_WORLD, nullptr));
  // A sub-communicator: tessera works on any communicator, not only the world.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  ASSERT_OK(tessera_comm_create(half, &c));
  int sub = 0;
  ASSERT_OK(tessera_comm_size(c, &sub));
  EXPECT_EQ(sub, (size + 1 - rank % 2) / 2);
  ASSERT_OK(tessera_comm_free(&c));
  MPI_Comm_free(&half);
}

}  // namespace
}  // namespace tessera::capi_testing
