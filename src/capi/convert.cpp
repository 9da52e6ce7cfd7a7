#include "convert.hpp"

namespace tessera::capi {

const char* type_name(tessera_type type) noexcept {
  switch (type) {
    case TESSERA_FLOAT:
      return "TESSERA_FLOAT";
    case TESSERA_DOUBLE:
      return "TESSERA_DOUBLE";
    case TESSERA_INT32:
      return "TESSERA_INT32";
    case TESSERA_INT64:
      return "TESSERA_INT64";
    case TESSERA_COMPLEX_DOUBLE:
      return "TESSERA_COMPLEX_DOUBLE";
    case TESSERA_INDEX:
      return "TESSERA_INDEX";
    default:  // the *_ENUM_ sentinels and any other int leave the switch unhandled
      break;
  }
  return "not a tessera_type";
}

void check_type(const ArrayObject& array, tessera_type type, const char* argument) {
  if (type < TESSERA_FLOAT || type > TESSERA_INDEX)
    fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument '", argument, "' = ", static_cast<int>(type),
           " is not a tessera_type");
  if (type != array.type)
    fail_c(TESSERA_ERR_WRONG_TYPE, "argument '", argument, "' = ", type_name(type), ", but the array holds ",
           type_name(array.type));
}

DimSpec to_spec(const tessera_dim_spec& c, const std::string& argument) {
  const auto field = [&](const char* name) { return argument + "." + name; };
  if (c.logical_block < 0)
    fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument '", field("logical_block"), "' = ", c.logical_block,
           " must be >= 1 (or 0 for the default, 1)");
  DimSpec s;
  switch (c.kind) {
    case TESSERA_DIM_BLOCK:
      s = block();
      break;
    case TESSERA_DIM_CUT:
      s = cut(to_vector(c.boundaries, c.boundary_count, field("boundaries").c_str()));
      break;
    case TESSERA_DIM_CUT_WEIGHTS:
      s = cut_weights(to_vector(c.weights, c.weight_count, field("weights").c_str()));
      break;
    case TESSERA_DIM_GENERAL:
      s = general();
      break;
    case TESSERA_DIM_CYCLIC:
      s = cyclic();
      break;
    case TESSERA_DIM_BLOCK_CYCLIC:
      s = block_cyclic(c.block_size, c.source);
      break;
    case TESSERA_DIM_COLLAPSED:
      s = collapsed();
      break;
    case TESSERA_DIM_IRREGULAR:
      s = irregular(to_vector(c.owners, c.owner_count, field("owners").c_str()));
      break;
    case TESSERA_DIM_FLOODED:
      s = flooded();
      break;
    default:
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument '", field("kind"), "' = ", static_cast<int>(c.kind),
             " is not a tessera_dim_kind");
  }
  return s.with_logical_block(c.logical_block == 0 ? 1 : c.logical_block);
}

CombineOp to_op(tessera_op op, const char* argument) {
  switch (op) {
    case TESSERA_OP_REPLACE:
      return CombineOp::replace;
    case TESSERA_OP_ADD:
      return CombineOp::add;
    case TESSERA_OP_MULTIPLY:
      return CombineOp::multiply;
    case TESSERA_OP_MIN:
      return CombineOp::min;
    case TESSERA_OP_MAX:
      return CombineOp::max;
    default:  // the *_ENUM_ sentinels and any other int leave the switch unhandled
      break;
  }
  fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument '", argument, "' = ", static_cast<int>(op), " is not a tessera_op");
}

Redistribution to_mode(tessera_redistribution mode) {
  switch (mode) {
    case TESSERA_PRESERVE:
      return Redistribution::preserve;
    case TESSERA_DESTRUCTIVE:
      return Redistribution::destructive;
    default:  // the *_ENUM_ sentinels and any other int leave the switch unhandled
      break;
  }
  fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'mode' = ", static_cast<int>(mode),
         " is not a tessera_redistribution (TESSERA_PRESERVE or TESSERA_DESTRUCTIVE)");
}

StorageOrder to_storage_order(tessera_storage_order order) {
  switch (order) {
    case TESSERA_ROW_MAJOR:
      return StorageOrder::row_major;
    case TESSERA_COLUMN_MAJOR:
      return StorageOrder::column_major;
    default:  // the *_ENUM_ sentinels and any other int
      break;
  }
  fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'order' = ", static_cast<int>(order),
         " is not a tessera_storage_order (TESSERA_ROW_MAJOR or TESSERA_COLUMN_MAJOR)");
}

}  // namespace tessera::capi
