// Node-API export of the log files' line digests (log_digest.h), added to the chain addon's
// exports by its Init (chain_batch.cc).
#pragma once

#include <node_api.h>

namespace vigil {

// Sets exports.lineDigests; false with an exception pending when it could not.
bool ExportLineDigests(napi_env env, napi_value exports);

}  // namespace vigil
