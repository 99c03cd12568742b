/// \file
/// What a UDF call or a download does with the rows it fails on.
#pragma once

namespace ember {

/// What happens to a batch whose call still fails once its retries are spent (a UDF), or to a
/// row whose file cannot be downloaded (Expr::url_download).
enum class OnError {
  Raise,  ///< the query fails (UdfError for a UDF, IoError for a download; the default)
  Null,   ///< the rows whose own call fails get a null result; every other row its real one
  Skip,   ///< the rows whose own call fails are dropped; every other row is kept (UDFs only)
};

}  // namespace ember
