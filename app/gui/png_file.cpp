// PNG encoding through stb (Debian's libstb) into memory, then a safe write (app/gui/png_file.h).
#include "app/gui/png_file.h"

#include <stb_image_write.h>

#include "core/io/load/load.h"

namespace ss::app {

Result<bool> writePngFile(const std::string& path, int w, int h, const unsigned char* rgba) {
  std::string bytes;
  auto append = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &bytes, w, h, 4, rgba, w * 4)) return Error{"cannot encode the PNG"};
  return writeFileAtomic(path, bytes, Backup::No);
}

}  // namespace ss::app
