// NumPy arrays that a thread actor's UDF allocates, laid out as ember's buffers are, so that a
// result array becomes its column's buffer without a copy.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>

#include "ember/ember.h"

namespace ember::python {

namespace py = pybind11;

/// While alive (on a thread holding the GIL), NumPy allocates this thread's new arrays 64-byte
/// aligned with their size rounded up to 64 bytes: the layout of an ember Buffer. NumPy's
/// handler is a context variable, so other threads and later calls are untouched.
class ScopedPaddedNumpy {
 public:
  ScopedPaddedNumpy();
  ~ScopedPaddedNumpy();
  ScopedPaddedNumpy(const ScopedPaddedNumpy&) = delete;
  ScopedPaddedNumpy& operator=(const ScopedPaddedNumpy&) = delete;

 private:
  PyObject* previous_ = nullptr;
};

/// Imports NumPy's C API and makes the handler. Called once at import: done later, on two
/// actor threads at once, the import could let go of the GIL inside a static's initialisation.
void prepare_padded_numpy();

/// While alive, share_padded may share an array on this thread: the caller knows that no
/// Python code holds the array but the conversion under way (a UDF's fresh result).
class ScopedShareable {
 public:
  explicit ScopedShareable(bool shareable);
  ~ScopedShareable();
  ScopedShareable(const ScopedShareable&) = delete;
  ScopedShareable& operator=(const ScopedShareable&) = delete;

 private:
  bool previous_;
};

/// The C-contiguous array `a` as a buffer shared with NumPy, when a ScopedShareable allows it,
/// NumPy allocated the memory under a ScopedPaddedNumpy, and `a` owns it; nullptr otherwise.
/// The array becomes read-only (a column never changes) and stays alive as long as the buffer.
/// Under the GIL.
std::shared_ptr<Buffer> share_padded(const py::array& a);

}  // namespace ember::python
