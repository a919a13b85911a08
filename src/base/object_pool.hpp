// Objects lent out and given back, such as send ops a device may keep until it calls back: each
// is made on first need and kept for reuse (its address stays put) until the pool goes.
#pragma once

#include <memory>
#include <vector>

namespace railmpi::base {

template <class T>
class ObjectPool {
 public:
  // A free object, or a new one after set_up(object), which runs once per object.
  template <class SetUp>
  T* take(SetUp set_up) {
    if (!free_.empty()) {
      T* t = free_.back();
      free_.pop_back();
      return t;
    }
    storage_.push_back(std::make_unique<T>());
    T* t = storage_.back().get();
    set_up(*t);
    return t;
  }
  void give(T* t) { free_.push_back(t); }

 private:
  std::vector<std::unique_ptr<T>> storage_;
  std::vector<T*> free_;
};

}  // namespace railmpi::base
