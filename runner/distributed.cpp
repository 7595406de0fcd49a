// Runs across processes: env:// variables, the TCPStore rendezvous, the store-based RankRendezvous, heartbeats,
// and the exchange of results and the report. See runner/distributed.h for the contract.
#include "runner/distributed.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

namespace ss::runner {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<uint8_t> bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }
std::string text(const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); }

Result<int> intVar(const char* name, int lo, int hi, bool required, int dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) {
    if (!required) return dflt;
    return Error{std::string(name) + " is not set (--distributed reads torch.distributed's env:// variables: "
                                     "MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK; docs/runner.md)",
                 0, 0, {}};
  }
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi)
    return Error{std::string(name) + "=" + v + ": expected an integer in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]",
                 0, 0, {}};
  return static_cast<int>(x);
}

nlohmann::json numOrNull(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
std::vector<double> numsBack(const nlohmann::json& j) {
  std::vector<double> out;
  for (const auto& v : j) out.push_back(v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>());
  return out;
}

std::string rangeText(const RankBlock& b) {
  return b.end - b.first == 1 ? "rank " + std::to_string(b.first)
                              : "ranks " + std::to_string(b.first) + "-" + std::to_string(b.end - 1);
}

}  // namespace

Result<DistributedEnv> DistributedEnv::fromEnvironment() {
  DistributedEnv e;
  const char* addr = std::getenv("MASTER_ADDR");
  if (!addr || !*addr)
    return Error{"MASTER_ADDR is not set (--distributed reads torch.distributed's env:// variables: MASTER_ADDR, "
                 "MASTER_PORT, WORLD_SIZE, RANK; docs/runner.md)",
                 0, 0, {}};
  e.masterAddr = addr;
  auto port = intVar("MASTER_PORT", 1, 65535, true, 0);
  if (!port) return port.error();
  auto world = intVar("WORLD_SIZE", 1, 1 << 20, true, 1);
  if (!world) return world.error();
  auto rank = intVar("RANK", 0, *world - 1, true, 0);
  if (!rank) return rank.error();
  auto local = intVar("LOCAL_RANK", 0, 1 << 20, false, 0);
  if (!local) return local.error();
  e.masterPort = *port;
  e.worldSize = *world;
  e.rank = *rank;
  e.localRank = *local;
  return e;
}

Result<RankBlock> rankBlock(int64_t meshSize, int processes, int process) {
  if (processes < 1 || process < 0 || process >= processes)
    return Error{"process " + std::to_string(process) + " of " + std::to_string(processes), 0, 0, {}};
  if (meshSize % processes != 0)
    return Error{"WORLD_SIZE=" + std::to_string(processes) + " does not divide the mesh's " + std::to_string(meshSize) +
                     " ranks (each process runs mesh size / WORLD_SIZE of them)",
                 0, 0, {}};
  int64_t n = meshSize / processes;
  return RankBlock{process * n, (process + 1) * n};
}

std::string encodeRankResult(const RankResult& r) {
  nlohmann::json losses = nlohmann::json::array();
  for (double v : r.losses) losses.push_back(numOrNull(v));
  nlohmann::json j = {{"losses", losses},
                      {"measures", encodeMeasures(r.measures)},
                      {"output_measures", encodeMeasures(r.outputMeasures)}};
  j["error"] = r.error ? nlohmann::json(*r.error) : nlohmann::json(nullptr);
  return j.dump();
}

