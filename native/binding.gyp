{
  "targets": [
    {
      "target_name": "vigil_fanotify",
      "sources": [
        "src/addon.cc",
        "src/fanotify_decode.cc",
        "src/handle_resolver.cc",
        "src/process_cache.cc",
        "src/watch_core.cc"
      ],
      "dependencies": ["<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except"],
      "defines": ["NAPI_VERSION=8", "_GNU_SOURCE"],
      "cflags": ["-Wall", "-Wextra", "-Werror"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-Werror"],
      "conditions": [["OS!='linux'", {"type": "none", "sources": []}]]
    },
    {
      "target_name": "vigil_chain",
      "sources": [
        "src/chain/chain_batch.cc",
        "src/chain/canonical_json.cc",
        "src/chain/log_digest.cc",
        "src/chain/log_digest_addon.cc",
        "src/chain/sqlite_chain.cc"
      ],
      "include_dirs": ["<!(node -p \"require('path').join(require('path').dirname(require.resolve('better-sqlite3/package.json')), 'deps', 'sqlite3')\")"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-Wall", "-Wextra", "-Werror"],
      "cflags_cc": ["-std=c++17", "-O3", "-Wall", "-Wextra", "-Werror"],
      "conditions": [["OS=='linux'", {"ldflags": ["-Wl,-z,now"]}]]
    }
  ]
}
