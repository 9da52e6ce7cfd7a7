#pragma once
// The spec tests' check of a refused spec text or mapping (spec_mapping_test.cpp, spec_box_set_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "tessera/core/error.hpp"

namespace tessera::spec_testing {

/// Runs `f`, expects an Error(invalid_argument) whose message starts with `start` and contains `why`.
template <class F>
void expect_spec_error(F&& f, const std::string& start, const std::string& why) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << start;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_EQ(message.rfind(start, 0), 0u) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  }
}

}  // namespace tessera::spec_testing
