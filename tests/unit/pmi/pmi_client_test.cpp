// PMI-1 client: reply parser, singleton mode, and the client against scripted launchers
// (PMI_FD socketpair and PMI_PORT TCP with the initack handshake).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/pmi_client.hpp"
#include "runtime/pmi_wire.hpp"

namespace rt = railmpi::runtime;

namespace {

void clear_pmi_env() {
  for (const char* v : {"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE"}) ::unsetenv(v);
}

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    ASSERT_GT(n, 0);
    done += static_cast<std::size_t>(n);
  }
}

std::string read_available(int fd) {
  std::string all;
  char buf[4096];
  while (true) {
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) break;
    all.append(buf, static_cast<std::size_t>(n));
  }
  return all;
}

// Replies of a launcher that orders fields differently from the requests and from Hydra.
const std::string kInitReplies =
    "cmd=response_to_init rc=0 pmi_subversion=1 pmi_version=1\n"
    "cmd=maxes vallen_max=2048 rc=0 keylen_max=64 kvsname_max=256\n"
    "cmd=appnum appnum=3\n"
    "cmd=my_kvsname kvsname=kvs_test_1\n";

class PmiClientTest : public ::testing::Test {
 protected:
  void SetUp() override { clear_pmi_env(); }
  void TearDown() override { clear_pmi_env(); }
};

}  // namespace

TEST(PmiWire, ParsesByKeyInAnyOrder) {
  auto a = rt::parse_pmi_line("cmd=get_result rc=0 msg=success value=abc\n");
  auto b = rt::parse_pmi_line("cmd=get_result value=abc msg=success rc=0");
  EXPECT_EQ(a, b);
  EXPECT_EQ(rt::pmi_field(a, "cmd"), "get_result");
  EXPECT_EQ(rt::pmi_field(a, "value"), "abc");
  EXPECT_EQ(rt::pmi_field(a, "missing", "dflt"), "dflt");
}

TEST(PmiWire, ValueSplitsAtFirstEqualsOnly) {
  auto f = rt::parse_pmi_line("cmd=get_result rc=0 value=tcp=1.2.3.4:5;shm=x==y");
  EXPECT_EQ(rt::pmi_field(f, "value"), "tcp=1.2.3.4:5;shm=x==y");
}

TEST(PmiWire, ToleratesExtraSpacesCrLfAndBareTokens) {
  auto f = rt::parse_pmi_line("  cmd=barrier_out   rc=0  flag \r\n");
  EXPECT_EQ(rt::pmi_field(f, "cmd"), "barrier_out");
  EXPECT_EQ(rt::pmi_field(f, "rc"), "0");
  EXPECT_EQ(f.count("flag"), 1u);
  EXPECT_EQ(f.size(), 3u);
}

TEST(PmiWire, EmptyValueAndLongValue) {
  std::string big(5000, 'v');
  auto f = rt::parse_pmi_line("cmd=put key=k value=" + big + " empty=");
  EXPECT_EQ(rt::pmi_field(f, "value"), big);
  EXPECT_EQ(f.count("empty"), 1u);
  EXPECT_EQ(rt::pmi_field(f, "empty", "x"), "");
}

TEST(PmiWire, IntFields) {
  auto f = rt::parse_pmi_line("cmd=x rc=-1 size=12 bad=12a empty=");
  long v = 0;
  EXPECT_TRUE(rt::pmi_int_field(f, "rc", v));
  EXPECT_EQ(v, -1);
  EXPECT_TRUE(rt::pmi_int_field(f, "size", v));
  EXPECT_EQ(v, 12);
  EXPECT_FALSE(rt::pmi_int_field(f, "bad", v));
  EXPECT_FALSE(rt::pmi_int_field(f, "empty", v));
  EXPECT_FALSE(rt::pmi_int_field(f, "absent", v));
}

TEST(PmiWire, TakeLineKeepsPartialData) {
  std::string buf = "cmd=a x=1\r\ncmd=b";
  std::string line;
  ASSERT_TRUE(rt::pmi_take_line(buf, line));
  EXPECT_EQ(line, "cmd=a x=1");
  EXPECT_FALSE(rt::pmi_take_line(buf, line));
  EXPECT_EQ(buf, "cmd=b");
  buf += " y=2\n";
  ASSERT_TRUE(rt::pmi_take_line(buf, line));
  EXPECT_EQ(line, "cmd=b y=2");
  EXPECT_TRUE(buf.empty());
}

