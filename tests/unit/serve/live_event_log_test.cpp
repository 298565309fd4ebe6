#include "serve/live_event_log.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpuwatch {
namespace {

Event at(std::int64_t s, std::string kind, std::string message) {
  Event e;
  e.time.mono_ns = s * 1'000'000'000;
  e.kind = std::move(kind);
  e.message = std::move(message);
  return e;
}

std::vector<std::string> messages(const std::vector<const Event*>& events) {
  std::vector<std::string> out;
  for (const Event* e : events) out.push_back(e->message);
  return out;
}

TEST(SentEvents, EachEventIsSentOnceEvenWhenStoredLateAndOutOfOrder) {
  SentEvents sent(10'000'000'000);  // the page read the events up to 10 s
  std::vector<Event> events{at(5, "epoch", "1"), at(11, "log", "loss=1"), at(12, "phase", "train")};
  EXPECT_EQ(messages(sent.unsent(events, 12'000'000'000)), (std::vector<std::string>{"loss=1", "train"}));
  // The next poll: the same events, one stored late with an earlier time, one in the future.
  events.insert(events.begin() + 1, at(11, "mark", "checkpoint 1"));
  events.push_back(at(20, "epoch", "2"));
  EXPECT_EQ(messages(sent.unsent(events, 13'000'000'000)), (std::vector<std::string>{"checkpoint 1"}));
  EXPECT_EQ(messages(sent.unsent(events, 20'000'000'000)), (std::vector<std::string>{"2"}));
  EXPECT_TRUE(sent.unsent(events, 20'000'000'000).empty());
}

TEST(SentEvents, WhatCanNoLongerArriveIsForgotten) {
  SentEvents sent(0);
  std::vector<Event> events{at(1, "step", "1"), at(2, "step", "2")};
  EXPECT_EQ(sent.unsent(events, 1000'000'000'000).size(), 2u);
  // Far past the late margin: an event at 1 s that was never seen counts as sent.
  events.push_back(at(3, "step", "3"));
  EXPECT_TRUE(sent.unsent(events, 1000'000'000'000).empty());
}

}  // namespace
}  // namespace gpuwatch
