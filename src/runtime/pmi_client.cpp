// PMI-1 client. Protocol summary (one request line, one reply line, unless noted):
//   cmd=initack pmiid=N        -> cmd=initack, cmd=set size=S, cmd=set rank=R, cmd=set debug=D
//                                 (only in the PMI_PORT form)
//   cmd=init pmi_version=1 pmi_subversion=1 -> cmd=response_to_init ... rc=0
//   cmd=get_maxes              -> cmd=maxes kvsname_max= keylen_max= vallen_max=
//   cmd=get_appnum             -> cmd=appnum appnum=
//   cmd=get_my_kvsname         -> cmd=my_kvsname kvsname=
//   cmd=get_universe_size      -> cmd=universe_size size=
//   cmd=put kvsname= key= value= -> cmd=put_result rc=0
//   cmd=barrier_in             -> cmd=barrier_out
//   cmd=get kvsname= key=      -> cmd=get_result rc=0 value=
//   cmd=abort exitcode=N       -> (no reply; the launcher ends the job)
//   cmd=finalize               -> cmd=finalize_ack
#include "runtime/pmi_client.hpp"

#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.hpp"
#include "runtime/pmi_wire.hpp"

namespace railmpi::runtime {
namespace {

// PMI failures end the process with exit code 1 (not abort(): no core dump, and the launcher
// reports "exited with code 1").
[[noreturn, gnu::format(printf, 1, 2)]] void pmi_fail(const char* fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  base::log_error("PMI: %s", text);
  std::fflush(nullptr);
  std::_Exit(1);
}

bool parse_int(const char* text, long& out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0') return false;
  out = v;
  return true;
}

int exit_status_for(int code) {
  int status = code & 0xff;
  return (status == 0 && code != 0) ? 1 : status;
}

}  // namespace

PmiClient::~PmiClient() {
  if (fd_ >= 0) ::close(fd_);
}

void PmiClient::send_line(const std::string& line) {
  std::string text = line;
  text.push_back('\n');
  std::size_t done = 0;
  while (done < text.size()) {
    // send(MSG_NOSIGNAL): a vanished launcher is reported, not a silent SIGPIPE death.
    ssize_t n = ::send(fd_, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      pmi_fail("cannot write to the launcher (fd %d): %s", fd_, std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

std::string PmiClient::read_line() {
  std::string line;
  while (!pmi_take_line(inbuf_, line)) {
    char chunk[4096];
    ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      pmi_fail("cannot read from the launcher (fd %d): %s", fd_, std::strerror(errno));
    }
    if (n == 0) pmi_fail("the launcher closed the PMI connection");
    inbuf_.append(chunk, static_cast<std::size_t>(n));
  }
  return line;
}

std::map<std::string, std::string> PmiClient::expect(std::string_view cmd) {
  std::string line = read_line();
  PmiFields fields = parse_pmi_line(line);
  std::string_view got = pmi_field(fields, "cmd");
  if (got != cmd)
    pmi_fail("expected reply cmd=%.*s, got \"%s\"", static_cast<int>(cmd.size()), cmd.data(),
             line.c_str());
  long rc = 0;
  if (fields.count("rc") != 0 && (!pmi_int_field(fields, "rc", rc) || rc != 0)) {
    std::string msg(pmi_field(fields, "msg", "(no message)"));
    pmi_fail("cmd=%.*s failed: rc=%s msg=%s", static_cast<int>(cmd.size()), cmd.data(),
             std::string(pmi_field(fields, "rc")).c_str(), msg.c_str());
  }
  return {fields.begin(), fields.end()};
}

void PmiClient::handshake_initack(const char* pmi_id) {
  send_line(std::string("cmd=initack pmiid=") + pmi_id);
  expect("initack");
  // Three "cmd=set" lines follow; each carries one of size=, rank=, debug= (any order).
  for (int i = 0; i < 3; ++i) {
    auto set = expect("set");
    long v = 0;
    PmiFields f(set.begin(), set.end());
    if (pmi_int_field(f, "size", v)) size_ = static_cast<int>(v);
    if (pmi_int_field(f, "rank", v)) rank_ = static_cast<int>(v);
  }
}

void PmiClient::connect_from_environment() {
  const char* fd_text = std::getenv("PMI_FD");
  const char* port_text = std::getenv("PMI_PORT");
  if (fd_text != nullptr && *fd_text != '\0') {
    long fd = -1;
    if (!parse_int(fd_text, fd) || fd < 0) pmi_fail("malformed PMI_FD=\"%s\"", fd_text);
    if (::fcntl(static_cast<int>(fd), F_GETFD) < 0)
      pmi_fail("PMI_FD=%ld is not an open file descriptor", fd);
    fd_ = static_cast<int>(fd);
    ::fcntl(fd_, F_SETFD, FD_CLOEXEC);  // MPI programs that exec must not leak it
    return;
  }
  if (port_text == nullptr || *port_text == '\0') return;  // singleton

  std::string hostport(port_text);
  std::size_t colon = hostport.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == hostport.size())
    pmi_fail("malformed PMI_PORT=\"%s\" (expected host:port)", port_text);
  std::string host = hostport.substr(0, colon);
  std::string port = hostport.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  int gai = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &list);
  if (gai != 0) pmi_fail("cannot resolve PMI_PORT=\"%s\": %s", port_text, gai_strerror(gai));
  int last_errno = 0;
  for (addrinfo* ai = list; ai != nullptr && fd_ < 0; ai = ai->ai_next) {
    int s = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (s < 0) {
      last_errno = errno;
      continue;
    }
    int rc;
    do {
      rc = ::connect(s, ai->ai_addr, ai->ai_addrlen);
    } while (rc < 0 && errno == EINTR);
    if (rc == 0) {
      int one = 1;
      ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      fd_ = s;
    } else {
      last_errno = errno;
      ::close(s);
    }
  }
  ::freeaddrinfo(list);
  if (fd_ < 0)
    pmi_fail("cannot connect to PMI_PORT=\"%s\": %s", port_text, std::strerror(last_errno));

  const char* pmi_id = std::getenv("PMI_ID");
  if (pmi_id != nullptr && *pmi_id != '\0') handshake_initack(pmi_id);
}

void PmiClient::init() {
  if (initialized_) return;
  initialized_ = true;
  connect_from_environment();
  if (singleton()) {
    rank_ = 0;
    size_ = 1;
    appnum_ = 0;
    kvs_ = "singleton_kvs";
    base::set_log_rank(0);
    return;
  }
  // Rank/size: PMI_RANK/PMI_SIZE when present (PMI_FD form), else the initack replies.
  long v = 0;
  if (parse_int(std::getenv("PMI_RANK"), v)) rank_ = static_cast<int>(v);
  if (parse_int(std::getenv("PMI_SIZE"), v)) size_ = static_cast<int>(v);
  if (size_ < 1 || rank_ < 0 || rank_ >= size_)
    pmi_fail("inconsistent rank %d / size %d from the launcher", rank_, size_);
  base::set_log_rank(rank_);

  send_line("cmd=init pmi_version=1 pmi_subversion=1");
  {
    auto reply = expect("response_to_init");
    PmiFields f(reply.begin(), reply.end());
    long version = 1;
    if (pmi_int_field(f, "pmi_version", version) && version != 1)
      pmi_fail("launcher speaks PMI version %ld, not 1", version);
  }

  send_line("cmd=get_maxes");
  {
    auto reply = expect("maxes");
    PmiFields f(reply.begin(), reply.end());
    pmi_int_field(f, "kvsname_max", kvsname_max_);
    pmi_int_field(f, "keylen_max", keylen_max_);
    pmi_int_field(f, "vallen_max", vallen_max_);
  }

  send_line("cmd=get_appnum");
  {
    auto reply = expect("appnum");
    PmiFields f(reply.begin(), reply.end());
    if (pmi_int_field(f, "appnum", v)) appnum_ = static_cast<int>(v);
  }

  send_line("cmd=get_my_kvsname");
  {
    auto reply = expect("my_kvsname");
    auto it = reply.find("kvsname");
    if (it == reply.end() || it->second.empty()) pmi_fail("launcher sent no kvsname");
    kvs_ = it->second;
  }
}

int PmiClient::universe_size() {
  if (singleton()) return 1;
  send_line("cmd=get_universe_size");
  auto reply = expect("universe_size");
  PmiFields f(reply.begin(), reply.end());
  long v = 0;
  // Hydra answers size=-1 when no universe size was given: fall back to the job size.
  if (!pmi_int_field(f, "size", v) || v <= 0) return size_;
  return static_cast<int>(v);
}

void PmiClient::put(std::string_view key, std::string_view value) {
  if (key.empty() || !pmi_token_ok(key, false))
    pmi_fail("invalid key \"%.*s\" (no spaces, '=' or newlines)", static_cast<int>(key.size()),
             key.data());
  if (!pmi_token_ok(value, true))
    pmi_fail("invalid value for key \"%.*s\" (no spaces or newlines)",
             static_cast<int>(key.size()), key.data());
  if (singleton()) {
    local_kvs_.insert_or_assign(std::string(key), std::string(value));
    return;
  }
  if (static_cast<long>(key.size()) > keylen_max_)
    pmi_fail("key \"%.*s\" longer than the launcher's keylen_max=%ld",
             static_cast<int>(key.size()), key.data(), keylen_max_);
  if (static_cast<long>(value.size()) > vallen_max_)
    pmi_fail("value of key \"%.*s\" (%zu bytes) longer than the launcher's vallen_max=%ld",
             static_cast<int>(key.size()), key.data(), value.size(), vallen_max_);
  std::string line = "cmd=put kvsname=" + kvs_ + " key=";
  line.append(key);
  line.append(" value=");
  line.append(value);
  send_line(line);
  expect("put_result");
}

void PmiClient::barrier() {
  if (singleton()) return;
  send_line("cmd=barrier_in");
  expect("barrier_out");
}

std::string PmiClient::get(std::string_view key) {
  if (singleton()) {
    auto it = local_kvs_.find(key);
    if (it == local_kvs_.end())
      pmi_fail("key \"%.*s\" not found", static_cast<int>(key.size()), key.data());
    return it->second;
  }
  std::string line = "cmd=get kvsname=" + kvs_ + " key=";
  line.append(key);
  send_line(line);
  std::string reply_line = read_line();
  PmiFields f = parse_pmi_line(reply_line);
  if (pmi_field(f, "cmd") != "get_result")
    pmi_fail("expected reply cmd=get_result, got \"%s\"", reply_line.c_str());
  long rc = 0;
  if (!pmi_int_field(f, "rc", rc) || rc != 0 || f.count("value") == 0)
    pmi_fail("key \"%.*s\" not found (%s)", static_cast<int>(key.size()), key.data(),
             std::string(pmi_field(f, "msg", "no message")).c_str());
  return std::string(pmi_field(f, "value"));
}

void PmiClient::abort(int code, std::string_view message) {
  if (!message.empty())
    base::log_error("MPI_Abort(%d): %.*s", code, static_cast<int>(message.size()),
                    message.data());
  std::fflush(nullptr);
  if (!singleton()) send_line("cmd=abort exitcode=" + std::to_string(code));
  // Like the reference PMI-1 clients: after telling the launcher, leave with the code. The
  // launcher reads the abort request before it looks at how the process ended.
  std::_Exit(exit_status_for(code));
}

void PmiClient::finalize() {
  if (!initialized_ || finalized_) return;
  finalized_ = true;
  if (singleton()) return;
  send_line("cmd=finalize");
  expect("finalize_ack");
}

}  // namespace railmpi::runtime
