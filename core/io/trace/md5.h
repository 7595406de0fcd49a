#pragma once
// MD5 (RFC 1321), for checking TORCH_TRACE payloads against their envelope's "has_payload" digest. Not for
// security: torch writes md5(usedforsecurity=False) and so do we only to detect a damaged or edited payload.
// (No Debian package gives core a small MD5 without linking a crypto library; this is the RFC's algorithm.)
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ss {

class Md5 {
 public:
  Md5();
  void update(std::string_view data);
  std::array<uint8_t, 16> digest();  // finishes the hash; the object is spent afterwards
  std::string hexDigest();           // 32 lowercase hex digits

 private:
  void block(const uint8_t* p);
  uint32_t s_[4];
  uint64_t bytes_ = 0;
  uint8_t buf_[64];
  size_t used_ = 0;
};

std::string md5Hex(std::string_view data);

}  // namespace ss
