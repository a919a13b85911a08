// Attribute caching for communicators, datatypes and windows: keyvals and a store keyed by the
// object's handle. Knows no MPI header: callbacks are stored in one generic shape (every MPICH-ABI
// handle is an int) and their return codes are passed back to the caller.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace railmpi::core {

enum class AttrKind : unsigned char { comm, type, win };

using AttrCopyFn = int (*)(int object, int keyval, void* extra_state, void* value_in, void* value_out, int* flag);
using AttrDeleteFn = int (*)(int object, int keyval, void* value, void* extra_state);

struct Keyval {
  AttrKind kind = AttrKind::comm;
  AttrCopyFn copy = nullptr;    // null: not copied
  AttrDeleteFn del = nullptr;   // null: nothing to call
  void* extra_state = nullptr;
  bool user_freed = false;      // MPI_*_free_keyval called; the slot lives while attributes use it
  int uses = 0;                 // attributes currently set with this keyval
  bool in_use = false;
};

class AttributeStore {
 public:
  static constexpr std::uint32_t kPrefix = 0xa4000000u;  // direct kind, object type keyval
  static constexpr std::uint32_t kIndexMask = 0x03ffffffu;

  int create_keyval(AttrKind kind, AttrCopyFn copy, AttrDeleteFn del, void* extra_state);
  // nullptr when `keyval` is not a live keyval of `kind` (freed keyvals are not live).
  Keyval* find_keyval(int keyval, AttrKind kind);
  // Marks the keyval freed; its slot is reused once no attribute refers to it.
  void free_keyval(int keyval);

  // Sets (replacing, after the delete callback of the old value; its error is returned).
  int set(int object, int keyval, void* value);
  bool get(int object, int keyval, void*& value) const;
  // Removes one attribute, calling its delete callback. Returns the callback's code; 0 if the
  // attribute was not set (`found` false).
  int remove(int object, int keyval, bool& found);
  // Runs the copy callbacks of `from`'s attributes and sets the copies on `to`. Stops at the first
  // callback error and returns it.
  int copy_all(int from, int to);
  // Removes every attribute of `object` (delete callbacks in reverse order of setting).
  int remove_all(int object);
  std::size_t attribute_count(int object) const;

 private:
  struct Attr {
    int keyval;
    void* value;
  };
  Keyval* slot(int keyval);
  void drop_use(int keyval);

  std::vector<Keyval> keyvals_;
  std::vector<std::uint32_t> free_;
  std::map<int, std::vector<Attr>> objects_;
};

}  // namespace railmpi::core
