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
    }
  ]
}