std::optional<RankResult> decodeRankResult(const std::string& t) {
  try {
    auto j = nlohmann::json::parse(t);
    RankResult r;
    r.losses = numsBack(j.at("losses"));
    auto m = decodeMeasures(j.at("measures").get<std::string>());
    if (!m) return std::nullopt;
    r.measures = std::move(*m);
    auto om = decodeMeasures(j.at("output_measures").get<std::string>());
    if (!om) return std::nullopt;
    r.outputMeasures = std::move(*om);
    if (!j.at("error").is_null()) r.error = j.at("error").get<RunError>();
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// ---- StoreRendezvous ----

void StoreRendezvous::arrive(const std::string& key, const std::vector<int64_t>& members,
                             std::chrono::milliseconds timeout, const std::string& what) {
  const std::string k = "rv/" + key;
  const int64_t size = static_cast<int64_t>(members.size());
  int64_t count = 0;
  try {
    count = store_->add(k, 1);
  } catch (const std::exception& e) {
    abortLocally(std::string("lost the rendezvous store: ") + conciseMessage(e));
    throw RunStopped("stopped: " + reason());
  }
  const auto deadline = Clock::now() + timeout;
  auto pause = std::chrono::microseconds(50);
  while (count < size) {
    if (aborted_.load()) throw RunStopped("stopped: " + reason());
    if (memberFailed(members)) throw RunStopped("stopped: a rank of this group failed");
    if (Clock::now() > deadline) {
      std::ostringstream os;
      os << "timed out after " << timeout.count() / 1000.0 << " s waiting for " << what << ": " << count << " of "
         << size << " ranks arrived";
      throw CollectiveError(os.str());
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(4000));
    try {
      count = store_->add(k, 0);
    } catch (const std::exception& e) {
      abortLocally(std::string("lost the rendezvous store: ") + conciseMessage(e));
    }
  }
}

bool StoreRendezvous::memberFailed(const std::vector<int64_t>& members) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int64_t f : localFailed_)
      if (std::find(members.begin(), members.end(), f) != members.end()) return true;
  }
  try {
    if (store_->add("rv-failures", 0) == 0) return false;
    if (store_->check({"rv-abort"})) {
      abortLocally(text(store_->get("rv-abort")));
      return true;
    }
    for (int64_t m : members)
      if (store_->check({"rv-failed/" + std::to_string(m)})) return true;
  } catch (const std::exception& e) {
    abortLocally(std::string("lost the rendezvous store: ") + conciseMessage(e));
    return true;
  }
  return false;
}

void StoreRendezvous::fail(int64_t rank) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    localFailed_.push_back(rank);
  }
  try {
    store_->set("rv-failed/" + std::to_string(rank), bytes("1"));
    store_->add("rv-failures", 1);
  } catch (const std::exception&) {
    // the store is gone: the other processes notice that themselves
  }
}

void StoreRendezvous::abort(const std::string& reason) {
  abortLocally(reason);
  try {
    store_->set("rv-abort", bytes(reason));
    store_->add("rv-failures", 1);
  } catch (const std::exception&) {
  }
}

void StoreRendezvous::abortLocally(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!aborted_.load()) reason_ = reason;
  aborted_ = true;
}

std::string StoreRendezvous::reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reason_;
}

// ---- Cluster ----

