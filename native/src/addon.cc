// Node-API entry points (ABI-stable: the same binary loads in Node and in Electron).
//   probe()                         -> "" or why attribution is unavailable
//   decode(buffer)                  -> the events of a raw fanotify read(2) buffer
//   new Watcher(options, onBatch)   -> starts the watch; .stop(), .stats()
// docs/attribution.md describes what the events mean.
#include <napi.h>

#include <memory>
#include <mutex>

#include "fanotify_decode.h"
#include "watch_core.h"

namespace {

using vigil::ResolvedEvent;

std::string hex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

Napi::Value Probe(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), vigil::probeAttribution());
}

Napi::Value Decode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsBuffer()) {
    Napi::TypeError::New(env, "decode(buffer): a Buffer is required").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto buffer = info[0].As<Napi::Buffer<uint8_t>>();
  std::vector<vigil::DecodedEvent> events;
  std::string error;
  vigil::decodeFanotifyBuffer(buffer.Data(), buffer.Length(), events, error);
  Napi::Array list = Napi::Array::New(env, events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const vigil::DecodedEvent& event = events[i];
    Napi::Object item = Napi::Object::New(env);
    item.Set("mask", Napi::Number::New(env, static_cast<double>(event.mask)));
    item.Set("pid", Napi::Number::New(env, event.pid));
    item.Set("fd", Napi::Number::New(env, event.fd));
    Napi::Array records = Napi::Array::New(env, event.records.size());
    for (size_t r = 0; r < event.records.size(); ++r) {
      const vigil::InfoRecord& record = event.records[r];
      Napi::Object rec = Napi::Object::New(env);
      rec.Set("type", Napi::Number::New(env, record.type));
      char fsid[17];
      snprintf(fsid, sizeof fsid, "%016llx", static_cast<unsigned long long>(record.fid.fsid));
      rec.Set("fsid", Napi::String::New(env, fsid));
      rec.Set("handle", Napi::String::New(env, hex(record.fid.handle)));
      if (record.hasName) rec.Set("name", Napi::String::New(env, record.name));
      records.Set(static_cast<uint32_t>(r), rec);
    }
    item.Set("records", records);
    list.Set(static_cast<uint32_t>(i), item);
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("events", list);
  result.Set("error", error.empty() ? env.Null() : Napi::String::New(env, error));
  return result;
}

Napi::Object ToJs(Napi::Env env, const ResolvedEvent& event) {
  Napi::Object item = Napi::Object::New(env);
  item.Set("mask", Napi::Number::New(env, static_cast<double>(event.mask)));
  item.Set("pid", Napi::Number::New(env, event.pid));
  item.Set("uid", Napi::Number::New(env, static_cast<double>(event.uid)));
  item.Set("loginUid", Napi::Number::New(env, static_cast<double>(event.loginUid)));
  item.Set("exe", Napi::String::New(env, event.exe));
  item.Set("path", Napi::String::New(env, event.path));
  if (!event.oldPath.empty()) item.Set("oldPath", Napi::String::New(env, event.oldPath));
  item.Set("isDir", Napi::Boolean::New(env, event.isDir));
  return item;
}

using Batch = std::vector<ResolvedEvent>;

void DeliverBatch(Napi::Env env, Napi::Function onBatch, std::nullptr_t*, Batch* batch) {
  std::unique_ptr<Batch> owned(batch);
  if (env == nullptr || onBatch.IsEmpty()) return;  // the watch is being torn down
  Napi::Array list = Napi::Array::New(env, owned->size());
  for (size_t i = 0; i < owned->size(); ++i) list.Set(static_cast<uint32_t>(i), ToJs(env, (*owned)[i]));
  onBatch.Call({list});
}

using BatchFunction = Napi::TypedThreadSafeFunction<std::nullptr_t, Batch, DeliverBatch>;

class Watcher : public Napi::ObjectWrap<Watcher> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Watcher",
                       {InstanceMethod<&Watcher::Stop>("stop"), InstanceMethod<&Watcher::Stats>("stats")});
  }

  // new Watcher({roots: string[], reads?: boolean, graceMs?: number, processEvents?: boolean}, onBatch)
  explicit Watcher(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Watcher>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 2 || !info[0].IsObject() || !info[1].IsFunction()) {
      Napi::TypeError::New(env, "new Watcher(options, onBatch)").ThrowAsJavaScriptException();
      return;
    }
    Napi::Object options = info[0].As<Napi::Object>();
    vigil::WatchOptions watch;
    Napi::Value roots = options.Get("roots");
    if (!roots.IsArray()) {
      Napi::TypeError::New(env, "options.roots must be an array of paths").ThrowAsJavaScriptException();
      return;
    }
    Napi::Array rootList = roots.As<Napi::Array>();
    for (uint32_t i = 0; i < rootList.Length(); ++i) {
      Napi::Value root = rootList.Get(i);
      if (!root.IsString()) {
        Napi::TypeError::New(env, "options.roots must be an array of paths").ThrowAsJavaScriptException();
        return;
      }
      watch.roots.push_back(root.As<Napi::String>().Utf8Value());
    }
    watch.reads = options.Get("reads").ToBoolean().Value();
    Napi::Value processEvents = options.Get("processEvents");
    if (processEvents.IsBoolean()) watch.processEvents = processEvents.As<Napi::Boolean>().Value();
    Napi::Value grace = options.Get("graceMs");
    if (grace.IsNumber()) watch.graceMs = grace.As<Napi::Number>().Int64Value();

    function_ = BatchFunction::New(env, info[1].As<Napi::Function>(), "vigil-fanotify", 0, 1);
    core_ = std::make_unique<vigil::WatchCore>(std::move(watch), [this](Batch&& batch) {
      // Never blocks the reader: the queue is unbounded and the call returns at once.
      std::lock_guard<std::mutex> lock(mutex_);
      if (!running_) return;
      auto* owned = new Batch(std::move(batch));
      if (function_.NonBlockingCall(owned) != napi_ok) delete owned;
    });
    running_ = true;
    std::string error = core_->start();
    if (!error.empty()) {
      StopWatch();
      Napi::Error::New(env, error).ThrowAsJavaScriptException();
    }
  }

  ~Watcher() override { StopWatch(); }

 private:
  void StopWatch() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!running_) return;
      running_ = false;
    }
    if (core_) core_->stop();
    function_.Release();
  }

  Napi::Value Stop(const Napi::CallbackInfo& info) {
    StopWatch();
    return info.Env().Undefined();
  }

  Napi::Value Stats(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Object out = Napi::Object::New(env);
    if (!core_) return out;
    const vigil::WatchStats& s = core_->stats();
    out.Set("eventsRead", Napi::Number::New(env, static_cast<double>(s.eventsRead.load())));
    out.Set("eventsEmitted", Napi::Number::New(env, static_cast<double>(s.eventsEmitted.load())));
    out.Set("unknownActors", Napi::Number::New(env, static_cast<double>(s.unknownActors.load())));
    out.Set("unresolvedPaths", Napi::Number::New(env, static_cast<double>(s.unresolvedPaths.load())));
    out.Set("overflows", Napi::Number::New(env, static_cast<double>(s.overflows.load())));
    out.Set("connectorOverruns", Napi::Number::New(env, static_cast<double>(s.connectorOverruns.load())));
    out.Set("connectorResyncs", Napi::Number::New(env, static_cast<double>(s.connectorResyncs.load())));
    out.Set("movedFromUnknown", Napi::Number::New(env, static_cast<double>(s.movedFromUnknown.load())));
    out.Set("cachedProcesses", Napi::Number::New(env, static_cast<double>(s.cachedProcesses.load())));
    out.Set("processEvents", Napi::Boolean::New(env, s.processEvents.load()));
    out.Set("renameEvents", Napi::Boolean::New(env, s.renameEvents.load()));
    out.Set("targetHandles", Napi::Boolean::New(env, s.targetHandles.load()));
    out.Set("readerNice", Napi::Number::New(env, s.readerNice.load()));
    return out;
  }

  std::mutex mutex_;
  bool running_ = false;
  BatchFunction function_;
  std::unique_ptr<vigil::WatchCore> core_;
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("probe", Napi::Function::New(env, Probe));
  exports.Set("decode", Napi::Function::New(env, Decode));
  exports.Set("Watcher", Watcher::Define(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(vigil_fanotify, Init)
