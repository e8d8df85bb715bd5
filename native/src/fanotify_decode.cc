#include "fanotify_decode.h"

#include <linux/fanotify.h>

#include <cstring>

namespace vigil {

namespace {

// The kernel aligns records, but a recorded or hostile buffer need not be: read every
// field through memcpy.
template <typename T>
T readAt(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

bool isHandleRecord(uint8_t type) {
  switch (type) {
    case FAN_EVENT_INFO_TYPE_FID:
    case FAN_EVENT_INFO_TYPE_DFID:
    case FAN_EVENT_INFO_TYPE_DFID_NAME:
    case FAN_EVENT_INFO_TYPE_OLD_DFID_NAME:
    case FAN_EVENT_INFO_TYPE_NEW_DFID_NAME:
      return true;
    default:
      return false;
  }
}

bool carriesName(uint8_t type) {
  return type == FAN_EVENT_INFO_TYPE_DFID_NAME || type == FAN_EVENT_INFO_TYPE_OLD_DFID_NAME ||
         type == FAN_EVENT_INFO_TYPE_NEW_DFID_NAME;
}

// Layout of a handle record: fanotify_event_info_header (4 bytes), __kernel_fsid_t (8),
// struct file_handle {u32 handle_bytes; i32 handle_type; u8 f_handle[]}, then for the
// *_DFID_NAME types a NUL-terminated name.
bool decodeHandleRecord(const uint8_t* rec, size_t recLen, InfoRecord& out, std::string& error) {
  const size_t fsidAt = sizeof(fanotify_event_info_header);
  const size_t handleAt = fsidAt + 8;
  const size_t handleHeader = 8;
  if (recLen < handleAt + handleHeader) {
    error = "handle record shorter than its fixed part";
    return false;
  }
  out.fid.fsid = packFsid(readAt<int32_t>(rec + fsidAt), readAt<int32_t>(rec + fsidAt + 4));
  const uint32_t handleBytes = readAt<uint32_t>(rec + handleAt);
  if (handleBytes > recLen - handleAt - handleHeader) {
    error = "file handle runs past its record";
    return false;
  }
  const size_t handleEnd = handleAt + handleHeader + handleBytes;
  out.fid.handle.assign(reinterpret_cast<const char*>(rec + handleAt), handleHeader + handleBytes);
  if (carriesName(out.type)) {
    const uint8_t* name = rec + handleEnd;
    const size_t room = recLen - handleEnd;
    const void* nul = std::memchr(name, 0, room);
    if (nul == nullptr) {
      error = "entry name without its NUL inside the record";
      return false;
    }
    out.hasName = true;
    out.name.assign(reinterpret_cast<const char*>(name),
                    static_cast<const uint8_t*>(nul) - name);
  }
  return true;
}

}  // namespace

uint64_t packFsid(int32_t val0, int32_t val1) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(val0)) << 32) |
         static_cast<uint64_t>(static_cast<uint32_t>(val1));
}

const InfoRecord* DecodedEvent::find(uint8_t type) const {
  for (const InfoRecord& record : records) {
    if (record.type == type) return &record;
  }
  return nullptr;
}

bool decodeFanotifyBuffer(const uint8_t* buf, size_t len, std::vector<DecodedEvent>& out,
                          std::string& error) {
  const size_t metaSize = sizeof(fanotify_event_metadata);
  size_t offset = 0;
  while (offset < len) {
    if (len - offset < metaSize) {
      error = "truncated event metadata";
      return false;
    }
    const uint8_t* ev = buf + offset;
    const uint32_t eventLen = readAt<uint32_t>(ev + offsetof(fanotify_event_metadata, event_len));
    const uint8_t vers = readAt<uint8_t>(ev + offsetof(fanotify_event_metadata, vers));
    const uint16_t metadataLen =
        readAt<uint16_t>(ev + offsetof(fanotify_event_metadata, metadata_len));
    if (vers != FANOTIFY_METADATA_VERSION) {
      error = "unexpected fanotify metadata version " + std::to_string(vers);
      return false;
    }
    if (eventLen < metaSize || metadataLen < metaSize || metadataLen > eventLen ||
        eventLen > len - offset) {
      error = "event length out of bounds";
      return false;
    }
    DecodedEvent event;
    event.mask = readAt<uint64_t>(ev + offsetof(fanotify_event_metadata, mask));
    event.fd = readAt<int32_t>(ev + offsetof(fanotify_event_metadata, fd));
    event.pid = readAt<int32_t>(ev + offsetof(fanotify_event_metadata, pid));

    size_t recOffset = metadataLen;
    while (recOffset < eventLen) {
      const size_t headerSize = sizeof(fanotify_event_info_header);
      if (eventLen - recOffset < headerSize) {
        error = "truncated info record header";
        out.push_back(std::move(event));
        return false;
      }
      const uint8_t* rec = ev + recOffset;
      const uint8_t infoType = readAt<uint8_t>(rec + offsetof(fanotify_event_info_header, info_type));
      const uint16_t recLen = readAt<uint16_t>(rec + offsetof(fanotify_event_info_header, len));
      if (recLen < headerSize || recLen > eventLen - recOffset) {
        error = "info record length out of bounds";
        out.push_back(std::move(event));
        return false;
      }
      if (isHandleRecord(infoType)) {
        InfoRecord record;
        record.type = infoType;
        if (!decodeHandleRecord(rec, recLen, record, error)) {
          out.push_back(std::move(event));
          return false;
        }
        event.records.push_back(std::move(record));
      }
      // Other record types (pidfd, error) are skipped: this group does not ask for them.
      recOffset += recLen;
    }
    out.push_back(std::move(event));
    offset += eventLen;
  }
  return true;
}

}  // namespace vigil
