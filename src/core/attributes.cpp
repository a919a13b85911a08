#include "core/attributes.hpp"

namespace railmpi::core {

int AttributeStore::create_keyval(AttrKind kind, AttrCopyFn copy, AttrDeleteFn del, void* extra_state) {
  std::uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(keyvals_.size());
    keyvals_.emplace_back();
  }
  keyvals_[index] = Keyval{kind, copy, del, extra_state, false, 0, true};
  return static_cast<int>(kPrefix | index);
}

Keyval* AttributeStore::slot(int keyval) {
  const auto h = static_cast<std::uint32_t>(keyval);
  if ((h & ~kIndexMask) != kPrefix) return nullptr;
  const std::uint32_t index = h & kIndexMask;
  if (index >= keyvals_.size() || !keyvals_[index].in_use) return nullptr;
  return &keyvals_[index];
}

Keyval* AttributeStore::find_keyval(int keyval, AttrKind kind) {
  Keyval* k = slot(keyval);
  return k && !k->user_freed && k->kind == kind ? k : nullptr;
}

void AttributeStore::drop_use(int keyval) {
  Keyval* k = slot(keyval);
  if (!k) return;
  --k->uses;
  if (k->user_freed && k->uses == 0) {
    k->in_use = false;
    free_.push_back(static_cast<std::uint32_t>(keyval) & kIndexMask);
  }
}

void AttributeStore::free_keyval(int keyval) {
  Keyval* k = slot(keyval);
  if (!k) return;
  k->user_freed = true;
  if (k->uses == 0) {
    k->in_use = false;
    free_.push_back(static_cast<std::uint32_t>(keyval) & kIndexMask);
  }
}

int AttributeStore::set(int object, int keyval, void* value) {
  Keyval* k = slot(keyval);
  if (!k) return 0;
  auto& attrs = objects_[object];
  for (auto& a : attrs) {
    if (a.keyval == keyval) {
      if (k->del) {
        if (int e = k->del(object, keyval, a.value, k->extra_state)) return e;
      }
      a.value = value;
      return 0;
    }
  }
  attrs.push_back({keyval, value});
  ++k->uses;
  return 0;
}

bool AttributeStore::get(int object, int keyval, void*& value) const {
  auto it = objects_.find(object);
  if (it == objects_.end()) return false;
  for (const auto& a : it->second)
    if (a.keyval == keyval) {
      value = a.value;
      return true;
    }
  return false;
}

int AttributeStore::remove(int object, int keyval, bool& found) {
  found = false;
  auto it = objects_.find(object);
  if (it == objects_.end()) return 0;
  auto& attrs = it->second;
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    if (attrs[i].keyval != keyval) continue;
    found = true;
    Keyval* k = slot(keyval);
    if (k && k->del) {
      if (int e = k->del(object, keyval, attrs[i].value, k->extra_state)) return e;
    }
    attrs.erase(attrs.begin() + static_cast<std::ptrdiff_t>(i));
    if (attrs.empty()) objects_.erase(it);
    drop_use(keyval);
    return 0;
  }
  return 0;
}

int AttributeStore::copy_all(int from, int to) {
  auto it = objects_.find(from);
  if (it == objects_.end()) return 0;
  const std::vector<Attr> source = it->second;  // callbacks may set attributes
  for (const auto& a : source) {
    Keyval* k = slot(a.keyval);
    if (!k || !k->copy) continue;
    void* out = nullptr;
    int flag = 0;
    if (int e = k->copy(from, a.keyval, k->extra_state, a.value, &out, &flag)) return e;
    if (flag) {
      if (int e = set(to, a.keyval, out)) return e;
    }
  }
  return 0;
}

int AttributeStore::remove_all(int object) {
  auto it = objects_.find(object);
  if (it == objects_.end()) return 0;
  while (it != objects_.end() && !it->second.empty()) {
    const Attr a = it->second.back();
    Keyval* k = slot(a.keyval);
    if (k && k->del) {
      if (int e = k->del(object, a.keyval, a.value, k->extra_state)) return e;
    }
    it = objects_.find(object);
    if (it == objects_.end()) break;
    auto& attrs = it->second;
    for (std::size_t i = attrs.size(); i-- > 0;)
      if (attrs[i].keyval == a.keyval) {
        attrs.erase(attrs.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    drop_use(a.keyval);
  }
  objects_.erase(object);
  return 0;
}

std::size_t AttributeStore::attribute_count(int object) const {
  auto it = objects_.find(object);
  return it == objects_.end() ? 0 : it->second.size();
}

}  // namespace railmpi::core