TEST(PmiWire, TokenCheck) {
  EXPECT_TRUE(rt::pmi_token_ok("a=b:c", true));
  EXPECT_FALSE(rt::pmi_token_ok("a=b", false));
  EXPECT_FALSE(rt::pmi_token_ok("a b", true));
  EXPECT_FALSE(rt::pmi_token_ok("a\nb", true));
}

TEST_F(PmiClientTest, SingletonWithoutEnvironment) {
  rt::PmiClient pmi;
  pmi.init();
  EXPECT_TRUE(pmi.singleton());
  EXPECT_EQ(pmi.rank(), 0);
  EXPECT_EQ(pmi.size(), 1);
  EXPECT_EQ(pmi.appnum(), 0);
  EXPECT_EQ(pmi.universe_size(), 1);
  EXPECT_FALSE(pmi.kvs_name().empty());
  pmi.put("card-0", "tcp=127.0.0.1:1234");
  pmi.barrier();
  EXPECT_EQ(pmi.get("card-0"), "tcp=127.0.0.1:1234");
  pmi.put("card-0", "overwritten");
  EXPECT_EQ(pmi.get("card-0"), "overwritten");
  pmi.finalize();
}

TEST_F(PmiClientTest, SingletonMissingKeyIsFatal) {
  EXPECT_EXIT(
      {
        rt::PmiClient pmi;
        pmi.init();
        pmi.get("nope");
      },
      ::testing::ExitedWithCode(1), "not found");
}

TEST_F(PmiClientTest, SingletonAbortExitsWithCode) {
  EXPECT_EXIT(
      {
        rt::PmiClient pmi;
        pmi.init();
        pmi.abort(5, "bye");
      },
      ::testing::ExitedWithCode(5), "bye");
}

// The launcher's replies are written before the client runs: the client reads them in order.
TEST_F(PmiClientTest, FdLauncherFullConversation) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  ::setenv("PMI_FD", std::to_string(sv[1]).c_str(), 1);
  ::setenv("PMI_RANK", "2", 1);
  ::setenv("PMI_SIZE", "4", 1);
  std::string card(900, 'c');
  card += "=tail";
  write_all(sv[0], kInitReplies +
                       "cmd=put_result rc=0 msg=success\n"
                       "cmd=barrier_out\n"
                       "cmd=get_result value=" + card + " msg=success rc=0\n"
                       "cmd=universe_size size=-1\n"
                       "cmd=universe_size size=16\n"
                       "cmd=finalize_ack\n");
  {
    rt::PmiClient pmi;
    pmi.init();
    EXPECT_FALSE(pmi.singleton());
    EXPECT_EQ(pmi.rank(), 2);
    EXPECT_EQ(pmi.size(), 4);
    EXPECT_EQ(pmi.appnum(), 3);
    EXPECT_EQ(pmi.kvs_name(), "kvs_test_1");
    pmi.put("card-2", "x=y");
    pmi.barrier();
    EXPECT_EQ(pmi.get("card-0"), card);
    EXPECT_EQ(pmi.universe_size(), 4);  // -1 (unknown, as Hydra says) -> job size
    EXPECT_EQ(pmi.universe_size(), 16);
    pmi.finalize();
  }
  std::string requests = read_available(sv[0]);
  EXPECT_EQ(requests,
            "cmd=init pmi_version=1 pmi_subversion=1\n"
            "cmd=get_maxes\n"
            "cmd=get_appnum\n"
            "cmd=get_my_kvsname\n"
            "cmd=put kvsname=kvs_test_1 key=card-2 value=x=y\n"
            "cmd=barrier_in\n"
            "cmd=get kvsname=kvs_test_1 key=card-0\n"
            "cmd=get_universe_size\n"
            "cmd=get_universe_size\n"
            "cmd=finalize\n");
  ::close(sv[0]);
}

