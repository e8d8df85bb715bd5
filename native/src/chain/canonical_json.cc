#define OPENSSL_SUPPRESS_DEPRECATED 1  // SHA256_Init/Update/Final: the low-level calls, no EVP fetch per record
#include "canonical_json.h"

#include <openssl/sha.h>

#include <cstring>

namespace vigil {

namespace {

// 0: copied as is; otherwise the character after the backslash ('u': \u00xx).
struct EscapeTable {
  char code[128];
  constexpr EscapeTable() : code() {
    for (int c = 0; c < 0x20; c++) code[c] = 'u';
    code['\b'] = 'b';
    code['\t'] = 't';
    code['\n'] = 'n';
    code['\f'] = 'f';
    code['\r'] = 'r';
    code['"'] = '"';
    code['\\'] = '\\';
  }
};
constexpr EscapeTable kEscape;

// The most bytes a string of `length` UTF-16 units can take as JSON: its quotes, and 6 bytes
// for a unit (\u00xx), which is more than its UTF-8 (3 bytes a unit at most).
size_t JsonStringBound(size_t length) { return 2 + 6 * length; }

// Writes the JSON string of `units` at `out` (room for JsonStringBound(length)); returns its end.
char* WriteJsonString16(char* out, const char16_t* units, size_t length) {
  *out++ = '"';
  for (size_t i = 0; i < length; i++) {
    const uint32_t unit = units[i];
    if (unit < 0x80) {
      const char code = kEscape.code[unit];
      if (code == 0) {
        *out++ = static_cast<char>(unit);
        continue;
      }
      *out++ = '\\';
      *out++ = code;
      if (code == 'u') {
        static const char kHex[] = "0123456789abcdef";
        *out++ = '0';
        *out++ = '0';
        *out++ = kHex[unit >> 4];
        *out++ = kHex[unit & 0xf];
      }
      continue;
    }
    uint32_t point = unit;
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const bool paired = unit <= 0xdbff && i + 1 < length && units[i + 1] >= 0xdc00 && units[i + 1] <= 0xdfff;
      if (paired) {
        point = 0x10000 + ((unit - 0xd800) << 10) + (units[i + 1] - 0xdc00);
        i++;
      } else {
        point = 0xfffd;  // a lone surrogate, as UTF-8 stores it
      }
    }
    if (point < 0x800) {
      *out++ = static_cast<char>(0xc0 | (point >> 6));
    } else if (point < 0x10000) {
      *out++ = static_cast<char>(0xe0 | (point >> 12));
      *out++ = static_cast<char>(0x80 | ((point >> 6) & 0x3f));
    } else {
      *out++ = static_cast<char>(0xf0 | (point >> 18));
      *out++ = static_cast<char>(0x80 | ((point >> 12) & 0x3f));
      *out++ = static_cast<char>(0x80 | ((point >> 6) & 0x3f));
    }
    *out++ = static_cast<char>(0x80 | (point & 0x3f));
  }
  *out++ = '"';
  return out;
}

// Writes an integer (|value| < 2^53) as JavaScript prints it; returns its end (room for 21).
char* WriteInteger(char* out, int64_t value) {
  char digits[24];
  size_t at = sizeof digits;
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  do {
    digits[--at] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  if (value < 0) digits[--at] = '-';
  std::memcpy(out, digits + at, sizeof digits - at);
  return out + (sizeof digits - at);
}

bool IsPlainInteger(double value) {
  constexpr double kLimit = 9007199254740992.0;  // 2^53
  return value > -kLimit && value < kLimit && value == static_cast<double>(static_cast<int64_t>(value));
}

// One row's canonical record, and where each of its values lies in it.
struct RowText {
  std::vector<char> bytes = std::vector<char>(1024);
  size_t length = 0;
  size_t start[kCanonicalValues] = {};
  size_t end[kCanonicalValues] = {};

  // Room for `more` bytes past `length`; the pointer to write at.
  char* Reserve(size_t more) {
    if (bytes.size() - length < more) bytes.resize(2 * bytes.size() + more);
    return bytes.data() + length;
  }
};

}  // namespace

void NextChain(const unsigned char* previous, size_t previous_length, const char* record, size_t length,
               unsigned char* chain) {
  SHA256_CTX context;
  SHA256_Init(&context);
  SHA256_Update(&context, previous, previous_length);
  SHA256_Update(&context, record, length);
  SHA256_Final(chain, &context);
}

bool ChainPacked(const unsigned char* previous, size_t previous_length, const char16_t* text, size_t text_length,
                 const int32_t* kinds, const double* numbers, size_t rows, unsigned char* chains, std::string& error) {
  // The row being built and the row before it (whose values a repeated value copies).
  thread_local RowText row_texts[2];
  size_t at = 0;  // next unit of `text`
  for (size_t row = 0; row < rows; row++) {
    RowText& own = row_texts[row & 1];
    const RowText& before = row_texts[(row & 1) ^ 1];
    own.length = 0;
    for (size_t column = 0; column < kCanonicalValues; column++) {
      const size_t i = row * kCanonicalValues + column;
      const int32_t kind = kinds[i];
      *own.Reserve(1) = column == 0 ? '[' : ',';
      own.length++;
      own.start[column] = own.length;
      char* out;
      if (kind >= 0) {
        const size_t length = static_cast<size_t>(kind);
        if (length > text_length - at) {
          error = "a string runs past the end of the text";
          return false;
        }
        out = WriteJsonString16(own.Reserve(JsonStringBound(length)), text + at, length);
        at += length;
      } else if (kind == kSameAsRowBefore) {
        if (row == 0) {
          error = "the first row cannot repeat the row before it";
          return false;
        }
        const size_t length = before.end[column] - before.start[column];
        out = own.Reserve(length);
        std::memcpy(out, before.bytes.data() + before.start[column], length);
        out += length;
      } else if (kind == kNull) {
        out = own.Reserve(4);
        std::memcpy(out, "null", 4);
        out += 4;
      } else if (kind == kInteger) {
        if (!IsPlainInteger(numbers[i])) {
          error = "an integer value is not a whole number below 2^53";
          return false;
        }
        out = WriteInteger(own.Reserve(24), static_cast<int64_t>(numbers[i]));
      } else {
        const size_t length = static_cast<size_t>(kRawFirst - static_cast<int64_t>(kind));
        if (length > text_length - at) {
          error = "a raw value runs past the end of the text";
          return false;
        }
        out = own.Reserve(length);
        for (size_t u = 0; u < length; u++) {
          if (text[at + u] >= 0x80) {
            error = "a raw value is not ASCII";
            return false;
          }
          *out++ = static_cast<char>(text[at + u]);
        }
        at += length;
      }
      own.length = static_cast<size_t>(out - own.bytes.data());
      own.end[column] = own.length;
    }
    *own.Reserve(1) = ']';
    own.length++;
    unsigned char* chain = chains + row * kChainBytes;
    NextChain(previous, previous_length, own.bytes.data(), own.length, chain);
    previous = chain;
    previous_length = kChainBytes;
  }
  if (at != text_length) {
    error = "text is left over after the last row";
    return false;
  }
  return true;
}

bool SplitRecords(const char* text, size_t length, char separator, size_t count,
                  std::vector<std::pair<size_t, size_t>>& records) {
  records.clear();
  if (count == 0) return length == 0;
  records.reserve(count);
  size_t start = 0;
  while (records.size() + 1 < count) {
    const void* found = std::memchr(text + start, separator, length - start);
    if (found == nullptr) return false;
    const size_t end = static_cast<size_t>(static_cast<const char*>(found) - text);
    records.emplace_back(start, end - start);
    start = end + 1;
  }
  if (std::memchr(text + start, separator, length - start) != nullptr) return false;
  records.emplace_back(start, length - start);
  return true;
}

}  // namespace vigil
