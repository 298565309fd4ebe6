#include "annotate/annotation.h"

#include <variant>

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

Annotation parsed(std::string_view text) {
  std::string why;
  auto a = parse_annotation(text, why);
  EXPECT_TRUE(a.has_value()) << text << ": " << why;
  return a.value_or(Annotation{});
}

std::string rejection(std::string_view text) {
  std::string why;
  EXPECT_FALSE(parse_annotation(text, why).has_value()) << text;
  return why;
}

TEST(Annotation, EveryKindParses) {
  EXPECT_EQ(parsed(R"({"kind":"step","value":120})").count, 120);
  const Annotation epoch = parsed(R"({"kind":"epoch","value":3.0,"mono_ns":123456789})");
  EXPECT_EQ(epoch.kind, AnnotationKind::Epoch);
  EXPECT_EQ(epoch.count, 3);
  EXPECT_EQ(epoch.sender_mono_ns, 123456789);
  EXPECT_EQ(parsed(R"({"kind":"phase","value":"val"})").text, "val");
  EXPECT_EQ(parsed(R"({"kind":"phase","value":null})").text, "");
  EXPECT_EQ(parsed(R"({"kind":"mark","value":"checkpoint saved"})").text, "checkpoint saved");
}

TEST(Annotation, LogKeepsFiniteNumbersInOrder) {
  const Annotation log = parsed(R"({"kind":"log","value":{"loss":0.53,"acc":"n/a","lr":1e-3,"ok":true}})");
  ASSERT_EQ(log.values.size(), 2u);
  EXPECT_EQ(log.values[0].first, "loss");
  EXPECT_DOUBLE_EQ(log.values[0].second, 0.53);
  EXPECT_EQ(log.values[1].first, "lr");
  EXPECT_EQ(format_log_values(log.values), "loss=0.53 lr=0.001");
}

TEST(Annotation, BadMessagesSayWhy) {
  EXPECT_EQ(rejection("not json"), "not valid JSON");
  EXPECT_EQ(rejection("[1,2]"), "not a JSON object");
  EXPECT_EQ(rejection(R"({"value":1})"), "no \"kind\" string");
  EXPECT_NE(rejection(R"({"kind":"lap","value":1})").find("unknown kind"), std::string::npos);
  EXPECT_EQ(rejection(R"({"kind":"step"})"), "no \"value\"");
  EXPECT_NE(rejection(R"({"kind":"step","value":-1})").find("whole number"), std::string::npos);
  EXPECT_NE(rejection(R"({"kind":"epoch","value":1.5})").find("whole number"), std::string::npos);
  EXPECT_NE(rejection(R"({"kind":"step","value":1e300})").find("whole number"), std::string::npos);
  EXPECT_NE(rejection(R"({"kind":"phase","value":3})").find("string or null"), std::string::npos);
  EXPECT_NE(rejection(R"({"kind":"mark","value":null})").find("string"), std::string::npos);
  EXPECT_NE(rejection(R"({"kind":"log","value":{"bad name":1}})").find("bad log name"), std::string::npos);
  EXPECT_NE(rejection(R"({"kind":"log","value":{}})").find("without any finite number"), std::string::npos);
  EXPECT_NE(rejection(R"({"kind":"step","value":1,"mono_ns":-5})").find("mono_ns"), std::string::npos);
  EXPECT_NE(rejection(R"({"kind":"phase","value":")" + std::string(65, 'x') + "\"}").find("at most 64"),
            std::string::npos);
  EXPECT_NE(rejection(std::string(kMaxDatagramBytes + 1, ' ')).find("longer than"), std::string::npos);
}

TEST(Annotation, LogNames) {
  EXPECT_TRUE(valid_log_name("loss"));
  EXPECT_TRUE(valid_log_name("val.acc_top5"));
  EXPECT_TRUE(valid_log_name("_x1"));
  EXPECT_FALSE(valid_log_name("1x"));
  EXPECT_FALSE(valid_log_name(""));
  EXPECT_FALSE(valid_log_name("a b"));
  EXPECT_FALSE(valid_log_name("a=b"));
  EXPECT_FALSE(valid_log_name(std::string(65, 'a')));
}

