#pragma once
// Shared by the plan builder tests (tests/core, in-process) and their CLI half (tests/cli): a small native plan
// with a chosen spec, and loading a text through loadPlanText, the fast reader and the DOM reader at once.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"

namespace ss::test {

inline // A native plan (1-D mesh of 4): x [8, 16] with output spec `spec`, relu, the output.
std::string nativeWithSpec(const std::string& spec, const std::string& extra = "") {
  return R"J({"format": "shardscope-plan", "version": 1, "mesh": {"shape": [4]},)J" + extra + R"J( "nodes": [
  {"name": "x", "op": "placeholder", "meta": [{"shape": [8, 16], "dtype": "f32"}], "spec": [")J" + spec + R"J("]},
  {"name": "relu", "op": "aten.relu.default", "args": [{"t": "x"}], "meta": [{"shape": [8, 16], "dtype": "f32"}],
   "spec": ["S(0)"]},
  {"name": "output", "op": "output", "args": [[{"t": "relu"}]]}]})J";
}

inline Plan loadBoth(const std::string& text, bool autoparallel) {
  auto viaLoad = loadPlanText(text, "plan.json");
  REQUIRE(viaLoad);
  // The fast reader took it (it declines only on what it cannot read exactly), and the DOM reader agrees.
  auto fast = autoparallel ? readAutoparallelJsonTextFast(text) : planFromJsonTextFast(text);
  REQUIRE(fast);
  auto dom = autoparallel ? readAutoparallelJson(nlohmann::json::parse(text)) : planFromJson(nlohmann::json::parse(text));
  REQUIRE(dom);
  if (!autoparallel) fast->sourceFormat = PlanFormat::Native;
  CHECK(*fast == *dom);
  CHECK(*viaLoad == *dom);
  CHECK(viaLoad->validateStructure().empty());
  return std::move(*viaLoad);
}

}  // namespace ss::test
