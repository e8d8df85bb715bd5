// Runs the fanotify decoder over buffer files and prints one line per event, so that the
// decoder can be checked under valgrind without Node (test/unit/fanotify-decode.test.ts).
//   g++ -std=c++17 -Wall -Wextra -g -I../src decode_driver.cc ../src/fanotify_decode.cc
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fanotify_decode.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 2;
    }
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<vigil::DecodedEvent> events;
    std::string error;
    vigil::decodeFanotifyBuffer(bytes.data(), bytes.size(), events, error);
    for (const vigil::DecodedEvent& event : events) {
      std::printf("%s mask=%llx pid=%d records=%zu", argv[i], static_cast<unsigned long long>(event.mask), event.pid,
                  event.records.size());
      for (const vigil::InfoRecord& record : event.records) {
        std::printf(" %u:%s", record.type, record.name.c_str());
      }
      std::printf("\n");
    }
    std::printf("%s events=%zu error=%s\n", argv[i], events.size(), error.empty() ? "-" : error.c_str());
  }
  return 0;
}