TEST(Annotation, TooManyLogValuesIsAnError) {
  std::string text = R"({"kind":"log","value":{)";
  for (std::size_t i = 0; i <= kMaxLogValues; ++i) text += (i ? "," : "") + ("\"v" + std::to_string(i) + "\":1");
  text += "}}";
  EXPECT_NE(rejection(text).find("at most 32"), std::string::npos);
}

TEST(AnnotationEvent, SenderTimeIsUsedWhenPlausible) {
  const Timestamp received{100'000'000'000, 1'700'000'000'000'000'000};
  Annotation a;
  a.kind = AnnotationKind::Epoch;
  a.count = 4;
  a.sender_mono_ns = received.mono_ns - 2'000'000'000;  // waited 2 s in the queue
  Event e = annotation_event(a, received);
  EXPECT_EQ(e.kind, "epoch");
  EXPECT_EQ(e.message, "4");
  EXPECT_EQ(e.time.mono_ns, received.mono_ns - 2'000'000'000);
  EXPECT_EQ(e.time.wall_ns, received.wall_ns - 2'000'000'000);

  a.sender_mono_ns = received.mono_ns + 50'000'000;  // read its clock a hair "later": same instant
  e = annotation_event(a, received);
  EXPECT_EQ(e.time.mono_ns, received.mono_ns);
  a.sender_mono_ns = received.mono_ns + 5'000'000'000;  // another clock altogether
  EXPECT_EQ(annotation_event(a, received).time.mono_ns, received.mono_ns);
  a.sender_mono_ns = received.mono_ns - 3600'000'000'000;  // an hour old: not believed
  EXPECT_EQ(annotation_event(a, received).time.mono_ns, received.mono_ns);
}

TEST(AnnotationEvent, MessagesAreTheStoredForm) {
  const Timestamp t{1, 2};
  Annotation phase{AnnotationKind::Phase, 0, "train", {}, std::nullopt};
  EXPECT_EQ(annotation_event(phase, t).kind, "phase");
  EXPECT_EQ(annotation_event(phase, t).message, "train");
  Annotation log{AnnotationKind::Log, 0, {}, {{"loss", 0.123456789012}, {"lr", 3e-4}}, std::nullopt};
  EXPECT_EQ(annotation_event(log, t).message, "loss=0.123456789 lr=0.0003");
  EXPECT_FALSE(annotation_event(log, t).device_index.has_value());
}

TEST(Annotation, MetricsRequestsParseAsRequestsOnly) {
  std::string why;
  const auto message = parse_socket_message(R"({"kind":"metrics","id":42})", why);
  ASSERT_TRUE(message.has_value()) << why;
  ASSERT_TRUE(std::holds_alternative<MetricsRequest>(*message));
  EXPECT_EQ(std::get<MetricsRequest>(*message).id, 42);
  EXPECT_EQ(std::get<MetricsRequest>(parse_socket_message(R"({"kind":"metrics","id":9007199254740992})", why).value())
                .id,
            9007199254740992);
  // An annotation still is one through either parser.
  const auto step = parse_socket_message(R"({"kind":"step","value":3})", why);
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(std::get<Annotation>(*step).count, 3);
  // parse_annotation() takes annotations only.
  EXPECT_EQ(rejection(R"({"kind":"metrics","id":1})"), "a metrics request, not an annotation");
}

TEST(Annotation, MalformedMetricsRequestsAreRejected) {
  for (const std::string_view bad :
       {R"({"kind":"metrics"})", R"({"kind":"metrics","id":-1})", R"({"kind":"metrics","id":1.5})",
        R"({"kind":"metrics","id":"7"})", R"({"kind":"metrics","id":true})", R"({"kind":"metrics","id":1e300})",
        R"({"kind":"metrics","id":18446744073709551615})"}) {
    std::string why;
    EXPECT_FALSE(parse_socket_message(bad, why).has_value()) << bad;
    EXPECT_NE(why.find("\"id\""), std::string::npos) << bad << ": " << why;
  }
  std::string why;
  const std::string padded = R"({"kind":"metrics","id":1,"pad":")" + std::string(kMaxRequestBytes, 'x') + "\"}";
  EXPECT_FALSE(parse_socket_message(padded, why).has_value());
  EXPECT_NE(why.find("at most 256"), std::string::npos) << why;
}

}  // namespace
}  // namespace gpuwatch
