#include "core/io/trace/md5.h"

namespace ss {

Md5::Md5() { MD5Init(&ctx_); }

void Md5::update(std::string_view data) {
  MD5Update(&ctx_, reinterpret_cast<const uint8_t*>(data.data()), data.size());
}

std::array<uint8_t, 16> Md5::digest() {
  std::array<uint8_t, 16> out;
  MD5Final(out.data(), &ctx_);
  return out;
}

std::string Md5::hexDigest() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(32);
  for (uint8_t b : digest()) {
    s += kHex[b >> 4];
    s += kHex[b & 15];
  }
  return s;
}

std::string md5Hex(std::string_view data) {
  Md5 m;
  m.update(data);
  return m.hexDigest();
}

}  // namespace ss