TEST_F(PmiClientTest, FdLauncherErrorReplyIsFatal) {
  EXPECT_EXIT(
      {
        int sv[2];
        ::socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
        ::setenv("PMI_FD", std::to_string(sv[1]).c_str(), 1);
        ::setenv("PMI_RANK", "0", 1);
        ::setenv("PMI_SIZE", "2", 1);
        write_all(sv[0], kInitReplies + "cmd=put_result rc=-1 msg=duplicate_key\n");
        rt::PmiClient pmi;
        pmi.init();
        pmi.put("k", "v");
      },
      ::testing::ExitedWithCode(1), "duplicate_key");
}

TEST_F(PmiClientTest, FdLauncherMissingKeyIsFatal) {
  EXPECT_EXIT(
      {
        int sv[2];
        ::socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
        ::setenv("PMI_FD", std::to_string(sv[1]).c_str(), 1);
        write_all(sv[0], kInitReplies + "cmd=get_result rc=-1 msg=key_not_found\n");
        rt::PmiClient pmi;
        pmi.init();
        pmi.get("k");
      },
      ::testing::ExitedWithCode(1), "not found");
}

TEST_F(PmiClientTest, ValueLongerThanVallenMaxIsFatal) {
  EXPECT_EXIT(
      {
        int sv[2];
        ::socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
        ::setenv("PMI_FD", std::to_string(sv[1]).c_str(), 1);
        write_all(sv[0], kInitReplies);
        rt::PmiClient pmi;
        pmi.init();
        pmi.put("k", std::string(3000, 'v'));  // vallen_max=2048
      },
      ::testing::ExitedWithCode(1), "vallen_max=2048");
}

TEST_F(PmiClientTest, LauncherGoneIsFatal) {
  EXPECT_EXIT(
      {
        int sv[2];
        ::socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
        ::setenv("PMI_FD", std::to_string(sv[1]).c_str(), 1);
        ::close(sv[0]);
        rt::PmiClient pmi;
        pmi.init();
      },
      ::testing::ExitedWithCode(1), "PMI");
}

TEST_F(PmiClientTest, AbortSendsExitcode) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  EXPECT_EXIT(
      {
        ::setenv("PMI_FD", std::to_string(sv[1]).c_str(), 1);
        write_all(sv[0], kInitReplies);
        rt::PmiClient pmi;
        pmi.init();
        pmi.abort(9, "test");
      },
      ::testing::ExitedWithCode(9), "");
  std::string requests = read_available(sv[0]);
  EXPECT_NE(requests.find("cmd=abort exitcode=9\n"), std::string::npos) << requests;
  ::close(sv[0]);
  ::close(sv[1]);
}

// PMI_PORT form: TCP connection, "cmd=initack pmiid=" first, rank/size from the set replies.
TEST_F(PmiClientTest, PortLauncherWithInitack) {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::setenv("PMI_PORT", ("127.0.0.1:" + std::to_string(ntohs(addr.sin_port))).c_str(), 1);
  ::setenv("PMI_ID", "5", 1);

  std::string first_request;
  std::thread server([&] {
    int c = ::accept(listener, nullptr, nullptr);
    ASSERT_GE(c, 0);
    std::string got;
    char ch;
    while (::read(c, &ch, 1) == 1 && ch != '\n') got += ch;
    first_request = got;
    // Set lines in a different order than Hydra sends them; the reply is split across writes.
    write_all(c, "cmd=initack\ncmd=set rank=5\ncmd=set debug=0\ncmd=se");
    ::usleep(20000);
    write_all(c, "t size=7\n" + kInitReplies + "cmd=finalize_ack\n");
    char buf[4096];
    while (::read(c, buf, sizeof buf) > 0) {
    }
    ::close(c);
  });
  {
    rt::PmiClient pmi;
    pmi.init();
    EXPECT_FALSE(pmi.singleton());
    EXPECT_EQ(pmi.rank(), 5);
    EXPECT_EQ(pmi.size(), 7);
    EXPECT_EQ(pmi.kvs_name(), "kvs_test_1");
    pmi.finalize();
  }
  server.join();
  ::close(listener);
  EXPECT_EQ(first_request, "cmd=initack pmiid=5");
}
