{
  "targets": [
    {
      "target_name": "postresp",
      "sources": ["core/native/addon.c", "core/native/fd.c", "core/native/pg.c", "core/native/pg-params.c", "core/native/pg-results.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "defines": ["NAPI_VERSION=8"],
      # libpq from the system (Debian/Ubuntu: apt-get install libpq-dev). pg_config names the
      # directories; without it the usual Debian paths are tried so the compiler reports the
      # missing header by name.
      "include_dirs": ["<!(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)"],
      "libraries": ["-L<!(pg_config --libdir 2>/dev/null || echo /usr/lib)", "-lpq"],
      # libpq outside the loader's default path (e.g. /usr/pgsql-15/lib) is found at run time too
      "ldflags": ["-Wl,-rpath,<!(pg_config --libdir 2>/dev/null || echo /usr/lib)"]
    },
    {
      # The Lua scripting engine (core/native/lua, docs/scripting.md): Debian's Lua 5.1.5,
      # lua-cjson and lua-bitop as shared libraries (apt-get install liblua5.1-0-dev
      # lua-cjson-dev lua-bitop-dev; Debian ships the static ones without -fPIC).
      "target_name": "postresp_lua",
      "sources": ["core/native/lua/addon-lua.c", "core/native/lua/buf.c", "core/native/lua/cmsgpack.c",
                  "core/native/lua/functions.c", "core/native/lua/pool.c", "core/native/lua/redis-api.c",
                  "core/native/lua/resp-lua.c", "core/native/lua/sandbox.c", "core/native/lua/sha1.c",
                  "core/native/lua/struct.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-std=gnu11"],
      "defines": ["NAPI_VERSION=8"],
      "include_dirs": ["<!(pkg-config --variable=includedir lua5.1 2>/dev/null || echo /usr/include)/lua5.1"],
      "libraries": ["-llua5.1-cjson", "-llua5.1-bitop", "-llua5.1", "-lm", "-lpthread"]
    }
  ]
}
