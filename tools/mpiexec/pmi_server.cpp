#include "pmi_server.hpp"

#include <utility>

#include "runtime/pmi_wire.hpp"

namespace railmpi::mpiexec {

using runtime::parse_pmi_line;
using runtime::pmi_field;
using runtime::pmi_int_field;
using runtime::PmiFields;

namespace {
constexpr std::size_t kMaxLine = 64 * 1024;  // a longer request is a protocol error
}

PmiServer::PmiServer(int size, std::string kvsname)
    : size_(size), kvsname_(std::move(kvsname)), conns_(static_cast<std::size_t>(size)) {}

void PmiServer::reply(int rank, std::string text) {
  text.push_back('\n');
  conns_[rank].out += text;
}

void PmiServer::protocol_error(int rank, std::string message) {
  events_.push_back({PmiEvent::Kind::kProtocolError, rank, 0, std::move(message)});
}

void PmiServer::on_input(int rank, std::string_view bytes) {
  Conn& c = conns_[rank];
  c.in.append(bytes);
  std::string line;
  while (runtime::pmi_take_line(c.in, line)) {
    if (!line.empty()) handle_line(rank, line);
  }
  if (c.in.size() > kMaxLine) {
    protocol_error(rank, "request line longer than 64 KiB");
    c.in.clear();
  }
}

void PmiServer::rank_gone(int rank) {
  conns_[rank].gone = true;
  conns_[rank].in_barrier = false;
  check_barrier();
}

void PmiServer::check_barrier() {
  int participants = 0, waiting = 0;
  for (const Conn& c : conns_) {
    if (c.gone || c.finalized) continue;
    ++participants;
    if (c.in_barrier) ++waiting;
  }
  if (participants == 0 || waiting < participants) return;
  for (int r = 0; r < size_; ++r) {
    if (!conns_[r].in_barrier) continue;
    conns_[r].in_barrier = false;
    reply(r, "cmd=barrier_out rc=0");
  }
}

void PmiServer::handle_line(int rank, const std::string& line) {
  Conn& c = conns_[rank];
  if (line.starts_with("mcmd=")) {
    protocol_error(rank, "multi-line PMI commands (spawn) are not supported");
    return;
  }
  PmiFields f = parse_pmi_line(line);
  std::string cmd(pmi_field(f, "cmd"));
  c.spoke = true;
  const std::string rank_text = std::to_string(rank);
  const std::string size_text = std::to_string(size_);

  if (cmd == "initack") {
    reply(rank, "cmd=initack rc=0");
    reply(rank, "cmd=set size=" + size_text);
    reply(rank, "cmd=set rank=" + rank_text);
    reply(rank, "cmd=set debug=0");
  } else if (cmd == "init") {
    long version = 0;
    if (!pmi_int_field(f, "pmi_version", version) || version != 1) {
      reply(rank, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1");
      protocol_error(rank, "cmd=init asks for a PMI version other than 1");
      return;
    }
    reply(rank, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
    if (!c.inited) {
      c.inited = true;
      events_.push_back({PmiEvent::Kind::kInit, rank, 0, {}});
    }
  } else if (cmd == "get_maxes") {
    reply(rank, "cmd=maxes rc=0 kvsname_max=" + std::to_string(kKvsnameMax) +
                    " keylen_max=" + std::to_string(kKeylenMax) +
                    " vallen_max=" + std::to_string(kVallenMax));
  } else if (cmd == "get_appnum") {
    reply(rank, "cmd=appnum rc=0 appnum=0");
  } else if (cmd == "get_my_kvsname") {
    reply(rank, "cmd=my_kvsname rc=0 kvsname=" + kvsname_);
  } else if (cmd == "get_universe_size") {
    reply(rank, "cmd=universe_size rc=0 size=" + size_text);
  } else if (cmd == "put") {
    std::string_view kvs = pmi_field(f, "kvsname");
    std::string_view key = pmi_field(f, "key");
    auto value_it = f.find("value");
    if (kvs != kvsname_) {
      reply(rank, "cmd=put_result rc=-1 msg=unknown_kvsname");
    } else if (key.empty() || value_it == f.end()) {
      reply(rank, "cmd=put_result rc=-1 msg=missing_key_or_value");
    } else if (key.size() > kKeylenMax || value_it->second.size() > kVallenMax) {
      reply(rank, "cmd=put_result rc=-1 msg=key_or_value_too_long");
    } else {
      kvs_.insert_or_assign(std::string(key), value_it->second);
      reply(rank, "cmd=put_result rc=0 msg=success");
    }
  } else if (cmd == "get") {
    std::string_view kvs = pmi_field(f, "kvsname");
    std::string_view key = pmi_field(f, "key");
    auto it = kvs_.find(key);
    if (kvs != kvsname_)
      reply(rank, "cmd=get_result rc=-1 msg=unknown_kvsname");
    else if (it == kvs_.end())
      reply(rank, "cmd=get_result rc=-1 msg=key_not_found");
    else
      reply(rank, "cmd=get_result rc=0 msg=success value=" + it->second);
  } else if (cmd == "barrier_in") {
    c.in_barrier = true;
    check_barrier();
  } else if (cmd == "finalize") {
    reply(rank, "cmd=finalize_ack rc=0");
    if (!c.finalized) {
      c.finalized = true;
      c.in_barrier = false;
      events_.push_back({PmiEvent::Kind::kFinalize, rank, 0, {}});
      check_barrier();
    }
  } else if (cmd == "abort") {
    long code = 1;
    if (!pmi_int_field(f, "exitcode", code)) code = 1;
    events_.push_back({PmiEvent::Kind::kAbort, rank, static_cast<int>(code), {}});
  } else {
    reply(rank, "cmd=" + (cmd.empty() ? std::string("unknown") : cmd) +
                    "_result rc=-1 msg=unsupported_command");
    protocol_error(rank, "unsupported PMI request \"" + line.substr(0, 200) + "\"");
  }
}

}  // namespace railmpi::mpiexec
