{
  "targets": [
    {
      "target_name": "postresp",
      "sources": ["core/native/addon.c", "core/native/fd.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
