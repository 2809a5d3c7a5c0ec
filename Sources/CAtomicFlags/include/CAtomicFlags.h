// One-byte atomic flags for the run-time modules (RegionTables' lazily built leaf grids).
//
// Swift's own atomics (the Synchronization module) need macOS 15 / iOS 18; the package supports
// macOS 12 / iOS 15, so these few operations are C11-style atomics (the `__atomic` builtins of
// Clang and GCC, lock-free on a byte on every platform Swift runs on), inlined into the caller.
// Pure C, no library: builds for iOS, macOS and Linux alike.
#ifndef C_ATOMIC_FLAGS_H
#define C_ATOMIC_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

/// The byte at `flag`, loaded with acquire ordering: every write made before a release store
/// of this value (`caf_store_release`) is visible after it.
static inline uint8_t caf_load_acquire(const uint8_t *flag) {
    return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

/// Stores `value` at `flag` with release ordering: every write before it is visible to a thread
/// that loads `value` with `caf_load_acquire`.
static inline void caf_store_release(uint8_t *flag, uint8_t value) {
    __atomic_store_n(flag, value, __ATOMIC_RELEASE);
}

/// Sets the byte at `flag` to `desired` when it holds `expected` (acquire–release; one thread
/// wins among those racing): true when this call made the change.
static inline bool caf_compare_exchange(uint8_t *flag, uint8_t expected, uint8_t desired) {
    return __atomic_compare_exchange_n(flag, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

#endif