Result<std::unique_ptr<Cluster>> Cluster::join(const DistributedEnv& env, int64_t meshSize,
                                               std::chrono::milliseconds timeout) {
  auto block = rankBlock(meshSize, env.worldSize, env.rank);
  if (!block) return block.error();
  std::unique_ptr<Cluster> c(new Cluster());
  c->env_ = env;
  c->block_ = *block;
  c->timeout_ = timeout;
  c->deadAfter_ = std::clamp(timeout, std::chrono::milliseconds(3000), std::chrono::milliseconds(10000));
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
    c->glooHost_ = std::string("if:") + ifname;
  else if (env.masterAddr == "127.0.0.1" || env.masterAddr == "localhost" || env.masterAddr == "::1")
    c->glooHost_ = "127.0.0.1";
  else
    c->glooHost_ = "";  // the interface this host's name resolves to (as torch.distributed does)
  // Under torchrun the elastic agent already serves a TCPStore at MASTER_ADDR:MASTER_PORT and says so with
  // TORCHELASTIC_USE_AGENT_STORE=True: every process is then a client, under a prefix per restart attempt (as
  // torch.distributed's own env:// rendezvous does). Otherwise process 0 serves it.
  const char* agent = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
  c->agentStore_ = agent && std::string(agent) == "True";
  const char* attempt = std::getenv("TORCHELASTIC_RESTART_COUNT");
  c->prefix_ = std::string("shardscope/attempt_") + (attempt && *attempt ? attempt : "0");
  try {
    c10d::TCPStoreOptions opts;
    opts.port = static_cast<std::uint16_t>(env.masterPort);
    opts.isServer = env.rank == 0 && !c->agentStore_;
    // Every process counts itself in (the server waits for WORLD_SIZE of them), as torch's env:// does.
    opts.numWorkers = static_cast<std::size_t>(env.worldSize);
    opts.waitWorkers = true;
    opts.timeout = timeout;
    c->store_ = c10::make_intrusive<c10d::PrefixStore>(c->prefix_,
                                                       c10::make_intrusive<c10d::TCPStore>(env.masterAddr, opts));
    // Every process checks in, so a process that never starts ends the others within the timeout.
    c->store_->set("hb/" + std::to_string(env.rank) + "/init", bytes("1"));
    std::vector<std::string> all;
    for (int p = 0; p < env.worldSize; ++p)
      if (p != env.rank) all.push_back("hb/" + std::to_string(p) + "/init");
    if (!all.empty()) c->store_->wait(all, timeout);
  } catch (const std::exception& e) {
    return Error{"the rendezvous at " + env.masterAddr + ":" + std::to_string(env.masterPort) + " (process " +
                     std::to_string(env.rank) + " of WORLD_SIZE=" + std::to_string(env.worldSize) +
                     ") did not complete within " + std::to_string(timeout.count() / 1000.0).substr(0, 4) +
                     " s: " + conciseMessage(e),
                 0, 0, {}};
  }
  c->rv_ = std::make_unique<StoreRendezvous>(c->store_);
  c->beat_ = std::thread([raw = c.get()] { raw->heartbeat(); });
  return c;
}

Cluster::~Cluster() {
  stopBeat_ = true;
  if (beat_.joinable()) beat_.join();
}

c10::intrusive_ptr<c10d::Store> Cluster::newClient() const {
  c10d::TCPStoreOptions opts;
  opts.port = static_cast<std::uint16_t>(env_.masterPort);
  opts.isServer = false;
  opts.waitWorkers = false;  // not one of the WORLD_SIZE workers the server counts
  opts.timeout = timeout_;
  return c10::make_intrusive<c10d::PrefixStore>(prefix_, c10::make_intrusive<c10d::TCPStore>(env_.masterAddr, opts));
}

std::string Cluster::where() const { return env_.masterAddr + ":" + std::to_string(env_.masterPort); }

std::string Cluster::lostPeer() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lost_;
}

