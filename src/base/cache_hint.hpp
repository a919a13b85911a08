// Hints to the core and the cache hierarchy about lines another core reads or writes next.
#pragma once

namespace railmpi::base {

// Moves the cache line holding `p` from this core's private caches to the shared cache, so that
// the core that polls it next gets it from there instead of from this core (CLDEMOTE; a no-op
// on x86 processors without it, whose decoders take the opcode as a NOP hint, and elsewhere).
inline void demote_line(const void* p) {
#if defined(__x86_64__)
  asm volatile("cldemote %0" : : "m"(*static_cast<const char*>(p)));
#else
  (void)p;
#endif
}

// Starts loading the cache line holding `p` into this core's caches without waiting for it (a
// line read soon after, when other work comes first).
inline void fetch_line(const void* p) { __builtin_prefetch(p); }

// Starts taking the cache line holding `p` into this core's caches for writing (PREFETCHW: the
// line arrives owned, so a store to it later needs no second transfer; elsewhere a read prefetch).
// For a line this core reads now and writes next, before any other core writes it.
inline void fetch_line_to_write(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1);
#endif
}

// Tells the core that this thread spins on a line another core writes (PAUSE: the loop leaves
// the pipeline's memory-order speculation alone and frees issue slots; elsewhere nothing).
inline void spin_pause() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

}  // namespace railmpi::base
