// The store's schema and how it evolves. The version lives in the `meta`
// table (key 'schema_version'). Migration step N upgrades version N-1 to N;
// step 1 creates everything from an empty file. A writer applies all
// missing steps in one transaction when it opens the store; a reader never
// changes the file.
#pragma once

#include <span>
#include <string_view>

struct sqlite3;

namespace gpuwatch {

struct Migration {
  int version;              // the version this step produces
  std::string_view sql;     // statements run inside the migration transaction
  // True when the reader code of this build can read a database that lacks
  // this step (for example a step that only adds an index or an optional
  // table the readers tolerate being absent). A read-only open of a store
  // missing any step without it fails, telling the user to run a writer.
  bool old_readable = false;
};

// The steps of this build, ordered by version, starting at 1.
std::span<const Migration> schema_migrations();
// The version this build writes: the last step's.
int current_schema_version();

// The stored version: 0 for an empty database. Throws StoreError when the
// file holds tables but is not a gpuwatch store.
int read_schema_version(sqlite3* db);

// Whether `table` has a column named `column`.
bool has_column(sqlite3* db, std::string_view table, std::string_view column);

// Brings the database up to the last of `steps` inside one write
// transaction, re-reading the version under the lock so that two writers
// opening at once do not both migrate. Returns the resulting version.
// Throws StoreError, leaving the file unchanged, when the stored version is
// newer than `steps` know or a step fails.
int migrate(sqlite3* db, std::span<const Migration> steps, std::string_view path_for_errors);

// For read-only opens: throws StoreError unless `stored` can be read by code
// that knows `steps` (EmptyStoreError when `stored` is 0).
void check_readable(int stored, std::span<const Migration> steps, std::string_view path_for_errors);

}  // namespace gpuwatch
