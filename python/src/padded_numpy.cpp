// A NumPy memory handler (NEP 49) that allocates as ember's buffers are laid out, and the
// sharing of arrays it allocated with the engine.
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include "padded_numpy.h"

#include <malloc.h>
#include <numpy/arrayobject.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/buffer_access.h"
#include "core/buffer_cache.h"
#include "deferred_gil.h"

namespace ember::python {

namespace {

constexpr size_t kAlignment = BufferCache::kAlignment;

size_t padded(size_t size) { return detail::BufferAccess::padded_size(size); }

void* padded_malloc(void*, size_t size) {
  if (size > SIZE_MAX - kAlignment) return nullptr;
  return std::aligned_alloc(kAlignment, padded(size));
}

void* padded_calloc(void* ctx, size_t count, size_t width) {
  if (width != 0 && count > SIZE_MAX / width) return nullptr;
  void* p = padded_malloc(ctx, count * width);
  if (p != nullptr) std::memset(p, 0, padded(count * width));
  return p;
}

void* padded_realloc(void* ctx, void* old, size_t size) {
  void* p = padded_malloc(ctx, size);
  if (p == nullptr || old == nullptr) return p;
  std::memcpy(p, old, std::min(malloc_usable_size(old), padded(size)));
  std::free(old);
  return p;
}

void padded_free(void*, void* p, size_t) { std::free(p); }

PyDataMem_Handler g_handler = {
    "ember_padded", 1, {nullptr, padded_malloc, padded_calloc, padded_realloc, padded_free}};

thread_local bool t_shareable = false;

/// The handler's capsule, made once NumPy's C API is imported; nullptr when it cannot be (no
/// NumPy), and nothing is shared. Under the GIL.
PyObject* handler_capsule() {
  static PyObject* capsule = []() -> PyObject* {
    if (_import_array() < 0) {
      PyErr_Clear();
      return nullptr;
    }
    return PyCapsule_New(&g_handler, "mem_handler", nullptr);
  }();
  return capsule;
}

/// A shared buffer's end: the array it borrowed from is let go of under the GIL, now or soon.
void drop_array(PyObject* array) {
  run_under_gil([array] { Py_DECREF(array); });
}

}  // namespace

void prepare_padded_numpy() { (void)handler_capsule(); }

ScopedShareable::ScopedShareable(bool shareable) : previous_(t_shareable) {
  t_shareable = shareable;
}

ScopedShareable::~ScopedShareable() { t_shareable = previous_; }

ScopedPaddedNumpy::ScopedPaddedNumpy() {
  PyObject* capsule = handler_capsule();
  if (capsule == nullptr) return;
  previous_ = PyDataMem_SetHandler(capsule);
  if (previous_ == nullptr) PyErr_Clear();
}

ScopedPaddedNumpy::~ScopedPaddedNumpy() {
  if (previous_ == nullptr) return;
  PyObject* ours = PyDataMem_SetHandler(previous_);
  if (ours == nullptr) PyErr_Clear();
  Py_XDECREF(ours);
  Py_DECREF(previous_);
}

std::shared_ptr<Buffer> share_padded(const py::array& a) {
  if (!t_shareable) return nullptr;
  PyObject* capsule = handler_capsule();
  auto* arr = reinterpret_cast<PyArrayObject*>(a.ptr());
  if (capsule == nullptr || PyArray_HANDLER(arr) != capsule ||
      !PyArray_CHKFLAGS(arr, NPY_ARRAY_OWNDATA) || !PyArray_IS_C_CONTIGUOUS(arr))
    return nullptr;
  auto* data = static_cast<uint8_t*>(PyArray_DATA(arr));
  const size_t bytes = static_cast<size_t>(PyArray_NBYTES(arr));
  // The padding is the handler's, past the array's last byte: kernels may read it word-wise
  // and must see zeros there.
  std::memset(data + bytes, 0, padded(bytes) - bytes);
  PyArray_CLEARFLAGS(arr, NPY_ARRAY_WRITEABLE);
  Py_INCREF(a.ptr());
  std::shared_ptr<void> owner(static_cast<void*>(a.ptr()),
                              [](void* p) { drop_array(static_cast<PyObject*>(p)); });
  return detail::BufferAccess::wrap(data, static_cast<int64_t>(bytes), std::move(owner));
}

}  // namespace ember::python
