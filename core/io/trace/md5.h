#pragma once
// MD5, for checking TORCH_TRACE payloads against their envelope's "has_payload" digest. Not for security: torch
// writes md5(usedforsecurity=False), and so do we, only to detect a damaged or edited payload. The algorithm is
// Debian's libmd (libmd-dev); this wraps it as a value type (copyable: a copy hashes on independently).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <md5.h>

namespace ss {

class Md5 {
 public:
  Md5();
  void update(std::string_view data);
  std::array<uint8_t, 16> digest();  // finishes the hash; the object is spent afterwards
  std::string hexDigest();           // 32 lowercase hex digits

 private:
  MD5_CTX ctx_;
};

std::string md5Hex(std::string_view data);

}  // namespace ss
