// `record --on-hang`'s values: kill, or signal=NAME with any signal's name.
#include "record/hang_action.h"

#include <csignal>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

TEST(HangAction, KillAndSignalsByNameOrNumber) {
  EXPECT_EQ(parse_hang_action("kill").kind, HangAction::Kind::Kill);
  for (const char* text : {"signal=USR1", "signal=SIGUSR1", "signal=usr1", "signal=SigUsr1"}) {
    const HangAction a = parse_hang_action(text);
    EXPECT_EQ(a.kind, HangAction::Kind::Signal) << text;
    EXPECT_EQ(a.signal, SIGUSR1) << text;
  }
  EXPECT_EQ(parse_hang_action("signal=TERM").signal, SIGTERM);
  EXPECT_EQ(parse_hang_action("signal=12").signal, 12);
  EXPECT_EQ(signal_name(SIGUSR1), "SIGUSR1");
}

TEST(HangAction, BadValuesSayWhatIsExpected) {
  for (const char* text : {"", "stop", "signal", "signal=", "signal=FOO", "signal=0", "signal=999", "signal=+10",
                           "kill ", "signal=KILL", "signal=SIGSTOP"}) {
    EXPECT_THROW(parse_hang_action(text), HangActionError) << text;
  }
  try {
    parse_hang_action("signal=FOO");
  } catch (const HangActionError& e) {
    EXPECT_STREQ(e.what(), "'FOO' is not a signal (a name such as USR1 or SIGUSR1, or a number)");
  }
}

}  // namespace
}  // namespace gpuwatch