void Cluster::heartbeat() {
  std::map<int, std::pair<int64_t, Clock::time_point>> seen;  // process -> (last count, when it changed)
  const auto start = Clock::now();
  for (int p = 0; p < env_.worldSize; ++p) seen[p] = {-1, start};
  const std::string mine = "hb/" + std::to_string(env_.rank);
  while (!stopBeat_.load()) {
    std::string lost;
    try {
      store_->add(mine, 1);
      for (int p = 0; p < env_.worldSize && lost.empty(); ++p) {
        if (p == env_.rank) continue;
        int64_t v = store_->add("hb/" + std::to_string(p), 0);
        auto& [last, when] = seen[p];
        auto now = Clock::now();
        if (v != last) {
          last = v;
          when = now;
        } else if (now - when > deadAfter_ && !store_->check({"done/" + std::to_string(p)})) {
          auto b = rankBlock(static_cast<int64_t>(block_.end - block_.first) * env_.worldSize, env_.worldSize, p);
          lost = "process " + std::to_string(p) + " (" + (b ? rangeText(*b) : std::string("?")) +
                 ") stopped responding for " + std::to_string(deadAfter_.count() / 1000) + " s";
        }
      }
    } catch (const std::exception& e) {
      lost = "lost the rendezvous store at " + where() + " (process 0 gone?): " + conciseMessage(e);
    }
    if (!lost.empty()) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        lost_ = lost;
      }
      rv_->abortLocally(lost);
      return;
    }
    for (int i = 0; i < 5 && !stopBeat_.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Result<bool> Cluster::waitFor(const std::vector<std::string>& keys, bool any) {
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    std::string lost = lostPeer();
    if (!lost.empty()) return Error{lost, 0, 0, {}};
    try {
      if (!any && store_->check(keys)) return true;
      if (any)
        for (const auto& k : keys)
          if (store_->check({k})) return true;
    } catch (const std::exception& e) {
      return Error{"lost the rendezvous store at " + where() + " (process 0 gone?): " + conciseMessage(e), 0, 0, {}};
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

Result<std::vector<RankResult>> Cluster::gatherResults(const std::vector<RankResult>& mine) {
  try {
    for (size_t i = 0; i < mine.size(); ++i)
      store_->set("result/" + std::to_string(block_.first + static_cast<int64_t>(i)), bytes(encodeRankResult(mine[i])));
    store_->set("results/" + std::to_string(env_.rank), bytes("1"));
  } catch (const std::exception& e) {
    return Error{"lost the rendezvous store at " + where() + " (process 0 gone?): " + conciseMessage(e), 0, 0, {}};
  }
  published_ = true;
  if (env_.rank != 0) return mine;
  const int64_t per = block_.end - block_.first;
  std::vector<RankResult> all(static_cast<size_t>(per * env_.worldSize));
  for (int p = 0; p < env_.worldSize; ++p) {
    if (p == 0) {
      for (int64_t i = 0; i < per; ++i) all[i] = mine.at(i);
      continue;
    }
    // A process either publishes its results or, having failed before its ranks ran, an early error.
    const std::string done = "results/" + std::to_string(p), early = "early/" + std::to_string(p);
    if (auto ok = waitFor({done, early}, true); !ok) return ok.error();
    try {
      if (store_->check({early}) && !store_->check({done})) {
        RunError err = nlohmann::json::parse(text(store_->get(early))).get<RunError>();
        for (int64_t r = p * per; r < (p + 1) * per; ++r) all[r].error = err;
        continue;
      }
      for (int64_t r = p * per; r < (p + 1) * per; ++r) {
        auto res = decodeRankResult(text(store_->get("result/" + std::to_string(r))));
        if (!res) return Error{"process " + std::to_string(p) + " sent unreadable results for rank " + std::to_string(r), 0, 0, {}};
        all[r] = std::move(*res);
      }
    } catch (const std::exception& e) {
      return Error{"lost process " + std::to_string(p) + "'s results: " + conciseMessage(e), 0, 0, {}};
    }
  }
  return all;
}

RunReport Cluster::shareReport(const RunReport& report) {
  RunReport out = report;
  out.processes = env_.worldSize;
  if (env_.rank == 0) {
    try {
      store_->set("report", bytes(nlohmann::json(out).dump()));
      // Anyone still running (process 0 ended early) stops at its next collective.
      if (!published_) rv_->abort("process 0 ended the run: " + (out.error ? out.error->toString() : std::string("done")));
      // Keep serving the store until every process has read the report (or is gone).
      std::vector<std::string> acks;
      for (int p = 1; p < env_.worldSize; ++p) acks.push_back("done/" + std::to_string(p));
      if (!acks.empty()) (void)waitFor(acks);
    } catch (const std::exception&) {
    }
    return out;
  }
  try {
    if (!published_) {
      RunError err = report.error ? *report.error : RunError{"distributed", -1, -1, "", "process ended early"};
      if (err.message.rfind("process ", 0) != 0)
        err.message = "process " + std::to_string(env_.rank) + ": " + err.message;
      store_->set("early/" + std::to_string(env_.rank), bytes(nlohmann::json(err).dump()));
      for (int64_t r = block_.first; r < block_.end; ++r) rv_->fail(r);
    }
  } catch (const std::exception&) {
  }
  auto ok = waitFor({"report"});
  if (!ok) {
    out.error = RunError{"distributed", -1, -1, "", ok.error().message};
    return out;
  }
  try {
    out = nlohmann::json::parse(text(store_->get("report"))).get<RunReport>();
    store_->set("done/" + std::to_string(env_.rank), bytes("1"));
  } catch (const std::exception& e) {
    out.error = RunError{"distributed", -1, -1, "", "cannot read process 0's report: " + conciseMessage(e)};
  }
  return out;
}

}  // namespace ss::runner
