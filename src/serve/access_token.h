// The dashboard's token: required on any address other than loopback, as
// Jupyter and trackio do, since the pages show commands, paths and hosts.
#pragma once

#include <string>
#include <string_view>

namespace gpuwatch {

// 32 hex characters (128 bits) from the kernel's random source. Throws
// std::system_error when it has none to give.
std::string generate_access_token();

// Whether `given` is `expected`, in time that depends on the length of
// `expected` only, so that a client cannot find it a byte at a time.
bool token_matches(std::string_view expected, std::string_view given);

// The token a request carries: "Bearer T" in the Authorization header, else
// the `token` query parameter (what a browser's first URL and EventSource
// can carry); empty for none.
std::string_view presented_token(std::string_view authorization, std::string_view token_param);

// Whether a token may be used as given: letters, digits and ._~- only, so
// that it travels in a URL unchanged.
bool is_token_text(std::string_view token);

}  // namespace gpuwatch
