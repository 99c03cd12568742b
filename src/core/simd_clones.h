// EMBER_SIMD_CLONES: builds a hot loop for several x86-64 levels and picks one at load time.
#pragma once

// ThreadSanitizer's runtime is not up yet when ifunc resolvers run at load time, so sanitized
// thread builds use the portable loops only.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMBER_NO_CLONES 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define EMBER_NO_CLONES 1
#endif

// Put it on internal functions behind each public kernel: clang drops target_clones from a
// function that was declared before without it (as a header does).
#if defined(__x86_64__) && defined(__ELF__) && !defined(EMBER_NO_CLONES)
#define EMBER_SIMD_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EMBER_SIMD_CLONES
#endif
